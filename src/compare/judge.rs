//! The verdict of one row of a comparison and its reason in words: which side is valid,
//! whether the change of req/s is significant, and how a slowdown stands against the gate's
//! allowance (a significant slowdown trips it when its interval reaches beyond the
//! allowance).
use serde::{Deserialize, Serialize};

use super::ProblemKind;
use crate::results::TargetResult;
use crate::stats::between::{Between, LogChange};
use crate::stats::{Change, MIN_TRIALS};

/// What the comparison of one row says, for scripts; `CompareRow::reason` says it in words.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Significantly faster: the interval of the change is above 0.
    Faster,
    /// Significantly slower; with a gate, with the interval's low end beyond its allowance
    /// (trips it).
    Slower,
    /// Significantly slower, but the whole interval within the gate's allowance.
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

/// One side of a row as the verdict sees it.
#[derive(Debug, Clone, Copy)]
pub enum Side<'a> {
    Missing,
    /// Present but not valid; the text says why (as in the report's validity column).
    Invalid(&'a str),
    /// Valid: the req/s of its trials.
    Valid(&'a [f64]),
}

pub(super) fn side_of<'a>(t: Option<&'a TargetResult>, state: &'a str) -> Side<'a> {
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
pub(super) fn state(t: &TargetResult) -> String {
    match (&t.summary, t.status) {
        (None, crate::results::TargetStatus::Ok) => "no trials measured".into(),
        _ => crate::view::cells::validity(t),
    }
}

fn fmt_pct(p: f64) -> String {
    format!("{p}%")
}

/// The verdict of one row and its reason, on the within-run interval alone: `judge_with`
/// without a between-process variance.
pub fn judge(
    baseline: Side,
    candidate: Side,
    throughput: bool,
    gate: Option<f64>,
) -> (Verdict, String) {
    judge_with(baseline, candidate, throughput, gate, None)
}

/// The verdict of one row and its reason. `throughput` is false for scenarios without a
/// req/s figure; `gate` is the allowance of `--fail-if-slower` in %; `between`, the
/// variance between process pairs that the row's interval is widened by.
pub fn judge_with(
    baseline: Side,
    candidate: Side,
    throughput: bool,
    gate: Option<f64>,
    between: Option<&Between>,
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
        (Side::Valid(a), Side::Valid(b)) => judge_change(a, b, gate, between),
    }
}

/// The row's change of req/s: the within-run interval, widened by `between` when given.
pub fn change(a: &[f64], b: &[f64], between: Option<&Between>) -> Option<Change> {
    let c = LogChange::of(a, b)?;
    Some(between.map_or_else(|| c.change(), |x| c.widened(x)))
}

fn judge_change(
    a: &[f64],
    b: &[f64],
    gate: Option<f64>,
    between: Option<&Between>,
) -> (Verdict, String) {
    let Some(c) = change(a, b, between) else {
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
    // The gate trips on a slowdown that is real (the interval is below 0) and may reach
    // the allowance (its low end is beyond it). Tripping only when the point estimate is
    // beyond the allowance would let a true slowdown of exactly the allowance through half
    // the time; this rule catches it whenever the interval is narrower than the slowdown,
    // and lets a small but certain slowdown (interval wholly within the allowance) pass.
    let interval = format!("[{:+.1}%, {:+.1}%]", c.ci_low_pct, c.ci_high_pct);
    match gate {
        None => (Verdict::Slower, "slower (significant)".into()),
        Some(limit) if c.ci_low_pct < -limit => (
            Verdict::Slower,
            format!(
                "slower (significant, {:+.1}%), and a slowdown beyond the {} allowance is within its interval {interval}",
                c.pct,
                fmt_pct(limit)
            ),
        ),
        Some(limit) => (
            Verdict::SlowerWithinAllowance,
            format!(
                "slower (significant, {:+.1}%) but less than the {} allowance: interval {interval}",
                c.pct,
                fmt_pct(limit)
            ),
        ),
    }
}
