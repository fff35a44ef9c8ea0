//! The problems of two runs as a whole, reported with or without a gate: either run partial
//! (its status named with its cause), no row in common (each run's rows listed), or rows in
//! common but none valid in both.
use super::{Problem, ProblemKind};
use crate::results::{RunResults, RunStatus};

pub(crate) fn status_name(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Running => "running",
        RunStatus::Complete => "complete",
        RunStatus::Interrupted => "interrupted",
        RunStatus::Failed => "failed",
    }
}

fn status_cause(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Running => "still being written, or killed before it could finish",
        RunStatus::Interrupted => "stopped by Ctrl-C or a signal",
        RunStatus::Failed => "gqlbench hit an error during it",
        RunStatus::Complete => "complete",
    }
}

/// Problems of the runs as a whole: either run partial, no row in common, nothing compared.
/// `rows` lists the scenarios and targets of each run, for the message when nothing is in
/// common.
pub fn run_problems(
    statuses: (RunStatus, RunStatus),
    in_common: usize,
    compared: usize,
    rows: (&str, &str),
) -> Vec<Problem> {
    let mut out = Vec::new();
    let sides = [
        (
            "baseline",
            statuses.0,
            ProblemKind::PartialBaseline,
            "rows it lacks are not checked; compare against a complete baseline",
        ),
        (
            "candidate",
            statuses.1,
            ProblemKind::PartialCandidate,
            "rows it lacks or did not finish are not measured; re-run it to completion",
        ),
    ];
    for (side, status, kind, fix) in sides {
        if status != RunStatus::Complete {
            out.push(Problem {
                kind,
                scenario: None,
                target: None,
                reason: format!(
                    "{side} run is partial (status: {}: {}); {fix}",
                    status_name(status),
                    status_cause(status)
                ),
            });
        }
    }
    if in_common == 0 {
        out.push(Problem {
            kind: ProblemKind::NoRowsInCommon,
            scenario: None,
            target: None,
            reason: format!(
                "no row (scenario × target) in common, nothing was compared: baseline has {}; candidate has {}",
                rows.0, rows.1
            ),
        });
    } else if compared == 0 {
        out.push(Problem {
            kind: ProblemKind::NothingCompared,
            scenario: None,
            target: None,
            reason: format!(
                "no row valid in both runs, nothing was compared ({in_common} row(s) in common)"
            ),
        });
    }
    out
}

/// "servers/simple (a, b); servers/authors (a)", or "no rows".
pub(super) fn row_list(r: &RunResults) -> String {
    let parts: Vec<String> = r
        .scenarios
        .iter()
        .filter(|s| !s.targets.is_empty())
        .map(|s| {
            let names: Vec<&str> = s.targets.iter().map(|t| t.name.as_str()).collect();
            format!("{}/{} ({})", s.suite, s.name, names.join(", "))
        })
        .collect();
    if parts.is_empty() {
        "no rows".into()
    } else {
        parts.join("; ")
    }
}
