//! The end of the measured window, shared by every worker. A duration window may be pushed
//! back (`Stop::extend`) until every connection completed a minimum of requests sent in
//! it: a target slower than the window is long would otherwise leave a window in which
//! nothing was sent and answered. The coordinator (the thread that started the workers)
//! decides each extension shortly before the current end; workers read the end at every
//! admission, so none stops sending at an end that was moved.
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

const NO_END: u64 = u64::MAX;

#[derive(Debug)]
pub struct Window {
    /// Nanoseconds from the run's start to the end; NO_END for a request-count window.
    /// Relative, so the window exists before the start instant is chosen.
    end_ns: AtomicU64,
    /// Requests each connection must complete in the window before it may end (0: none).
    pub min_per_connection: u64,
    /// Connections that completed their minimum so far.
    satisfied: AtomicU64,
}

impl Window {
    /// `end`: from the run's start (warm-up included) to the window's end.
    pub fn new(end: Option<Duration>, min_per_connection: u64) -> Window {
        let w = Window {
            end_ns: AtomicU64::new(NO_END),
            min_per_connection,
            satisfied: AtomicU64::new(0),
        };
        if let Some(e) = end {
            w.set_end(e);
        }
        w
    }

    /// From the run's start to the window's end.
    pub fn end(&self) -> Option<Duration> {
        match self.end_ns.load(Ordering::Relaxed) {
            NO_END => None,
            ns => Some(Duration::from_nanos(ns)),
        }
    }

    pub fn set_end(&self, end: Duration) {
        let ns = end.as_nanos().min(NO_END as u128 - 1) as u64;
        self.end_ns.store(ns, Ordering::Relaxed);
    }

    /// A connection completed its minimum.
    pub fn connection_satisfied(&self) {
        self.satisfied.fetch_add(1, Ordering::Relaxed);
    }

    pub fn satisfied(&self) -> u64 {
        self.satisfied.load(Ordering::Relaxed)
    }
}

/// How far the coordinator looks ahead of the current end before deciding to extend it.
pub const DECIDE_AHEAD: Duration = Duration::from_millis(250);

/// The extension to decide shortly before the current end `end`: a new end, or None when
/// the window may close (every connection satisfied, or the bound reached).
pub fn next_end(
    end: Duration,
    max_end: Duration,
    step: Duration,
    satisfied: u64,
    connections: u64,
) -> Option<Duration> {
    (satisfied < connections && end < max_end).then(|| (end + step).min(max_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_moves_only_while_connections_wait_and_within_the_bound() {
        let t0 = Duration::ZERO;
        let s = Duration::from_secs;
        assert_eq!(next_end(t0 + s(2), t0 + s(20), s(2), 3, 4), Some(t0 + s(4)));
        assert_eq!(
            next_end(t0 + s(2), t0 + s(20), s(2), 4, 4),
            None,
            "all done"
        );
        assert_eq!(
            next_end(t0 + s(19), t0 + s(20), s(2), 0, 4),
            Some(t0 + s(20))
        );
        assert_eq!(next_end(t0 + s(20), t0 + s(20), s(2), 0, 4), None, "bound");
        let w = Window::new(Some(s(2)), 1);
        assert_eq!(w.end(), Some(s(2)));
        w.set_end(s(5));
        assert_eq!(w.end(), Some(s(5)));
        w.connection_satisfied();
        assert_eq!(w.satisfied(), 1);
        assert_eq!(Window::new(None, 0).end(), None);
    }
}
