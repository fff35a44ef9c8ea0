//! What is derived from a target's trials and stored with them: its summary (estimates: the
//! geometric mean with a 95% t interval, the median and the spread; merged latency), the
//! leak verdict, the subscription summary, and a
//! scenario's ranking.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{GcStats, MemoryTrend};

/// Summary of a target's valid trials in one scenario. Derived from the trials; stored so
/// that scripts need not recompute it.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct TargetSummary {
    pub trials: u32,
    pub valid_trials: u32,
    pub rps: Estimate,
    pub p99_us: Estimate,
    /// Closed model: the step of the trials' req/s relative to it (0.05 = ±5%), the mean
    /// over the used trials of each one's (`load.rps_resolution`; in files of older versions
    /// the count's bound, `summary::resolution`). `rps`'s interval is never narrower: one
    /// request per connection at each edge of the counted time is not resolved by trials
    /// that agree. None in the open model. Absent in files of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rps_resolution: Option<f64>,
    /// `rps`'s interval was widened to `rps_resolution`: the trials' spread alone was
    /// narrower than their step.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rps_widened: bool,
    /// Closed model: the row's req/s against Little's law (`summary::little`). None in the
    /// open model, for a ramp or a sweep, or without figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub little: Option<LittleCheck>,
    /// Latency of all valid trials' histograms merged (not averaged percentiles).
    pub latency: gqlbench_engine::LatencySummary,
    pub requests: u64,
    pub failures: u64,
    pub failures_by_kind: BTreeMap<String, u64>,
    pub cpu_avg_pct: Option<f64>,
    pub rss_peak_bytes: Option<u64>,
    pub rss_avg_bytes: Option<u64>,
    /// The most threads the target had at one sample, over the counted trials (/proc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads_peak: Option<u32>,
    pub gc: Option<GcStats>,
    pub generator_utilization_max: f64,
    /// Federation: median subgraph requests per client request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_calls_per_request: Option<f64>,
    /// Federation: median CPU of the subgraphs, % of one core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subgraph_cpu_pct: Option<f64>,
    /// Rate sweep: the highest arrival rate that held, per trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sustained_rate: Option<Estimate>,
    /// Database scenarios: median database queries per GraphQL request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db_queries_per_request: Option<f64>,
    /// Long runs: the leak verdict of the longest valid trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leak: Option<LeakVerdict>,
    /// Subscriptions: medians over trials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscriptions: Option<SubscriptionSummary>,
    /// Any trial flagged by the saturation guard (caveats aside).
    pub saturated: bool,
    /// Caveats of the counted trials (`saturation::is_caveat`: `unsteady`, `interference`,
    /// `budget`) and of the row (`littles_law`, `summary::checks`):
    /// the row stays valid and ranked, and the report names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caveats: Vec<String>,
    /// Every trial valid and at least one trial run.
    pub valid: bool,
}

/// A closed-model row's req/s against Little's law: a closed loop of `concurrency` requests
/// each taking the mean latency plus the think time gets through `concurrency / turn` a
/// second; a row that does not is counted otherwise than its requests were timed (a count's
/// step, connections idle or stuck, requests without an answer).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LittleCheck {
    /// Requests the schedule keeps going at once: connections × pipelining.
    pub concurrency: f64,
    /// A connection's turn, milliseconds: `concurrency / expected_rps`, the mean latency plus
    /// the think time that the trials' figures by the law imply together.
    pub turn_ms: f64,
    /// The req/s the law gives: the geometric mean over the used trials of each one's
    /// connections × pipelining / (its mean latency + think time), as the row's req/s is the
    /// geometric mean of theirs.
    pub expected_rps: f64,
    /// The row's req/s (the center of its trials).
    pub measured_rps: f64,
    /// measured / expected − 1, in %.
    pub diff_pct: f64,
    /// How far they may differ, in %: the row's half-width (at least its step) plus the
    /// client's own tolerance (`summary::little::TOLERANCE`).
    pub allowed_pct: f64,
    /// |diff| within allowed; otherwise the row carries the caveat `littles_law`.
    pub agrees: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LeakVerdict {
    /// "stable", "growing" (leak suspected) or "too_short" to judge.
    pub verdict: String,
    pub trend: MemoryTrend,
    /// Baseline (idle before load), peak and average RSS of that trial.
    /// None ("unmeasured") when not read.
    pub baseline_bytes: Option<u64>,
    #[serde(default)]
    pub peak_bytes: Option<u64>,
    #[serde(default)]
    pub avg_bytes: Option<u64>,
    pub detail: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct SubscriptionSummary {
    pub connections: u32,
    pub held: Estimate,
    pub dropped: u64,
    /// Messages per second per connection.
    pub msgs_per_conn_s: Estimate,
    /// Delivery latency, merged over trials.
    pub latency: gqlbench_engine::LatencySummary,
    pub memory_per_1000_bytes: Option<Estimate>,
    pub gaps: u64,
}

pub use crate::stats::Estimate;

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Ranking {
    pub fastest: String,
    pub runner_up: String,
    /// req/s of fastest over runner-up, minus one, in %: the mean of the per-round ratios
    /// (geometric), the rounds being blocks every target shares.
    #[serde(deserialize_with = "super::nonfinite::null_as_nan")]
    pub margin_pct: f64,
    /// 95% t interval of that margin.
    #[serde(deserialize_with = "super::nonfinite::null_as_unbounded")]
    pub margin_ci_pct: (f64, f64),
    /// The interval excludes zero (and each side has at least 3 rounds).
    pub significant: bool,
    /// Fewest trials on either side; below 3 nothing is called significant.
    #[serde(default)]
    pub min_trials: u32,
    /// Every adjacent pair, fastest first: whether it is decided.
    #[serde(default)]
    pub pairs: Vec<RankPair>,
}

/// Two neighbours of the ranking.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct RankPair {
    pub faster: String,
    pub slower: String,
    /// faster over slower, in % with its interval, from the rounds both ran.
    pub margin: Option<crate::stats::Change>,
    /// `faster` (the interval excludes 0), `equivalent` (the whole interval is within the
    /// precision asked for) or `undecided`.
    pub state: String,
    /// How the race judged it (`summary::race`); absent in files before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race: Option<RacePair>,
}

/// What more an undecided pair would take at the noise seen so far (display only: the
/// decision stays with the sequential rule).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Forecast {
    /// More units (of the pair's estimate) until an interval would decide, about half the
    /// time (the observed difference and spread taken as true).
    #[serde(deserialize_with = "super::nonfinite::null_as_inf")]
    pub more_units: f64,
    /// The same in rounds of the pair alone.
    pub more_rounds: u32,
    /// Which verdict the forecast heads for.
    /// `faster` or `equivalent`.
    pub toward: String,
}

/// How an adjacent pair of the ranking was judged: the unit its interval rests on and the
/// two-level variance that chose it, the look and the share of the error rate, and for a
/// pair left open what deciding it would take.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RacePair {
    pub unit: crate::stats::levels::Unit,
    /// Units the interval's standard error came from, and its degrees of freedom.
    pub units: usize,
    #[serde(deserialize_with = "super::nonfinite::null_as_inf")]
    pub df: f64,
    /// Rounds both targets ran, at the look that decided it (or the last).
    pub rounds: usize,
    /// The round after which it was decided.
    pub decided_after: Option<u32>,
    /// The error rate its interval was made at (the race's, shared among the pairs open).
    pub alpha: f64,
    /// The interval's half-width over the standard error.
    #[serde(deserialize_with = "super::nonfinite::null_as_inf")]
    pub multiplier: f64,
    pub levels: crate::stats::levels::Levels,
    /// For a pair left open: more rounds of the pair alone that would decide it about
    /// half the time at the noise seen, and which way.
    pub forecast: Option<Forecast>,
}
