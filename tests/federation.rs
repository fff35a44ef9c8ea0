//! End-to-end: the federation suite. The supergraph is current with the subgraph SDL, the
//! npm gateways return exactly the expected answers through real subgraphs, upstream calls
//! and subgraph CPU are reported, and faults (a subgraph dying mid-run, a bad delay spec,
//! a composition error) are reported as such.
mod common;
use std::process::Command;
use std::time::Duration;

use common::*;
use gqlbench::results::{RunResults, TargetStatus};

/// Tests that start gateways look for leftover processes: run them one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The gateways installed by `npm ci`: the Node ones, and grafbase-dev (a native binary that
/// npm fetches, so it runs here without a build).
const NPM_GATEWAYS: &str =
    "apollo-gateway,hive-gateway,hive-gateway-router-runtime,mercurius-gateway,grafbase-dev";

fn federation_tools() -> std::path::PathBuf {
    let dir = repo().join("targets/_federation");
    if !dir
        .join("node_modules/@theguild/federation-composition")
        .exists()
    {
        let st = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .expect("npm");
        assert!(st.success(), "npm ci in targets/_federation failed");
    }
    dir
}

#[test]
fn supergraph_is_current_with_the_subgraph_sdl() {
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
fn composition_errors_name_the_subgraph_and_field() {
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

/// One short trial of the constant scenario against `targets`.
fn constant_run(targets: &str, duration: &str, connections: u64) -> RunResults {
    let out_dir = tempfile::tempdir().unwrap();
    let out = constant(targets, duration, connections)
        .trials(1)
        .out(out_dir.path())
        .go();
    assert!(out.success());
    out.results()
}

/// A gateway that answered every request right and whose upstream calls were counted.
fn assert_gateway_ok(r: &RunResults, name: &str) {
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
        4,
        "{name}: every subgraph counted: {:?}",
        up.calls
    );
    assert!(up.subgraph_cpu_pct.is_finite());
}

#[test]
fn npm_gateways_return_the_expected_answers_and_upstream_calls_are_counted() {
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

#[test]
fn malformed_delay_spec_is_refused_with_an_example() {
    let dir = tempfile::tempdir().unwrap();
    // Only manifests and scenarios are read before the error, so a thin copy suffices.
    for e in std::fs::read_dir(repo().join("targets")).unwrap() {
        let p = e.unwrap().path();
        if p.join("target.toml").exists() {
            let to = dir.path().join("targets").join(p.file_name().unwrap());
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(p.join("target.toml"), to.join("target.toml")).unwrap();
        }
    }
    let copy = |rel: &str| {
        let from = repo().join(rel);
        let to = dir.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    };
    copy("scenarios/profiles.toml");
    copy("scenarios/federation/delays.toml");
    copy("scenarios/queries/federation/large.graphql");
    copy("scenarios/expected/federation/large.json");
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

/// Opt-in: the native gateways, once installed (`gqlbench install apollo-router hive-router`,
/// ~20 min each). Run with `cargo test --release --test federation -- --ignored`.
#[test]
#[ignore]
fn native_gateways_return_the_expected_answers() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let r = constant_run("apollo-router,hive-router", "2s", 8);
    for name in ["apollo-router", "hive-router"] {
        assert_gateway_ok(&r, name);
    }
}
