//! End-to-end: the latency-at-rate kind runs its trials at the fixed rate and judges each
//! target's latency against the objective (met, and missed); a bad objective is refused
//! naming the file. Alone in its test binary, so no other test's load shares the target's
//! CPU while it measures.
use crate::common;
use common::*;
use gqlbench::kinds::latency_at_rate::OBJECTIVE;

#[test]
fn trials_run_at_the_rate_and_the_objective_is_judged_met_or_missed() {
    let dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("latency-met,latency-missed")
        .duration("2s")
        .json()
        .out(dir.path())
        .go();
    // A missed objective is a finding of the report, not a failure of the run.
    out.assert_exit(0);
    let r = out.results();
    for s in &r.scenarios {
        let o = s
            .by_kind
            .get(&OBJECTIVE)
            .expect("the objective is recorded");
        assert_eq!(o.rate, 50.0);
        assert_eq!(s.load.rate, Some(50.0), "results record the fixed rate");
        let t = target(
            &r,
            r.scenarios.iter().position(|x| x.name == s.name).unwrap(),
            "fx-work",
        );
        let trial = &t.trials[0];
        assert!(trial.valid, "{:?}", trial.problems);
        // Requests went out on the rate's schedule: about 50 per second, not as fast as
        // the target answers (it could serve 250).
        let rps = trial.load.throughput_rps;
        assert!((40.0..=60.0).contains(&rps), "{rps} req/s at a rate of 50");
    }
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(
        md.contains("Latency at 50 req/s (objective: p99 ≤ 500 ms"),
        "{md}"
    );
    assert!(md.contains("met (1/1 trials)"), "{md}");
    assert!(
        md.contains("Latency at 50 req/s (objective: p99 ≤ 1 ms, p50 ≤ 1 ms"),
        "{md}"
    );
    assert!(md.contains("missed in every trial (0/1)"), "{md}");
}

#[test]
fn an_objective_that_cannot_be_measured_is_refused_naming_the_file() {
    let root = fixture_copy();
    let file = root.path().join("scenarios/e2e/latency-met.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("rate = 50", "rate = 0")).unwrap();
    let out = Gqlbench::run("e2e")
        .root(root.path())
        .scenarios("latency-met")
        .go();
    out.assert_exit(2);
    assert!(out.stderr.contains("latency-met.toml"), "{}", out.stderr);
    assert!(
        out.stderr.contains("[latency_at_rate]: rate, p99_ms"),
        "{}",
        out.stderr
    );
}
