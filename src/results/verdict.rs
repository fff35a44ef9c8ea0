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
    /// The command that judged it takes `--ignore-failures` (`run`; not `ab` or `import
    /// k6`): only then does the verdict line offer it. Absent in older files: `run`'s.
    #[serde(default = "takes_the_flag", skip_serializing_if = "takes_it")]
    pub ignorable: bool,
}

fn takes_the_flag() -> bool {
    true
}

/// Written only when false: files of `run` stay as they were.
fn takes_it(ignorable: &bool) -> bool {
    *ignorable
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
            1 if self.ignorable => {
                "verdict: FAILED: exit 1 (--ignore-failures to exit 0 anyway)".into()
            }
            1 => "verdict: FAILED: exit 1".into(),
            2 => "verdict: the catalogue is at fault (see above): exit 2".into(),
            130 => "verdict: interrupted: exit 130 (partial results saved)".into(),
            n => format!("verdict: exit {n}"),
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The long flags a line names.
    fn flags(line: &str) -> Vec<&str> {
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| w.starts_with("--") && w.len() > 2)
            .map(|w| &w[2..])
            .collect()
    }

    #[test]
    fn every_flag_a_failed_verdict_offers_is_one_its_command_takes() {
        // `run` judges with the flag; `ab` and `import k6` without (issue 38: both offered
        // it and refused it).
        let cli = crate::cli::Cli::command();
        for (path, ignorable) in [
            (&["run"][..], true),
            (&["ab"], false),
            (&["import", "k6"], false),
        ] {
            let cmd = path.iter().fold(cli.clone(), |c, name| {
                c.find_subcommand(name)
                    .unwrap_or_else(|| panic!("no subcommand {name}"))
                    .clone()
            });
            let takes: Vec<String> = cmd
                .get_arguments()
                .filter_map(|a| a.get_long().map(str::to_string))
                .collect();
            let v = RunVerdict {
                exit_code: 1,
                failures: vec!["servers/simple x: crashed".into()],
                ignorable,
                ..Default::default()
            };
            let named: Vec<String> = v
                .lines()
                .iter()
                .flat_map(|l| flags(l).into_iter().map(str::to_string).collect::<Vec<_>>())
                .collect();
            for f in &named {
                assert!(
                    takes.contains(f),
                    "{path:?} offers --{f}, which it does not take"
                );
            }
            assert_eq!(named.is_empty(), !ignorable, "{path:?}: {named:?}");
        }
    }

    #[test]
    fn a_results_file_without_the_field_reads_as_runs() {
        let v: RunVerdict = serde_json::from_str(
            r#"{"exit_code":1,"failures":["x"],"catalogue_faults":[],"findings":[],"skipped":[]}"#,
        )
        .unwrap();
        assert!(v.ignorable);
        let back = serde_json::to_string(&v).unwrap();
        assert!(!back.contains("ignorable"), "{back}");
        let ab = RunVerdict {
            ignorable: false,
            ..v
        };
        let json = serde_json::to_string(&ab).unwrap();
        assert!(json.contains("\"ignorable\":false"), "{json}");
    }
}
