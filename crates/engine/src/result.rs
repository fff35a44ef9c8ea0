//! The output of a run (serde). Units are in the field names: `_us` microseconds,
//! `_s` seconds, `_rps` requests per second. Only the measured window is counted.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::validate::FailureKind;

/// Everything a run measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadResult {
    /// `closed` or `open`.
    pub model: String,
    /// Responses received for requests of the measured window, whether they passed
    /// validation or not. Requests that got no response are not in it (see `unanswered`):
    /// a refused connection or a timeout is not work the server did.
    pub requests: u64,
    /// Requests whose response passed validation.
    pub ok: u64,
    /// Failed requests of every kind, answered or not (sum of `failures`).
    pub failed: u64,
    /// Failed requests that got no response: connect failures, timeouts, connections
    /// closed or reset before a complete response. Part of `failed`, not of `requests`.
    #[serde(default)]
    pub unanswered: u64,
    /// Failed requests per kind.
    pub failures: BTreeMap<FailureKind, u64>,
    /// The first few failures of each kind, described.
    pub failure_examples: Vec<FailureExample>,
    /// Counts per operation name.
    pub per_operation: BTreeMap<String, OperationCounts>,
    /// Length of the measured window actually run, in seconds.
    pub elapsed_s: f64,
    /// Closed model: how much the window was lengthened so that every connection completed
    /// a request sent in it (a target slower than the planned window), seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_extended_s: Option<f64>,
    /// `requests / elapsed_s`: responses (passed validation or not) per second.
    pub throughput_rps: f64,
    /// `ok / elapsed_s`.
    pub ok_rps: f64,
    /// Closed model with a duration window: the rate from the requests' own timing. Each
    /// answered request counts the share of its span (send to answer, plus the think time
    /// after it) that lies in the counted time (the window; with slicing, the counted parts
    /// of the own slices in it), and the sum is divided by the counted time: a request that
    /// a window's edge cuts counts in part, so the figure has no step of one request per
    /// connection, as a count has (`count_resolution`). None in the open model, a
    /// request-count window or an interrupted run. Absent in files of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_rps: Option<f64>,
    /// Closed model: the count's step relative to the count (0.05 = ±5%): each connection
    /// slot (connection × pipelining) may have one request more or fewer counted for each
    /// counted stretch's edges (the window, or each own slice that counted time), so
    /// `requests` is known to within slots × stretches ([`count_resolution`]). None in the
    /// open model, whose count is its arrival rate's, and without requests. Absent in files
    /// of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_resolution: Option<f64>,
    /// Which figure `throughput_rps` is, when the caller chose the timing's
    /// (`timed_rps`): "timing"; None (absent) for the count, as the engine gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rps_source: Option<String>,
    /// The step of `throughput_rps` itself relative to it, as the caller judged it: the
    /// count's (`count_resolution`, or what the count's edges were measured to do against
    /// `timed_rps`), 0 for the timing's. None when nobody judged it (the engine alone, files
    /// of older versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rps_resolution: Option<f64>,
    /// Latency: from the intended send time in the open model (coordinated-omission
    /// corrected), from the actual send in the closed model; to the last byte received.
    /// Answered requests only (failed validation included); a request without a
    /// response adds no sample.
    pub latency: LatencySummary,
    /// The merged latency histogram (HdrHistogram V2 + deflate, base64; see `decode_hist`).
    pub latency_hist: String,
    /// Incremental requests (`@defer`/`@stream`): time to the first part, from the same
    /// start as `latency` (whose end is the last part), over the answers that passed
    /// validation. An answer whose parts all arrived in one read counts its whole latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_part: Option<LatencySummary>,
    /// Persisted queries answered in the window: how many the server knew (`hits`) and
    /// did not (`misses`, each answered by sending the document), as the server's answers
    /// said. Absent when no request was a persisted query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persisted: Option<PersistedCounts>,
    /// Histogram of `first_part`, encoded as `latency_hist`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_part_hist: Option<String>,
    /// Open model: latency from the actual send time (what a coordinated-omission-prone
    /// tool would report).
    pub uncorrected_latency: Option<LatencySummary>,
    /// Open model: histogram of `uncorrected_latency`, encoded as `latency_hist`.
    pub uncorrected_latency_hist: Option<String>,
    /// Open model: actual minus intended send time.
    pub send_lag: Option<LatencySummary>,
    /// Open model: histogram of `send_lag`, encoded as `latency_hist`.
    pub send_lag_hist: Option<String>,
    /// Open model: requests sent later than `late_threshold_us` after their intended time.
    pub late: u64,
    /// Send lag above which a request counts as late, in microseconds.
    pub late_threshold_us: u64,
    /// Open model: intended sends due in the window that were never sent (no free
    /// connection in time).
    pub unsent: u64,
    /// Open model: sends the rate asked for in the window (answered + unanswered + unsent).
    pub intended_requests: u64,
    /// One sample per second of the window, by send time (intended, in the open model).
    pub series: Vec<SecondSample>,
    /// How evenly the load was spread over connections.
    pub connections: ConnectionSpread,
    /// Response bytes (head and body) of requests in the window.
    pub bytes_received: u64,
    /// Request bytes written for requests in the window.
    pub bytes_sent: u64,
    /// CPU time of the worker threads during the measured window, in seconds (sum over
    /// threads of CLOCK_THREAD_CPUTIME_ID deltas).
    pub generator_cpu_s: f64,
    /// Worker threads used.
    pub threads: usize,
    /// CPUs the workers were pinned to, as read back with sched_getaffinity; None if not pinned.
    pub pinned_cpus: Option<Vec<usize>>,
    /// The run was cancelled before its stop condition.
    pub interrupted: bool,
    /// Connections reopened after a timeout, an error or a close by the server.
    pub reconnects: u64,
    /// Requests completed outside the counted time (discarded from everything else): during
    /// the warm-up and, with slicing, in the guard of an own slice.
    pub warmup_requests: u64,
    /// With slicing (`LoadPlan::slicing`): one entry per own slice that overlaps the
    /// measured window, in index order. In the open model the window's `requests`, `ok`
    /// and `failed` are the sums over them; in the closed model, which counts a slice's
    /// answers where they arrive (`SliceSample`), the sums differ from them by what was in
    /// flight at the counted parts' edges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slices: Vec<SliceSample>,
    /// With slicing: answers that passed validation by their offset within an own slice
    /// (the closed model's by arrival, the open model's by due time),
    /// in bins of [`SLICE_PROFILE_BIN`] (bin `i` covers offsets `[i, i + 1)` bins), summed
    /// over the own slices of the window, guard included: the transient after a switch of
    /// arms, to choose the guard by.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slice_profile: Vec<u64>,
}

/// Width of a bin of `LoadResult::slice_profile`.
pub const SLICE_PROFILE_BIN: Duration = Duration::from_millis(10);

/// The counted requests of one own slice of a sliced run: in the closed model the answers
/// (and failures) that arrived in its counted part, whenever sent; in the open model the
/// requests due in it (`load::slices`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SliceSample {
    /// The slice's number since `Slicing::epoch`.
    pub index: u64,
    /// The arm it belongs to (the run's own).
    pub arm: usize,
    /// Start of the slice since the epoch, milliseconds.
    pub start_ms: f64,
    /// Length of its counted part (past the guard, within the measured window),
    /// milliseconds: what `requests` divides by for a rate. Zero for a slice the window
    /// covers only in its guard.
    pub counted_ms: f64,
    /// Answered requests, as `LoadResult::requests`.
    pub requests: u64,
    pub ok: u64,
    /// Failed requests of every kind, answered or not, as `LoadResult::failed`.
    pub failures: u64,
}

/// The relative step of a closed model's count of `requests` from `slots` connection slots
/// (connections × pipelining) over `stretches` counted stretches (1 for a window; with
/// slicing, the own slices that counted time): at the edges of each stretch every slot may
/// have one request more or fewer counted than its share of the time holds (a request sent
/// just before an edge counts whole, one just after not at all), so the count is known to
/// within slots × stretches requests. None without requests.
pub fn count_resolution(slots: u64, stretches: u64, requests: u64) -> Option<f64> {
    (requests > 0).then(|| (slots * stretches.max(1)) as f64 / requests as f64)
}

impl LoadResult {
    /// Every request this run sent to the target, answered or not: the priming requests
    /// answered before the load, the warm-up's (and a sliced run's guards'), the window's
    /// answered and unanswered. What
    /// a count the server (or its subgraphs) kept over the whole run is divided by.
    pub fn sent(&self) -> u64 {
        self.requests
            + self.unanswered
            + self.warmup_requests
            + self.connections.primed.unwrap_or(0)
    }
}

/// Latency figures of one histogram, in microseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "LatencyFields", into = "LatencyFields")]
pub struct LatencySummary {
    /// Number of samples.
    pub count: u64,
    pub mean_us: f64,
    pub stdev_us: f64,
    pub min_us: u64,
    pub p50_us: u64,
    pub p90_us: u64,
    pub p95_us: u64,
    pub p99_us: u64,
    pub p999_us: u64,
    pub max_us: u64,
    /// The figures the source did not give, by field name (`"p99_us"`): an import of a k6
    /// summary whose `summaryTrendStats` left them out. Their fields hold 0 here, null in
    /// results.json, and every report shows "-". Empty for every histogram.
    pub unmeasured: Vec<String>,
}

impl LatencySummary {
    /// Whether the figure named `field` (e.g. `"p99_us"`) was measured.
    pub fn measured(&self, field: &str) -> bool {
        !self.unmeasured.iter().any(|u| u == field)
    }
}

/// `LatencySummary` as results.json holds it: an unmeasured figure is null, so that no
/// reader takes it for a measured 0.
#[derive(Serialize, Deserialize)]
struct LatencyFields {
    count: u64,
    mean_us: Option<f64>,
    stdev_us: Option<f64>,
    min_us: Option<u64>,
    p50_us: Option<u64>,
    p90_us: Option<u64>,
    p95_us: Option<u64>,
    p99_us: Option<u64>,
    p999_us: Option<u64>,
    max_us: Option<u64>,
}

impl From<LatencyFields> for LatencySummary {
    fn from(f: LatencyFields) -> Self {
        let mut unmeasured = Vec::new();
        let mut take = |name: &str, v: Option<u64>| {
            v.unwrap_or_else(|| {
                unmeasured.push(name.to_string());
                0
            })
        };
        let min_us = take("min_us", f.min_us);
        let p50_us = take("p50_us", f.p50_us);
        let p90_us = take("p90_us", f.p90_us);
        let p95_us = take("p95_us", f.p95_us);
        let p99_us = take("p99_us", f.p99_us);
        let p999_us = take("p999_us", f.p999_us);
        let max_us = take("max_us", f.max_us);
        for (name, v) in [("mean_us", f.mean_us), ("stdev_us", f.stdev_us)] {
            if v.is_none() {
                unmeasured.push(name.to_string());
            }
        }
        LatencySummary {
            count: f.count,
            mean_us: f.mean_us.unwrap_or(0.0),
            stdev_us: f.stdev_us.unwrap_or(0.0),
            min_us,
            p50_us,
            p90_us,
            p95_us,
            p99_us,
            p999_us,
            max_us,
            unmeasured,
        }
    }
}

impl From<LatencySummary> for LatencyFields {
    fn from(l: LatencySummary) -> Self {
        let int = |name: &str, v: u64| l.measured(name).then_some(v);
        let float = |name: &str, v: f64| l.measured(name).then_some(v);
        LatencyFields {
            count: l.count,
            mean_us: float("mean_us", l.mean_us),
            stdev_us: float("stdev_us", l.stdev_us),
            min_us: int("min_us", l.min_us),
            p50_us: int("p50_us", l.p50_us),
            p90_us: int("p90_us", l.p90_us),
            p95_us: int("p95_us", l.p95_us),
            p99_us: int("p99_us", l.p99_us),
            p999_us: int("p999_us", l.p999_us),
            max_us: int("max_us", l.max_us),
        }
    }
}

/// One described failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureExample {
    pub kind: FailureKind,
    /// Operation name of the failed request.
    pub operation: String,
    /// Status and body excerpt, error text, or first JSON difference.
    pub detail: String,
}

/// How a server answered persisted queries (see `LoadResult::persisted`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersistedCounts {
    pub hits: u64,
    pub misses: u64,
}

/// Counts of one operation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OperationCounts {
    pub requests: u64,
    pub ok: u64,
    pub failures: u64,
    /// Latency of this operation's answers (as `LoadResult::latency`), when the load sent
    /// more than one operation or an incremental one: operations of one mix compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencySummary>,
    /// Incremental operations: time to the first part (as `LoadResult::first_part`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_part: Option<LatencySummary>,
}

/// One second of the measured window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SecondSample {
    /// Seconds since the window start (this sample covers [t_s, t_s + 1)).
    pub t_s: u64,
    pub requests: u64,
    pub ok: u64,
    pub failures: u64,
    /// Median latency of requests sent in this second (2 significant figures).
    pub p50_us: u64,
    /// 99th percentile latency of requests sent in this second (2 significant figures).
    pub p99_us: u64,
}

/// The connections of the run, and the spread of the load over them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConnectionSpread {
    /// Connections the schedule asked for: closed model, the most active at once; open
    /// model, the pool's limit.
    #[serde(default)]
    pub planned: u64,
    /// Closed model: connections already open when the load began. They are all opened
    /// before it (bounded by the request timeout), so a slow accept queue delays the start
    /// instead of eating into the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub established_at_start: Option<u64>,
    /// Closed model with priming (`LoadPlan::prime`): connections whose first request was
    /// answered before the load began (the rest connect again when the load starts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primed: Option<u64>,
    /// Closed model with a duration window: connections that were meant to be active in
    /// the window but completed no request in it (never connected, or stuck).
    #[serde(default)]
    pub unused: u64,
    /// Connections (slots) that completed at least one request in the window.
    pub connections_used: u64,
    /// Highest per-connection p99 latency (per-connection histograms are 1 significant
    /// figure, so about 6% resolution).
    pub slowest_connection_p99_us: u64,
    /// Median of the per-connection p99 latencies.
    pub median_connection_p99_us: u64,
    /// Fewest requests completed by one used connection.
    pub min_connection_requests: u64,
    /// Most requests completed by one connection.
    pub max_connection_requests: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unmeasured_figure_is_null_in_json_and_comes_back_unmeasured() {
        let l = LatencySummary {
            count: 3,
            mean_us: 4960.0,
            max_us: 9000,
            unmeasured: vec!["p99_us".into(), "stdev_us".into()],
            ..Default::default()
        };
        let v = serde_json::to_value(&l).unwrap();
        assert_eq!(v["p99_us"], serde_json::Value::Null);
        assert_eq!(v["stdev_us"], serde_json::Value::Null);
        assert_eq!(v["p50_us"], 0);
        assert_eq!(v["mean_us"], 4960.0);
        let back: LatencySummary = serde_json::from_value(v).unwrap();
        assert!(!back.measured("p99_us") && back.measured("p50_us"));
        assert_eq!(back.max_us, 9000);
        // A file written before the field existed reads as all measured.
        let old = serde_json::json!({"count": 1, "mean_us": 1.0, "stdev_us": 0.0, "min_us": 1,
            "p50_us": 1, "p90_us": 1, "p95_us": 1, "p99_us": 1, "p999_us": 1, "max_us": 1});
        let old: LatencySummary = serde_json::from_value(old).unwrap();
        assert!(old.unmeasured.is_empty());
    }
}
