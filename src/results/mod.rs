//! The one result model. `results.json` is this model serialized; every report (terminal,
//! markdown, JSON on stdout, compare) is generated from it. Field names are documented in
//! docs/results.md; bump `SCHEMA_VERSION` on any incompatible change.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::error::ResultsError;

mod flag;
mod import;
mod kind_data;
pub mod nonfinite;
mod run_extras;
mod sanity;
mod stop_reason;
mod summary;
mod target;
#[cfg(test)]
mod test_run;
#[cfg(test)]
pub use test_run::test_run;
mod trial;
mod verdict;

pub use flag::{FlagKind, SaturationFlag};
pub use import::*;
pub use kind_data::{Key, KindData};
pub use sanity::damaged_throughput;

pub use run_extras::{LeftOut, MachineProbe, RaceInfo};
pub use stop_reason::StopReason;
pub use summary::*;
pub use target::*;
pub use trial::*;
pub use verdict::RunVerdict;

/// 4: a figure that could not be read is null ("unmeasured"), never 0: vitals' CPU and
/// memory (and their per-second points), idle RSS, a subscription's RSS before and held,
/// the subgraphs' CPU and memory, the database's memory, a leak verdict's peak and average.
/// 3: estimates have a `center` (geometric mean) and a t interval on the logarithms in
/// `ci_low`/`ci_high` (2: a bootstrap of the median); rounds, warm-ups, noise, excluded
/// trials, caveats, ranking pairs. 2: `requests`, `throughput_rps` and latency count
/// answered requests only (`unanswered` counts the rest); connection counts at the start;
/// verdicts. Version 1 to 3 files are read too.
pub const SCHEMA_VERSION: u32 = 4;
/// Oldest schema this version still reads (its fields are a subset of today's).
pub const OLDEST_READABLE: u32 = 1;

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct RunResults {
    pub schema_version: u32,
    pub tool: ToolInfo,
    /// What measured the run: "gqlbench", or the load tester an import read (e.g. "k6 v1.8.1").
    #[serde(default = "gqlbench_engine")]
    pub engine: String,
    /// An imported run: its files and what its engine did not measure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<ImportInfo>,
    pub suite: String,
    pub profile: String,
    /// The exact command line that produced the run.
    pub command: Vec<String>,
    /// RFC 3339 timestamps.
    pub started_at: String,
    pub finished_at: Option<String>,
    pub status: RunStatus,
    pub machine: MachineInfo,
    pub isolation: IsolationInfo,
    /// Versions of the runtimes the targets ran on, e.g. {"node": "v20.20.2"}.
    pub runtimes: BTreeMap<String, String>,
    /// Extra environment every target was started with (`run --target-env`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub target_env: BTreeMap<String, String>,
    pub scenarios: Vec<ScenarioResult>,
    /// The run's time budget (`max_time`) and what it used; null without one (imports,
    /// and runs of older versions, whose budget held only rounds added for precision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetInfo>,
    /// What the machine showed at the start (before the first scenario).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_probe: Option<MachineProbe>,
    /// Scenarios of the suite's default scope the run left out to keep its budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_out: Option<LeftOut>,
    /// What the run's exit code says, and why (set when the run ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<RunVerdict>,
}

/// The run's one time budget (`measure::budget`), counted from the end of the installs.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct BudgetInfo {
    pub max_s: f64,
    /// What the run said before its first scenario it would take at most: the budget, or
    /// the scenarios' minimums when they are more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promised_s: Option<f64>,
    /// Seconds from the end of the installs to the end of the last scenario.
    pub used_s: f64,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Complete,
    Interrupted,
    /// gqlbench itself hit an error (see its output); what was measured before is kept.
    Failed,
}

pub use crate::sys::machine::{MachineInfo, ToolInfo};

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct IsolationInfo {
    /// CPUs the load generator was pinned to (verified), or empty when not pinned.
    pub generator_cpus: Vec<usize>,
    /// CPUs the targets were pinned to (verified on each target process).
    pub target_cpus: Vec<usize>,
    /// "v1", "v2" or "none".
    pub cgroups: String,
    /// Human-readable notes: what was applied, and what could not be and why.
    pub notes: Vec<String>,
    /// Open-files limit in force for the generator.
    pub nofile_limit: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct ScenarioResult {
    pub suite: String,
    pub name: String,
    pub description: String,
    pub workload: String,
    pub operations: Vec<OperationInfo>,
    pub load: LoadInfo,
    pub trials_planned: u32,
    pub warmup_s: f64,
    pub duration_s: f64,
    pub limits: LimitsInfo,
    pub targets: Vec<TargetResult>,
    /// Fastest valid target and its margin over the runner-up, when at least two are valid.
    pub ranking: Option<Ranking>,
    /// What the scenario measures: throughput under load (default), fresh starts, or held
    /// subscriptions.
    #[serde(default)]
    pub kind: ScenarioKind,
    /// Served from PostgreSQL: which resolvers, which data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<DatabaseInfo>,
    /// Closed-model load sweep: the connection counts of every trial's steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection_sweep: Option<Vec<u32>>,
    /// How many rounds ran and why no more (rounds added until decided, `--precision`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<RoundsInfo>,
    /// A fault of the catalogue rather than of the targets: every target checked answered
    /// an operation alike and differently from its expected answer. Names the files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalogue_fault: Option<String>,
    /// What the scenario's kinds record about it (`[overhead]`, `[response_cache]`, the
    /// depth limit, a long run's thresholds, subscriptions' transport): each a field here.
    #[serde(flatten)]
    pub by_kind: KindData,
}

/// A target that says it cannot serve a scenario's workload (its `[unsupported]` table):
/// listed, not run, not a failure.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct NotSupported {
    pub target: String,
    pub why: String,
}

/// The scenario's targets that cannot serve its workload.
pub const NOT_SUPPORTED: Key<Vec<NotSupported>> = Key::new("not_supported");

/// The rounds of a scenario: each measures every target once (see `summary::rounds`).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RoundsInfo {
    pub run: u32,
    pub min: u32,
    pub max: u32,
    /// The precision asked for: half-width of the intervals relative to the center, in %.
    pub target_pct: Option<f64>,
    /// Why no more rounds ran.
    pub stop: crate::results::StopReason,
    /// The canary (fixed CPU work) timed on every watched CPU before the first round
    /// (round 0) and after each round, ms: the machine's own speed drift.
    pub canary: Vec<CanaryPoint>,
    /// The slices the rounds' targets alternated in, when they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slices: Option<SlicesInfo>,
    /// The race: which targets each round measured, the fresh processes it started and
    /// what they cost (`summary::race`, `runner::rounds_loop`). Absent for fixed rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race: Option<RaceInfo>,
}

/// How a scenario's alternating rounds shared the target CPUs.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SlicesInfo {
    pub slice_ms: f64,
    /// The start of each slice not counted.
    pub guard_ms: f64,
    /// Rounds that alternated (a round with one target left runs it alone).
    pub rounds: u32,
    /// Each target's own time in the first round's warm-up, and in every round's window
    /// (whole blocks: at least the profile's warm-up and duration), seconds.
    #[serde(default)]
    pub first_warmup_s: f64,
    #[serde(default)]
    pub window_s: f64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct CanaryPoint {
    /// After this round (0: before the first).
    pub round: u32,
    pub cpus: Vec<usize>,
    /// Per CPU, the best of three timings; None where it could not be taken.
    pub ms: Vec<Option<f64>>,
}

impl RoundsInfo {
    /// The machine's speed during round `round` as the canary saw it: the mean of its
    /// timings on every watched CPU before and after that round, ms. None when a timing is
    /// missing.
    pub fn canary_ms(&self, round: u32) -> Option<f64> {
        let at = |r: u32| self.canary.iter().find(|p| p.round == r);
        let (before, after) = (at(round.checked_sub(1)?)?, at(round)?);
        let ms: Vec<f64> = before
            .ms
            .iter()
            .chain(&after.ms)
            .copied()
            .collect::<Option<Vec<f64>>>()?;
        (!ms.is_empty()).then(|| ms.iter().sum::<f64>() / ms.len() as f64)
    }

    /// The largest slowdown of the canary on any CPU against its first timing, in %.
    pub fn drift_pct(&self) -> Option<f64> {
        let first = self.canary.first()?;
        self.canary
            .iter()
            .flat_map(|p| {
                p.ms.iter()
                    .zip(&first.ms)
                    .filter_map(|(m, f)| Some((m.as_ref()? / f.as_ref()? - 1.0) * 100.0))
            })
            .max_by(f64::total_cmp)
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum ScenarioKind {
    #[default]
    Load,
    ColdStart,
    Subscriptions,
}

impl ScenarioKind {
    /// Whether the scenario's figure is throughput under load (req/s rows, the main table,
    /// the noise sentinels, a price): plain load and its sweeps and decorators.
    pub fn measures_throughput(self) -> bool {
        self == ScenarioKind::Load
    }

    /// Whether its rows are trials with a req/s figure that two runs can compare (every
    /// kind but cold starts, whose rows are starts).
    pub fn has_trials(self) -> bool {
        self != ScenarioKind::ColdStart
    }

    /// Whether a target that fails to start is what the scenario measures (cold starts in
    /// a constrained box) rather than a failure.
    pub fn measures_starts(self) -> bool {
        self == ScenarioKind::ColdStart
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct DatabaseInfo {
    /// "naive" (one query per field) or "dataloader" (batched per request).
    pub resolvers: String,
    /// Users seeded (posts = 10x, comments = 50x, followers = 25x).
    pub scale: u64,
    /// PostgreSQL server version.
    pub server_version: String,
    /// Rows per table after seeding.
    pub rows: BTreeMap<String, u64>,
    /// Seconds the seed took (load, indexes, ANALYZE).
    pub seed_s: f64,
    /// Size of the data directory after seeding.
    pub data_bytes: u64,
    /// Connection pool size each target was given.
    pub pool_size: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct OperationInfo {
    pub name: String,
    pub weight: u32,
    /// Number of variable sets (cases) rotated per request.
    pub cases: usize,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct LoadInfo {
    /// The arrival model ("closed" or "open" in the file).
    pub model: crate::catalog::scenario::Model,
    pub connections: u32,
    pub pipelining: u32,
    pub think_time_s: f64,
    /// Open model: requests per second (the start value when staged).
    pub rate: Option<f64>,
    /// Stages as (duration_s, target) pairs.
    pub stages: Vec<(f64, f64)>,
    pub timeout_s: f64,
    /// Whether each request carried a unique header (defeats request deduplication).
    pub unique_request_header: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct LimitsInfo {
    pub cpus: Option<f64>,
    pub memory_bytes: Option<u64>,
    /// What was applied: "cgroup v1: cpu quota 1.00 cores, memory 1073741824 B" or why not.
    pub applied: String,
}

pub use crate::units::now_rfc3339;

impl RunResults {
    /// The run has ended: failed (gqlbench's own error), interrupted, or complete; now.
    pub fn end(&mut self, failed: bool, interrupted: bool) {
        self.status = if failed {
            RunStatus::Failed
        } else if interrupted {
            RunStatus::Interrupted
        } else {
            RunStatus::Complete
        };
        self.finished_at = Some(now_rfc3339());
    }

    /// Write atomically (temporary file, then rename) so an interrupted run never leaves a
    /// half-written results.json.
    pub fn save(&self, dir: &Path) -> Result<PathBuf> {
        let path = dir.join("results.json");
        let tmp = dir.join(".results.json.tmp");
        let text = serde_json::to_vec_pretty(self).context("serializing results")?;
        std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    }

    /// Load a run folder or a results.json file.
    pub fn load(path: &Path) -> Result<RunResults, ResultsError> {
        let file = if path.is_dir() {
            path.join("results.json")
        } else {
            path.to_path_buf()
        };
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(source) => return Err(ResultsError::Unreadable { file, source }),
        };
        let probe: serde_json::Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(source) => return Err(ResultsError::NotJson { file, source }),
        };
        let version = probe.get("schema_version").and_then(|v| v.as_u64());
        let readable = OLDEST_READABLE as u64..=SCHEMA_VERSION as u64;
        match version {
            Some(v) if readable.contains(&v) => {}
            Some(version) => {
                return Err(ResultsError::SchemaVersion {
                    file,
                    version,
                    oldest: OLDEST_READABLE,
                    newest: SCHEMA_VERSION,
                })
            }
            None => return Err(ResultsError::NoSchemaVersion { file }),
        }
        serde_json::from_value(probe).map_err(|source| ResultsError::NotResults { file, source })
    }
}

/// The snake_case name of a failure kind, as in results.json.
pub fn kind_name(k: gqlbench_engine::FailureKind) -> &'static str {
    use gqlbench_engine::FailureKind as K;
    match k {
        K::Connect => "connect",
        K::Timeout => "timeout",
        K::Closed => "closed",
        K::HttpStatus => "http_status",
        K::BadBody => "bad_body",
        K::GraphqlError => "graphql_error",
        K::WrongData => "wrong_data",
        K::Headers => "headers",
        K::Protocol => "protocol",
    }
}
