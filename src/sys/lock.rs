//! Machine-wide exclusion with flock(2): one lock file per CPU, so two benchmarks never pin
//! their generator or targets to the same CPU at once (each would publish about half the
//! throughput as valid), and one lock file per target folder, so two installs of one target
//! never run its install command (`npm ci`, a build) overlapping in the same folder.
//!
//! flock is released by the kernel when the holder's last descriptor closes, including when
//! the process is SIGKILLed, so no stale lock can ever block a later run. The files are
//! opened close-on-exec: a target or install command never inherits a lock. Each file also
//! holds a JSON description of its holder (PID, command line, what it locks), written after
//! the lock is taken and read by whoever finds it busy, to name the holder in the refusal.
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::cpus::CpuSet;
use crate::error::PlanError;
use crate::sys::cpus::IsolationPlan;

/// Overrides the folder of the CPU locks (tests isolate themselves with it).
pub const DIR_ENV: &str = "GQLBENCH_LOCK_DIR";
/// The usual place for lock files (a tmpfs emptied at boot, writable by every user, never
/// aged out by tmpfiles cleaners the way /tmp entries can be).
const SYSTEM_LOCK_DIR: &str = "/run/lock";
/// Where the locks go on a system without /run/lock.
const FALLBACK_DIR: &str = "/tmp/gqlbench-locks";

/// Who holds a lock: written into the lock file by its holder.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Holder {
    pub pid: i32,
    pub command: Vec<String>,
    /// What is locked, in words ("CPUs 0-1", "install of apollo-server").
    pub what: String,
    pub since: String,
}

impl Holder {
    pub fn me(what: String) -> Holder {
        Holder {
            pid: std::process::id() as i32,
            command: std::env::args().collect(),
            what,
            since: crate::units::now_rfc3339(),
        }
    }

    /// The holder's command line, shortened for a message: "gqlbench run servers".
    pub fn command_line(&self) -> String {
        let mut cmd = self.command.clone();
        if let Some(first) = cmd.first_mut() {
            // The full path of the binary says nothing a user needs here.
            if let Some(name) = Path::new(first.as_str()).file_name() {
                *first = name.to_string_lossy().into_owned();
            }
        }
        let cmd = cmd.join(" ");
        if cmd.chars().count() > 160 {
            cmd.chars().take(157).collect::<String>() + "..."
        } else {
            cmd
        }
    }

    /// "PID 123 (`gqlbench run servers`, since 2025-01-01T10:00:00Z)".
    pub fn describe(&self) -> String {
        format!(
            "PID {} (`{}`, since {})",
            self.pid,
            self.command_line(),
            self.since
        )
    }
}

/// A lock taken with flock; released when dropped (or when the process ends, however).
#[derive(Debug)]
pub struct Lock {
    file: File,
    pub path: PathBuf,
}

impl Lock {
    /// Take the lock at `path` (created if needed) without waiting: None when another
    /// process holds it.
    pub fn try_take(path: &Path) -> Result<Option<Lock>> {
        let file = open(path)?;
        loop {
            // SAFETY: flock on a descriptor we own.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if rc == 0 {
                return Ok(Some(Lock {
                    file,
                    path: path.to_path_buf(),
                }));
            }
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EWOULDBLOCK) => return Ok(None),
                _ => return Err(e).with_context(|| format!("flock({})", path.display())),
            }
        }
    }

    /// Write who holds the lock into its file, for whoever finds it busy. Best effort: a
    /// lock file opened read-only (made by another user) keeps the previous text.
    pub fn record(&mut self, holder: &Holder) {
        let Ok(text) = serde_json::to_vec(holder) else {
            return;
        };
        let _ = self.file.set_len(0);
        let _ = self.file.rewind();
        let _ = self.file.write_all(&text);
        let _ = self.file.flush();
    }
}

/// Open (or create) a lock file: world-writable, so a lock file made by root still records
/// the holder when a user runs next; never through a symbolic link (the folder may be shared
/// by every user of the machine).
fn open(path: &Path) -> Result<File> {
    let rw = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o666)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path);
    let file = match rw {
        Ok(f) => {
            // The umask narrowed the mode at creation; only the owner may widen it.
            let _ = f.set_permissions(std::fs::Permissions::from_mode(0o666));
            f
        }
        // Made by another user without write access for us: flock works on a read-only
        // descriptor too.
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .with_context(|| format!("opening the lock file {}", path.display()))?,
        Err(e) => {
            return Err(e).with_context(|| format!("opening the lock file {}", path.display()))
        }
    };
    Ok(file)
}

/// What the lock file at `path` says about its holder (None: unreadable or not written yet).
pub fn holder(path: &Path) -> Option<Holder> {
    let mut text = String::new();
    File::open(path).ok()?.read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
}

/// The folder of the CPU locks: $GQLBENCH_LOCK_DIR, else /run/lock/gqlbench, else
/// /tmp/gqlbench-locks. Created when missing; the shared default is made sticky and
/// world-writable (like /tmp) so every user's runs can lock there.
pub fn lock_dir() -> Result<PathBuf> {
    if let Some(d) = std::env::var_os(DIR_ENV).filter(|d| !d.is_empty()) {
        let d = PathBuf::from(d);
        std::fs::create_dir_all(&d).with_context(|| {
            format!(
                "creating the lock folder {} (from ${DIR_ENV}); point ${DIR_ENV} at a writable folder",
                d.display()
            )
        })?;
        return Ok(d);
    }
    let d = if Path::new(SYSTEM_LOCK_DIR).is_dir() {
        Path::new(SYSTEM_LOCK_DIR).join("gqlbench")
    } else {
        PathBuf::from(FALLBACK_DIR)
    };
    match std::fs::create_dir(&d) {
        Ok(()) => {
            let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o1777));
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(e).with_context(|| {
                format!(
                    "creating the lock folder {}; set ${DIR_ENV} to a writable folder",
                    d.display()
                )
            })
        }
    }
    // A symbolic link planted in a shared folder could send our writes elsewhere.
    let m = std::fs::symlink_metadata(&d).with_context(|| format!("reading {}", d.display()))?;
    if !m.is_dir() {
        anyhow::bail!(
            "the lock folder {} is not a folder (a symbolic link?); remove it or set ${DIR_ENV}",
            d.display()
        );
    }
    Ok(d)
}

/// The CPUs a command uses: the generator's and the targets'; without pinning, every CPU
/// this process may run on (its children may run anywhere there).
pub fn cpus_used(iso: &IsolationPlan) -> Vec<usize> {
    let mut cpus: Vec<usize> = iso
        .generator
        .iter()
        .chain(iso.target.iter())
        .flat_map(|s| s.0.iter().copied())
        .collect();
    if cpus.is_empty() {
        cpus = crate::sys::cpus::allowed_cpus();
    }
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}

/// The CPU locks of one run, held until dropped.
#[derive(Debug)]
pub struct CpuLocks {
    pub held: Vec<Lock>,
    /// With --force-concurrent: who else was using our CPUs (for the report's isolation
    /// notes).
    pub notes: Vec<String>,
}

/// Lock every CPU `iso` uses, before anything starts. A CPU locked by another process is
/// refused at once (exit 2) naming that process and the ways out, unless `force`: then the
/// run goes on and `notes` says who shares its CPUs.
pub fn lock_cpus(iso: &IsolationPlan, force: bool) -> Result<CpuLocks> {
    let dir = lock_dir()?;
    let cpus = cpus_used(iso);
    let what = format!("CPUs {}", CpuSet(cpus.clone()).display());
    let (mut held, holders) = take_cpus(&dir, &cpus)?;
    let me = Holder::me(what);
    if holders.is_empty() {
        for l in &mut held {
            l.record(&me);
        }
        return Ok(CpuLocks {
            held,
            notes: Vec::new(),
        });
    }
    if !force {
        drop(held);
        return Err(PlanError::Busy {
            holders: holders.join("; "),
            locks: dir.to_path_buf(),
        }
        .into());
    }
    for l in &mut held {
        l.record(&me);
    }
    let note = format!(
        "--force-concurrent: this run shared CPUs with another benchmark ({}), so its figures include that competition",
        holders.join("; ")
    );
    eprintln!("gqlbench: {note}");
    Ok(CpuLocks {
        held,
        notes: vec![note],
    })
}

/// The locks of `cpus` that are free, and who holds each of the others ("CPU 1 held by PID
/// …"), one line per holder.
fn take_cpus(dir: &Path, cpus: &[usize]) -> Result<(Vec<Lock>, Vec<String>)> {
    let mut held = Vec::new();
    // Holder (by PID; None when its file names nobody yet) -> the CPUs it holds.
    let mut busy: BTreeMap<Option<i32>, (Option<Holder>, Vec<usize>)> = BTreeMap::new();
    // Ascending order, so two runs asking for overlapping sets never each hold a part the
    // other one waits for (neither waits anyway; this only keeps refusals consistent).
    for &c in cpus {
        let path = dir.join(format!("cpu{c}.lock"));
        match Lock::try_take(&path)? {
            Some(l) => held.push(l),
            None => {
                let h = holder(&path);
                busy.entry(h.as_ref().map(|h| h.pid))
                    .or_insert_with(|| (h, Vec::new()))
                    .1
                    .push(c);
            }
        }
    }
    let holders = busy
        .values()
        .map(|(h, cs)| {
            format!(
                "CPU{} {} held by {}",
                if cs.len() == 1 { "" } else { "s" },
                CpuSet(cs.clone()).display(),
                h.as_ref()
                    .map(Holder::describe)
                    .unwrap_or_else(|| "another process (its lock file names no holder yet)".into())
            )
        })
        .collect();
    Ok((held, holders))
}

/// `load`'s CPUs (its generator's, or every allowed one): the free ones locked for as long
/// as the result is held, so a run started meanwhile is refused as it would be by another
/// run; a warning (to print) naming who holds the others, since `load` is a probe that may
/// share a machine knowingly, but must not do so unseen.
pub fn lock_for_load(generator: Option<&CpuSet>) -> Result<(Vec<Lock>, Option<String>)> {
    let dir = lock_dir()?;
    let mut cpus = generator.map_or_else(crate::sys::cpus::allowed_cpus, |g| g.0.clone());
    cpus.sort_unstable();
    cpus.dedup();
    let (mut held, holders) = take_cpus(&dir, &cpus)?;
    let me = Holder::me(format!("load on CPUs {}", CpuSet(cpus).display()));
    for l in &mut held {
        l.record(&me);
    }
    let warning = (!holders.is_empty()).then(|| {
        format!(
            "another benchmark is using this machine ({}): this load and its figures disturb each other",
            holders.join("; ")
        )
    });
    Ok((held, warning))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_is_exclusive_between_descriptors_and_names_its_holder() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("x.lock");
        let mut a = Lock::try_take(&p).unwrap().expect("free at first");
        a.record(&Holder::me("CPUs 0".into()));
        // flock conflicts between open file descriptions even within one process, which
        // is what lets this test stand in for a second process.
        assert!(Lock::try_take(&p).unwrap().is_none(), "busy while held");
        let h = holder(&p).unwrap();
        assert_eq!(h.pid, std::process::id() as i32);
        assert!(h.describe().starts_with(&format!("PID {} (`", h.pid)));
        drop(a);
        assert!(Lock::try_take(&p).unwrap().is_some(), "free once dropped");
    }

    #[test]
    fn cpus_used_is_the_union_or_every_allowed_cpu() {
        let iso = IsolationPlan {
            generator: Some(CpuSet(vec![0, 2])),
            target: Some(CpuSet(vec![2, 3])),
            cgroups: true,
            notes: vec![],
        };
        assert_eq!(cpus_used(&iso), vec![0, 2, 3]);
        let unpinned = IsolationPlan {
            generator: None,
            target: None,
            cgroups: true,
            notes: vec![],
        };
        assert_eq!(cpus_used(&unpinned), crate::sys::cpus::allowed_cpus());
    }
}
