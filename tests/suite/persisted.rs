//! Persisted queries (APQ) end to end on the fixture server: the short form (the hash
//! alone) by POST and by GET, a miss answered by sending the document on the same
//! connection and counted, the hit ratio as the server's answers said; a server that
//! ignores APQ or answers a hash with the wrong data has its trial invalid; a method or a
//! pipelining that cannot work is refused naming the file.
use crate::common;

use common::*;
use gqlbench_engine::FailureKind;

/// The e2e scenario file `scenario` with `from` replaced by `to`.
fn edit_scenario(root: &std::path::Path, scenario: &str, from: &str, to: &str) {
    let file = root.join(format!("scenarios/e2e/{scenario}.toml"));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(from));
    std::fs::write(&file, text.replace(from, to)).unwrap();
}

/// The APQ scenario with `from` replaced by `to`.
fn edit(root: &std::path::Path, from: &str, to: &str) {
    edit_scenario(root, "persisted", from, to)
}

#[test]
fn hits_and_misses_are_counted_and_wrong_servers_fail() {
    let dir = fixture_copy();
    workload_target(dir.path(), "fx-apq", "good", "\"fixture-apq\"", "");
    workload_target(
        dir.path(),
        "fx-apq-forget",
        "apq-forget",
        "\"fixture-apq\"",
        "",
    );
    workload_target(dir.path(), "fx-apq-off", "apq-off", "\"fixture-apq\"", "");
    workload_target(
        dir.path(),
        "fx-apq-mixup",
        "apq-mixup",
        "\"fixture-apq\"",
        "",
    );
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "persisted", &out);
    assert_eq!(o.code, Some(1), "{}\n{}", o.stdout, o.stderr);
    let r = read_results(&out);
    let s = &r.scenarios[0];
    let trial = |n: &str| s.targets.iter().find(|t| t.name == n).unwrap().trials[0].clone();

    // Registered by the answer check before the load: every short form a hit.
    let t = trial("fx-apq");
    assert!(t.valid, "{:?}", t.problems);
    let p = t.load.persisted.expect("counted");
    assert!(p.hits > 0 && p.misses == 0, "{p:?}");
    assert_eq!(p.hits, t.load.requests);

    // Forgotten now and then: misses answered with the document, every answer right.
    let t = trial("fx-apq-forget");
    assert!(t.valid, "{:?}", t.problems);
    let p = t.load.persisted.expect("counted");
    assert!(p.hits > 0 && p.misses > 0, "{p:?}");
    assert_eq!(p.hits + p.misses, t.load.requests);

    for (name, kind) in [
        ("fx-apq-off", FailureKind::GraphqlError),
        ("fx-apq-mixup", FailureKind::WrongData),
    ] {
        let t = trial(name);
        assert!(!t.valid, "{name}");
        assert!(
            t.load.failures.get(&kind).is_some_and(|n| *n > 0),
            "{name}: {:?}",
            t.load.failures
        );
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("persisted queries (APQ) by POST"),
        "{report}"
    );
}

#[test]
fn the_short_form_goes_by_get_when_asked() {
    let dir = fixture_copy();
    workload_target(
        dir.path(),
        "fx-apq-forget",
        "apq-forget",
        "\"fixture-apq\"",
        "",
    );
    edit(dir.path(), "method = \"post\"", "method = \"get\"");
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "persisted", &out);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let t = &read_results(&out).scenarios[0].targets[0].trials[0];
    let p = t.load.persisted.expect("counted");
    assert!(p.hits > 0 && p.misses > 0, "{p:?}");
    assert!(std::fs::read_to_string(out.join("report.md"))
        .unwrap()
        .contains("by GET"));
}

#[test]
fn a_method_or_pipelining_that_cannot_work_is_refused() {
    let dir = fixture_copy();
    edit(dir.path(), "method = \"post\"", "method = \"put\"");
    let o = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("persisted")
        .go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("persisted.toml") && o.stderr.contains("put"),
        "{}",
        o.stderr
    );
    edit(dir.path(), "method = \"put\"", "method = \"post\"");
    edit(
        dir.path(),
        "connections = 4",
        "connections = 4\npipelining = 2",
    );
    let o = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("persisted")
        .go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(o.stderr.contains("pipelining must be 1"), "{}", o.stderr);
}

/// The documents scenario with `from` replaced by `to`.
fn edit_documents(root: &std::path::Path, from: &str, to: &str) {
    edit_scenario(root, "documents", from, to)
}

#[test]
fn documents_go_by_id_from_the_manifest_the_run_wrote_and_unknown_ids_fail() {
    let dir = fixture_copy();
    workload_target(dir.path(), "fx-docs", "good", "\"fixture-documents\"", "");
    workload_target(
        dir.path(),
        "fx-docs-forget",
        "documents-forget",
        "\"fixture-documents\"",
        "",
    );
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "documents", &out);
    assert_eq!(o.code, Some(1), "{}\n{}", o.stdout, o.stderr);
    let r = read_results(&out);
    let s = &r.scenarios[0];
    let trial = |n: &str| s.targets.iter().find(|t| t.name == n).unwrap().trials[0].clone();
    let t = trial("fx-docs");
    assert!(t.valid, "{:?}", t.problems);
    assert!(t.load.requests > 0);
    // Not APQ: nothing registered, nothing counted as a hit or a miss.
    assert!(t.load.persisted.is_none());
    let t = trial("fx-docs-forget");
    assert!(!t.valid);
    assert!(
        t.load
            .failures
            .get(&FailureKind::GraphqlError)
            .is_some_and(|n| *n > 0),
        "{:?}",
        t.load.failures
    );
    // The manifest the targets read stays with the results: the document by its SHA-256.
    let m: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.join("documents.persisted-documents.json")).unwrap(),
    )
    .unwrap();
    let ops = m["operations"].as_array().unwrap();
    assert_eq!(ops.len(), 1);
    assert_eq!(ops[0]["body"].as_str().unwrap().trim(), "{ hello }");
    assert_eq!(ops[0]["id"].as_str().unwrap().len(), 64);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("persisted documents by id"), "{report}");
}

#[test]
fn a_users_manifest_names_the_ids_and_a_bad_one_is_refused_naming_it() {
    let dir = fixture_copy();
    workload_target(dir.path(), "fx-docs", "good", "\"fixture-documents\"", "");
    let manifest = dir.path().join("scenarios/e2e/ops.json");
    std::fs::write(&manifest, r#"{"app~1~hello": "{\n  hello\n}"}"#).unwrap();
    edit_documents(
        dir.path(),
        "protocol = \"documents\"",
        "protocol = \"documents\"\nmanifest = \"ops.json\"",
    );
    let out = dir.path().join("run");
    let o = one_short_trial(dir.path(), "documents", &out);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let m: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.join("documents.persisted-documents.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(m["operations"][0]["id"], "app~1~hello");

    // A manifest that does not parse, one without the operation, GET, a manifest for APQ.
    for (text, expect) in [
        (
            "{ not json",
            vec!["ops.json", "not a persisted-documents manifest"],
        ),
        (
            r#"{"x": "{ other }"}"#,
            vec!["fixture/hello", "is not in the manifest", "ops.json"],
        ),
    ] {
        std::fs::write(&manifest, text).unwrap();
        let o = Gqlbench::run("e2e")
            .root(dir.path())
            .scenarios("documents")
            .go();
        assert_eq!(o.code, Some(2), "{}", o.stderr);
        for e in expect {
            assert!(o.stderr.contains(e), "{e}: {}", o.stderr);
        }
    }
    edit_documents(dir.path(), "manifest = \"ops.json\"", "method = \"get\"");
    let o = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("documents")
        .go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("documents.toml") && o.stderr.contains("POST"),
        "{}",
        o.stderr
    );
    edit(dir.path(), "method = \"post\"", "manifest = \"ops.json\"");
    let o = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("persisted")
        .go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("protocol = \\\"documents\\\"")
            || o.stderr.contains("protocol = \"documents\""),
        "{}",
        o.stderr
    );
}
