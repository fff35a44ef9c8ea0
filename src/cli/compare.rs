//! `compare`'s arguments: two saved runs, the regression gate and the output format.
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::parsers::parse_percent;

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
