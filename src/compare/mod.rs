//! Comparing two saved runs row by row (scenario × target): the change of req/s and of p99
//! as a ratio of the two runs' geometric means over their trials, with a Welch t interval on
//! the logarithms (`stats::relative_change`), a verdict with its reason for every row, and the CI gate
//! of `compare --fail-if-slower PCT` with every reason it trips. The rules are written down
//! in docs/method.md ("Exit codes and gates"). This file runs a comparison from its parts:
//! `model` (what a comparison holds), `matching` (the rows of two runs paired), `row` (one
//! row's figures and verdict), `judge` (the verdict and its reason), `speed` (the canary's
//! machine-speed adjustment), `widening` (the variance between target processes added to
//! every interval), `problems` (of the runs as a whole) and `notes`. The text and JSON of a
//! comparison are exporters of `report/`.
use crate::results::RunResults;
use crate::stats::between;

mod judge;
mod matching;
mod model;
mod notes;
mod problems;
mod row;
pub mod speed;
#[cfg(test)]
mod tests;
mod widening;
pub use judge::{judge, judge_with, Side, Verdict};
pub use model::{CompareRow, Comparison, Problem, ProblemKind};
pub use problems::run_problems;
pub(crate) use problems::status_name;

/// Compare `b` (candidate) with `a` (baseline); `gate` is the allowance of
/// `--fail-if-slower` in %, None when only reporting.
pub fn compare(
    a: &RunResults,
    b: &RunResults,
    a_name: &str,
    b_name: &str,
    gate: Option<f64>,
) -> Comparison {
    let specs = matching::pairs(a, b);
    let in_common = specs
        .iter()
        .filter(|(_, _, ta, tb)| ta.is_some() && tb.is_some())
        .count();
    // Every row valid in both runs, each its own pair of processes, shows how far the
    // changes scatter beyond their within-run intervals.
    let logs = widening::logs(&specs);
    let between_processes = between::estimate(&logs);
    let rows: Vec<CompareRow> = specs
        .iter()
        .map(|&(named, other, ta, tb)| {
            row::row(named, other, ta, tb, gate, between_processes.as_ref())
        })
        .collect();
    let compared = rows.iter().filter(|r| r.verdict.compared()).count();
    let problems = run_problems(
        (a.status, b.status),
        in_common,
        compared,
        (&problems::row_list(a), &problems::row_list(b)),
    );
    let regressions = rows.iter().filter(|r| r.regression).count();
    let gate_failures: Vec<Problem> = match gate {
        None => Vec::new(),
        Some(_) => problems
            .iter()
            .cloned()
            .chain(rows.iter().filter_map(|r| {
                Some(Problem {
                    kind: r.verdict.gate_problem()?,
                    scenario: Some(r.scenario.clone()),
                    target: Some(r.target.clone()),
                    reason: r.reason.clone(),
                })
            }))
            .collect(),
    };
    Comparison {
        baseline: a_name.into(),
        candidate: b_name.into(),
        baseline_status: a.status,
        candidate_status: b.status,
        fail_if_slower_pct: gate,
        rows,
        in_common,
        compared,
        regressions,
        problems,
        gate_passed: gate.map(|_| gate_failures.is_empty()),
        notes: notes::engine_note(a, b)
            .into_iter()
            .chain(notes::source_note(&specs))
            .chain(notes::ab_sides_note(a, b))
            .chain(std::iter::once(notes::between_note(
                between_processes.as_ref(),
                logs.len(),
            )))
            .collect(),
        between_processes,
        gate_failures,
    }
}
