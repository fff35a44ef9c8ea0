//! End-to-end: the server-realism measurements against fixture targets — depth limits,
//! cold starts (also one killed by its memory cap), a long run's leak verdict, and a load
//! sweep over connection counts.
use crate::common::*;
use gqlbench::results::{RunResults, RunStatus, ScenarioKind, TargetStatus};

/// The cold-start test checks that no fixture process is left, so runs must not overlap.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `run e2e --scenarios SCENARIO` on the fixture catalogue.
fn e2e(scenario: &str) -> Gqlbench {
    Gqlbench::run("e2e").root(fixtures()).scenarios(scenario)
}

/// Runs one fixture scenario; `code` is the exit code its verdict must give (findings such
/// as a depth limit or a leak are not failures; a target that never starts or drops its
/// subscriptions is).
fn run_e2e(scenario: &str, code: i32) -> (RunResults, tempfile::TempDir) {
    let (got, r, out_dir) = run_e2e_any(scenario);
    assert_eq!(got, Some(code), "the verdict of {scenario}");
    assert_eq!(r.verdict.as_ref().unwrap().exit_code as i32, code);
    (r, out_dir)
}

/// As `run_e2e`, the exit code returned instead of checked: for a test that must first see
/// whether its prerequisite (a memory cap) was there, since the verdict depends on it.
fn run_e2e_any(scenario: &str) -> (Option<i32>, RunResults, tempfile::TempDir) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let out = e2e(scenario).json().out(out_dir.path()).go();
    let r = out.results();
    assert_eq!(r.status, RunStatus::Complete);
    (out.code, r, out_dir)
}

/// The findings of the run's verdict.
fn findings(r: &RunResults) -> &[String] {
    &r.verdict.as_ref().unwrap().findings
}

#[test]
fn depth_limit_check_passes_with_a_limit_and_fails_visibly_without() {
    let _turn = file_turn(module_path!());
    let (r, dir) = run_e2e("depth", 0);
    assert_eq!(
        r.scenarios[0].by_kind.get(&gqlbench::kinds::depth::LIMIT),
        Some(10)
    );
    let limited = target(&r, 0, "fx-depth-limit");
    let d = limited.depth_check.as_ref().expect("a depth check");
    assert!(d.at_limit_ok, "{d:?}");
    assert!(d.over_limit_rejected, "{d:?}");
    assert_eq!(d.over_limit_status, Some(400));
    assert!(d.over_limit_detail.contains("exceeds the maximum 10"));
    // The deep query was measured too (execution time and memory).
    assert!(limited.summary.as_ref().unwrap().latency.p50_us > 0);

    let open = target(&r, 0, "fx-good");
    let d = open.depth_check.as_ref().expect("a depth check");
    assert!(d.at_limit_ok);
    assert!(!d.over_limit_rejected, "no limit: depth 11 answered");
    assert!(d.over_limit_detail.contains("no depth limit"));
    // A finding about the server, not a failure of the run (exit 0 above).
    let findings = findings(&r);
    assert!(
        findings
            .iter()
            .any(|f| f.contains("fx-good: depth limit 10")),
        "{findings:?}"
    );
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(
        md.contains("DEPTH LIMIT CHECK FAILED"),
        "visible in the report"
    );
    assert!(md.contains("ACCEPTED"));
}

#[test]
fn cold_starts_are_repeated_and_a_target_that_never_starts_is_reported() {
    let _turn = file_turn(module_path!());
    let (r, _dir) = run_e2e("cold", 1);
    assert_eq!(r.scenarios[0].kind, ScenarioKind::ColdStart);
    let good = target(&r, 0, "fx-good");
    assert_eq!(good.cold_starts.len(), 3);
    for s in &good.cold_starts {
        assert!(s.outcome.is_ok(), "{s:?}");
        let ready = s.ready_s.unwrap();
        assert!(ready > 0.0 && ready < 10.0);
        assert!(s.first_request_s.unwrap() > 0.0);
        assert!(s.rss_at_ready_bytes.unwrap() > 1_000_000);
    }
    let sum = good
        .by_kind
        .get(&gqlbench::kinds::cold_start::SUMMARY)
        .expect("a cold-start summary");
    assert_eq!(sum.ok, 3);
    assert_eq!(sum.ready_s.n, 3);
    let never = target(&r, 0, "fx-never-ready");
    assert_eq!(never.status, TargetStatus::StartFailed);
    assert_eq!(never.cold_starts.len(), 3);
    assert!(!never.by_kind.has(&gqlbench::kinds::cold_start::SUMMARY));
    assert!(never.problem.as_deref().unwrap().contains("not ready"));
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    assert_no_process("_fixture/server.mjs");
}

#[test]
fn a_server_that_cannot_start_under_the_memory_cap_is_reported_as_such() {
    let _turn = file_turn(module_path!());
    let (r, _dir) = run_e2e("cold-small", 0);
    let applied = &r.scenarios[0].limits.applied;
    if !require(
        applied.contains("memory cap"),
        &format!("no writable cgroup memory controller here (limits: {applied})"),
    ) {
        return;
    }
    let hog = target(&r, 0, "fx-hog-at-start");
    assert_eq!(hog.status, TargetStatus::StartFailed);
    let p = hog.problem.as_deref().unwrap();
    assert!(p.contains("SIGKILL") && p.contains("memory cap"), "{p}");
    // The small box is fine for a small server.
    let good = target(&r, 0, "fx-good")
        .by_kind
        .get(&gqlbench::kinds::cold_start::SUMMARY);
    assert_eq!(good.unwrap().ok, 2);
}

#[test]
fn a_long_run_flags_a_leaking_server_and_not_a_steady_one() {
    let _turn = file_turn(module_path!());
    let (r, dir) = run_e2e("leak", 0);
    let leak = target(&r, 0, "fx-leak").summary.as_ref().unwrap();
    let leak = leak.leak.as_ref().expect("a leak verdict");
    assert_eq!(leak.verdict, "growing", "{leak:?}");
    // A finding about the server, shown in the verdict but not a failure (exit 0 above).
    let findings = findings(&r);
    assert!(
        findings
            .iter()
            .any(|f| f.contains("fx-leak: memory keeps growing")),
        "{findings:?}"
    );
    assert!(leak.trend.slope_mib_per_min > 10.0);
    let good = target(&r, 0, "fx-good");
    let verdict = good.summary.as_ref().and_then(|s| s.leak.as_ref());
    assert_ne!(verdict.map(|l| l.verdict.as_str()), Some("growing"));
    let series = &good.trials[0].vitals.series;
    assert!(series.len() >= 2, "a point per second: {series:?}");
    let csv = std::fs::read_to_string(dir.path().join("memory-leak.csv")).unwrap();
    assert!(csv.starts_with("target,trial,t_s,cpu_pct,rss_mib"));
    assert!(csv.lines().any(|l| l.starts_with("fx-leak,1,")));
}

#[test]
fn a_load_sweep_runs_every_connection_count_and_writes_chart_data() {
    let _turn = file_turn(module_path!());
    let (r, dir) = run_e2e("sweep", 0);
    assert_eq!(r.scenarios[0].connection_sweep, Some(vec![2, 8]));
    let steps = target(&r, 0, "fx-good").trials[0]
        .sweep
        .as_ref()
        .expect("sweep steps");
    let conns: Vec<u32> = steps.iter().map(|s| s.connections.unwrap()).collect();
    assert_eq!(conns, vec![2, 8]);
    for s in steps {
        assert!(s.achieved_rps > 0.0);
        assert!(s.p99_us > 0);
    }
    let csv = std::fs::read_to_string(dir.path().join("sweep-sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "header + 2 steps:\n{csv}");
}

#[test]
fn bad_realism_settings_are_refused_with_the_file_and_field() {
    let _turn = file_turn(module_path!());
    let dir = fixture_copy();
    std::fs::write(
        dir.path().join("scenarios/e2e/bad.toml"),
        "workload = \"fixture\"\nconnection_sweep = [0]\n[[operations]]\nname = \"fixture/hello\"\n",
    )
    .unwrap();
    let out = Gqlbench::run("e2e").root(dir.path()).scenarios("bad").go();
    out.assert_exit(2);
    let err = &out.stderr;
    assert!(
        err.contains("bad.toml") && err.contains("connection_sweep"),
        "{err}"
    );
    let out = e2e("hello").args(["--scale", "5"]).go();
    out.assert_exit(2);
    assert!(out.stderr.contains("--scale"));
}

#[test]
fn a_subscription_server_that_drops_connections_is_counted_and_reported() {
    let _turn = file_turn(module_path!());
    let (r, dir) = run_e2e("subs", 1);
    assert_eq!(r.scenarios[0].kind, ScenarioKind::Subscriptions);
    let good = &target(&r, 0, "fx-subs-good").trials[0];
    assert!(good.valid, "{:?}", good.problems);
    let e = &good.subscriptions.as_ref().expect("subscriptions").engine;
    assert_eq!(e.connections.held_at_end, 20);
    assert_eq!(e.missed, 0);
    // 20 ticks a second over a 2 s window.
    let per_conn = e.per_connection.mean_per_s;
    assert!((15.0..=25.0).contains(&per_conn), "{per_conn}");

    let trial = &target(&r, 0, "fx-subs-drop").trials[0];
    assert!(!trial.valid);
    let e = &trial.subscriptions.as_ref().expect("subscriptions").engine;
    assert!(e.connections.dropped >= 20, "{e:?}");
    assert_eq!(e.connections.held_at_end, 0);
    assert!(trial.problems.iter().any(|p| p.contains("dropped")));
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("subscriptions over ws"), "{md}");
}

#[test]
fn a_server_killed_mid_run_by_its_memory_cap_is_reported_as_such() {
    let _turn = file_turn(module_path!());
    let (code, r, _dir) = run_e2e_any("leak-capped");
    let applied = &r.scenarios[0].limits.applied;
    if !require(
        applied.contains("memory cap"),
        &format!("no writable cgroup memory controller here (limits: {applied})"),
    ) {
        return;
    }
    assert_eq!(code, Some(1), "the verdict of leak-capped");
    assert_eq!(r.verdict.as_ref().unwrap().exit_code, 1);
    let leak = target(&r, 0, "fx-leak");
    assert_eq!(leak.status, TargetStatus::Crashed, "{:?}", leak.problem);
    let p = leak.problem.as_deref().unwrap();
    assert!(
        p.contains("killed (SIGKILL) under the 96 MiB memory cap: the OOM killer"),
        "{p}"
    );
    // The other target of the scenario is measured as usual.
    assert!(target(&r, 0, "fx-good")
        .summary
        .as_ref()
        .is_some_and(|s| s.valid));
}
