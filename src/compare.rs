//! Comparing two saved runs row by row (scenario × target): the change of median req/s and
//! p99 with a bootstrap interval, a verdict with its reason for every row, and the CI gate
//! of `compare --fail-if-slower PCT` with every reason it trips. The rules are written down
//! in docs/method.md ("Exit codes and gates"); the text rendering is in `compare/render.rs`.
use serde::Serialize;

use crate::results::{
    RunResults, RunStatus, ScenarioKind, ScenarioResult, TargetResult, TargetSummary,
};
use crate::stats::{relative_change, Change, MIN_TRIALS};

mod render;
pub use render::render;

/// What the comparison of one row says, for scripts; `CompareRow::reason` says it in words.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Significantly faster: the interval of the change is above 0.
    Faster,
    /// Significantly slower; with a gate, by more than its allowance (trips it).
    Slower,
    /// Significantly slower, but by no more than the gate's allowance.
    SlowerWithinAllowance,
    /// The interval of the change includes 0.
    NoSignificantChange,
    /// A side has fewer than `MIN_TRIALS` trials, so no change can be called significant.
    TooFewTrials,
    /// Both sides valid, but no change can be computed (the baseline's median is 0 req/s).
    NoEstimate,
    /// Valid in the baseline, invalid in the candidate (failures, crash, saturation, no
    /// trials): trips the gate.
    CandidateInvalid,
    /// Valid in the baseline, absent from the candidate: trips the gate.
    MissingInCandidate,
    /// Invalid in the baseline: there is no figure to regress from, so the row never trips
    /// the gate; the reason says what became of it in the candidate.
    BaselineInvalid,
    /// A row the baseline does not have.
    OnlyInCandidate,
    /// A scenario without a throughput figure (cold starts): not compared.
    NotCompared,
}

impl Verdict {
    /// The change of throughput was judged (both sides valid and measured).
    pub fn compared(self) -> bool {
        matches!(
            self,
            Verdict::Faster
                | Verdict::Slower
                | Verdict::SlowerWithinAllowance
                | Verdict::NoSignificantChange
                | Verdict::TooFewTrials
                | Verdict::NoEstimate
        )
    }

    /// What this verdict trips when a gate is set (`Slower` then means beyond the allowance).
    pub fn gate_problem(self) -> Option<ProblemKind> {
        match self {
            Verdict::Slower => Some(ProblemKind::Slower),
            Verdict::CandidateInvalid => Some(ProblemKind::CandidateInvalid),
            Verdict::MissingInCandidate => Some(ProblemKind::MissingInCandidate),
            _ => None,
        }
    }
}

#[derive(Serialize, Debug, Clone)]
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
}

/// Something that trips the gate: a row or the runs as a whole.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
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

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Problem {
    pub kind: ProblemKind,
    /// The row at fault; null for problems of the runs as a whole.
    pub scenario: Option<String>,
    pub target: Option<String>,
    pub reason: String,
}

#[derive(Serialize, Debug, Clone)]
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
    /// Whether the gate passed; null without `--fail-if-slower`.
    pub gate_passed: Option<bool>,
    /// Every reason the gate tripped: `problems` first, then the rows; empty without a gate.
    pub gate_failures: Vec<Problem>,
}

impl Comparison {
    /// 1 when the gate tripped, else 0 (also without a gate: compare then only reports).
    pub fn exit_code(&self) -> u8 {
        u8::from(self.gate_passed == Some(false))
    }
}

/// One side of a row as the verdict sees it.
#[derive(Debug, Clone, Copy)]
pub enum Side<'a> {
    Missing,
    /// Present but not valid; the text says why (as in the report's validity column).
    Invalid(&'a str),
    /// Valid: the req/s of its trials.
    Valid(&'a [f64]),
}

fn side_of<'a>(t: Option<&'a TargetResult>, state: &'a str) -> Side<'a> {
    match t {
        None => Side::Missing,
        Some(t) => match (&t.summary, crate::summary::rankable(t)) {
            (Some(s), true) => Side::Valid(&s.rps.samples),
            _ => Side::Invalid(state),
        },
    }
}

/// How a target's row stands, in the words of the report's validity column; a target that
/// never got to its trials (a run cut short) says so instead of "OK".
fn state(t: &TargetResult) -> String {
    match (&t.summary, t.status) {
        (None, crate::results::TargetStatus::Ok) => "no trials measured".into(),
        _ => crate::report::validity(t),
    }
}

fn fmt_pct(p: f64) -> String {
    format!("{p}%")
}

/// The verdict of one row and its reason. `throughput` is false for scenarios without a
/// req/s figure; `gate` is the allowance of `--fail-if-slower` in %.
pub fn judge(
    baseline: Side,
    candidate: Side,
    throughput: bool,
    gate: Option<f64>,
) -> (Verdict, String) {
    let candidate_state = || match candidate {
        Side::Missing => "missing from candidate".to_string(),
        Side::Invalid(s) => format!("candidate invalid ({s})"),
        Side::Valid(_) => "candidate valid".to_string(),
    };
    if !throughput {
        return (
            Verdict::NotCompared,
            "not compared: the scenario has no req/s figure (cold starts)".into(),
        );
    }
    match (baseline, candidate) {
        (Side::Missing, Side::Missing) => (
            // Rows are built from what either run holds, so this is never shown; it is
            // answered rather than assumed away.
            Verdict::NotCompared,
            "in neither run".into(),
        ),
        (Side::Missing, _) => (
            Verdict::OnlyInCandidate,
            "only in candidate (no baseline to compare with)".into(),
        ),
        (Side::Invalid(s), _) => (
            Verdict::BaselineInvalid,
            format!(
                "not comparable: baseline invalid ({s}), {}",
                candidate_state()
            ),
        ),
        (Side::Valid(_), Side::Missing) => (
            Verdict::MissingInCandidate,
            "missing from candidate (valid in baseline)".into(),
        ),
        (Side::Valid(_), Side::Invalid(s)) => (
            Verdict::CandidateInvalid,
            format!("not comparable: candidate invalid ({s}), valid in baseline"),
        ),
        (Side::Valid(a), Side::Valid(b)) => judge_change(a, b, gate),
    }
}

fn judge_change(a: &[f64], b: &[f64], gate: Option<f64>) -> (Verdict, String) {
    let Some(c) = relative_change(a, b) else {
        return (
            Verdict::NoEstimate,
            "no estimate of the change (the baseline's median is 0 req/s)".into(),
        );
    };
    // Checked before the interval: with too few trials the interval may well exclude 0
    // and still mean nothing (stats::relative_change never calls it significant), and
    // "within noise" would hide that the data cannot tell.
    if a.len() < MIN_TRIALS || b.len() < MIN_TRIALS {
        let mut short = Vec::new();
        if a.len() < MIN_TRIALS {
            short.push(format!("{} in baseline", a.len()));
        }
        if b.len() < MIN_TRIALS {
            short.push(format!("{} in candidate", b.len()));
        }
        return (
            Verdict::TooFewTrials,
            format!("too few trials ({}, need {MIN_TRIALS})", short.join(", ")),
        );
    }
    if !c.significant {
        return (
            Verdict::NoSignificantChange,
            "no significant change (interval includes 0)".into(),
        );
    }
    if c.ci_low_pct > 0.0 {
        return (Verdict::Faster, "faster (significant)".into());
    }
    match gate {
        None => (Verdict::Slower, "slower (significant)".into()),
        Some(limit) if c.pct < -limit => (
            Verdict::Slower,
            format!(
                "slower (significant), beyond the {} allowance",
                fmt_pct(limit)
            ),
        ),
        Some(limit) => (
            Verdict::SlowerWithinAllowance,
            format!(
                "slower (significant) but within the {} allowance",
                fmt_pct(limit)
            ),
        ),
    }
}

fn status_name(s: RunStatus) -> &'static str {
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
) -> CompareRow {
    let (state_a, state_b) = (
        ta.map(state).unwrap_or_default(),
        tb.map(state).unwrap_or_default(),
    );
    let throughput = std::iter::once(named)
        .chain(other)
        .all(|s| s.kind != ScenarioKind::ColdStart);
    let (verdict, reason) = judge(
        side_of(ta, &state_a),
        side_of(tb, &state_b),
        throughput,
        gate,
    );
    let key_a = ta.and_then(|t| t.summary.as_ref());
    let key_b = tb.and_then(|t| t.summary.as_ref());
    let change = |f: fn(&TargetSummary) -> &[f64]| match (key_a, key_b) {
        (Some(x), Some(y)) => relative_change(f(x), f(y)),
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
        baseline_rps: key_a.map(|s| s.rps.median),
        candidate_rps: key_b.map(|s| s.rps.median),
        rps_change: change(|s| &s.rps.samples),
        baseline_p99_us: key_a.map(|s| s.p99_us.median),
        candidate_p99_us: key_b.map(|s| s.p99_us.median),
        p99_change: change(|s| &s.p99_us.samples),
        baseline_trials: key_a.map(|s| s.rps.samples.len()),
        candidate_trials: key_b.map(|s| s.rps.samples.len()),
        comparable,
        note: (!comparable).then(|| reason.clone()),
        verdict,
        reason,
        regression,
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
    let mut rows = Vec::new();
    let mut in_common = 0;
    // Baseline rows first, in the baseline's order (a missing row shows where it was),
    // then the rows only the candidate has.
    for sa in &a.scenarios {
        let sb = find_scenario(b, sa);
        for ta in &sa.targets {
            let tb = find_target(sb, &ta.name);
            in_common += usize::from(tb.is_some());
            rows.push(row(sa, sb, Some(ta), tb, gate));
        }
    }
    for sb in &b.scenarios {
        let sa = find_scenario(a, sb);
        for tb in &sb.targets {
            if find_target(sa, &tb.name).is_none() {
                rows.push(row(sb, sa, None, Some(tb), gate));
            }
        }
    }
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
        gate_failures,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: [f64; 5] = [1000.0, 1001.0, 999.0, 1000.5, 999.5];

    fn scaled(k: f64) -> Vec<f64> {
        BASE.iter().map(|x| x * k).collect()
    }

    #[test]
    fn too_few_trials_is_named_as_the_reason_not_noise() {
        // The reported case: a clear -5% whose interval excludes 0, from 1 baseline trial.
        let (v, why) = judge(
            Side::Valid(&[1000.0]),
            Side::Valid(&[950.0, 910.0, 994.0]),
            true,
            Some(5.0),
        );
        assert_eq!(v, Verdict::TooFewTrials);
        assert_eq!(why, "too few trials (1 in baseline, need 3)");
        let (v, why) = judge(
            Side::Valid(&[1000.0]),
            Side::Valid(&[500.0, 505.0]),
            true,
            None,
        );
        assert_eq!(v, Verdict::TooFewTrials);
        assert_eq!(
            why,
            "too few trials (1 in baseline, 2 in candidate, need 3)"
        );
        assert_eq!(v.gate_problem(), None);
    }

    #[test]
    fn an_interval_including_zero_says_so() {
        let noisy = [990.0, 1012.0, 1001.0, 985.0, 1010.0];
        let (v, why) = judge(Side::Valid(&BASE), Side::Valid(&noisy), true, Some(5.0));
        assert_eq!(v, Verdict::NoSignificantChange);
        assert_eq!(why, "no significant change (interval includes 0)");
    }

    #[test]
    fn a_significant_slowdown_is_weighed_against_the_allowance() {
        let slower = scaled(0.97);
        let (v, why) = judge(Side::Valid(&BASE), Side::Valid(&slower), true, Some(5.0));
        assert_eq!(v, Verdict::SlowerWithinAllowance);
        assert_eq!(why, "slower (significant) but within the 5% allowance");
        assert_eq!(v.gate_problem(), None);

        let (v, why) = judge(Side::Valid(&BASE), Side::Valid(&slower), true, Some(2.5));
        assert_eq!(v, Verdict::Slower);
        assert_eq!(why, "slower (significant), beyond the 2.5% allowance");
        assert_eq!(v.gate_problem(), Some(ProblemKind::Slower));

        // Without a gate there is no allowance to be within.
        let (v, why) = judge(Side::Valid(&BASE), Side::Valid(&slower), true, None);
        assert_eq!(v, Verdict::Slower);
        assert_eq!(why, "slower (significant)");

        let (v, why) = judge(
            Side::Valid(&BASE),
            Side::Valid(&scaled(1.03)),
            true,
            Some(5.0),
        );
        assert_eq!(v, Verdict::Faster);
        assert_eq!(why, "faster (significant)");
    }

    #[test]
    fn missing_and_invalid_rows_trip_only_when_the_baseline_was_valid() {
        let (v, why) = judge(Side::Valid(&BASE), Side::Missing, true, Some(5.0));
        assert_eq!(v, Verdict::MissingInCandidate);
        assert_eq!(why, "missing from candidate (valid in baseline)");
        assert_eq!(v.gate_problem(), Some(ProblemKind::MissingInCandidate));

        let (v, why) = judge(
            Side::Valid(&BASE),
            Side::Invalid("CRASHED (1/3 trials valid)"),
            true,
            Some(5.0),
        );
        assert_eq!(v, Verdict::CandidateInvalid);
        assert_eq!(
            why,
            "not comparable: candidate invalid (CRASHED (1/3 trials valid)), valid in baseline"
        );
        assert_eq!(v.gate_problem(), Some(ProblemKind::CandidateInvalid));

        // An invalid baseline has no figure to regress from, whatever became of the row.
        for (candidate, says) in [
            (Side::Missing, "missing from candidate"),
            (
                Side::Invalid("SATURATED (not ranked)"),
                "candidate invalid (SATURATED (not ranked))",
            ),
            (Side::Valid(&BASE), "candidate valid"),
        ] {
            let (v, why) = judge(Side::Invalid("WRONG ANSWERS"), candidate, true, Some(5.0));
            assert_eq!(v, Verdict::BaselineInvalid);
            assert_eq!(
                why,
                format!("not comparable: baseline invalid (WRONG ANSWERS), {says}")
            );
            assert_eq!(v.gate_problem(), None);
            assert!(!v.compared());
        }

        let (v, _) = judge(Side::Missing, Side::Valid(&BASE), true, Some(5.0));
        assert_eq!(v, Verdict::OnlyInCandidate);
        assert_eq!(v.gate_problem(), None);
    }

    #[test]
    fn scenarios_without_throughput_are_not_compared() {
        let (v, why) = judge(Side::Invalid("OK"), Side::Missing, false, Some(5.0));
        assert_eq!(v, Verdict::NotCompared);
        assert!(why.contains("no req/s"), "{why}");
        assert_eq!(v.gate_problem(), None);
    }

    #[test]
    fn partial_runs_and_empty_comparisons_are_run_problems() {
        let rows = ("servers/simple (a)", "servers/authors (a)");
        let complete = (RunStatus::Complete, RunStatus::Complete);
        assert_eq!(run_problems(complete, 2, 1, rows), vec![]);

        for (status, name) in [
            (RunStatus::Running, "running"),
            (RunStatus::Interrupted, "interrupted"),
            (RunStatus::Failed, "failed"),
        ] {
            let p = run_problems((RunStatus::Complete, status), 2, 2, rows);
            assert_eq!(p.len(), 1);
            assert_eq!(p[0].kind, ProblemKind::PartialCandidate);
            assert!(
                p[0].reason
                    .starts_with(&format!("candidate run is partial (status: {name}")),
                "{}",
                p[0].reason
            );
            let p = run_problems((status, RunStatus::Complete), 2, 2, rows);
            assert_eq!(p[0].kind, ProblemKind::PartialBaseline);
        }

        let p = run_problems(complete, 0, 0, rows);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].kind, ProblemKind::NoRowsInCommon);
        assert!(p[0].reason.contains("baseline has servers/simple (a)"));
        assert!(p[0].reason.contains("candidate has servers/authors (a)"));

        let p = run_problems(complete, 3, 0, rows);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].kind, ProblemKind::NothingCompared);
        assert!(p[0].reason.contains("3 row(s) in common"));
    }
}
