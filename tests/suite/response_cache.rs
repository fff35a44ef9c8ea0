//! End-to-end: response caches on vs off. Fixtures with a known cache (a correct one, one
//! that never forgets, a server that counts nothing) check the kind's own logic; the real
//! Yoga and Apollo Server caches check that the scenario measures what it says.
use crate::common;
use common::*;
use gqlbench::kinds::response_cache::{EXECUTIONS, STALENESS};
use gqlbench::results::{RunResults, StalenessVerdict, TargetStatus};

/// The fixtures' response-cache scenario, one short trial, with `targets`.
fn fixture_cache_run(scenario: &str, targets: &str) -> (Outcome, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios(scenario)
        .targets(targets)
        .trials(2)
        .warmup("0s")
        .duration("1s")
        .json()
        .out(dir.path())
        .go();
    (out, dir)
}

fn hit_ratio(r: &RunResults, base: &str, cached: &str) -> Vec<f64> {
    gqlbench::kinds::response_cache::hit_ratios(target(r, 0, base), target(r, 0, cached))
}

#[test]
fn a_correct_cache_shows_its_hit_ratio_and_fresh_answers_after_a_write() {
    let (out, dir) = fixture_cache_run("response-cache", "fx-good,fx-cache");
    out.assert_exit(0);
    let r = out.results();
    let base = target(&r, 0, "fx-good");
    // Without a cache every request is executed once.
    for t in base.trials.iter() {
        let e = t.by_kind.get(&EXECUTIONS).expect("the base's executions");
        assert!(
            (0.97..=1.0).contains(&e.per_request),
            "{e:?} of {} requests",
            e.requests
        );
    }
    // 80% of the requests repeat one request; 20% are never repeated.
    let h = hit_ratio(&r, "fx-good", "fx-cache");
    assert_eq!(h.len(), 2, "a ratio per round");
    for x in &h {
        assert!((0.7..=0.9).contains(x), "hit ratio {x}");
    }
    let cached = target(&r, 0, "fx-cache");
    let st = cached.by_kind.get(&STALENESS).expect("staleness checked");
    assert_eq!(st.verdict, StalenessVerdict::Fresh, "{st:?}");
    assert_eq!(st.stale_reads, 0);
    // The base has no cache: nothing to check.
    assert!(!base.by_kind.has(&STALENESS));
    let report = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(
        report.contains("response cache on vs off (TTL 1 s)"),
        "{report}"
    );
    assert!(report.contains("fresh at once"), "{report}");
    assert!(report.contains("(cache off)"), "{report}");
}

#[test]
fn a_cache_that_never_forgets_fails_its_staleness_check_and_is_not_measured() {
    let (out, _dir) = fixture_cache_run("response-cache", "fx-good,fx-cache-stale");
    out.assert_exit(1);
    let r = out.results();
    let stale = target(&r, 0, "fx-cache-stale");
    assert_eq!(stale.status, TargetStatus::WrongAnswers);
    assert!(stale.trials.is_empty(), "never measured");
    let st = stale.by_kind.get(&STALENESS).unwrap();
    assert_eq!(st.verdict, StalenessVerdict::Stale, "{st:?}");
    // It served the old name for longer than the 1 s TTL allows, then was given up on.
    assert!(st.stale_s > 1.0 && st.stale_reads > 10, "{st:?}");
    let problem = stale.problem.as_deref().unwrap();
    assert!(
        problem.contains("past its time to live of 1 s") && problem.contains("fixture/rename"),
        "{problem}"
    );
    // The rest of the scenario went on.
    assert_eq!(counted_trials(target(&r, 0, "fx-good")).len(), 2);
    assert!(
        out.stderr.contains("fx-cache-stale: WRONG ANSWERS"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_server_without_counters_fails_its_start_by_name() {
    let (out, _dir) = fixture_cache_run(
        "response-cache-no-counters",
        "fx-good,fx-cache,fx-no-counters",
    );
    out.assert_exit(1);
    let r = out.results();
    let t = target(&r, 0, "fx-no-counters");
    assert_eq!(t.status, TargetStatus::StartFailed);
    let p = t.problem.as_deref().unwrap();
    assert!(
        p.contains("serves no counters on GQLBENCH_COUNTERS_PORT") && p.contains("counters.mjs"),
        "{p}"
    );
    assert_eq!(target(&r, 0, "fx-cache").status, TargetStatus::Ok);
}

#[test]
fn bad_response_cache_sections_exit_2_naming_the_file_and_field() {
    let cases: [(&str, &str, &str); 4] = [
        (
            "ttl = \"1s\"",
            "ttl = \"1500ms\"",
            "whole number of seconds",
        ),
        (
            "targets = [\"fx-good\", \"fx-cache\", \"fx-cache-stale\"]",
            "targets = [\"fx-good\"]",
            "names none",
        ),
        (
            "targets = [\"fx-good\", \"fx-cache\", \"fx-cache-stale\"]",
            "targets = [\"fx-cache\"]",
            "'fx-good', which is not among `targets`",
        ),
        (
            "write = \"fixture/rename\"",
            "write = \"fixture/hello\"",
            "need exactly two cases",
        ),
    ];
    for (from, to, says) in cases {
        let dir = fixture_copy();
        let file = dir.path().join("scenarios/e2e/response-cache.toml");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(from), "{from}");
        std::fs::write(&file, text.replace(from, to)).unwrap();
        let out = Gqlbench::run("e2e")
            .root(dir.path())
            .scenarios("response-cache")
            .go();
        out.assert_exit(2);
        assert!(
            out.stderr.contains("e2e/response-cache.toml") && out.stderr.contains(says),
            "{to}: {}",
            out.stderr
        );
    }
}

/// `suite`'s response-cache scenario on the real targets, `trials` short rounds; it must
/// pass.
fn real_cache_run(suite: &str, trials: u32) -> RunResults {
    let dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run(suite)
        .root(repo())
        .scenarios("response-cache")
        .trials(trials)
        .warmup("0s")
        .duration("1s")
        .json()
        .out(dir.path())
        .go();
    out.assert_exit(0);
    out.results()
}

#[test]
fn yoga_and_apollo_caches_answer_right_and_show_hits_and_their_staleness() {
    let r = real_cache_run("servers", 2);
    for name in ["graphql-yoga", "apollo-server"] {
        let base = target(&r, 0, name);
        for t in &base.trials {
            let e = t.by_kind.get(&EXECUTIONS).expect("executions counted");
            assert!((0.95..=1.0).contains(&e.per_request), "{name}: {e:?}");
        }
        let cached = format!("{name}-cache");
        let h = hit_ratio(&r, name, &cached);
        assert_eq!(h.len(), 2, "{cached}");
        for x in &h {
            // 80% of requests repeat ten pages, 20% are new: at most 80% hits.
            assert!((0.6..=0.82).contains(x), "{cached}: hit ratio {x}");
        }
    }
    // Yoga invalidates the renamed user; Apollo's cache keeps it until its max age.
    let yoga = target(&r, 0, "graphql-yoga-cache")
        .by_kind
        .get(&STALENESS)
        .unwrap();
    assert_eq!(yoga.verdict, StalenessVerdict::Fresh, "{yoga:?}");
    let apollo = target(&r, 0, "apollo-server-cache")
        .by_kind
        .get(&STALENESS)
        .unwrap();
    assert_eq!(apollo.verdict, StalenessVerdict::WithinTtl, "{apollo:?}");
    assert!(
        apollo.stale_reads > 0 && apollo.stale_s <= 2.5,
        "{apollo:?}"
    );
}

#[test]
fn hive_gateway_cache_saves_subgraph_calls_and_answers_right() {
    let r = real_cache_run("federation", 1);
    // Without the cache the gateway executes every request (and merges identical
    // in-flight subgraph fetches, so its subgraph calls say less).
    let base = target(&r, 0, "hive-gateway");
    let e = base.trials[0]
        .by_kind
        .get(&EXECUTIONS)
        .expect("executions counted");
    assert!((0.95..=1.0).contains(&e.per_request), "{e:?}");
    let h = hit_ratio(&r, "hive-gateway", "hive-gateway-cache");
    assert_eq!(h.len(), 1);
    // 80% of requests repeat nine lists, 20% are new: at most 80% hits.
    assert!((0.55..=0.82).contains(&h[0]), "hit ratio {}", h[0]);
    // The hits never reach the subgraphs: the cache cut their calls.
    let calls = |n: &str| {
        target(&r, 0, n).trials[0]
            .upstream
            .as_ref()
            .unwrap()
            .calls_per_request
    };
    assert!(calls("hive-gateway-cache") < calls("hive-gateway"));
    // No staleness check: the demo subgraphs take no writes.
    assert!(!target(&r, 0, "hive-gateway-cache").by_kind.has(&STALENESS));
}
