//! `check`'s arguments: a suite's operations against its targets, once each.
use clap::Args;

use super::IsolationArgs;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Suite whose operations are checked
    #[arg(default_value = crate::plan::DEFAULT_SUITE)]
    pub suite: String,
    /// Only these targets (comma separated)
    #[arg(long, value_delimiter = ',')]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub isolation: IsolationArgs,
}
