//! Command-line surface: `Cli` and its `Command`s. These structs are parsed once and then
//! resolved into plans (`plan/`); nothing below the CLI layer sees raw flags.
//!
//! One file per command's arguments (`run.rs` also holds the isolation and cost groups
//! other commands flatten in); the flags' value parsers are in `parsers.rs`.
mod ab;
mod audit;
mod calibrate;
mod check;
mod compare;
mod export;
mod import;
mod init;
mod install;
mod load;
mod parsers;
mod report;
mod run;
mod serve;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub use ab::{AbArgs, FormArg};
pub use audit::AuditArgs;
pub use calibrate::CalibrateArgs;
pub use check::CheckArgs;
pub use compare::{CompareArgs, CompareFormat};
pub use export::{ExportCommand, ExportK6Args};
pub use import::{ImportCommand, ImportK6Args};
pub use init::{InitCommand, InitGraphArgs};
pub use install::InstallArgs;
pub use load::LoadArgs;
pub use parsers::{parse_duration, parse_interference, parse_percent, parse_precision};
pub use report::{ReportArgs, ReportFormat};
pub use run::{CostArgs, IsolationArgs, RunArgs};
pub use serve::{ServeStaticArgs, ServeSubscriptionsArgs};

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
    /// A/B of two builds of one target in one run: the load alternates between them over
    /// fresh process pairs until the change is decided (exit 1: B slower beyond the allowance)
    Ab(AbArgs),
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
    /// The correctness matrix: every suite of the federation gateway audit (a checkout you
    /// give) set up as a graph and run through the gateways; which answer correctly
    Audit(AuditArgs),
    /// Set up a graph of your own to benchmark the gateways on (`init graph DIR --from SUPERGRAPH`)
    #[command(subcommand)]
    Init(InitCommand),
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
