//! The step of a closed-model row's req/s, and its interval floored at it. A count of whole
//! requests over a fixed set of connections moves in steps of one request per connection
//! slot at each edge of the counted time; trials whose connections keep in step (a gateway
//! answering its 20 connections together every 0.6 s) then agree exactly, and a t interval
//! over them is zero wide while the rate is known only to within that step. So a row's
//! interval is never narrower than the mean step of its trials: the center is the mean of
//! their logarithms, so an error every trial shares is at most their mean step.
use crate::results::{Estimate, TrialResult};
use crate::stats;

/// A trial's step relative to its req/s: as judged when it was measured
/// (`load.rps_resolution`: 0 for a rate from the requests' timing, else the count's), or in
/// files of older versions the count's bound from the trial's own counts: connections that
/// answered × `pipelining` per counted stretch (the window, or each own slice with counted
/// time) over the requests. None in the open model (its count is its arrival rate's).
pub fn trial_step(x: &TrialResult, pipelining: u32) -> Option<f64> {
    if let Some(r) = x.load.rps_resolution {
        return Some(r);
    }
    if x.load.model != "closed" {
        return None;
    }
    if let Some(c) = x.load.count_resolution {
        return Some(c);
    }
    let stretches = if x.load.slices.is_empty() {
        1
    } else {
        x.load.slices.iter().filter(|s| s.counted_ms > 0.0).count() as u64
    };
    let slots = x.load.connections.connections_used * u64::from(pipelining.max(1));
    gqlbench_engine::count_resolution(slots, stretches, x.load.requests)
}

/// A row's step: the mean of its used trials' steps; None when none has one.
pub fn row_step(trials: &[&TrialResult], pipelining: u32) -> Option<f64> {
    let steps: Vec<f64> = trials
        .iter()
        .filter_map(|x| trial_step(x, pipelining))
        .filter(|s| s.is_finite())
        .collect();
    (!steps.is_empty()).then(|| stats::mean(&steps))
}

/// Widens `e`'s interval to at least ±`step` of its center when the trials' spread alone
/// (their t interval, recomputed from the samples, so that a saved summary floored before
/// is judged alike) is narrower than that, and says whether it was. An interval at least as
/// wide is left as it is, even where one side of it (a t interval on logarithms is longer
/// above the center) is shorter than the step. A figure of one trial has no interval.
pub fn floor(e: &mut Estimate, step: f64) -> bool {
    let c = e.center_or_median();
    if e.n < 2 || c <= 0.0 || step.is_nan() || step <= 0.0 {
        return false;
    }
    let (tc, tlo, thi) = stats::center_interval(&e.samples);
    let narrower = !(tc > 0.0 && (thi - tlo) / 2.0 / tc >= step);
    if narrower {
        e.ci_low = e.ci_low.min((c * (1.0 - step)).max(0.0));
        e.ci_high = e.ci_high.max(c * (1.0 + step));
    }
    narrower
}

#[cfg(test)]
mod tests {
    use super::*;
    use gqlbench_engine::{ConnectionSpread, LoadResult, SliceSample};

    fn trial(requests: u64, used: u64) -> TrialResult {
        TrialResult::of_load(
            1,
            String::new(),
            LoadResult {
                model: "closed".into(),
                requests,
                connections: ConnectionSpread {
                    connections_used: used,
                    ..Default::default()
                },
                ..Default::default()
            },
        )
    }

    #[test]
    fn a_trial_of_an_older_version_has_the_counts_bound() {
        // hive-gateway in docs/runs/federation-quick-2026-11-26: 20 connections, 40 answers.
        let old = trial(40, 20);
        assert_eq!(trial_step(&old, 1), Some(0.5));
        assert_eq!(
            trial_step(&old, 2),
            Some(1.0),
            "two requests in flight per connection"
        );
        // Sliced: each own slice that counted time has edges of its own.
        let mut sliced = trial(400, 10);
        sliced.load.slices = (0..4)
            .map(|i| SliceSample {
                index: i,
                counted_ms: if i == 3 { 0.0 } else { 300.0 },
                ..Default::default()
            })
            .collect();
        assert_eq!(trial_step(&sliced, 1), Some(30.0 / 400.0));
        // What was judged when measured wins; the open model has none.
        let mut judged = trial(40, 20);
        judged.load.rps_resolution = Some(0.0);
        assert_eq!(trial_step(&judged, 1), Some(0.0));
        let mut open = trial(40, 20);
        open.load.model = "open".into();
        assert_eq!(trial_step(&open, 1), None);
        assert_eq!(row_step(&[&old, &judged], 1), Some(0.25));
        assert_eq!(row_step(&[&open], 1), None);
    }

    #[test]
    fn identical_counts_get_the_steps_interval_and_a_wide_one_is_kept() {
        let mut e = stats::estimate(&[40.0, 40.0, 40.0]);
        assert_eq!((e.ci_low, e.ci_high), (40.0, 40.0));
        assert!(floor(&mut e, 0.5));
        assert_eq!((e.ci_low, e.ci_high), (20.0, 60.0));
        assert!((e.relative_half_width().unwrap() - 0.5).abs() < 1e-12);
        // Floored again (a saved summary read back): the same, still said widened.
        assert!(floor(&mut e, 0.5));
        assert_eq!((e.ci_low, e.ci_high), (20.0, 60.0));
        // A spread wider than the step is left as it is.
        let mut wide = stats::estimate(&[30.0, 40.0, 50.0]);
        let before = wide.clone();
        assert!(!floor(&mut wide, 0.05));
        assert_eq!(wide, before);
        // One trial has no interval to widen; a step of 0 (a timed rate) widens nothing.
        let mut one = stats::estimate(&[40.0]);
        assert!(!floor(&mut one, 0.5));
        assert_eq!((one.ci_low, one.ci_high), (40.0, 40.0));
        let mut same = stats::estimate(&[33.7, 33.7, 33.7]);
        assert!(!floor(&mut same, 0.0));
        // A step beyond the figure itself stops the interval at 0.
        let mut coarse = stats::estimate(&[8.0, 8.0]);
        assert!(floor(&mut coarse, 1.25));
        assert_eq!(coarse.ci_low, 0.0);
    }
}
