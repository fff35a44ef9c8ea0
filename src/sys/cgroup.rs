//! Cgroups (v1 or v2) for one target's process tree: exact CPU accounting, a CPU quota and
//! a memory cap where the hierarchy is writable, each read back after it is written.
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

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

impl Limits {
    /// What to add to a process's exit status when it was SIGKILLed under a memory cap: the
    /// kernel's OOM killer of the cgroup is what sends it there (a person reading only
    /// "signal 9" would look for a crash instead of a memory limit).
    pub fn kill_note(&self, status: &str) -> Option<String> {
        let killed = status.contains("SIGKILL") || status.contains("signal: 9");
        (killed && self.memory_bytes.is_some()).then(|| {
            format!(
                " — killed (SIGKILL) under the {} memory cap: the OOM killer",
                crate::units::fmt_bytes(self.memory_bytes.unwrap_or_default())
            )
        })
    }
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
            applied.push(format!("memory cap {}", crate::units::fmt_bytes(mem)));
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
