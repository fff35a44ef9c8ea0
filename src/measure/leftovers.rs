//! Leftovers of gqlbench processes that were killed (SIGKILL, the OOM killer) before their
//! Drop guards ran: the cgroups `gqlbench.<pid>.<target>.<port>` made for their targets, and
//! the folders `gqlbench-pg-<pid>-<n>` of their databases. Their target processes are gone
//! already (the kernel kills them through the parent-death signal), but the cgroups would
//! stay until reboot and a database folder until the next database run. `sweep` removes
//! them at the start of every command that pins and starts targets, touching only what
//! belongs to a PID that is no longer running.
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::db::folder::pid_alive;

/// What a sweep removed, and what it had to leave.
#[derive(Debug, Default)]
pub struct Swept {
    /// Cgroup directories removed (v1: one per controller hierarchy).
    pub cgroups: Vec<PathBuf>,
    /// Processes that were still inside them, killed first.
    pub killed: usize,
    pub db_folders: Vec<PathBuf>,
    /// Leftovers that could not be removed, with the reason.
    pub failed: Vec<String>,
}

impl Swept {
    /// One line for stderr, or None when there was nothing to remove.
    pub fn line(&self) -> Option<String> {
        let mut parts = Vec::new();
        if !self.cgroups.is_empty() {
            let mut names: Vec<String> = self
                .cgroups
                .iter()
                .filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            names.sort();
            names.dedup();
            parts.push(format!(
                "cgroup{} {}{}",
                if names.len() == 1 { "" } else { "s" },
                names.join(", "),
                if self.killed > 0 {
                    format!(" ({} process(es) still inside killed)", self.killed)
                } else {
                    String::new()
                }
            ));
        }
        if !self.db_folders.is_empty() {
            parts.push(format!(
                "database folder{} {}",
                if self.db_folders.len() == 1 { "" } else { "s" },
                self.db_folders
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        (!parts.is_empty()).then(|| {
            format!(
                "gqlbench: removed leftovers of killed runs: {}",
                parts.join("; ")
            )
        })
    }
}

/// Remove the cgroups and database folders (in `db_base`, where a database run of this
/// command would make its folder) of gqlbench processes that are no longer running, and
/// say on stderr what was removed.
pub fn sweep_and_report(db_base: &Path) -> Swept {
    let s = sweep(db_base);
    if let Some(line) = s.line() {
        eprintln!("{line}");
    }
    for f in &s.failed {
        eprintln!("gqlbench: left a leftover of a killed run: {f}");
    }
    s
}

pub fn sweep(db_base: &Path) -> Swept {
    let mut s = Swept::default();
    let mut dead = Vec::new();
    for root in crate::sys::cgroup::hierarchy_mounts() {
        find_dead_cgroups(&root, 0, &mut dead);
    }
    // Every process still inside is ended before any directory is removed: in v1 the same
    // process sits in one directory per controller.
    let mut emptied = Vec::new();
    for dir in dead {
        match empty_cgroup(&dir, Duration::from_secs(3)) {
            Ok(n) => {
                s.killed += n;
                emptied.push(dir);
            }
            Err(e) => s.failed.push(format!("{}: {e}", dir.display())),
        }
    }
    for dir in emptied {
        match fs::remove_dir(&dir) {
            Ok(()) => s.cgroups.push(dir),
            // Removed meanwhile by another run's sweep.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => s.failed.push(format!("{}: {e}", dir.display())),
        }
    }
    s.db_folders = crate::db::folder::remove_stale(db_base);
    s
}

/// The PID in a cgroup name `gqlbench.<pid>.<target>.<port>` (see `session.rs`).
pub fn cgroup_owner(name: &str) -> Option<i32> {
    let rest = name.strip_prefix("gqlbench.")?;
    let (pid, rest) = rest.split_once('.')?;
    // A target name, then the port: at least one more dot.
    rest.rsplit_once('.')?.1.parse::<u16>().ok()?;
    pid.parse().ok().filter(|p| *p > 0)
}

/// Directories under `dir` named after a gqlbench process that is gone. Bounded depth:
/// cgroups are made beside the maker's own cgroup, which is never deep.
fn find_dead_cgroups(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    const MAX_DEPTH: usize = 8;
    let Ok(rd) = fs::read_dir(dir) else {
        return;
    };
    let me = std::process::id() as i32;
    for e in rd.filter_map(|e| e.ok()) {
        if !e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            continue;
        }
        let name = e.file_name();
        match name.to_str().and_then(cgroup_owner) {
            Some(pid) if pid != me && !pid_alive(pid) => out.push(e.path()),
            // A live run's: left alone, and nothing inside is ours to look at.
            Some(_) => {}
            None if depth < MAX_DEPTH => find_dead_cgroups(&e.path(), depth + 1, out),
            None => {}
        }
    }
}

/// SIGKILL what is still in the cgroup `dir` (a helper the parent-death signal did not
/// reach, e.g. a grandchild) until it is empty; returns how many were killed. A process of
/// another PID namespace is never touched: its PID numbers mean something else there, so
/// the "dead owner" may be alive in that namespace.
fn empty_cgroup(dir: &Path, timeout: Duration) -> Result<usize, String> {
    let own_ns = fs::read_link("/proc/self/ns/pid").ok();
    let deadline = Instant::now() + timeout;
    let mut killed = std::collections::BTreeSet::new();
    loop {
        let procs = match fs::read_to_string(dir.join("cgroup.procs")) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(killed.len()),
            Err(e) => return Err(format!("reading cgroup.procs: {e}")),
        };
        let pids: Vec<i32> = procs
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .filter(|p| *p > 0)
            .collect();
        if pids.is_empty() {
            return Ok(killed.len());
        }
        if Instant::now() > deadline {
            return Err(format!("processes {pids:?} still inside"));
        }
        for pid in pids {
            let ns = fs::read_link(format!("/proc/{pid}/ns/pid")).ok();
            if ns.is_none() || ns != own_ns {
                return Err(format!(
                    "process {pid} inside is not visible in this PID namespace; left alone"
                ));
            }
            // SAFETY: kill has no memory preconditions; the pid is in a cgroup named after
            // a gqlbench process that is gone.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            killed.insert(pid);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_pid_from_cgroup_names() {
        assert_eq!(cgroup_owner("gqlbench.123.fx-good.4567"), Some(123));
        // Target names may hold dots.
        assert_eq!(cgroup_owner("gqlbench.9.a.b.80"), Some(9));
        assert_eq!(cgroup_owner("gqlbench.123.fx-good"), None);
        assert_eq!(cgroup_owner("gqlbench.x.fx-good.1"), None);
        assert_eq!(cgroup_owner("other.123.a.1"), None);
    }

    #[test]
    fn only_folders_of_dead_owners_are_found() {
        let t = tempfile::tempdir().unwrap();
        // A pid above the kernel's maximum (4194304) is never alive.
        let dead = t.path().join("a/b/gqlbench.99999999.fx.4000");
        let alive = t
            .path()
            .join(format!("a/gqlbench.{}.fx.4001", std::process::id()));
        let other = t.path().join("a/gqlbench-notes");
        for d in [&dead, &alive, &other] {
            fs::create_dir_all(d).unwrap();
        }
        // Inside a leftover nothing is looked at (it is removed whole).
        fs::create_dir_all(dead.join("gqlbench.99999998.fx.4002")).unwrap();
        let mut found = Vec::new();
        find_dead_cgroups(t.path(), 0, &mut found);
        assert_eq!(found, vec![dead]);
    }

    #[test]
    fn the_line_names_what_was_removed() {
        assert_eq!(Swept::default().line(), None);
        let s = Swept {
            cgroups: vec![
                PathBuf::from("/sys/fs/cgroup/cpu/gqlbench.5.fx.1"),
                PathBuf::from("/sys/fs/cgroup/memory/gqlbench.5.fx.1"),
            ],
            db_folders: vec![PathBuf::from("/tmp/gqlbench-pg-5-0")],
            ..Default::default()
        };
        let l = s.line().unwrap();
        assert!(
            l.contains("cgroup gqlbench.5.fx.1;") && l.contains("/tmp/gqlbench-pg-5-0"),
            "{l}"
        );
    }
}
