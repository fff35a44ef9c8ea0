//! A target's part of a scenario's result: its status and problem, start-up figures, the
//! answer checks, and what only some kinds record (depth check, cold starts).
use serde::{Deserialize, Serialize};

use super::{KindData, TargetSummary, TrialResult};
use crate::catalog::target_def::Settings;
use crate::catalog::TargetKind;

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum TargetStatus {
    /// Ran all planned trials.
    #[default]
    Ok,
    InstallFailed,
    /// A native build that `run` does not start by itself; `problem` gives the command.
    NotInstalled,
    /// Exited during start-up.
    StartFailed,
    /// Never answered the readiness query in time.
    NotReady,
    /// The correctness pre-check found a wrong answer; not measured.
    WrongAnswers,
    /// The correctness pre-check got no answer within its timeout: too slow to be checked
    /// (not a wrong answer); not measured.
    TimedOut,
    /// Exited during a trial; trials before it are kept.
    Crashed,
    /// The run was interrupted before or during this target.
    Interrupted,
    /// Not run: something this machine lacks (e.g. the PostgreSQL server binaries);
    /// `problem` says what and how to get it. Not a failure of the target.
    Skipped,
}

impl TargetStatus {
    pub fn label(self) -> &'static str {
        match self {
            TargetStatus::Ok => "ok",
            TargetStatus::InstallFailed => "install failed",
            TargetStatus::NotInstalled => "not installed",
            TargetStatus::StartFailed => "failed to start",
            TargetStatus::NotReady => "never ready",
            TargetStatus::WrongAnswers => "wrong answers",
            TargetStatus::TimedOut => "timed out",
            TargetStatus::Crashed => "crashed",
            TargetStatus::Interrupted => "interrupted",
            TargetStatus::Skipped => "skipped",
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct TargetResult {
    pub name: String,
    pub kind: TargetKind,
    /// The target this one is a variant of (target.toml `base`): an overhead scenario
    /// compares the two round by round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    pub package: Option<String>,
    /// Version of `package` from the target's lockfile.
    pub version: Option<String>,
    /// The JavaScript runtime the target ran on and its version ("node v20.20.2",
    /// "bun 1.4.4", "deno 2.9.6"); none for native targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    pub settings: Settings,
    pub status: TargetStatus,
    /// What went wrong, for any status but ok.
    pub problem: Option<String>,
    /// Last lines the target wrote to stdout/stderr, when it failed.
    pub log_tail: Option<String>,
    /// Log file of the target's output, relative to the run folder.
    pub log_file: Option<String>,
    /// Start-up time from spawn to the first good readiness answer.
    pub ready_s: Option<f64>,
    /// RSS of the target's process tree once ready, before any load.
    pub rss_idle_bytes: Option<u64>,
    pub checks: Vec<CheckOutcome>,
    pub trials: Vec<TrialResult>,
    pub summary: Option<TargetSummary>,
    /// Depth scenarios: whether the server answered at the limit and refused beyond it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_check: Option<DepthCheck>,
    /// Cold-start scenarios: every fresh start, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cold_starts: Vec<ColdStartSample>,
    /// What the scenario's kinds record about this target (a cold start's summary, a
    /// response cache's staleness check): each a field here.
    #[serde(flatten)]
    pub by_kind: KindData,
}

/// What a response cache served after a write.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum StalenessVerdict {
    /// Every read after a write saw it.
    Fresh,
    /// Old answers after a write, none later than the cache's time to live.
    WithinTtl,
    /// The old answer past the time to live: a failure.
    Stale,
    /// An answer that was neither the old nor the new one: a failure.
    Wrong,
}

impl StalenessVerdict {
    /// Whether the target fails for it.
    pub fn fails(self) -> bool {
        matches!(self, StalenessVerdict::Stale | StalenessVerdict::Wrong)
    }
}

impl TargetResult {
    /// A row before anything was measured: status ok, nothing known about it but its name
    /// and kind (the runner fills in the catalogue's facts, an import what it knows).
    pub fn new(name: String, kind: TargetKind) -> Self {
        TargetResult {
            name,
            kind,
            ..Default::default()
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct DepthCheck {
    pub limit: u32,
    /// The operation at the limit answered with the expected data.
    pub at_limit_ok: bool,
    pub at_limit_detail: Option<String>,
    /// The deeper operation was refused with a GraphQL error (no data).
    pub over_limit_rejected: bool,
    /// HTTP status of the refusal (or of the answer, when it was not refused).
    pub over_limit_status: Option<u16>,
    /// The server's error message, or what it answered instead.
    pub over_limit_detail: String,
}

impl DepthCheck {
    pub fn passed(&self) -> bool {
        self.at_limit_ok && self.over_limit_rejected
    }
}

/// How one cold start ended. results.json keeps it as the label ("ok", "wrong answer", or
/// the target status a failed start had), so files of every schema read the same.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(from = "String", into = "String")]
pub enum StartOutcome {
    /// Ready, and both requests answered right.
    Ok,
    /// Ready, but a request's answer was wrong.
    WrongAnswer,
    /// Never got that far: the status's label ("failed to start", "not ready", ...).
    Failed(String),
}

impl StartOutcome {
    pub fn is_ok(&self) -> bool {
        *self == StartOutcome::Ok
    }

    pub fn label(&self) -> &str {
        match self {
            StartOutcome::Ok => "ok",
            StartOutcome::WrongAnswer => "wrong answer",
            StartOutcome::Failed(why) => why,
        }
    }
}

impl From<String> for StartOutcome {
    fn from(s: String) -> StartOutcome {
        match s.as_str() {
            "ok" => StartOutcome::Ok,
            "wrong answer" => StartOutcome::WrongAnswer,
            _ => StartOutcome::Failed(s),
        }
    }
}

impl From<StartOutcome> for String {
    fn from(o: StartOutcome) -> String {
        o.label().to_string()
    }
}

impl std::fmt::Display for StartOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// A target that cannot run in this run (its install failed, its native build is not
/// installed, the run was interrupted before its install): every scenario reports it with
/// this status and message instead of starting it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unavailable {
    pub name: String,
    pub status: TargetStatus,
    pub message: String,
}

impl Unavailable {
    pub fn new(name: &str, status: TargetStatus, message: impl Into<String>) -> Unavailable {
        Unavailable {
            name: name.into(),
            status,
            message: message.into(),
        }
    }

    /// The entry of `name` in a list of unavailable targets.
    pub fn find<'a>(list: &'a [Unavailable], name: &str) -> Option<&'a Unavailable> {
        list.iter().find(|u| u.name == name)
    }
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct ColdStartSample {
    /// 1-based start number.
    pub start: u32,
    /// "ok", or why this start failed ("not ready", "failed to start", "wrong answer").
    pub outcome: StartOutcome,
    /// Spawn to the first good `{ __typename }` answer, seconds.
    pub ready_s: Option<f64>,
    /// Latency of the first real request (the scenario's first operation, checked), seconds.
    pub first_request_s: Option<f64>,
    /// Latency of the same request right after, for contrast, seconds.
    pub second_request_s: Option<f64>,
    /// RSS of the process tree right when ready.
    pub rss_at_ready_bytes: Option<u64>,
    /// RSS after the first request.
    pub rss_after_first_bytes: Option<u64>,
    pub problem: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct CheckOutcome {
    pub operation: String,
    pub cases: usize,
    pub ok: bool,
    /// First problem found: the failure kind and a diff or excerpt.
    pub detail: Option<String>,
    /// Seconds from send to last byte of the first request of this operation the target
    /// ever served (its first case, on a new connection): parsing, validation and, for a
    /// gateway, query planning with a cold cache, plus a runtime's first run of that code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_s: Option<f64>,
    /// The median of the same request sent again, one at a time, right after: the warm
    /// figure to set `first_s` against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_s: Option<f64>,
}
