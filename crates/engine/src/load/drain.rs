//! Draining before a switch (closed model, sliced runs): a connection stops sending once
//! its answer would come after its target's run of own slices ends, so the target's queue
//! is empty when the next arm's slice begins, and the time it then idles is not counted as
//! time it worked. Without this the requests of a slow target still queued at its slice's
//! end were served in the next target's slice, past its guard (docs/method.md,
//! "Alternating rounds").

use std::time::{Duration, Instant};

use super::ctx::Ctx;

impl Ctx {
    /// Closed model: whether a connection whose answers take about `answer` may start a
    /// request at `t`: without slicing always; sliced, in an own slice and early enough
    /// for the answer to come back before the own slices end (at most half a slice early:
    /// a target slower than that would otherwise never be sent anything).
    pub fn may_start(&self, t: Instant, answer: Duration) -> bool {
        self.slicing.is_none_or(|s| {
            s.own_run_end(t)
                .is_some_and(|end| t + answer.min(s.length / 2) < end)
        })
    }

    /// Closed model, sliced: a connection in an own slice that may not start a request
    /// (`may_start`) idles until its own slices end: not time it worked. Returns that end,
    /// so the connection tells it once.
    pub fn draining(&self, now: Instant) -> Option<Instant> {
        let end = self.slicing?.own_run_end(now)?;
        let end_now = self.window_end();
        self.rec.borrow_mut().drain_idle(now, end, end_now);
        Some(end)
    }
}

/// A connection's answer time (send to answer of the oldest request in the pipe), smoothed
/// over its last few answers: how long before its own slices end it stops sending. Zero
/// until the first answer. A mean, not a high quantile: stopping too early idles the
/// target at its slice's end (its rate reads low), too late spills a little work into the
/// next arm's guard, which is there to take it.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct AnswerTime(Option<Duration>);

impl AnswerTime {
    /// Weight of the newest answer.
    const WEIGHT: f64 = 0.25;

    pub(super) fn get(&self) -> Duration {
        self.0.unwrap_or_default()
    }

    pub(super) fn add(&mut self, d: Duration) {
        self.0 = Some(match self.0 {
            None => d,
            Some(m) => m.mul_f64(1.0 - Self::WEIGHT) + d.mul_f64(Self::WEIGHT),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_time_follows_the_answers() {
        let ms = Duration::from_millis;
        let mut a = AnswerTime::default();
        assert_eq!(a.get(), Duration::ZERO);
        a.add(ms(100));
        assert_eq!(a.get(), ms(100));
        a.add(ms(20));
        assert_eq!(a.get(), ms(80));
        for _ in 0..40 {
            a.add(ms(20));
        }
        assert!(a.get() < ms(21), "{:?}", a.get());
    }
}
