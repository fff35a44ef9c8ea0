//! The processes and cgroups a run leaves (or must not leave) behind.
use std::path::{Path, PathBuf};

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

/// No process's command line contains `needle` (no child outlived a run); else fail
/// naming the ones left.
pub fn assert_no_process(needle: &str) {
    let left = processes_with(needle);
    assert!(left.is_empty(), "left running: {left:?}");
}

pub fn pids_with(needle: &str) -> Vec<i32> {
    scan(needle).into_iter().map(|(p, _)| p).collect()
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
