//! End-to-end: the database scenarios against a real Node target and a real throwaway
//! PostgreSQL: naive and DataLoader resolvers give the same (checked) answers, the
//! database's own statistics count the queries, a database that dies mid-run is reported
//! and cleaned up, and missing binaries or a scale too big for the disk are refused clearly.
mod common;
use common::*;

/// Tests that look for leftover PostgreSQL processes must not overlap.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn postgres_available() -> bool {
    let ok = std::path::Path::new("/usr/lib/postgresql").is_dir()
        || std::env::var_os("GQLBENCH_PG_BIN").is_some();
    if !ok {
        eprintln!("skipped: PostgreSQL server binaries not installed (apt-get install postgresql)");
    }
    ok
}

fn db_run(scenarios: &str, extra: &[&str], out: &std::path::Path) -> std::process::Command {
    let mut c = bin();
    c.arg("--root")
        .arg(repo())
        .args([
            "run",
            "servers",
            "--scenarios",
            scenarios,
            "--targets",
            "graphql-jit",
        ])
        .args(["--trials", "1", "--warmup", "0s", "--json", "--out"])
        .arg(out)
        .args(extra);
    c
}

fn leftovers() -> Vec<String> {
    processes_with("gqlbench-pg-")
}

#[test]
fn naive_and_dataloader_answer_alike_and_the_database_counts_the_queries() {
    if !postgres_available() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(&mut db_run(
        "db-naive,db-dataloader",
        &["--duration", "1s"],
        out_dir.path(),
    ));
    assert!(out.status.success());
    let r = json(&out);
    let mut per_request = Vec::new();
    for s in r["scenarios"].as_array().unwrap() {
        let db = &s["database"];
        assert_eq!(db["scale"], 10_000);
        assert_eq!(db["rows"]["users"], 10_000);
        assert_eq!(db["rows"]["posts"], 100_000);
        assert!(db["server_version"].as_str().unwrap().contains('.'));
        let t = &s["targets"][0];
        // Every response was checked against the same expected answers.
        assert_eq!(t["status"], "ok", "{}: {}", s["name"], t["problem"]);
        assert_eq!(t["summary"]["valid"], true);
        assert_eq!(t["summary"]["failures"], 0);
        let d = &t["trials"][0]["database"];
        assert_eq!(d["db_alive"], true);
        assert!(d["queries"].as_u64().unwrap() > 0);
        per_request.push((
            s["name"].as_str().unwrap().to_string(),
            t["summary"]["db_queries_per_request"].as_f64().unwrap(),
        ));
    }
    // The medium query: 1 user + 1 posts + 10 comments + 50 authors naive; 4 batches.
    let get = |n: &str| per_request.iter().find(|(s, _)| s == n).unwrap().1;
    assert!((get("db-naive") - 62.0).abs() < 0.01, "{per_request:?}");
    assert!((get("db-dataloader") - 4.0).abs() < 0.01, "{per_request:?}");
    assert!(leftovers().is_empty(), "{:?}", leftovers());
}

#[test]
fn a_database_that_dies_mid_run_is_reported_and_cleaned_up() {
    if !postgres_available() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let child = db_run("db-naive", &["--duration", "6s"], out_dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the load to be under way, then kill the whole PostgreSQL server.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let results = out_dir.path().join("results.json");
    loop {
        let text = std::fs::read_to_string(&results).unwrap_or_default();
        if text.contains("\"log_file\"") && !leftovers().is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the run never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(2500));
    for pid in pids_with("gqlbench-pg-") {
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let gqlbench_pid = child.id();
    let out = child.wait_with_output().unwrap();
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        out.status.code(),
        Some(1),
        "the run goes on, ends normally, and fails: a trial is invalid"
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let t = &r["scenarios"][0]["targets"][0];
    let trial = &t["trials"][0];
    assert_eq!(trial["valid"], false);
    assert_eq!(trial["database"]["db_alive"], false);
    assert!(
        trial["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str().unwrap().contains("database stopped answering")),
        "{trial}"
    );
    assert!(
        trial["load"]["failed"].as_u64().unwrap() > 0,
        "the target's errors are counted"
    );
    assert!(leftovers().is_empty(), "{:?}", leftovers());
    let tmp = std::env::temp_dir();
    let stale: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with(&format!("gqlbench-pg-{gqlbench_pid}-")))
        .collect();
    assert!(stale.is_empty(), "the data folder was removed: {stale:?}");
}

#[test]
fn missing_postgres_binaries_skip_the_database_scenarios_with_the_install_command() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let empty = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(
        db_run("simple,db-naive", &["--duration", "1s"], out_dir.path())
            .env("GQLBENCH_PG_BIN", empty.path()),
    );
    assert!(out.status.success(), "the rest of the suite goes on");
    let r = json(&out);
    let by_name = |n: &str| {
        r["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("simple")["targets"][0]["status"], "ok");
    let db = &by_name("db-naive")["targets"][0];
    // This machine lacks the server: skipped, not a failure of the target.
    assert_eq!(db["status"], "skipped");
    assert_eq!(r["verdict"]["exit_code"], 0);
    assert_eq!(r["verdict"]["skipped"].as_array().unwrap().len(), 1);
    let p = db["problem"].as_str().unwrap();
    assert!(
        p.contains("GQLBENCH_PG_BIN") && p.contains("apt-get install postgresql"),
        "{p}"
    );
}

#[test]
fn a_scale_that_cannot_fit_the_disk_is_refused_before_anything_starts() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(&mut db_run(
        "db-naive",
        &["--scale", "100000000000"],
        out_dir.path(),
    ));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--scale"), "{err}");
    assert!(err.contains("free") || err.contains("space"), "{err}");
    assert!(!out_dir.path().join("results.json").exists(), "nothing ran");
}

#[test]
fn ctrl_c_during_a_database_scenario_saves_results_and_removes_the_database() {
    if !postgres_available() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let child = db_run("db-dataloader", &["--duration", "20s"], out_dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    // Interrupt once the target is measuring against the database.
    let results = out_dir.path().join("results.json");
    while !std::fs::read_to_string(&results)
        .unwrap_or_default()
        .contains("\"log_file\"")
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(2000));
    assert!(!leftovers().is_empty(), "the database runs");
    let gqlbench_pid = child.id();
    unsafe { libc::kill(gqlbench_pid as i32, libc::SIGINT) };
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
    assert!(leftovers().is_empty(), "{:?}", leftovers());
    let stale = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("gqlbench-pg-{gqlbench_pid}-"))
        });
    assert!(!stale, "the data folder was removed");
}
