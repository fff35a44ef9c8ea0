//! Progress of a running subscription load for progress bars. Workers publish their local
//! counters here about every 100 ms, never per message.

use std::sync::atomic::{AtomicI64, AtomicU64, AtomicU8, Ordering};

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
    phase: AtomicU8,
    attempted: AtomicU64,
    subscribed: AtomicU64,
    held: AtomicI64,
    setup_failed: AtomicU64,
    dropped: AtomicU64,
    messages: AtomicU64,
    invalid: AtomicU64,
    elapsed_ms: AtomicU64,
}

/// A worker's counters as last published (to publish deltas).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct LiveCounts {
    pub attempted: u64,
    pub subscribed: u64,
    pub held: i64,
    pub setup_failed: u64,
    pub dropped: u64,
    pub messages: u64,
    pub invalid: u64,
}

impl SubscribeLive {
    pub fn phase(&self) -> SubscribePhase {
        match self.phase.load(Ordering::Relaxed) {
            1 => SubscribePhase::Connecting,
            2 => SubscribePhase::Warmup,
            3 => SubscribePhase::Measure,
            4 => SubscribePhase::Done,
            _ => SubscribePhase::NotStarted,
        }
    }
    /// Connections started so far.
    pub fn attempted(&self) -> u64 {
        self.attempted.load(Ordering::Relaxed)
    }
    /// Connections subscribed so far.
    pub fn subscribed(&self) -> u64 {
        self.subscribed.load(Ordering::Relaxed)
    }
    /// Subscribed connections open now.
    pub fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed).max(0) as u64
    }
    /// Connections that failed to subscribe so far.
    pub fn setup_failed(&self) -> u64 {
        self.setup_failed.load(Ordering::Relaxed)
    }
    /// Subscribed connections lost so far.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
    /// Messages received in the measured window so far.
    pub fn messages(&self) -> u64 {
        self.messages.load(Ordering::Relaxed)
    }
    /// Invalid messages in the measured window so far.
    pub fn invalid(&self) -> u64 {
        self.invalid.load(Ordering::Relaxed)
    }
    /// Milliseconds since the measured window started (0 before).
    pub fn elapsed_ms(&self) -> u64 {
        self.elapsed_ms.load(Ordering::Relaxed)
    }

    pub(crate) fn set_phase(&self, p: SubscribePhase) {
        let v = match p {
            SubscribePhase::NotStarted => 0,
            SubscribePhase::Connecting => 1,
            SubscribePhase::Warmup => 2,
            SubscribePhase::Measure => 3,
            SubscribePhase::Done => 4,
        };
        // Phases only move forward even though several workers report them.
        self.phase.fetch_max(v, Ordering::Relaxed);
    }

    /// Adds what changed since `before`.
    pub(crate) fn publish(&self, before: &LiveCounts, now: &LiveCounts) {
        let add = |a: &AtomicU64, old: u64, new: u64| {
            if new > old {
                a.fetch_add(new - old, Ordering::Relaxed);
            }
        };
        add(&self.attempted, before.attempted, now.attempted);
        add(&self.subscribed, before.subscribed, now.subscribed);
        add(&self.setup_failed, before.setup_failed, now.setup_failed);
        add(&self.dropped, before.dropped, now.dropped);
        add(&self.messages, before.messages, now.messages);
        add(&self.invalid, before.invalid, now.invalid);
        if now.held != before.held {
            self.held
                .fetch_add(now.held - before.held, Ordering::Relaxed);
        }
    }

    pub(crate) fn set_elapsed_ms(&self, ms: u64) {
        self.elapsed_ms.fetch_max(ms, Ordering::Relaxed);
    }

    pub(crate) fn reset(&self) {
        self.phase.store(0, Ordering::Relaxed);
        for a in [
            &self.attempted,
            &self.subscribed,
            &self.setup_failed,
            &self.dropped,
            &self.messages,
            &self.invalid,
            &self.elapsed_ms,
        ] {
            a.store(0, Ordering::Relaxed);
        }
        self.held.store(0, Ordering::Relaxed);
    }
}
