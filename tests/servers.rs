//! End-to-end against the real Node targets (their npm packages are installed by the run
//! itself through the install cache): every answer right, and a short run of each valid.
mod common;
use common::*;

#[test]
fn check_finds_every_answer_right_on_every_node_target() {
    let out = run(bin().arg("--root").arg(repo()).args(["check", "servers"]));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("5 target(s) checked, 0 problem(s)"),
        "{stdout}"
    );
    assert!(!stdout.contains("WRONG"));
}

#[test]
fn one_second_run_of_each_node_target_is_valid_and_measured() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .arg("--root")
        .arg(repo())
        .args([
            "run",
            "servers",
            "--scenarios",
            "simple,mix",
            "--trials",
            "1",
            "--warmup",
            "0s",
        ])
        .args(["--duration", "1s", "--json", "--out"])
        .arg(out_dir.path()));
    assert!(out.status.success());
    let r = json(&out);
    assert_eq!(r["scenarios"].as_array().unwrap().len(), 2);
    for s in r["scenarios"].as_array().unwrap() {
        let targets = s["targets"].as_array().unwrap();
        assert_eq!(
            targets.len(),
            5,
            "all five Node targets ran in {}",
            s["name"]
        );
        for t in targets {
            let name = t["name"].as_str().unwrap();
            assert_eq!(t["status"], "ok", "{name}: {}", t["problem"]);
            assert_eq!(t["summary"]["failures"], 0, "{name}");
            assert!(
                t["summary"]["rps"]["median"].as_f64().unwrap() > 50.0,
                "{name}"
            );
            assert!(
                t["version"].is_string(),
                "{name}: version from the lockfile"
            );
            let trial = &t["trials"][0];
            let gc = &trial["vitals"]["gc"];
            assert!(gc["count"].is_u64(), "{name}: GC probe read");
            // The longest pause is the window's own: above zero when any pause happened,
            // never above their sum.
            let (n, total, max) = (
                gc["count"].as_u64().unwrap(),
                gc["total_ms"].as_f64().unwrap(),
                gc["max_ms"].as_f64().unwrap(),
            );
            assert!(n == 0 || max > 0.0, "{name}: {n} pauses, max {max}");
            assert!(max <= total + 1e-6, "{name}: max {max} > total {total}");
            // The peak is the highest RSS since ready, the idle sample included.
            assert!(
                trial["vitals"]["rss_peak_bytes"].as_u64() >= t["rss_idle_bytes"].as_u64(),
                "{name}: peak below idle"
            );
            assert!(
                trial["vitals"]["rss_peak_bytes"].as_u64().unwrap() > 10_000_000,
                "{name}"
            );
            // The mix sends all three operations with varying variables.
            if s["name"] == "mix" {
                let per_op = trial["load"]["per_operation"].as_object().unwrap();
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
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .arg("--root")
        .arg(repo())
        .args(["run", "servers", "--scenarios", "depth", "--trials", "1"])
        .args(["--warmup", "0s", "--duration", "1s", "--json", "--out"])
        .arg(out_dir.path()));
    assert!(out.status.success());
    let r = json(&out);
    let check = |name: &str| target(&r, 0, name)["depth_check"].clone();
    // graphql-depth-limit (top-level field = depth 0): depth 10 answered, 11 refused, and
    // the deep query measured.
    for name in ["apollo-server", "graphql-jit"] {
        let d = check(name);
        assert_eq!(d["at_limit_ok"], true, "{name}: {d}");
        assert_eq!(d["over_limit_rejected"], true, "{name}: {d}");
        let t = target(&r, 0, name);
        assert_eq!(t["status"], "ok", "{name}");
        assert!(t["summary"]["latency"]["p50_us"].as_u64().unwrap() > 0);
    }
    // GraphQL Armor (Yoga) and Mercurius count the leaf as a level: with a limit of 10 they
    // refuse graphql-depth-limit's depth 10 too (the check says so), yet answer the measured
    // query (fields on 10 levels), so they are measured like the others.
    for name in ["graphql-yoga", "mercurius"] {
        let d = check(name);
        assert_eq!(d["over_limit_rejected"], true, "{name}: {d}");
        assert_eq!(d["at_limit_ok"], false, "{name}: {d}");
        let t = target(&r, 0, name);
        assert_eq!(t["status"], "ok", "{name}: {}", t["problem"]);
        assert!(t["summary"]["latency"]["p50_us"].as_u64().unwrap() > 0);
    }
    // The baseline has no limit: the check fails visibly.
    let d = check("node-baseline");
    assert_eq!(d["over_limit_rejected"], false);
    assert!(d["over_limit_detail"]
        .as_str()
        .unwrap()
        .contains("no depth limit"));
}
