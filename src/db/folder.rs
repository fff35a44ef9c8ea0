//! The throwaway folder of a database (`gqlbench-pg-<pid>-<n>`), the removal of folders left
//! by a gqlbench that was killed, and the System V shared memory segment a killed server
//! leaves behind (PostgreSQL keeps a small one as an interlock; only a clean shutdown
//! removes it).
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::error::DbError;
use crate::sys::process::RunAs;

pub const PREFIX: &str = "gqlbench-pg-";

static NEXT: AtomicU64 = AtomicU64::new(0);

/// Create a new empty folder `<base>/gqlbench-pg-<pid>-<n>` (mode 0700).
pub fn create(base: &Path) -> Result<PathBuf> {
    fs::create_dir_all(base).with_context(|| format!("creating {}", base.display()))?;
    let pid = std::process::id();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("{PREFIX}{pid}-{n}"));
        match fs::create_dir(&dir) {
            Ok(()) => {
                fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
                    .with_context(|| format!("setting the mode of {}", dir.display()))?;
                return Ok(dir);
            }
            // Left by an earlier process with our pid (pids are reused): take the next n.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("creating {}", dir.display())),
        }
    }
}

/// The pid in a folder name `gqlbench-pg-<pid>-<n>`.
pub fn owner_pid(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, n) = rest.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether `pid` is a running process (a zombie has ended: only its exit status is left
/// for its parent to collect).
pub fn pid_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists; EPERM means it does.
    let rc = unsafe { libc::kill(pid, 0) };
    if rc != 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EPERM) {
        return false;
    }
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .and_then(|r| r.trim_start().chars().next());
    state != Some('Z') && state != Some('X')
}

/// Remove the folders in `base` whose gqlbench is no longer alive (it was SIGKILLed, so its
/// Drop never ran; the kernel already killed its server through the parent-death signal).
/// A folder whose server is somehow still running is left alone. Returns what was removed.
pub fn remove_stale(base: &Path) -> Vec<PathBuf> {
    let me = std::process::id() as i32;
    let Ok(rd) = fs::read_dir(base) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in rd.filter_map(|e| e.ok()) {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(owner_pid) else {
            continue;
        };
        if pid == me || pid_alive(pid) {
            continue;
        }
        let dir = e.path();
        let pm = read_postmaster_pid(&dir.join("data"));
        if pm
            .as_ref()
            .is_some_and(|p| pid_alive(p.pid) && is_postgres(p.pid))
        {
            continue;
        }
        // Children of the killed postmaster end by themselves once they notice its death;
        // ending them now lets the folder (and the shared memory they hold) go at once.
        if !kill_processes_in(&dir, Duration::from_secs(3)) {
            continue;
        }
        if let Some(shm) = pm.and_then(|p| p.shm) {
            remove_shm(shm);
        }
        if fs::remove_dir_all(&dir).is_ok() {
            removed.push(dir);
        }
    }
    removed
}

/// Every process whose working folder is `dir` or inside it. PostgreSQL's processes all run
/// in their data folder, and each child of the postmaster is a session of its own (it calls
/// setsid), so this, not the postmaster's session, is how the whole server is found, even
/// children orphaned by a postmaster that was killed.
pub fn processes_in(dir: &Path) -> Vec<i32> {
    let dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let Ok(rd) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<i32> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            fs::read_link(format!("/proc/{pid}/cwd"))
                .map(|cwd| cwd.starts_with(&dir))
                .unwrap_or(false)
        })
        .collect();
    pids.sort_unstable();
    pids
}

/// SIGKILL every process running in `dir` until none is left (true) or `timeout` passes.
pub fn kill_processes_in(dir: &Path, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        let left = processes_in(dir);
        if left.is_empty() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        for pid in left {
            // SAFETY: kill has no memory preconditions; the pid runs in a gqlbench folder.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn is_postgres(pid: i32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|c| c.trim().starts_with("postgres"))
        .unwrap_or(false)
}

/// What `postmaster.pid` says about a running (or killed) server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostmasterPid {
    pub pid: i32,
    /// System V shared memory (key, id).
    pub shm: Option<(i64, i32)>,
}

/// Parse `<data>/postmaster.pid`: line 1 the pid, line 7 "<shm key> <shm id>".
pub fn read_postmaster_pid(data: &Path) -> Option<PostmasterPid> {
    let text = fs::read_to_string(data.join("postmaster.pid")).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let pid = lines.first()?.trim().parse().ok()?;
    let shm = lines.get(6).and_then(|l| {
        let mut it = l.split_whitespace();
        Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
    });
    Some(PostmasterPid { pid, shm })
}

/// Remove a server's System V segment once nothing is attached to it (checked with the key,
/// so a reused id of someone else's segment is never touched).
pub fn remove_shm((key, id): (i64, i32)) -> bool {
    // SAFETY: shmctl IPC_STAT writes into a struct we own; IPC_RMID takes no buffer.
    unsafe {
        let mut ds: libc::shmid_ds = std::mem::zeroed();
        if libc::shmctl(id, libc::IPC_STAT, &mut ds) != 0 {
            return false;
        }
        if i64::from(ds.shm_perm.__key) != key || ds.shm_nattch != 0 {
            return false;
        }
        libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) == 0
    }
}

/// Check that `user` can enter every folder from `/` down to `dir` (the server runs as that
/// user and must reach its data folder). Only the primary group counts: the server is started
/// with that group alone.
pub fn check_reachable(dir: &Path, user: &RunAs) -> Result<(), DbError> {
    for d in dir.ancestors() {
        let Ok(m) = fs::metadata(d) else {
            continue;
        };
        let mode = m.mode();
        let bit = if m.uid() == user.uid {
            0o100
        } else if m.gid() == user.gid {
            0o010
        } else {
            0o001
        };
        if mode & bit == 0 {
            return Err(DbError::FolderNotReachable {
                dir: d.to_path_buf(),
                user: user.name.clone(),
                mode: mode & 0o7777,
            });
        }
    }
    Ok(())
}

/// Bytes on disk under `dir` (allocated blocks, like `du`).
pub fn disk_usage(dir: &Path) -> u64 {
    let Ok(m) = fs::symlink_metadata(dir) else {
        return 0;
    };
    let mut total = m.blocks() * 512;
    if m.is_dir() {
        if let Ok(rd) = fs::read_dir(dir) {
            for e in rd.filter_map(|e| e.ok()) {
                total += disk_usage(&e.path());
            }
        }
    }
    total
}

/// Bytes free for an ordinary user in the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .with_context(|| format!("{} is not a valid path", dir.display()))?;
    // SAFETY: statvfs writes into a struct we own.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(c.as_ptr(), &mut st) != 0 {
            return Err(std::io::Error::last_os_error())
                .with_context(|| format!("statvfs({})", dir.display()));
        }
        Ok(st.f_bavail as u64 * st.f_frsize as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_stale_folders() {
        assert_eq!(owner_pid("gqlbench-pg-123-4"), Some(123));
        assert_eq!(owner_pid("gqlbench-pg-123"), None);
        assert_eq!(owner_pid("gqlbench-pg-x-1"), None);
        let t = tempfile::tempdir().unwrap();
        // A pid above the kernel's maximum (4194304) is never alive.
        let dead = t.path().join("gqlbench-pg-99999999-0");
        fs::create_dir_all(dead.join("data")).unwrap();
        fs::write(dead.join("data/postmaster.pid"), "99999998\n/x\n").unwrap();
        let mine = create(t.path()).unwrap();
        let other = t.path().join("unrelated-1-2");
        fs::create_dir_all(&other).unwrap();
        let removed = remove_stale(t.path());
        assert_eq!(removed, vec![dead.clone()]);
        assert!(!dead.exists() && mine.exists() && other.exists());
    }

    #[test]
    fn postmaster_pid_file() {
        let t = tempfile::tempdir().unwrap();
        fs::write(
            t.path().join("postmaster.pid"),
            "4242\n/d\n1700000000\n5432\n/d\n127.0.0.1\n  5432001     32768\nready   \n",
        )
        .unwrap();
        let p = read_postmaster_pid(t.path()).unwrap();
        assert_eq!(p.pid, 4242);
        assert_eq!(p.shm, Some((5432001, 32768)));
    }

    #[test]
    fn usage_and_free_space() {
        let t = tempfile::tempdir().unwrap();
        fs::write(t.path().join("f"), vec![1u8; 100_000]).unwrap();
        assert!(disk_usage(t.path()) >= 100_000);
        assert!(free_bytes(t.path()).unwrap() > 0);
    }
}
