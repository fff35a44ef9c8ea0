//! A closed-model row's req/s against Little's law. N connections, each keeping p requests
//! in flight and thinking Z between turns, whose answers take L on average, get through
//! N·p / (L + Z) requests a second: the latency and the req/s are measured separately (the
//! latency request by request, the req/s by counting or timing them), so a row where the two
//! disagree by more than its interval is measured otherwise than it looks. Causes seen: a
//! count's step (20 connections answered together every 0.593 s counted 40 a second, where
//! the law says 33.7), connections that sat idle or stuck, requests that got no answer (a
//! timeout holds a connection without a latency sample). It is a caveat: the row stays
//! valid and ranked, and the report says how far apart the two are.
use crate::results::{LittleCheck, LoadInfo, TargetSummary, TrialResult};

/// How far the req/s may be from the law beyond the row's interval, relative. Two things
/// the law leaves out: the client's own turn between an answer and the next send, which
/// the latency does not hold (node-baseline at 0.25-0.4 ms answers, 1 and 4 connections:
/// its count 0.3-1.3% below the law), and the edges of a 1-s window (the requests' timing
/// against each trial's own mean latency, 42 trials of 7 targets alone: -2.7% to +2.6%).
/// See docs/method.md, "Statistics".
pub const TOLERANCE: f64 = 0.03;

/// The check of a row whose summary is made: each used trial's connections (the schedule's,
/// as the engine planned them: a duet's arm has half the scenario's), the scenario's
/// pipelining and think time, and the trial's own mean latency give the trial's figure by
/// the law; the row's is their geometric mean, as its req/s is of the trials' (with the
/// merged histogram's mean instead, trials of different speeds would weigh by their
/// requests: a row of trials at 10 and 20 ms would expect 6% less than its trials do). The
/// row's interval says how far they may differ. None when the law does not give one
/// figure: the open model, a ramp of connections (their number is not one figure, and
/// latency grows with it), a sweep's steps, or a row without latency or req/s.
pub fn check(load: &LoadInfo, used: &[&TrialResult], s: &TargetSummary) -> Option<LittleCheck> {
    if load.model != crate::catalog::scenario::Model::Closed || !load.stages.is_empty() {
        return None;
    }
    if used.is_empty() || used.iter().any(|x| x.sweep.is_some()) {
        return None;
    }
    let pipelining = f64::from(load.pipelining.max(1));
    let think = load.think_time_s;
    let connections = |x: &TrialResult| match x.load.connections.planned {
        0 => f64::from(load.connections),
        n => n as f64,
    };
    // (concurrency, expected req/s) of every trial with a latency.
    let per_trial: Vec<(f64, f64)> = used
        .iter()
        .filter(|x| x.load.latency.mean_us > 0.0)
        .map(|x| {
            let c = connections(x) * pipelining;
            (c, c / (x.load.latency.mean_us / 1e6 + think))
        })
        .collect();
    let (concurrency, expected) = if per_trial.is_empty() {
        // No trial's own latency (an import): the merged histogram's.
        let c = crate::stats::mean(&used.iter().map(|x| connections(x)).collect::<Vec<_>>())
            * pipelining;
        (c, c / (s.latency.mean_us / 1e6 + think))
    } else {
        let c: Vec<f64> = per_trial.iter().map(|p| p.0).collect();
        let e: Vec<f64> = per_trial.iter().map(|p| p.1.ln()).collect();
        (crate::stats::mean(&c), crate::stats::mean(&e).exp())
    };
    let measured = s.rps.center_or_median();
    let usable = |x: f64| x.is_finite() && x > 0.0;
    if !usable(concurrency) || !usable(expected) || !usable(measured) {
        return None;
    }
    let diff = measured / expected - 1.0;
    // The row's interval (floored at its step), or its step alone for one trial.
    let half = s
        .rps
        .relative_half_width()
        .or(s.rps_resolution)
        .unwrap_or(0.0);
    let allowed = half + TOLERANCE;
    Some(LittleCheck {
        concurrency,
        turn_ms: concurrency / expected * 1000.0,
        expected_rps: expected,
        measured_rps: measured,
        diff_pct: diff * 100.0,
        allowed_pct: allowed * 100.0,
        agrees: diff.abs() <= allowed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::scenario::Model;
    use gqlbench_engine::LoadResult;

    fn info(connections: u32) -> LoadInfo {
        LoadInfo {
            model: Model::Closed,
            connections,
            pipelining: 1,
            ..Default::default()
        }
    }

    fn row(samples: &[f64], mean_ms: f64) -> TargetSummary {
        let mut s = TargetSummary {
            rps: crate::stats::estimate(samples),
            ..Default::default()
        };
        s.latency.mean_us = mean_ms * 1000.0;
        s
    }

    fn trial(planned: u64) -> TrialResult {
        let mut x = TrialResult::of_load(1, String::new(), LoadResult::default());
        x.load.connections.planned = planned;
        x
    }

    #[test]
    fn identical_counts_of_a_slow_gateway_disagree_and_its_timed_rate_agrees() {
        let t = trial(20);
        // hive-gateway, docs/runs/federation-quick-2026-11-26: 40 a second, 593 ms.
        let counted = check(&info(20), &[&t], &row(&[40.0, 40.0, 40.0], 593.0)).unwrap();
        assert!((counted.expected_rps - 20.0 / 0.593).abs() < 1e-9);
        assert!((counted.diff_pct - (40.0 / (20.0 / 0.593) - 1.0) * 100.0).abs() < 1e-9);
        assert!(!counted.agrees, "{counted:?}");
        // Its interval floored at the count's step (±50%) covers the difference.
        let mut floored = row(&[40.0, 40.0, 40.0], 593.0);
        super::super::resolution::floor(&mut floored.rps, 0.5);
        assert!(check(&info(20), &[&t], &floored).unwrap().agrees);
        // The rate from the requests' timing agrees within the tolerance.
        let timed = check(&info(20), &[&t], &row(&[33.5, 33.9, 33.6], 593.0)).unwrap();
        assert!(timed.agrees, "{timed:?}");
    }

    #[test]
    fn idle_connections_show_and_the_law_takes_the_schedule_as_it_was() {
        let t = trial(100);
        // 100 connections at 10 ms would get through 10,000 a second: 6,000 is far short.
        let short = check(&info(100), &[&t], &row(&[6_000.0, 6_050.0], 10.0)).unwrap();
        assert!(!short.agrees && short.diff_pct < -30.0, "{short:?}");
        // A duet's arm planned half the scenario's connections: its own figure counts.
        let half = trial(50);
        let duet = check(&info(100), &[&half], &row(&[5_000.0, 5_010.0], 10.0)).unwrap();
        assert_eq!(duet.concurrency, 50.0);
        assert!(duet.agrees, "{duet:?}");
        // Think time is part of the turn: 10 connections, 10 ms + 90 ms, 100 a second.
        let mut think = info(10);
        think.think_time_s = 0.09;
        let t10 = trial(10);
        let c = check(&think, &[&t10], &row(&[99.0, 99.5], 10.0)).unwrap();
        assert!((c.expected_rps - 100.0).abs() < 1e-9 && c.agrees, "{c:?}");
    }

    #[test]
    fn trials_of_different_speeds_are_weighed_alike() {
        // 100 connections: 10,000 a second at 10 ms, 5,000 at 20 ms. The merged histogram's
        // mean (13.3 ms, the fast trial having twice the requests) would expect 7,500.
        let mut fast = trial(100);
        fast.load.latency.mean_us = 10_000.0;
        let mut slow = trial(100);
        slow.load.latency.mean_us = 20_000.0;
        let mut r = row(&[10_000.0, 5_000.0], 40.0 / 3.0);
        r.rps.ci_low = r.rps.center * 0.99;
        r.rps.ci_high = r.rps.center * 1.01;
        let c = check(&info(100), &[&fast, &slow], &r).unwrap();
        assert!(
            (c.expected_rps - 50_000_000f64.sqrt()).abs() < 1e-6,
            "{c:?}"
        );
        assert!(c.diff_pct.abs() < 1e-9 && c.agrees, "{c:?}");
        assert!((c.turn_ms - 100.0 / c.expected_rps * 1000.0).abs() < 1e-9);
    }

    #[test]
    fn no_single_figure_no_check() {
        let t = trial(20);
        let r = row(&[40.0, 41.0], 500.0);
        let mut open = info(20);
        open.model = Model::Open;
        assert!(check(&open, &[&t], &r).is_none());
        let mut ramp = info(20);
        ramp.stages = vec![(4.0, 100.0)];
        assert!(check(&ramp, &[&t], &r).is_none());
        let mut sweep = trial(20);
        sweep.sweep = Some(Vec::new());
        assert!(check(&info(20), &[&sweep], &r).is_none());
        assert!(check(&info(20), &[], &r).is_none());
        assert!(check(&info(20), &[&t], &row(&[40.0, 41.0], 0.0)).is_none());
    }
}
