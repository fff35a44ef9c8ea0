//! Progress of a running load for progress bars. Workers publish their local counters
//! here about every 100 ms, never per request, so the hot path touches no shared cache line.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    NotStarted,
    Warmup,
    Measure,
    Done,
}

/// Shared progress counters (measured window only).
#[derive(Debug, Default)]
pub struct LiveStats {
    phase: AtomicU8,
    requests: AtomicU64,
    failures: AtomicU64,
    elapsed_ms: AtomicU64,
    /// Length of the measured window as it stands, ms (0: not known, a request count).
    window_ms: AtomicU64,
}

impl LiveStats {
    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Relaxed) {
            1 => Phase::Warmup,
            2 => Phase::Measure,
            3 => Phase::Done,
            _ => Phase::NotStarted,
        }
    }
    /// Requests completed in the measured window so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }
    /// Failed requests in the measured window so far.
    pub fn failures(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }
    /// Length of the measured window as it stands now (it may be extended), ms; 0 when a
    /// request count ends it.
    pub fn window_ms(&self) -> u64 {
        self.window_ms.load(Ordering::Relaxed)
    }
    pub(crate) fn set_window_ms(&self, ms: u64) {
        self.window_ms.store(ms, Ordering::Relaxed);
    }
    /// Milliseconds since the measured window started (0 during warm-up).
    pub fn elapsed_ms(&self) -> u64 {
        self.elapsed_ms.load(Ordering::Relaxed)
    }

    pub(crate) fn set_phase(&self, p: Phase) {
        let v = match p {
            Phase::NotStarted => 0,
            Phase::Warmup => 1,
            Phase::Measure => 2,
            Phase::Done => 3,
        };
        // Phases only move forward even though several workers report them.
        self.phase.fetch_max(v, Ordering::Relaxed);
    }
    pub(crate) fn add(&self, requests: u64, failures: u64) {
        if requests > 0 {
            self.requests.fetch_add(requests, Ordering::Relaxed);
        }
        if failures > 0 {
            self.failures.fetch_add(failures, Ordering::Relaxed);
        }
    }
    pub(crate) fn set_elapsed_ms(&self, ms: u64) {
        self.elapsed_ms.fetch_max(ms, Ordering::Relaxed);
    }
    pub(crate) fn reset(&self) {
        self.phase.store(0, Ordering::Relaxed);
        self.requests.store(0, Ordering::Relaxed);
        self.failures.store(0, Ordering::Relaxed);
        self.elapsed_ms.store(0, Ordering::Relaxed);
        self.window_ms.store(0, Ordering::Relaxed);
    }
}
