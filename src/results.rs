//! The one result model. `results.json` is this model serialized; every report (terminal,
//! markdown, JSON on stdout, compare) is generated from it. Field names are documented in
//! docs/results.md; bump `SCHEMA_VERSION` on any incompatible change.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use gqlbench_engine::LoadResult;
use serde::{Deserialize, Serialize};

use crate::catalog::target::Settings;
use crate::catalog::TargetKind;

/// 2: `requests`, `throughput_rps` and latency count answered requests only (`unanswered`
/// counts the rest); connection counts at the start; verdicts. Version 1 files are read too.
pub const SCHEMA_VERSION: u32 = 2;
/// Oldest schema this version still reads (its fields are a subset of today's).
pub const OLDEST_READABLE: u32 = 1;

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct RunResults {
    pub schema_version: u32,
    pub tool: ToolInfo,
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
    pub scenarios: Vec<ScenarioResult>,
    /// What the run's exit code says, and why (set when the run ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::verdict::RunVerdict>,
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

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
    /// `git describe`-like commit of the gqlbench checkout, "+dirty" when modified.
    pub git_commit: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct MachineInfo {
    pub cpu_model: String,
    pub cores: usize,
    pub memory_bytes: u64,
    pub kernel: String,
    pub os: String,
    pub hostname: String,
}

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

#[derive(Serialize, Deserialize, Debug, Clone)]
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
    /// A long run: the leak thresholds applied to the memory trend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_run: Option<LongRunSpec>,
    /// The depth limit the scenario checks (see each target's `depth_check`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_limit: Option<u32>,
    /// Subscriptions: transport and publish rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscriptions: Option<SubscriptionsInfo>,
    /// A fault of the catalogue rather than of the targets: every target checked answered
    /// an operation alike and differently from its expected answer. Names the files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalogue_fault: Option<String>,
}

/// A long run's leak thresholds: the scenario file's `[long_run]`, kept with the result.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LongRunSpec {
    /// A leak is suspected when the fitted memory growth over the window is at least this
    /// many MiB ...
    #[serde(default = "leak_mib")]
    pub leak_min_growth_mib: f64,
    /// ... and at least this share of the memory at the start of the window, in % ...
    #[serde(default = "leak_pct")]
    pub leak_min_growth_pct: f64,
    /// ... and the straight line explains the samples at least this well (R²).
    #[serde(default = "leak_r2")]
    pub leak_min_r2: f64,
}

fn leak_mib() -> f64 {
    8.0
}
fn leak_pct() -> f64 {
    5.0
}
fn leak_r2() -> f64 {
    0.6
}

impl Default for LongRunSpec {
    fn default() -> Self {
        LongRunSpec {
            leak_min_growth_mib: leak_mib(),
            leak_min_growth_pct: leak_pct(),
            leak_min_r2: leak_r2(),
        }
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

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct SubscriptionsInfo {
    /// "ws" (graphql-ws) or "sse".
    pub transport: String,
    /// Messages the server published per second (every subscriber gets each one).
    pub publish_rate: f64,
    pub connect_rate: f64,
    pub operation: String,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct OperationInfo {
    pub name: String,
    pub weight: u32,
    /// Number of variable sets (cases) rotated per request.
    pub cases: usize,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LoadInfo {
    /// "closed" or "open".
    pub model: String,
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

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TargetStatus {
    /// Ran all planned trials.
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
            TargetStatus::Crashed => "crashed",
            TargetStatus::Interrupted => "interrupted",
            TargetStatus::Skipped => "skipped",
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct TargetResult {
    pub name: String,
    pub kind: TargetKind,
    pub package: Option<String>,
    /// Version of `package` from the target's lockfile.
    pub version: Option<String>,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_start: Option<ColdStartSummary>,
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

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct ColdStartSample {
    /// 1-based start number.
    pub start: u32,
    /// "ok", or why this start failed ("not ready", "failed to start", "killed: memory cap").
    pub outcome: String,
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
pub struct ColdStartSummary {
    pub starts: u32,
    pub ok: u32,
    pub ready_s: Estimate,
    pub first_request_s: Estimate,
    pub second_request_s: Estimate,
    pub rss_at_ready_bytes: Estimate,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct CheckOutcome {
    pub operation: String,
    pub cases: usize,
    pub ok: bool,
    /// First problem found: the failure kind and a diff or excerpt.
    pub detail: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct TrialResult {
    /// Trial number (1-based) and the position of this target in that trial's order.
    pub trial: u32,
    pub position: u32,
    pub started_at: String,
    /// Everything the engine measured in the measured window (warm-up excluded).
    pub load: LoadResult,
    pub vitals: Vitals,
    pub generator: GeneratorUsage,
    pub saturation: Vec<SaturationFlag>,
    /// No failed response and the target stayed up.
    pub valid: bool,
    pub problems: Vec<String>,
    /// Federation: what the gateway asked of its subgraphs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<UpstreamUsage>,
    /// Rate sweep: every step; the trial's `load` is the highest step that held.
    /// Connection sweep: every step; the trial's `load` is the step with the most req/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Vec<SweepStep>>,
    /// Database scenarios: queries the database executed for this trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<DatabaseUsage>,
    /// Subscription scenarios: what the engine held and received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscriptions: Option<SubscriptionUsage>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct DatabaseUsage {
    /// Statements the targets' database role executed during the trial (warm-up and window),
    /// from PostgreSQL's pg_stat_statements — the database's count, not the resolvers'.
    pub queries: u64,
    /// `queries` / GraphQL requests (warm-up and window).
    pub queries_per_request: f64,
    /// CPU of the PostgreSQL server over the measured window, % of one core.
    pub db_cpu_pct: f64,
    pub db_rss_peak_bytes: u64,
    /// The database was still up at the end of the trial.
    pub db_alive: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct SubscriptionUsage {
    /// Everything the engine measured.
    pub engine: gqlbench_engine::SubscribeResult,
    /// Server RSS before the first connection and with every subscription held.
    pub rss_before_bytes: u64,
    pub rss_held_bytes: u64,
    /// (held − before) per 1,000 held subscriptions.
    pub memory_per_1000_bytes: Option<u64>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct UpstreamUsage {
    /// Requests each subgraph served during the trial (warm-up included).
    pub calls: BTreeMap<String, u64>,
    /// Subgraph requests per client request (warm-up and window together).
    pub calls_per_request: f64,
    /// CPU of the subgraph process over the measured window, % of one core.
    pub subgraph_cpu_pct: f64,
    /// Cores the subgraphs were pinned to.
    pub subgraph_cores: usize,
    pub subgraph_rss_peak_bytes: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct SweepStep {
    /// Rate sweep: intended arrival rate of this step, requests per second.
    #[serde(default)]
    pub rate: Option<f64>,
    /// Connection sweep: connections of this step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<u32>,
    pub achieved_rps: f64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub failed: u64,
    /// Saturation flags raised in this step.
    pub flags: Vec<String>,
    /// Rate sweep: p99 (from the intended send time) within the limit, every request sent
    /// and answered right. Connection sweep: no failure.
    pub held: bool,
    /// Rate sweep: `probe` (closed loop, to start near the target's capacity), `coarse`,
    /// `refine` (bisecting), `repeat` (a step the generator lost, measured again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Rate sweep: `held`, `target` (the target's limit) or `generator` (the generator could
    /// not deliver the rate: says nothing of the target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// Why a step was lost, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Vitals {
    /// "cgroup" (cpuacct counters) or "proc" (sum over the process tree from /proc).
    pub cpu_source: String,
    /// Target CPU over the measured window, in % of one core (200 = two cores busy).
    pub cpu_avg_pct: f64,
    /// Highest per-interval CPU during the window, % of one core.
    pub cpu_peak_pct: f64,
    pub rss_avg_bytes: u64,
    pub rss_peak_bytes: u64,
    pub samples: u32,
    /// Sampling interval in seconds.
    pub interval_s: f64,
    /// Node targets: GC pauses during the measured window (from the gc-probe preload).
    pub gc: Option<GcStats>,
    /// The CPUs each target process was allowed to run on, as read back from /proc.
    pub verified_cpus: Option<Vec<usize>>,
    /// One point per second of the window: CPU, memory and GC so far.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<VitalsPoint>,
    /// Straight-line fit of RSS over the window (every sample).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_trend: Option<MemoryTrend>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct VitalsPoint {
    /// Seconds since the window began.
    pub t_s: f64,
    /// CPU over the last interval, % of one core.
    pub cpu_pct: f64,
    pub rss_bytes: u64,
    /// GC pauses since the window began (Node targets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_total_ms: Option<f64>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct MemoryTrend {
    /// Slope of the least-squares line through (time, RSS), MiB per minute.
    pub slope_mib_per_min: f64,
    /// How well the line explains the samples (0..1).
    pub r2: f64,
    /// The line's value at the start and end of the window.
    pub fit_start_bytes: u64,
    pub fit_end_bytes: u64,
    pub window_s: f64,
    pub samples: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct GcStats {
    pub count: u64,
    pub total_ms: f64,
    pub max_ms: f64,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct GeneratorUsage {
    /// CPU seconds the generator's worker threads used in the measured window.
    pub cpu_s: f64,
    /// Cores available to the generator.
    pub cores: usize,
    /// cpu_s / (window × cores): 1.0 = every generator core busy.
    pub utilization: f64,
    /// Peak resident memory of the gqlbench process so far (VmHWM), the generator included.
    #[serde(default)]
    pub peak_rss_bytes: u64,
}

impl GeneratorUsage {
    pub fn measure(cpu_s: f64, elapsed_s: f64, cores: usize) -> GeneratorUsage {
        let cores = cores.max(1);
        GeneratorUsage {
            cpu_s,
            cores,
            utilization: if elapsed_s > 0.0 {
                cpu_s / (elapsed_s * cores as f64)
            } else {
                0.0
            },
            peak_rss_bytes: own_peak_rss(),
        }
    }
}

/// VmHWM of this process, in bytes.
pub fn own_peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map(|kib| kib * 1024)
        .unwrap_or(0)
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SaturationFlag {
    /// generator_cpu | send_lag | unsent | rate_shortfall | closed_model_cap | connections_unused
    /// | shared_cpu | subgraph_cpu
    pub kind: String,
    pub detail: String,
}

/// Summary of a target's valid trials in one scenario. Derived from the trials; stored so
/// that scripts need not recompute it.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct TargetSummary {
    pub trials: u32,
    pub valid_trials: u32,
    pub rps: Estimate,
    pub p99_us: Estimate,
    /// Latency of all valid trials' histograms merged (not averaged percentiles).
    pub latency: gqlbench_engine::LatencySummary,
    pub requests: u64,
    pub failures: u64,
    pub failures_by_kind: BTreeMap<String, u64>,
    pub cpu_avg_pct: Option<f64>,
    pub rss_peak_bytes: Option<u64>,
    pub rss_avg_bytes: Option<u64>,
    pub gc: Option<GcStats>,
    pub generator_utilization_max: f64,
    /// Federation: median subgraph requests per client request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_calls_per_request: Option<f64>,
    /// Federation: median CPU of the subgraphs, % of one core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subgraph_cpu_pct: Option<f64>,
    /// Rate sweep: the highest arrival rate that held, per trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sustained_rate: Option<Estimate>,
    /// Database scenarios: median database queries per GraphQL request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db_queries_per_request: Option<f64>,
    /// Long runs: the leak verdict of the longest valid trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leak: Option<LeakVerdict>,
    /// Subscriptions: medians over trials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscriptions: Option<SubscriptionSummary>,
    /// Any trial flagged by the saturation guard.
    pub saturated: bool,
    /// Every trial valid and at least one trial run.
    pub valid: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LeakVerdict {
    /// "stable", "growing" (leak suspected) or "too_short" to judge.
    pub verdict: String,
    pub trend: MemoryTrend,
    /// Baseline (idle before load), peak and average RSS of that trial.
    pub baseline_bytes: Option<u64>,
    pub peak_bytes: u64,
    pub avg_bytes: u64,
    pub detail: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct SubscriptionSummary {
    pub connections: u32,
    pub held: Estimate,
    pub dropped: u64,
    /// Messages per second per connection.
    pub msgs_per_conn_s: Estimate,
    /// Delivery latency, merged over trials.
    pub latency: gqlbench_engine::LatencySummary,
    pub memory_per_1000_bytes: Option<Estimate>,
    pub gaps: u64,
}

/// Median of trials with a 95% bootstrap confidence interval.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct Estimate {
    pub n: u32,
    pub median: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// Coefficient of variation (stdev / mean) across trials; 0.05 = 5%.
    pub cv: f64,
    pub samples: Vec<f64>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Ranking {
    pub fastest: String,
    pub runner_up: String,
    /// Median req/s of fastest over runner-up, minus one, in %.
    pub margin_pct: f64,
    /// 95% bootstrap interval of that margin.
    pub margin_ci_pct: (f64, f64),
    pub significant: bool,
    /// Fewest trials on either side; below 3 nothing is called significant.
    #[serde(default)]
    pub min_trials: u32,
}

pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl RunResults {
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
    pub fn load(path: &Path) -> Result<RunResults> {
        let file = if path.is_dir() {
            path.join("results.json")
        } else {
            path.to_path_buf()
        };
        let text = std::fs::read_to_string(&file).with_context(|| {
            format!(
                "reading {} (a run folder holds results.json)",
                file.display()
            )
        })?;
        let probe: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not JSON", file.display()))?;
        let version = probe.get("schema_version").and_then(|v| v.as_u64());
        let readable = OLDEST_READABLE as u64..=SCHEMA_VERSION as u64;
        match version {
            Some(v) if readable.contains(&v) => {}
            Some(v) => anyhow::bail!(
                "{}: schema_version {v}; this gqlbench reads versions {OLDEST_READABLE} to {SCHEMA_VERSION} (use the gqlbench that wrote it)",
                file.display()
            ),
            None => anyhow::bail!(
                "{}: no schema_version: not a gqlbench results file",
                file.display()
            ),
        }
        serde_json::from_value(probe)
            .with_context(|| format!("{}: not a gqlbench results file", file.display()))
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
    }
}
