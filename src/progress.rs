//! Progress of long runs: what runs, trial k of n, live req/s and time left. On a terminal
//! an indicatif bar; otherwise (CI, pipes) one plain line per step on stderr.
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gqlbench_engine::{LiveStats, Phase};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Progress {
    bar: Option<ProgressBar>,
    /// Seconds of planned load already done (the bar's position is in milliseconds).
    done_ms: u64,
    quiet: bool,
}

impl Progress {
    pub fn new(total_secs: f64, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::with_draw_target(
                Some((total_secs * 1000.0) as u64),
                ProgressDrawTarget::stderr_with_hz(5),
            );
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] [{bar:30}] {percent:>3}% ~{eta} left  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            b
        });
        Progress {
            bar,
            done_ms: 0,
            quiet,
        }
    }

    /// A line that stays (above the bar on a terminal).
    pub fn line(&self, msg: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(b) => b.println(msg),
            None => eprintln!("{msg}"),
        }
    }

    pub fn message(&self, msg: String) {
        if let Some(b) = &self.bar {
            b.set_message(msg);
        }
    }

    /// Run `f` (one engine run of `secs` planned seconds) while the bar follows the live
    /// counters; afterwards the position is exactly past this step.
    pub fn follow<T>(
        &mut self,
        label: &str,
        secs: f64,
        live: &Arc<LiveStats>,
        f: impl FnOnce() -> T,
    ) -> T {
        let live = live.clone();
        self.follow_with(
            label,
            secs,
            move || match live.phase() {
                Phase::Warmup => "warm-up".to_string(),
                Phase::Measure => {
                    let ms = live.elapsed_ms().max(1);
                    format!(
                        "{:.0} req/s, {} failed",
                        live.requests() as f64 * 1000.0 / ms as f64,
                        live.failures()
                    )
                }
                _ => "connecting".to_string(),
            },
            f,
        )
    }

    /// As `follow`, with the status line given by `status` (polled every 100 ms).
    pub fn follow_with<T>(
        &mut self,
        label: &str,
        secs: f64,
        status: impl Fn() -> String + Send,
        f: impl FnOnce() -> T,
    ) -> T {
        let Some(bar) = self.bar.clone() else {
            self.done_ms += (secs * 1000.0) as u64;
            return f();
        };
        let base = self.done_ms;
        let stop = Arc::new(AtomicBool::new(false));
        let out = std::thread::scope(|s| {
            let stop2 = stop.clone();
            let label = label.to_string();
            s.spawn(move || {
                let t0 = std::time::Instant::now();
                while !stop2.load(Ordering::Relaxed) {
                    let el = t0.elapsed().as_millis() as u64;
                    bar.set_position(base + el.min((secs * 1000.0) as u64));
                    bar.set_message(format!("{label}: {}", status()));
                    std::thread::sleep(Duration::from_millis(100));
                }
            });
            let out = f();
            stop.store(true, Ordering::Relaxed);
            out
        });
        self.done_ms = base + (secs * 1000.0) as u64;
        if let Some(b) = &self.bar {
            b.set_position(self.done_ms);
        }
        out
    }

    /// Add seconds of load that were not planned (rounds added for precision).
    pub fn extend(&mut self, secs: f64) {
        if let Some(b) = &self.bar {
            b.inc_length((secs * 1000.0) as u64);
        }
    }

    /// Skip planned seconds that will not run (a target that failed to start).
    pub fn skip(&mut self, secs: f64) {
        self.done_ms += (secs * 1000.0) as u64;
        if let Some(b) = &self.bar {
            b.set_position(self.done_ms);
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
