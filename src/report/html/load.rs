//! The charts of every throughput scenario (those with the main req/s table), from the
//! trials alone: req/s per target with its interval and trials; the latency distribution
//! of the merged histograms; throughput and p99 second by second over each trial; the
//! target's CPU and memory second by second. A trial measured alternating with others had
//! load only in its own slices: its throughput is drawn slice by slice (its rate while it
//! had load), its p99 over the seconds that held its requests, and its CPU, read per
//! second of wall time, not at all. A kind's own charts (sweeps, overheads) are its `html`
//! hook's.
use super::{color_of, legend, Figure};
use crate::catalog::scenario::Model;
use crate::results::{ScenarioResult, TargetResult, TrialResult};
use crate::summary::{counted_trials, merged_latency, used_trials};
use crate::view::intervals::{Intervals, Row};
use crate::view::scale;
use crate::view::xy::{Marker, Series, XAxis, Xy, YAxis};

pub fn figures(s: &ScenarioResult) -> Vec<Figure> {
    if !crate::report::has_main_table(s) {
        return Vec::new();
    }
    [
        throughput(s),
        latency(s),
        per_second(s, PerSecond::Throughput),
        per_second(s, PerSecond::P99),
        per_second(s, PerSecond::Cpu),
        per_second(s, PerSecond::Memory),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The targets in the main table's order (ranked first, by req/s).
fn in_table_order(s: &ScenarioResult) -> Vec<&TargetResult> {
    crate::report::rows(s)
        .iter()
        .filter_map(|r| s.targets.iter().find(|t| t.name == r.target))
        .collect()
}

/// req/s per target: the center with its 95% t interval, and each counted trial.
fn throughput(s: &ScenarioResult) -> Option<Figure> {
    // At one fixed arrival rate every target that keeps up serves the rate.
    if crate::summary::fixed_rate(s) {
        return None;
    }
    let rows: Vec<Row> = in_table_order(s)
        .into_iter()
        .filter_map(|t| {
            let x = t.summary.as_ref()?;
            Some(Row {
                label: t.name.clone(),
                color: color_of(s, t),
                center: x.rps.center_or_median(),
                interval: (x.rps.n > 1).then_some((x.rps.ci_low, x.rps.ci_high)),
                samples: x.rps.samples.clone(),
            })
        })
        .collect();
    let chart = Intervals {
        x_desc: "requests per second".into(),
        from_zero: true,
        zero_line: false,
        rows,
    };
    Figure::drawn(crate::view::Figure::of(
        "throughput",
        "Throughput: req/s per target",
        "Each row is a target in the table's order: the dot is the center (geometric mean) of its counted trials, the whisker its 95% t interval, never narrower than the count's step (none with one trial), the rings each trial's req/s (summary.rps: center, ci_low, ci_high, samples). Invalid rows are drawn too: the table says which rows are ranked.",
        legend(s, |t| t.summary.is_some()),
        chart,
    ))
}

/// The latency distribution of each target's merged histograms, on a log scale.
fn latency(s: &ScenarioResult) -> Option<Figure> {
    let mut chart = Xy::new(
        "percentile",
        "latency (ms, log scale)",
        XAxis::Percentile,
        YAxis::Log,
    );
    let mut drawn = Vec::new();
    for t in &s.targets {
        let h = merged_latency(&used_trials(t));
        if h.is_empty() {
            continue;
        }
        let pts = scale::nines_points(scale::nines_extent(h.len()))
            .into_iter()
            .map(|x| {
                let us = h.value_at_quantile(scale::quantile_at(x));
                (x, us as f64 / 1000.0)
            })
            .collect();
        chart.series.push(Series::line(color_of(s, t), pts));
        drawn.push(t.name.clone());
    }
    let open = s.load.model == Model::Open;
    Figure::drawn(crate::view::Figure::of(
        "latency",
        "Latency distribution (merged histograms)",
        format!(
            "Latency at each percentile from the HDR histograms of every trial the summary counts, merged (never averaged percentiles): trials[].load.latency_hist, the same histograms as the table's p50/p95/p99. The axis gives 90%, 99% and 99.9% equal room; each curve ends where its sample count stops resolving the tail. {}",
            if open {
                "Open model: latency from each request's intended send time (coordinated-omission free)."
            } else {
                "Closed model: latency from each request's actual send time."
            }
        ),
        legend(s, |t| drawn.contains(&t.name)),
        chart,
    ))
}

#[derive(Clone, Copy, PartialEq)]
enum PerSecond {
    Throughput,
    P99,
    Cpu,
    Memory,
}

impl PerSecond {
    /// The points of one trial: (seconds into the window, value).
    fn points(self, tr: &TrialResult) -> Vec<(f64, f64)> {
        let alternated = tr.alternated.is_some_and(|n| n >= 2);
        match self {
            PerSecond::Throughput if alternated => own_slices(tr),
            // Its second holds a share of its own slices that varies second to second.
            PerSecond::Cpu if alternated => Vec::new(),
            PerSecond::Throughput => tr
                .load
                .series
                .iter()
                .map(|p| {
                    // The last second of a window that is not whole seconds is partial:
                    // its requests are a rate over the part it covers.
                    let covered = (tr.load.elapsed_s - p.t_s as f64).clamp(0.05, 1.0);
                    (p.t_s as f64, p.requests as f64 / covered)
                })
                .collect(),
            PerSecond::P99 => tr
                .load
                .series
                .iter()
                .filter(|p| p.requests > 0 || !alternated)
                .map(|p| (p.t_s as f64, p.p99_us as f64 / 1000.0))
                .collect(),
            PerSecond::Cpu => tr
                .vitals
                .series
                .iter()
                .filter_map(|p| Some((p.t_s, p.cpu_pct?)))
                .collect(),
            PerSecond::Memory => tr
                .vitals
                .series
                .iter()
                .filter_map(|p| Some((p.t_s, p.rss_bytes? as f64 / (1024.0 * 1024.0))))
                .collect(),
        }
    }
}

/// An alternating trial's rate in each of its own whole slices (answers over the slice's
/// counted time), at the slice's start in seconds from its first whole slice; the slices
/// cut short at the window's edges are left out, as the blocks' rates leave them.
fn own_slices(tr: &TrialResult) -> Vec<(f64, f64)> {
    let whole: Vec<_> = tr
        .load
        .slices
        .iter()
        .zip(crate::summary::standing::whole_slices(tr))
        .filter_map(|(x, whole)| whole.then_some(x))
        .collect();
    let Some(t0) = whole.iter().map(|x| x.start_ms).reduce(f64::min) else {
        return Vec::new();
    };
    let mut pts: Vec<(f64, f64)> = whole
        .iter()
        .map(|x| {
            (
                (x.start_ms - t0) / 1000.0,
                x.ok as f64 / (x.counted_ms / 1000.0),
            )
        })
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// One line per counted trial of every target, colored by target.
fn per_second(s: &ScenarioResult, what: PerSecond) -> Option<Figure> {
    let (kind, title, y_desc, y, about) = match what {
        PerSecond::Throughput => (
            "throughput-per-second",
            "Throughput second by second, each trial",
            "responses per second",
            YAxis::Linear { from_zero: true },
            "Responses received per second of the measured window (warm-up excluded), one line per counted trial: trials[].load.series[].requests, by send time; a last, partial second is scaled to the part of it the window covers. A dip or a climb shows a trial that was not steady.",
        ),
        PerSecond::P99 => (
            "p99-per-second",
            "p99 latency second by second, each trial",
            "p99 latency (ms, log scale)",
            YAxis::Log,
            "The 99th percentile of the requests sent in each second of the window (two significant figures), one line per counted trial: trials[].load.series[].p99_us.",
        ),
        PerSecond::Cpu => (
            "cpu",
            "Target CPU over time, each trial",
            "CPU (% of one core)",
            YAxis::Linear { from_zero: true },
            "The CPU of the target's whole process tree over each second of the window, in % of one core (100 = one core busy), one line per counted trial: trials[].vitals.series[].cpu_pct, deltas of the cgroup's or /proc's counters (vitals.cpu_source), never a lifetime average.",
        ),
        PerSecond::Memory => (
            "memory",
            "Target memory over time, each trial",
            "resident memory (MiB)",
            YAxis::Linear { from_zero: false },
            "Resident memory (RSS) of the target's process tree at each second of the window, one line per counted trial: trials[].vitals.series[].rss_bytes (sampled every 200 ms, one point a second kept).",
        ),
    };
    let alternated = s
        .targets
        .iter()
        .flat_map(|t| &t.trials)
        .any(|x| x.alternated.is_some_and(|n| n >= 2));
    let about = match what {
        _ if !alternated => about.to_string(),
        PerSecond::Throughput => format!("{about} Targets measured alternating in slices had load only in their own: each point is one own slice's rate (its answers over its counted time, trials[].load.slices[]), at the slice's start, so the line shows the rate while the target had load, not the idle stretches between."),
        PerSecond::P99 => format!("{about} Targets measured alternating: only the seconds that held their own requests."),
        PerSecond::Cpu => format!("{about} Trials measured alternating in slices are not drawn: their CPU is read per second of wall time, which holds a share of their own slices that varies from second to second (the table's CPU % is over their own slices)."),
        PerSecond::Memory => about.to_string(),
    };
    let mut chart = Xy::new(
        "seconds into the measured window",
        y_desc,
        XAxis::Linear { from_zero: true },
        y,
    );
    let mut drawn = Vec::new();
    for t in &s.targets {
        for tr in counted_trials(t) {
            let pts = what.points(tr);
            if pts.is_empty() {
                continue;
            }
            // A line needs two points; a one-second window is a dot per trial.
            let marker = if pts.len() < 3 {
                Marker::Dot
            } else {
                Marker::None
            };
            chart
                .series
                .push(Series::line(color_of(s, t), pts).marked(marker));
            if !drawn.contains(&t.name) {
                drawn.push(t.name.clone());
            }
        }
    }
    Figure::drawn(crate::view::Figure::of(
        kind,
        title,
        about,
        legend(s, |t| drawn.contains(&t.name)),
        chart,
    ))
}
