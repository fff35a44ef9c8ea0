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
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::results::NoiseInfo;
use crate::sys::procfs;

/// Steal above this (% of one CPU over the window) makes a trial noisy.
pub const STEAL_LIMIT_PCT: f64 = 5.0;

/// Busy and steal ticks of one CPU.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuTicks {
    pub busy: u64,
    pub steal: u64,
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

    /// The figures of the window for `cpus`; None when the window never opened.
    pub fn finish(mut self, cpus: &[usize]) -> Option<NoiseInfo> {
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
    let freq: Option<Vec<u64>> = cpus.iter().map(|c| freq_mhz(*c)).collect();
    NoiseInfo {
        cpus: cpus.to_vec(),
        foreign_cpu_pct: foreign.map(|f| (f * 10.0).round() / 10.0),
        steal_pct: steal.map(|s| (s * 10.0).round() / 10.0),
        freq_mhz: freq,
    }
}

/// Why a trial's figures are not the target's alone, if the sentinels say so.
/// `foreign_limit_pct`: the run's `--interference-limit`.
pub fn interference(n: &NoiseInfo, foreign_limit_pct: f64) -> Option<String> {
    let mut why = Vec::new();
    if let Some(f) = n.foreign_cpu_pct.filter(|f| *f > foreign_limit_pct) {
        why.push(format!(
            "other processes used {f:.0}% of a CPU on the run's CPUs (limit {foreign_limit_pct:.0}%, --interference-limit)"
        ));
    }
    if let Some(s) = n.steal_pct.filter(|s| *s > STEAL_LIMIT_PCT) {
        why.push(format!(
            "the hypervisor stole {s:.0}% of a CPU (limit {STEAL_LIMIT_PCT:.0}%)"
        ));
    }
    (!why.is_empty()).then(|| why.join("; "))
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
mod tests {
    use super::*;
    use crate::plan::FOREIGN_LIMIT_PCT;

    const STAT: &str = "cpu  900 10 300 5000 20 5 7 3 0 0
cpu0 400 5 100 2500 10 2 3 1 0 0
cpu1 500 5 200 2500 10 3 4 2 0 0
intr 12345
";

    #[test]
    fn per_cpu_counters_are_read() {
        let m = parse_stat(STAT);
        assert_eq!(m.len(), 2, "the aggregate line is not a CPU");
        assert_eq!(
            m[&0],
            CpuTicks {
                busy: 505,
                steal: 1
            }
        );
        assert_eq!(
            m[&1],
            CpuTicks {
                busy: 705,
                steal: 2
            }
        );
    }

    #[test]
    fn foreign_time_is_busy_time_the_run_did_not_spend() {
        let t = procfs::clock_ticks() as u64;
        let snap = |busy: [u64; 2], steal: u64, own: u64, at: Instant| Snapshot {
            at,
            cpus: Some(
                [0, 1]
                    .iter()
                    .map(|&c| {
                        (
                            c,
                            CpuTicks {
                                busy: busy[c],
                                steal,
                            },
                        )
                    })
                    .collect(),
            ),
            own,
        };
        let t0 = Instant::now();
        let a = snap([0, 0], 0, 0, t0);
        // One second: both CPUs fully busy (2 CPU-s), the run spent 1.5 of them.
        let b = snap([t, t], t / 10, t + t / 2, t0 + Duration::from_secs(1));
        let n = between(&a, &b, &[0, 1]);
        assert_eq!(n.foreign_cpu_pct, Some(50.0));
        assert_eq!(n.steal_pct, Some(20.0), "10% on each of two CPUs");
        assert!(interference(&n, FOREIGN_LIMIT_PCT)
            .unwrap()
            .contains("other processes used 50%"));
        // Unreadable counters are unmeasured, not zero.
        let blind = Snapshot {
            cpus: None,
            ..b.clone()
        };
        let n = between(&a, &blind, &[0, 1]);
        assert_eq!((n.foreign_cpu_pct, n.steal_pct), (None, None));
        assert!(interference(&n, FOREIGN_LIMIT_PCT).is_none());
    }

    #[test]
    fn the_run_itself_is_counted_as_its_own() {
        // gqlbench alone, busy: its own time grows with the work it does.
        let a = own_ticks();
        let t0 = Instant::now();
        let mut x = 0u64;
        while t0.elapsed() < Duration::from_millis(300) {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        assert!(own_ticks() > a, "{x}");
    }

    #[test]
    fn the_canary_times_every_cpu_it_may_use() {
        let cpus = crate::sys::cpus::allowed_cpus();
        let ms = canary(&cpus[..1]);
        assert!(ms[0].is_some_and(|m| m > 0.1 && m < 2000.0), "{ms:?}");
        assert_eq!(canary(&[1 << 20]), vec![None], "a CPU that does not exist");
    }
}
