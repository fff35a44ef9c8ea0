//! Progress of a running HTTP load for progress bars: the harness's live board (see
//! `harness::live`) read as requests and failures of the measured window, plus the
//! window's length as it stands (an extension moves it).
//!
//! It sits beside `plan` and `load` rather than inside `load` because both hold it: the
//! caller's [`Control`](crate::Control) in `plan` carries it in, the workers in `load`
//! fill it. Kept below both, the plan does not depend on the code that runs it.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::harness::live::{Board, RunStage};

/// The board's counters: requests completed, failures (measured window only).
pub(crate) const LIVE_COUNTERS: usize = 2;
pub(crate) const REQUESTS: usize = 0;
pub(crate) const FAILURES: usize = 1;

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
    board: Board<LIVE_COUNTERS>,
    /// Length of the measured window as it stands, ms (0: not known, a request count).
    window_ms: AtomicU64,
}

impl LiveStats {
    pub fn phase(&self) -> Phase {
        match self.board.stage() {
            RunStage::NotStarted | RunStage::Connecting => Phase::NotStarted,
            RunStage::Warmup => Phase::Warmup,
            RunStage::Measure => Phase::Measure,
            RunStage::Done => Phase::Done,
        }
    }
    /// Requests completed in the measured window so far.
    pub fn requests(&self) -> u64 {
        self.board.count(REQUESTS).max(0) as u64
    }
    /// Failed requests in the measured window so far.
    pub fn failures(&self) -> u64 {
        self.board.count(FAILURES).max(0) as u64
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
        self.board.elapsed_ms()
    }

    pub(crate) fn board(&self) -> &Board<LIVE_COUNTERS> {
        &self.board
    }

    pub(crate) fn reset(&self) {
        self.board.reset();
        self.window_ms.store(0, Ordering::Relaxed);
    }
}
