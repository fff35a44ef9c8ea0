//! End-to-end: a suite's default scope under a time budget. The start's estimates are
//! cautious guesses (a target's start and check, a trial's wall time); a scenario they
//! leave out is measured after all once the run's own pace shows its minimum fits what is
//! left, and stays left out, named with its command, when it does not.
use crate::common;
use common::*;

/// A copy of the fixture catalogue with a suite `scope` of two one-trial scenarios of
/// fixture/hello, `a` and `b`.
fn two_scenario_suite() -> tempfile::TempDir {
    let dir = fixture_copy();
    let suite = dir.path().join("scenarios/scope");
    std::fs::create_dir_all(&suite).unwrap();
    let hello = std::fs::read_to_string(dir.path().join("scenarios/e2e/hello.toml")).unwrap();
    for name in ["a", "b"] {
        std::fs::write(suite.join(format!("{name}.toml")), &hello).unwrap();
    }
    dir
}

fn run_scope(root: &std::path::Path, out: &std::path::Path, max_time: &str) -> Outcome {
    Gqlbench::run("scope")
        .root(root)
        .targets("fx-good,fx-chunked")
        .warmup("0s")
        .duration("300ms")
        .args(["--one-at-a-time", "--max-time", max_time])
        .out(out)
        .go()
}

#[test]
fn a_scenario_the_start_left_out_is_measured_once_the_runs_pace_shows_it_fits() {
    let root = two_scenario_suite();
    let out = tempfile::tempdir().unwrap();
    // At the start's guesses (1.5 s to start and check a target, 1.3 wall seconds per
    // nominal one, more on a machine the probe finds slower) each scenario needs at least
    // 3.8 s, so 7 s holds one; measured, a fixture target starts and is checked in about
    // 0.3 s and the first scenario ends about 1.5 s into the budget, which leaves room
    // for the second (1.6 s with its margin) on a machine twice as slow.
    let r = run_scope(root.path(), out.path(), "7s");
    r.assert_exit(0);
    let res = read_results(out.path());
    let names: Vec<&str> = res.scenarios.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "b"], "{}", r.stderr);
    let lo = res
        .left_out
        .as_ref()
        .expect("the start's estimates left b out");
    assert!(lo.scenarios.is_empty(), "{lo:?}");
    assert_eq!(lo.added_back, ["b"]);
    assert!(
        r.stderr.contains("measured after the others"),
        "{}",
        r.stderr
    );
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains(
            "every scenario of the default scope measured: the start's estimates left out b"
        ),
        "{md}"
    );
}

#[test]
fn a_scenario_that_does_not_fit_at_the_runs_pace_stays_left_out_with_its_command() {
    let root = two_scenario_suite();
    let out = tempfile::tempdir().unwrap();
    // 1 s: the first scenario always runs and alone takes longer than that (two starts,
    // two 300 ms trials), so nothing is left for the second.
    let r = run_scope(root.path(), out.path(), "1s");
    r.assert_exit(0);
    let res = read_results(out.path());
    let names: Vec<&str> = res.scenarios.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a"], "{}", r.stderr);
    let lo = res.left_out.as_ref().expect("b left out");
    assert_eq!(lo.scenarios, ["b"]);
    assert!(lo.added_back.is_empty(), "{lo:?}");
    assert_eq!(lo.command, "gqlbench run scope --scenarios b");
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("left out to keep the time budget: b"), "{md}");
}
