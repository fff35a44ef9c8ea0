//! Target processes: each started in its own session (setsid) and process group, pinned to
//! the target CPU set, optionally inside a cgroup, with its output in a log file; stopped by
//! group (SIGTERM, then SIGKILL), and never left behind: the guard kills on drop and the
//! kernel kills the child if gqlbench itself dies (PR_SET_PDEATHSIG).
use std::collections::BTreeMap;
use std::ffi::CString;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::cpus::CpuSet;
use super::procfs;

pub struct SpawnSpec<'a> {
    pub program: &'a [String],
    pub cwd: &'a Path,
    pub env: BTreeMap<String, String>,
    pub log: PathBuf,
    pub cpus: Option<CpuSet>,
    pub cgroup_procs: Vec<PathBuf>,
}

/// The user a child runs as (set after fork, before exec). Needed for programs that refuse to
/// run as root, like PostgreSQL's `initdb` and `postgres`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunAs {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

impl RunAs {
    /// The system user `name` from the password database, or None when there is no such
    /// user (or the lookup failed).
    pub fn by_name(name: &str) -> Option<RunAs> {
        let cname = CString::new(name).ok()?;
        let mut buf = vec![0u8; 16 * 1024];
        // SAFETY: getpwnam_r fills `pwd` with pointers into `buf`, which we own and keep
        // alive while reading; only the numeric ids are copied out.
        unsafe {
            let mut pwd: libc::passwd = std::mem::zeroed();
            let mut out: *mut libc::passwd = std::ptr::null_mut();
            let rc = libc::getpwnam_r(
                cname.as_ptr(),
                &mut pwd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut out,
            );
            if rc != 0 || out.is_null() {
                return None;
            }
            Some(RunAs {
                name: name.to_string(),
                uid: pwd.pw_uid,
                gid: pwd.pw_gid,
            })
        }
    }
}

pub struct TargetProcess {
    child: Option<Child>,
    pub pid: i32,
    pub log: PathBuf,
    exit: Option<ExitStatus>,
}

impl TargetProcess {
    pub fn spawn(spec: SpawnSpec<'_>) -> Result<TargetProcess> {
        Self::spawn_as(spec, None)
    }

    /// As `spawn`, and when `run_as` is given the child switches to that user and group
    /// (only the primary group) after joining the cgroup and pinning, which need the
    /// parent's rights, and before exec.
    pub fn spawn_as(spec: SpawnSpec<'_>, run_as: Option<&RunAs>) -> Result<TargetProcess> {
        let log =
            File::create(&spec.log).with_context(|| format!("creating {}", spec.log.display()))?;
        let log2 = log.try_clone()?;
        let mut cmd = Command::new(&spec.program[0]);
        cmd.args(&spec.program[1..])
            .current_dir(spec.cwd)
            .envs(&spec.env)
            .stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(log2));
        // Everything the child needs after fork is prepared here: no allocation happens
        // between fork and exec (the parent is multi-threaded).
        let cpu_set = spec.cpus.as_ref().map(CpuSet::to_libc);
        let procs: Vec<CString> = spec
            .cgroup_procs
            .iter()
            .filter_map(|p| CString::new(p.as_os_str().as_bytes()).ok())
            .collect();
        let creds = run_as.map(|r| (r.uid, r.gid));
        // SAFETY: the closure only calls async-signal-safe functions (setsid, prctl,
        // sched_setaffinity, open/write/close, getpid, setgroups/setgid/setuid) on memory
        // prepared before fork.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                for p in &procs {
                    let fd = libc::open(p.as_ptr(), libc::O_WRONLY);
                    if fd < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    let mut buf = [0u8; 16];
                    let n = fmt_pid(libc::getpid(), &mut buf);
                    let w = libc::write(fd, buf.as_ptr().cast(), n);
                    libc::close(fd);
                    if w < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                if let Some(set) = &cpu_set {
                    if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                if let Some((uid, gid)) = creds {
                    // Group first: once the uid is dropped we may no longer change groups.
                    if libc::setgroups(1, &gid) != 0
                        || libc::setgid(gid) != 0
                        || libc::setuid(uid) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    // The kernel clears the parent-death signal when credentials change, so
                    // it is set again for the new user.
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                }
                Ok(())
            });
        }
        let child = cmd.spawn().with_context(|| {
            format!(
                "starting `{}` in {}",
                spec.program.join(" "),
                spec.cwd.display()
            )
        })?;
        Ok(TargetProcess {
            pid: child.id() as i32,
            child: Some(child),
            log: spec.log,
            exit: None,
        })
    }

    /// None while running; the exit status once it has ended.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        if self.exit.is_none() {
            if let Some(c) = self.child.as_mut() {
                if let Ok(Some(st)) = c.try_wait() {
                    self.exit = Some(st);
                }
            }
        }
        self.exit
    }

    pub fn log_tail(&self, lines: usize) -> String {
        log_tail(&self.log, lines)
    }

    /// SIGTERM to the whole session, wait up to `grace`, then SIGKILL whatever is left.
    pub fn stop(&mut self, grace: Duration) {
        if self.child.is_none() {
            return;
        }
        signal_session(self.pid, libc::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            let leader_done = self.exited().is_some();
            if leader_done && procfs::session_members(self.pid).is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        signal_session(self.pid, libc::SIGKILL);
        if let Some(mut c) = self.child.take() {
            if self.exit.is_none() {
                let _ = c.kill();
                self.exit = c.wait().ok();
            }
        }
        // Members of the session that were not our direct child are reaped by init; wait
        // briefly until they are gone so the next target starts on a quiet CPU.
        let deadline = Instant::now() + Duration::from_secs(2);
        while !procfs::session_members(self.pid).is_empty() && Instant::now() < deadline {
            signal_session(self.pid, libc::SIGKILL);
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for TargetProcess {
    fn drop(&mut self) {
        self.stop(Duration::from_secs(2));
    }
}

/// Signal the process group, and every member of the session (a child may have moved to
/// another group).
fn signal_session(sid: i32, sig: i32) {
    // SAFETY: kill with a negative pid signals a process group; errors (ESRCH) are fine.
    unsafe {
        libc::kill(-sid, sig);
    }
    for p in procfs::session_members(sid) {
        // SAFETY: as above, for one pid.
        unsafe {
            libc::kill(p.pid, sig);
        }
    }
}

fn fmt_pid(pid: i32, buf: &mut [u8; 16]) -> usize {
    let mut digits = [0u8; 16];
    let mut n = pid.max(0) as u32;
    let mut i = 0;
    loop {
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        i += 1;
        if n == 0 {
            break;
        }
    }
    for j in 0..i {
        buf[j] = digits[i - 1 - j];
    }
    i
}

pub fn log_tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    all[start..].join("\n")
}

/// The last `lines` lines of the log of a command that failed, each prefixed `    | `, or,
/// when it wrote nothing, that its log is empty (a user sent to an empty log learns nothing
/// from it).
pub fn failure_log(path: &Path, lines: usize) -> String {
    let tail = log_tail(path, lines);
    if tail.trim().is_empty() {
        return format!(
            "its log {} is empty: the command failed without writing anything; run it by hand to see why",
            path.display()
        );
    }
    let shown: Vec<String> = tail.lines().map(|l| format!("    | {l}")).collect();
    format!("last lines of {}:\n{}", path.display(), shown.join("\n"))
}

/// A free port on 127.0.0.1 (bound and released; the target binds it right after).
///
/// Between the release and the target's bind the port is anybody's. Ports the kernel
/// hands to `bind(:0)` come from the ephemeral range, the same range every outgoing
/// connection's local port is taken from: a load test running beside the start (CI runs
/// tests in parallel) once took a target's port in that window (EADDRINUSE). So ports are
/// drawn from below the ephemeral range, where no connection is given a local port, at a
/// start that differs per process and call; the kernel's `bind(:0)` only when that range is
/// too small. A run asks for several ports before any is taken (four subgraphs, then the
/// gateway), so the ports handed out lately are remembered and never given twice within
/// this process.
pub fn free_port() -> Result<u16> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;
    static RECENT: Mutex<std::collections::VecDeque<u16>> =
        Mutex::new(std::collections::VecDeque::new());
    static CALLS: AtomicU64 = AtomicU64::new(0);
    const REMEMBERED: usize = 256;
    let mut recent = RECENT.lock().unwrap_or_else(|p| p.into_inner());
    let remember = |recent: &mut std::collections::VecDeque<u16>, port: u16| {
        if recent.len() == REMEMBERED {
            recent.pop_front();
        }
        recent.push_back(port);
    };
    let (low, _) = ephemeral_range();
    // Well above the ports services are commonly configured on (1024-10000).
    const FLOOR: u16 = 10_000;
    if low > FLOOR + 1_000 {
        let span = u64::from(low - FLOOR);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos() as u64)
            .unwrap_or(0);
        let seed = (u64::from(std::process::id()) << 20)
            ^ nanos
            ^ CALLS
                .fetch_add(1, Ordering::Relaxed)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // A multiplicative hash spreads neighbouring seeds over the range.
        let start = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) % span;
        for i in 0..span.min(2_000) {
            let port = FLOOR + ((start + i * 7_919) % span) as u16;
            if recent.contains(&port) {
                continue;
            }
            if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
                remember(&mut recent, port);
                return Ok(port);
            }
        }
    }
    for _ in 0..64 {
        let l = std::net::TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
        let port = l.local_addr()?.port();
        if recent.contains(&port) {
            continue;
        }
        remember(&mut recent, port);
        return Ok(port);
    }
    anyhow::bail!("finding a free port: the kernel kept handing out ports given out moments ago")
}

/// The kernel's range of local ports for outgoing connections (Linux'
/// ip_local_port_range), or its default when it cannot be read.
fn ephemeral_range() -> (u16, u16) {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|t| {
            let mut it = t.split_whitespace().map(|x| x.parse::<u16>().ok());
            Some((it.next()??, it.next()??))
        })
        .unwrap_or((32_768, 60_999))
}

/// The path that starts this very program again, for helpers gqlbench runs as child
/// processes (subgraphs, the static server). /proc/self/exe stays valid when the binary
/// file was replaced meanwhile (a rebuild during a long run); the path from
/// `current_exe` would then name a deleted file.
pub fn own_exe() -> std::io::Result<PathBuf> {
    let proc_exe = PathBuf::from("/proc/self/exe");
    if proc_exe.exists() {
        return Ok(proc_exe);
    }
    std::env::current_exe()
}

/// A shell script as a target process, for tests.
#[cfg(test)]
pub fn spawn_sh(script: &str, dir: &Path) -> TargetProcess {
    let prog = vec!["sh".to_string(), "-c".to_string(), script.to_string()];
    TargetProcess::spawn(SpawnSpec {
        program: &prog,
        cwd: dir,
        env: BTreeMap::new(),
        log: dir.join("log"),
        cpus: None,
        cgroup_procs: vec![],
    })
    .expect("spawning sh")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_digits() {
        let mut b = [0u8; 16];
        let n = fmt_pid(40213, &mut b);
        assert_eq!(&b[..n], b"40213");
        let n = fmt_pid(7, &mut b);
        assert_eq!(&b[..n], b"7");
    }

    #[test]
    fn free_ports_asked_in_a_row_are_all_different() {
        // Released at once, as a run's subgraphs' ports are before they start: the
        // kernel may offer one again, free_port must not.
        let ports: Vec<u16> = (0..200).map(|_| free_port().unwrap()).collect();
        let distinct: std::collections::HashSet<u16> = ports.iter().copied().collect();
        assert_eq!(distinct.len(), ports.len(), "{ports:?}");
        // Never where outgoing connections take their local ports (when there is room
        // below that range, as on every Linux default).
        let (low, _) = ephemeral_range();
        if low > 11_000 {
            assert!(ports.iter().all(|p| (10_000..low).contains(p)), "{ports:?}");
        }
    }

    #[test]
    fn stop_kills_the_whole_tree() {
        let dir = tempfile::tempdir().unwrap();
        // A shell that starts a grandchild ignoring SIGTERM: stop must still end both.
        let mut p = spawn_sh(
            "(trap '' TERM; sleep 30) & trap '' TERM; sleep 30",
            dir.path(),
        );
        std::thread::sleep(Duration::from_millis(200));
        assert!(procfs::session_members(p.pid).len() >= 2);
        p.stop(Duration::from_millis(300));
        assert!(procfs::session_members(p.pid).is_empty());
        assert!(p.exited().is_some());
    }
}
