//! The live progress board of a run, shared by its workers and read by progress bars: a
//! stage that only moves forward, the time into the measured window, and a few counters.
//! Workers publish what changed since their last publication about every 100 ms (see
//! `ticker`), never per request or message, so the hot path touches no shared cache line.
//! `LiveStats` (HTTP load) and `SubscribeLive` (subscriptions) are views of one board each.

use std::sync::atomic::{AtomicI64, AtomicU64, AtomicU8, Ordering};

/// Where a run is. Each kind of run names the stages it goes through in its public phase
/// type; HTTP load has no connect stage of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum RunStage {
    NotStarted = 0,
    Connecting = 1,
    Warmup = 2,
    Measure = 3,
    Done = 4,
}

/// Shared progress of one run: `N` counters (signed, so that a level such as "connections
/// held now" is published as deltas like a count).
#[derive(Debug)]
pub(crate) struct Board<const N: usize> {
    stage: AtomicU8,
    elapsed_ms: AtomicU64,
    counts: [AtomicI64; N],
}

impl<const N: usize> Default for Board<N> {
    fn default() -> Self {
        Board {
            stage: AtomicU8::new(RunStage::NotStarted as u8),
            elapsed_ms: AtomicU64::new(0),
            counts: std::array::from_fn(|_| AtomicI64::new(0)),
        }
    }
}

impl<const N: usize> Board<N> {
    pub fn stage(&self) -> RunStage {
        match self.stage.load(Ordering::Relaxed) {
            1 => RunStage::Connecting,
            2 => RunStage::Warmup,
            3 => RunStage::Measure,
            4 => RunStage::Done,
            _ => RunStage::NotStarted,
        }
    }

    /// Moves to `stage` unless the run is already further: several workers report.
    pub fn enter(&self, stage: RunStage) {
        self.stage.fetch_max(stage as u8, Ordering::Relaxed);
    }

    /// Counter `i` as published so far.
    pub fn count(&self, i: usize) -> i64 {
        self.counts[i].load(Ordering::Relaxed)
    }

    /// Adds what changed between a worker's last publication and now.
    pub fn publish(&self, before: &[i64; N], now: &[i64; N]) {
        for ((c, b), n) in self.counts.iter().zip(before).zip(now) {
            if n != b {
                c.fetch_add(n - b, Ordering::Relaxed);
            }
        }
    }

    /// Milliseconds since the measured window started (0 before it).
    pub fn elapsed_ms(&self) -> u64 {
        self.elapsed_ms.load(Ordering::Relaxed)
    }

    /// Workers see the clock at different moments: the furthest wins.
    pub fn set_elapsed_ms(&self, ms: u64) {
        self.elapsed_ms.fetch_max(ms, Ordering::Relaxed);
    }

    pub fn reset(&self) {
        self.stage
            .store(RunStage::NotStarted as u8, Ordering::Relaxed);
        self.elapsed_ms.store(0, Ordering::Relaxed);
        for c in &self.counts {
            c.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_of_several_workers_add_up_and_the_stage_never_goes_back() {
        let b = Board::<2>::default();
        // Worker A publishes twice (its second publication carries the difference only),
        // worker B once; counter 1 is a level that went up, then down.
        b.publish(&[0, 0], &[5, 3]);
        b.publish(&[5, 3], &[7, 1]);
        b.publish(&[0, 0], &[2, 2]);
        assert_eq!((b.count(0), b.count(1)), (9, 3));
        b.enter(RunStage::Measure);
        b.enter(RunStage::Warmup);
        assert_eq!(b.stage(), RunStage::Measure);
        b.set_elapsed_ms(300);
        b.set_elapsed_ms(200);
        assert_eq!(b.elapsed_ms(), 300);
        b.reset();
        assert_eq!(
            (b.stage(), b.count(0), b.elapsed_ms()),
            (RunStage::NotStarted, 0, 0)
        );
    }
}
