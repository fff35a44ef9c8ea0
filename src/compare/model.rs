//! The comparison of two runs as written to comparison.json and read by the exporters: one
//! `CompareRow` per scenario × target, the `Problem`s that trip the gate (a row's, or the
//! runs' as a whole), and the `Comparison` that holds them with the gate's outcome.
use serde::{Deserialize, Serialize};

use super::Verdict;
use crate::results::RunStatus;
use crate::stats::between::Between;
use crate::stats::Change;

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
