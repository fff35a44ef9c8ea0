//! An A/B run as asked and as planned: two sides (arms) of one scenario, each a target from
//! its own catalogue root with its own environment, measured in fresh process pairs with the
//! load alternating between them (or shared at once: the duet), until a sequential rule
//! decides. `AbOptions` is what the command line gives; `AbPlan` is what the runner does.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::options::IsolationOptions;
use super::RunPlan;

/// How the two sides share the machine during a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// Both processes up, the load switches between them in short slices (ABBA blocks).
    #[default]
    Alternate,
    /// Both processes loaded at once on the same target CPUs, each with half the
    /// connections: the ratio of their CPU costs per request, under the same noise.
    Duet,
}

/// One side as asked: which target, from which root, under which name, with what extra
/// environment (`NAME=VALUE`, checked by the planner).
#[derive(Debug, Clone, Default)]
pub struct SideOptions {
    pub target: Option<String>,
    pub root: Option<PathBuf>,
    pub label: Option<String>,
    pub env: Vec<String>,
}

/// An A/B run's options (`gqlbench ab`).
#[derive(Debug, Clone)]
pub struct AbOptions {
    /// "suite/name".
    pub scenario: String,
    /// The target of both sides unless a side names its own.
    pub target: Option<String>,
    pub a: SideOptions,
    pub b: SideOptions,
    /// Environment for both sides.
    pub target_env: Vec<String>,
    /// A change within ±allowance is "equivalent"; a slowdown that may exceed it fails.
    pub allowance: f64,
    /// The most time the decision may take (starts included).
    pub budget: Duration,
    /// Measured load per pair, after its warm-up.
    pub pair_time: Duration,
    pub warmup: Duration,
    /// Slice length (alternation).
    pub slice: Duration,
    /// The first part of each slice not counted (None: measured by the run).
    pub guard: Option<Duration>,
    pub form: Form,
    pub max_pairs: Option<u32>,
    pub connections: Option<u32>,
    /// Measured open-model load per pair for the latency comparison (zero: none).
    pub latency_time: Duration,
    pub profile: String,
    pub out: Option<PathBuf>,
    pub json: bool,
    pub isolation: IsolationOptions,
}

/// Defaults of `gqlbench ab`, shared with its command line.
pub mod defaults {
    use std::time::Duration;
    pub const SCENARIO: &str = "servers/simple";
    pub const ALLOWANCE: f64 = 0.02;
    pub const BUDGET: Duration = Duration::from_secs(600);
    pub const PAIR_TIME: Duration = Duration::from_secs(8);
    pub const WARMUP: Duration = Duration::from_secs(3);
    /// From the slice pilot (docs/runs/ab-slices-2026-11-26): two builds of one server
    /// settle faster after a switch than different servers do (`plan::alternation`).
    pub const SLICE: Duration = Duration::from_millis(200);
    pub const LATENCY_TIME: Duration = Duration::from_secs(4);
    /// Two-sided error rate of the repeated confidence intervals (95% intervals).
    pub const ALPHA: f64 = 0.05;
    /// The first look: the interval needs 2 degrees of freedom.
    pub const MIN_PAIRS: u32 = 3;
    /// Looks planned when the budget holds more pairs: more looks spread the error rate
    /// thinner at each (a later first decision) for power that pairs of a fraction of a
    /// percent of spread do not need (docs/method.md, "A/B of two builds").
    pub const MAX_PAIRS: u32 = 12;
}

impl Default for AbOptions {
    fn default() -> AbOptions {
        AbOptions {
            scenario: defaults::SCENARIO.into(),
            target: None,
            a: SideOptions::default(),
            b: SideOptions::default(),
            target_env: Vec::new(),
            allowance: defaults::ALLOWANCE,
            budget: defaults::BUDGET,
            pair_time: defaults::PAIR_TIME,
            warmup: defaults::WARMUP,
            slice: defaults::SLICE,
            guard: None,
            form: Form::Alternate,
            max_pairs: None,
            connections: None,
            latency_time: defaults::LATENCY_TIME,
            profile: super::DEFAULT_PROFILE.into(),
            out: None,
            json: false,
            isolation: IsolationOptions::default(),
        }
    }
}

/// One side as planned.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Arm {
    pub label: String,
    pub target: String,
    pub root: PathBuf,
    /// Its own environment (over the run's).
    pub env: BTreeMap<String, String>,
}

/// An A/B run as the runner carries it out: the run's plan holds the one scenario, whose
/// targets are side A's and side B's (in that order).
#[derive(Debug)]
pub struct AbPlan<K: ?Sized> {
    pub run: RunPlan<K>,
    pub arms: [Arm; 2],
    pub allowance: f64,
    pub budget: Duration,
    pub pair_time: Duration,
    pub warmup: Duration,
    pub slice: Duration,
    pub guard: Option<Duration>,
    pub form: Form,
    pub min_pairs: u32,
    /// The looks the sequential rule plans for (the budget may end it sooner).
    pub max_pairs: u32,
    pub alpha: f64,
    pub latency_time: Duration,
}

/// Seconds a pair is expected to take besides its load: both starts, the answers' check and
/// both stops (a Node server starts in about a second). Only the planned number of looks
/// depends on it; a slower start ends the run at the budget, with a valid final look.
pub const PAIR_OVERHEAD: Duration = Duration::from_secs(4);

impl<K: ?Sized> AbPlan<K> {
    /// Seconds one pair is expected to take.
    pub fn pair_secs(&self) -> f64 {
        pair_secs(self.warmup, self.pair_time, self.latency_time)
    }
}

/// Seconds a pair of `warmup`, `pair_time` and `latency_time` is expected to take.
pub fn pair_secs(warmup: Duration, pair_time: Duration, latency_time: Duration) -> f64 {
    (PAIR_OVERHEAD + warmup + pair_time + latency_time).as_secs_f64()
}

/// The looks planned: as many pairs as fit in `budget`, at least the first look, at most
/// `cap`.
pub fn planned_pairs(budget: Duration, pair_secs: f64, min: u32, cap: u32) -> u32 {
    let fit = (budget.as_secs_f64() / pair_secs.max(1.0)).floor() as u32;
    fit.min(cap).max(min)
}
