//! Helpers for the end-to-end tests: run the real binary, read what it wrote.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary, with a CPU-lock folder of its own: the tests of one binary run in parallel
/// threads and many start a run with the default CPU split, which the machine-wide lock
/// would refuse (and checkouts tested side by side would block each other). Tests of the
/// lock itself set one GQLBENCH_LOCK_DIR for their processes after this.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gqlbench"));
    c.env("GQLBENCH_LOCK_DIR", fresh_lock_dir());
    c
}

/// `<target>/tmp/locks/<test pid>-<n>`; folders of test processes that have ended are
/// removed on the first call.
fn fresh_lock_dir() -> PathBuf {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    static CLEAN: std::sync::Once = std::sync::Once::new();
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("locks");
    CLEAN.call_once(|| {
        for e in std::fs::read_dir(&base).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name.split('-').next().unwrap_or("");
            if !pid.is_empty() && !Path::new("/proc").join(pid).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    });
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    base.join(format!("{}-{n}", std::process::id()))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> PathBuf {
    repo().join("tests/fixtures")
}

pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("running gqlbench");
    eprintln!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// (pid, command line) of every process whose command line contains `needle`, this test
/// process excepted.
fn scan(needle: &str) -> Vec<(i32, String)> {
    let me = std::process::id() as i32;
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|p| *p != me)
        .filter_map(|p| {
            let c = std::fs::read(format!("/proc/{p}/cmdline")).ok()?;
            Some((p, String::from_utf8_lossy(&c).replace('\0', " ")))
        })
        .filter(|(_, c)| c.contains(needle))
        .collect()
}

/// Command lines of processes containing `needle` (to prove no child outlives a run).
pub fn processes_with(needle: &str) -> Vec<String> {
    scan(needle).into_iter().map(|(_, c)| c).collect()
}

pub fn pids_with(needle: &str) -> Vec<i32> {
    scan(needle).into_iter().map(|(p, _)| p).collect()
}

pub fn target<'a>(
    results: &'a serde_json::Value,
    scenario: usize,
    name: &str,
) -> &'a serde_json::Value {
    results["scenarios"][scenario]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("target {name} missing"))
}

/// A copy of the fixture catalogue that a test may edit.
pub fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures(), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Poll `f` until it holds; panic naming `what` if it does not within `limit` (a bound
/// against hanging, not a measurement).
pub fn wait_for(what: &str, limit: std::time::Duration, mut f: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + limit;
    while !f() {
        assert!(
            std::time::Instant::now() < deadline,
            "gave up waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The parent of a process, from /proc (None once it has ended).
pub fn parent_pid(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(')')
        .next()?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Cgroup directories named `gqlbench.<pid>.*` anywhere under /sys/fs/cgroup.
pub fn cgroups_of(pid: i32) -> Vec<PathBuf> {
    fn walk(d: &Path, prefix: &str, depth: usize, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            if !e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                continue;
            }
            if e.file_name().to_string_lossy().starts_with(prefix) {
                out.push(e.path());
            } else if depth < 8 {
                walk(&e.path(), prefix, depth + 1, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        Path::new("/sys/fs/cgroup"),
        &format!("gqlbench.{pid}."),
        0,
        &mut out,
    );
    out
}
