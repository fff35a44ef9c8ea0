//! Incremental delivery end to end on the fixture server: a deferred query is sent with a
//! multipart Accept header, its parts read as they arrive and merged, the time to the
//! first part recorded below the time to the last, beside the plain query in the same
//! load; a target whose parts are truncated, carry no boundary or merge to a wrong answer
//! has its trial invalid with the failures counted by kind, and the run goes on.
mod common;

use common::*;
use gqlbench::results::TargetStatus;
use gqlbench_engine::FailureKind;

#[test]
fn parts_are_read_as_they_arrive_and_broken_ones_fail_by_kind() {
    let dir = fixture_copy();
    workload_target(dir.path(), "fx-defer", "good", "\"fixture-defer\"", "");
    workload_target(
        dir.path(),
        "fx-truncated",
        "defer-truncated",
        "\"fixture-defer\"",
        "",
    );
    workload_target(
        dir.path(),
        "fx-no-boundary",
        "defer-no-boundary",
        "\"fixture-defer\"",
        "",
    );
    workload_target(
        dir.path(),
        "fx-defer-wrong",
        "defer-wrong",
        "\"fixture-defer\"",
        "",
    );
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "defer", &out);
    assert_eq!(o.code, Some(1), "{}\n{}", o.stdout, o.stderr);
    let r = read_results(&out);
    let s = &r.scenarios[0];
    let by_name = |n: &str| s.targets.iter().find(|t| t.name == n).unwrap();

    let good = by_name("fx-defer");
    assert_eq!(good.status, TargetStatus::Ok);
    let t = &good.trials[0];
    assert!(t.valid, "{:?}", t.problems);
    let deferred = &t.load.per_operation["fixture/hello-defer"];
    let plain = &t.load.per_operation["fixture/hello"];
    assert!(deferred.ok > 0 && plain.ok > 0);
    let first = deferred.first_part.as_ref().expect("first part timed");
    let last = deferred.latency.as_ref().expect("latency per operation");
    // The fixture sends the second part 20 ms after the first.
    assert!(
        first.p50_us + 10_000 < last.p50_us,
        "first part {} µs, last {} µs",
        first.p50_us,
        last.p50_us
    );
    assert!(plain.first_part.is_none() && plain.latency.is_some());
    assert!(t.load.first_part.is_some());
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("incremental delivery: time to the first part"),
        "{report}"
    );

    for (name, kind, says) in [
        ("fx-truncated", FailureKind::Protocol, "closing"),
        ("fx-no-boundary", FailureKind::Protocol, "multipart"),
        (
            "fx-defer-wrong",
            FailureKind::WrongData,
            "parts merged: data.later",
        ),
    ] {
        let t = &by_name(name).trials[0];
        assert!(!t.valid, "{name}");
        assert!(
            t.load.failures.get(&kind).is_some_and(|n| *n > 0),
            "{name}: {:?}",
            t.load.failures
        );
        let ex = t
            .load
            .failure_examples
            .iter()
            .find(|e| e.kind == kind)
            .unwrap();
        assert!(ex.detail.contains(says), "{name}: {}", ex.detail);
        // The plain query's answers in the same load stay good.
        assert!(
            t.load.per_operation["fixture/hello"].failures == 0,
            "{name}"
        );
    }
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
