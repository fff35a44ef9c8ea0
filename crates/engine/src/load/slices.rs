//! What a sliced run (`LoadPlan::slicing`) records besides the window's totals: the counted
//! requests of each own slice, and the profile of answers over the offset within own
//! slices (guard included; by arrival in the closed model, as it counts). Kept per worker beside its `Recorder`, merged like it, and
//! turned into the result's `slices` and `slice_profile` at the end.
//!
//! The open model counts a request in the slice it was due in. The closed model counts an
//! answer in the slice it arrived in (past the guard, within the window), whatever it was
//! sent in: its connections stop sending about one answer's time before their own slices
//! end (`closed`), so the target works through its queue until the slice's end, and the
//! answers over the counted time are its rate while it had work. Counted by send time, the
//! requests of that last stretch would be missing from an unchanged counted time.
//!
//! Also the open model's count of sends owed in the counted parts of own slices, the only
//! times a sliced run owes sends at.

use std::time::{Duration, Instant};

use crate::harness::Merge;
use crate::result::{SliceSample, SLICE_PROFILE_BIN};
use crate::schedule::RateCursor;
use crate::slicing::Slicing;

/// Counted requests of one slice (of a worker, then of the run).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct SliceCount {
    requests: u64,
    ok: u64,
    failures: u64,
}

impl Merge for SliceCount {
    fn merge(&mut self, o: SliceCount) {
        self.requests += o.requests;
        self.ok += o.ok;
        self.failures += o.failures;
    }
}

/// One worker's slice records; empty without slicing.
#[derive(Debug)]
pub(super) struct SliceRecord {
    slicing: Option<Slicing>,
    window_start: Instant,
    /// Index of the slice the window starts in: `counts[0]` is its.
    base: u64,
    counts: Vec<SliceCount>,
    profile: Vec<u64>,
    /// Closed model: answers count by arrival (see the module's description).
    by_answer: bool,
}

impl SliceRecord {
    /// `by_answer`: the closed model's count, by arrival.
    pub(super) fn new(
        slicing: Option<Slicing>,
        window_start: Instant,
        by_answer: bool,
    ) -> SliceRecord {
        SliceRecord {
            base: slicing.and_then(|s| s.index_at(window_start)).unwrap_or(0),
            slicing,
            window_start,
            counts: Vec::new(),
            profile: Vec::new(),
            by_answer,
        }
    }

    /// The slicing recorded by, if any.
    pub(super) fn slicing(&self) -> Option<Slicing> {
        self.slicing
    }

    /// Open model: a counted request due at `at`, answered or not, passed validation or
    /// not. Nothing in the closed model, which counts by [`SliceRecord::answer`].
    pub(super) fn count(&mut self, at: Instant, answered: bool, ok: bool) {
        if !self.by_answer {
            self.add(at, answered, ok);
        }
    }

    /// Closed model: a request that ended at `done` (answered or not, passed validation or
    /// not), counted if `done` lies in the counted part of an own slice within the window
    /// as it stands (`end_now`; it only ever moves later). Nothing in the open model.
    pub(super) fn answer(
        &mut self,
        done: Instant,
        end_now: Option<Instant>,
        answered: bool,
        ok: bool,
    ) {
        if self.counts_answer(done, end_now) {
            self.add(done, answered, ok);
        }
    }

    /// Closed model: whether an answer that arrived at `done` counts (see `answer`); the
    /// caller asks before judging an answer it would judge only to count it.
    pub(super) fn counts_answer(&self, done: Instant, end_now: Option<Instant>) -> bool {
        self.by_answer
            && self.slicing.is_some_and(|s| s.counts_at(done))
            && done >= self.window_start
            && end_now.is_none_or(|e| done < e)
    }

    /// Counts an answer in the slice of `at`; the caller made sure it counts (`answer`, or
    /// `counts_answer` asked before judging it).
    pub(super) fn add(&mut self, at: Instant, answered: bool, ok: bool) {
        let Some(i) = self.slicing.and_then(|s| s.index_at(at)) else {
            return;
        };
        let Ok(k) = usize::try_from(i.saturating_sub(self.base)) else {
            return;
        };
        if k >= self.counts.len() {
            self.counts.resize(k + 1, SliceCount::default());
        }
        let c = &mut self.counts[k];
        c.requests += answered as u64;
        c.ok += ok as u64;
        c.failures += !ok as u64;
    }

    /// An answer that passed validation, `bin` profile bins into an own slice (see
    /// [`profile_bin`]).
    pub(super) fn profile_ok(&mut self, bin: usize) {
        if bin >= self.profile.len() {
            self.profile.resize(bin + 1, 0);
        }
        self.profile[bin] += 1;
    }

    /// The result's `slices` and `slice_profile`, for a window of `window_len` from the
    /// window's start. Every own slice that overlaps the window has an entry (one with
    /// nothing sent too); so has every slice a request was counted in, so the window's
    /// totals are the sums over the entries.
    pub(super) fn finish(self, window_len: Duration) -> (Vec<SliceSample>, Vec<u64>) {
        let Some(s) = self.slicing else {
            return (Vec::new(), Vec::new());
        };
        let ws = self.window_start;
        let we = ws.checked_add(window_len).unwrap_or(ws);
        let mut out = Vec::new();
        let mut i = self.base;
        let last_counted = self.base + self.counts.len() as u64;
        while s.slice_start(i) < we || i < last_counted {
            let start = s.slice_start(i);
            let end = s.slice_start(i + 1);
            let count = usize::try_from(i - self.base)
                .ok()
                .and_then(|k| self.counts.get(k))
                .copied();
            if s.arm_of(i) == s.arm && (end > ws || count.is_some()) {
                let from = (start + s.guard).max(ws);
                let to = end.min(we);
                let c = count.unwrap_or_default();
                out.push(SliceSample {
                    index: i,
                    arm: s.arm,
                    start_ms: ms(start.saturating_duration_since(s.epoch)),
                    counted_ms: ms(to.saturating_duration_since(from)),
                    requests: c.requests,
                    ok: c.ok,
                    failures: c.failures,
                });
            }
            i += 1;
        }
        let mut profile = self.profile;
        let bins = s.length.as_nanos().div_ceil(SLICE_PROFILE_BIN.as_nanos()) as usize;
        if profile.len() < bins {
            profile.resize(bins, 0);
        }
        (out, profile)
    }
}

impl Merge for SliceRecord {
    /// Another worker's: same slicing and window start, so the same base.
    fn merge(&mut self, o: SliceRecord) {
        self.counts.merge(o.counts);
        self.profile.merge(o.profile);
    }
}

/// The profile bin of `t` (an answer's arrival, or an open-model request's due time): its
/// offset into the own slice it lies in, in [`SLICE_PROFILE_BIN`]s; None outside own
/// slices.
pub(super) fn profile_bin(s: &Slicing, t: Instant) -> Option<usize> {
    let (_, offset) = s.own_position(t)?;
    usize::try_from(offset.as_nanos() / SLICE_PROFILE_BIN.as_nanos()).ok()
}

/// Open model: the sends `cursor` still owes that are due in `[from, end)` and in the
/// counted part of an own slice (`run_start` is the cursor's time 0).
pub(super) fn owed_counted(
    s: &Slicing,
    cursor: &RateCursor,
    run_start: Instant,
    from: Instant,
    end: Instant,
) -> u64 {
    let rel = |t: Instant| t.saturating_duration_since(run_start).as_secs_f64();
    let mut owed = 0;
    let mut i = s.index_at(from).unwrap_or(0);
    while s.slice_start(i) < end {
        if s.arm_of(i) == s.arm {
            let a = (s.slice_start(i) + s.guard).max(from);
            let b = s.slice_start(i + 1).min(end);
            if a < b {
                owed += cursor
                    .remaining_before(rel(b))
                    .saturating_sub(cursor.remaining_before(rel(a)));
            }
        }
        i += 1;
    }
    owed
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slices of 100 ms with a 20-ms guard, of two arms.
    fn slicing(epoch: Instant, arm: usize, seed: u64) -> Slicing {
        Slicing {
            epoch,
            length: Duration::from_millis(100),
            guard: Duration::from_millis(20),
            arm,
            arms: 2,
            seed,
        }
    }

    #[test]
    fn slices_cover_the_window_and_hold_every_count() {
        let ms = Duration::from_millis;
        let epoch = Instant::now();
        let s = slicing(epoch, 0, 3);
        // The window starts in the middle of slice 1 and lasts 1 s.
        let ws = epoch + ms(150);
        let mut a = SliceRecord::new(Some(s), ws, false);
        let mut b = SliceRecord::new(Some(s), ws, false);
        let own: Vec<u64> = (1..12).filter(|i| s.arm_of(*i) == 0).collect();
        for (n, i) in own.iter().enumerate() {
            let at = s.slice_start(*i) + ms(50);
            a.count(at, true, true);
            b.count(at, n % 2 == 0, false);
        }
        a.profile_ok(profile_bin(&s, s.slice_start(own[0]) + ms(5)).expect("own"));
        a.merge(b);
        let (out, profile) = a.finish(ms(1000));
        let indices: Vec<u64> = out.iter().map(|x| x.index).collect();
        assert_eq!(indices, own, "every own slice of [150, 1150) ms");
        assert_eq!(
            out.iter().map(|x| x.requests).sum::<u64>(),
            2 * own.len() as u64 - own.len() as u64 / 2
        );
        assert_eq!(out.iter().map(|x| x.ok).sum::<u64>(), own.len() as u64);
        assert_eq!(
            out.iter().map(|x| x.failures).sum::<u64>(),
            own.len() as u64
        );
        for x in &out {
            assert_eq!(x.arm, 0);
            assert_eq!(x.start_ms, x.index as f64 * 100.0);
            // Whole counted parts, except where the window cuts them.
            let expect = match x.index {
                1 => 50.0,
                11 => 30.0,
                _ => 80.0,
            };
            assert!((x.counted_ms - expect).abs() < 1e-6, "{x:?}");
        }
        assert_eq!(profile.len(), 10);
        assert_eq!(profile[0], 1);
        // Without slicing nothing is kept.
        let none = SliceRecord::new(None, ws, true);
        assert_eq!(none.finish(ms(1000)), (Vec::new(), Vec::new()));
    }

    #[test]
    fn the_closed_model_counts_answers_where_they_arrive() {
        let ms = Duration::from_millis;
        let epoch = Instant::now();
        let s = slicing(epoch, 0, 5);
        let own: Vec<u64> = (0..10).filter(|i| s.arm_of(*i) == 0).collect();
        let end = epoch + ms(1000);
        let mut r = SliceRecord::new(Some(s), epoch, true);
        for &i in &own {
            let start = s.slice_start(i);
            // Sent in the guard, answered past it: counted.
            r.answer(start + ms(30), Some(end), true, true);
            // Answered in the guard, or in another arm's slice: not counted.
            r.answer(start + ms(10), Some(end), true, true);
            let next = s.slice_start(i + 1);
            if s.arm_of(i + 1) != 0 {
                r.answer(next + ms(50), Some(end), true, true);
            }
            // A wrong answer past the guard: a request, a failure.
            r.answer(start + ms(90), Some(end), true, false);
            // The send-time count is the open model's only.
            r.count(start + ms(50), true, true);
        }
        // After the window as it stands: not counted.
        r.answer(end + ms(30), Some(end), true, true);
        let (out, _) = r.finish(ms(1000));
        assert_eq!(out.iter().map(|x| x.index).collect::<Vec<_>>(), own);
        for x in &out {
            assert_eq!((x.requests, x.ok, x.failures), (2, 1, 1), "{x:?}");
        }
    }

    #[test]
    fn owed_sends_are_those_of_counted_parts() {
        let ms = Duration::from_millis;
        let epoch = Instant::now();
        let s = slicing(epoch, 1, 9);
        let cursor = RateCursor::new(&crate::schedule::Stages::constant(1000.0), 0, 1);
        let own = (0..10).filter(|i| s.arm_of(*i) == 1).count() as u64;
        // 1000/s: 80 sends in the counted 80 ms of each own slice of the first second.
        assert_eq!(
            owed_counted(&s, &cursor, epoch, epoch, epoch + ms(1000)),
            80 * own
        );
        // Half a second of nothing owed before the window.
        let late = owed_counted(&s, &cursor, epoch, epoch + ms(500), epoch + ms(1000));
        let own_late = (5..10).filter(|i| s.arm_of(*i) == 1).count() as u64;
        assert_eq!(late, 80 * own_late);
    }
}
