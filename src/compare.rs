//! Comparing two saved runs row by row (scenario × target): the change of req/s and of p99
//! as a ratio of the two runs' geometric means over their trials, with a Welch t interval on
//! the logarithms (`stats::relative_change`), a verdict with its reason for every row, and the CI gate
//! of `compare --fail-if-slower PCT` with every reason it trips. The rules are written down
//! in docs/method.md ("Exit codes and gates"). The verdict of one row is in
//! `compare/judge.rs`; the text and JSON of a comparison are exporters of `report/`.
use serde::{Deserialize, Serialize};

use crate::results::{
    RunResults, RunStatus, ScenarioKind, ScenarioResult, TargetResult, TargetSummary,
};
use crate::stats::between::{self, Between, LogChange};
use crate::stats::{relative_change, Change};

mod judge;
pub mod speed;
#[cfg(test)]
mod tests;
pub use judge::{judge, judge_with, Side, Verdict};
use judge::{side_of, state};

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct CompareRow {
    pub scenario: String,
    pub target: String,
    pub baseline_rps: Option<f64>,
    pub candidate_rps: Option<f64>,
    pub rps_change: Option<Change>,
    pub baseline_p99_us: Option<f64>,
    pub candidate_p99_us: Option<f64>,
    pub p99_change: Option<Change>,
    /// Trials behind each side's figures (valid trials for a valid row).
    pub baseline_trials: Option<usize>,
    pub candidate_trials: Option<usize>,
    /// Both sides valid (no failures, no crash, not saturated).
    pub comparable: bool,
    pub verdict: Verdict,
    /// The verdict in words, with its real cause ("too few trials (1 in baseline, need 3)").
    pub reason: String,
    /// The reason again when the row is not comparable (kept for scripts written before
    /// `reason` existed); null otherwise.
    pub note: Option<String>,
    /// This row trips the gate (`--fail-if-slower` given).
    pub regression: bool,
    /// The change of req/s was judged on req/s scaled by each round's canary time (both
    /// runs had canary timings), so the machine's speed drift between runs cancels out.
    #[serde(default)]
    pub speed_adjusted: bool,
    /// The machine's speed by the canary: candidate against baseline, % (positive: the
    /// candidate ran on a faster machine). Null without canary timings on both sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_speed_change_pct: Option<f64>,
}

/// Something that trips the gate: a row or the runs as a whole.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// The baseline run's status is not `complete`.
    PartialBaseline,
    /// The candidate run's status is not `complete`.
    PartialCandidate,
    /// The runs share no row (scenario × target).
    NoRowsInCommon,
    /// Rows in common, but none valid in both runs: nothing was compared.
    NothingCompared,
    /// Row verdicts that trip the gate.
    MissingInCandidate,
    CandidateInvalid,
    Slower,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Problem {
    pub kind: ProblemKind,
    /// The row at fault; null for problems of the runs as a whole.
    pub scenario: Option<String>,
    pub target: Option<String>,
    pub reason: String,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Comparison {
    pub baseline: String,
    pub candidate: String,
    pub baseline_status: RunStatus,
    pub candidate_status: RunStatus,
    pub fail_if_slower_pct: Option<f64>,
    pub rows: Vec<CompareRow>,
    /// Rows present in both runs.
    pub in_common: usize,
    /// Rows valid in both runs, whose change was judged.
    pub compared: usize,
    /// Rows that trip the gate (0 without one).
    pub regressions: usize,
    /// Problems of the runs as a whole (partial run, nothing in common), reported with or
    /// without a gate.
    pub problems: Vec<Problem>,
    /// The variance between target processes estimated over the rows compared, added to
    /// every row's interval; null when fewer than 3 rows were compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_processes: Option<Between>,
    /// Whether the gate passed; null without `--fail-if-slower`.
    pub gate_passed: Option<bool>,
    /// Every reason the gate tripped: `problems` first, then the rows; empty without a gate.
    pub gate_failures: Vec<Problem>,
    /// What to keep in mind that is not a problem (runs measured by different engines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Comparison {
    /// 1 when the gate tripped, else 0 (also without a gate: compare then only reports).
    pub fn exit_code(&self) -> u8 {
        u8::from(self.gate_passed == Some(false))
    }
}

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
fn row_list(r: &RunResults) -> String {
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

fn find_scenario<'a>(r: &'a RunResults, s: &ScenarioResult) -> Option<&'a ScenarioResult> {
    r.scenarios
        .iter()
        .find(|x| x.suite == s.suite && x.name == s.name)
}

fn find_target<'a>(s: Option<&'a ScenarioResult>, name: &str) -> Option<&'a TargetResult> {
    s.and_then(|s| s.targets.iter().find(|t| t.name == name))
}

/// One row; `named` is the scenario it is named after (the baseline's when it has it),
/// `other` the same scenario in the other run.
fn row(
    named: &ScenarioResult,
    other: Option<&ScenarioResult>,
    ta: Option<&TargetResult>,
    tb: Option<&TargetResult>,
    gate: Option<f64>,
    between: Option<&Between>,
) -> CompareRow {
    let (state_a, state_b) = (
        ta.map(state).unwrap_or_default(),
        tb.map(state).unwrap_or_default(),
    );
    let throughput = std::iter::once(named)
        .chain(other)
        .all(|s| s.kind != ScenarioKind::ColdStart);
    // Both sides scaled by their canaries, or neither. With both targets present, `named`
    // is the baseline's scenario (see `compare`).
    let both_valid = matches!(
        (ta, tb),
        (Some(a), Some(b)) if crate::summary::rankable(a) && crate::summary::rankable(b)
    );
    let adjusted = match (ta, tb, other) {
        (Some(a), Some(b), Some(sb)) if both_valid => {
            let sa = named;
            speed::adjusted_samples(sa, a)
                .zip(speed::adjusted_samples(sb, b))
                .map(|(x, y)| {
                    (
                        x,
                        y,
                        speed::median_canary_ms(sa, a),
                        speed::median_canary_ms(sb, b),
                    )
                })
        }
        _ => None,
    };
    let sides = (side_of(ta, &state_a), side_of(tb, &state_b));
    let sides = match (&adjusted, sides) {
        (Some((x, y, _, _)), (Side::Valid(_), Side::Valid(_))) => (Side::Valid(x), Side::Valid(y)),
        (_, s) => s,
    };
    let (verdict, mut reason) = judge_with(sides.0, sides.1, throughput, gate, between);
    let machine_speed_change_pct = adjusted
        .as_ref()
        .and_then(|(_, _, ca, cb)| Some((ca.as_ref()? / cb.as_ref()? - 1.0) * 100.0));
    if let (Some(m), true) = (machine_speed_change_pct, verdict.compared()) {
        let how = if m >= 0.0 { "faster" } else { "slower" };
        reason.push_str(&format!(
            "; req/s scaled by the canary (the machine ran {:.1}% {how} in the candidate)",
            m.abs()
        ));
    }
    let key_a = ta.and_then(|t| t.summary.as_ref());
    let key_b = tb.and_then(|t| t.summary.as_ref());
    let change = |f: fn(&TargetSummary) -> &[f64]| match (key_a, key_b) {
        (Some(x), Some(y)) => relative_change(f(x), f(y)),
        _ => None,
    };
    // A p99 the source did not measure (an imported k6 summary without it) is no figure.
    let p99 = |k: Option<&TargetSummary>| {
        k.filter(|s| s.latency.measured("p99_us"))
            .map(|s| s.p99_us.median)
    };
    let rps_change = match (&adjusted, key_a, key_b) {
        (Some((x, y, _, _)), _, _) => judge::change(x, y, between),
        (None, Some(x), Some(y)) => judge::change(&x.rps.samples, &y.rps.samples, between),
        _ => None,
    };
    let comparable = matches!(
        (ta, tb),
        (Some(a), Some(b)) if crate::summary::rankable(a) && crate::summary::rankable(b)
    );
    let regression = gate.is_some() && verdict.gate_problem().is_some();
    CompareRow {
        scenario: format!("{}/{}", named.suite, named.name),
        target: ta.or(tb).map(|t| t.name.clone()).unwrap_or_default(),
        baseline_rps: key_a.map(|s| s.rps.center_or_median()),
        candidate_rps: key_b.map(|s| s.rps.center_or_median()),
        rps_change,
        baseline_p99_us: p99(key_a),
        candidate_p99_us: p99(key_b),
        p99_change: change(|s| &s.p99_us.samples).filter(|_| p99(key_a).and(p99(key_b)).is_some()),
        baseline_trials: key_a.map(|s| s.rps.samples.len()),
        candidate_trials: key_b.map(|s| s.rps.samples.len()),
        comparable,
        note: (!comparable).then(|| reason.clone()),
        verdict,
        reason,
        regression,
        speed_adjusted: adjusted.is_some(),
        machine_speed_change_pct,
    }
}

/// Compare `b` (candidate) with `a` (baseline); `gate` is the allowance of
/// `--fail-if-slower` in %, None when only reporting.
pub fn compare(
    a: &RunResults,
    b: &RunResults,
    a_name: &str,
    b_name: &str,
    gate: Option<f64>,
) -> Comparison {
    // Baseline rows first, in the baseline's order (a missing row shows where it was),
    // then the rows only the candidate has.
    let mut specs: Vec<RowSpec> = Vec::new();
    for sa in &a.scenarios {
        let sb = find_scenario(b, sa);
        for ta in &sa.targets {
            specs.push((sa, sb, Some(ta), find_target(sb, &ta.name)));
        }
    }
    for sb in &b.scenarios {
        let sa = find_scenario(a, sb);
        for tb in &sb.targets {
            if find_target(sa, &tb.name).is_none() {
                specs.push((sb, sa, None, Some(tb)));
            }
        }
    }
    let in_common = specs
        .iter()
        .filter(|(_, _, ta, tb)| ta.is_some() && tb.is_some())
        .count();
    // Every row valid in both runs, each its own pair of processes, shows how far the
    // changes scatter beyond their within-run intervals.
    let logs: Vec<LogChange> = specs
        .iter()
        .filter_map(|s| {
            let (x, y) = row_samples(s)?;
            LogChange::of(&x, &y)
        })
        .collect();
    let between_processes = between::estimate(&logs);
    let rows: Vec<CompareRow> = specs
        .iter()
        .map(|&(named, other, ta, tb)| row(named, other, ta, tb, gate, between_processes.as_ref()))
        .collect();
    let compared = rows.iter().filter(|r| r.verdict.compared()).count();
    let problems = run_problems(
        (a.status, b.status),
        in_common,
        compared,
        (&row_list(a), &row_list(b)),
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
        notes: engine_note(a, b)
            .into_iter()
            .chain(std::iter::once(between_note(
                between_processes.as_ref(),
                logs.len(),
            )))
            .collect(),
        between_processes,
        gate_failures,
    }
}

/// A row to compare: the scenario it is named after, the same scenario in the other run,
/// and the target in the baseline and in the candidate.
type RowSpec<'a> = (
    &'a ScenarioResult,
    Option<&'a ScenarioResult>,
    Option<&'a TargetResult>,
    Option<&'a TargetResult>,
);

/// The req/s samples of a row valid in both runs, as its change is judged: scaled by the
/// canary when both sides have one, else as measured.
fn row_samples(&(named, other, ta, tb): &RowSpec) -> Option<(Vec<f64>, Vec<f64>)> {
    let (a, b, sb) = (ta?, tb?, other?);
    if named.kind == ScenarioKind::ColdStart
        || !crate::summary::rankable(a)
        || !crate::summary::rankable(b)
    {
        return None;
    }
    match speed::adjusted_samples(named, a).zip(speed::adjusted_samples(sb, b)) {
        Some(xy) => Some(xy),
        None => Some((
            a.summary.as_ref()?.rps.samples.clone(),
            b.summary.as_ref()?.rps.samples.clone(),
        )),
    }
}

/// What the rows' scatter added to every interval, or why nothing could be added.
fn between_note(b: Option<&Between>, rows: usize) -> String {
    match b {
        Some(b) if b.tau2 > 0.0 => format!(
            "each row's interval includes the variance between target processes that the {} rows compared show beyond their own intervals (one process pair per row; sd {:.1}% of req/s, DerSimonian–Laird over the rows): two runs cannot tell a change confined to some rows from that luck, which costs the gate power",
            b.rows,
            b.sd_pct()
        ),
        Some(b) => format!(
            "the {} rows compared scatter no more than their own intervals say: no variance between target processes was added",
            b.rows
        ),
        None => format!(
            "the variance between target processes could not be estimated ({rows} row(s) valid in both runs with {} trials a side, need {}): each interval covers the noise within the runs only, not the luck of each run's target process",
            crate::stats::MIN_TRIALS,
            between::MIN_ROWS
        ),
    }
}

/// Runs measured by different load testers (gqlbench, an imported k6 run) differ by how
/// each measures as well as by the targets: said beside the comparison.
fn engine_note(a: &RunResults, b: &RunResults) -> Option<String> {
    (a.engine != b.engine).then(|| {
        format!(
            "the runs were measured by different engines ({} and {}): a difference is also how each measures (latency points, warm-up, connection handling), not only the targets",
            a.engine, b.engine
        )
    })
}
