//! Noise sentinels: what else the machine did while a trial was measured. Three readings:
//! - *foreign CPU*: busy time of the run's CPUs (user, nice and system time in
//!   /proc/stat) minus the CPU time of the run itself (gqlbench and every process it
//!   started: targets, subgraphs, the database), over the measured window;
//! - *steal*: time the hypervisor gave to other guests;
//! - *frequency*: each watched CPU's current frequency, where the kernel shows it.
//!
//! And a *canary*: a fixed amount of CPU work timed on each CPU before and after a round,
//! whose change is the machine's own speed drift. A reading that cannot be taken is None
//! ("unmeasured"), never 0.
//!
//! A reading above its limit is judged against the run's own level (`Judge`): a *burst*
//! (well above what the machine has shown so far) spoils the measurement, which is taken
//! again; a *steady* level (a VM whose hypervisor takes a share of its CPU all the time)
//! cannot be measured away, so the measurement counts, with the caveat that names it;
//! measuring it again would only spend the budget while alternation already shares that
//! noise between the targets of a round.
//!
//! For tests, `GQLBENCH_INJECT_STEAL` adds steal to the readings of successive measured
//! windows (see [`injected_steal`]), so that a suite can be run as if on a noisy machine.
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::results::NoiseInfo;
use crate::sys::procfs;

/// Steal above this (% of one CPU over the window) makes a trial noisy (`--steal-limit`).
pub const STEAL_LIMIT_PCT: f64 = 5.0;

/// The test setting that adds steal to measured windows.
pub const INJECT_ENV: &str = "GQLBENCH_INJECT_STEAL";

/// Measured windows this process has read, for the injection's cycle.
static WINDOWS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A test setting: the steal added to the next measured window's reading. The variable
/// holds percentages of one CPU separated by commas, used in turn, window after window
/// ("40,0,0": the first window of every three reads 40% more than it had). A value that is
/// not a percentage is ignored, and so is the variable when none is.
pub fn injected_steal() -> Option<f64> {
    let v = std::env::var(INJECT_ENV).ok()?;
    let cycle = parse_injection(&v)?;
    let k = WINDOWS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Some(cycle[k % cycle.len()])
}

/// The percentages of an injection, or None when there is none.
fn parse_injection(v: &str) -> Option<Vec<f64>> {
    let cycle: Vec<f64> = v
        .split(',')
        .filter_map(|x| x.trim().trim_end_matches('%').parse::<f64>().ok())
        .filter(|x| x.is_finite() && *x >= 0.0)
        .collect();
    (!cycle.is_empty()).then_some(cycle)
}

/// What a reading above its limit is.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Within the limits.
    Clean,
    /// Above a limit, near the machine's own level: counted, with this caveat.
    Steady(String),
    /// Well above the machine's level: the measurement is spoiled (measure it again).
    Burst(String),
}

/// The run's noise so far, to tell a burst from the machine's steady level. The level is
/// the median of the readings before (and of the start's probe, `machine_probe`); a
/// reading above its limit is a burst when it exceeds that level by more than the limit
/// and by more than the level itself (20% steady: a burst from 40%; none: from the limit).
#[derive(Debug, Clone, Default)]
pub struct Judge {
    pub foreign_limit_pct: f64,
    pub steal_limit_pct: f64,
    foreign: Vec<f64>,
    steal: Vec<f64>,
}

impl Judge {
    pub fn new(foreign_limit_pct: f64, steal_limit_pct: f64) -> Judge {
        Judge {
            foreign_limit_pct,
            steal_limit_pct,
            ..Default::default()
        }
    }

    /// A reading taken outside any measurement (the start's probe): it sets the level.
    pub fn seed(&mut self, n: &NoiseInfo) {
        self.foreign.extend(n.foreign_cpu_pct);
        self.steal.extend(n.steal_pct);
    }

    /// The machine's level so far: (foreign CPU, steal), % of one CPU.
    pub fn level(&self) -> (f64, f64) {
        let med = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                crate::stats::median(v)
            }
        };
        (med(&self.foreign), med(&self.steal))
    }

    /// Judges a measured window's reading, then adds it to the level.
    pub fn judge(&mut self, n: &NoiseInfo) -> Verdict {
        let (lf, ls) = self.level();
        let mut burst = Vec::new();
        let mut steady = Vec::new();
        if let Some(f) = n.foreign_cpu_pct.filter(|f| *f > self.foreign_limit_pct) {
            let what = format!(
                "other processes used {f:.0}% of a CPU on the run's CPUs (limit {:.0}%, --interference-limit",
                self.foreign_limit_pct
            );
            if f > lf + self.foreign_limit_pct.max(lf) {
                burst.push(format!("{what}; the run's level so far {lf:.0}%)"));
            } else {
                steady.push(format!("{what}; about the run's steady level, {lf:.0}%)"));
            }
        }
        if let Some(x) = n.steal_pct.filter(|x| *x > self.steal_limit_pct) {
            let what = format!(
                "the hypervisor stole {x:.0}% of a CPU (limit {:.0}%, --steal-limit",
                self.steal_limit_pct
            );
            if x > ls + self.steal_limit_pct.max(ls) {
                burst.push(format!("{what}; the run's level so far {ls:.0}%)"));
            } else {
                steady.push(format!("{what}; about the run's steady level, {ls:.0}%)"));
            }
        }
        self.seed(n);
        if !burst.is_empty() {
            burst.extend(steady);
            Verdict::Burst(burst.join("; "))
        } else if !steady.is_empty() {
            Verdict::Steady(format!("steady noise: {}", steady.join("; ")))
        } else {
            Verdict::Clean
        }
    }
}

/// Busy, steal and softirq ticks of one CPU.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuTicks {
    pub busy: u64,
    pub steal: u64,
    /// Kernel time serving softirqs (on loopback, much of the network's receive work),
    /// which may be charged to no process's or cgroup's counter.
    pub softirq: u64,
}

/// Per-CPU counters of /proc/stat: `cpuN user nice system idle iowait irq softirq steal`.
pub fn parse_stat(text: &str) -> BTreeMap<usize, CpuTicks> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let Some(cpu) = f
            .next()
            .and_then(|c| c.strip_prefix("cpu"))
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        let v: Vec<u64> = f.filter_map(|x| x.parse().ok()).collect();
        if v.len() < 8 {
            continue;
        }
        out.insert(
            cpu,
            CpuTicks {
                busy: v[0] + v[1] + v[2],
                steal: v[7],
                softirq: v[6],
            },
        );
    }
    out
}

/// Everything the sentinels read at one instant.
#[derive(Debug, Clone)]
pub struct Snapshot {
    at: Instant,
    cpus: Option<BTreeMap<usize, CpuTicks>>,
    /// CPU ticks of gqlbench and all it started (children's time moves to their parent's
    /// cutime/cstime when they are reaped, so the sum stays continuous).
    own: u64,
}

/// gqlbench's own process and every process descending from it.
fn own_ticks() -> u64 {
    let me = std::process::id() as i32;
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let stats: Vec<(i32, i32, u64)> = rd
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let s = procfs::parse_stat(pid, &text)?;
            Some((pid, procfs::parent_pid(&text)?, s.cpu_ticks))
        })
        .collect();
    let parent: BTreeMap<i32, i32> = stats.iter().map(|(p, pp, _)| (*p, *pp)).collect();
    let ours = |mut p: i32| {
        for _ in 0..64 {
            if p == me {
                return true;
            }
            match parent.get(&p) {
                Some(pp) if *pp > 0 => p = *pp,
                _ => return false,
            }
        }
        false
    };
    stats
        .iter()
        .filter(|(p, _, _)| ours(*p))
        .map(|(_, _, t)| t)
        .sum()
}

pub fn snapshot() -> Snapshot {
    Snapshot {
        at: Instant::now(),
        cpus: std::fs::read_to_string("/proc/stat")
            .ok()
            .map(|t| parse_stat(&t)),
        own: own_ticks(),
    }
}

/// Snapshots at the start and the end of a measured window, taken by a thread that
/// watches the window as the vitals sampler does.
pub struct Watch {
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
    handle: Option<std::thread::JoinHandle<Option<(Snapshot, Snapshot)>>>,
}

impl Watch {
    pub fn start(gate: super::vitals::Condition, end: super::vitals::Condition) -> Watch {
        use std::sync::atomic::Ordering;
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = done.clone();
        let handle = std::thread::Builder::new()
            .name("noise".into())
            .spawn(move || {
                while !gate() {
                    if flag.load(Ordering::Relaxed) {
                        return None;
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                let a = snapshot();
                while !end() && !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Some((a, snapshot()))
            })
            .ok();
        Watch { done, handle }
    }

    /// The figures of the window for `cpus` (with any injected steal, `injected_steal`);
    /// None when the window never opened.
    pub fn finish(self, cpus: &[usize]) -> Option<NoiseInfo> {
        let mut n = self.finish_raw(cpus)?;
        if let Some(extra) = injected_steal() {
            n.steal_pct = Some(n.steal_pct.unwrap_or(0.0) + extra);
            n.injected_steal_pct = Some(extra);
        }
        Some(n)
    }

    /// The figures of the window as read, never injected (the machine's own probe).
    pub fn finish_raw(mut self, cpus: &[usize]) -> Option<NoiseInfo> {
        self.done.store(true, std::sync::atomic::Ordering::Relaxed);
        let (a, b) = self.handle.take()?.join().ok()??;
        Some(between(&a, &b, cpus))
    }
}

/// Current frequency of `cpu` in MHz, where cpufreq shows it.
fn freq_mhz(cpu: usize) -> Option<u64> {
    let p = format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_cur_freq");
    let khz: u64 = std::fs::read_to_string(p).ok()?.trim().parse().ok()?;
    Some(khz / 1000)
}

/// The sentinels' figures between two snapshots, for the run's `cpus`.
pub fn between(a: &Snapshot, b: &Snapshot, cpus: &[usize]) -> NoiseInfo {
    let secs = b.at.duration_since(a.at).as_secs_f64();
    let ticks = procfs::clock_ticks();
    let pct = |t: u64| t as f64 / ticks / secs * 100.0;
    let (foreign, steal) = match (&a.cpus, &b.cpus) {
        (Some(x), Some(y)) if secs > 0.0 && cpus.iter().all(|c| x.contains_key(c)) => {
            let sum = |m: &BTreeMap<usize, CpuTicks>, f: fn(&CpuTicks) -> u64| -> u64 {
                cpus.iter().filter_map(|c| m.get(c)).map(f).sum()
            };
            let busy = sum(y, |t| t.busy).saturating_sub(sum(x, |t| t.busy));
            let own = b.own.saturating_sub(a.own);
            (
                Some(pct(busy.saturating_sub(own))),
                Some(pct(sum(y, |t| t.steal).saturating_sub(sum(x, |t| t.steal)))),
            )
        }
        _ => (None, None),
    };
    // Each CPU's softirq share on its own (the target's CPUs are told from the generator's
    // by the reader).
    let softirq: Option<Vec<f64>> = match (&a.cpus, &b.cpus) {
        (Some(x), Some(y)) if secs > 0.0 => cpus
            .iter()
            .map(|c| {
                let d = y.get(c)?.softirq.saturating_sub(x.get(c)?.softirq);
                Some((pct(d) * 10.0).round() / 10.0)
            })
            .collect(),
        _ => None,
    };
    let freq: Option<Vec<u64>> = cpus.iter().map(|c| freq_mhz(*c)).collect();
    NoiseInfo {
        softirq_pct: softirq,
        cpus: cpus.to_vec(),
        foreign_cpu_pct: foreign.map(|f| (f * 10.0).round() / 10.0),
        steal_pct: steal.map(|s| (s * 10.0).round() / 10.0),
        freq_mhz: freq,
        injected_steal_pct: None,
    }
}

/// Work of the canary: about 4 ms of integer arithmetic on the development VM's cores.
const CANARY_STEPS: u64 = 8_000_000;

/// Times a fixed amount of CPU work on each of `cpus` (the thread pinned there), in ms.
/// None for a CPU the thread could not be pinned to.
pub fn canary(cpus: &[usize]) -> Vec<Option<f64>> {
    cpus.iter()
        .map(|&c| {
            std::thread::scope(|s| {
                s.spawn(|| {
                    crate::sys::cpus::pin_current_thread(&crate::sys::cpus::CpuSet(vec![c]))
                        .ok()?;
                    // Best of three: the canary asks how fast the CPU can be, not how
                    // often it was interrupted while asked.
                    let best = (0..3)
                        .map(|_| {
                            let t0 = Instant::now();
                            let mut x = 0x9E37_79B9_7F4A_7C15u64;
                            for i in 0..CANARY_STEPS {
                                x = x.rotate_left(5) ^ i.wrapping_mul(0x2545_F491_4F6C_DD1D);
                            }
                            std::hint::black_box(x);
                            t0.elapsed()
                        })
                        .min()
                        .unwrap_or(Duration::ZERO);
                    Some(best.as_secs_f64() * 1000.0)
                })
                .join()
                .ok()
                .flatten()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
