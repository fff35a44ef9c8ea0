//! Incremental delivery end to end on the fixture server: a deferred query is sent with a
//! multipart Accept header (or, with `[incremental] transport = "sse"`, an event-stream
//! one), its parts read as they arrive and merged, the time to the first part recorded
//! below the time to the last, beside the plain query in the same load; a target whose
//! parts are truncated, carry no boundary, are not JSON or merge to a wrong answer has its
//! trial invalid with the failures counted by kind, and the run goes on.
use crate::common;

use std::path::Path;

use common::*;
use gqlbench::results::{ScenarioResult, TargetStatus};
use gqlbench_engine::FailureKind;

/// Fixture targets of the workload `fixture-defer`, each serving in its mode.
fn targets(root: &Path, modes: &[(&str, &str)]) {
    for (name, mode) in modes {
        workload_target(root, name, mode, "\"fixture-defer\"", "");
    }
}

/// The good target's trial: valid, its first part timed well below its last (the fixture
/// sends the second part 20 ms after the first), the plain query beside it untimed.
fn check_good(s: &ScenarioResult, name: &str) {
    let good = s.targets.iter().find(|t| t.name == name).unwrap();
    assert_eq!(good.status, TargetStatus::Ok);
    let t = &good.trials[0];
    assert!(t.valid, "{:?}", t.problems);
    let deferred = &t.load.per_operation["fixture/hello-defer"];
    let plain = &t.load.per_operation["fixture/hello"];
    assert!(deferred.ok > 0 && plain.ok > 0);
    let first = deferred.first_part.as_ref().expect("first part timed");
    let last = deferred.latency.as_ref().expect("latency per operation");
    assert!(
        first.p50_us + 10_000 < last.p50_us,
        "first part {} µs, last {} µs",
        first.p50_us,
        last.p50_us
    );
    assert!(plain.first_part.is_none() && plain.latency.is_some());
    assert!(t.load.first_part.is_some());
}

/// Each broken target's trial is invalid, with failures of `kind` whose example says
/// `says`, while the plain query's answers in the same load stay good.
fn check_broken(s: &ScenarioResult, cases: &[(&str, FailureKind, &str)]) {
    for (name, kind, says) in cases {
        let t = &s.targets.iter().find(|t| t.name == *name).unwrap().trials[0];
        assert!(!t.valid, "{name}");
        assert!(
            t.load.failures.get(kind).is_some_and(|n| *n > 0),
            "{name}: {:?}",
            t.load.failures
        );
        let ex = t
            .load
            .failure_examples
            .iter()
            .find(|e| e.kind == *kind)
            .unwrap();
        assert!(ex.detail.contains(says), "{name}: {}", ex.detail);
        assert!(
            t.load.per_operation["fixture/hello"].failures == 0,
            "{name}"
        );
    }
}

#[test]
fn parts_are_read_as_they_arrive_and_broken_ones_fail_by_kind() {
    let dir = fixture_copy();
    targets(
        dir.path(),
        &[
            ("fx-defer", "good"),
            ("fx-truncated", "defer-truncated"),
            ("fx-no-boundary", "defer-no-boundary"),
            ("fx-defer-wrong", "defer-wrong"),
        ],
    );
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "defer", &out);
    assert_eq!(o.code, Some(1), "{}\n{}", o.stdout, o.stderr);
    let r = read_results(&out);
    let s = &r.scenarios[0];
    check_good(s, "fx-defer");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("incremental delivery over multipart/mixed: time to the first part"),
        "{report}"
    );
    check_broken(
        s,
        &[
            ("fx-truncated", FailureKind::Protocol, "closing"),
            ("fx-no-boundary", FailureKind::Protocol, "multipart"),
            (
                "fx-defer-wrong",
                FailureKind::WrongData,
                "parts merged: data.later",
            ),
        ],
    );
}

#[test]
fn sse_events_are_read_as_they_arrive_and_broken_ones_fail_by_kind() {
    let dir = fixture_copy();
    targets(
        dir.path(),
        &[
            ("fx-sse", "good"),
            ("fx-sse-truncated", "defer-truncated"),
            ("fx-sse-bad-json", "defer-sse-bad-json"),
            ("fx-sse-wrong", "defer-wrong"),
        ],
    );
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "defer-sse", &out);
    assert_eq!(o.code, Some(1), "{}\n{}", o.stdout, o.stderr);
    let r = read_results(&out);
    let s = &r.scenarios[0];
    check_good(s, "fx-sse");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("incremental delivery over SSE (text/event-stream"),
        "{report}"
    );
    check_broken(
        s,
        &[
            (
                "fx-sse-truncated",
                FailureKind::Protocol,
                "no complete event after 1 next events",
            ),
            (
                "fx-sse-bad-json",
                FailureKind::Protocol,
                "part 1 is not JSON",
            ),
            (
                "fx-sse-wrong",
                FailureKind::WrongData,
                "parts merged: data.later",
            ),
        ],
    );
}

#[test]
fn a_comparison_that_names_no_deferred_operation_is_refused() {
    let dir = fixture_copy();
    let file = dir.path().join("scenarios/e2e/defer.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace(
            "compare = { \"fixture/hello-defer\" = \"fixture/hello\" }",
            "compare = { \"fixture/hello\" = \"fixture/hello-defer\" }",
        ),
    )
    .unwrap();
    let o = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("defer")
        .go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("defer.toml") && o.stderr.contains("must use @defer"),
        "{}",
        o.stderr
    );
}

#[test]
fn an_unknown_transport_is_refused_naming_the_field() {
    let dir = fixture_copy();
    let file = dir.path().join("scenarios/e2e/defer-sse.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("transport = \"sse\""));
    std::fs::write(
        &file,
        text.replace("transport = \"sse\"", "transport = \"smoke\""),
    )
    .unwrap();
    let o = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("defer-sse")
        .go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("defer-sse.toml")
            && o.stderr.contains("[incremental] transport: 'smoke'")
            && o.stderr.contains("\"multipart\" or \"sse\""),
        "{}",
        o.stderr
    );
}
