//! `report`'s arguments: a saved run and the format to render it in.
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::CostArgs;

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
