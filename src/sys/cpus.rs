//! CPU sets and process limits: the CPUs a process may use, pinning (sched_setaffinity,
//! verified by reading /proc back), the default split between the load generator and the
//! targets, and the open-files limit a large run needs.
use std::fs;

use anyhow::{bail, Result};

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
        crate::units::cpu_list(&self.0)
    }

    pub fn to_libc(&self) -> libc::cpu_set_t {
        // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET only touch its bits.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_ZERO(&mut set);
            // CPUs beyond what a set holds cannot be set (pinning refuses them first).
            for &c in self.0.iter().filter(|c| **c < libc::CPU_SETSIZE as usize) {
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

/// The cores the generator's `threads` could use: the CPUs it was pinned to, else the CPUs
/// this process may run on (`taskset`, a cgroup cpuset: sched_getaffinity), never more than
/// its threads (a thread runs on one core at a time). The generator's utilization is its
/// CPU over these: counted over CPUs it could not use, a busy generator would look idle and
/// the saturation guard could not trip.
pub fn generator_cores(pinned: Option<&CpuSet>, threads: usize) -> usize {
    cores_of(pinned.map(|c| c.0.len()), allowed_cpus().len(), threads)
}

fn cores_of(pinned: Option<usize>, allowed: usize, threads: usize) -> usize {
    pinned.unwrap_or(allowed).min(threads).max(1)
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

/// The split for gateways, whose subgraphs run on the generator's CPUs: with 4 CPUs or
/// more, one for the gateway and the rest for the generator and the subgraphs, which a
/// native gateway on one CPU outruns at anything less (the ChilliCream benchmark gives
/// k6 : gateway : subgraphs 1 : 2 : 4). None below 4 CPUs: the default split stands.
pub fn gateway_split(cpus: &[usize]) -> Option<(CpuSet, CpuSet)> {
    let (last, rest) = cpus.split_last().filter(|_| cpus.len() >= 4)?;
    Some((CpuSet(rest.to_vec()), CpuSet(vec![*last])))
}

/// Pin the calling thread (and threads it creates later) to `set`.
pub fn pin_current_thread(set: &CpuSet) -> Result<()> {
    if let Some(c) = set.0.iter().find(|c| **c >= libc::CPU_SETSIZE as usize) {
        bail!(
            "CPU {c} is beyond the {} the kernel's CPU sets hold",
            libc::CPU_SETSIZE
        );
    }
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

/// Open files the engine keeps besides one per connection (its `preflight` margin).
pub const NOFILE_RESERVE: u64 = 64;

/// Whether an open-files limit that could not be raised matters to a run that opens
/// `connections` at once: only then is the note about it printed (a run of 100
/// connections under a limit of 20,000 is not concerned). An unknown limit (0) matters.
pub fn nofile_matters(limit: u64, connections: u64) -> bool {
    limit == 0 || connections + NOFILE_RESERVE > limit
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

/// Where the load generator and the targets run, as a run applies it: the CPU sets each
/// is pinned to (none: not pinned) and whether targets get cgroups.
#[derive(Debug, Clone)]
pub struct IsolationPlan {
    pub generator: Option<CpuSet>,
    pub target: Option<CpuSet>,
    pub cgroups: bool,
    /// Why something asked for could not be done (shown in reports).
    pub notes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_open_files_note_matters_only_near_the_limit() {
        assert!(!nofile_matters(20_000, 100));
        assert!(!nofile_matters(1024, 960));
        assert!(nofile_matters(1024, 961));
        assert!(nofile_matters(20_000, 50_000));
        assert!(nofile_matters(0, 1));
    }

    #[test]
    fn the_generator_has_the_cores_it_may_run_on_up_to_its_threads() {
        // `taskset -c 0 ... --threads 4`: one core, not four.
        assert_eq!(cores_of(None, 1, 4), 1);
        assert_eq!(cores_of(Some(2), 8, 4), 2);
        assert_eq!(cores_of(None, 8, 3), 3);
        assert_eq!(cores_of(Some(0), 0, 0), 1);
        // This process: at most the CPUs its mask allows.
        assert!(generator_cores(None, 1024) <= allowed_cpus().len().max(1));
    }

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
    fn gateways_get_one_cpu_and_their_helpers_the_rest_from_four_cpus() {
        assert_eq!(gateway_split(&[0, 1]), None);
        assert_eq!(gateway_split(&[0, 1, 2]), None);
        let (g, t) = gateway_split(&[0, 1, 2, 3]).unwrap();
        assert_eq!((g.0, t.0), (vec![0, 1, 2], vec![3]));
        let (g, t) = gateway_split(&[2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
        assert_eq!((g.0, t.0), (vec![2, 3, 4, 5, 6, 7, 8], vec![9]));
    }

    #[test]
    fn own_affinity_reads_back() {
        let me = std::process::id() as i32;
        let cpus = process_cpus(me).unwrap();
        assert!(!cpus.is_empty());
        assert_eq!(cpus, allowed_cpus());
    }
}
