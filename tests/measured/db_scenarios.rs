//! End-to-end: the database scenarios against a real Node target and a real throwaway
//! PostgreSQL: naive and DataLoader resolvers give the same (checked) answers, the
//! database's own statistics count the queries, a database that dies mid-run is reported
//! and cleaned up, and missing binaries or a scale too big for the disk are refused clearly.
use std::time::Duration;

use crate::common::*;
use gqlbench::results::{RunStatus, TargetStatus};

/// Tests that look for leftover PostgreSQL processes must not overlap.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Whether the PostgreSQL server programs are here, found as gqlbench finds them
/// (`PgBinaries::locate`: GQLBENCH_PG_BIN, PATH, then Debian's folder). When they are not,
/// the test skips, saying so; under GQLBENCH_CI=1 it fails.
fn postgres_available() -> bool {
    let found = gqlbench::db::PgBinaries::locate();
    let missing = match &found {
        Ok(_) => String::new(),
        Err(e) => format!("PostgreSQL server programs not found: {e}"),
    };
    require(found.is_ok(), &missing)
}

/// One trial of `scenarios` against graphql-jit, JSON on stdout.
fn db_run(scenarios: &str, out: &std::path::Path) -> Gqlbench {
    Gqlbench::run("servers")
        .root(repo())
        .scenarios(scenarios)
        .targets("graphql-jit")
        .trials(1)
        .warmup("0s")
        .json()
        .out(out)
}

fn leftovers() -> Vec<String> {
    processes_with("gqlbench-pg-")
}

/// Wait until the run writing to `out` measures its target (results.json names the
/// target's log file).
fn wait_for_measuring(out: &std::path::Path) {
    let results = out.join("results.json");
    wait_for("the run to start", Duration::from_secs(60), || {
        std::fs::read_to_string(&results)
            .unwrap_or_default()
            .contains("\"log_file\"")
    });
}

/// No data folder of the gqlbench `pid` is left in the temporary folder.
fn no_data_folder_of(pid: u32) -> bool {
    !std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("gqlbench-pg-{pid}-"))
        })
}

#[test]
fn naive_and_dataloader_answer_alike_and_the_database_counts_the_queries() {
    let _turn = file_turn(module_path!());
    if !postgres_available() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let out = db_run("db-naive,db-dataloader", out_dir.path())
        .duration("1s")
        .go();
    assert!(out.success());
    let r = out.results();
    let mut per_request = Vec::new();
    for s in &r.scenarios {
        let db = s.database.as_ref().expect("database info");
        assert_eq!(db.scale, 10_000);
        assert_eq!(db.rows["users"], 10_000);
        assert_eq!(db.rows["posts"], 100_000);
        assert!(db.server_version.contains('.'));
        let t = &s.targets[0];
        // Every response was checked against the same expected answers.
        assert_eq!(t.status, TargetStatus::Ok, "{}: {:?}", s.name, t.problem);
        let summary = t.summary.as_ref().unwrap();
        assert!(summary.valid);
        assert_eq!(summary.failures, 0);
        let d = t.trials[0].database.as_ref().expect("database usage");
        assert!(d.db_alive);
        assert!(d.queries > 0);
        per_request.push((s.name.clone(), summary.db_queries_per_request.unwrap()));
    }
    // The medium query: 1 user + 1 posts + 10 comments + 50 authors naive; 4 batches.
    let get = |n: &str| per_request.iter().find(|(s, _)| s == n).unwrap().1;
    assert!((get("db-naive") - 62.0).abs() < 0.01, "{per_request:?}");
    assert!((get("db-dataloader") - 4.0).abs() < 0.01, "{per_request:?}");
    assert_no_process("gqlbench-pg-");
}

#[test]
fn a_database_that_dies_mid_run_is_reported_and_cleaned_up() {
    let _turn = file_turn(module_path!());
    if !postgres_available() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let child = db_run("db-naive", out_dir.path()).duration("6s").spawn();
    // Wait for the load to be under way, then kill the whole PostgreSQL server.
    wait_for_measuring(out_dir.path());
    wait_for("the database", Duration::from_secs(60), || {
        !leftovers().is_empty()
    });
    std::thread::sleep(Duration::from_millis(2500));
    for pid in pids_with("gqlbench-pg-") {
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let gqlbench_pid = child.id();
    let out = Outcome::finish(child);
    assert_eq!(
        out.code,
        Some(1),
        "the run goes on, ends normally, and fails: a trial is invalid"
    );
    let r = out.results();
    let trial = &r.scenarios[0].targets[0].trials[0];
    assert!(!trial.valid);
    assert!(!trial.database.as_ref().unwrap().db_alive);
    assert!(
        trial
            .problems
            .iter()
            .any(|p| p.contains("database stopped answering")),
        "{trial:?}"
    );
    assert!(trial.load.failed > 0, "the target's errors are counted");
    assert_no_process("gqlbench-pg-");
    assert!(
        no_data_folder_of(gqlbench_pid),
        "the data folder was removed"
    );
}

#[test]
fn missing_postgres_binaries_skip_the_database_scenarios_with_the_install_command() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let empty = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = db_run("simple,db-naive", out_dir.path())
        .duration("1s")
        .env("GQLBENCH_PG_BIN", empty.path())
        .go();
    assert!(out.success(), "the rest of the suite goes on");
    let r = out.results();
    let by_name = |n: &str| r.scenarios.iter().find(|s| s.name == n).unwrap();
    assert_eq!(by_name("simple").targets[0].status, TargetStatus::Ok);
    let db = &by_name("db-naive").targets[0];
    // This machine lacks the server: skipped, not a failure of the target.
    assert_eq!(db.status, TargetStatus::Skipped);
    let verdict = r.verdict.as_ref().unwrap();
    assert_eq!(verdict.exit_code, 0);
    assert_eq!(verdict.skipped.len(), 1);
    let p = db.problem.as_deref().unwrap();
    assert!(
        p.contains("GQLBENCH_PG_BIN") && p.contains("apt-get install postgresql"),
        "{p}"
    );
}

#[test]
fn a_scale_that_cannot_fit_the_disk_is_refused_before_anything_starts() {
    let _turn = file_turn(module_path!());
    let out_dir = tempfile::tempdir().unwrap();
    let out = db_run("db-naive", out_dir.path())
        .args(["--scale", "100000000000"])
        .go();
    out.assert_exit(2);
    let err = &out.stderr;
    assert!(err.contains("--scale"), "{err}");
    assert!(err.contains("free") || err.contains("space"), "{err}");
    assert!(!out_dir.path().join("results.json").exists(), "nothing ran");
}

#[test]
fn ctrl_c_while_the_database_is_seeded_is_an_interruption_not_a_failed_start() {
    let _turn = file_turn(module_path!());
    if !postgres_available() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    // 100,000 users take ~10 s to seed: long enough to be interrupted in the middle.
    let child = db_run("db-naive", out_dir.path())
        .args(["--scale", "100000"])
        .duration("1s")
        .spawn();
    wait_for("PostgreSQL to start", Duration::from_secs(60), || {
        !leftovers().is_empty()
    });
    std::thread::sleep(Duration::from_millis(1500));
    let gqlbench_pid = child.id();
    unsafe { libc::kill(gqlbench_pid as i32, libc::SIGINT) };
    let out = Outcome::finish(child);
    out.assert_exit(130);
    let r = read_results(out_dir.path());
    assert_eq!(r.status, RunStatus::Interrupted);
    let t = &r.scenarios[0].targets[0];
    assert!(t.trials.is_empty(), "nothing was measured");
    assert_eq!(t.status, TargetStatus::Interrupted, "{:?}", t.problem);
    let md = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
    assert!(!md.contains("FAILED TO START"), "{md}");
    assert!(!md.contains("could not be started"), "{md}");
    assert_no_process("gqlbench-pg-");
    assert!(
        no_data_folder_of(gqlbench_pid),
        "the data folder was removed"
    );
}

#[test]
fn ctrl_c_during_a_database_scenario_saves_results_and_removes_the_database() {
    let _turn = file_turn(module_path!());
    if !postgres_available() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = tempfile::tempdir().unwrap();
    let child = db_run("db-dataloader", out_dir.path())
        .duration("20s")
        .spawn();
    // Interrupt once the target is measuring against the database.
    wait_for_measuring(out_dir.path());
    std::thread::sleep(Duration::from_millis(2000));
    assert!(!leftovers().is_empty(), "the database runs");
    let gqlbench_pid = child.id();
    unsafe { libc::kill(gqlbench_pid as i32, libc::SIGINT) };
    Outcome::finish(child).assert_exit(130);
    assert_eq!(read_results(out_dir.path()).status, RunStatus::Interrupted);
    assert_no_process("gqlbench-pg-");
    assert!(
        no_data_folder_of(gqlbench_pid),
        "the data folder was removed"
    );
}
