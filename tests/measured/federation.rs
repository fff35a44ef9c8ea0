//! End-to-end: the federation suite. The supergraph is current with the subgraph SDL, the
//! npm gateways return exactly the expected answers through real subgraphs, upstream calls
//! and subgraph CPU are reported, and faults (a subgraph dying mid-run, a bad delay spec,
//! a composition error) are reported as such.
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::*;
use gqlbench::results::{RunResults, TargetStatus};

/// Tests that start gateways look for leftover processes: run them one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The gateways installed by `npm ci`: the Node ones, and grafbase-dev (a native binary that
/// npm fetches, so it runs here without a build).
const NPM_GATEWAYS: &str = "apollo-gateway,hive-gateway,hive-gateway-router-runtime,mercurius-gateway,grafbase-dev,yoga-stitching,yoga-apollo-gateway";

#[test]
fn supergraph_is_current_with_the_subgraph_sdl() {
    let _turn = file_turn(module_path!());
    let dir = federation_tools();
    let out = Command::new("node")
        .arg(dir.join("compose.mjs"))
        .arg("--check")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the committed supergraph is stale: run `node targets/_federation/compose.mjs`\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_wide_supergraph_is_current_with_its_subgraph_sdl() {
    let _turn = file_turn(module_path!());
    let out = Command::new("node")
        .arg(federation_tools().join("compose.mjs"))
        .args(["--graph", "wide", "--check"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the committed wide supergraph is stale: run `node targets/_federation/compose.mjs --graph wide`\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The wide graph's query through gateways of each kind: a supergraph reader (Hive
/// Gateway), one that composes Federation v1 SDL itself (Mercurius) and schema stitching;
/// every answer right, all twelve subgraphs called, the first request timed against its
/// repeats; a gateway whose configuration lists the demo's subgraphs is skipped, saying so.
#[test]
fn gateways_answer_the_twelve_subgraph_query_right() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (r, out_dir) = short_run(
        "wide",
        "hive-gateway,mercurius-gateway,yoga-stitching,grafbase-dev",
        "1s",
        4,
    );
    for name in ["hive-gateway", "mercurius-gateway", "yoga-stitching"] {
        assert_gateway_ok_on(&r, name, 12);
        let t = target(&r, 0, name);
        let c = &t.checks[0];
        assert_eq!(c.operation, "federation-wide/all12");
        let (first, warm) = (c.first_s.unwrap(), c.warm_s.unwrap());
        assert!(first > 0.0 && warm > 0.0, "{name}: {c:?}");
        // Every subgraph is called for every client request (no cache in front of them
        // can answer the unique requests).
        let up = t.trials[0].upstream.as_ref().unwrap();
        assert!(up.calls.values().all(|n| *n > 0), "{name}: {:?}", up.calls);
        if name == "mercurius-gateway" {
            // It merges no subgraph fetches: one per subgraph per client request, priming
            // and warm-up included on both sides of the ratio (12.3 and more when the
            // primed connections' calls were counted but not their requests).
            assert!(
                (up.calls_per_request - 12.0).abs() < 0.05,
                "{name}: {} calls per request: {:?}",
                up.calls_per_request,
                t.trials[0].load.connections
            );
        }
    }
    let grafbase = target(&r, 0, "grafbase-dev");
    assert_eq!(grafbase.status, TargetStatus::Skipped);
    assert!(
        grafbase
            .problem
            .as_deref()
            .unwrap_or("")
            .contains("not run on the wide graph"),
        "{:?}",
        grafbase.problem
    );
    let report = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
    assert!(
        report.contains("first request (cold plan cache)"),
        "{report}"
    );
    assert_no_process("subgraphs serve");
}

#[test]
fn composition_errors_name_the_subgraph_and_field() {
    let _turn = file_turn(module_path!());
    let dir = federation_tools();
    let tmp = tempfile::tempdir().unwrap();
    for n in ["accounts", "products", "reviews", "inventory"] {
        let src = repo().join(format!("scenarios/federation/subgraphs/{n}.v2.graphql"));
        let mut text = std::fs::read_to_string(src).unwrap();
        if n == "inventory" {
            // @requires on a field that does not exist.
            text = text.replace(
                "@requires(fields: \"price weight\")",
                "@requires(fields: \"price nosuchfield\")",
            );
        }
        std::fs::write(tmp.path().join(format!("{n}.v2.graphql")), text).unwrap();
    }
    let out = Command::new("node")
        .arg(dir.join("compose.mjs"))
        .arg("--subgraphs")
        .arg(tmp.path())
        .arg("--out")
        .arg(tmp.path().join("supergraph.graphql"))
        .output()
        .unwrap();
    let err =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("inventory") && err.contains("shippingEstimate"),
        "{err}"
    );
}

/// The constant scenario against `targets`, without warm-up, JSON on stdout.
fn constant(targets: &str, duration: &str, connections: u64) -> Gqlbench {
    Gqlbench::run("federation")
        .root(repo())
        .scenarios("constant")
        .targets(targets)
        .warmup("0s")
        .duration(duration)
        .connections(connections)
        .json()
}

/// One short trial of `scenario` against `targets`, JSON on stdout, without warm-up; its
/// results and the run folder (for the reports).
fn short_run(
    scenario: &str,
    targets: &str,
    duration: &str,
    connections: u64,
) -> (RunResults, tempfile::TempDir) {
    let out_dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("federation")
        .root(repo())
        .scenarios(scenario)
        .targets(targets)
        .warmup("0s")
        .duration(duration)
        .connections(connections)
        .trials(1)
        .json()
        .out(out_dir.path())
        .go();
    assert!(out.success(), "{}", out.stderr);
    (out.results(), out_dir)
}

/// One short trial of the constant scenario against `targets`.
fn constant_run(targets: &str, duration: &str, connections: u64) -> RunResults {
    short_run("constant", targets, duration, connections).0
}

/// A gateway that answered every request right and whose upstream calls were counted.
fn assert_gateway_ok(r: &RunResults, name: &str) {
    assert_gateway_ok_on(r, name, 4)
}

/// As [`assert_gateway_ok`], in front of a graph of `subgraphs` subgraphs.
fn assert_gateway_ok_on(r: &RunResults, name: &str, subgraphs: usize) {
    let t = target(r, 0, name);
    assert_eq!(
        t.status,
        TargetStatus::Ok,
        "{name}: {:?} {:?}",
        t.problem,
        t.log_tail
    );
    assert!(t.checks.iter().all(|c| c.ok), "{name}: {:?}", t.checks);
    let trial = &t.trials[0];
    assert_eq!(trial.load.failed, 0, "{name}");
    assert!(trial.load.ok > 0, "{name}");
    let up = trial.upstream.as_ref().expect("upstream calls counted");
    assert!(up.calls_per_request > 0.0, "{name}: {up:?}");
    assert_eq!(
        up.calls.len(),
        subgraphs,
        "{name}: every subgraph counted: {:?}",
        up.calls
    );
    assert!(up.subgraph_cpu_pct.is_some_and(|c| c.is_finite()));
}

#[test]
fn npm_gateways_return_the_expected_answers_and_upstream_calls_are_counted() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let r = constant_run(NPM_GATEWAYS, "1s", 4);
    assert!(r.scenarios[0].load.unique_request_header);
    for name in NPM_GATEWAYS.split(',') {
        assert_gateway_ok(&r, name);
    }
    // Mercurius' gateway needs Federation v1 subgraphs; the others v2: both worked above.
    assert_no_process("subgraphs serve");
}

#[test]
fn a_subgraph_that_dies_mid_run_is_reported_and_the_run_ends_cleanly() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let child = constant("apollo-gateway", "3s", 4)
        .trials(2)
        .out(out_dir.path())
        .spawn();
    // Wait for the gateway's subgraphs, let the first trial start, then kill them.
    let mut pid = None;
    wait_for("the subgraphs to start", Duration::from_secs(60), || {
        pid = pids_with("subgraphs serve").first().copied();
        pid.is_some()
    });
    std::thread::sleep(Duration::from_millis(4000));
    unsafe {
        libc::kill(pid.unwrap(), libc::SIGKILL);
    }
    let out = Outcome::finish(child);
    // The run ends normally, and fails: the trial the subgraphs died in is invalid.
    out.assert_exit(1);
    let r = out.results();
    let t = target(&r, 0, "apollo-gateway");
    assert!(!t.trials.is_empty());
    let broken = t.trials.iter().any(|x| {
        !x.valid && (x.load.failed > 0 || x.problems.iter().any(|p| p.contains("subgraph")))
    });
    assert!(broken, "a trial shows the dead subgraph: {:?}", t.trials);
    assert!(!t.summary.as_ref().unwrap().valid);
    assert_no_process("subgraphs serve");
    assert!(processes_with("apollo-gateway")
        .iter()
        .all(|p| !p.contains("node")));
}

/// `--out` relative to where gqlbench was started: a gateway, started in its own folder,
/// still finds the supergraph written into the run folder.
#[test]
fn a_relative_out_folder_reaches_the_gateway() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cwd = tempfile::tempdir().unwrap();
    let mut cmd = Gqlbench::run("federation")
        .root(repo())
        .scenarios("constant")
        .targets("apollo-gateway")
        .warmup("0s")
        .duration("1s")
        .connections(2)
        .trials(1)
        .json()
        .out(Path::new("runs/relative"))
        .command();
    let out = Outcome::of(cmd.current_dir(cwd.path()).output().unwrap());
    assert!(out.success(), "{}", out.stderr);
    let r = out.results();
    assert_gateway_ok(&r, "apollo-gateway");
    assert!(cwd.path().join("runs/relative/results.json").exists());
}

/// A scenario naming a graph that does not exist, or delaying a subgraph its graph lacks, is
/// bad input naming the file and field.
#[test]
fn unknown_graph_or_subgraph_of_the_wide_graph_is_refused() {
    let _turn = file_turn(module_path!());
    for (from, to, says) in [
        (
            "graph = \"wide\"",
            "graph = \"huge\"",
            "[subgraphs] graph: unknown graph 'huge' (valid: demo, wide)",
        ),
        (
            "graph = \"wide\"",
            "graph = \"wide\"\ndelays = { reviews = \"5ms\", accounts = \"5ms\" }",
            "unknown subgraph 'accounts' (valid in the wide graph: analytics",
        ),
    ] {
        let dir = thin_copy(&[
            "scenarios/federation/wide.toml",
            "scenarios/queries/federation-wide/all12.graphql",
            "scenarios/expected/federation-wide/all12.json",
        ]);
        let f = dir.path().join("scenarios/federation/wide.toml");
        let text = std::fs::read_to_string(&f).unwrap().replace(from, to);
        std::fs::write(&f, text).unwrap();
        let out = Gqlbench::run("federation")
            .root(dir.path())
            .scenarios("wide")
            .go();
        out.assert_exit(2);
        assert!(
            out.stderr.contains("wide.toml") && out.stderr.contains(says),
            "{}",
            out.stderr
        );
    }
}

/// A catalogue of the targets' manifests, the profiles and the files in `files`: enough for
/// errors found before anything starts.
fn thin_copy(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(repo().join("targets")).unwrap() {
        let p = e.unwrap().path();
        if p.join("target.toml").exists() {
            let to = dir.path().join("targets").join(p.file_name().unwrap());
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(p.join("target.toml"), to.join("target.toml")).unwrap();
        }
    }
    for rel in ["scenarios/profiles.toml"].iter().chain(files) {
        let from = repo().join(rel);
        let to = dir.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
    dir
}

#[test]
fn malformed_delay_spec_is_refused_with_an_example() {
    let _turn = file_turn(module_path!());
    // Only manifests and scenarios are read before the error, so a thin copy suffices.
    let dir = thin_copy(&[
        "scenarios/federation/delays.toml",
        "scenarios/queries/federation/large.graphql",
        "scenarios/expected/federation/large.json",
    ]);
    let f = dir.path().join("scenarios/federation/delays.toml");
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replace("reviews = \"20..150ms\"", "reviews = \"20-150\"");
    std::fs::write(&f, text).unwrap();
    let out = Gqlbench::run("federation").root(dir.path()).go();
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(
        e.contains("delays.toml")
            && e.contains("reviews")
            && e.contains("e.g. --delay reviews=20..150ms"),
        "{e}"
    );
}

/// Opt-in: the native gateways, once built in the cache (`gqlbench install apollo-router
/// hive-router`, ~20 min each). `.ci/run` runs it when `gqlbench install --check
/// apollo-router hive-router` finds both current; by hand: `cargo test --release --test
/// federation -- --ignored native_gateways` (docs/federation.md#native-gateways).
#[test]
#[ignore = "needs the native builds in the cache; .ci/run runs it when they are"]
fn native_gateways_return_the_expected_answers() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let r = constant_run("apollo-router,hive-router", "2s", 8);
    for name in ["apollo-router", "hive-router"] {
        assert_gateway_ok(&r, name);
    }
    let (r, _out) = short_run("wide", "apollo-router,hive-router", "2s", 8);
    for name in ["apollo-router", "hive-router"] {
        assert_gateway_ok_on(&r, name, 12);
    }
}

/// The stitched gateway reads each subgraph's SDL at start-up: a subgraph that is not there
/// stops it with a message naming the subgraph and its URL, rather than a gateway that
/// serves part of the schema.
#[test]
fn the_stitched_gateway_names_a_subgraph_it_cannot_read() {
    let _turn = file_turn(module_path!());
    Gqlbench::new(["install", "yoga-stitching"])
        .root(repo())
        .go()
        .assert_exit(0);
    let mut cmd = Command::new("node");
    cmd.arg("server.mjs")
        .current_dir(repo().join("targets/yoga-stitching"))
        .env("PORT", "0");
    // Port 9 (discard) on loopback: nothing listens there.
    for sg in ["ACCOUNTS", "PRODUCTS", "REVIEWS", "INVENTORY"] {
        cmd.env(
            format!("GQLBENCH_SUBGRAPH_{sg}_URL"),
            "http://127.0.0.1:9/graphql",
        );
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let named = ["accounts", "products", "reviews", "inventory"]
        .iter()
        .any(|n| {
            err.contains(&format!(
                "cannot read the SDL of subgraph {n} at http://127.0.0.1:9/graphql"
            ))
        });
    assert!(named, "{err}");
}

/// Hive Gateway on Bun (its runtime from npm, in the variant's own install) answers the
/// large query right through real subgraphs, with its upstream calls counted and its
/// runtime named, in the same round as Hive Gateway on Node.
#[test]
fn hive_gateway_on_bun_answers_right_through_the_subgraphs() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (r, _out) = short_run("runtimes", "hive-gateway,hive-gateway-bun", "1s", 4);
    for name in ["hive-gateway", "hive-gateway-bun"] {
        assert_gateway_ok(&r, name);
    }
    let bun = target(&r, 0, "hive-gateway-bun");
    assert_eq!(bun.runtime.as_deref(), Some("bun 1.4.4"));
    assert_eq!(bun.base.as_deref(), Some("hive-gateway"));
    assert_no_process("subgraphs serve");
}
