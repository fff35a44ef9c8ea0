//! End-to-end: targets that misbehave are reported as such, the rest of the suite goes on,
//! results are saved, and no child process outlives the run.
mod common;
use common::*;

/// Both tests look for leftover fixture processes, so they must not overlap.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn every_kind_of_misbehaving_target_is_reported_and_the_run_goes_on() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .args(["--root"])
        .arg(fixtures())
        .args(["run", "e2e", "--scenarios", "hello", "--json", "--out"])
        .arg(out_dir.path()));
    assert_eq!(
        out.status.code(),
        Some(1),
        "the run goes on to the end, then fails: targets failed"
    );
    let r = json(&out);
    assert_eq!(r["status"], "complete");
    // Every misbehaving target is a failure of the verdict; the good ones are not.
    let failures = r["verdict"]["failures"].as_array().unwrap();
    for bad in [
        "fx-errors",
        "fx-wrong",
        "fx-crash",
        "fx-never-ready",
        "fx-exit-at-start",
        "fx-degrade",
    ] {
        assert!(
            failures
                .iter()
                .any(|f| f.as_str().unwrap().contains(&format!(" {bad}: "))),
            "{bad} not in {failures:?}"
        );
    }
    assert!(!failures
        .iter()
        .any(|f| f.as_str().unwrap().contains("fx-good")));

    let good = target(&r, 0, "fx-good");
    assert_eq!(good["status"], "ok");
    assert_eq!(good["summary"]["valid"], true);
    assert!(good["summary"]["rps"]["median"].as_f64().unwrap() > 0.0);
    assert_eq!(good["summary"]["failures"], 0);
    let trial = &good["trials"][0];
    assert!(trial["load"]["requests"].as_u64().unwrap() > 0);
    assert!(
        trial["generator"]["cpu_s"].as_f64().unwrap() > 0.0,
        "generator CPU measured"
    );
    assert!(
        trial["vitals"]["cpu_avg_pct"].as_f64().unwrap() > 0.0,
        "target CPU measured"
    );
    assert!(good["rss_idle_bytes"].as_u64().unwrap() > 1_000_000);

    let chunked = target(&r, 0, "fx-chunked");
    assert_eq!(
        chunked["status"], "ok",
        "chunked responses are read and validated"
    );
    assert_eq!(chunked["summary"]["valid"], true);

    let errors = target(&r, 0, "fx-errors");
    assert_eq!(errors["status"], "wrong_answers");
    assert!(
        errors["problem"]
            .as_str()
            .unwrap()
            .contains("graphql_error"),
        "{}",
        errors["problem"]
    );
    assert!(
        errors["trials"].as_array().unwrap().is_empty(),
        "a wrong target is not measured"
    );

    let wrong = target(&r, 0, "fx-wrong");
    assert_eq!(wrong["status"], "wrong_answers");
    let p = wrong["problem"].as_str().unwrap();
    assert!(
        p.contains("wrong_data") && p.contains("wrld"),
        "one diff shown: {p}"
    );

    let crash = target(&r, 0, "fx-crash");
    assert_eq!(crash["status"], "crashed");
    assert!(crash["log_tail"]
        .as_str()
        .unwrap()
        .contains("crashing on purpose"));
    assert_eq!(crash["trials"][0]["valid"], false);
    assert_eq!(crash["summary"]["valid"], false);

    let never = target(&r, 0, "fx-never-ready");
    assert_eq!(never["status"], "not_ready");
    assert!(
        never["problem"].as_str().unwrap().contains("http_status"),
        "{}",
        never["problem"]
    );

    let exit = target(&r, 0, "fx-exit-at-start");
    assert_eq!(exit["status"], "start_failed");
    assert!(exit["log_tail"]
        .as_str()
        .unwrap()
        .contains("config file fixture.yaml missing"));

    let degrade = target(&r, 0, "fx-degrade");
    assert_eq!(degrade["status"], "ok", "it stayed up");
    assert_eq!(
        degrade["summary"]["valid"], false,
        "but a trial with failures is invalid"
    );
    assert!(
        degrade["summary"]["failures_by_kind"]["graphql_error"]
            .as_u64()
            .unwrap()
            > 0
    );

    // Only valid rows are ranked: good and chunked.
    let ranking = &r["scenarios"][0]["ranking"];
    let ranked = [
        ranking["fastest"].as_str().unwrap(),
        ranking["runner_up"].as_str().unwrap(),
    ];
    assert!(
        ranked.contains(&"fx-good") && ranked.contains(&"fx-chunked"),
        "{ranking}"
    );

    // Saved to disk, report written, nothing left running.
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.path().join("results.json")).unwrap())
            .unwrap();
    assert_eq!(
        saved["scenarios"][0]["targets"].as_array().unwrap().len(),
        8
    );
    let md = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
    assert!(
        md.contains("CRASHED") && md.contains("WRONG ANSWERS"),
        "{md}"
    );
    assert!(
        processes_with("_fixture/server.mjs").is_empty(),
        "orphans: {:?}",
        processes_with("_fixture/server.mjs")
    );
}

#[test]
fn ctrl_c_stops_children_and_keeps_partial_results() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let child = bin()
        .args(["--root"])
        .arg(fixtures())
        .args([
            "run",
            "e2e",
            "--scenarios",
            "hello",
            "--targets",
            "fx-good,fx-chunked",
            "--trials",
            "4",
            "--duration",
            "1s",
            "--out",
        ])
        .arg(out_dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the first trial is under way, then interrupt.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while processes_with("server.mjs good").is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // Into the second target's first trial or later: the first has a whole, valid trial.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.path().join("results.json")).unwrap())
            .unwrap();
    assert_eq!(saved["status"], "interrupted");
    assert!(out_dir.path().join("report.md").exists());
    // The target the interruption cut short is interrupted, and never called valid.
    let targets = saved["scenarios"][0]["targets"].as_array().unwrap();
    let cut: Vec<_> = targets
        .iter()
        .filter(|t| t["status"] == "interrupted")
        .collect();
    assert!(!cut.is_empty(), "{targets:?}");
    for t in &cut {
        assert_ne!(t["summary"]["valid"], true, "{}", t["name"]);
    }
    // One of them had completed (valid) trials before the cut: its summary was made while
    // it looked whole, and must not stay valid.
    assert!(
        cut.iter().any(|t| t["trials"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["valid"] == true)),
        "{targets:?}"
    );
    assert_eq!(saved["verdict"]["exit_code"], 130);
    assert!(processes_with("_fixture/server.mjs").is_empty());
}

#[test]
fn scenario_limits_are_applied_and_enforced() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .args(["--root"])
        .arg(fixtures())
        .args(["run", "e2e", "--scenarios", "limited", "--json", "--out"])
        .arg(out_dir.path()));
    assert!(out.status.success());
    let r = json(&out);
    let s = &r["scenarios"][0];
    let applied = s["limits"]["applied"].as_str().unwrap();
    if !applied.starts_with("cgroup") {
        // No writable cgroup hierarchy here: the report must say the limits were not enforced.
        assert!(applied.contains("NOT enforced"), "{applied}");
        eprintln!("cgroups not writable on this machine: {applied}");
        return;
    }
    assert!(
        applied.contains("cpu quota 0.20 cores") && applied.contains("memory cap 256 MiB"),
        "{applied}"
    );
    let t = target(&r, 0, "fx-good");
    assert_eq!(t["status"], "ok");
    let trial = &t["trials"][0];
    assert_eq!(trial["vitals"]["cpu_source"], "cgroup");
    let cpu = trial["vitals"]["cpu_avg_pct"].as_f64().unwrap();
    // The quota is 20% of a core; unthrottled this fixture uses ~100% under this load.
    assert!(cpu > 5.0 && cpu < 30.0, "cpu {cpu}% under a 20% quota");
}

#[test]
fn after_kill_9_no_target_is_left_and_the_next_run_removes_the_leftovers() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Both runs share one lock folder of their own, and one database folder in which a
    // database folder of a long-gone gqlbench is planted.
    let locks = tempfile::tempdir().unwrap();
    let db_dir = tempfile::tempdir().unwrap();
    // A pid above the kernel's maximum (4194304) is never alive.
    let stale_db = db_dir.path().join("gqlbench-pg-99999999-0");
    std::fs::create_dir_all(stale_db.join("data")).unwrap();
    let out1 = tempfile::tempdir().unwrap();
    let mut child = bin()
        .env("GQLBENCH_LOCK_DIR", locks.path())
        .args(["--root"])
        .arg(fixtures())
        .args(["run", "e2e", "--scenarios", "hello", "--targets", "fx-good"])
        .args(["--duration", "20s", "--out"])
        .arg(out1.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let mut target = None;
    wait_for(
        "the run's fixture target to start",
        std::time::Duration::from_secs(30),
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
        std::time::Duration::from_secs(10),
        || {
            std::fs::read(format!("/proc/{target}/cmdline"))
                .map(|c| c.is_empty())
                .unwrap_or(true)
        },
    );
    assert!(
        processes_with("_fixture/server.mjs").is_empty(),
        "orphans: {:?}",
        processes_with("_fixture/server.mjs")
    );

    let out2 = tempfile::tempdir().unwrap();
    let out = run(bin()
        .env("GQLBENCH_LOCK_DIR", locks.path())
        .env("GQLBENCH_PG_DIR", db_dir.path())
        .args(["--root"])
        .arg(fixtures())
        .args(["run", "e2e", "--scenarios", "hello", "--targets", "fx-good"])
        .args(["--json", "--out"])
        .arg(out2.path()));
    let e = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(2), "{e}");
    assert!(
        !stale_db.exists(),
        "the dead run's database folder is removed"
    );
    assert!(
        e.contains("removed leftovers of killed runs") && e.contains("gqlbench-pg-99999999-0"),
        "{e}"
    );
    let r = json(&out);
    let applied = r["scenarios"][0]["limits"]["applied"]
        .as_str()
        .unwrap_or("");
    if !applied.starts_with("cgroup v") {
        eprintln!("cgroups not writable on this machine ({applied}): cgroup sweep not checked");
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
