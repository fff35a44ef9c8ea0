//! The main table of a throughput scenario, shared by the terminal and markdown exporters:
//! its headers and one row of cells per target (ranked rows first), each cell a string.
use super::precision;
use crate::results::{ScenarioResult, TargetResult};
use crate::sys::runtime::Runtime;
use crate::units::{fmt_bytes, fmt_rps, UNMEASURED};
use crate::view::cells::{not_installed, validity};

/// Throughput scenarios have the main req/s table; cold starts and subscriptions have
/// only their own table.
pub fn has_main_table(s: &ScenarioResult) -> bool {
    s.kind.measures_throughput()
}

/// One row of a scenario table, as strings, shared by the terminal and markdown exporters.
pub struct Row {
    pub target: String,
    pub rps: String,
    pub precision: String,
    pub cv: String,
    pub avg: String,
    pub p50: String,
    pub p95: String,
    pub p99: String,
    pub errors: String,
    pub cpu: String,
    pub rss: String,
    pub gc: String,
    pub validity: String,
}

pub const HEADERS: [&str; 13] = [
    "target",
    "req/s [95% CI]",
    "± of 95% CI",
    "CV",
    "avg ms",
    "p50 ms",
    "p95 ms",
    "p99 ms",
    "errors",
    "CPU %",
    "RSS idle / peak / avg",
    "GC (n, ms)",
    "validity",
];

impl Row {
    pub fn cells(&self) -> [&str; 13] {
        [
            &self.target,
            &self.rps,
            &self.precision,
            &self.cv,
            &self.avg,
            &self.p50,
            &self.p95,
            &self.p99,
            &self.errors,
            &self.cpu,
            &self.rss,
            &self.gc,
            &self.validity,
        ]
    }
}

/// A row's target: its name, and the runtime when it is not Node's (which the provenance
/// names once): "graphql-yoga-bun (bun 1.4.4)".
fn label(t: &TargetResult) -> String {
    match t.runtime.as_deref() {
        // Node is the suite's default: only other runtimes are named beside the target.
        Some(r) if Runtime::of_label(r) != Some(Runtime::Node) => format!("{} ({r})", t.name),
        _ => t.name.clone(),
    }
}

pub fn rows(s: &ScenarioResult) -> Vec<Row> {
    let mut targets: Vec<&TargetResult> = s.targets.iter().filter(|t| !not_installed(t)).collect();
    // Ranked rows first by median req/s, then the rest in catalogue order.
    targets.sort_by(|a, b| {
        let key = |t: &TargetResult| {
            (
                !crate::summary::rankable(t),
                -(t.summary
                    .as_ref()
                    .map(|x| x.rps.center_or_median())
                    .unwrap_or(-1.0)),
            )
        };
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    targets
        .into_iter()
        .map(|t| {
            let dash = || "-".to_string();
            // A figure gqlbench tried to read and could not is "unmeasured"; one it never
            // measures (an imported run's vitals, a target never started) is "-".
            let sampled = t.trials.iter().any(|x| !x.vitals.cpu_source.is_empty());
            let missing = |tried: bool| {
                if tried {
                    UNMEASURED.to_string()
                } else {
                    dash()
                }
            };
            let idle = t
                .rss_idle_bytes
                .map(fmt_bytes)
                .unwrap_or_else(|| missing(t.ready_s.is_some()));
            // Nothing measured, or only a trial cut short (summary::used_trials): no figure
            // of the target to show, only the failures if any.
            match t.summary.as_ref().filter(|x| x.rps.n > 0) {
                None => Row {
                    target: label(t),
                    rps: dash(),
                    precision: dash(),
                    cv: dash(),
                    avg: dash(),
                    p50: dash(),
                    p95: dash(),
                    p99: dash(),
                    errors: t.summary.as_ref().map(errors_cell).unwrap_or_else(dash),
                    cpu: dash(),
                    rss: idle,
                    gc: dash(),
                    validity: validity(t),
                },
                Some(x) => Row {
                    target: label(t),
                    rps: if x.rps.n > 1 {
                        format!(
                            "{} [{} – {}]",
                            fmt_rps(x.rps.center_or_median()),
                            fmt_rps(x.rps.ci_low),
                            fmt_rps(x.rps.ci_high)
                        )
                    } else {
                        format!("{} (1 trial)", fmt_rps(x.rps.median))
                    },
                    precision: precision::cell(s, t),
                    cv: format!("{:.1}%", x.rps.cv * 100.0),
                    // A figure the source did not give (an imported k6 summary) is "-".
                    avg: crate::units::fmt_latency(&x.latency, "mean_us", x.latency.mean_us),
                    p50: crate::units::fmt_latency(&x.latency, "p50_us", x.latency.p50_us as f64),
                    p95: crate::units::fmt_latency(&x.latency, "p95_us", x.latency.p95_us as f64),
                    p99: crate::units::fmt_latency(&x.latency, "p99_us", x.latency.p99_us as f64),
                    errors: errors_cell(x),
                    cpu: x
                        .cpu_avg_pct
                        .map(|c| format!("{c:.0}"))
                        .unwrap_or_else(|| missing(sampled)),
                    rss: format!(
                        "{idle} / {} / {}",
                        x.rss_peak_bytes
                            .map(fmt_bytes)
                            .unwrap_or_else(|| missing(sampled)),
                        x.rss_avg_bytes
                            .map(fmt_bytes)
                            .unwrap_or_else(|| missing(sampled))
                    ),
                    gc: x
                        .gc
                        .as_ref()
                        .map(|g| format!("{}, {:.0}", g.count, g.total_ms))
                        .unwrap_or_else(dash),
                    validity: validity(t),
                },
            }
        })
        .collect()
}

/// Failed responses over all trials, by kind: "0" or "12 (timeout 10, closed 2)".
fn errors_cell(x: &crate::results::TargetSummary) -> String {
    if x.failures == 0 {
        return "0".into();
    }
    format!(
        "{} ({})",
        x.failures,
        x.failures_by_kind
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}
