//! End-to-end against the real Node targets (their npm packages are installed by the run
//! itself through the install cache): every answer right, and a short run of each valid.
mod common;
use common::*;
use gqlbench::results::{RunResults, TargetStatus};

#[test]
fn check_finds_every_answer_right_on_every_node_target() {
    let out = Gqlbench::new(["check", "servers"]).root(repo()).go();
    let stdout = &out.stdout;
    assert!(out.success(), "{stdout}");
    assert!(
        stdout.contains("5 target(s) checked, 0 problem(s)"),
        "{stdout}"
    );
    assert!(!stdout.contains("WRONG"));
}

/// One one-second trial of `scenarios` against every server, without warm-up.
fn short_run(scenarios: &str) -> RunResults {
    let out_dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("servers")
        .root(repo())
        .scenarios(scenarios)
        .trials(1)
        .warmup("0s")
        .duration("1s")
        .json()
        .out(out_dir.path())
        .go();
    assert!(out.success());
    out.results()
}

#[test]
fn one_second_run_of_each_node_target_is_valid_and_measured() {
    let r = short_run("simple,mix");
    assert_eq!(r.scenarios.len(), 2);
    for s in &r.scenarios {
        assert_eq!(
            s.targets.len(),
            5,
            "all five Node targets ran in {}",
            s.name
        );
        for t in &s.targets {
            let name = &t.name;
            assert_eq!(t.status, TargetStatus::Ok, "{name}: {:?}", t.problem);
            let summary = t.summary.as_ref().unwrap();
            assert_eq!(summary.failures, 0, "{name}");
            assert!(summary.rps.median > 50.0, "{name}");
            assert!(t.version.is_some(), "{name}: version from the lockfile");
            let trial = &t.trials[0];
            let Some(gc) = &trial.vitals.gc else {
                panic!("{name}: GC probe read")
            };
            // The longest pause is the window's own: above zero when any pause happened,
            // never above their sum.
            let (n, total, max) = (gc.count, gc.total_ms, gc.max_ms);
            assert!(n == 0 || max > 0.0, "{name}: {n} pauses, max {max}");
            assert!(max <= total + 1e-6, "{name}: max {max} > total {total}");
            // The peak is the highest RSS since ready, the idle sample included.
            assert!(
                Some(trial.vitals.rss_peak_bytes) >= t.rss_idle_bytes,
                "{name}: peak below idle"
            );
            assert!(trial.vitals.rss_peak_bytes > 10_000_000, "{name}");
            // The mix sends all three operations with varying variables.
            if s.name == "mix" {
                let per_op = &trial.load.per_operation;
                assert_eq!(per_op.len(), 3, "{name}: {per_op:?}");
            }
        }
    }
    assert!(processes_with("server.mjs")
        .iter()
        .all(|p| !p.contains("node server.mjs")));
}

#[test]
fn every_server_enforces_its_depth_limit_the_way_it_counts() {
    let r = short_run("depth");
    let check = |name: &str| {
        target(&r, 0, name)
            .depth_check
            .clone()
            .expect("a depth check")
    };
    // graphql-depth-limit (top-level field = depth 0): depth 10 answered, 11 refused, and
    // the deep query measured.
    for name in ["apollo-server", "graphql-jit"] {
        let d = check(name);
        assert!(d.at_limit_ok, "{name}: {d:?}");
        assert!(d.over_limit_rejected, "{name}: {d:?}");
        let t = target(&r, 0, name);
        assert_eq!(t.status, TargetStatus::Ok, "{name}");
        assert!(t.summary.as_ref().unwrap().latency.p50_us > 0);
    }
    // GraphQL Armor (Yoga) and Mercurius count the leaf as a level: with a limit of 10 they
    // refuse graphql-depth-limit's depth 10 too (the check says so), yet answer the measured
    // query (fields on 10 levels), so they are measured like the others.
    for name in ["graphql-yoga", "mercurius"] {
        let d = check(name);
        assert!(d.over_limit_rejected, "{name}: {d:?}");
        assert!(!d.at_limit_ok, "{name}: {d:?}");
        let t = target(&r, 0, name);
        assert_eq!(t.status, TargetStatus::Ok, "{name}: {:?}", t.problem);
        assert!(t.summary.as_ref().unwrap().latency.p50_us > 0);
    }
    // The baseline has no limit: the check fails visibly.
    let d = check("node-baseline");
    assert!(!d.over_limit_rejected);
    assert!(d.over_limit_detail.contains("no depth limit"));
}
