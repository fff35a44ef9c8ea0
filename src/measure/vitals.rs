//! The vitals sampler: a thread that reads the target's CPU time and resident memory every
//! interval during the measured window and turns them into per-interval deltas (CPU %) and
//! memory figures. CPU comes from the cgroup's counter when the target has one (exact, every
//! thread and child), else from the sum over the target's session in /proc.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use std::path::PathBuf;

use super::gc;
use crate::results::{GcStats, MemoryTrend, Vitals, VitalsPoint};
use crate::sys::cgroup::Cgroup;
use crate::sys::procfs;

/// A condition the sampler polls (start or end of the measured window).
pub type Condition = Box<dyn Fn() -> bool + Send>;

pub struct Sampler {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Vitals>>,
}

/// One reading of a target's processes.
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    pub cpu_s: Option<f64>,
    /// None once no process of the target is left (it exited): a dead target has no
    /// memory figure, not a zero one.
    pub rss: Option<u64>,
    /// Threads of every process of the target; None, as RSS, when none is left.
    pub threads: Option<u32>,
    /// "cgroup" or "proc": where the CPU figure came from.
    pub source: &'static str,
}

/// CPU seconds, RSS bytes and threads of the target right now.
pub fn read(sid: i32, cgroup: Option<&Cgroup>) -> Reading {
    let members = procfs::session_members(sid);
    let alive = !members.is_empty();
    let rss = alive.then(|| members.iter().map(|m| m.rss_pages).sum::<u64>() * procfs::page_size());
    let threads = alive.then(|| {
        let n: u64 = members.iter().map(|m| m.threads).sum();
        u32::try_from(n).unwrap_or(u32::MAX)
    });
    let (cpu_s, source) = match cgroup.and_then(|c| c.cpu_seconds()) {
        Some(cpu) => (Some(cpu), "cgroup"),
        None if alive => {
            let ticks: u64 = members.iter().map(|m| m.cpu_ticks).sum();
            (Some(ticks as f64 / procfs::clock_ticks()), "proc")
        }
        None => (None, "proc"),
    };
    Reading {
        cpu_s,
        rss,
        threads,
        source,
    }
}

impl Sampler {
    /// Start sampling once `gate` says the measured window has begun (so warm-up is
    /// excluded); GC counters, when the target has a probe file, are read at the same
    /// moments.
    pub fn start(
        sid: i32,
        cgroup: Option<Arc<Cgroup>>,
        gc_file: Option<PathBuf>,
        interval: Duration,
        gate: Condition,
        end: Condition,
    ) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::Builder::new()
            .name("vitals".into())
            .spawn(move || {
                while !gate() && !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(2));
                }
                let mut watch = gc_file.as_deref().and_then(gc::GcWatch::start);
                let stop = || flag.load(Ordering::Relaxed) || end();
                let mut gc_now = || watch.as_mut().and_then(|w| w.poll());
                let mut v = sample_loop(sid, cgroup.as_deref(), interval, &stop, &mut gc_now);
                v.gc = gc_now();
                v
            })
            .ok();
        Sampler { stop, handle }
    }

    /// Vitals of a window that never ran.
    pub fn empty() -> Vitals {
        Vitals::default()
    }

    pub fn finish(mut self) -> Vitals {
        self.stop.store(true, Ordering::Relaxed);
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Seconds between the points of the stored series (samples are taken more often).
const SERIES_STEP_S: f64 = 1.0;

/// Samples until `stop()` says the window is over.
fn sample_loop(
    sid: i32,
    cgroup: Option<&Cgroup>,
    interval: Duration,
    stop: &dyn Fn() -> bool,
    gc_now: &mut dyn FnMut() -> Option<GcStats>,
) -> Vitals {
    let t0 = Instant::now();
    let first = read(sid, cgroup);
    let (cpu0, rss0, source) = (first.cpu_s, first.rss, first.source);
    let mut threads_peak = first.threads;
    let mut last = (t0, cpu0);
    let mut peak_pct: Option<f64> = None;
    // Memory figures come from samples taken while the target was alive.
    let mut rss_sum: u128 = rss0.unwrap_or(0) as u128;
    let mut rss_peak = rss0;
    let mut samples: u32 = u32::from(rss0.is_some());
    let mut cpu_end = cpu0;
    let mut t_end = t0;
    // Every sample feeds the trend; one point a second goes into the stored series.
    let mut rss_samples: Vec<(f64, u64)> = rss0.map(|r| vec![(0.0, r)]).unwrap_or_default();
    let mut gc_latest = None;
    let mut series = Vec::new();
    let mut last_point = (0.0, cpu0);
    loop {
        // Sleep in short steps so finish() returns promptly.
        let wake = last.0 + interval;
        while Instant::now() < wake && !stop() {
            std::thread::sleep(Duration::from_millis(5).min(interval));
        }
        let now = Instant::now();
        let now_read = read(sid, cgroup);
        let (cpu, rss) = (now_read.cpu_s, now_read.rss);
        threads_peak = threads_peak.max(now_read.threads);
        let dt = now.duration_since(last.0).as_secs_f64();
        if let (Some(c), Some(p)) = (cpu, last.1) {
            // Only full intervals count for the peak: a short last slice is too noisy.
            if dt >= interval.as_secs_f64() * 0.9 {
                let pct = (c - p) / dt * 100.0;
                peak_pct = Some(peak_pct.map_or(pct, |x| x.max(pct)));
            }
        }
        if cpu.is_some() {
            cpu_end = cpu;
            t_end = now;
        }
        let t = now.duration_since(t0).as_secs_f64();
        if let Some(rss) = rss {
            rss_sum += rss as u128;
            rss_peak = Some(rss_peak.map_or(rss, |x| x.max(rss)));
            samples += 1;
            rss_samples.push((t, rss));
        }
        // Read at every sample, so the probe's list of recent pauses never runs past a read.
        if let Some(g) = gc_now() {
            gc_latest = Some(g);
        }
        if t - last_point.0 >= SERIES_STEP_S * 0.999 || stop() {
            let cpu_pct = match (cpu, last_point.1) {
                (Some(c), Some(p)) if t > last_point.0 => {
                    Some((c - p) / (t - last_point.0) * 100.0)
                }
                _ => None,
            };
            let g = gc_latest.as_ref();
            series.push(VitalsPoint {
                t_s: (t * 1000.0).round() / 1000.0,
                cpu_pct: cpu_pct.map(|c| (c * 10.0).round() / 10.0),
                rss_bytes: rss,
                gc_count: g.map(|g| g.count),
                gc_total_ms: g.map(|g| g.total_ms),
            });
            last_point = (t, cpu.or(last_point.1));
        }
        last = (now, cpu.or(last.1));
        if stop() {
            break;
        }
    }
    vitals_of(
        source,
        interval,
        Window {
            cpu: (cpu0, cpu_end),
            secs: t_end.duration_since(t0).as_secs_f64(),
            peak_pct,
            rss_sum,
            rss_peak,
            samples,
            threads_peak,
        },
        series,
        memory_trend(&rss_samples),
    )
}

/// What the sample loop gathered over a window.
struct Window {
    /// CPU seconds at the first and the last sample that could be read.
    cpu: (Option<f64>, Option<f64>),
    /// Seconds between them.
    secs: f64,
    peak_pct: Option<f64>,
    rss_sum: u128,
    rss_peak: Option<u64>,
    /// Samples whose RSS could be read.
    samples: u32,
    /// The most threads of the target's processes at one sample.
    threads_peak: Option<u32>,
}

/// The window's figures: each one None ("unmeasured") when nothing of it could be read,
/// never 0 (a target killed before the window has no CPU or memory figure).
fn vitals_of(
    source: &str,
    interval: Duration,
    w: Window,
    series: Vec<VitalsPoint>,
    memory_trend: Option<MemoryTrend>,
) -> Vitals {
    let cpu_avg_pct = match w.cpu {
        (Some(a), Some(b)) if w.secs > 0.0 => Some((b - a) / w.secs * 100.0),
        _ => None,
    };
    Vitals {
        cpu_source: source.to_string(),
        cpu_avg_pct,
        cpu_peak_pct: match (w.peak_pct, cpu_avg_pct) {
            (Some(p), Some(a)) => Some(p.max(a)),
            (p, a) => p.or(a),
        },
        rss_avg_bytes: (w.samples > 0).then(|| (w.rss_sum / w.samples as u128) as u64),
        rss_peak_bytes: w.rss_peak,
        threads_peak: w.threads_peak,
        samples: w.samples,
        interval_s: interval.as_secs_f64(),
        gc: None,
        verified_cpus: None,
        series,
        memory_trend,
    }
}

/// Least-squares line through (seconds, bytes); None with fewer than 3 samples or no time.
pub fn memory_trend(samples: &[(f64, u64)]) -> Option<MemoryTrend> {
    let n = samples.len();
    if n < 3 {
        return None;
    }
    let nf = n as f64;
    let mx = samples.iter().map(|s| s.0).sum::<f64>() / nf;
    let my = samples.iter().map(|s| s.1 as f64).sum::<f64>() / nf;
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in samples {
        let (dx, dy) = (x - mx, y as f64 - my);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    // A flat series explains itself perfectly: call it R² = 1 with slope 0.
    let r2 = if syy > 0.0 {
        (sxy * sxy) / (sxx * syy)
    } else {
        1.0
    };
    let x0 = samples[0].0;
    let x1 = samples[n - 1].0;
    let at = |x: f64| (my + slope * (x - mx)).max(0.0) as u64;
    Some(MemoryTrend {
        slope_mib_per_min: slope * 60.0 / (1024.0 * 1024.0),
        r2,
        fit_start_bytes: at(x0),
        fit_end_bytes: at(x1),
        window_s: x1 - x0,
        samples: n as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::process::spawn_sh;

    /// The vitals of `pid` sampled every `every_ms` for `for_ms`, the whole run a window.
    fn sampled(pid: i32, every_ms: u64, for_ms: u64) -> Vitals {
        let s = Sampler::start(
            pid,
            None,
            None,
            Duration::from_millis(every_ms),
            Box::new(|| true),
            Box::new(|| false),
        );
        std::thread::sleep(Duration::from_millis(for_ms));
        s.finish()
    }

    #[test]
    fn busy_child_shows_about_one_core() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = spawn_sh("while :; do :; done", dir.path());
        let v = sampled(p.pid, 100, 800);
        p.stop(Duration::from_millis(200));
        // A busy loop uses one core; a lifetime average or a wrong tick rate would not be
        // near 100% (the bound is loose because the other core may be busy in tests).
        let cpu = v.cpu_avg_pct.unwrap();
        assert!(cpu > 40.0 && cpu < 130.0, "{v:?}");
        assert!(v.rss_peak_bytes.unwrap() > 0);
        assert!(v.samples >= 5);
        // One point a second (the last one closes the window).
        assert!(
            !v.series.is_empty() && v.series.len() <= 2,
            "{:?}",
            v.series
        );
    }

    #[test]
    fn threads_are_counted_over_every_process_of_the_session() {
        let dir = tempfile::tempdir().unwrap();
        // The shell and two children, one thread each: three, where the leader alone
        // would be one.
        let mut p = spawn_sh("sleep 2 & sleep 2 & wait", dir.path());
        let v = sampled(p.pid, 50, 400);
        p.stop(Duration::from_millis(200));
        assert_eq!(v.threads_peak, Some(3), "{v:?}");
        // Gone: no threads read, not zero.
        assert_eq!(read(p.pid, None).threads, None);
    }

    #[test]
    fn a_target_that_exits_adds_no_zero_memory_samples() {
        let dir = tempfile::tempdir().unwrap();
        // Alive for the first third of the sampling, then gone.
        let mut p = spawn_sh("sleep 0.3", dir.path());
        let v = sampled(p.pid, 50, 900);
        p.stop(Duration::from_millis(200));
        let (avg, peak) = (v.rss_avg_bytes.unwrap(), v.rss_peak_bytes.unwrap());
        assert!(peak > 0, "{v:?}");
        // Every sample counted was of the living process: the average is near the peak
        // (zeros after the exit would pull it to about a third). Not closer than 0.6: the
        // shell's own RSS moves by a fifth while it starts and forks `sleep` (CI saw 0.79).
        assert!(avg as f64 >= peak as f64 * 0.6, "avg {avg} peak {peak}");
        // The points after the exit say their memory was not read, not that it was 0.
        assert!(v.series.iter().all(|p| p.rss_bytes != Some(0)), "{v:?}");
        assert!(
            v.samples < 12,
            "samples after the exit were counted: {}",
            v.samples
        );
    }

    #[test]
    fn a_target_gone_before_the_window_has_no_figures() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = spawn_sh("exit 0", dir.path());
        // Gone (and reaped) before sampling starts: a target killed before its window.
        p.stop(Duration::from_millis(500));
        let v = sampled(p.pid, 50, 300);
        // Unmeasured, not zero: a report must not show "0 B" or "0%" for it.
        assert_eq!(v.samples, 0, "{v:?}");
        assert_eq!((v.rss_avg_bytes, v.rss_peak_bytes), (None, None), "{v:?}");
        assert_eq!((v.cpu_avg_pct, v.cpu_peak_pct), (None, None), "{v:?}");
        assert!(
            v.series
                .iter()
                .all(|p| p.rss_bytes.is_none() && p.cpu_pct.is_none()),
            "{v:?}"
        );
        let json = serde_json::to_value(&v).unwrap();
        assert!(json["rss_peak_bytes"].is_null() && json["cpu_avg_pct"].is_null());
    }

    #[test]
    fn trend_fits_a_line() {
        let mib = 1024.0 * 1024.0;
        // 2 MiB per second on top of 100 MiB: 120 MiB per minute, a perfect fit.
        let s: Vec<(f64, u64)> = (0..20)
            .map(|i| (i as f64 * 0.5, ((100.0 + i as f64) * mib) as u64))
            .collect();
        let t = memory_trend(&s).unwrap();
        assert!((t.slope_mib_per_min - 120.0).abs() < 0.01, "{t:?}");
        assert!(t.r2 > 0.999);
        assert_eq!(t.fit_start_bytes, (100.0 * mib) as u64);
        // A sawtooth around a flat level: no slope to speak of, poor fit.
        let saw: Vec<(f64, u64)> = (0..40)
            .map(|i| (i as f64, ((100 + (i % 4) * 5) as f64 * mib) as u64))
            .collect();
        let t = memory_trend(&saw).unwrap();
        assert!(t.slope_mib_per_min.abs() < 5.0, "{t:?}");
        assert!(t.r2 < 0.2, "{t:?}");
        assert!(memory_trend(&s[..2]).is_none());
    }
}
