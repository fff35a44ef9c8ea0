//! The start line of a run: every worker first opens its connections, then waits here; the
//! load begins for all workers at one instant chosen once the last of them has arrived.
//! Opening thousands of connections can take seconds (a full accept queue answers a SYN
//! only after retransmits); doing it before the start keeps that out of the warm-up and
//! the measured window.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
struct State {
    arrived: usize,
    start: Option<Instant>,
}

/// When a start may be: not before `at`, and, missed, on its grid (`at` + k·`every`), so
/// that runs sharing a slice clock start on one of its block boundaries even when one was
/// not ready in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartAt {
    pub at: Instant,
    pub every: Option<Duration>,
}

impl StartAt {
    /// The first allowed start at or after `earliest`.
    pub fn first_from(&self, earliest: Instant) -> Instant {
        if earliest <= self.at {
            return self.at;
        }
        match self.every.filter(|e| !e.is_zero()) {
            Some(e) => {
                let late = (earliest - self.at).as_nanos();
                let k = late.div_ceil(e.as_nanos());
                self.at + e * u32::try_from(k).unwrap_or(u32::MAX)
            }
            None => earliest,
        }
    }
}

/// Where workers wait for the common start.
#[derive(Debug)]
pub struct StartGate {
    workers: usize,
    state: Mutex<State>,
    changed: Condvar,
}

/// Marks its worker as arrived when dropped, so a worker that fails before the start line
/// (a refused pin, say) never leaves the others waiting.
#[derive(Debug)]
pub struct Arrival<'a> {
    gate: &'a StartGate,
    done: bool,
}

impl StartGate {
    pub fn new(workers: usize) -> StartGate {
        StartGate {
            workers,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        }
    }

    pub fn arrival(&self) -> Arrival<'_> {
        Arrival {
            gate: self,
            done: false,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A poisoned lock only means another worker panicked; its state is still whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits (at most `limit`, or until `cancel`) for every worker to arrive, then sets the
    /// start `lead` from now, or at `not_before` when that is later, and releases them.
    /// Returns the start.
    pub fn open_when_ready(
        &self,
        limit: Duration,
        lead: Duration,
        cancel: &AtomicBool,
        not_before: Option<StartAt>,
    ) -> Instant {
        let give_up = Instant::now() + limit;
        let mut st = self.state();
        while st.arrived < self.workers && !cancel.load(Ordering::Relaxed) {
            let now = Instant::now();
            if now >= give_up {
                break;
            }
            let step = (give_up - now).min(Duration::from_millis(20));
            st = self
                .changed
                .wait_timeout(st, step)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        let earliest = Instant::now() + lead;
        let start = not_before.map_or(earliest, |n| n.first_from(earliest));
        st.start = Some(start);
        self.changed.notify_all();
        start
    }
}

impl Arrival<'_> {
    /// Arrives and waits for the start.
    pub fn wait_start(mut self) -> Instant {
        self.arrive();
        let mut st = self.gate.state();
        loop {
            if let Some(s) = st.start {
                return s;
            }
            st = self
                .gate
                .changed
                .wait(st)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    fn arrive(&mut self) {
        if !self.done {
            self.done = true;
            self.gate.state().arrived += 1;
            self.gate.changed.notify_all();
        }
    }
}

impl Drop for Arrival<'_> {
    fn drop(&mut self) {
        self.arrive();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn start_waits_for_the_slowest_worker() {
        let gate = Arc::new(StartGate::new(2));
        let slow = Duration::from_millis(150);
        let t0 = Instant::now();
        let handles: Vec<_> = [Duration::ZERO, slow]
            .into_iter()
            .map(|d| {
                let g = gate.clone();
                std::thread::spawn(move || {
                    let a = g.arrival();
                    std::thread::sleep(d);
                    a.wait_start()
                })
            })
            .collect();
        let start = gate.open_when_ready(
            Duration::from_secs(5),
            Duration::from_millis(5),
            &AtomicBool::new(false),
            None,
        );
        assert!(start >= t0 + slow, "the start came before the slow worker");
        for h in handles {
            assert_eq!(h.join().unwrap(), start);
        }
    }

    #[test]
    fn a_worker_that_fails_still_arrives() {
        let gate = Arc::new(StartGate::new(1));
        let g = gate.clone();
        std::thread::spawn(move || {
            let _a = g.arrival();
            // Returns early, as a worker whose pinning failed does.
        })
        .join()
        .unwrap();
        let t0 = Instant::now();
        gate.open_when_ready(
            Duration::from_secs(30),
            Duration::ZERO,
            &AtomicBool::new(false),
            None,
        );
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "waited for a dead worker"
        );
    }

    #[test]
    fn a_start_asked_for_later_is_kept_and_one_already_past_is_not_waited_for() {
        let gate = StartGate::new(0);
        let later = Instant::now() + Duration::from_millis(300);
        let start = gate.open_when_ready(
            Duration::from_secs(5),
            Duration::from_millis(5),
            &AtomicBool::new(false),
            Some(StartAt {
                at: later,
                every: None,
            }),
        );
        assert_eq!(start, later, "the shared clock's start");
        let past = Instant::now() - Duration::from_secs(1);
        let t0 = Instant::now();
        let start = gate.open_when_ready(
            Duration::from_secs(5),
            Duration::from_millis(5),
            &AtomicBool::new(false),
            Some(StartAt {
                at: past,
                every: None,
            }),
        );
        assert!(start >= t0, "a start in the past is now, not then");
    }

    #[test]
    fn a_start_missed_waits_for_the_next_point_of_its_grid() {
        let at = Instant::now();
        let every = Duration::from_millis(400);
        let grid = StartAt {
            at,
            every: Some(every),
        };
        assert_eq!(grid.first_from(at - every), at);
        assert_eq!(grid.first_from(at), at);
        assert_eq!(grid.first_from(at + Duration::from_millis(1)), at + every);
        assert_eq!(grid.first_from(at + every), at + every);
        assert_eq!(
            grid.first_from(at + Duration::from_millis(900)),
            at + every * 3
        );
        let free = StartAt { at, every: None };
        let late = at + Duration::from_millis(900);
        assert_eq!(free.first_from(late), late);
    }
}
