//! Derived figures: a target's summary over its trials and a scenario's ranking. Latency
//! percentiles come from the trials' histograms merged, never from averaged percentiles.
//! What is checked of a closed-model row once its summary is made (its interval against
//! the count's step, its req/s against Little's law) is in `checks`.
//! What a trial at a fixed rate cost, the figure an efficiency scenario ranks, is in
//! `efficiency`.
pub mod ab;
pub mod bound;
pub mod checks;
pub mod efficiency;
pub mod little;
pub mod race;
pub mod resolution;
pub mod rounds;
pub mod standing;
pub mod transient;

use std::collections::BTreeMap;

use gqlbench_engine::{decode_hist, new_latency, summarize_hist};

use crate::catalog::scenario::Model;
use crate::results::{GcStats, RankPair, Ranking, ScenarioResult, TargetResult};
use crate::results::{TargetStatus, TargetSummary, TrialResult};
use crate::stats;

pub fn summarize(t: &TargetResult) -> Option<TargetSummary> {
    if t.trials.is_empty() {
        return None;
    }
    let counted = counted_trials(t);
    let valid: Vec<_> = counted.iter().copied().filter(|x| x.valid).collect();
    let used = used_trials(t);
    let rps: Vec<f64> = used.iter().map(|x| x.load.throughput_rps).collect();
    let p99: Vec<f64> = used.iter().map(|x| x.load.latency.p99_us as f64).collect();
    let merged = merged_latency(&used);
    let mut failures_by_kind: BTreeMap<String, u64> = BTreeMap::new();
    for x in &t.trials {
        for (k, n) in &x.load.failures {
            *failures_by_kind
                .entry(crate::results::kind_name(*k).to_string())
                .or_default() += n;
        }
    }
    let gcs: Vec<&GcStats> = used.iter().filter_map(|x| x.vitals.gc.as_ref()).collect();
    let gc = (!gcs.is_empty()).then(|| GcStats {
        count: stats::median(&gcs.iter().map(|g| g.count as f64).collect::<Vec<_>>()) as u64,
        total_ms: stats::median(&gcs.iter().map(|g| g.total_ms).collect::<Vec<_>>()),
        max_ms: gcs.iter().map(|g| g.max_ms).fold(0.0, f64::max),
    });
    Some(TargetSummary {
        trials: t.trials.len() as u32,
        valid_trials: valid.len() as u32,
        rps: stats::estimate(&rps),
        p99_us: stats::estimate(&p99),
        // Set by `checks::apply`, which knows the scenario's load.
        rps_resolution: None,
        rps_widened: false,
        little: None,
        latency: summarize_hist(&merged),
        requests: t.trials.iter().map(|x| x.load.requests).sum(),
        failures: failures_by_kind.values().sum(),
        failures_by_kind,
        // Over the trials where each figure was read: an unread one is not a zero.
        cpu_avg_pct: median_of(used.iter().filter_map(|x| x.vitals.cpu_avg_pct)),
        rss_peak_bytes: used.iter().filter_map(|x| x.vitals.rss_peak_bytes).max(),
        threads_peak: used.iter().filter_map(|x| x.vitals.threads_peak).max(),
        rss_avg_bytes: median_of(
            used.iter()
                .filter_map(|x| x.vitals.rss_avg_bytes.map(|b| b as f64)),
        )
        .map(|b| b as u64),
        gc,
        upstream_calls_per_request: median_of(
            used.iter()
                .filter_map(|x| x.upstream.as_ref().map(|u| u.calls_per_request)),
        ),
        subgraph_cpu_pct: median_of(
            used.iter()
                .filter_map(|x| x.upstream.as_ref().and_then(|u| u.subgraph_cpu_pct)),
        ),
        max_sustained_rate: {
            let rates: Vec<f64> = t
                .trials
                .iter()
                .filter_map(|x| x.sweep.as_ref())
                .filter(|steps| steps.iter().any(|s| s.rate.is_some()))
                .map(|steps| {
                    steps
                        .iter()
                        .filter(|s| s.held)
                        .filter_map(|s| s.rate)
                        .fold(0.0, f64::max)
                })
                .collect();
            (!rates.is_empty()).then(|| stats::estimate(&rates))
        },
        generator_utilization_max: t
            .trials
            .iter()
            .map(|x| x.generator.utilization)
            .fold(0.0, f64::max),
        db_queries_per_request: median_of(
            used.iter()
                .filter_map(|x| x.database.as_ref().map(|d| d.queries_per_request)),
        ),
        leak: None,
        subscriptions: None,
        // Over the counted trials: a trial measured again does not count, flags included.
        saturated: counted.iter().any(|x| {
            x.saturation
                .iter()
                .any(|f| !crate::saturation::is_caveat(f))
        }),
        caveats: {
            let mut c: Vec<String> = counted
                .iter()
                .flat_map(|x| x.saturation.iter())
                .filter(|f| crate::saturation::is_caveat(f))
                .map(|f| f.kind.to_string())
                .collect();
            c.sort();
            c.dedup();
            c
        },
        valid: t.status == TargetStatus::Ok && valid.len() == counted.len(),
    })
}

/// The trials that count: a trial measured again (interference) is kept in the results
/// but not counted.
pub fn counted_trials(t: &TargetResult) -> Vec<&TrialResult> {
    t.trials.iter().filter(|x| x.excluded.is_none()).collect()
}

/// The trials a summary's figures come from: the valid counted ones; when none is valid,
/// every counted one that ran its whole window (the row is then marked invalid), so a user
/// still sees what happened. A trial cut short by Ctrl-C measured part of a window, not the
/// target, and the trial a crashed target died in (its last: a crashed target is measured
/// no more) measured the dying: neither gives the row its figures.
pub fn used_trials(t: &TargetResult) -> Vec<&TrialResult> {
    let counted = counted_trials(t);
    let valid: Vec<&TrialResult> = counted.iter().copied().filter(|x| x.valid).collect();
    if valid.is_empty() {
        let died_in = (t.status == TargetStatus::Crashed)
            .then(|| t.trials.last())
            .flatten();
        counted
            .into_iter()
            .filter(|x| !x.load.interrupted)
            .filter(|x| !died_in.is_some_and(|d| std::ptr::eq(*x, d)))
            .collect()
    } else {
        valid
    }
}

/// The latency histograms of `trials` merged (a trial whose histogram does not decode adds
/// nothing): the summary's percentiles and the HTML report's distribution come from it.
pub fn merged_latency(trials: &[&TrialResult]) -> hdrhistogram::Histogram<u64> {
    let mut merged = new_latency();
    for x in trials {
        if let Ok(h) = decode_hist(&x.load.latency_hist) {
            // Same bounds everywhere (new_latency), so adding cannot fail in practice.
            let _ = merged.add(&h);
        }
    }
    merged
}

fn median_of(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let v: Vec<f64> = xs.collect();
    (!v.is_empty()).then(|| stats::median(&v))
}

/// An open model at one rate (not a sweep of rates): every target that keeps up serves
/// the rate, so throughput ranks nothing (latency and the overhead tables say what differs).
/// Not an efficiency scenario's: it ranks the CPU each answer cost (`kinds::efficiency`).
pub fn fixed_rate(s: &ScenarioResult) -> bool {
    !s.by_kind.has(&efficiency::RATE)
        && s.load.model == Model::Open
        && s.load.stages.is_empty()
        && s.targets
            .iter()
            .all(|t| t.trials.iter().all(|x| x.sweep.is_none()))
}

/// Whether a target's figures may be ranked: every trial valid and nothing flagged.
pub fn rankable(t: &TargetResult) -> bool {
    t.summary
        .as_ref()
        .map(|s| s.valid && !s.saturated)
        .unwrap_or(false)
}

/// The ranking of the valid, unsaturated targets (baselines are the ceiling servers are
/// measured against, not contestants): the race's standing after the scenario's last round
/// (`summary::race`), every adjacent pair compared on the rounds both ran; the fastest is
/// named only when its pair with the runner-up is decided "faster".
pub fn rank(s: &ScenarioResult) -> Option<Ranking> {
    if fixed_rate(s) {
        return None;
    }
    let st = standing::standing(s, standing::looks(s));
    if st.order.len() < 2 {
        return None;
    }
    let pairs: Vec<RankPair> = st.pairs.iter().map(rank_pair).collect();
    let top = pairs.first()?;
    let m = top.margin?;
    let samples = |name: &str| {
        s.targets
            .iter()
            .find(|t| t.name == name)
            .map_or(0, |t| counted_trials(t).iter().filter(|x| x.valid).count())
    };
    Some(Ranking {
        fastest: top.faster.clone(),
        runner_up: top.slower.clone(),
        margin_pct: m.pct,
        margin_ci_pct: (m.ci_low_pct, m.ci_high_pct),
        significant: top.state == "faster",
        min_trials: samples(&top.faster).min(samples(&top.slower)) as u32,
        pairs,
    })
}

/// A judged pair as the results keep it.
fn rank_pair(p: &race::PairJudgement) -> RankPair {
    RankPair {
        faster: p.faster.clone(),
        slower: p.slower.clone(),
        margin: p.change,
        state: p.state.as_str().into(),
        race: p.estimate.map(|e| crate::results::RacePair {
            unit: e.unit,
            units: e.n,
            df: e.df,
            rounds: p.look,
            decided_after: p.decided_after,
            alpha: p.alpha,
            multiplier: p.multiplier,
            levels: e.levels,
            forecast: p.forecast.clone(),
        }),
    }
}
