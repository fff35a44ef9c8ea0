//! End-to-end: `gqlbench load` against a fixture server started here.
use crate::common;

use common::*;
use gqlbench::commands::load::LoadReport;
use gqlbench_engine::FailureKind;

/// The open model owed nothing: no `unsent` or `rate_shortfall` saturation flag.
fn assert_no_shortfall(r: &LoadReport) {
    let kinds: Vec<&str> = r.saturation.iter().map(|f| f.kind.as_str()).collect();
    assert!(
        !kinds.contains(&"unsent") && !kinds.contains(&"rate_shortfall"),
        "{kinds:?}"
    );
}

fn query() -> std::path::PathBuf {
    fixtures().join("scenarios/queries/fixture/hello.graphql")
}

/// `load URL -q hello.graphql ARGS`.
fn load(url: &str, args: &[&str]) -> Gqlbench {
    Gqlbench::load(url, query()).args(args)
}

#[test]
fn load_validates_against_the_expected_answer() {
    let s = start_fixture_server("good");
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    std::fs::write(&good, r#"{"data": {"hello": "world"}}"#).unwrap();
    let out = load(&s.url, &["-c", "4", "-d", "1s", "--json", "--expect"])
        .arg(&good)
        .go();
    assert!(out.success());
    let r = out.load_report();
    assert!(r.result.ok > 0);
    assert_eq!(r.result.failed, 0);
    assert!(r.expected_answer);
    assert!(r.result.latency.p99_us > 0);
    assert!(r.result.throughput_rps > 0.0);
    assert!(r.generator.cpu_s > 0.0);
    assert!(r.requests_per_cpu_second > 0.0);

    let wrong = dir.path().join("wrong.json");
    std::fs::write(&wrong, r#"{"hello": "mars"}"#).unwrap();
    let out = load(&s.url, &["-c", "2", "-d", "1s", "--json", "--expect"])
        .arg(&wrong)
        .go();
    assert_eq!(out.code, Some(1), "failures make the exit code 1");
    let r = out.load_report();
    assert_eq!(r.result.ok, 0);
    assert!(r.result.failures[&FailureKind::WrongData] > 0);
    let ex = &r.result.failure_examples[0].detail;
    assert!(ex.contains("mars") && ex.contains("world"), "{ex}");
}

#[test]
fn load_counts_requests_and_pipelines() {
    let s = start_fixture_server("chunked");
    let out = load(&s.url, &["-c", "3", "-n", "600", "-p", "4", "--json"]).go();
    assert!(out.success());
    let r = out.load_report();
    assert_eq!(r.result.requests, 600);
    assert_eq!(r.result.ok, 600);
}

#[test]
fn open_model_reports_send_lag_and_intended_requests() {
    let s = start_fixture_server("good");
    let out = load(&s.url, &["-c", "20", "-d", "1s", "--rate", "400", "--json"]).go();
    assert!(out.success());
    let r = out.load_report();
    assert_eq!(r.load.model.as_str(), "open");
    let intended = r.result.intended_requests;
    assert!((360..=440).contains(&intended), "{intended}");
    assert!(r.result.send_lag.is_some());
    assert!(r.result.uncorrected_latency.is_some());
}

#[test]
fn connection_refused_is_counted_as_connect_failures() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/graphql");
    let out = load(&url, &["-c", "2", "-d", "500ms", "--json"]).go();
    out.assert_exit(1);
    let r = out.load_report().result;
    let refused = r.failures[&FailureKind::Connect];
    assert!(refused > 0);
    // Nothing answered: no requests, no throughput, no latency.
    assert_eq!(r.requests, 0);
    assert_eq!(r.unanswered, refused);
    assert_eq!(r.throughput_rps, 0.0);
    assert_eq!(r.latency.count, 0);
}

#[test]
fn open_model_reopens_connections_the_server_closed_while_idle() {
    // The server closes idle keep-alive connections after 100 ms; at 5 req/s every pooled
    // connection has been idle longer than that when it is reused.
    let s = start_fixture_server("short-keepalive");
    let out = load(&s.url, &["-c", "2", "-d", "2s", "--rate", "5", "--json"]).go();
    assert!(out.success());
    let r = out.load_report().result;
    assert_eq!(r.failed, 0, "{:?}", r.failure_examples);
    assert!(r.ok >= 8);
}

#[test]
fn open_model_with_a_request_count_owes_nothing_after_the_budget() {
    let s = start_fixture_server("good");
    let out = load(&s.url, &["-c", "4", "-n", "50", "--rate", "200", "--json"]).go();
    assert!(out.success());
    let r = out.load_report();
    assert_eq!(r.result.requests, 50);
    assert_eq!(r.result.unsent, 0);
    assert_no_shortfall(&r);
}

#[test]
fn load_refuses_input_that_cannot_work_before_sending_anything() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.graphql");
    std::fs::write(&empty, "  \n").unwrap();
    let html = dir.path().join("page.graphql");
    std::fs::write(&html, "<html>not a query</html>").unwrap();
    let url = "http://127.0.0.1:9/graphql";
    let cases: Vec<(Gqlbench, &str)> = vec![
        (
            Gqlbench::load("ws://127.0.0.1:9/graphql", query()),
            "http://",
        ),
        (Gqlbench::load(url, &empty), "empty.graphql"),
        (Gqlbench::load(url, &html), "not a GraphQL document"),
        (
            load(url, &["-d", "9223372036854775807s", "-n", "10"]),
            "--duration",
        ),
        (load(url, &["-c", "1000000"]), "local ports"),
        (
            load(url, &["--think-time", "9223372036854775807s"]),
            "--think-time",
        ),
        // Less than one request due in the window: nothing would be sent.
        (
            load(url, &["--rate", "0.5", "-d", "1s"]),
            "0.50 requests: fewer than one",
        ),
    ];
    for (cmd, says) in cases {
        let out = cmd.go();
        assert_eq!(out.code, Some(2), "{cmd:?}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{cmd:?}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked"));
    }
}

#[test]
fn load_takes_the_projects_own_answer_files() {
    let s = start_fixture_server("good");
    // The catalogue's answer file: a list of cases.
    let answers = fixtures().join("scenarios/expected/fixture/hello.json");
    let out = load(&s.url, &["-c", "2", "-d", "500ms", "--json", "--expect"])
        .arg(&answers)
        .go();
    assert!(out.success(), "{}", out.stderr);
    let r = out.load_report();
    assert!(r.result.ok > 0);
    assert_eq!(r.result.failed, 0);
    assert!(r.expected_answer);
    // --variables picks a case; one that no case has is refused, listing the cases.
    let out = load(
        &s.url,
        &[
            "-d",
            "500ms",
            "--variables",
            r#"{"id": "nope"}"#,
            "--expect",
        ],
    )
    .arg(&answers)
    .go();
    out.assert_exit(2);
    assert!(
        out.stderr.contains("no case has the --variables"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_case_with_a_unique_variable_sends_a_new_request_every_time() {
    // The fixture's cache executes only bodies it has not seen: every request, here.
    let counters = free_port();
    let s = start_with_env("cache", &[("GQLBENCH_COUNTERS_PORT", counters.to_string())]);
    let doc = fixtures().join("scenarios/queries/fixture/hello-unique.graphql");
    let answers = fixtures().join("scenarios/expected/fixture/hello-unique.json");
    let out = Gqlbench::load(&s.url, doc)
        .args(["-c", "4", "-n", "300", "--json", "--expect"])
        .arg(&answers)
        .go();
    assert!(out.success(), "{}", out.stderr);
    let r = out.load_report();
    assert_eq!((r.result.ok, r.result.failed), (300, 0));
    let executions = gqlbench::measure::loopback::get_json(counters, "/counters").unwrap()
        ["executions"]
        .as_u64()
        .unwrap();
    assert!(executions >= 300, "{executions} executions of 300 requests");
}

#[test]
fn a_low_rate_raises_no_false_shortfall() {
    let s = start_fixture_server("good");
    let out = load(&s.url, &["--rate", "1.5", "-d", "1s", "--json"]).go();
    assert!(out.success());
    let r = out.load_report();
    assert_no_shortfall(&r);
    assert_eq!(r.result.intended_requests, r.result.requests);
}

#[test]
fn load_uses_the_cpus_its_mask_allows() {
    let s = start_fixture_server("good");
    let out = load(&s.url, &["-c", "4", "-d", "300ms", "--json"])
        .under(["taskset", "-c", "0"])
        .go();
    assert!(out.success(), "{}", out.stderr);
    assert_eq!(
        out.load_report().result.threads,
        1,
        "one CPU allowed, one worker"
    );
    // More threads than the mask allows CPUs: they share that one core, and the
    // generator's utilization is over it (else a busy generator reads as idle and the
    // saturation guard cannot trip).
    let out = load(
        &s.url,
        &["-c", "4", "-d", "300ms", "--threads", "4", "--json"],
    )
    .under(["taskset", "-c", "0"])
    .go();
    assert!(out.success(), "{}", out.stderr);
    let r = out.load_report();
    assert_eq!(r.result.threads, 4);
    assert_eq!(r.generator.cores, 1, "{:?}", r.generator);
}

#[test]
fn deep_pipelining_is_served_not_stalled() {
    // 20,000 requests in flight per connection: the answers fill the socket buffers long
    // before the requests are written; a generator that only reads after writing stalls.
    // 1 KiB requests, ~2 KiB answers ('big' mode): tens of MB each way per connection.
    let s = start_fixture_server("big");
    let pad = format!(r#"{{"pad": "{}"}}"#, "x".repeat(1000));
    let out = load(
        &s.url,
        &[
            "-c",
            "2",
            "-p",
            "20000",
            "-n",
            "80000",
            "--timeout",
            "20s",
            "--json",
        ],
    )
    .args(["--variables", &pad])
    .go();
    assert!(out.success(), "{}", out.stderr);
    let r = out.load_report().result;
    assert_eq!(r.failed, 0, "{:?}", r.failure_examples);
    assert_eq!(r.requests, 80_000);
    assert!(r.bytes_received > 80_000 * 2000);
}

/// Pipelining far beyond what the window holds: the count is flagged as coarse, with the
/// requests' own timing beside it.
#[test]
fn a_count_too_coarse_for_its_window_is_flagged() {
    let s = start_fixture_server("good");
    let out = load(
        &s.url,
        &["-c", "2", "-p", "5000", "-d", "1s", "--timeout", "20s"],
    )
    .go();
    assert!(out.success(), "{}", out.stderr);
    assert!(
        out.stdout
            .contains("⚠ coarse count: 10000 connection slots"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("the requests' own timing gives"),
        "{}",
        out.stdout
    );
}

#[test]
fn connections_that_completed_nothing_are_blamed_on_the_measured_cause() {
    // Every answer takes 1.5 s; the timeout is 500 ms: each request times out.
    let s = start_fixture_server("slow");
    let out = load(
        &s.url,
        &["-c", "2", "-d", "1s", "--timeout", "500ms", "--json"],
    )
    .go();
    out.assert_exit(1);
    let r = out.load_report();
    let flag = r
        .saturation
        .iter()
        .find(|f| f.kind.as_str() == "connections_unused")
        .unwrap_or_else(|| panic!("{:?}", r.saturation));
    assert!(
        flag.detail
            .contains("requests got no answer within the 500ms timeout (the target answered slower than that)"),
        "{}",
        flag.detail
    );
    assert!(!flag.detail.contains("listen queue"), "{}", flag.detail);
}
