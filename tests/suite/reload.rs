//! End-to-end: the supergraph reload scenario on fixture gateways. The run starts real
//! subgraphs for each (so its session writes a supergraph file, which the kind rewrites),
//! a fixture that watches the file gives valid reload rows with times, one that never
//! reloads fails with why while the run goes on, and the report has the reload table.
use crate::common;
use common::*;
use gqlbench::kinds::reload::{SAMPLES, SUMMARY};
use gqlbench::results::{RunStatus, TargetStatus};

/// A copy of the fixture catalogue with the committed demo supergraph in it: a session
/// writes each gateway's supergraph from the catalogue's own (with this run's subgraph
/// ports), and the fixture catalogue has no federation suite of its own. The fixture
/// gateways answer `{ hello }`, so the copy's Query has that field too: the planner checks
/// a federation scenario's operations against the supergraph.
fn catalogue() -> tempfile::TempDir {
    let dir = fixture_copy();
    let to = dir.path().join("scenarios/federation");
    std::fs::create_dir_all(&to).unwrap();
    let sg =
        std::fs::read_to_string(repo().join("scenarios/federation/supergraph.graphql")).unwrap();
    let query = "@join__type(graph: REVIEWS) {\n";
    assert!(
        sg.contains(query),
        "the demo supergraph's Query is not where it was"
    );
    let sg = sg.replacen(
        query,
        &format!("{query}  hello: String @join__field(graph: ACCOUNTS)\n"),
        1,
    );
    std::fs::write(to.join("supergraph.graphql"), sg).unwrap();
    dir
}

#[test]
fn a_watching_gateway_reloads_and_one_that_never_does_fails_with_why() {
    let root = catalogue();
    let out_dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("e2e")
        .root(root.path())
        .scenarios("reload")
        .trials(1)
        .warmup("200ms")
        .duration("500ms")
        .json()
        .out(out_dir.path())
        .go();
    assert_eq!(
        out.code,
        Some(1),
        "a failed row fails the run: {}",
        out.stderr
    );
    let r = out.results();
    assert_eq!(r.status, RunStatus::Complete);

    // The watching fixture: every reload seen, timed and followed by two right answers.
    let good = target(&r, 0, "fx-reload");
    assert_eq!(good.status, TargetStatus::Ok, "{:?}", good.problem);
    assert!(good.summary.as_ref().unwrap().valid);
    let samples = good.trials[0]
        .by_kind
        .get(&SAMPLES)
        .expect("reload samples");
    assert_eq!(samples.len(), 3);
    // Each rewrite's description is new (a count over the run's rewrites).
    let mut seen: Vec<&str> = samples.iter().map(|s| s.description.as_str()).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 3, "{samples:?}");
    for s in &samples {
        assert!(s.description.starts_with("gqlbench reload "), "{s:?}");
        assert!(s.problem.is_none(), "{s:?}");
        // It re-reads its file every 50 ms: seen after a poll or more, well within 2 s.
        let t = s.reload_s.unwrap();
        assert!(t > 0.0 && t < 1.0, "{s:?}");
        assert!(s.polls >= 1 && s.first_request_s.unwrap() > 0.0, "{s:?}");
        assert!(s.second_request_s.is_some(), "{s:?}");
    }
    let sum = good.by_kind.get(&SUMMARY).expect("a reload summary");
    assert_eq!((sum.reloads, sum.ok, sum.failed_requests), (3, 3, 0));
    assert_eq!(sum.reload_s.n, 3);
    // The run's copy of its supergraph holds the last description, once.
    let sg = std::fs::read_to_string(
        out_dir
            .path()
            .join("logs/reload-fx-reload.supergraph.graphql"),
    )
    .unwrap();
    assert_eq!(sg.matches("gqlbench reload").count(), 1, "{sg}");
    // The last rewrite is the last measured trial's: a trial the hypervisor disturbed is
    // measured again, and the copy then holds the repeat's last description.
    let last_trial = good.trials.last().unwrap();
    let last = &last_trial.by_kind.get(&SAMPLES).expect("its samples")[2].description;
    assert!(
        sg.contains(&format!("\"\"\"{last}\"\"\"\ntype Query")),
        "{sg}"
    );

    // The fixture that never reloads: its first reload is not served within the 2 s bound,
    // its row invalid with why, no further reload tried.
    let never = target(&r, 0, "fx-no-reload");
    assert!(!never.summary.as_ref().unwrap().valid);
    let samples = never.trials[0].by_kind.get(&SAMPLES).expect("its sample");
    assert_eq!(samples.len(), 1, "{samples:?}");
    let p = samples[0].problem.as_deref().unwrap();
    assert!(
        p.contains("not served within 2s") && p.contains("still null"),
        "{p}"
    );
    assert!(samples[0].polls > 10, "{samples:?}");
    let sum = never.by_kind.get(&SUMMARY).unwrap();
    assert_eq!((sum.reloads, sum.ok, sum.reload_s.n), (1, 0, 0));

    let failures = &r.verdict.as_ref().unwrap().failures;
    assert!(
        failures
            .iter()
            .any(|f| f.contains(" fx-no-reload: ") && f.contains("reload 1/3")),
        "{failures:?}"
    );
    assert!(
        !failures.iter().any(|f| f.contains("fx-reload:")),
        "{failures:?}"
    );

    let report = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
    let at = report
        .find("supergraph reload: file rewritten")
        .unwrap_or_else(|| panic!("no reload table: {report}"));
    let table = &report[at..];
    let row = table
        .lines()
        .find(|l| l.starts_with("| fx-reload "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains("| 3/3 |"), "{row}");
    let row = table
        .lines()
        .find(|l| l.starts_with("| fx-no-reload ") && l.contains("reload 1:"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains("| 0/3 |"), "{row}");
}
