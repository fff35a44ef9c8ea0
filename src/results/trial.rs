//! One trial's result: what the engine measured, the target's vitals, the generator's own
//! cost, the saturation flags and validity, and what only some kinds record (sweep steps,
//! database usage, subscriptions, upstream calls).
use std::collections::BTreeMap;

use gqlbench_engine::LoadResult;
use serde::{Deserialize, Serialize};

use super::{FlagKind, KindData, SaturationFlag};

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
    /// Warm-up until steady: how long it took and whether the target settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<WarmupInfo>,
    /// Noise sentinels over the window: CPU taken on the run's CPUs by other processes,
    /// steal, frequency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<NoiseInfo>,
    /// A tracing variant: what its collector received during the trial (warm-up included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracing: Option<TracingUsage>,
    /// Why this trial is not counted (it was measured again), e.g. interference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
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
    /// Measured alternating in time slices with this many targets (itself included): its
    /// req/s, latency and CPU are over its own slices (past each one's guard for req/s and
    /// latency); None when measured alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternated: Option<u32>,
    /// What the scenario's kinds record about this trial (a response cache's executions):
    /// each a field here.
    #[serde(flatten)]
    pub by_kind: KindData,
}

impl TrialResult {
    /// Every request the trial sent, answered or not: a separate warm-up run until steady,
    /// the measured run's warm-up, priming and window. What a count kept by the server or
    /// the database over the whole trial is divided by.
    pub fn requests_sent(&self) -> u64 {
        let warm = self.warmup.as_ref().map_or(0, |w| w.requests);
        self.load.sent() + warm
    }

    /// A valid trial of `load` with nothing else measured (no vitals, no flags): what an
    /// import knows of a k6 run, and the base that tests edit.
    pub fn of_load(trial: u32, started_at: String, load: LoadResult) -> Self {
        TrialResult {
            trial,
            position: 1,
            started_at,
            load,
            vitals: Vitals::default(),
            generator: GeneratorUsage::default(),
            saturation: Vec::new(),
            valid: true,
            problems: Vec::new(),
            warmup: None,
            noise: None,
            tracing: None,
            excluded: None,
            upstream: None,
            sweep: None,
            database: None,
            subscriptions: None,
            alternated: None,
            by_kind: KindData::default(),
        }
    }
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
    /// None ("unmeasured") when no server process could be read.
    #[serde(default)]
    pub db_rss_peak_bytes: Option<u64>,
    /// The database was still up at the end of the trial.
    pub db_alive: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct SubscriptionUsage {
    /// Everything the engine measured.
    pub engine: gqlbench_engine::SubscribeResult,
    /// Server RSS before the first connection and with every subscription held; None
    /// ("unmeasured") when it could not be read.
    #[serde(default)]
    pub rss_before_bytes: Option<u64>,
    #[serde(default)]
    pub rss_held_bytes: Option<u64>,
    /// (held − before) per 1,000 held subscriptions.
    pub memory_per_1000_bytes: Option<u64>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct UpstreamUsage {
    /// Requests each subgraph served during the trial (warm-up included).
    pub calls: BTreeMap<String, u64>,
    /// Subgraph requests per client request (warm-up and window together).
    pub calls_per_request: f64,
    /// CPU of the subgraph process over the measured window, % of one core; None when it
    /// could not be read.
    #[serde(default)]
    pub subgraph_cpu_pct: Option<f64>,
    /// Cores the subgraphs were pinned to.
    pub subgraph_cores: usize,
    /// Cores the gateway was pinned to (`summary::bound`); absent in files of older
    /// versions and when the targets were not pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway_cores: Option<usize>,
    #[serde(default)]
    pub subgraph_rss_peak_bytes: Option<u64>,
    /// Watched headers the subgraphs received during the trial, count per value (the
    /// proof of a gateway customization; see runner/customization.rs).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, BTreeMap<String, u64>>,
    /// A gateway variant's coprocessor: calls it served per client request (warm-up and
    /// window together), and its CPU over the measured window in % of one core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coprocessor_calls_per_request: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coprocessor_cpu_pct: Option<f64>,
}

/// Spans a tracing variant exported during a trial, as its collector counted them.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TracingUsage {
    pub spans: u64,
    /// Spans per client request (warm-up and window together).
    pub spans_per_request: f64,
    /// OTLP export requests (batches) received.
    pub exports: u64,
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
    pub flags: Vec<FlagKind>,
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
    /// None ("unmeasured") when no CPU counter could be read, e.g. the target was gone.
    #[serde(default)]
    pub cpu_avg_pct: Option<f64>,
    /// Highest per-interval CPU during the window, % of one core.
    #[serde(default)]
    pub cpu_peak_pct: Option<f64>,
    /// Average and peak RSS of the samples taken while the target was alive; None
    /// ("unmeasured") when no sample could be read (a killed target has no memory figure,
    /// not a zero one).
    #[serde(default)]
    pub rss_avg_bytes: Option<u64>,
    #[serde(default)]
    pub rss_peak_bytes: Option<u64>,
    /// The most threads the target's processes had at one sample of the window (what its
    /// runtime started: workers, GC and JIT threads, pools), read from /proc.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads_peak: Option<u32>,
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
    /// CPU over the last interval, % of one core; None when it could not be read.
    #[serde(default)]
    pub cpu_pct: Option<f64>,
    /// None when the target's memory could not be read at that moment (it was gone).
    #[serde(default)]
    pub rss_bytes: Option<u64>,
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
    /// Cores the generator could use: its pinned CPUs, else the process's affinity mask,
    /// at most its threads (`sys::cpus::generator_cores`).
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

/// A warm-up run until the throughput was steady (see `measure::warmup`).
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct WarmupInfo {
    pub min_s: f64,
    pub max_s: f64,
    /// How long the warm-up ran.
    pub used_s: f64,
    /// The throughput settled before the maximum.
    pub steady: bool,
    /// Throughput of each bucket of the warm-up, req/s.
    pub bucket_s: f64,
    pub rps: Vec<f64>,
    /// Requests the warm-up sent (answered or not, priming included): a database counts
    /// their queries too.
    #[serde(default)]
    pub requests: u64,
    /// The target's own warm-up (`[start] warmup`: a JVM), run alone on its fresh process,
    /// rather than the profile's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own: bool,
}

/// What else the machine did while a trial was measured (see `measure::noise`). A figure
/// that could not be read is None ("unmeasured"), never 0.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct NoiseInfo {
    /// The CPUs watched: the generator's and the target's.
    pub cpus: Vec<usize>,
    /// CPU time on those CPUs not spent by the run (gqlbench, the target, its helpers), in
    /// % of one CPU over the window.
    pub foreign_cpu_pct: Option<f64>,
    /// Time the hypervisor took from those CPUs, % of one CPU over the window.
    pub steal_pct: Option<f64>,
    /// Current frequency of each watched CPU at the window's end, MHz.
    pub freq_mhz: Option<Vec<u64>>,
    /// Softirq time of each watched CPU (in `cpus`' order), % of one CPU over the window:
    /// kernel work (loopback receive among it) that no process's counter may show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub softirq_pct: Option<Vec<f64>>,
    /// Steal that a test added to this reading (`GQLBENCH_INJECT_STEAL`), included in
    /// `steal_pct`; absent on a real run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injected_steal_pct: Option<f64>,
}
