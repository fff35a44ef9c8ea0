//! Command-line surface. These structs are parsed once and then resolved into plans
//! (`plan.rs`); nothing below the CLI layer sees raw flags.
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "gqlbench",
    version,
    // A flag given twice: the last one counts (scripts append overrides).
    args_override_self = true,
    about = "Trustworthy, reproducible benchmarks of GraphQL servers and gateways",
    long_about = "gqlbench runs GraphQL servers and gateways side by side on this machine, \
checks every response, interleaves repeated trials, detects a saturated load generator and \
reports centers with 95% confidence intervals, measured in rounds until precise enough."
)]
pub struct Cli {
    /// Project root holding targets/ and scenarios/ (default: found from the current directory upward)
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a suite of scenarios against its targets (default suite: servers)
    Run(RunArgs),
    /// Benchmark one GraphQL endpoint ad hoc, validating every response
    Load(LoadArgs),
    /// Check every operation against every target once and show which answers are right
    Check(CheckArgs),
    /// List targets and scenarios in the catalogue
    List,
    /// Re-render a saved run
    Report(ReportArgs),
    /// Compare two saved runs row by row, with confidence intervals
    Compare(CompareArgs),
    /// Measure what this machine's load generator can send against a native static server
    Calibrate(CalibrateArgs),
    /// Install targets ahead of time (npm packages etc.)
    Install(InstallArgs),
    /// Write a scenario's load as a script for another load tester (k6, to run it on many machines)
    #[command(subcommand)]
    Export(ExportCommand),
    /// Read another load tester's output (k6) into a results folder that report and compare read
    #[command(subcommand)]
    Import(ImportCommand),
    /// Serve a fixed GraphQL answer as fast as possible (used by calibrate)
    #[command(hide = true)]
    ServeStatic(ServeStaticArgs),
    /// Publish subscription ticks over graphql-ws and SSE (a reference and test target)
    #[command(hide = true)]
    ServeSubscriptions(ServeSubscriptionsArgs),
    /// Receive OTLP/HTTP traces and count their spans (the collector of tracing variants)
    #[command(hide = true)]
    ServeOtlp(ServeStaticArgs),
    /// The federation subgraphs (accounts, products, reviews, inventory); see `gqlbench subgraphs --help`
    #[command(hide = true, disable_help_flag = true)]
    Subgraphs {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

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
    #[arg(default_value = "servers")]
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
    #[arg(long, default_value = "quick")]
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
    /// measured again and flagged "interference" (default 10%); raise it on a shared machine
    #[arg(long, value_name = "PCT", value_parser = parse_interference)]
    pub interference_limit: Option<f64>,
    /// Extra environment for every target the run starts, e.g. GQLBENCH_WORK=200000
    /// (repeatable; recorded in the results and shown in the report)
    #[arg(long = "target-env", value_name = "NAME=VALUE")]
    pub target_env: Vec<String>,
    /// The run's one time budget, counted after the installs: every scenario does its
    /// minimum, and what they add beyond it (rounds, sweep steps) stops when it is spent (e.g. 10m)
    #[arg(long, value_parser = parse_duration)]
    pub max_time: Option<std::time::Duration>,
    /// Override the number of connections of closed-model scenarios
    #[arg(long, short = 'c')]
    pub connections: Option<u32>,
    /// Load sweep: run each closed-model scenario at these connection counts (e.g. 50,100,250,500)
    #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
    pub connection_sweep: Option<Vec<u32>>,
    /// Database scenarios: users to seed (10 posts each, 5 comments a post); the published scale is 1000000
    #[arg(long, default_value_t = 10_000)]
    pub scale: u64,
    /// Database scenarios: folder for the temporary PostgreSQL data directory (default: the system temp folder, or $GQLBENCH_PG_DIR)
    #[arg(long, value_name = "DIR", env = "GQLBENCH_PG_DIR")]
    pub db_dir: Option<PathBuf>,
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

#[derive(Args, Debug)]
pub struct LoadArgs {
    /// GraphQL endpoint, e.g. http://127.0.0.1:4000/graphql
    pub url: String,
    /// File with the GraphQL document to send
    #[arg(short = 'q', long = "query", value_name = "FILE")]
    pub query: PathBuf,
    /// Variables as a JSON object
    #[arg(long)]
    pub variables: Option<String>,
    /// Expected answer: a JSON file holding {"data": ...} (or the data itself)
    #[arg(long, value_name = "FILE")]
    pub expect: Option<PathBuf>,
    /// Connections (closed model) or the connection pool limit (open model)
    #[arg(short = 'c', long, default_value_t = 50)]
    pub connections: u32,
    /// Measured duration (default 10s; with -n alone the count decides, bounded by 1 h)
    #[arg(short = 'd', long, value_parser = parse_duration)]
    pub duration: Option<std::time::Duration>,
    /// Stop after this many requests instead of (or before) the duration
    #[arg(short = 'n', long)]
    pub requests: Option<u64>,
    /// Pipelining depth per connection (closed model)
    #[arg(short = 'p', long, default_value_t = 1)]
    pub pipelining: u32,
    /// Open model: constant arrival rate in requests per second
    #[arg(long)]
    pub rate: Option<f64>,
    /// Think time between a response and the next request (closed model)
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub think_time: std::time::Duration,
    /// Warm-up before measuring (discarded)
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub warmup: std::time::Duration,
    /// Per-request timeout
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Generator threads (default: one per generator CPU)
    #[arg(long)]
    pub threads: Option<usize>,
    /// Extra header "name: value" (repeatable)
    #[arg(short = 'H', long = "header")]
    pub headers: Vec<String>,
    /// Pin the generator to these CPUs, e.g. "0"
    #[arg(long, value_name = "LIST")]
    pub generator_cpus: Option<String>,
    /// Allow a URL that is not on loopback (127.0.0.0/8, ::1)
    #[arg(long)]
    pub allow_remote: bool,
    /// Print the result as JSON on stdout
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Suite whose operations are checked
    #[arg(default_value = "servers")]
    pub suite: String,
    /// Only these targets (comma separated)
    #[arg(long, value_delimiter = ',')]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub isolation: IsolationArgs,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A run folder (holding results.json) or a results.json file
    pub run: PathBuf,
    /// Output format
    #[arg(long, value_enum, default_value = "md")]
    pub format: ReportFormat,
    #[command(flatten)]
    pub cost: CostArgs,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Md,
    Json,
    Terminal,
    /// The chart data files (sweep-*.csv, memory-*.csv), written into the run folder
    Csv,
    /// One self-contained page with the tables and charts (report.html), on stdout
    Html,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Baseline run (folder or results.json)
    pub baseline: PathBuf,
    /// Candidate run (folder or results.json)
    pub candidate: PathBuf,
    /// Gate: exit 1 when a row is significantly slower and a slowdown beyond PCT is within its 95% interval (0 < PCT <= 100, e.g. 5%), a row valid in the baseline is invalid or missing in the candidate, either run is partial, or nothing could be compared
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub fail_if_slower: Option<f64>,
    /// What to print on stdout: the table (terminal), markdown for a pull request comment
    /// or a CI job summary (md), or the comparison as JSON (json; the table then goes to
    /// stderr)
    #[arg(long, value_enum, default_value = "terminal")]
    pub format: CompareFormat,
    /// Same as --format json
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareFormat {
    Terminal,
    Md,
    Json,
}

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
    /// --sensitivity: extra flags for every `run` (e.g. "--duration 3s"), split at spaces
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    pub run_flags: Option<String>,
    /// Print the result as JSON on stdout
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub isolation: IsolationArgs,
}

#[derive(Subcommand, Debug)]
pub enum ExportCommand {
    /// A k6 script (with the same checks on every response), a k6-operator TestRun and a README
    K6(ExportK6Args),
}

#[derive(Args, Debug)]
pub struct ExportK6Args {
    /// The scenario, as SUITE/SCENARIO (e.g. servers/simple; `gqlbench list` shows them)
    pub scenario: String,
    /// The GraphQL endpoint as k6 will reach it, e.g. http://127.0.0.1:4000/graphql
    #[arg(long)]
    pub url: String,
    /// Output folder (default: k6-<suite>-<scenario>); it must be new or empty
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace an earlier export in the output folder
    #[arg(long)]
    pub force: bool,
    /// Profile whose warm-up and duration the script uses: quick, standard, full
    #[arg(long, default_value = "standard")]
    pub profile: String,
    /// Override the measured duration (e.g. 60s)
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<std::time::Duration>,
    /// Override the warm-up (e.g. 10s; 0s for none)
    #[arg(long, value_parser = parse_duration)]
    pub warmup: Option<std::time::Duration>,
    /// Override the connections (VUs) of a closed-model scenario
    #[arg(long, short = 'c')]
    pub connections: Option<u32>,
    /// Pods of the k6-operator TestRun (the load is split between them)
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub parallelism: u32,
}

#[derive(Subcommand, Debug)]
pub enum ImportCommand {
    /// k6's JSON summary (--summary-export) and/or JSON lines output (--out json=FILE)
    K6(ImportK6Args),
}

#[derive(Args, Debug)]
pub struct ImportK6Args {
    /// k6 output files: JSON lines (--out json=FILE; several pods' files are merged) and/or a summary (--summary-export)
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output folder (default: results/<timestamp>-k6-import); it must be new or empty
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace an earlier run in the output folder
    #[arg(long)]
    pub force: bool,
    /// The target the load went to (the row's name; default: from gqlbench-export.json's URL, else "k6-target")
    #[arg(long)]
    pub target: Option<String>,
    /// Suite of the scenario (default: from gqlbench-export.json beside the files, else "k6")
    #[arg(long)]
    pub suite: Option<String>,
    /// Scenario name (default: from gqlbench-export.json beside the files, else "import")
    #[arg(long)]
    pub scenario: Option<String>,
    /// The k6 version that produced the files, for the label (k6's output does not record it)
    #[arg(long, value_name = "VERSION")]
    pub k6_version: Option<String>,
    /// Print the results as JSON on stdout
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct InstallArgs {
    /// Targets to install (default: all but the long native builds, which must be named)
    pub targets: Vec<String>,
    /// Reinstall even when the cache says the install is current
    #[arg(long)]
    pub force: bool,
    /// Install nothing: say whether each target is installed from today's inputs (exit 0
    /// when all are, 1 when one is not), e.g. before running the native gateways' tests
    #[arg(long, conflicts_with = "force")]
    pub check: bool,
}

#[derive(Args, Debug)]
pub struct ServeSubscriptionsArgs {
    /// Port on 127.0.0.1
    #[arg(long)]
    pub port: u16,
    /// Ticks published per second to every subscriber
    #[arg(long, default_value_t = 10.0)]
    pub rate: f64,
    /// Misbehave: drop every connection this long after it was accepted
    #[arg(long, value_parser = parse_duration)]
    pub drop_after: Option<std::time::Duration>,
}

#[derive(Args, Debug)]
pub struct ServeStaticArgs {
    /// Port on 127.0.0.1
    #[arg(long)]
    pub port: u16,
}

/// A precision target: a percentage in (0, 50].
pub fn parse_precision(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches('%');
    t.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0 && *v <= 50.0)
        .ok_or_else(|| format!("'{s}' is not a precision in (0, 50]%; write e.g. 5%"))
}

pub fn parse_interference(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches('%');
    t.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| format!("'{s}' is not a share of one CPU above 0; write e.g. 10% or 50%"))
}

pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    humantime::parse_duration(s.trim())
        .map_err(|e| format!("'{s}' is not a duration ({e}); write e.g. 500ms, 10s, 2m"))
}

/// The allowance of `--fail-if-slower`: above 0 and at most 100. 0 is refused because an
/// allowance of nothing turns every significant difference, however small, into a failure
/// (and about 1 unchanged row in 20 looks significant by chance); above 100 is refused
/// because a row cannot lose more than all of its throughput, so such a gate would never
/// trip on speed.
pub fn parse_percent(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches('%');
    let v = t
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("'{s}' is not a percentage; write e.g. 5%"))?;
    if v <= 0.0 {
        return Err(format!(
            "'{s}' is not above 0: a gate with no allowance fails on any significant slowdown, however small; write a percentage in (0, 100], e.g. 5%"
        ));
    }
    if v > 100.0 {
        return Err(format!(
            "'{s}' is above 100%: a row cannot lose more than all of its throughput, so this gate could never trip on speed; write a percentage in (0, 100], e.g. 5%"
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::parse_percent;

    #[test]
    fn percentages_in_range_are_read_with_or_without_the_sign() {
        assert_eq!(parse_percent("5%"), Ok(5.0));
        assert_eq!(parse_percent("2.5"), Ok(2.5));
        assert_eq!(parse_percent(" 100% "), Ok(100.0));
    }

    #[test]
    fn percentages_out_of_range_or_malformed_are_refused_with_the_fix() {
        for bad in ["0", "0%", "-5%", "100.1%", "500%", "abc", "", "inf", "NaN%"] {
            let e = parse_percent(bad).expect_err(bad);
            assert!(e.contains("e.g. 5%"), "{bad}: {e}");
        }
        assert!(parse_percent("500%").unwrap_err().contains("above 100%"));
        assert!(parse_percent("0%").unwrap_err().contains("not above 0"));
    }
}
