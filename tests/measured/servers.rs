//! End-to-end against the real Node targets (their npm packages are installed by the run
//! itself through the install cache): every answer right, and a short run of each valid.
use crate::common::*;
use gqlbench::results::{RunResults, TargetStatus};

#[test]
fn check_finds_every_answer_right_on_every_server() {
    let _turn = file_turn(module_path!());
    let out = Gqlbench::new(["check", "servers"]).root(repo()).go();
    let stdout = &out.stdout;
    assert!(out.success(), "{stdout}");
    assert!(
        stdout.contains("27 target(s) checked, 0 problem(s)"),
        "{stdout}"
    );
    assert!(!stdout.contains("WRONG"));
}

/// `trials` rounds of `duration` of `scenarios` against every server, without warm-up, which
/// must pass: the run folder (for report.md) and its results.
fn servers_run(scenarios: &str, trials: u32, duration: &str) -> (tempfile::TempDir, RunResults) {
    let out_dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("servers")
        .root(repo())
        .scenarios(scenarios)
        .trials(trials)
        .warmup("0s")
        .duration(duration)
        .json()
        .out(out_dir.path())
        .go();
    assert!(out.success(), "{}", out.stderr);
    let r = out.results();
    (out_dir, r)
}

/// One one-second trial of `scenarios` against every server.
fn short_run(scenarios: &str) -> RunResults {
    servers_run(scenarios, 1, "1s").1
}

#[test]
fn one_second_run_of_each_node_target_is_valid_and_measured() {
    let _turn = file_turn(module_path!());
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
            // Read from /proc: Node runs V8's platform threads beside its main one.
            assert!(
                summary.threads_peak.is_some_and(|n| n > 1),
                "{name}: {:?}",
                summary.threads_peak
            );
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
                trial.vitals.rss_peak_bytes >= t.rss_idle_bytes,
                "{name}: peak below idle"
            );
            assert!(
                trial.vitals.rss_peak_bytes.is_some_and(|b| b > 10_000_000),
                "{name}"
            );
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
    let _turn = file_turn(module_path!());
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

/// Two half-second rounds of an overhead scenario of the servers suite.
fn two_round_run(scenario: &str) -> (tempfile::TempDir, RunResults) {
    servers_run(scenario, 2, "500ms")
}

/// Each (target, base) of a two-round run: measured in both rounds, every answer right, and
/// set against the base its target.toml names.
fn every_row_valid_over_its_base(r: &RunResults, bases: &[(&str, Option<&str>)]) {
    for &(name, base) in bases {
        let t = target(r, 0, name);
        assert_eq!(t.status, TargetStatus::Ok, "{name}: {:?}", t.problem);
        assert_eq!(t.base.as_deref(), base, "{name}");
        let summary = t.summary.as_ref().unwrap();
        assert!(summary.valid && summary.failures == 0, "{name}");
        assert_eq!(counted_trials(t).len(), 2, "{name}: both rounds");
    }
}

/// The integrations scenario: Apollo Server standalone, on Express 4 (its own install) and
/// on Fastify, Mercurius without JIT, and graphyne-server on Express, Fastify and micro
/// (optional targets, named by the scenario), each answering right and set against its base
/// in the same rounds; the report shows each variant over its base.
#[test]
fn every_integration_of_a_server_is_measured_against_its_base() {
    let _turn = file_turn(module_path!());
    let (out_dir, r) = two_round_run("integrations");
    let s = &r.scenarios[0];
    let bases = [
        ("apollo-server", None),
        ("apollo-server-standalone", Some("apollo-server")),
        ("apollo-server-express4", Some("apollo-server")),
        ("apollo-server-fastify", Some("apollo-server")),
        ("mercurius", None),
        ("mercurius-nojit", Some("mercurius")),
        ("graphyne-server", None),
        ("graphyne-server-express", Some("graphyne-server")),
        ("graphyne-server-fastify", Some("graphyne-server")),
        ("graphyne-server-micro", Some("graphyne-server")),
    ];
    assert_eq!(s.targets.len(), bases.len());
    every_row_valid_over_its_base(&r, &bases);
    // Express 4's own lockfile pins the same Apollo Server as the base's.
    assert_eq!(
        target(&r, 0, "apollo-server-express4").version,
        target(&r, 0, "apollo-server").version
    );
    assert!(
        !target(&r, 0, "mercurius-nojit").settings.jit,
        "the variant says JIT is off"
    );
    let md = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
    assert!(
        md.contains("overhead of each variant over its base"),
        "{md}"
    );
    for (variant, base) in [
        ("apollo-server-express4", "apollo-server"),
        ("mercurius-nojit", "mercurius"),
        ("graphyne-server-fastify", "graphyne-server"),
    ] {
        let row = format!("| {variant} | {base} |");
        assert!(
            md.lines().any(|l| l.starts_with(&row)),
            "no row '{row}' in report.md: {md}"
        );
    }
}

/// The builders scenario: the same server and resolvers with the schema built by Pothos and
/// by Nexus, answering right and set against their SDL-first base; and a built schema is
/// held to the suite's SDL: one that prints differently is refused, naming the line.
#[test]
fn code_first_schemas_are_measured_against_the_same_schema_from_sdl() {
    let _turn = file_turn(module_path!());
    let (out_dir, r) = two_round_run("builders");
    every_row_valid_over_its_base(
        &r,
        &[
            ("graphql-http", None),
            ("graphql-http-pothos", Some("graphql-http")),
            ("graphql-http-nexus", Some("graphql-http")),
        ],
    );
    for (name, version) in [
        ("graphql-http-pothos", "4.15.1"),
        ("graphql-http-nexus", "1.3.0"),
    ] {
        assert_eq!(
            target(&r, 0, name).version.as_deref(),
            Some(version),
            "the builder's version from the base's lockfile"
        );
    }
    let md = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
    for variant in ["graphql-http-pothos", "graphql-http-nexus"] {
        let row = format!("| {variant} | graphql-http |");
        assert!(md.lines().any(|l| l.starts_with(&row)), "{row}: {md}");
    }
    // The run installed the base's packages: the check itself, on the built schema and on
    // one whose field is nullable where the SDL says it is not.
    let script = r#"
        import { buildSchema } from 'graphql';
        import { sameAsSdl } from './same-as-sdl.mjs';
        import { pothosSchema } from './pothos-schema.mjs';
        import { nexusSchema } from './nexus-schema.mjs';
        import { resolvers, typeDefs } from '../_node/index.mjs';
        import { SUBSCRIPTION_TYPES } from '../_node/subscriptions.mjs';
        sameAsSdl(pothosSchema(resolvers), 'Pothos');
        sameAsSdl(nexusSchema(resolvers), 'Nexus');
        const sdl = typeDefs.replace(SUBSCRIPTION_TYPES, '').replace('  email: String!', '  email: String');
        try { sameAsSdl(buildSchema(sdl), 'Edited'); console.log('accepted'); } catch (e) { console.log(e.message); }
    "#;
    let out = std::process::Command::new("node")
        .args(["--input-type=module", "-e", script])
        .current_dir(repo().join("targets/graphql-http"))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("the Edited schema differs from the suite's SDL at line")
            && stdout.contains("email: String"),
        "{stdout}"
    );
}

/// The runtimes scenario: the same Yoga on Node, Bun and Deno (both from the npm registry),
/// every answer checked, each runtime named with its version in the results and the report.
#[test]
fn yoga_on_bun_and_deno_is_measured_against_yoga_on_node() {
    let _turn = file_turn(module_path!());
    let (out_dir, r) = two_round_run("runtimes");
    for (name, runtime) in [
        ("graphql-yoga", "node v"),
        ("graphql-yoga-bun", "bun 1.4.4"),
        ("graphql-yoga-deno", "deno 2.9.6"),
    ] {
        let t = target(&r, 0, name);
        assert_eq!(t.status, TargetStatus::Ok, "{name}: {:?}", t.problem);
        assert!(
            t.summary
                .as_ref()
                .is_some_and(|s| s.valid && s.failures == 0),
            "{name}"
        );
        let rt = t.runtime.as_deref().unwrap_or_default();
        assert!(rt.starts_with(runtime), "{name}: runtime {rt}");
        if name != "graphql-yoga" {
            assert_eq!(t.base.as_deref(), Some("graphql-yoga"));
            // Node's GC probe is not loaded into another runtime: not measured, not zero.
            assert!(t.trials.iter().all(|x| x.vitals.gc.is_none()), "{name}");
        }
    }
    let md = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
    assert!(md.contains("| graphql-yoga-bun (bun 1.4.4) |"), "{md}");
    assert!(
        md.contains("| graphql-yoga-deno | server | graphql-yoga | 5.24.1 | deno 2.9.6 |"),
        "{md}"
    );
}
