//! `install`'s arguments: targets installed ahead of a run, or checked as installed.
use clap::Args;

#[derive(Args, Debug)]
pub struct InstallArgs {
    /// Targets to install (default: all but the long native builds, which must be named)
    pub targets: Vec<String>,
    /// With no targets named: all of them but these (comma-separated), e.g. a large one no
    /// run of yours starts
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAMES",
        conflicts_with = "targets"
    )]
    pub except: Vec<String>,
    /// Reinstall even when the cache says the install is current
    #[arg(long)]
    pub force: bool,
    /// Install nothing: say whether each target is installed from today's inputs (exit 0
    /// when all are, 1 when one is not), e.g. before running the native gateways' tests
    #[arg(long, conflicts_with = "force")]
    pub check: bool,
}
