//! Distinct documents end to end on the fixture server: an operation sent as N copies
//! with their root fields aliased, every answer checked under its copy's keys (a server
//! that ignores the alias fails with wrong data); with `[persisted]` each copy has its own
//! hash; a count out of bounds or a document that cannot be copied is refused naming the
//! file.
use crate::common;

use common::*;
use gqlbench_engine::FailureKind;

#[test]
fn copies_are_checked_under_their_own_keys() {
    let dir = fixture_copy();
    workload_target(
        dir.path(),
        "fx-distinct",
        "good",
        "\"fixture-distinct\"",
        "",
    );
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "distinct", &out);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let t = &read_results(&out).scenarios[0].targets[0].trials[0];
    assert!(t.valid && t.load.requests > 7, "{:?}", t.problems);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("7 distinct documents per operation"),
        "{report}"
    );

    // A server that answers under the field's name instead of the alias is caught at the
    // check before the load: every copy's answer is its own.
    let dir = fixture_copy();
    workload_target(
        dir.path(),
        "fx-no-alias",
        "ignore-alias",
        "\"fixture-distinct\"",
        "",
    );
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "distinct", &out);
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    let tr = &read_results(&out).scenarios[0].targets[0];
    let problem = tr.problem.clone().unwrap_or_default();
    assert!(problem.contains("d0_hello"), "{problem}");
}

#[test]
fn persisted_copies_each_have_their_own_hash() {
    let dir = fixture_copy();
    workload_target(
        dir.path(),
        "fx-apq-forget",
        "apq-forget",
        "\"fixture-distinct\"",
        "",
    );
    let file = dir.path().join("scenarios/e2e/distinct.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\n[persisted]\nmethod = \"post\"\n")).unwrap();
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "distinct", &out);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let t = &read_results(&out).scenarios[0].targets[0].trials[0];
    let p = t.load.persisted.expect("persisted counts");
    assert!(p.hits > 0 && p.misses > 0, "{p:?}");
    assert!(!t.load.failures.contains_key(&FailureKind::WrongData));
}

#[test]
fn counts_and_documents_that_cannot_work_are_refused() {
    let dir = fixture_copy();
    let file = dir.path().join("scenarios/e2e/distinct.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("count = 7", "count = 1")).unwrap();
    let o = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("distinct")
        .go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("distinct.toml") && o.stderr.contains("count = 1"),
        "{}",
        o.stderr
    );
    std::fs::write(
        dir.path().join("scenarios/queries/fixture/frag.graphql"),
        "{ ...F } fragment F on Query { hello }",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("scenarios/expected/fixture/frag.json"),
        r#"[{"variables": null, "data": {"hello": "world"}}]"#,
    )
    .unwrap();
    std::fs::write(&file, text.replace("fixture/hello", "fixture/frag")).unwrap();
    let o = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("distinct")
        .go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("frag.graphql") && o.stderr.contains("fragment"),
        "{}",
        o.stderr
    );
}
