//! `gqlbench compare A B [--fail-if-slower PCT] [--format terminal|md|json]`: reads two saved
//! runs, prints the row-by-row comparison (`crate::compare`) in the chosen format (md for a
//! pull request comment, see docs/ci.md) and turns the gate's outcome into the exit code:
//! 0 passed or no gate, 1 tripped. A file that cannot be read as a run, or that holds a
//! throughput no run could have measured (`results::damaged_throughput`: edited or
//! damaged), is an error (exit 2, via `crate::run`) naming the side, the file, the field and
//! what to pass instead.
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{CompareArgs, CompareFormat};
use crate::error::ResultsError;
use crate::report::{Dest, ExportManager, Markdown};
use crate::results::RunResults;

pub fn run(a: &CompareArgs) -> Result<ExitCode> {
    let ra = load("baseline", &a.baseline)?;
    let rb = load("candidate", &a.candidate)?;
    let c = crate::compare::compare(
        &ra,
        &rb,
        &a.baseline.display().to_string(),
        &a.candidate.display().to_string(),
        a.fail_if_slower,
    );
    match a.format {
        CompareFormat::Md if !a.json => {
            ExportManager::new().add(Markdown, Dest::Stdout).write(&c)?;
        }
        f => {
            ExportManager::console(a.json || f == CompareFormat::Json).write(&c)?;
        }
    }
    Ok(ExitCode::from(c.exit_code()))
}

fn load(side: &'static str, path: &Path) -> Result<RunResults, ResultsError> {
    let r = RunResults::load(path).map_err(|e| ResultsError::Side {
        side,
        path: path.to_path_buf(),
        source: Box::new(e),
    })?;
    if let Some(fault) = crate::results::damaged_throughput(&r) {
        let file = if path.is_dir() {
            path.join("results.json")
        } else {
            path.to_path_buf()
        };
        return Err(ResultsError::Damaged { file, side, fault });
    }
    Ok(r)
}
