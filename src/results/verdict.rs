//! The verdict of a run as results.json keeps it: its exit code and the lines that say why
//! (`verdict::judge` decides it from the rows).
use std::process::ExitCode;

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct RunVerdict {
    /// The exit code the run ended with.
    pub exit_code: u8,
    /// Rows that failed: "suite/scenario target: why".
    pub failures: Vec<String>,
    /// Slowdowns beyond an allowance that a gate found (`ab`): measured, not failures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regressions: Vec<String>,
    /// Faults of the catalogue (exit 2).
    pub catalogue_faults: Vec<String>,
    /// Findings about servers, shown but not failures.
    pub findings: Vec<String>,
    /// Targets not run for want of something on this machine.
    pub skipped: Vec<String>,
    /// `--ignore-failures` was given: failures were reported but exit 0.
    #[serde(default)]
    pub failures_ignored: bool,
}

impl RunVerdict {
    pub fn exit(&self) -> ExitCode {
        ExitCode::from(self.exit_code)
    }

    /// Lines for the end of a run's output.
    pub fn lines(&self) -> Vec<String> {
        self.lines_with(true)
    }

    /// As `lines`, with the skipped targets counted rather than listed (for reports that
    /// show them already).
    pub fn lines_brief(&self) -> Vec<String> {
        self.lines_with(false)
    }

    fn lines_with(&self, list_skipped: bool) -> Vec<String> {
        let mut out = Vec::new();
        let list = |out: &mut Vec<String>, head: &str, items: &[String]| {
            if !items.is_empty() {
                out.push(format!("{head} ({}):", items.len()));
                out.extend(items.iter().map(|i| format!("  - {i}")));
            }
        };
        list(&mut out, "catalogue faults", &self.catalogue_faults);
        list(&mut out, "failures", &self.failures);
        list(&mut out, "regressions", &self.regressions);
        list(&mut out, "findings (not failures)", &self.findings);
        if list_skipped {
            list(&mut out, "skipped", &self.skipped);
        } else if !self.skipped.is_empty() {
            out.push(format!("skipped: {} (see above)", self.skipped.len()));
        }
        out.push(match self.exit_code {
            0 if self.failures_ignored && !self.failures.is_empty() => {
                "verdict: failures ignored (--ignore-failures): exit 0".into()
            }
            0 => "verdict: every measured row valid: exit 0".into(),
            1 if self.failures.is_empty() && !self.regressions.is_empty() => {
                "verdict: REGRESSION: exit 1".into()
            }
            1 => "verdict: FAILED: exit 1 (--ignore-failures to exit 0 anyway)".into(),
            2 => "verdict: the catalogue is at fault (see above): exit 2".into(),
            130 => "verdict: interrupted: exit 130 (partial results saved)".into(),
            n => format!("verdict: exit {n}"),
        });
        out
    }
}
