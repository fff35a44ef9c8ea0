//! `--run-flags` checked before anything runs: read as the child command reads them, and
//! none of the flags calibrate gives its children itself.
use anyhow::Result;

use super::REFERENCE;
use crate::cli::CalibrateArgs;
use crate::error::PlanError;

/// Flags calibrate gives every child run itself: given again in --run-flags they would
/// change what is calibrated (another target, another folder) or be overridden unseen.
const OWN_FLAGS: [&str; 15] = [
    "--targets",
    "--target",
    "-t",
    "--scenarios",
    "--out",
    "--json",
    "--root",
    "--a-target",
    "--b-target",
    "--a-env",
    "--b-env",
    "--a-label",
    "--b-label",
    "--allowance",
    "--profile",
];

/// `--run-flags` read as the child command will read them, before anything runs: a flag
/// calibrate sets itself, or one the command does not take, is refused naming it.
pub(super) fn run_flags(a: &CalibrateArgs) -> Result<()> {
    let Some(flags) = a.run_flags.as_deref() else {
        return Ok(());
    };
    let extra: Vec<&str> = flags.split_whitespace().collect();
    let command = if a.ab { "ab" } else { "run" };
    for f in &extra {
        let name = f.split('=').next().unwrap_or(f);
        if OWN_FLAGS.contains(&name) {
            return Err(PlanError::Flag {
                flag: "--run-flags",
                message: format!(
                    "{name} is set by calibrate for every {command} it makes (the reference target, its folders, the profile: --profile is calibrate's own flag); leave it out"
                ),
            }
            .into());
        }
    }
    let mut argv = vec!["gqlbench", command];
    if a.ab {
        argv.extend(["servers/simple", "--target", REFERENCE]);
    } else {
        argv.push("servers");
    }
    argv.extend(&extra);
    use clap::Parser;
    crate::cli::Cli::try_parse_from(&argv).map_err(|e| {
        let first = e.to_string();
        let first = first
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("error: ");
        PlanError::Flag {
            flag: "--run-flags",
            message: format!("`gqlbench {command}` would refuse \"{flags}\": {first}"),
        }
    })?;
    Ok(())
}
