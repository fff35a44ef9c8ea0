//! The closed model's rate from the requests' own timing (`LoadResult::timed_rps`): each
//! answered request counts the share of its span (send to answer, plus the think time
//! after it) that lies in the counted time, which is the measured window or, with slicing,
//! the counted parts (past the guard) of the run's own slices within it. Summed over the
//! requests and divided by the counted time, that is the rate at which the connections got
//! through their requests, with a request cut by an edge counted in part: no step of one
//! request per connection at each edge, which a count of whole requests has (20
//! connections whose answers take 0.6 s complete 2 requests each in a 1-s window, "40
//! req/s", when they get through 33.3 a second).
//!
//! Sliced, a connection stops sending one answer's time before its own slices end (so its
//! target's queue is empty when the next arm's slice begins: `closed`) and idles until
//! then; that idle time is kept apart (`idle`), and the rate is the shares over the counted
//! time less the connections' mean idle time in it. Counted as time worked, it would read
//! about half a request per connection and slice below the count of answers.
//!
//! A request answered before the window's end as it stands then has its share fixed at once
//! (the end only ever moves later); one answered after it waits in `pending` for the end
//! the window closed at. So only the requests in flight at the end are kept, a few per
//! connection.

use std::time::{Duration, Instant};

use crate::harness::Merge;
use crate::slicing::Slicing;

/// One worker's sum of shares.
#[derive(Debug)]
pub(super) struct Progress {
    slicing: Option<Slicing>,
    window_start: Instant,
    /// Closed model's think time: a connection's turn is its request and the pause after.
    think: Duration,
    /// Shares summed so far.
    shares: f64,
    /// Spans (start, end) of requests answered at or after the window's end as it stood.
    pending: Vec<(Instant, Instant)>,
    /// Counted time that connections idled by design (the end of own slices), summed over
    /// the connections, in seconds.
    idle: f64,
}

impl Progress {
    pub(super) fn new(slicing: Option<Slicing>, window_start: Instant, think: Duration) -> Self {
        Progress {
            slicing,
            window_start,
            think,
            shares: 0.0,
            pending: Vec::new(),
            idle: 0.0,
        }
    }

    /// An answered request sent at `sent` and answered at `done`, whatever it was counted
    /// as (a warm-up's or a guard's request that reaches into the counted time counts its
    /// share there). `end_now`: the window's end as it stands.
    pub(super) fn add(&mut self, sent: Instant, done: Instant, end_now: Instant) {
        let end = done + self.think;
        if end < end_now {
            self.shares += self.share(sent, end, end_now);
        } else {
            self.pending.push((sent, end));
        }
    }

    /// A connection idled by design from `from` to `to` (with the window's end as it
    /// stands, `end_now`): its part in the counted time is not time it worked.
    pub(super) fn idle(&mut self, from: Instant, to: Instant, end_now: Instant) {
        let c = counted(self.slicing.as_ref(), self.window_start, end_now, from, to);
        self.idle += c.as_secs_f64();
    }

    /// The share of the span `[a, b]` in the counted time of a window ending at `we`.
    fn share(&self, a: Instant, b: Instant, we: Instant) -> f64 {
        let span = b.saturating_duration_since(a);
        if span.is_zero() {
            // Sent and answered at one instant: whole where it lies in the counted time.
            let at = counted(
                self.slicing.as_ref(),
                self.window_start,
                we,
                a,
                a + Duration::from_nanos(1),
            );
            return if at.is_zero() { 0.0 } else { 1.0 };
        }
        counted(self.slicing.as_ref(), self.window_start, we, a, b).as_secs_f64()
            / span.as_secs_f64()
    }

    /// The requests' shares over the window of `window_len` as it ended, and the time
    /// the `connections` worked in it, in seconds: its counted time less their mean idle
    /// time in it.
    pub(super) fn finish(self, window_len: Duration, connections: usize) -> (f64, f64) {
        let we = self.window_start + window_len;
        let late: f64 = self
            .pending
            .iter()
            .map(|&(a, b)| self.share(a, b, we))
            .sum();
        let time = counted(
            self.slicing.as_ref(),
            self.window_start,
            we,
            self.window_start,
            we,
        );
        let idle = self.idle / connections.max(1) as f64;
        (self.shares + late, (time.as_secs_f64() - idle).max(0.0))
    }
}

impl Merge for Progress {
    /// Another worker's: same window, slicing and think time.
    fn merge(&mut self, o: Progress) {
        self.shares += o.shares;
        self.pending.extend(o.pending);
        self.idle += o.idle;
    }
}

impl Merge for Option<Progress> {
    fn merge(&mut self, o: Option<Progress>) {
        match (self.as_mut(), o) {
            (Some(a), Some(b)) => a.merge(b),
            (None, b) => *self = b,
            (Some(_), None) => {}
        }
    }
}

/// How much of `[a, b]` lies in the counted time of the window `[ws, we)`: all of its part
/// in the window, or with slicing its parts in the own slices past their guard.
fn counted(
    slicing: Option<&Slicing>,
    ws: Instant,
    we: Instant,
    a: Instant,
    b: Instant,
) -> Duration {
    let (lo, hi) = (a.max(ws), b.min(we));
    if lo >= hi {
        return Duration::ZERO;
    }
    let Some(s) = slicing else {
        return hi - lo;
    };
    let mut total = Duration::ZERO;
    let mut i = s.index_at(lo).unwrap_or(0);
    loop {
        let start = s.slice_start(i);
        if start >= hi {
            break;
        }
        if s.arm_of(i) == s.arm {
            let from = (start + s.guard).max(lo);
            let to = s.slice_start(i + 1).min(hi);
            total += to.saturating_duration_since(from);
        }
        i += 1;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// `conns` connections answered in lockstep, every answer taking `latency`, from the
    /// window's start (as after a separate warm-up) until the first send at or after the
    /// window's end: each request's share, as the load records them.
    fn lockstep(p: &mut Progress, t0: Instant, conns: usize, latency: Duration, window: Duration) {
        let end = t0 + window;
        for _ in 0..conns {
            let mut sent = t0;
            while sent < end {
                let done = sent + latency;
                p.add(sent, done, end);
                sent = done;
            }
        }
    }

    #[test]
    fn twenty_connections_answered_in_0_6_s_get_through_33_a_second_not_40() {
        let t0 = Instant::now();
        let mut p = Progress::new(None, t0, Duration::ZERO);
        lockstep(&mut p, t0, 20, ms(600), ms(1000));
        let (shares, time) = p.finish(ms(1000), 1);
        // Each connection: one request whole, two thirds of the next (0.4 s of its 0.6 s).
        assert!((time - 1.0).abs() < 1e-9, "{time}");
        assert!(
            (shares / time - 20.0 / 0.6).abs() < 1e-6,
            "{}",
            shares / time
        );
        // The count of requests sent in the window: 2 per connection, 40 a second.
        let counted = 20 * 2;
        assert!(shares / time < counted as f64 * 0.9);
    }

    #[test]
    fn a_request_in_flight_at_the_start_and_one_past_an_extended_end_count_in_part() {
        let t0 = Instant::now();
        let mut p = Progress::new(None, t0, Duration::ZERO);
        // Sent in the warm-up, answered 0.25 s into the window: half of it is inside.
        p.add(t0 - ms(250), t0 + ms(250), t0 + ms(1000));
        // Answered after the end as it stood (1 s); the window then ran to 2 s: whole.
        p.add(t0 + ms(800), t0 + ms(1200), t0 + ms(1000));
        // Answered after the final end: a quarter inside.
        p.add(t0 + ms(1900), t0 + ms(2300), t0 + ms(2000));
        let mut other = Progress::new(None, t0, Duration::ZERO);
        other.add(t0 + ms(100), t0 + ms(200), t0 + ms(1000));
        p.merge(other);
        let (shares, time) = p.finish(ms(2000), 1);
        assert!((time - 2.0).abs() < 1e-9);
        assert!((shares - (0.5 + 1.0 + 0.25 + 1.0)).abs() < 1e-9, "{shares}");
    }

    #[test]
    fn think_time_is_part_of_a_connections_turn() {
        // 0.1 s answers, 0.4 s of thinking: a turn of 0.5 s, 2 a second per connection.
        let t0 = Instant::now();
        let think = ms(400);
        let mut p = Progress::new(None, t0, think);
        let end = t0 + ms(1200);
        let mut sent = t0;
        while sent < end {
            p.add(sent, sent + ms(100), end);
            sent += ms(500);
        }
        let (shares, time) = p.finish(ms(1200), 1);
        assert!((shares / time - 2.0).abs() < 1e-9, "{}", shares / time);
    }

    #[test]
    fn time_idled_before_a_switch_is_not_time_worked() {
        let t0 = Instant::now();
        let s = Slicing {
            epoch: t0,
            length: ms(100),
            guard: ms(20),
            arm: 0,
            arms: 2,
            seed: 3,
        };
        let window = ms(1000);
        let end = t0 + window;
        let mut p = Progress::new(Some(s), t0, Duration::ZERO);
        // 4 connections answered every 10 ms; each stops once an answer would come after
        // its own slices end (`may_start`) and idles until then.
        let mut starts = 0;
        for i in (0..10).filter(|i| s.arm_of(*i) == 0) {
            let start = s.slice_start(i);
            if i > 0 && s.arm_of(i - 1) == 0 {
                continue;
            }
            starts += 1;
            let run_end = s.own_run_end(start).expect("own");
            for _ in 0..4 {
                let mut sent = start;
                while sent + ms(10) < run_end {
                    p.add(sent, sent + ms(10), end);
                    sent += ms(10);
                }
                p.idle(sent, run_end, end);
            }
        }
        assert!(starts > 0);
        let (shares, time) = p.finish(window, 4);
        // 4 connections at 100 a second each: 400, though the connections idled the last
        // 10 ms of every run of own slices.
        assert!((shares / time - 400.0).abs() < 1e-6, "{}", shares / time);
    }

    #[test]
    fn with_slicing_only_the_own_slices_past_their_guard_count() {
        let t0 = Instant::now();
        let s = Slicing {
            epoch: t0,
            length: ms(400),
            guard: ms(100),
            arm: 0,
            arms: 2,
            seed: 5,
        };
        let own: Vec<u64> = (0..10).filter(|i| s.arm_of(*i) == 0).collect();
        assert_eq!(own.len(), 5, "two arms: half the slices of whole blocks");
        let window = ms(4000);
        let mut p = Progress::new(Some(s), t0, Duration::ZERO);
        // In each own slice, 10 connections send at its start and again on each answer
        // (0.25 s) while the slice lasts: sent at 0 (in the guard), 0.25, answered at 0.5.
        for i in &own {
            let start = s.slice_start(*i);
            for _ in 0..10 {
                p.add(start, start + ms(250), t0 + window);
                p.add(start + ms(250), start + ms(500), t0 + window);
            }
        }
        let (shares, time) = p.finish(window, 1);
        assert!((time - 5.0 * 0.3).abs() < 1e-9, "counted time {time}");
        // 10 connections at 4 a second each while loaded; the count of requests sent past
        // the guards (one per connection and slice, over 0.3 s) says 33.3.
        assert!((shares / time - 40.0).abs() < 1e-6, "{}", shares / time);
        // A request in another arm's slice only counts no time.
        let other = own
            .iter()
            .map(|i| i + 1)
            .find(|i| s.arm_of(*i) == 1)
            .unwrap_or(1);
        let a = s.slice_start(other);
        assert_eq!(
            counted(Some(&s), t0, t0 + window, a, a + ms(300)),
            Duration::ZERO
        );
    }
}
