//! End-to-end: a slow target's few requests per connection are not counted into false
//! precision. Its trials' req/s come from the requests' own timing (the count moved in
//! steps of one request per connection), its row has an interval, and the report checks
//! every closed-model row against Little's law; a committed run of an older version, whose
//! slow rows were identical counts, is rendered with intervals at least the count's step.
use crate::common;
use common::*;

#[test]
fn a_slow_targets_rows_are_timed_with_an_interval_and_checked_against_littles_law() {
    // fx-delay answers after 300 ms, all of a moment's requests together; 10 connections,
    // 1-s windows without warm-up: about 4 requests per connection, a count's step of 25%.
    let dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("slow-answers")
        .trials(3)
        .warmup("0s")
        .duration("1s")
        .json()
        .out(dir.path())
        .go();
    out.assert_exit(0);
    let r = out.results();
    let t = target(&r, 0, "fx-delay");
    let counted: Vec<_> = t.trials.iter().filter(|x| x.excluded.is_none()).collect();
    assert_eq!(counted.len(), 3, "{t:?}");
    for x in &counted {
        let l = &x.load;
        let step = l
            .count_resolution
            .expect("a closed window's count has a step");
        assert!(step > 0.01, "10 connections, {} requests", l.requests);
        assert_eq!(l.rps_source.as_deref(), Some("timing"), "{l:?}");
        assert_eq!(Some(l.throughput_rps), l.timed_rps);
        assert_eq!(l.rps_resolution, Some(0.0));
        // Every connection starts at the window's start, so the count holds each one's last
        // request whole: the timing is never above it.
        assert!(
            l.throughput_rps <= l.requests as f64 / l.elapsed_s,
            "timed {} vs counted {}",
            l.throughput_rps,
            l.requests as f64 / l.elapsed_s
        );
    }
    let s = t.summary.as_ref().expect("summary");
    assert!(s.rps.ci_high > s.rps.ci_low, "an interval: {:?}", s.rps);
    assert_eq!(s.rps_resolution, Some(0.0), "timed trials have no step");
    let little = s.little.as_ref().expect("a closed row is checked");
    assert_eq!(little.concurrency, 10.0);
    assert!(little.turn_ms >= 300.0, "{little:?}");
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(
        md.contains("req/s from the requests' own timing") && md.contains("fx-delay"),
        "{md}"
    );
    assert!(
        md.contains("Little's law (connections × pipelining / (mean latency + think time))"),
        "{md}"
    );
}

#[test]
fn a_committed_run_of_identical_counts_renders_with_the_counts_step() {
    // docs/runs/federation-quick-2026-11-26, federation/constant: hive-gateway's three
    // trials each counted 40 answers of 20 connections (593 ms each): "40.0 [40.0 – 40.0]"
    // when it was written.
    let run = repo().join("docs/runs/federation-quick-2026-11-26");
    let out = Gqlbench::report(&run).args(["--format", "md"]).go();
    out.assert_exit(0);
    let row = |name: &str| {
        out.stdout
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row of {name}:\n{}", out.stdout))
            .to_string()
    };
    let hive = row("hive-gateway");
    assert!(
        hive.contains("40.0 [20.0 – 60.0]") && hive.contains("±50.0% (the count's step"),
        "{hive}"
    );
    // No row of a closed-model table is zero wide any more.
    let zero = out.stdout.lines().find(|l| l.contains("±0.0%"));
    assert_eq!(zero, None, "a zero-width interval");
    assert!(
        out.stdout.contains("interval widened to the count's step")
            && out
                .stdout
                .contains("Little's law (connections × pipelining"),
        "{}",
        out.stdout
    );
    // The JSON of the same run carries the checks too.
    let json = Gqlbench::report(&run).args(["--format", "json"]).go();
    json.assert_exit(0);
    let r: gqlbench::results::RunResults = serde_json::from_str(&json.stdout).unwrap();
    let s = r
        .scenarios
        .iter()
        .find(|s| s.name == "constant")
        .expect("federation/constant")
        .targets
        .iter()
        .find(|t| t.name == "hive-gateway")
        .and_then(|t| t.summary.as_ref())
        .unwrap();
    assert_eq!(s.rps_resolution, Some(0.5));
    assert!(s.rps_widened);
    // The law: 20 connections over each trial's mean latency (about 0.59 s), 33.8 a
    // second; the count's 40 is beyond it by more than 3%, within the step's ±50%.
    let l = s.little.as_ref().unwrap();
    assert_eq!(l.concurrency, 20.0);
    assert!(
        (l.expected_rps - 20.0 / (l.turn_ms / 1e3)).abs() < 1e-9,
        "{l:?}"
    );
    assert!(l.diff_pct > 3.0 && l.agrees, "{l:?}");
}
