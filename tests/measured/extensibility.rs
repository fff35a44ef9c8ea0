//! End-to-end: the extensibility suite's proofs, with the gateway CI has without a native
//! build (Hive Gateway, from npm) and the Node coprocessor. Apollo Router's variants use the
//! same proofs; its ~20-minute build is not made in CI.
//! - a plugin variant that adds the subgraph header, the GUID response headers or the
//!   client headers from a JWT is valid, with its proof in the results;
//! - the same variant with its plugin switched off (GQLBENCH_GATEWAY_PLUGIN=none) is invalid,
//!   never measured as a bare round trip;
//! - a coprocessor variant calls the Node coprocessor (calls per request counted), and one
//!   pointed at a coprocessor that answers without doing its work is invalid;
//! - a Node server with the tracing preload exports spans, and one given an instrumentation
//!   the preload does not know fails its start by name.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

use crate::common::*;
use gqlbench::results::{RunResults, TargetStatus, UpstreamUsage};

/// Gateways and their subgraphs: one test at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// One short round of `scenario` against hive-gateway and `variant`, with extra `--target-env`.
fn run(scenario: &str, variant: &str, target_env: &[&str]) -> (Option<i32>, RunResults) {
    run_over("hive-gateway", scenario, variant, target_env)
}

/// One short round of `scenario` against `base` and `variant`, with extra `--target-env`.
fn run_over(
    base: &str,
    scenario: &str,
    variant: &str,
    target_env: &[&str],
) -> (Option<i32>, RunResults) {
    let out_dir = tempfile::tempdir().unwrap();
    let mut g = Gqlbench::run("extensibility")
        .root(repo())
        .scenarios(scenario)
        .targets(&format!("{base},{variant}"))
        .warmup("200ms")
        .duration("1s")
        .trials(1)
        .json()
        .out(out_dir.path());
    for e in target_env {
        g = g.args(["--target-env", e]);
    }
    let out = g.go();
    (out.code, out.results())
}

/// The variant's first trial's upstream usage, after asserting the run exited 0.
fn passed<'a>(code: Option<i32>, r: &'a RunResults, name: &str) -> &'a UpstreamUsage {
    let t = target(r, 0, name);
    assert_eq!(
        code,
        Some(0),
        "{:?} {:?}",
        t.problem,
        t.trials.first().map(|x| &x.problems)
    );
    t.trials[0].upstream.as_ref().unwrap()
}

fn valid_row(r: &RunResults, name: &str) -> bool {
    target(r, 0, name).summary.as_ref().is_some_and(|s| s.valid)
}

#[test]
fn a_plugin_that_adds_the_subgraph_header_proves_it_and_one_switched_off_is_invalid() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (code, r) = run("subgraph-header", "hive-gateway-header-plugin", &[]);
    let up = passed(code, &r, "hive-gateway-header-plugin");
    let seen: u64 = up.headers["source"].values().sum();
    assert_eq!(up.headers["source"].keys().collect::<Vec<_>>(), ["plugin"]);
    assert!(seen > 0);
    // The base carries no header: the proof is the variant's own work.
    let base = target(&r, 0, "hive-gateway").trials[0]
        .upstream
        .as_ref()
        .unwrap();
    assert!(base.headers.is_empty(), "{:?}", base.headers);
    // At a fixed rate throughput ranks nothing: no ranking is made.
    assert!(r.scenarios[0].ranking.is_none());
    // The overhead table compares the variant with its base.
    let t = target(&r, 0, "hive-gateway-header-plugin");
    assert_eq!(t.base.as_deref(), Some("hive-gateway"));

    let (code, r) = run(
        "subgraph-header",
        "hive-gateway-header-plugin",
        &["GQLBENCH_GATEWAY_PLUGIN=none"],
    );
    assert_eq!(code, Some(1));
    assert!(!valid_row(&r, "hive-gateway-header-plugin"));
    assert!(valid_row(&r, "hive-gateway"), "the base is still measured");
    let problems = &target(&r, 0, "hive-gateway-header-plugin").trials[0].problems;
    assert!(
        problems
            .iter()
            .any(|p| p.contains("0 of") && p.contains("`source`")),
        "{problems:?}"
    );
    assert_no_process("subgraphs serve");
}

#[test]
fn guid_and_client_headers_are_proven_before_and_during_the_load() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (code, r) = run("guid-headers", "hive-gateway-guid-plugin", &[]);
    assert_eq!(
        code,
        Some(0),
        "{:?}",
        target(&r, 0, "hive-gateway-guid-plugin").problem
    );
    let (code, r) = run("client-awareness", "hive-gateway-client-plugin", &[]);
    let up = passed(code, &r, "hive-gateway-client-plugin");
    assert!(up.headers["apollographql-client-name"].contains_key("gqlbench-web"));

    // Switched off, each is caught before any load: no GUIDs, a bad token let through.
    for (scenario, variant, what) in [
        (
            "guid-headers",
            "hive-gateway-guid-plugin",
            "required headers missing",
        ),
        (
            "client-awareness",
            "hive-gateway-client-plugin",
            "instead of 401",
        ),
    ] {
        let (code, r) = run(scenario, variant, &["GQLBENCH_GATEWAY_PLUGIN=none"]);
        assert_eq!(code, Some(1), "{variant}");
        let t = target(&r, 0, variant);
        assert_eq!(t.status, TargetStatus::WrongAnswers, "{variant}");
        let p = t.problem.as_deref().unwrap_or("");
        assert!(p.contains(what), "{variant}: {p}");
        assert!(t.trials.is_empty(), "{variant}: measured anyway");
    }
}

/// The run exited 0, `variant`'s first trial delivered spans, and its base exported none.
fn assert_spans_delivered(code: Option<i32>, r: &RunResults, base: &str, variant: &str) {
    let t = target(r, 0, variant);
    assert_eq!(
        code,
        Some(0),
        "{:?} {:?}",
        t.problem,
        t.trials.first().map(|x| &x.problems)
    );
    let tr = t.trials[0].tracing.as_ref().expect("spans counted");
    assert!(tr.spans > 0 && tr.exports > 0, "{tr:?}");
    assert!(target(r, 0, base).trials[0].tracing.is_none());
}

#[test]
fn a_tracing_variant_delivers_spans_and_one_that_exports_nowhere_is_invalid() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (code, r) = run("tracing", "hive-gateway-tracing-100", &[]);
    assert_spans_delivered(code, &r, "hive-gateway", "hive-gateway-tracing-100");
    // The spans went through the real OpenTelemetry Collector the scenario names (built
    // from the Go module proxy by the run), and neither it nor the counter outlives it.
    assert_eq!(
        r.scenarios[0]
            .by_kind
            .get(&gqlbench::kinds::overhead::SPEC)
            .and_then(|o| o.trace_collector),
        Some("otel-collector".to_string())
    );
    assert_no_process("serve-otlp");
    assert_no_process("otelcol");

    // Its exporter pointed where nothing listens: tracing "on", nothing delivered.
    let (code, r) = run(
        "tracing",
        "hive-gateway-tracing-100",
        &["GQLBENCH_OTLP_URL=http://127.0.0.1:9"],
    );
    assert_eq!(code, Some(1));
    let problems = &target(&r, 0, "hive-gateway-tracing-100").trials[0].problems;
    assert!(
        problems
            .iter()
            .any(|p| p.contains("no span reached the collector")),
        "{problems:?}"
    );
}

#[test]
fn a_server_tracing_variant_exports_from_its_preload_and_a_bad_instrumentation_fails_its_start() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The unchanged server with targets/_node/tracing.mjs preloaded, at saturation, spans
    // straight to gqlbench's counter.
    let (code, r) = run_over(
        "graphql-jit",
        "server-tracing",
        "graphql-jit-tracing-100",
        &[],
    );
    assert_spans_delivered(code, &r, "graphql-jit", "graphql-jit-tracing-100");
    assert!(r.scenarios[0]
        .by_kind
        .get(&gqlbench::kinds::overhead::SPEC)
        .is_some_and(|o| o.trace_collector.is_none()));
    assert_no_process("serve-otlp");

    // An instrumentation the preload does not know: the variant never starts (its message
    // names the variable and the value), the base is still measured.
    let (code, r) = run_over(
        "graphql-jit",
        "server-tracing",
        "graphql-jit-tracing-100",
        &["GQLBENCH_OTEL_INSTRUMENTATIONS=http,nosuch"],
    );
    assert_eq!(code, Some(1));
    let t = target(&r, 0, "graphql-jit-tracing-100");
    assert_eq!(t.status, TargetStatus::StartFailed, "{:?}", t.problem);
    let log = t.log_tail.as_deref().unwrap_or_default();
    assert!(
        log.contains("GQLBENCH_OTEL_INSTRUMENTATIONS names 'nosuch'"),
        "{:?}: {log}",
        t.problem
    );
    assert!(valid_row(&r, "graphql-jit"));
}

/// How a misbehaving coprocessor answers.
#[derive(Clone, Copy, PartialEq)]
enum Misbehaves {
    /// Every payload unchanged: it "ran" but did no work.
    Lazy,
    /// A body that is not JSON.
    Garbage,
    /// Unchanged, but only after 3 s: past the caller's 2-s coprocessor timeout.
    Slow,
}

/// A coprocessor on a free port that misbehaves as `how`.
fn lazy_coprocessor(how: Misbehaves) -> (u16, std::thread::JoinHandle<()>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let h = std::thread::spawn(move || {
        l.set_nonblocking(false).unwrap();
        for s in l.incoming() {
            let Ok(s) = s else { return };
            std::thread::spawn(move || {
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut w = s;
                loop {
                    let mut len = 0usize;
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if r.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        let lower = line.to_ascii_lowercase();
                        if let Some(v) = lower.strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; len];
                    if r.read_exact(&mut body).is_err() {
                        return;
                    }
                    match how {
                        Misbehaves::Lazy => {}
                        Misbehaves::Garbage => body = b"<html>oops</html>".to_vec(),
                        Misbehaves::Slow => std::thread::sleep(std::time::Duration::from_secs(3)),
                    }
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                        body.len()
                    );
                    if w.write_all(head.as_bytes()).is_err() || w.write_all(&body).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (port, h)
}

#[test]
fn a_coprocessor_variant_is_measured_with_its_calls_and_a_lazy_coprocessor_is_caught() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (code, r) = run("subgraph-header", "hive-gateway-header-node", &[]);
    let up = passed(code, &r, "hive-gateway-header-node");
    assert_eq!(
        up.headers["source"].keys().collect::<Vec<_>>(),
        ["coprocessor"]
    );
    // One coprocessor call per subgraph request.
    let calls = up.coprocessor_calls_per_request.unwrap();
    assert!(
        (calls - up.calls_per_request).abs() < 0.05,
        "{calls} coprocessor calls vs {} subgraph calls per request",
        up.calls_per_request
    );
    assert!(up.coprocessor_cpu_pct.is_some_and(|c| c > 0.0));

    let (port, _h) = lazy_coprocessor(Misbehaves::Lazy);
    let (code, r) = run(
        "subgraph-header",
        "hive-gateway-header-node",
        &[&format!("GQLBENCH_COPROCESSOR_URL=http://127.0.0.1:{port}")],
    );
    assert_eq!(code, Some(1));
    let problems = &target(&r, 0, "hive-gateway-header-node").trials[0].problems;
    assert!(
        problems
            .iter()
            .any(|p| p.contains("0 of") && p.contains("coprocessor")),
        "{problems:?}"
    );
}

/// The Node coprocessor (the one CI runs) keeps the contract both gateways' protocols need,
/// checked by the contract's own checker: Apollo's payloads answered in kind, Hive Router's
/// (no `control`) answered with `"control": "continue"`, 401 breaks, 400s and 404s.
#[test]
fn the_node_coprocessor_keeps_the_contract_for_apollo_and_hive_router_payloads() {
    let _turn = file_turn(module_path!());
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !require(
        python,
        "no python3 to run targets/_coprocessors/check.py (apt-get install python3; .ci/run installs it)",
    ) {
        return;
    }
    Gqlbench::new(["install", "coprocessor-node"])
        .root(repo())
        .go()
        .assert_exit(0);
    let out = std::process::Command::new("python3")
        .arg(repo().join("targets/_coprocessors/check.py"))
        .arg(repo().join("targets/coprocessor-node"))
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Hive Router's payloads"), "{text}");
    assert!(text.contains(", 0 failed"), "{text}");
}

/// A coprocessor that answers with a body that is not JSON, or too late: the variant is
/// invalid with the reason (every request failed), and the run goes on to its end.
#[test]
fn a_coprocessor_answering_garbage_or_past_its_timeout_makes_the_variant_invalid() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for how in [Misbehaves::Garbage, Misbehaves::Slow] {
        let (port, _h) = lazy_coprocessor(how);
        let (code, r) = run(
            "subgraph-header",
            "hive-gateway-header-node",
            &[&format!("GQLBENCH_COPROCESSOR_URL=http://127.0.0.1:{port}")],
        );
        assert_eq!(code, Some(1));
        // The base in the same run is measured and valid.
        assert!(valid_row(&r, "hive-gateway"));
        let t = target(&r, 0, "hive-gateway-header-node");
        assert!(!valid_row(&r, "hive-gateway-header-node"));
        let why = format!(
            "{:?} {:?}",
            t.problem,
            t.trials.first().map(|x| &x.problems)
        );
        assert!(why.contains("errors"), "{why}");
    }
}
