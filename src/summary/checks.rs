//! What is checked of a closed-model row once its summary is made, knowing the scenario's
//! load: its req/s interval floored at its trials' step (`resolution`), and its req/s
//! against Little's law (`little`), which adds the caveat `littles_law` when they
//! disagree. Run after every trial with the summary (the plain-load kind's `summarize`),
//! and again on a saved run by `gqlbench report`, so that a run of an older version is
//! judged by these rules too: both are idempotent.
use super::{little, resolution, used_trials};
use crate::catalog::scenario::Model;
use crate::results::{FlagKind, LoadInfo, TargetResult};

pub fn apply(load: &LoadInfo, t: &mut TargetResult) {
    if load.model != Model::Closed {
        return;
    }
    let Some(mut s) = t.summary.take() else {
        return;
    };
    if s.rps.n > 0 {
        let used = used_trials(t);
        let step = resolution::row_step(&used, load.pipelining);
        s.rps_resolution = step;
        s.rps_widened = step.is_some_and(|r| resolution::floor(&mut s.rps, r));
        s.little = little::check(load, &used, &s);
        let caveat = FlagKind::LittlesLaw.to_string();
        s.caveats.retain(|c| *c != caveat);
        if s.little.as_ref().is_some_and(|l| !l.agrees) {
            s.caveats.push(caveat);
            s.caveats.sort();
        }
    }
    t.summary = Some(s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TrialResult;
    use gqlbench_engine::LoadResult;

    fn gateway(counts: &[u64], mean_ms: f64) -> TargetResult {
        let mut t = TargetResult::new("hive-gateway".into(), Default::default());
        for (i, n) in counts.iter().enumerate() {
            let mut load = LoadResult {
                model: "closed".into(),
                requests: *n,
                elapsed_s: 1.0,
                throughput_rps: *n as f64,
                ..Default::default()
            };
            load.connections.planned = 20;
            load.connections.connections_used = 20;
            t.trials
                .push(TrialResult::of_load(i as u32 + 1, String::new(), load));
        }
        let mut s = super::super::summarize(&t).expect("trials");
        s.latency.mean_us = mean_ms * 1000.0;
        t.summary = Some(s);
        t
    }

    fn closed(connections: u32) -> LoadInfo {
        LoadInfo {
            model: Model::Closed,
            connections,
            pipelining: 1,
            ..Default::default()
        }
    }

    #[test]
    fn a_row_of_identical_counts_of_an_older_run_is_widened_and_checked() {
        let mut t = gateway(&[40, 40, 40], 593.0);
        apply(&closed(20), &mut t);
        let s = t.summary.as_ref().unwrap();
        assert_eq!(s.rps_resolution, Some(0.5));
        assert!(s.rps_widened);
        assert_eq!((s.rps.ci_low, s.rps.ci_high), (20.0, 60.0));
        // Within ±50% of 40 lies 33.7: the law agrees with the widened interval.
        let l = s.little.as_ref().unwrap();
        assert!(l.agrees, "{l:?}");
        assert!(s.caveats.is_empty());
        // Applied again (a saved run read back): the same.
        let before = format!("{:?}", t.summary);
        apply(&closed(20), &mut t);
        assert_eq!(format!("{:?}", t.summary), before);
    }

    #[test]
    fn a_row_far_from_the_law_carries_the_caveat_once() {
        // 20 connections at 100 ms would get through 200 a second: 4,000 answers is not that.
        let mut t = gateway(&[4_000, 4_010, 3_990], 100.0);
        apply(&closed(20), &mut t);
        apply(&closed(20), &mut t);
        let s = t.summary.as_ref().unwrap();
        assert!(!s.rps_widened, "a step of 0.5% is inside the spread");
        assert!(!s.little.as_ref().unwrap().agrees);
        assert_eq!(s.caveats, ["littles_law"]);
        assert!(super::super::rankable(&t), "a caveat does not unrank");
        // The open model is not checked.
        let mut open = gateway(&[40, 40], 500.0);
        let mut info = closed(20);
        info.model = Model::Open;
        apply(&info, &mut open);
        assert!(open.summary.as_ref().unwrap().little.is_none());
        assert!(!open.summary.as_ref().unwrap().rps_widened);
    }
}
