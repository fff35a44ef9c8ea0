//! End-to-end: the verdicts a CI job reads. Exit codes mean one thing everywhere (0 every
//! measured row valid, 1 failures, 2 bad input or a catalogue fault, 130 interrupted), and
//! input that cannot work is refused before anything starts.
use std::path::Path;

use crate::common::*;
use gqlbench::results::RunResults;
use gqlbench::verdict::RunVerdict;

/// Half a second of the scenario hello against `targets`, JSON on stdout.
fn hello_run(root: &Path, targets: &str, out: &Path) -> Gqlbench {
    Gqlbench::run("e2e")
        .root(root)
        .scenarios("hello")
        .targets(targets)
        .duration("500ms")
        .json()
        .out(out)
}

fn verdict(r: &RunResults) -> &RunVerdict {
    r.verdict.as_ref().expect("a verdict")
}

#[test]
fn run_exit_codes_follow_the_verdict() {
    let _turn = file_turn(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let out = hello_run(&fixtures(), "fx-good", &dir.path().join("a")).go();
    out.assert_exit(0);
    let r = out.results();
    assert_eq!(verdict(&r).exit_code, 0);
    assert!(out.stderr.contains("every measured row valid"));
    // A few connections are not concerned by an open-files limit that could not be raised
    // (this machine's hard limit is 20,000): no note about it.
    assert!(
        !r.isolation.notes.iter().any(|n| n.contains("open-files")),
        "{:?}",
        r.isolation.notes
    );

    // A target with wrong answers fails the run, and says which and why.
    let out = hello_run(&fixtures(), "fx-good,fx-wrong", &dir.path().join("b")).go();
    out.assert_exit(1);
    let r = out.results();
    let failures = &verdict(&r).failures;
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].contains("fx-wrong: wrong answers"),
        "{failures:?}"
    );
    assert!(
        out.stderr.contains("verdict: FAILED: exit 1"),
        "{}",
        out.stderr
    );

    // A target that degrades under load: its row is invalid, the run fails.
    let out = hello_run(&fixtures(), "fx-degrade", &dir.path().join("c")).go();
    out.assert_exit(1);
    let r = out.results();
    let f = &verdict(&r).failures[0];
    assert!(
        f.contains("fx-degrade: invalid (0 of 1 trials valid)"),
        "{f}"
    );

    // --ignore-failures reports them and exits 0.
    let out = hello_run(&fixtures(), "fx-good,fx-wrong", &dir.path().join("d"))
        .arg("--ignore-failures")
        .go();
    out.assert_exit(0);
    let r = out.results();
    assert!(verdict(&r).failures_ignored);
    assert_eq!(verdict(&r).failures.len(), 1);
}

#[test]
fn a_wrong_expected_answer_is_a_catalogue_fault() {
    let _turn = file_turn(module_path!());
    let cat = fixture_copy();
    let expected = cat.path().join("scenarios/expected/fixture/hello.json");
    std::fs::write(
        &expected,
        r#"[{"variables": null, "data": {"hello": "mars"}}]"#,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = hello_run(cat.path(), "fx-good,fx-chunked", dir.path()).go();
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(e.contains("expected/fixture/hello.json"), "{e}");
    let r = out.results();
    let fault = r.scenarios[0].catalogue_fault.as_deref().unwrap();
    assert!(
        fault.contains("all 2 targets") && fault.contains("mars"),
        "{fault}"
    );
    // The targets are not blamed for it.
    assert!(verdict(&r).failures.is_empty());
    // One target getting it wrong alone is that target's fault.
    let out = hello_run(&fixtures(), "fx-good,fx-wrong", &dir.path().join("x")).go();
    out.assert_exit(1);
    assert!(out.results().scenarios[0].catalogue_fault.is_none());
}

#[test]
fn a_query_that_is_not_graphql_is_refused_before_anything_starts() {
    let _turn = file_turn(module_path!());
    let cat = fixture_copy();
    let q = cat.path().join("scenarios/queries/fixture/hello.graphql");
    std::fs::write(&q, "{ hello").unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().join("run");
    let out = hello_run(cat.path(), "fx-good", &out_path).go();
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(
        e.contains("queries/fixture/hello.graphql") && e.contains("not a GraphQL document"),
        "{e}"
    );
    assert!(!out_path.exists(), "nothing started, nothing written");
}

#[test]
fn a_load_this_machine_cannot_carry_is_refused_up_front() {
    let _turn = file_turn(module_path!());
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().join("run");
    let out = hello_run(&fixtures(), "fx-good", &out_path)
        .connections(1_000_000)
        .go();
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(e.contains("-c") && e.contains("local ports"), "{e}");
    assert!(!out_path.exists());

    let cat = fixture_copy();
    let sc = cat.path().join("scenarios/e2e/hello.toml");
    let text = std::fs::read_to_string(&sc)
        .unwrap()
        .replace("connections = 8", "connections = 4000000000");
    std::fs::write(&sc, text).unwrap();
    let out = hello_run(cat.path(), "fx-good", &out_path).go();
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(e.contains("e2e/hello.toml") && e.contains("[load]"), "{e}");
    assert!(!out_path.exists());
}

#[test]
fn calibrate_checks_its_flags_before_starting_a_server() {
    let _turn = file_turn(module_path!());
    let out = Gqlbench::new(["calibrate", "-c", "0", "--no-pin"]).go();
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(
        e.contains("--connections") && e.contains("at least 1"),
        "{e}"
    );
    assert!(!e.contains("gqlbench: 0 connections"), "a step ran: {e}");

    // --sensitivity's --run-flags are read as the child command will read them, before any
    // run: a flag it does not take, or one calibrate sets itself (in any spelling).
    let dir = tempfile::tempdir().unwrap();
    for (flags, want) in [
        ("--bogus", "`gqlbench run` would refuse \"--bogus\""),
        ("--duration ten", "'ten' is not a duration"),
        ("--targets=graphql-jit", "--targets is set by calibrate"),
        ("--out=elsewhere", "--out is set by calibrate"),
    ] {
        let out = dir.path().join("sens");
        let o = Gqlbench::new(["calibrate", "--sensitivity", "--run-flags", flags])
            .arg("--out")
            .arg(&out)
            .go();
        o.assert_exit(2);
        assert!(
            o.stderr.contains("--run-flags") && o.stderr.contains(want),
            "{flags}: {}",
            o.stderr
        );
        assert!(!out.exists(), "{flags}: nothing ran");
    }
}

/// `calibrate` to the end, short (-d): both steps against its own static server, with
/// figures a measurement could give, and exit 0.
#[test]
fn calibrate_runs_both_steps_to_the_end_and_reports_what_it_measured() {
    let _turn = file_turn(module_path!());
    let out = Gqlbench::new(["calibrate", "-d", "300ms", "-c", "4", "--no-pin", "--json"]).go();
    out.assert_exit(0);
    let c = out.json();
    let steps = c["steps"].as_array().expect("steps");
    let pipelining: Vec<u64> = steps
        .iter()
        .map(|s| s["pipelining"].as_u64().unwrap())
        .collect();
    assert_eq!(pipelining, [1, 10], "{c}");
    for s in steps {
        assert_eq!(s["tool"], "gqlbench", "{s}");
        assert_eq!(s["connections"], 4, "{s}");
        assert_eq!(s["failed"], 0, "{s}");
        assert_eq!(s["validated"], true, "{s}");
        let requests = s["requests"].as_u64().unwrap();
        let elapsed = s["elapsed_s"].as_f64().unwrap();
        let rps = s["rps"].as_f64().unwrap();
        let cpu = s["cpu_s"].as_f64().unwrap();
        assert!(requests > 0, "{s}");
        assert!(elapsed >= 0.3, "the step lasted its -d: {s}");
        assert!(rps > 0.0, "{s}");
        assert!(
            ((requests as f64 / elapsed) - rps).abs() <= rps * 0.01,
            "req/s is requests over the window: {s}"
        );
        assert!(cpu > 0.0, "{s}");
        let per_cpu = s["requests_per_cpu_second"].as_f64().unwrap();
        assert!(
            (per_cpu - requests as f64 / cpu).abs() <= per_cpu * 0.01,
            "{s}"
        );
    }
    assert!(
        c["generator_cpus"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "{c}"
    );
    assert!(c["efficiency_vs_wrk"].is_null(), "no --wrk: {c}");
    assert!(
        out.stderr
            .contains("gqlbench: 4 connections, pipelining 10, 300ms"),
        "{}",
        out.stderr
    );
    // Its static server (this build's binary) did not outlive it.
    assert_no_process(&format!("{} serve-static", env!("CARGO_BIN_EXE_gqlbench")));
}

#[test]
fn reports_show_names_not_debug_strings() {
    let _turn = file_turn(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let out = hello_run(&fixtures(), "fx-good,fx-wrong", dir.path()).go();
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    let list = Gqlbench::new(["list"]).root(fixtures()).go();
    let shown = format!(
        "{}{}{md}{}",
        list.stdout,
        out.stderr,
        out.stdout
            .lines()
            .filter(|l| !l.trim_start().starts_with('"'))
            .collect::<Vec<_>>()
            .join("\n")
    );
    for debug in ["Some(", "None", "| Server |", "Sse)", "Ws)"] {
        assert!(!shown.contains(debug), "{debug:?} shown:\n{shown}");
    }
    assert!(md.contains("| server |"), "{md}");
    // An unreadable results file says what it is, not `None`.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"scenarios": []}"#).unwrap();
    let out = Gqlbench::report(&bad).go();
    out.assert_exit(2);
    assert!(out.stderr.contains("no schema_version"), "{}", out.stderr);
}

#[test]
fn a_target_slower_than_the_window_gets_a_longer_window_not_an_invalid_row() {
    let _turn = file_turn(module_path!());
    // Answers take 1.5 s; the planned window is 500 ms after a 1 s warm-up.
    let dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("slow")
        .warmup("1s")
        .duration("500ms")
        .json()
        .out(dir.path())
        .go();
    out.assert_exit(0);
    let r = out.results();
    let t = target(&r, 0, "fx-slow");
    assert!(t.summary.as_ref().unwrap().valid, "{t:?}");
    let load = &t.trials[0].load;
    let ext = load.window_extended_s.unwrap();
    assert!(ext >= 1.0, "extended by {ext} s");
    assert_eq!(load.connections.unused, 0);
    assert!(load.requests >= 4);
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("measured window extended"), "{md}");
}
