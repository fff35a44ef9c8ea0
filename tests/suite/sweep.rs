//! End-to-end: the rate sweep finds a known capacity. Alone in its test binary, so no other
//! test's load shares the target's CPU while it measures.
use crate::common;
use common::*;

#[test]
fn the_rate_sweep_finds_a_known_capacity_within_ten_percent() {
    // fx-work spends 4 ms of CPU per answer on its one CPU: 250 req/s at most.
    let dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("rate-sweep")
        .json()
        .out(dir.path())
        .go();
    out.assert_exit(0);
    let r = out.results();
    let t = target(&r, 0, "fx-work");
    let summary = t.summary.as_ref().unwrap();
    let held = summary.max_sustained_rate.as_ref().unwrap().median;
    assert!(
        (225.0..=275.0).contains(&held),
        "held {held} req/s, capacity 250"
    );
    let steps = t.trials[0].sweep.as_ref().expect("sweep steps");
    // It started from the probe, not from start_rate (10), and refined at the end.
    assert_eq!(steps[0].phase.as_deref(), Some("probe"));
    assert!(steps[1].rate.unwrap() >= 80.0, "{:?}", steps[1]);
    assert!(
        steps.iter().any(|s| s.phase.as_deref() == Some("refine")),
        "{steps:?}"
    );
    // Every lost step names its reason, and none was blamed on the generator here.
    for s in steps
        .iter()
        .filter(|s| s.verdict.as_deref() == Some("target"))
    {
        assert!(s.reason.as_deref().unwrap().contains("p99"), "{s:?}");
    }
    assert!(
        steps
            .iter()
            .all(|s| s.verdict.as_deref() != Some("generator")),
        "{steps:?}"
    );
}
