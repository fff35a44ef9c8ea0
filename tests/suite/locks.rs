//! End-to-end: one benchmark per CPU set at a time. A second run on CPUs a first one holds is
//! refused before it starts anything, naming the first; --force-concurrent runs anyway and
//! says so in its results; a SIGKILLed holder leaves no lock behind.
use crate::common;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::*;
use gqlbench::results::RunStatus;

/// A run of the good fixture target, its CPU locks in `locks` (shared by the processes of
/// this test, and only by them).
fn fixture_run(locks: &Path, out: &Path, duration: &str) -> Gqlbench {
    Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("hello")
        .targets("fx-good")
        .duration(duration)
        .out(out)
        .env("GQLBENCH_LOCK_DIR", locks)
}

/// The PIDs the CPU lock files in `dir` name as their holders.
fn lock_holders(dir: &Path) -> Vec<i64> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("cpu"))
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path()).ok()?;
            serde_json::from_str::<serde_json::Value>(&text).ok()?["pid"].as_i64()
        })
        .collect()
}

#[test]
fn a_second_run_on_the_same_cpus_is_refused_until_the_first_is_gone() {
    let locks = tempfile::tempdir().unwrap();
    let out1 = tempfile::tempdir().unwrap();
    let mut first =
        fixture_run(locks.path(), out1.path(), "60s").spawn_with(Stdio::null(), Stdio::null());
    let first_pid = first.id() as i64;
    wait_for(
        "the first run to hold its CPUs",
        Duration::from_secs(30),
        || {
            let h = lock_holders(locks.path());
            !h.is_empty() && h.iter().all(|p| *p == first_pid)
        },
    );

    // Same CPUs (the default split): refused at once, naming the holder and the ways out.
    let out2 = tempfile::tempdir().unwrap();
    let o = fixture_run(locks.path(), out2.path(), "1s").go();
    o.assert_exit(2);
    let e = &o.stderr;
    assert!(
        e.contains(&format!("held by PID {first_pid} (`gqlbench")) && e.contains(" run e2e "),
        "{e}"
    );
    assert!(
        e.contains("--generator-cpus/--target-cpus") && e.contains("--force-concurrent"),
        "{e}"
    );
    assert!(
        std::fs::read_dir(out2.path()).unwrap().next().is_none(),
        "nothing was started or written"
    );

    // `load` meanwhile: it measures (a probe may share a machine knowingly), saying with
    // whom, and never takes the run's locks.
    let server = start_fixture_server("good");
    let q = fixtures().join("scenarios/queries/fixture/hello.graphql");
    let o = Gqlbench::load(&server.url, &q)
        .args(["-d", "300ms", "-c", "2"])
        .env("GQLBENCH_LOCK_DIR", locks.path())
        .go();
    o.assert_exit(0);
    assert!(
        o.stderr.contains("another benchmark is using this machine")
            && o.stderr.contains(&format!("PID {first_pid}")),
        "{}",
        o.stderr
    );
    assert!(lock_holders(locks.path()).iter().all(|p| *p == first_pid));

    // --force-concurrent: it runs, and its results say with whom it shared the CPUs.
    let out3 = tempfile::tempdir().unwrap();
    let o = fixture_run(locks.path(), out3.path(), "1s")
        .arg("--force-concurrent")
        .go();
    assert_ne!(o.code, Some(2));
    let r = read_results(out3.path());
    assert_eq!(r.status, RunStatus::Complete);
    let notes = r.isolation.notes.join("\n");
    assert!(
        notes.contains("--force-concurrent") && notes.contains(&format!("PID {first_pid}")),
        "{notes}"
    );
    let md = std::fs::read_to_string(out3.path().join("report.md")).unwrap();
    assert!(
        md.contains("--force-concurrent"),
        "the report shows the note"
    );
    // The forced run never took the busy locks: they still name the first run.
    assert!(lock_holders(locks.path()).iter().all(|p| *p == first_pid));

    // SIGKILL: no Drop runs, but the kernel releases flock, so the next run goes ahead.
    unsafe {
        libc::kill(first_pid as i32, libc::SIGKILL);
    }
    first.wait().unwrap();
    let out4 = tempfile::tempdir().unwrap();
    let o = fixture_run(locks.path(), out4.path(), "1s").go();
    let e = &o.stderr;
    assert_ne!(o.code, Some(2), "{e}");
    assert!(!e.contains("another benchmark"), "{e}");
    assert!(out4.path().join("results.json").exists());
}
