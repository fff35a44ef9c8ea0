//! Stages: a value over time (connections or rate) as a plan writes it ([`Stages`]), and as
//! pure functions of time: the value at time t, its integral (requests due so far, open
//! model) and its inverse (intended send times). Times are seconds since the start of the
//! load.
//!
//! The data and its evaluation live together here, below `plan`: the plan holds stages and
//! asks a [`Curve`] for its peak, the load walks curves, and neither needs the other.

use std::time::Duration;

/// A value that changes over time: starts at `start`, then each stage ramps linearly to
/// its target over its duration (as k6 stages do); after the last stage the last value holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Stages {
    pub start: f64,
    pub stages: Vec<Stage>,
}

/// One linear ramp of [`Stages`].
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    pub duration: Duration,
    pub target: f64,
}

impl Stages {
    /// A value that never changes.
    pub fn constant(v: f64) -> Stages {
        Stages {
            start: v,
            stages: Vec::new(),
        }
    }
}

/// One linear piece of a [`Stages`] function; the last one lasts forever.
#[derive(Debug, Clone, Copy)]
struct Segment {
    t0: f64,
    /// Length in seconds; `f64::INFINITY` for the final hold.
    dur: f64,
    v0: f64,
    v1: f64,
}

impl Segment {
    fn slope(&self) -> f64 {
        if self.dur.is_finite() && self.dur > 0.0 {
            (self.v1 - self.v0) / self.dur
        } else {
            0.0
        }
    }
    fn value_at(&self, t: f64) -> f64 {
        self.v0 + self.slope() * (t - self.t0)
    }
    /// Integral from t0 to t0 + tau.
    fn area(&self, tau: f64) -> f64 {
        self.v0 * tau + 0.5 * self.slope() * tau * tau
    }
}

/// A [`Stages`] made ready for evaluation.
#[derive(Debug, Clone)]
pub struct Curve {
    segs: Vec<Segment>,
}

impl Curve {
    pub fn new(stages: &Stages) -> Curve {
        let mut segs = Vec::with_capacity(stages.stages.len() + 1);
        let mut t = 0.0;
        let mut v = stages.start;
        for st in &stages.stages {
            let dur = st.duration.as_secs_f64();
            if dur > 0.0 {
                segs.push(Segment {
                    t0: t,
                    dur,
                    v0: v,
                    v1: st.target,
                });
            }
            t += dur;
            v = st.target;
        }
        segs.push(Segment {
            t0: t,
            dur: f64::INFINITY,
            v0: v,
            v1: v,
        });
        Curve { segs }
    }

    fn seg_index(&self, t: f64) -> usize {
        self.segs
            .iter()
            .position(|s| t < s.t0 + s.dur)
            .unwrap_or(self.segs.len() - 1)
    }

    /// Value at time t (t < 0 counts as 0).
    pub fn value(&self, t: f64) -> f64 {
        let t = t.max(0.0);
        self.segs[self.seg_index(t)].value_at(t)
    }

    /// Largest value ever taken.
    pub fn max_value(&self) -> f64 {
        self.segs
            .iter()
            .flat_map(|s| [s.v0, s.v1])
            .fold(0.0, f64::max)
    }

    /// Integral of the value from 0 to t: requests due by t for a rate curve.
    pub fn cumulative(&self, t: f64) -> f64 {
        let mut acc = 0.0;
        for s in &self.segs {
            if t <= s.t0 {
                break;
            }
            let tau = (t - s.t0).min(s.dur);
            acc += s.area(tau);
        }
        acc
    }

    /// Earliest time >= `from` at which value(t) > `level`, or None if never.
    /// Used to wake an idle connection exactly when a ramp makes it active.
    pub fn time_when_exceeds(&self, level: f64, from: f64) -> Option<f64> {
        let from = from.max(0.0);
        for s in &self.segs[self.seg_index(from)..] {
            let start = from.max(s.t0);
            if s.value_at(start) > level {
                return Some(start);
            }
            let slope = s.slope();
            if slope > 0.0 && s.v1 > level {
                // Strictly greater than `level`: step a microsecond past the crossing.
                let t = s.t0 + (level - s.v0) / slope + 1e-6;
                return Some(t.max(start));
            }
            if !s.dur.is_finite() {
                return None;
            }
        }
        None
    }
}

/// Walks the intended send times of a rate curve in order, in O(1) amortized per request.
/// Request number `g` (global, 0-based) is due when the integral of the rate reaches
/// `g + 0.5`: midpoints, so a window of length d at constant rate r holds exactly r*d sends.
/// Worker `w` of `n` takes global numbers w, w+n, w+2n, ... so workers interleave evenly.
#[derive(Debug, Clone)]
pub struct RateCursor {
    curve: Curve,
    seg: usize,
    /// Integral up to the start of segment `seg`.
    acc: f64,
    next_global: u64,
    stride: u64,
}

impl RateCursor {
    pub fn new(rate: &Stages, worker: usize, workers: usize) -> RateCursor {
        RateCursor {
            curve: Curve::new(rate),
            seg: 0,
            acc: 0.0,
            next_global: worker as u64,
            stride: workers.max(1) as u64,
        }
    }

    /// Intended time (seconds since load start) of the next request, None if the rate
    /// stays zero forever.
    pub fn peek(&mut self) -> Option<f64> {
        let target = self.next_global as f64 + 0.5;
        loop {
            let s = self.curve.segs[self.seg];
            let full = if s.dur.is_finite() {
                s.area(s.dur)
            } else {
                f64::INFINITY
            };
            let m = target - self.acc;
            if m <= full || !s.dur.is_finite() {
                return solve_in_segment(&s, m).map(|tau| s.t0 + tau);
            }
            self.acc += full;
            self.seg += 1;
        }
    }

    /// Moves to the next request of this worker.
    pub fn advance(&mut self) {
        self.next_global += self.stride;
    }

    /// Passes over the next `n` requests of this worker (never sent).
    pub fn skip(&mut self, n: u64) {
        self.next_global = self
            .next_global
            .saturating_add(n.saturating_mul(self.stride));
    }

    /// Number of this worker's requests due strictly before time t that come at or after
    /// the cursor: what it still owes at t (used for `unsent`).
    pub fn remaining_before(&self, t: f64) -> u64 {
        // Request g is due before t when g + 0.5 < cumulative(t): strictly, so a request
        // due exactly at the end of a window belongs to the next one (as the dispatcher,
        // which stops at `due >= end`, sees it).
        let due = self.curve.cumulative(t) - 0.5;
        let next = self.next_global as f64;
        if due <= next {
            return 0;
        }
        // Global numbers g < due with g = next + j*stride, j >= 0.
        ((due - next) / self.stride as f64).ceil() as u64
    }
}

/// Solves area(tau) = m within one segment; None if the value is zero there for good.
fn solve_in_segment(s: &Segment, m: f64) -> Option<f64> {
    let a = s.v0;
    let b = s.slope();
    if m <= 0.0 {
        return Some(0.0);
    }
    if b == 0.0 {
        return if a > 0.0 { Some(m / a) } else { None };
    }
    let disc = a * a + 2.0 * b * m;
    let root = disc.max(0.0).sqrt();
    // 2m / (a + sqrt(a^2 + 2bm)) is the stable form of (-a + sqrt(..)) / b.
    let denom = a + root;
    if denom <= 0.0 {
        return None;
    }
    Some(2.0 * m / denom)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp() -> Stages {
        Stages {
            start: 0.0,
            stages: vec![
                Stage {
                    duration: Duration::from_secs(10),
                    target: 100.0,
                },
                Stage {
                    duration: Duration::from_secs(10),
                    target: 100.0,
                },
                Stage {
                    duration: Duration::from_secs(5),
                    target: 0.0,
                },
            ],
        }
    }

    #[test]
    fn value_follows_ramps_and_holds_last() {
        let c = Curve::new(&ramp());
        assert_eq!(c.value(0.0), 0.0);
        assert!((c.value(5.0) - 50.0).abs() < 1e-9);
        assert!((c.value(15.0) - 100.0).abs() < 1e-9);
        assert!((c.value(22.5) - 50.0).abs() < 1e-9);
        assert_eq!(c.value(100.0), 0.0);
        assert_eq!(c.max_value(), 100.0);
        let k = Curve::new(&Stages::constant(7.0));
        assert_eq!(k.value(0.0), 7.0);
        assert_eq!(k.value(1e6), 7.0);
    }

    #[test]
    fn cumulative_is_the_integral() {
        let c = Curve::new(&ramp());
        assert!((c.cumulative(10.0) - 500.0).abs() < 1e-9);
        assert!((c.cumulative(20.0) - 1500.0).abs() < 1e-9);
        assert!((c.cumulative(25.0) - 1750.0).abs() < 1e-9);
        assert!((c.cumulative(1000.0) - 1750.0).abs() < 1e-9);
        assert!((c.cumulative(4.0) - 80.0).abs() < 1e-9);
    }

    #[test]
    fn intended_times_constant_rate_are_midpoints() {
        let mut cur = RateCursor::new(&Stages::constant(1000.0), 0, 1);
        let mut times = Vec::new();
        for _ in 0..1000 {
            times.push(cur.peek().unwrap());
            cur.advance();
        }
        assert!((times[0] - 0.0005).abs() < 1e-12);
        assert!((times[999] - 0.9995).abs() < 1e-9);
        assert!(times.windows(2).all(|w| (w[1] - w[0] - 0.001).abs() < 1e-9));
        assert!(cur.peek().unwrap() > 1.0);
    }

    #[test]
    fn intended_times_invert_cumulative_across_ramps() {
        let mut cur = RateCursor::new(&ramp(), 0, 1);
        let c = Curve::new(&ramp());
        let mut n = 0u64;
        while let Some(t) = cur.peek() {
            assert!(
                (c.cumulative(t) - (n as f64 + 0.5)).abs() < 1e-6,
                "n={n} t={t}"
            );
            n += 1;
            cur.advance();
            if n > 5000 {
                break;
            }
        }
        // 1750 requests in total, then the rate is zero forever.
        assert_eq!(n, 1750);
    }

    #[test]
    fn workers_interleave_and_split_evenly() {
        let rate = Stages::constant(300.0);
        let mut all = Vec::new();
        for w in 0..3 {
            let mut cur = RateCursor::new(&rate, w, 3);
            while let Some(t) = cur.peek() {
                if t >= 1.0 {
                    break;
                }
                all.push((t, w));
                cur.advance();
            }
            assert_eq!(cur.remaining_before(1.0), 0);
            assert_eq!(cur.remaining_before(2.0), 100);
        }
        assert_eq!(all.len(), 300);
        // 1.5 req/s over two workers: sends at 1/3 s (worker 0) and exactly 1 s (worker 1).
        // The one at 1 s is not owed by the window [0, 1).
        let rate = Stages::constant(1.5);
        let mut w1 = RateCursor::new(&rate, 1, 2);
        assert_eq!(w1.peek(), Some(1.0));
        assert_eq!(w1.remaining_before(1.0), 0);
        assert_eq!(w1.remaining_before(1.0001), 1);
        all.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Consecutive global sends rotate over the workers.
        for (i, (_, w)) in all.iter().enumerate() {
            assert_eq!(*w, i % 3);
        }
    }

    #[test]
    fn exceeds_finds_ramp_crossing() {
        let c = Curve::new(&ramp());
        let t = c.time_when_exceeds(50.0, 0.0).unwrap();
        assert!((t - 5.0).abs() < 1e-3, "{t}");
        assert_eq!(c.time_when_exceeds(10.0, 12.0), Some(12.0));
        assert_eq!(c.time_when_exceeds(100.0, 0.0), None);
        assert_eq!(c.time_when_exceeds(60.0, 23.0), None);
    }
}
