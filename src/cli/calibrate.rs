//! `calibrate`'s arguments: the load generator's ceiling on this machine, or (with
//! `--sensitivity`) what `compare --fail-if-slower` detects here.
use std::path::PathBuf;

use clap::Args;

use super::parsers::{parse_duration, parse_percent};
use super::IsolationArgs;

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Measured duration of each calibration step
    #[arg(short = 'd', long, default_value = "5s", value_parser = parse_duration)]
    pub duration: std::time::Duration,
    /// Connections
    #[arg(short = 'c', long, default_value_t = 64)]
    pub connections: u32,
    /// Also run wrk (if installed) side by side and report the efficiency ratio
    #[arg(long)]
    pub wrk: bool,
    /// Measure what `compare --fail-if-slower` detects on this machine instead: repeated
    /// separate runs of node-baseline with a fixed work per request (A/A), and with that
    /// work raised to cost +5% and +10% per request (A/B); see docs/performance.md
    /// (-d, -c and --wrk do not apply; --json prints the summary as JSON)
    #[arg(long, conflicts_with = "wrk")]
    pub sensitivity: bool,
    /// --sensitivity: measure `gqlbench ab` (both builds in one run, decided over process
    /// pairs) instead of separate runs compared; the gate is ab's allowance (--fail-if-slower)
    #[arg(long, requires = "sensitivity")]
    pub ab: bool,
    /// --sensitivity: the reference target: node-baseline (its own GQLBENCH_WORK), or any
    /// Node server, given the work by targets/_node/inject-work.mjs (GQLBENCH_INJECT_WORK)
    #[arg(long, default_value = "node-baseline", value_name = "NAME")]
    pub target: String,
    /// --sensitivity: repetitions of each comparison
    #[arg(long, default_value_t = 10)]
    pub repetitions: u32,
    /// --sensitivity: the slowdowns per request to test, in % (comma separated)
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "5,10",
        value_name = "PCT,PCT"
    )]
    pub slowdowns: Vec<f64>,
    /// --sensitivity: work rounds per request of the reference (GQLBENCH_WORK)
    #[arg(long, default_value_t = 100_000)]
    pub work: u64,
    /// --sensitivity: the profile of every run
    #[arg(long, default_value = "standard")]
    pub profile: String,
    /// --sensitivity: the gate's allowance
    #[arg(long, default_value = "5%", value_parser = parse_percent, value_name = "PCT")]
    pub fail_if_slower: f64,
    /// --sensitivity: folder for the runs and the summary (default results/sensitivity-<time>)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// --sensitivity: extra flags for every `run` (e.g. "--duration 3s"), or with --ab for
    /// every `ab` (e.g. "--budget 5m"), split at spaces
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    pub run_flags: Option<String>,
    /// Print the result as JSON on stdout
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub isolation: IsolationArgs,
}
