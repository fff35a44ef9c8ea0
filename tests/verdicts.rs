//! End-to-end: the verdicts a CI job reads. Exit codes mean one thing everywhere (0 every
//! measured row valid, 1 failures, 2 bad input or a catalogue fault, 130 interrupted), and
//! input that cannot work is refused before anything starts.
mod common;
use common::*;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn hello_run(
    root: &std::path::Path,
    targets: &str,
    out: &std::path::Path,
) -> std::process::Command {
    let mut c = bin();
    c.arg("--root")
        .arg(root)
        .args(["run", "e2e", "--scenarios", "hello", "--targets", targets])
        .args(["--duration", "500ms", "--json", "--out"])
        .arg(out);
    c
}

#[test]
fn run_exit_codes_follow_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&mut hello_run(
        &fixtures(),
        "fx-good",
        &dir.path().join("a"),
    ));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = json(&out);
    assert_eq!(r["verdict"]["exit_code"], 0);
    assert!(stderr(&out).contains("every measured row valid"));

    // A target with wrong answers fails the run, and says which and why.
    let out = run(&mut hello_run(
        &fixtures(),
        "fx-good,fx-wrong",
        &dir.path().join("b"),
    ));
    assert_eq!(out.status.code(), Some(1));
    let r = json(&out);
    let failures = r["verdict"]["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0]
            .as_str()
            .unwrap()
            .contains("fx-wrong: wrong answers"),
        "{failures:?}"
    );
    assert!(
        stderr(&out).contains("verdict: FAILED: exit 1"),
        "{}",
        stderr(&out)
    );

    // A target that degrades under load: its row is invalid, the run fails.
    let out = run(&mut hello_run(
        &fixtures(),
        "fx-degrade",
        &dir.path().join("c"),
    ));
    assert_eq!(out.status.code(), Some(1));
    let f = json(&out)["verdict"]["failures"][0]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        f.contains("fx-degrade: invalid (0 of 1 trials valid)"),
        "{f}"
    );

    // --ignore-failures reports them and exits 0.
    let out = run(
        hello_run(&fixtures(), "fx-good,fx-wrong", &dir.path().join("d")).arg("--ignore-failures"),
    );
    assert_eq!(out.status.code(), Some(0));
    let r = json(&out);
    assert_eq!(r["verdict"]["failures_ignored"], true);
    assert_eq!(r["verdict"]["failures"].as_array().unwrap().len(), 1);
}

#[test]
fn a_wrong_expected_answer_is_a_catalogue_fault() {
    let cat = fixture_copy();
    let expected = cat.path().join("scenarios/expected/fixture/hello.json");
    std::fs::write(
        &expected,
        r#"[{"variables": null, "data": {"hello": "mars"}}]"#,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = run(&mut hello_run(cat.path(), "fx-good,fx-chunked", dir.path()));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(e.contains("expected/fixture/hello.json"), "{e}");
    let r = json(&out);
    let fault = r["scenarios"][0]["catalogue_fault"].as_str().unwrap();
    assert!(
        fault.contains("all 2 targets") && fault.contains("mars"),
        "{fault}"
    );
    // The targets are not blamed for it.
    assert!(r["verdict"]["failures"].as_array().unwrap().is_empty());
    // One target getting it wrong alone is that target's fault.
    let out = run(&mut hello_run(
        &fixtures(),
        "fx-good,fx-wrong",
        &dir.path().join("x"),
    ));
    assert_eq!(out.status.code(), Some(1));
    assert!(json(&out)["scenarios"][0]["catalogue_fault"].is_null());
}

#[test]
fn a_query_that_is_not_graphql_is_refused_before_anything_starts() {
    let cat = fixture_copy();
    let q = cat.path().join("scenarios/queries/fixture/hello.graphql");
    std::fs::write(&q, "{ hello").unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().join("run");
    let out = run(&mut hello_run(cat.path(), "fx-good", &out_path));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("queries/fixture/hello.graphql") && e.contains("not a GraphQL document"),
        "{e}"
    );
    assert!(!out_path.exists(), "nothing started, nothing written");
}

#[test]
fn a_load_this_machine_cannot_carry_is_refused_up_front() {
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().join("run");
    let out = run(hello_run(&fixtures(), "fx-good", &out_path).args(["-c", "1000000"]));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("-c") && e.contains("local ports"), "{e}");
    assert!(!out_path.exists());

    let cat = fixture_copy();
    let sc = cat.path().join("scenarios/e2e/hello.toml");
    let text = std::fs::read_to_string(&sc)
        .unwrap()
        .replace("connections = 8", "connections = 4000000000");
    std::fs::write(&sc, text).unwrap();
    let out = run(&mut hello_run(cat.path(), "fx-good", &out_path));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("e2e/hello.toml") && e.contains("[load]"), "{e}");
    assert!(!out_path.exists());
}

#[test]
fn calibrate_checks_its_flags_before_starting_a_server() {
    let out = run(bin().args(["calibrate", "-c", "0", "--no-pin"]));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("--connections") && e.contains("at least 1"),
        "{e}"
    );
    assert!(!e.contains("gqlbench: 0 connections"), "a step ran: {e}");
}

#[test]
fn reports_show_names_not_debug_strings() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&mut hello_run(&fixtures(), "fx-good,fx-wrong", dir.path()));
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    let list = run(bin().arg("--root").arg(fixtures()).arg("list"));
    let shown = format!(
        "{}{}{md}{}",
        String::from_utf8_lossy(&list.stdout),
        stderr(&out),
        String::from_utf8_lossy(&out.stdout)
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
    let out = run(bin().arg("report").arg(&bad));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no schema_version"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_target_slower_than_the_window_gets_a_longer_window_not_an_invalid_row() {
    // Answers take 1.5 s; the planned window is 500 ms after a 1 s warm-up.
    let dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .arg("--root")
        .arg(fixtures())
        .args(["run", "e2e", "--scenarios", "slow", "--warmup", "1s"])
        .args(["--duration", "500ms", "--json", "--out"])
        .arg(dir.path()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = json(&out);
    let t = target(&r, 0, "fx-slow");
    assert_eq!(t["summary"]["valid"], true, "{t}");
    let load = &t["trials"][0]["load"];
    let ext = load["window_extended_s"].as_f64().unwrap();
    assert!(ext >= 1.0, "extended by {ext} s");
    assert_eq!(load["connections"]["unused"], 0);
    assert!(load["requests"].as_u64().unwrap() >= 4);
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("measured window extended"), "{md}");
}
