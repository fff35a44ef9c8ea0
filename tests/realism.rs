//! End-to-end: the server-realism measurements against fixture targets — depth limits,
//! cold starts (also one killed by its memory cap), a long run's leak verdict, and a load
//! sweep over connection counts.
mod common;
use common::*;

/// The cold-start test checks that no fixture process is left, so runs must not overlap.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs one fixture scenario; `code` is the exit code its verdict must give (findings such
/// as a depth limit or a leak are not failures; a target that never starts or drops its
/// subscriptions is).
fn run_e2e(scenario: &str, code: i32) -> (serde_json::Value, tempfile::TempDir) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .args(["--root"])
        .arg(fixtures())
        .args(["run", "e2e", "--scenarios", scenario, "--json", "--out"])
        .arg(out_dir.path()));
    assert_eq!(out.status.code(), Some(code), "the verdict of {scenario}");
    let r = json(&out);
    assert_eq!(r["status"], "complete");
    assert_eq!(r["verdict"]["exit_code"], code);
    (r, out_dir)
}

#[test]
fn depth_limit_check_passes_with_a_limit_and_fails_visibly_without() {
    let (r, dir) = run_e2e("depth", 0);
    assert_eq!(r["scenarios"][0]["depth_limit"], 10);
    let limited = target(&r, 0, "fx-depth-limit");
    let d = &limited["depth_check"];
    assert_eq!(d["at_limit_ok"], true, "{d}");
    assert_eq!(d["over_limit_rejected"], true, "{d}");
    assert_eq!(d["over_limit_status"], 400);
    assert!(d["over_limit_detail"]
        .as_str()
        .unwrap()
        .contains("exceeds the maximum 10"));
    // The deep query was measured too (execution time and memory).
    assert!(limited["summary"]["latency"]["p50_us"].as_u64().unwrap() > 0);

    let open = target(&r, 0, "fx-good");
    let d = &open["depth_check"];
    assert_eq!(d["at_limit_ok"], true);
    assert_eq!(
        d["over_limit_rejected"], false,
        "no limit: depth 11 answered"
    );
    assert!(d["over_limit_detail"]
        .as_str()
        .unwrap()
        .contains("no depth limit"));
    // A finding about the server, not a failure of the run (exit 0 above).
    let findings = r["verdict"]["findings"].to_string();
    assert!(findings.contains("fx-good: depth limit 10"), "{findings}");
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(
        md.contains("DEPTH LIMIT CHECK FAILED"),
        "visible in the report"
    );
    assert!(md.contains("ACCEPTED"));
}

#[test]
fn cold_starts_are_repeated_and_a_target_that_never_starts_is_reported() {
    let (r, _dir) = run_e2e("cold", 1);
    assert_eq!(r["scenarios"][0]["kind"], "cold_start");
    let good = target(&r, 0, "fx-good");
    let starts = good["cold_starts"].as_array().unwrap();
    assert_eq!(starts.len(), 3);
    for s in starts {
        assert_eq!(s["outcome"], "ok", "{s}");
        let ready = s["ready_s"].as_f64().unwrap();
        assert!(ready > 0.0 && ready < 10.0);
        assert!(s["first_request_s"].as_f64().unwrap() > 0.0);
        assert!(s["rss_at_ready_bytes"].as_u64().unwrap() > 1_000_000);
    }
    let sum = &good["cold_start"];
    assert_eq!(sum["ok"], 3);
    assert_eq!(sum["ready_s"]["n"], 3);
    let never = target(&r, 0, "fx-never-ready");
    assert_eq!(never["status"], "start_failed");
    assert_eq!(never["cold_starts"].as_array().unwrap().len(), 3);
    assert!(never["cold_start"].is_null());
    assert!(never["problem"].as_str().unwrap().contains("not ready"));
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    assert!(processes_with("_fixture/server.mjs").is_empty());
}

#[test]
fn a_server_that_cannot_start_under_the_memory_cap_is_reported_as_such() {
    let (r, _dir) = run_e2e("cold-small", 0);
    let applied = r["scenarios"][0]["limits"]["applied"].as_str().unwrap();
    if !applied.contains("memory cap") {
        eprintln!("skipped: no writable cgroup memory controller here ({applied})");
        return;
    }
    let hog = target(&r, 0, "fx-hog-at-start");
    assert_eq!(hog["status"], "start_failed");
    let p = hog["problem"].as_str().unwrap();
    assert!(p.contains("SIGKILL") && p.contains("memory cap"), "{p}");
    // The small box is fine for a small server.
    assert_eq!(target(&r, 0, "fx-good")["cold_start"]["ok"], 2);
}

#[test]
fn a_long_run_flags_a_leaking_server_and_not_a_steady_one() {
    let (r, dir) = run_e2e("leak", 0);
    let leak = &target(&r, 0, "fx-leak")["summary"]["leak"];
    assert_eq!(leak["verdict"], "growing", "{leak}");
    // A finding about the server, shown in the verdict but not a failure (exit 0 above).
    let findings = r["verdict"]["findings"].to_string();
    assert!(
        findings.contains("fx-leak: memory keeps growing"),
        "{findings}"
    );
    assert!(leak["trend"]["slope_mib_per_min"].as_f64().unwrap() > 10.0);
    let good = target(&r, 0, "fx-good");
    assert_ne!(good["summary"]["leak"]["verdict"], "growing");
    let series = good["trials"][0]["vitals"]["series"].as_array().unwrap();
    assert!(series.len() >= 2, "a point per second: {series:?}");
    let csv = std::fs::read_to_string(dir.path().join("memory-leak.csv")).unwrap();
    assert!(csv.starts_with("target,trial,t_s,cpu_pct,rss_mib"));
    assert!(csv.lines().any(|l| l.starts_with("fx-leak,1,")));
}

#[test]
fn a_load_sweep_runs_every_connection_count_and_writes_chart_data() {
    let (r, dir) = run_e2e("sweep", 0);
    assert_eq!(
        r["scenarios"][0]["connection_sweep"],
        serde_json::json!([2, 8])
    );
    let steps = target(&r, 0, "fx-good")["trials"][0]["sweep"]
        .as_array()
        .unwrap()
        .clone();
    let conns: Vec<u64> = steps
        .iter()
        .map(|s| s["connections"].as_u64().unwrap())
        .collect();
    assert_eq!(conns, vec![2, 8]);
    for s in &steps {
        assert!(s["achieved_rps"].as_f64().unwrap() > 0.0);
        assert!(s["p99_us"].as_u64().unwrap() > 0);
    }
    let csv = std::fs::read_to_string(dir.path().join("sweep-sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "header + 2 steps:\n{csv}");
}

#[test]
fn bad_realism_settings_are_refused_with_the_file_and_field() {
    let dir = fixture_copy();
    std::fs::write(
        dir.path().join("scenarios/e2e/bad.toml"),
        "workload = \"fixture\"\nconnection_sweep = [0]\n[[operations]]\nname = \"fixture/hello\"\n",
    )
    .unwrap();
    let out =
        run(bin()
            .args(["--root"])
            .arg(dir.path())
            .args(["run", "e2e", "--scenarios", "bad"]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("connection_sweep"),
        "{err}"
    );
    let out = run(bin().args(["--root"]).arg(fixtures()).args([
        "run",
        "e2e",
        "--scenarios",
        "hello",
        "--scale",
        "5",
    ]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--scale"));
}

#[test]
fn a_subscription_server_that_drops_connections_is_counted_and_reported() {
    let (r, dir) = run_e2e("subs", 1);
    let s = &r["scenarios"][0];
    assert_eq!(s["kind"], "subscriptions");
    let good = target(&r, 0, "fx-subs-good");
    let e = &good["trials"][0]["subscriptions"]["engine"];
    assert_eq!(
        good["trials"][0]["valid"], true,
        "{}",
        good["trials"][0]["problems"]
    );
    assert_eq!(e["connections"]["held_at_end"], 20);
    assert_eq!(e["missed"], 0);
    // 20 ticks a second over a 2 s window.
    let per_conn = e["per_connection"]["mean_per_s"].as_f64().unwrap();
    assert!((15.0..=25.0).contains(&per_conn), "{per_conn}");

    let drop = target(&r, 0, "fx-subs-drop");
    let trial = &drop["trials"][0];
    assert_eq!(trial["valid"], false);
    let e = &trial["subscriptions"]["engine"];
    assert!(e["connections"]["dropped"].as_u64().unwrap() >= 20, "{e}");
    assert_eq!(e["connections"]["held_at_end"], 0);
    assert!(trial["problems"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p.as_str().unwrap().contains("dropped")));
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("subscriptions over ws"), "{md}");
}
