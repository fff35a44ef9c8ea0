//! `audit`'s arguments: the correctness matrix over the federation gateway audit's suites.
use std::path::PathBuf;

use clap::Args;

use super::parsers::parse_duration;

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// A checkout of graphql-hive/federation-gateway-audit, its src/test-suites folder (or a
    /// folder of suites in the same layout), or one suite's folder
    pub path: PathBuf,
    /// Only these suites (comma-separated folder names)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub suites: Vec<String>,
    /// The gateways (comma-separated; default: every gateway of the federation suite that
    /// can read a graph's SDL)
    #[arg(long, value_name = "NAMES")]
    pub targets: Option<String>,
    /// How long each gateway is loaded per suite after its answers are checked (the
    /// matrix is about the answers; the load only shows the gateway keeps answering)
    #[arg(long, value_parser = parse_duration, default_value = "1s")]
    pub duration: std::time::Duration,
    /// The audit's folder (default: results/TIMESTAMP-audit): audit.json, report.md,
    /// report.html, and per suite its graph folder and run
    #[arg(long)]
    pub out: Option<PathBuf>,
}
