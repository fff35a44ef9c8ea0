//! Batched requests end to end on the fixture server: a target started with batching on
//! answers every batch and is measured per batch and per operation; a target whose
//! batches come back one answer short has its trial invalid with the failures counted; a
//! target that says it cannot batch is listed as not supported and never started; a batch
//! size out of bounds is refused naming the file.
use crate::common;

use common::*;
use gqlbench::results::{TargetStatus, NOT_SUPPORTED};

#[test]
fn batches_are_checked_per_element_and_unsupported_targets_are_listed() {
    let dir = fixture_copy();
    workload_target(dir.path(), "fx-batch", "good", "\"fixture-batching\"", "");
    workload_target(
        dir.path(),
        "fx-short",
        "short-batch",
        "\"fixture-batching\"",
        "",
    );
    workload_target(
        dir.path(),
        "fx-single",
        "good",
        "\"fixture\"",
        "\n[unsupported]\nfixture-batching = \"reads one operation per request\"\n",
    );
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "batching", &out);
    // The short batches make a row invalid: exit 1.
    assert_eq!(o.code, Some(1), "{}\n{}", o.stdout, o.stderr);
    let r = read_results(&out);
    let s = &r.scenarios[0];
    let names: Vec<&str> = s.targets.iter().map(|t| t.name.as_str()).collect();
    assert!(!names.contains(&"fx-single"), "never run: {names:?}");
    let listed = s.by_kind.get(&NOT_SUPPORTED).expect("not supported listed");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].target, "fx-single");
    assert_eq!(listed[0].why, "reads one operation per request");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("not supported: fx-single: reads one operation per request"),
        "{report}"
    );
    assert!(
        report.contains("batches of 3 operations per request"),
        "{report}"
    );

    let good = s.targets.iter().find(|t| t.name == "fx-batch").unwrap();
    assert_eq!(good.status, TargetStatus::Ok);
    let t = &good.trials[0];
    assert!(t.valid, "{:?}", t.problems);
    assert!(t.load.requests > 0 && t.load.failed == 0);

    let short = s.targets.iter().find(|t| t.name == "fx-short").unwrap();
    let t = &short.trials[0];
    assert!(!t.valid, "short batches make the trial invalid");
    assert!(t.load.failed > 0);
    let wrong = t
        .load
        .failures
        .get(&gqlbench_engine::FailureKind::WrongData);
    assert_eq!(wrong, Some(&t.load.failed), "{:?}", t.load.failures);
    let example = &t.load.failure_examples[0].detail;
    assert!(
        example.contains("a batch of 3 operations was answered with 2 elements"),
        "{example}"
    );
}

#[test]
fn a_batch_size_out_of_bounds_is_refused_naming_the_file() {
    let dir = fixture_copy();
    let file = dir.path().join("scenarios/e2e/batching.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("size = 3", "size = 1")).unwrap();
    let o = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("batching")
        .go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("batching.toml") && o.stderr.contains("size = 1"),
        "{}",
        o.stderr
    );
}
