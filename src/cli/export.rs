//! `export`'s subcommands and their arguments: a scenario as another load tester's script.
use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::parsers::parse_duration;

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
