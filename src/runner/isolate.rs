//! Isolation without Docker: disjoint CPU sets for the load generator and the targets
//! (sched_setaffinity, verified by reading /proc back), and cgroups (v1 or v2) for CPU
//! accounting, a CPU quota and a memory cap where the hierarchy is writable.
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// A set of CPU numbers, written like the kernel does: "0-3,6".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CpuSet(pub Vec<usize>);

impl CpuSet {
    pub fn parse(s: &str) -> Result<CpuSet> {
        let mut v = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (a, b) = match part.split_once('-') {
                Some((a, b)) => (a.trim(), b.trim()),
                None => (part, part),
            };
            let (a, b): (usize, usize) = match (a.parse(), b.parse()) {
                (Ok(a), Ok(b)) if a <= b => (a, b),
                _ => bail!("'{s}' is not a CPU list; write e.g. \"0\", \"0-3\" or \"0,2\""),
            };
            v.extend(a..=b);
        }
        v.sort_unstable();
        v.dedup();
        if v.is_empty() {
            bail!("'{s}' is an empty CPU list; write e.g. \"0\" or \"0-3\"");
        }
        Ok(CpuSet(v))
    }

    pub fn display(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        while i < self.0.len() {
            let start = self.0[i];
            let mut end = start;
            while i + 1 < self.0.len() && self.0[i + 1] == end + 1 {
                i += 1;
                end = self.0[i];
            }
            out.push(if start == end {
                start.to_string()
            } else {
                format!("{start}-{end}")
            });
            i += 1;
        }
        out.join(",")
    }

    pub fn to_libc(&self) -> libc::cpu_set_t {
        // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET only touch its bits.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_ZERO(&mut set);
            for &c in &self.0 {
                libc::CPU_SET(c, &mut set);
            }
            set
        }
    }
}

/// CPUs this process may run on now.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: sched_getaffinity writes into the set we own.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return (0..num_cpus()).collect();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// CPUs online on the machine (not just those this thread may use: gqlbench pins itself).
pub fn num_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        n as usize
    } else {
        1
    }
}

/// Default split: targets get the upper half (at least one CPU), the generator the rest.
/// With one CPU nothing can be separated and both share it (reported as such).
pub fn default_split(cpus: &[usize]) -> (CpuSet, CpuSet) {
    if cpus.len() < 2 {
        return (CpuSet(cpus.to_vec()), CpuSet(cpus.to_vec()));
    }
    let k = cpus.len() / 2;
    (
        CpuSet(cpus[..cpus.len() - k].to_vec()),
        CpuSet(cpus[cpus.len() - k..].to_vec()),
    )
}

/// Pin the calling thread (and threads it creates later) to `set`.
pub fn pin_current_thread(set: &CpuSet) -> Result<()> {
    let s = set.to_libc();
    // SAFETY: valid set pointer and size.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &s) };
    if rc != 0 {
        bail!(
            "sched_setaffinity({}) failed: {}",
            set.display(),
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

/// The CPUs a process may run on, read back from /proc (the verification of pinning).
pub fn process_cpus(pid: i32) -> Option<Vec<usize>> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?;
    CpuSet::parse(line.trim()).ok().map(|s| s.0)
}

/// Raise the soft open-files limit to the hard one (and the hard one to the kernel's
/// maximum when we are allowed to); returns the limit in force.
pub fn raise_nofile() -> (u64, Option<String>) {
    // SAFETY: getrlimit/setrlimit with a struct we own.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return (0, Some("getrlimit(RLIMIT_NOFILE) failed".into()));
        }
        let nr_open: u64 = fs::read_to_string("/proc/sys/fs/nr_open")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(lim.rlim_max);
        let want = nr_open.clamp(lim.rlim_max, 1 << 20);
        let raised = libc::rlimit {
            rlim_cur: want,
            rlim_max: want,
        };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
            return (want, None);
        }
        let soft = libc::rlimit {
            rlim_cur: lim.rlim_max,
            rlim_max: lim.rlim_max,
        };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &soft) == 0 {
            return (
                lim.rlim_max,
                Some(format!(
                    "open-files limit could not be raised above the hard limit {} (the kernel refused); each connection needs one, so raise it (`ulimit -Hn`, as root or in limits.conf) for runs with more connections",
                    lim.rlim_max
                )),
            );
        }
        (
            lim.rlim_cur,
            Some(format!("open-files limit stays at {}", lim.rlim_cur)),
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CgroupVersion {
    V1,
    V2,
}

/// A cgroup made for one target process tree; removed on drop.
#[derive(Debug)]
pub struct Cgroup {
    pub version: CgroupVersion,
    /// v1: one directory per controller (cpu, cpuacct, memory); v2: one directory.
    dirs: Vec<(String, PathBuf)>,
    pub applied: String,
}

#[derive(Debug, Clone, Default)]
pub struct Limits {
    pub cpus: Option<f64>,
    pub memory_bytes: Option<u64>,
}

/// Mount points of cgroup hierarchies: (controllers or "unified", mount point).
fn mounts() -> Vec<(Vec<String>, PathBuf, bool)> {
    let text = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let mut r = right.split_whitespace();
        let fstype = r.next().unwrap_or("");
        let _src = r.next();
        let opts = r.next().unwrap_or("");
        let mount_point = left.split_whitespace().nth(4).unwrap_or("");
        match fstype {
            "cgroup" => out.push((
                opts.split(',').map(String::from).collect(),
                PathBuf::from(mount_point),
                false,
            )),
            "cgroup2" => out.push((Vec::new(), PathBuf::from(mount_point), true)),
            _ => {}
        }
    }
    out
}

/// Mount points of every cgroup hierarchy (v1 controllers and the v2 unified one), each
/// once: where leftovers of killed runs are looked for.
pub fn hierarchy_mounts() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = mounts().into_iter().map(|(_, m, _)| m).collect();
    v.sort();
    v.dedup();
    v
}

/// Our own path in a hierarchy, from /proc/self/cgroup.
fn own_path(controller: Option<&str>) -> String {
    let text = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_id, ctrls, path) = (
            parts.next(),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or("/"),
        );
        match controller {
            None if ctrls.is_empty() => return path.to_string(),
            Some(c) if ctrls.split(',').any(|x| x == c) => return path.to_string(),
            _ => {}
        }
    }
    "/".into()
}

/// Which cgroup version can give us cpu + memory control here, if any.
pub fn detect() -> Option<CgroupVersion> {
    let m = mounts();
    let v1 = ["cpu", "cpuacct", "memory"].iter().all(|c| {
        m.iter()
            .any(|(opts, _, v2)| !v2 && opts.iter().any(|o| o == c))
    });
    if v1 {
        return Some(CgroupVersion::V1);
    }
    let v2 = m.iter().find(|(_, _, v2)| *v2)?;
    let ctrl = fs::read_to_string(v2.1.join("cgroup.controllers")).ok()?;
    (ctrl.contains("cpu") && ctrl.contains("memory")).then_some(CgroupVersion::V2)
}

impl Cgroup {
    /// Create a cgroup named `name` beside our own, with `limits` applied and read back.
    pub fn create(name: &str, limits: &Limits) -> Result<Cgroup> {
        let version =
            detect().context("no writable cgroup hierarchy with cpu and memory controllers")?;
        let m = mounts();
        let mut dirs = Vec::new();
        match version {
            CgroupVersion::V1 => {
                for c in ["cpu", "cpuacct", "memory"] {
                    let (_, mount, _) = m
                        .iter()
                        .find(|(opts, _, v2)| !v2 && opts.iter().any(|o| o == c))
                        .context("cgroup v1 controller vanished")?;
                    let base = mount.join(own_path(Some(c)).trim_start_matches('/'));
                    let dir = base.join(name);
                    if !dirs.iter().any(|(_, d): &(String, PathBuf)| d == &dir) {
                        fs::create_dir_all(&dir)
                            .with_context(|| format!("creating {}", dir.display()))?;
                    }
                    dirs.push((c.to_string(), dir));
                }
            }
            CgroupVersion::V2 => {
                let (_, mount, _) = m
                    .iter()
                    .find(|(_, _, v2)| *v2)
                    .context("no cgroup2 mount")?;
                let base = mount.join(own_path(None).trim_start_matches('/'));
                // Controllers must be enabled in the parent for the child to have them; this
                // fails when the parent has processes of its own (the "no internal processes"
                // rule), which is reported as "not applied".
                fs::write(base.join("cgroup.subtree_control"), "+cpu +memory")
                    .with_context(|| format!("enabling cpu and memory in {}", base.display()))?;
                let dir = base.join(name);
                fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
                dirs.push(("unified".into(), dir));
            }
        }
        let mut cg = Cgroup {
            version,
            dirs,
            applied: String::new(),
        };
        cg.apply(limits)?;
        Ok(cg)
    }

    fn dir(&self, controller: &str) -> &Path {
        self.dirs
            .iter()
            .find(|(c, _)| c == controller || c == "unified")
            .map(|(_, d)| d.as_path())
            .unwrap_or_else(|| self.dirs[0].1.as_path())
    }

    fn apply(&mut self, limits: &Limits) -> Result<()> {
        let mut applied = vec![format!(
            "cgroup {}",
            if self.version == CgroupVersion::V1 {
                "v1"
            } else {
                "v2"
            }
        )];
        const PERIOD_US: u64 = 100_000;
        if let Some(cpus) = limits.cpus {
            let quota = (cpus * PERIOD_US as f64).round() as u64;
            match self.version {
                CgroupVersion::V1 => {
                    let d = self.dir("cpu").to_path_buf();
                    fs::write(d.join("cpu.cfs_period_us"), PERIOD_US.to_string())?;
                    fs::write(d.join("cpu.cfs_quota_us"), quota.to_string())?;
                    let back: u64 = read_u64(&d.join("cpu.cfs_quota_us")).unwrap_or(0);
                    if back != quota {
                        bail!("cpu quota {quota} µs written but {back} read back");
                    }
                }
                CgroupVersion::V2 => {
                    let d = self.dir("cpu").to_path_buf();
                    fs::write(d.join("cpu.max"), format!("{quota} {PERIOD_US}"))?;
                    let back = fs::read_to_string(d.join("cpu.max")).unwrap_or_default();
                    if !back.starts_with(&quota.to_string()) {
                        bail!(
                            "cpu.max '{quota} {PERIOD_US}' written but '{}' read back",
                            back.trim()
                        );
                    }
                }
            }
            applied.push(format!("cpu quota {cpus:.2} cores"));
        }
        if let Some(mem) = limits.memory_bytes {
            let (file, d) = match self.version {
                CgroupVersion::V1 => ("memory.limit_in_bytes", self.dir("memory").to_path_buf()),
                CgroupVersion::V2 => ("memory.max", self.dir("memory").to_path_buf()),
            };
            fs::write(d.join(file), mem.to_string())?;
            let back = read_u64(&d.join(file)).unwrap_or(0);
            // The kernel rounds the limit to whole pages.
            if back == 0 || back.abs_diff(mem) > 4096 {
                bail!("memory cap {mem} B written to {file} but {back} read back");
            }
            if self.version == CgroupVersion::V1 {
                // Without swap accounting the cap could be dodged by swapping; best effort.
                let _ = fs::write(d.join("memory.memsw.limit_in_bytes"), mem.to_string());
            }
            applied.push(format!("memory cap {}", crate::report::fmt_bytes(mem)));
        }
        self.applied = applied.join(", ");
        Ok(())
    }

    /// Files a child writes its pid into (before exec) to join this cgroup.
    pub fn procs_files(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self
            .dirs
            .iter()
            .map(|(_, d)| d.join("cgroup.procs"))
            .collect();
        v.dedup();
        v
    }

    /// Total CPU time used by the group so far, in seconds.
    pub fn cpu_seconds(&self) -> Option<f64> {
        match self.version {
            CgroupVersion::V1 => {
                read_u64(&self.dir("cpuacct").join("cpuacct.usage")).map(|ns| ns as f64 / 1e9)
            }
            CgroupVersion::V2 => {
                let s = fs::read_to_string(self.dir("cpu").join("cpu.stat")).ok()?;
                s.lines()
                    .find_map(|l| l.strip_prefix("usage_usec "))
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(|us| us as f64 / 1e6)
            }
        }
    }

    /// Whether the memory cap was hit (the kernel's own counter).
    pub fn memory_cap_hits(&self) -> Option<u64> {
        match self.version {
            CgroupVersion::V1 => read_u64(&self.dir("memory").join("memory.failcnt")),
            CgroupVersion::V2 => {
                let s = fs::read_to_string(self.dir("memory").join("memory.events")).ok()?;
                s.lines()
                    .find_map(|l| l.strip_prefix("max "))
                    .and_then(|v| v.trim().parse().ok())
            }
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // rmdir only succeeds once the group is empty; the runner stops the target first.
        for (_, d) in &self.dirs {
            let _ = fs::remove_dir(d);
        }
    }
}

fn read_u64(p: &Path) -> Option<u64> {
    fs::read_to_string(p).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_round_trip() {
        let s = CpuSet::parse("0-3,6, 8").unwrap();
        assert_eq!(s.0, vec![0, 1, 2, 3, 6, 8]);
        assert_eq!(s.display(), "0-3,6,8");
        assert!(CpuSet::parse("3-1").is_err());
        assert!(CpuSet::parse("x")
            .unwrap_err()
            .to_string()
            .contains("CPU list"));
        assert!(CpuSet::parse("").is_err());
    }

    #[test]
    fn split_is_disjoint_and_complete() {
        let (g, t) = default_split(&[0, 1]);
        assert_eq!((g.0, t.0), (vec![0], vec![1]));
        let (g, t) = default_split(&[0, 1, 2, 3, 4]);
        assert_eq!(g.0, vec![0, 1, 2]);
        assert_eq!(t.0, vec![3, 4]);
        let (g, t) = default_split(&[0]);
        assert_eq!(g.0, t.0);
    }

    #[test]
    fn own_affinity_reads_back() {
        let me = std::process::id() as i32;
        let cpus = process_cpus(me).unwrap();
        assert!(!cpus.is_empty());
        assert_eq!(cpus, allowed_cpus());
    }
}
