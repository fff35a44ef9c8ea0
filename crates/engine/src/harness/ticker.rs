//! The ticker of a worker: one task beside the load's own tasks that watches the cancel
//! flag and the measured window, moves the run's stage forward, reads the thread's CPU
//! clock at the window's start and end, and publishes the worker's counters to the live
//! board about every 100 ms. It ends the worker: once the load says it is done (its tasks
//! ended, or the window and its grace are over) or the run is cancelled, it returns and the
//! worker drops its runtime with every task and socket still open.
//!
//! What differs between HTTP load and subscriptions is behind [`Driver`]: how the window is
//! known (fixed at the start, or by the coordinator after the connect phase), when the
//! worker is done, and what it samples on each tick.

use std::cell::RefCell;
use std::future::pending;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::live::{Board, RunStage};
use super::{Flags, Record};
use crate::affinity;

/// Period of the ticker.
pub(crate) const TICK: Duration = Duration::from_millis(10);
/// Progress is published at most this often.
const PUBLISH_EVERY: Duration = Duration::from_millis(100);

/// The measured window as a worker knows it now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: Instant,
    /// None for a window ended by a request count.
    pub end: Option<Instant>,
}

impl Span {
    /// Time into the window at `now` (zero before it, at most its length).
    fn elapsed(&self, now: Instant) -> Duration {
        let until = self.end.map_or(now, |e| now.min(e));
        until.saturating_duration_since(self.start)
    }
}

/// The per-worker state of one kind of load, as the ticker sees it. It lives on the worker's
/// thread, shared by the worker's tasks.
pub(crate) trait Driver<const N: usize> {
    type Rec: Record<N>;

    fn rec(&self) -> &RefCell<Self::Rec>;

    /// The window as it stands, or None while it is not fixed yet.
    fn window(&self) -> Option<Span>;

    /// True when the worker has nothing more to do.
    fn done(&self, now: Instant) -> bool;

    /// Runs first on every tick (time-based bookkeeping of the load).
    fn tick(&self, _now: Instant) {}

    /// The run was cancelled: nothing more may be sent.
    fn stop(&self) {}

    /// Wakes the ticker before its next tick, e.g. when the last task ends.
    fn woken(&self) -> Option<&Notify> {
        None
    }

    /// The ticker ends at `now`: last bookkeeping before the runtime is dropped.
    fn finish(&self, _now: Instant) {}

    /// Takes the records out at the end (the worker's state is dropped after).
    fn take_rec(&self) -> Self::Rec;
}

/// Runs until the driver is done or the run is cancelled; returns the cancel time if
/// cancelled.
pub(crate) async fn ticker<const N: usize, D: Driver<N>>(
    d: &D,
    board: &Board<N>,
    flags: &Flags<'_>,
) -> Option<Instant> {
    let mut cpu_start = None;
    let mut cpu_end = None;
    let mut published = [0i64; N];
    let mut last_publish = Instant::now();
    let mut warmup_seen = false;
    let (interrupted, ended) = loop {
        let now = Instant::now();
        d.tick(now);
        let window = d.window();
        if let Some(w) = window {
            if !warmup_seen {
                warmup_seen = true;
                board.enter(RunStage::Warmup);
            }
            if cpu_start.is_none() && now >= w.start {
                cpu_start = Some(affinity::thread_cpu_time());
                board.enter(RunStage::Measure);
            }
            if cpu_end.is_none() && w.end.is_some_and(|e| now >= e) {
                cpu_end = Some(affinity::thread_cpu_time());
            }
        }
        let cancelled = flags.cancelled();
        let done = d.done(now);
        if now.duration_since(last_publish) >= PUBLISH_EVERY || cancelled || done {
            let counts = d.rec().borrow().progress();
            board.publish(&published, &counts);
            published = counts;
            if let Some(w) = window.filter(|w| now >= w.start) {
                board.set_elapsed_ms(w.elapsed(now).as_millis() as u64);
            }
            last_publish = now;
        }
        if cancelled {
            d.stop();
            break (Some(now), now);
        }
        if done {
            break (None, now);
        }
        let mut next = now + TICK;
        if let Some(w) = window {
            for t in std::iter::once(w.start).chain(w.end) {
                if t > now {
                    next = next.min(t);
                }
            }
        }
        let woken = async {
            match d.woken() {
                Some(n) => n.notified().await,
                None => pending().await,
            }
        };
        tokio::select! {
            _ = woken => {}
            _ = tokio::time::sleep_until(next.into()) => {}
        }
    };
    let end = cpu_end.unwrap_or_else(affinity::thread_cpu_time);
    let cpu_s = cpu_start.map_or(0.0, |s| end.saturating_sub(s).as_secs_f64());
    d.rec().borrow_mut().set_cpu(cpu_s);
    d.finish(ended);
    interrupted
}
