//! Reports: what gqlbench writes about a run or a comparison. `export` is the seam (the
//! `Exporter` trait and the `ExportManager` that writes each output where it goes); each
//! format is one file beside it: `terminal`, `markdown`, `json`, `csv`, and `html` (a
//! folder: the page, its charts and their geometry). This file holds the
//! table data every format draws on: the main table's rows, the verdict and notes under it,
//! and the extra tables (`extras`) of the scenarios that measure more; `provenance` and
//! `skipped` hold the lines around them; `cost` the efficiency and cost section. None of it measures anything: every cell comes
//! from the one result model (`results.rs`).
pub mod comparison;
pub mod cost;
pub mod csv;
pub mod export;
pub mod html;
pub mod json;
pub mod markdown;
pub mod precision;
pub mod provenance;
pub mod skipped;
pub mod terminal;
#[cfg(test)]
mod tests;

use crate::results::{ScenarioResult, TargetResult};
pub use crate::units::{fmt_bytes, fmt_cpus, fmt_ms, fmt_rps, snake_name, UNMEASURED};
pub use crate::view::cells::{not_installed, validity};
pub use crate::view::Table as ExtraTable;
pub use csv::{chart_files, Csv};
pub use export::{Dest, Document, ExportManager, Exporter, Output};
pub use html::Html;
pub use json::Json;
pub use markdown::Markdown;
pub use provenance::{load_line, ops_line, provenance_lines};
pub use skipped::{not_installed_lines, not_run_line};
pub use terminal::Terminal;

/// How to read a report's figures, said once under its provenance (report.md, report.html).
pub const READING_GUIDE: &str =
    "req/s is the center (geometric mean) of the counted trials with its 95% t interval; \
\"± of 95% CI\" is the interval's half-width against the precision asked for, and why the rounds \
stopped when it is wider; CV is the coefficient of variation of req/s across trials. A fastest \
target is named only when the interval of its margin over the runner-up, paired round by round, \
excludes 0. Latency percentiles come from all valid trials' histograms merged. CPU is the \
target's process tree in % of one core over the measured window. A row with any failed \
response, a crash or a saturated generator is never ranked; caveats (unsteady, interference) \
are named but do not unrank it. How a verdict is reached: docs/method.md; field meanings: \
docs/results.md.";

pub const VERSIONS_HEADERS: [&str; 8] = [
    "target",
    "kind",
    "package",
    "version",
    "runtime",
    "settings",
    "notes",
    "ready (s)",
];

/// Each measured target's kind, package, version, fairness-relevant settings and start-up
/// time: the "target versions and settings" table under every scenario.
pub fn versions_rows(s: &ScenarioResult) -> Vec<[String; 8]> {
    s.targets
        .iter()
        .filter(|t| !not_installed(t))
        .map(|t| {
            [
                t.name.clone(),
                t.kind.label().to_string(),
                t.package.clone().unwrap_or_else(|| "-".into()),
                t.version.clone().unwrap_or_else(|| "-".into()),
                t.runtime.clone().unwrap_or_else(|| "-".into()),
                t.settings.summary(),
                t.settings.notes.clone(),
                t.ready_s
                    .map(|x| format!("{x:.2}"))
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect()
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
        Some(r) if !r.starts_with("node ") => format!("{} ({r})", t.name),
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

/// "fastest: X, +N% over Y (95% CI ...)" only when the interval of the margin excludes 0;
/// otherwise why no single fastest is named.
pub fn verdict(s: &ScenarioResult) -> String {
    let Some(r) = &s.ranking else {
        if crate::summary::fixed_rate(s) {
            return "no throughput ranking: at a fixed arrival rate every target that keeps up serves the rate; compare latency".into();
        }
        return "no ranking: fewer than two valid, unsaturated targets (baselines are not ranked)"
            .into();
    };
    let ci = format!(
        "95% CI {:+.1}% to {:+.1}%",
        r.margin_ci_pct.0, r.margin_ci_pct.1
    );
    if r.significant {
        return format!(
            "fastest: {}, {:+.1}% over {} ({ci}, paired over {} rounds)",
            r.fastest, r.margin_pct, r.runner_up, r.min_trials
        );
    }
    let top = r.pairs.first().map(|p| p.state.as_str());
    if (r.min_trials as usize) < crate::stats::MIN_TRIALS {
        format!(
            "no fastest named: {} leads {} by {:+.1}%, but {} trial(s) are too few to judge; use --trials {} or more",
            r.fastest,
            r.runner_up,
            r.margin_pct,
            r.min_trials,
            crate::stats::MIN_TRIALS
        )
    } else if top == Some("equivalent") {
        format!(
            "no fastest named: {} and {} are equivalent ({:+.1}%, {ci}: within ±{}%)",
            r.fastest,
            r.runner_up,
            r.margin_pct,
            precision::pct(
                s.rounds
                    .as_ref()
                    .and_then(|x| x.target_pct)
                    .unwrap_or_default()
            )
        )
    } else {
        format!(
            "no fastest named: {} leads {} by {:+.1}%, but the {ci} includes 0 (within noise)",
            r.fastest, r.runner_up, r.margin_pct
        )
    }
}

/// Problems worth a line under the table: failures, saturation, crashes.
pub fn notes(s: &ScenarioResult) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(f) = &s.catalogue_fault {
        out.push(format!("CATALOGUE FAULT — {f}"));
    }
    out.extend(precision::pairs_note(s));
    out.extend(precision::rounds_note(s));
    out.extend(precision::sentinel_note(s));
    for t in s.targets.iter().filter(|t| !not_installed(t)) {
        out.extend(precision::trial_notes(t));
    }
    for t in s.targets.iter().filter(|t| !not_installed(t)) {
        let ext: Vec<String> = t
            .trials
            .iter()
            .filter_map(|x| {
                x.load
                    .window_extended_s
                    .map(|e| format!("trial {}: +{e:.1} s", x.trial))
            })
            .collect();
        if !ext.is_empty() {
            out.push(format!(
                "{}: measured window extended so every connection completed a request in it ({}; planned {} s): its requests take about as long as the window",
                t.name,
                ext.join(", "),
                s.duration_s
            ));
        }
    }
    for t in s.targets.iter().filter(|t| !not_installed(t)) {
        if let Some(p) = &t.problem {
            out.push(format!("{}: {} — {}", t.name, t.status.label(), p));
        }
        if let Some(d) = t.depth_check.as_ref().filter(|d| !d.passed()) {
            out.push(format!(
                "{}: DEPTH LIMIT CHECK FAILED — depth {}: {}; depth {}: {}",
                t.name,
                d.limit,
                d.at_limit_detail.as_deref().unwrap_or("answered"),
                d.limit + 1,
                d.over_limit_detail
            ));
        }
        if let Some(l) = t
            .summary
            .as_ref()
            .and_then(|x| x.leak.as_ref())
            .filter(|l| l.verdict == "growing")
        {
            out.push(format!("{}: memory leak suspected — {}", t.name, l.detail));
        }
        let mut seen = std::collections::BTreeSet::new();
        for tr in &t.trials {
            for p in &tr.problems {
                if seen.insert(format!("problem-{p}")) {
                    out.push(format!("{} (trial {}): {p}", t.name, tr.trial));
                }
            }
            // Unsteady warm-ups are summed up per target by `precision::trial_notes`.
            for f in tr.saturation.iter().filter(|f| f.kind != "unsteady") {
                if seen.insert(f.kind.clone()) {
                    let what = if crate::saturation::is_caveat(f) {
                        "caveat"
                    } else {
                        "saturation"
                    };
                    out.push(format!(
                        "{} (trial {}): {what} {}: {}",
                        t.name, tr.trial, f.kind, f.detail
                    ));
                }
            }
            for ex in tr.load.failure_examples.iter().take(1) {
                if seen.insert(format!("ex-{}", crate::results::kind_name(ex.kind))) {
                    out.push(format!(
                        "{} (trial {}): {} on {}: {}",
                        t.name,
                        tr.trial,
                        crate::results::kind_name(ex.kind),
                        ex.operation,
                        ex.detail
                    ));
                }
            }
        }
    }
    out
}

/// Throughput scenarios have the main req/s table; cold starts and subscriptions have
/// only their own table.
pub fn has_main_table(s: &ScenarioResult) -> bool {
    s.kind == crate::results::ScenarioKind::Load
}

pub fn extra_tables(s: &ScenarioResult) -> Vec<ExtraTable> {
    let mut out = crate::kinds::tables(s);
    let fed: Vec<&TargetResult> = s
        .targets
        .iter()
        .filter(|t| t.trials.iter().any(|x| x.upstream.is_some()))
        .collect();
    if !fed.is_empty() {
        let rows = fed
            .iter()
            .map(|t| {
                let last = t.trials.iter().rev().find_map(|x| x.upstream.as_ref());
                vec![
                    t.name.clone(),
                    t.settings.summary(),
                    t.summary
                        .as_ref()
                        .and_then(|x| x.upstream_calls_per_request)
                        .map(|c| format!("{c:.2}"))
                        .unwrap_or_else(|| "-".into()),
                    last.map(|u| {
                        u.calls
                            .iter()
                            .map(|(k, v)| format!("{k} {v}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default(),
                    t.summary
                        .as_ref()
                        .and_then(|x| x.subgraph_cpu_pct)
                        .map(|c| {
                            format!(
                                "{c:.0} (of {} core(s))",
                                last.map(|u| u.subgraph_cores).unwrap_or(1)
                            )
                        })
                        .unwrap_or_else(|| "-".into()),
                    last.map(|u| crate::units::fmt_bytes_or_unmeasured(u.subgraph_rss_peak_bytes))
                        .unwrap_or_default(),
                ]
            })
            .collect();
        out.push(ExtraTable {
            title: "gateways: settings and upstream traffic".into(),
            headers: [
                "target",
                "settings",
                "subgraph calls per request",
                "calls by subgraph (last trial)",
                "subgraph CPU %",
                "subgraph RSS peak",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        });
    }
    if let Some(t) = first_request_table(s) {
        out.push(t);
    }
    out
}

/// Per gateway and operation, its first request against the same request repeated right
/// after (from the answer checks before any load): what a cold query-plan cache costs.
fn first_request_table(s: &ScenarioResult) -> Option<ExtraTable> {
    let ms = |x: f64| format!("{:.1}", x * 1e3);
    let rows: Vec<Vec<String>> = s
        .targets
        .iter()
        .filter(|t| t.kind == crate::catalog::TargetKind::Gateway)
        .flat_map(|t| {
            t.checks.iter().filter_map(move |c| {
                let (first, warm) = (c.first_s?, c.warm_s?);
                Some(vec![
                    t.name.clone(),
                    c.operation.clone(),
                    ms(first),
                    ms(warm),
                    ms(first - warm),
                ])
            })
        })
        .collect();
    (!rows.is_empty()).then(|| ExtraTable {
        title: "gateways: first request (cold plan cache) against its repeats".into(),
        headers: [
            "target",
            "operation",
            "first request ms",
            "repeated ms (median of 5)",
            "first minus repeated ms",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
