//! `ab`'s arguments: two builds (sides A and B) of one target measured in one run, with
//! the load alternating between them over fresh process pairs until a sequential rule
//! decides (docs/method.md, "A/B of two builds").
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::parsers::{parse_allowance, parse_duration};
use super::IsolationArgs;
use crate::plan::ab::defaults;

#[derive(Args, Debug)]
pub struct AbArgs {
    /// The scenario both sides run, as suite/name (a plain-load scenario)
    #[arg(default_value = defaults::SCENARIO)]
    pub scenario: String,
    /// The target of both sides (from each side's catalogue)
    #[arg(long, short = 't')]
    pub target: Option<String>,
    /// Side A's target, when the sides are different targets
    #[arg(long, value_name = "NAME")]
    pub a_target: Option<String>,
    /// Side B's target
    #[arg(long, value_name = "NAME")]
    pub b_target: Option<String>,
    /// Side A's checkout: the folder holding its targets/ and scenarios/ (the base)
    #[arg(long, value_name = "DIR")]
    pub a_root: Option<PathBuf>,
    /// Side B's checkout (the head; default: side A's)
    #[arg(long, value_name = "DIR")]
    pub b_root: Option<PathBuf>,
    /// Side A's name in the report
    #[arg(long, value_name = "TEXT")]
    pub a_label: Option<String>,
    /// Side B's name in the report
    #[arg(long, value_name = "TEXT")]
    pub b_label: Option<String>,
    /// Extra environment for side A only (repeatable)
    #[arg(long = "a-env", value_name = "NAME=VALUE")]
    pub a_env: Vec<String>,
    /// Extra environment for side B only (repeatable)
    #[arg(long = "b-env", value_name = "NAME=VALUE")]
    pub b_env: Vec<String>,
    /// Extra environment for both sides (repeatable)
    #[arg(long = "target-env", value_name = "NAME=VALUE")]
    pub target_env: Vec<String>,
    /// A change within ±PCT is equivalent; B slower by possibly more fails (exit 1)
    #[arg(long, default_value = "2%", value_parser = parse_allowance, value_name = "PCT")]
    pub allowance: f64,
    /// The most time the decision may take, starts included
    #[arg(long, default_value = "10m", value_parser = parse_duration)]
    pub budget: std::time::Duration,
    /// Measured load per process pair, after its warm-up
    #[arg(long, default_value = "8s", value_parser = parse_duration)]
    pub pair_time: std::time::Duration,
    /// Warm-up of each pair (alternating too)
    #[arg(long, default_value = "3s", value_parser = parse_duration)]
    pub warmup: std::time::Duration,
    /// Slice length: how long the load stays on one side before switching
    #[arg(long, default_value = "200ms", value_parser = parse_duration)]
    pub slice: std::time::Duration,
    /// The first part of each slice not counted (default: measured by the run from the
    /// pairs' own switch transient)
    #[arg(long, value_parser = parse_duration)]
    pub guard: Option<std::time::Duration>,
    /// How the sides share the machine: alternate (slices) or duet (both at once)
    #[arg(long, value_enum, default_value_t = FormArg::Alternate)]
    pub form: FormArg,
    /// The most process pairs, the looks the sequential rule plans for (default: as many as
    /// fit in the budget, at most 12)
    #[arg(long)]
    pub max_pairs: Option<u32>,
    /// Override the scenario's connections
    #[arg(long, short = 'c')]
    pub connections: Option<u32>,
    /// Measured open-model load per pair for the p50/p99 comparison at a fixed rate (0s: none)
    #[arg(long, default_value = "4s", value_parser = parse_duration)]
    pub latency_time: std::time::Duration,
    /// Profile the scenario's load is taken from
    #[arg(long, default_value = crate::plan::DEFAULT_PROFILE)]
    pub profile: String,
    /// Output folder (default: results/<timestamp>-ab-<scenario>); it must be new or empty
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace an earlier run in the output folder
    #[arg(long)]
    pub force: bool,
    /// Print the results as JSON on stdout (tables go to stderr)
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub isolation: IsolationArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormArg {
    Alternate,
    Duet,
}
