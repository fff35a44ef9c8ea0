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
use super::isolate::Cgroup;
use super::procfs;
use crate::results::Vitals;

/// A condition the sampler polls (start or end of the measured window).
pub type Condition = Box<dyn Fn() -> bool + Send>;

pub struct Sampler {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Vitals>>,
}

/// CPU seconds and RSS bytes of the target right now.
pub fn read(sid: i32, cgroup: Option<&Cgroup>) -> (Option<f64>, u64, &'static str) {
    let members = procfs::session_members(sid);
    let rss = members.iter().map(|m| m.rss_pages).sum::<u64>() * procfs::page_size();
    if let Some(cpu) = cgroup.and_then(|c| c.cpu_seconds()) {
        return (Some(cpu), rss, "cgroup");
    }
    if members.is_empty() {
        return (None, 0, "proc");
    }
    let ticks: u64 = members.iter().map(|m| m.cpu_ticks).sum();
    (Some(ticks as f64 / procfs::clock_ticks()), rss, "proc")
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
                let gc0 = gc_file.as_deref().and_then(gc::read);
                let stop = || flag.load(Ordering::Relaxed) || end();
                let mut v = sample_loop(sid, cgroup.as_deref(), interval, &stop);
                let gc1 = gc_file.as_deref().and_then(gc::read);
                if let (Some(a), Some(b)) = (gc0, gc1) {
                    v.gc = Some(gc::delta(&a, &b));
                }
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

/// Samples until `stop()` says the window is over.
fn sample_loop(
    sid: i32,
    cgroup: Option<&Cgroup>,
    interval: Duration,
    stop: &dyn Fn() -> bool,
) -> Vitals {
    let t0 = Instant::now();
    let (cpu0, rss0, source) = read(sid, cgroup);
    let mut last = (t0, cpu0);
    let mut peak_pct: f64 = 0.0;
    let mut rss_sum: u128 = rss0 as u128;
    let mut rss_peak = rss0;
    let mut samples: u32 = 1;
    let mut cpu_end = cpu0;
    let mut t_end = t0;
    loop {
        // Sleep in short steps so finish() returns promptly.
        let wake = last.0 + interval;
        while Instant::now() < wake && !stop() {
            std::thread::sleep(Duration::from_millis(5).min(interval));
        }
        let now = Instant::now();
        let (cpu, rss, _) = read(sid, cgroup);
        let dt = now.duration_since(last.0).as_secs_f64();
        if let (Some(c), Some(p)) = (cpu, last.1) {
            // Only full intervals count for the peak: a short last slice is too noisy.
            if dt >= interval.as_secs_f64() * 0.9 {
                peak_pct = peak_pct.max((c - p) / dt * 100.0);
            }
        }
        if cpu.is_some() {
            cpu_end = cpu;
            t_end = now;
        }
        rss_sum += rss as u128;
        rss_peak = rss_peak.max(rss);
        samples += 1;
        last = (now, cpu.or(last.1));
        if stop() {
            break;
        }
    }
    let window = t_end.duration_since(t0).as_secs_f64();
    let cpu_avg_pct = match (cpu0, cpu_end) {
        (Some(a), Some(b)) if window > 0.0 => (b - a) / window * 100.0,
        _ => 0.0,
    };
    Vitals {
        cpu_source: source.to_string(),
        cpu_avg_pct,
        cpu_peak_pct: peak_pct.max(cpu_avg_pct),
        rss_avg_bytes: (rss_sum / samples as u128) as u64,
        rss_peak_bytes: rss_peak,
        samples,
        interval_s: interval.as_secs_f64(),
        gc: None,
        verified_cpus: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::process::spawn_sh;

    #[test]
    fn busy_child_shows_about_one_core() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = spawn_sh("while :; do :; done", dir.path());
        let s = Sampler::start(
            p.pid,
            None,
            None,
            Duration::from_millis(100),
            Box::new(|| true),
            Box::new(|| false),
        );
        std::thread::sleep(Duration::from_millis(800));
        let v = s.finish();
        p.stop(Duration::from_millis(200));
        // A busy loop uses one core; a lifetime average or a wrong tick rate would not be
        // near 100% (the bound is loose because the other core may be busy in tests).
        assert!(v.cpu_avg_pct > 40.0 && v.cpu_avg_pct < 130.0, "{v:?}");
        assert!(v.rss_peak_bytes > 0);
        assert!(v.samples >= 5);
    }
}
