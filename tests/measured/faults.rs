//! End-to-end: targets that misbehave are reported as such, the rest of the suite goes on,
//! results are saved, and no child process outlives the run.
use std::time::Duration;

use crate::common::*;
use gqlbench::results::{RunStatus, TargetStatus};

/// Both tests look for leftover fixture processes, so they must not overlap.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `run e2e --scenarios SCENARIO` on the fixture catalogue.
fn e2e(scenario: &str) -> Gqlbench {
    Gqlbench::run("e2e").root(fixtures()).scenarios(scenario)
}

#[test]
fn every_kind_of_misbehaving_target_is_reported_and_the_run_goes_on() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let out = e2e("hello").json().out(out_dir.path()).go();
    assert_eq!(
        out.code,
        Some(1),
        "the run goes on to the end, then fails: targets failed"
    );
    let r = out.results();
    assert_eq!(r.status, RunStatus::Complete);
    // Every misbehaving target is a failure of the verdict; the good ones are not.
    let failures = &r.verdict.as_ref().expect("a verdict").failures;
    for bad in [
        "fx-errors",
        "fx-wrong",
        "fx-crash",
        "fx-never-ready",
        "fx-exit-at-start",
        "fx-degrade",
    ] {
        assert!(
            failures.iter().any(|f| f.contains(&format!(" {bad}: "))),
            "{bad} not in {failures:?}"
        );
    }
    assert!(!failures.iter().any(|f| f.contains("fx-good")));

    let good = target(&r, 0, "fx-good");
    assert_eq!(good.status, TargetStatus::Ok);
    let summary = good.summary.as_ref().expect("a summary");
    assert!(summary.valid);
    assert!(summary.rps.median > 0.0);
    assert_eq!(summary.failures, 0);
    let trial = &good.trials[0];
    assert!(trial.load.requests > 0);
    assert!(trial.generator.cpu_s > 0.0, "generator CPU measured");
    assert!(
        trial.vitals.cpu_avg_pct.is_some_and(|c| c > 0.0),
        "target CPU measured"
    );
    assert!(good.rss_idle_bytes.unwrap() > 1_000_000);

    let chunked = target(&r, 0, "fx-chunked");
    assert_eq!(
        chunked.status,
        TargetStatus::Ok,
        "chunked responses are read and validated"
    );
    assert!(chunked.summary.as_ref().unwrap().valid);

    let errors = target(&r, 0, "fx-errors");
    assert_eq!(errors.status, TargetStatus::WrongAnswers);
    let p = errors.problem.as_deref().unwrap();
    assert!(p.contains("graphql_error"), "{p}");
    assert!(errors.trials.is_empty(), "a wrong target is not measured");

    let wrong = target(&r, 0, "fx-wrong");
    assert_eq!(wrong.status, TargetStatus::WrongAnswers);
    let p = wrong.problem.as_deref().unwrap();
    assert!(
        p.contains("wrong_data") && p.contains("wrld"),
        "one diff shown: {p}"
    );

    let crash = target(&r, 0, "fx-crash");
    assert_eq!(crash.status, TargetStatus::Crashed);
    assert!(crash
        .log_tail
        .as_deref()
        .unwrap()
        .contains("crashing on purpose"));
    assert!(!crash.trials[0].valid);
    let summary = crash.summary.as_ref().unwrap();
    assert!(!summary.valid);
    // The trial it died in measured the dying, not the target: the row shows no figures.
    assert_eq!(summary.rps.n, 0, "{:?}", summary.rps);

    let never = target(&r, 0, "fx-never-ready");
    assert_eq!(never.status, TargetStatus::NotReady);
    let p = never.problem.as_deref().unwrap();
    assert!(p.contains("http_status"), "{p}");

    let exit = target(&r, 0, "fx-exit-at-start");
    assert_eq!(exit.status, TargetStatus::StartFailed);
    assert!(exit
        .log_tail
        .as_deref()
        .unwrap()
        .contains("config file fixture.yaml missing"));

    let degrade = target(&r, 0, "fx-degrade");
    assert_eq!(degrade.status, TargetStatus::Ok, "it stayed up");
    let summary = degrade.summary.as_ref().unwrap();
    assert!(!summary.valid, "but a trial with failures is invalid");
    assert!(summary.failures_by_kind["graphql_error"] > 0);

    // Only valid rows are ranked: good and chunked.
    let ranking = r.scenarios[0].ranking.as_ref().expect("a ranking");
    let ranked = [ranking.fastest.as_str(), ranking.runner_up.as_str()];
    assert!(
        ranked.contains(&"fx-good") && ranked.contains(&"fx-chunked"),
        "{ranking:?}"
    );

    // Saved to disk, report written, nothing left running.
    let saved = read_results(out_dir.path());
    assert_eq!(saved.scenarios[0].targets.len(), 8);
    let md = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
    assert!(
        md.contains("CRASHED") && md.contains("WRONG ANSWERS"),
        "{md}"
    );
    assert_no_process("_fixture/server.mjs");
}

#[test]
fn ctrl_c_stops_children_and_keeps_partial_results() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    // One target after another, so that the first has whole trials when the second's is
    // cut (tests/measured/alternating.rs interrupts alternating rounds).
    let child = e2e("hello")
        .targets("fx-good,fx-chunked")
        .trials(4)
        .duration("1s")
        .arg("--one-at-a-time")
        .out(out_dir.path())
        .spawn();
    // Wait until the first trial is under way, then interrupt.
    wait_for("the first target to start", Duration::from_secs(20), || {
        !processes_with("server.mjs good").is_empty()
    });
    // Into the second target's first trial or later: the first has a whole, valid trial.
    std::thread::sleep(Duration::from_millis(2500));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    Outcome::finish(child).assert_exit(130);
    let saved = read_results(out_dir.path());
    assert_eq!(saved.status, RunStatus::Interrupted);
    assert!(out_dir.path().join("report.md").exists());
    // The target the interruption cut short is interrupted, and never called valid.
    let targets = &saved.scenarios[0].targets;
    let cut: Vec<_> = targets
        .iter()
        .filter(|t| t.status == TargetStatus::Interrupted)
        .collect();
    assert!(!cut.is_empty(), "{targets:?}");
    for t in &cut {
        assert_ne!(
            t.summary.as_ref().map(|s| s.valid),
            Some(true),
            "{}",
            t.name
        );
    }
    // One of them had completed (valid) trials before the cut: its summary was made while
    // it looked whole, and must not stay valid.
    assert!(
        cut.iter().any(|t| t.trials.iter().any(|x| x.valid)),
        "{targets:?}"
    );
    assert_eq!(saved.verdict.as_ref().unwrap().exit_code, 130);
    assert_no_process("_fixture/server.mjs");
}

#[test]
fn scenario_limits_are_applied_and_enforced() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let out = e2e("limited").json().out(out_dir.path()).go();
    assert!(out.success());
    let r = out.results();
    let applied = &r.scenarios[0].limits.applied;
    // "cgroup v1: ..." / "cgroup v2: ..." when applied; "cgroup not applied to ..." is not.
    let enforced = applied.starts_with("cgroup v");
    if !enforced {
        // No writable cgroup hierarchy here: the report must say the limits were not enforced.
        assert!(applied.contains("NOT enforced"), "{applied}");
    }
    if !require(
        enforced,
        &format!("cgroups not writable on this machine: {applied}"),
    ) {
        return;
    }
    assert!(
        applied.contains("cpu quota 0.20 cores") && applied.contains("memory cap 256 MiB"),
        "{applied}"
    );
    let t = target(&r, 0, "fx-good");
    assert_eq!(t.status, TargetStatus::Ok);
    let vitals = &t.trials[0].vitals;
    assert_eq!(vitals.cpu_source, "cgroup");
    let cpu = vitals
        .cpu_avg_pct
        .expect("the cgroup's CPU counter was read");
    // The quota is 20% of a core; unthrottled this fixture uses ~100% under this load.
    assert!(cpu > 5.0 && cpu < 30.0, "cpu {cpu}% under a 20% quota");
}

#[test]
fn after_kill_9_no_target_is_left_and_the_next_run_removes_the_leftovers() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Both runs share one lock folder of their own, and one database folder in which a
    // database folder of a long-gone gqlbench is planted.
    let locks = tempfile::tempdir().unwrap();
    let db_dir = tempfile::tempdir().unwrap();
    // A pid above the kernel's maximum (4194304) is never alive.
    let stale_db = db_dir.path().join("gqlbench-pg-99999999-0");
    std::fs::create_dir_all(stale_db.join("data")).unwrap();
    let good = e2e("hello")
        .targets("fx-good")
        .env("GQLBENCH_LOCK_DIR", locks.path());
    let out1 = tempfile::tempdir().unwrap();
    let mut child = good
        .clone()
        .duration("20s")
        .out(out1.path())
        .spawn_with(std::process::Stdio::null(), std::process::Stdio::null());
    let pid = child.id() as i32;
    let mut target = None;
    wait_for(
        "the run's fixture target to start",
        Duration::from_secs(30),
        || {
            target = pids_with("server.mjs good")
                .into_iter()
                .find(|p| parent_pid(*p) == Some(pid));
            target.is_some()
        },
    );
    let target = target.unwrap();
    // Its cgroups (none when cgroups are not writable here; checked below).
    let cgroups = cgroups_of(pid);

    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
    child.wait().unwrap();
    // The kernel ends the target through its parent-death signal (an ended process has an
    // empty command line while it waits to be reaped).
    wait_for(
        "the killed run's target to end",
        Duration::from_secs(10),
        || {
            std::fs::read(format!("/proc/{target}/cmdline"))
                .map(|c| c.is_empty())
                .unwrap_or(true)
        },
    );
    assert_no_process("_fixture/server.mjs");

    let out2 = tempfile::tempdir().unwrap();
    let out = good
        .env("GQLBENCH_PG_DIR", db_dir.path())
        .json()
        .out(out2.path())
        .go();
    let e = &out.stderr;
    assert_ne!(out.code, Some(2), "{e}");
    assert!(
        !stale_db.exists(),
        "the dead run's database folder is removed"
    );
    assert!(
        e.contains("removed leftovers of killed runs") && e.contains("gqlbench-pg-99999999-0"),
        "{e}"
    );
    let r = out.results();
    let applied = &r.scenarios[0].limits.applied;
    if !require(
        applied.starts_with("cgroup v"),
        &format!("cgroups not writable on this machine ({applied}): cgroup sweep not checked"),
    ) {
        return;
    }
    assert!(!cgroups.is_empty(), "the killed run had cgroups");
    assert!(
        e.contains(&format!("gqlbench.{pid}.fx-good.")),
        "the sweep names them: {e}"
    );
    let left: Vec<_> = cgroups.iter().filter(|d| d.exists()).collect();
    assert!(left.is_empty(), "cgroups of the killed run left: {left:?}");
    assert!(cgroups_of(pid).is_empty());
}

#[test]
fn a_rendered_config_reaches_the_target_and_an_unset_reference_fails_its_start_by_name() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let out = e2e("rendered-config")
        .warmup("200ms")
        .duration("1s")
        .trials(1)
        .json()
        .out(out_dir.path())
        .go();
    assert_eq!(
        out.code,
        Some(1),
        "one target fails to start: {}",
        out.stderr
    );
    let r = out.results();
    // The fixture listens on the port its config file gives: ready only if it was rendered.
    let good = target(&r, 0, "fx-rendered-config");
    assert_eq!(good.status, TargetStatus::Ok, "{:?}", good.problem);
    assert!(good.summary.as_ref().is_some_and(|s| s.valid));
    // The rendered copy stays with the run's logs, the reference replaced.
    let logs = out_dir.path().join("logs");
    let rendered: Vec<String> = std::fs::read_dir(&logs)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(
        rendered
            .iter()
            .any(|t| t.contains("port: ") && !t.contains("${env.")),
        "{rendered:?}"
    );
    let bad = target(&r, 0, "fx-config-unset");
    assert_eq!(bad.status, TargetStatus::StartFailed);
    let p = bad.problem.as_deref().unwrap_or_default();
    assert!(
        p.contains("${env.GQLBENCH_NOT_GIVEN}") && p.contains("fixture.yaml"),
        "{p}"
    );
}

#[test]
fn a_target_slower_than_a_probe_is_found_ready_or_named_as_slow() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Every answer takes 1.1 s, the readiness query's too: the first probe (1 s) goes
    // unanswered, the next waits longer and finds it ready; it is measured.
    let out_dir = tempfile::tempdir().unwrap();
    let out = e2e("slow-ready")
        .warmup("0s")
        .duration("1s")
        .json()
        .out(out_dir.path())
        .go();
    let r = out.results();
    let t = target(&r, 0, "fx-slow-all");
    assert_eq!(t.status, TargetStatus::Ok, "{:?}", t.problem);
    assert!(t.ready_s.is_some_and(|s| s >= 1.1), "{:?}", t.ready_s);
    // With 2 s to get ready it cannot be: the message names the probes' own timeout, and
    // raising start.ready_timeout (which lets them wait longer) is the fix.
    let cat = fixture_copy();
    let manifest = cat.path().join("targets/fx-slow-all/target.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("ready_timeout = \"10s\"", "ready_timeout = \"2s\""),
    )
    .unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("e2e")
        .root(cat.path())
        .scenarios("slow-ready")
        .duration("1s")
        .json()
        .out(out_dir.path())
        .go();
    out.assert_exit(1);
    let r = out.results();
    let t = target(&r, 0, "fx-slow-all");
    assert_eq!(t.status, TargetStatus::NotReady);
    let p = t.problem.as_deref().unwrap();
    assert!(
        p.contains("not ready after 2s: the readiness query { __typename } got no answer within the probe's own timeout (")
            && p.contains("raise start.ready_timeout"),
        "{p}"
    );
}
