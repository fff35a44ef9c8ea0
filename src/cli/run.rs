//! `run`'s arguments, with the two groups other commands share: where the generator and
//! the targets run (`IsolationArgs`: check, calibrate) and the cost section (`CostArgs`:
//! report).
use std::path::PathBuf;

use clap::Args;

use super::parsers::{parse_duration, parse_interference, parse_precision};

#[derive(Args, Debug, Clone)]
pub struct IsolationArgs {
    /// CPUs for the load generator, e.g. "0" or "0-3" (default: the first half of the CPUs)
    #[arg(long, value_name = "LIST")]
    pub generator_cpus: Option<String>,
    /// CPUs for the targets, e.g. "1" or "4-7" (default: the other half)
    #[arg(long, value_name = "LIST")]
    pub target_cpus: Option<String>,
    /// Do not pin the generator and the targets to CPU sets
    #[arg(long)]
    pub no_pin: bool,
    /// Do not apply cgroup CPU quota / memory caps even when writable
    #[arg(long)]
    pub no_cgroups: bool,
    /// Run even when another gqlbench holds some of these CPUs (the report says so)
    #[arg(long)]
    pub force_concurrent: bool,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Suite to run (a folder under scenarios/)
    #[arg(default_value = crate::plan::DEFAULT_SUITE)]
    pub suite: String,
    /// Only these targets (comma separated)
    #[arg(long, value_delimiter = ',')]
    pub targets: Vec<String>,
    /// Only these scenarios of the suite (comma separated); naming an optional scenario runs it
    #[arg(long, value_delimiter = ',')]
    pub scenarios: Vec<String>,
    /// Also run the suite's optional scenarios (long runs, load sweeps, constrained cold starts)
    #[arg(long)]
    pub all: bool,
    /// Profile: quick (default, minutes), standard, full (the published parameters)
    #[arg(long, default_value = crate::plan::DEFAULT_PROFILE)]
    pub profile: String,
    /// Override the number of trials per target
    #[arg(long)]
    pub trials: Option<u32>,
    /// Override the measured duration of each trial (e.g. 30s)
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<std::time::Duration>,
    /// Override the warm-up before each trial (e.g. 5s); with --warmup-max, the least
    #[arg(long, value_parser = parse_duration)]
    pub warmup: Option<std::time::Duration>,
    /// Warm up until the throughput is steady, at most this long (closed model)
    #[arg(long, value_parser = parse_duration)]
    pub warmup_max: Option<std::time::Duration>,
    /// Add trials until every row's 95% interval is within ±PCT of its center, or the
    /// ranking is decided (or the budget is spent), e.g. 5%
    #[arg(long, value_name = "PCT", value_parser = parse_precision)]
    pub precision: Option<f64>,
    /// The most trials per target when adding them for --precision
    #[arg(long)]
    pub max_trials: Option<u32>,
    /// CPU use by other processes on the run's CPUs (% of one CPU) above which a trial is
    /// disturbed (default 10%): a burst well above the run's own level is measured again, a
    /// steady level is counted and named; "off" judges none
    #[arg(long, value_name = "PCT", value_parser = parse_interference)]
    pub interference_limit: Option<f64>,
    /// Time the hypervisor steals from the run's CPUs (% of one CPU) above which a trial
    /// is disturbed (default 5%): a burst well above the machine's own level is measured
    /// again, a steady level is counted and named; "off" judges none
    #[arg(long, value_name = "PCT", value_parser = parse_interference)]
    pub steal_limit: Option<f64>,
    /// Extra environment for every target the run starts, e.g. GQLBENCH_WORK=200000
    /// (repeatable; recorded in the results and shown in the report)
    #[arg(long = "target-env", value_name = "NAME=VALUE")]
    pub target_env: Vec<String>,
    /// The run's one time budget, counted after the installs: every scenario does its
    /// minimum, and what they add beyond it (rounds, sweep steps) stops when it is spent (e.g. 10m)
    #[arg(long, value_parser = parse_duration)]
    pub max_time: Option<std::time::Duration>,
    /// Plain closed-model scenarios measure a round's targets together, alternating in
    /// slices this long (balanced blocks; the first quarter of each not counted), so every
    /// target sees the same machine (default 400ms; 50ms to 60s)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub slice: Option<std::time::Duration>,
    /// Measure each target of a round alone, one after another, instead of alternating
    /// (each trial then has the CPU and per-second figures of that target alone)
    #[arg(long, conflicts_with = "slice")]
    pub one_at_a_time: bool,
    /// Override the number of connections of closed-model scenarios
    #[arg(long, short = 'c')]
    pub connections: Option<u32>,
    /// Load sweep: run each closed-model scenario at these connection counts (e.g. 50,100,250,500)
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "N,N,...",
        conflicts_with = "connections"
    )]
    pub connection_sweep: Option<Vec<u32>>,
    /// Database scenarios: users to seed (10 posts each, 5 comments a post); the published scale is 1000000
    #[arg(long, default_value_t = crate::plan::MIN_SCALE)]
    pub scale: u64,
    /// Database scenarios: folder for the temporary PostgreSQL data directory (default: the system temp folder, or $GQLBENCH_PG_DIR)
    #[arg(long, value_name = "DIR", env = "GQLBENCH_PG_DIR")]
    pub db_dir: Option<PathBuf>,
    /// Federation suite: benchmark the gateways on your own graph, a folder made by
    /// `gqlbench init graph` (mock subgraphs from its SDL, its operations, expected answers
    /// computed; the scenarios constant, rate-sweep and delays). See docs/own-graph.md
    #[arg(long, value_name = "DIR")]
    pub graph: Option<PathBuf>,
    /// Output folder (default: results/<timestamp>-<suite>); it must be new or empty
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace an earlier run in the output folder (removes its results, report, logs and charts)
    #[arg(long)]
    pub force: bool,
    /// Print the results as JSON on stdout (tables go to stderr)
    #[arg(long)]
    pub json: bool,
    /// Exit 0 even when rows are invalid or targets failed (they are still reported)
    #[arg(long)]
    pub ignore_failures: bool,
    #[command(flatten)]
    pub isolation: IsolationArgs,
    #[command(flatten)]
    pub cost: CostArgs,
}

/// The efficiency and cost section of the reports (docs/cost.md).
#[derive(Args, Debug, Clone)]
pub struct CostArgs {
    /// Price table (TOML) for the efficiency and cost section (default: the shipped prices/aws-on-demand.toml)
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Traffic to size instances for: req/s, or N/s, N/min, N/h, N/day with k or M (e.g. 1M/day, seed 001's); without it the cost section gives capacity and cost per 1M requests, no instance count
    #[arg(long, value_name = "RATE", value_parser = crate::cost::parse_traffic)]
    pub traffic: Option<crate::cost::Traffic>,
    /// Share of an instance's capacity to plan for when sizing
    #[arg(long, value_name = "PCT", default_value = "70%", value_parser = crate::cost::parse_utilization)]
    pub utilization: f64,
}

impl CostArgs {
    /// The pricing these flags ask for; a bad price table is a user error naming the file
    /// and the field.
    pub fn pricing(&self) -> anyhow::Result<crate::cost::Pricing> {
        crate::cost::Pricing::load(
            self.prices.as_deref(),
            self.traffic.clone(),
            self.utilization,
        )
    }
}
