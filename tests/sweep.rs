//! End-to-end: the rate sweep finds a known capacity. Alone in its test binary, so no other
//! test's load shares the target's CPU while it measures.
mod common;
use common::*;

#[test]
fn the_rate_sweep_finds_a_known_capacity_within_ten_percent() {
    // fx-work spends 4 ms of CPU per answer on its one CPU: 250 req/s at most.
    let dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .arg("--root")
        .arg(fixtures())
        .args(["run", "e2e", "--scenarios", "rate-sweep", "--json", "--out"])
        .arg(dir.path()));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json(&out);
    let t = target(&r, 0, "fx-work");
    let held = t["summary"]["max_sustained_rate"]["median"]
        .as_f64()
        .unwrap();
    assert!(
        (225.0..=275.0).contains(&held),
        "held {held} req/s, capacity 250"
    );
    let steps = t["trials"][0]["sweep"].as_array().unwrap();
    // It started from the probe, not from start_rate (10), and refined at the end.
    assert_eq!(steps[0]["phase"], "probe");
    assert!(steps[1]["rate"].as_f64().unwrap() >= 80.0, "{}", steps[1]);
    assert!(steps.iter().any(|s| s["phase"] == "refine"), "{steps:?}");
    // Every lost step names its reason, and none was blamed on the generator here.
    for s in steps.iter().filter(|s| s["verdict"] == "target") {
        assert!(s["reason"].as_str().unwrap().contains("p99"), "{s}");
    }
    assert!(
        steps.iter().all(|s| s["verdict"] != "generator"),
        "{steps:?}"
    );
}
