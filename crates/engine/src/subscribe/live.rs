//! Progress of a running subscription load for progress bars: the harness's live board
//! (see `harness::live`) read as connections and messages.

use crate::harness::live::{Board, RunStage};

/// The board's counters, in this order.
pub(crate) const LIVE_COUNTERS: usize = 7;
pub(crate) const ATTEMPTED: usize = 0;
pub(crate) const SUBSCRIBED: usize = 1;
pub(crate) const HELD: usize = 2;
pub(crate) const SETUP_FAILED: usize = 3;
pub(crate) const DROPPED: usize = 4;
pub(crate) const MESSAGES: usize = 5;
pub(crate) const INVALID: usize = 6;

/// Where a subscription run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscribePhase {
    NotStarted,
    Connecting,
    Warmup,
    Measure,
    Done,
}

/// Shared progress counters.
#[derive(Debug, Default)]
pub struct SubscribeLive {
    board: Board<LIVE_COUNTERS>,
}

impl SubscribeLive {
    pub fn phase(&self) -> SubscribePhase {
        match self.board.stage() {
            RunStage::NotStarted => SubscribePhase::NotStarted,
            RunStage::Connecting => SubscribePhase::Connecting,
            RunStage::Warmup => SubscribePhase::Warmup,
            RunStage::Measure => SubscribePhase::Measure,
            RunStage::Done => SubscribePhase::Done,
        }
    }
    fn count(&self, i: usize) -> u64 {
        self.board.count(i).max(0) as u64
    }
    /// Connections started so far.
    pub fn attempted(&self) -> u64 {
        self.count(ATTEMPTED)
    }
    /// Connections subscribed so far.
    pub fn subscribed(&self) -> u64 {
        self.count(SUBSCRIBED)
    }
    /// Subscribed connections open now.
    pub fn held(&self) -> u64 {
        self.count(HELD)
    }
    /// Connections that failed to subscribe so far.
    pub fn setup_failed(&self) -> u64 {
        self.count(SETUP_FAILED)
    }
    /// Subscribed connections lost so far.
    pub fn dropped(&self) -> u64 {
        self.count(DROPPED)
    }
    /// Messages received in the measured window so far.
    pub fn messages(&self) -> u64 {
        self.count(MESSAGES)
    }
    /// Invalid messages in the measured window so far.
    pub fn invalid(&self) -> u64 {
        self.count(INVALID)
    }
    /// Milliseconds since the measured window started (0 before).
    pub fn elapsed_ms(&self) -> u64 {
        self.board.elapsed_ms()
    }

    pub(crate) fn board(&self) -> &Board<LIVE_COUNTERS> {
        &self.board
    }
}
