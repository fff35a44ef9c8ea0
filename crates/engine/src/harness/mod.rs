//! The worker harness shared by HTTP load and subscriptions. A run is a set of workers, each
//! one OS thread (pinned when asked) with its own single-threaded tokio runtime, so that
//! everything a worker touches per request or message is owned by its thread:
//!
//! 1. the harness starts the threads; each prepares what it can before the load (opens its
//!    connections, sets up its epoll set) and waits at the start line (`gate`);
//! 2. once every worker has arrived the load starts for all at one instant; the caller's
//!    coordinator runs meanwhile on the calling thread (window extension, connect phase);
//! 3. in each worker a ticker (`ticker`) watches cancel and the window, measures the
//!    thread's CPU and publishes progress to the live board (`live`), and ends the worker;
//! 4. the harness joins the workers and merges their records (`merge`).
//!
//! What the load does on a worker is the caller's: a setup step before the start line, a
//! start step that spawns its tasks, and a [`Driver`] that tells the ticker about them.

mod gate;
pub(crate) use gate::StartAt;
pub(crate) mod live;
pub(crate) mod merge;
pub(crate) mod ticker;
mod worker;

#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::error::EngineError;
use gate::{Arrival, StartGate};
use live::{Board, RunStage};
pub(crate) use merge::{merge_all, share, Merge};
pub(crate) use ticker::{Driver, Span};

/// Time between the last worker reaching the start line and the start of the load, so
/// every worker is waiting when it comes.
const LEAD: Duration = Duration::from_millis(20);

/// What the harness needs of a worker's records besides merging them: the counters shown
/// live (in the order of the run's board), and a place for the thread's CPU time.
pub(crate) trait Record<const N: usize>: Merge {
    fn progress(&self) -> [i64; N];
    /// CPU time of the worker's thread during the measured window, seconds.
    fn set_cpu(&mut self, cpu_s: f64);
}

/// How a run is laid out over threads.
#[derive(Debug)]
pub(crate) struct Harness<'a, const N: usize> {
    /// Threads are named `<name>-<worker>`.
    pub name: &'static str,
    pub threads: usize,
    /// Pin worker `w` to `cpus[w % len]`.
    pub cpus: Option<&'a [usize]>,
    pub cancel: &'a AtomicBool,
    pub board: &'a Board<N>,
    /// Timer slack of 1 µs on the worker threads (sending on schedule needs it).
    pub precise_timers: bool,
    /// How long the start waits for a worker still preparing before it goes ahead.
    pub gate_limit: Duration,
    /// The start at the earliest, and its grid when missed (runs that share a clock start
    /// on it together).
    pub start_at: Option<StartAt>,
}

/// Why a worker must stop: the caller cancelled, or the harness gave up on the run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Flags<'a> {
    cancel: &'a AtomicBool,
    abort: &'a AtomicBool,
}

impl Flags<'_> {
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed) || self.abort.load(Ordering::Relaxed)
    }
}

/// One worker's place in the run, handed to its thread.
#[derive(Debug)]
pub(crate) struct Seat<'a, const N: usize> {
    pub worker: usize,
    cpus: Option<Vec<usize>>,
    /// The worker's place at the start line: it arrives when it waits there, or when the
    /// seat is dropped (a worker that fails or panics first never holds the others up).
    arrival: Arrival<'a>,
    pub flags: Flags<'a>,
    board: &'a Board<N>,
    precise_timers: bool,
}

/// What a worker hands back.
#[derive(Debug)]
pub(crate) struct Outcome<R> {
    pub rec: R,
    /// CPUs the thread runs on, read back after pinning.
    pub pinned: Option<Vec<usize>>,
    /// When the worker saw the cancel.
    pub interrupted_at: Option<Instant>,
}

/// The workers' outcomes, merged.
#[derive(Debug)]
pub(crate) struct Joined<R> {
    pub rec: R,
    /// Every CPU a worker was pinned to (None when not pinned).
    pub pinned_cpus: Option<Vec<usize>>,
    /// The earliest cancel a worker saw.
    pub interrupted_at: Option<Instant>,
}

/// The run as the coordinator sees it while the workers run.
#[derive(Debug)]
pub(crate) struct Running<'a> {
    /// The instant the load started.
    pub start: Instant,
    ended: &'a AtomicUsize,
    threads: usize,
}

impl Running<'_> {
    pub fn any_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire) > 0
    }
    pub fn all_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire) >= self.threads
    }
}

/// Counts its worker as ended when dropped, however the worker ends.
struct Ended<'a>(&'a AtomicUsize);

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

impl<const N: usize> Harness<'_, N> {
    /// Runs `worker` on every worker thread and `coordinate` on the calling thread once the
    /// load has started; returns the merged records and what `coordinate` returned. The
    /// first worker error (or panic) is the run's error.
    pub fn run<R, T>(
        &self,
        worker: impl Fn(Seat<'_, N>) -> Result<Outcome<R>, EngineError> + Sync,
        coordinate: impl FnOnce(&Running<'_>) -> T,
    ) -> Result<(Joined<R>, T), EngineError>
    where
        R: Record<N> + Send,
    {
        let gate = StartGate::new(self.threads);
        let abort = AtomicBool::new(false);
        let ended = AtomicUsize::new(0);
        let flags = Flags {
            cancel: self.cancel,
            abort: &abort,
        };
        let worker = &worker;
        let joined = std::thread::scope(|s| {
            let mut handles = Vec::with_capacity(self.threads);
            for w in 0..self.threads {
                let seat = Seat {
                    worker: w,
                    cpus: self
                        .cpus
                        .filter(|c| !c.is_empty())
                        .map(|c| vec![c[w % c.len()]]),
                    arrival: gate.arrival(),
                    flags,
                    board: self.board,
                    precise_timers: self.precise_timers,
                };
                let ended = &ended;
                let spawned = std::thread::Builder::new()
                    .name(format!("{}-{w}", self.name))
                    .spawn_scoped(s, move || {
                        let _ended = Ended(ended);
                        worker(seat)
                    });
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        // Release the workers already started and let them end at once.
                        abort.store(true, Ordering::Relaxed);
                        gate.open_when_ready(Duration::ZERO, Duration::ZERO, &abort, None);
                        for h in handles {
                            let _ = h.join();
                        }
                        return Err(EngineError::from(e));
                    }
                }
            }
            let start = gate.open_when_ready(self.gate_limit, LEAD, self.cancel, self.start_at);
            let t = coordinate(&Running {
                start,
                ended: &ended,
                threads: self.threads,
            });
            let mut outcomes = Vec::with_capacity(self.threads);
            let mut first_err = None;
            for (w, h) in handles.into_iter().enumerate() {
                match h.join() {
                    Ok(Ok(o)) => outcomes.push(o),
                    Ok(Err(e)) => {
                        first_err.get_or_insert(e);
                    }
                    Err(_) => {
                        first_err.get_or_insert(EngineError::WorkerPanicked(w));
                    }
                }
            }
            match first_err {
                Some(e) => Err(e),
                None => Ok((outcomes, t)),
            }
        });
        self.board.enter(RunStage::Done);
        let (outcomes, t) = joined?;
        let interrupted_at = outcomes.iter().filter_map(|o| o.interrupted_at).min();
        let pinned_cpus = self.cpus.map(|_| {
            let mut all: Vec<usize> = outcomes
                .iter()
                .filter_map(|o| o.pinned.clone())
                .flatten()
                .collect();
            all.sort_unstable();
            all.dedup();
            all
        });
        let rec = merge_all(outcomes.into_iter().map(|o| o.rec))
            .ok_or_else(|| EngineError::InvalidPlan("no worker threads".into()))?;
        Ok((
            Joined {
                rec,
                pinned_cpus,
                interrupted_at,
            },
            t,
        ))
    }
}
