//! The shared context of a subscription worker: what its connection tasks read (the
//! prepared messages) and where they report (the worker's recorder, and the count of
//! settled connections the coordinator waits for). Every transport records through it;
//! none of them depends on another.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::prepared::Prepared;
use super::record::{wall_us, Judged, SubRecorder};
use super::result::ConnectionFailureKind;

/// What the coordinator and the workers of a run share.
#[derive(Debug)]
pub struct Shared {
    base: Instant,
    /// Connections subscribed or failed.
    settled: AtomicU64,
    /// Start of the measured window, in ns after `base`; `u64::MAX` until fixed.
    window_start_ns: AtomicU64,
}

impl Shared {
    pub fn new() -> Shared {
        Shared {
            base: Instant::now(),
            settled: AtomicU64::new(0),
            window_start_ns: AtomicU64::new(u64::MAX),
        }
    }

    /// Connections subscribed or failed so far, over all workers.
    pub fn settled(&self) -> u64 {
        self.settled.load(Ordering::Relaxed)
    }

    /// Fixes the start of the measured window for every worker (the coordinator, once).
    pub fn fix_window_start(&self, start: Instant) {
        let ns = start.saturating_duration_since(self.base).as_nanos();
        let ns = ns.min(u128::from(u64::MAX - 1)) as u64;
        self.window_start_ns.store(ns, Ordering::Release);
    }

    /// The start of the measured window, once fixed.
    pub fn window_start(&self) -> Option<Instant> {
        match self.window_start_ns.load(Ordering::Acquire) {
            u64::MAX => None,
            ns => Some(self.base + Duration::from_nanos(ns)),
        }
    }
}

/// State of one worker, shared by its tasks (single thread: `RefCell` only).
#[derive(Debug)]
pub struct Ctx {
    pub prep: Arc<Prepared>,
    pub rec: RefCell<SubRecorder>,
    pub shared: Arc<Shared>,
}

impl Ctx {
    pub fn connected(&self) {
        self.rec.borrow_mut().connected();
    }

    pub fn setup_failed(
        &self,
        slot: usize,
        kind: ConnectionFailureKind,
        detail: impl FnOnce() -> String,
    ) {
        self.rec.borrow_mut().setup_failed(slot, kind, detail);
        self.shared.settled.fetch_add(1, Ordering::Relaxed);
    }

    /// Records the subscription; returns its time.
    pub fn subscribed(&self, slot: usize, started: Instant) -> Instant {
        let now = Instant::now();
        self.rec.borrow_mut().subscribed(slot, started, now);
        self.shared.settled.fetch_add(1, Ordering::Relaxed);
        now
    }

    pub fn dropped(
        &self,
        slot: usize,
        kind: ConnectionFailureKind,
        detail: impl FnOnce() -> String,
    ) {
        self.rec
            .borrow_mut()
            .dropped(slot, kind, Instant::now(), detail);
    }

    /// Records a `next` message received now.
    pub fn record(&self, slot: usize, judged: Judged, raw: &[u8]) {
        self.rec
            .borrow_mut()
            .message(slot, Instant::now(), wall_us(), judged, raw);
    }
}
