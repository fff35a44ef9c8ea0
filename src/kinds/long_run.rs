//! A long run, a decorating kind: the load runs long enough to see memory move, the
//! target's memory and GC are kept as series, and a straight line through the memory
//! samples of the measured window gives a leak verdict. Memory that keeps growing along a
//! line that fits well is a suspected leak (a finding, not a failure); a sawtooth around a
//! level (the garbage collector at work) is not.
use std::sync::Arc;

use anyhow::Result;

use serde::{Deserialize, Serialize};

use crate::kind::ScenarioPlan;
use crate::kind::{Kind, KindDef, ResolveCx};
use crate::results::{Key, LeakVerdict, ScenarioResult, TargetResult};
use crate::view::Table;

/// `long_run` of a scenario: the leak thresholds applied.
pub const SPEC: Key<LongRunSpec> = Key::new("long_run");

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

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    charts: |s| {
        memory_csv(s)
            .map(|c| (format!("memory-{}.csv", s.name), c))
            .into_iter()
            .collect()
    },
    html,
    list: |_, _, line| format!("{line}, long run"),
    not_in_k6: None,
    ..KindDef::decorator("long_run", resolve)
};

/// The leak thresholds around the kind this decorates.
#[derive(Debug)]
pub struct LongRun {
    pub spec: LongRunSpec,
    inner: Arc<dyn Kind>,
}

fn resolve(cx: &ResolveCx<'_>, inner: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let (Some(spec), Some(inner)) = (cx.spec::<LongRunSpec>("long_run")?, inner) else {
        return Ok(None);
    };
    Ok(Some(Arc::new(LongRun { spec, inner })))
}

impl Kind for LongRun {
    fn adaptive_rounds(&self) -> bool {
        false
    }

    fn inner(&self) -> Option<&dyn Kind> {
        Some(self.inner.as_ref())
    }

    fn describe(&self, s: &mut ScenarioResult) {
        self.inner.describe(s);
        s.by_kind.set(&SPEC, &self.spec);
    }

    fn summarize(&self, sp: &ScenarioPlan, tr: &mut TargetResult) {
        self.inner.summarize(sp, tr);
        let leak = judge(&self.spec, tr);
        if let Some(sum) = tr.summary.as_mut() {
            sum.leak = leak;
        }
    }
}

/// Fewer samples than this (200 ms apart) cannot tell a trend from GC noise.
const MIN_SAMPLES: u32 = 10;

/// Judge the longest valid trial of a target (a long run usually has one).
pub fn judge(spec: &LongRunSpec, t: &TargetResult) -> Option<LeakVerdict> {
    let tr = t
        .trials
        .iter()
        .filter(|x| x.valid && x.vitals.memory_trend.is_some())
        .max_by(|a, b| a.load.elapsed_s.total_cmp(&b.load.elapsed_s))?;
    let trend = tr.vitals.memory_trend.clone()?;
    let mib = 1024.0 * 1024.0;
    let growth = trend.fit_end_bytes as f64 - trend.fit_start_bytes as f64;
    let need = (spec.leak_min_growth_mib * mib)
        .max(spec.leak_min_growth_pct / 100.0 * trend.fit_start_bytes as f64);
    let (verdict, detail) = if trend.samples < MIN_SAMPLES {
        (
            "too_short",
            format!(
                "{} samples over {:.1} s: too few to judge (run longer)",
                trend.samples, trend.window_s
            ),
        )
    } else if growth >= need && trend.r2 >= spec.leak_min_r2 {
        (
            "growing",
            format!(
                "memory grew {:.1} MiB along a straight line (R² {:.2}) over {:.0} s: at least {:.1} MiB and R² {:.2} mean a suspected leak",
                growth / mib,
                trend.r2,
                trend.window_s,
                need / mib,
                spec.leak_min_r2
            ),
        )
    } else {
        (
            "stable",
            format!(
                "fitted growth {:.1} MiB (R² {:.2}) over {:.0} s, below {:.1} MiB or a poor fit",
                growth / mib,
                trend.r2,
                trend.window_s,
                need / mib
            ),
        )
    };
    Some(LeakVerdict {
        verdict: verdict.into(),
        trend,
        baseline_bytes: t.rss_idle_bytes,
        peak_bytes: tr.vitals.rss_peak_bytes,
        avg_bytes: tr.vitals.rss_avg_bytes,
        detail,
    })
}

/// Long runs: memory baseline/peak/average, GC and the leak verdict with its slope.
fn table(s: &ScenarioResult) -> Option<Table> {
    s.by_kind.has(&SPEC).then_some(())?;
    let rows = s
        .targets
        .iter()
        .filter_map(|t| {
            let sum = t.summary.as_ref()?;
            let leak = sum.leak.as_ref();
            Some(vec![
                t.name.clone(),
                leak.map(|l| crate::units::fmt_bytes_or_unmeasured(l.baseline_bytes))
                    .unwrap_or_else(crate::view::cells::dash),
                leak.map(|l| crate::units::fmt_bytes_or_unmeasured(l.peak_bytes))
                    .unwrap_or_else(crate::view::cells::dash),
                leak.map(|l| crate::units::fmt_bytes_or_unmeasured(l.avg_bytes))
                    .unwrap_or_else(crate::view::cells::dash),
                sum.gc
                    .as_ref()
                    .map(|g| {
                        // The probe's max is lifetime-wide: shown only when set in the window.
                        let max = if g.max_ms > 0.0 {
                            format!(" (max {:.1} ms)", g.max_ms)
                        } else {
                            String::new()
                        };
                        format!("{} / {:.0} ms{max}", g.count, g.total_ms)
                    })
                    .unwrap_or_else(crate::view::cells::dash),
                leak.map(|l| {
                    format!(
                        "{:+.2} MiB/min (R² {:.2})",
                        l.trend.slope_mib_per_min, l.trend.r2
                    )
                })
                .unwrap_or_else(crate::view::cells::dash),
                leak.map(|l| match l.verdict.as_str() {
                    "growing" => "GROWING: leak suspected".to_string(),
                    v => v.replace('_', " "),
                })
                .unwrap_or_else(crate::view::cells::dash),
            ])
        })
        .collect();
    Some(Table {
        title: format!(
            "long run: memory over the measured window (series per second in results.json and memory-{}.csv)",
            s.name
        ),
        headers: [
            "target",
            "RSS baseline (idle)",
            "peak",
            "average",
            "GC pauses / total",
            "memory trend",
            "leak verdict",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Long runs as CSV: one line per target, trial and second.
fn memory_csv(s: &ScenarioResult) -> Option<String> {
    s.by_kind.has(&SPEC).then_some(())?;
    let mut out = String::from("target,trial,t_s,cpu_pct,rss_mib,gc_count,gc_total_ms\n");
    for t in &s.targets {
        for tr in &t.trials {
            for p in &tr.vitals.series {
                out.push_str(&format!(
                    "{},{},{:.1},{},{},{},{}\n",
                    t.name,
                    tr.trial,
                    p.t_s,
                    // A figure not read at that second is written as such, not as 0.
                    p.cpu_pct
                        .map(|c| format!("{c:.1}"))
                        .unwrap_or_else(|| crate::units::UNMEASURED.into()),
                    p.rss_bytes
                        .map(|b| format!("{:.2}", b as f64 / (1024.0 * 1024.0)))
                        .unwrap_or_else(|| crate::units::UNMEASURED.into()),
                    p.gc_count.map(|c| c.to_string()).unwrap_or_default(),
                    p.gc_total_ms.map(|c| format!("{c:.1}")).unwrap_or_default()
                ));
            }
        }
    }
    Some(out)
}

/// The long run in report.html: the memory of the trial each leak verdict judged, with the
/// straight line fitted through it.
fn html(s: &ScenarioResult) -> Vec<crate::view::Figure> {
    use crate::view::xy::{Series, XAxis, Xy, YAxis};
    use crate::view::{color_of, legend, Figure};
    if !s.by_kind.has(&SPEC) {
        return Vec::new();
    }
    let mib = 1024.0 * 1024.0;
    let mut chart = Xy::new(
        "seconds into the measured window",
        "resident memory (MiB)",
        XAxis::Linear { from_zero: true },
        YAxis::Linear { from_zero: false },
    );
    let mut drawn = Vec::new();
    for t in &s.targets {
        let Some(leak) = t.summary.as_ref().and_then(|x| x.leak.as_ref()) else {
            continue;
        };
        // The trial the verdict judged is the one whose fitted line it carries.
        let Some(tr) = t
            .trials
            .iter()
            .find(|x| x.vitals.memory_trend.as_ref() == Some(&leak.trend))
        else {
            continue;
        };
        let c = color_of(s, t);
        let pts: Vec<(f64, f64)> = tr
            .vitals
            .series
            .iter()
            .filter_map(|p| Some((p.t_s, p.rss_bytes? as f64 / mib)))
            .collect();
        if pts.is_empty() {
            continue;
        }
        chart.series.push(Series::line(c, pts));
        let mut fit = Series::line(
            c,
            vec![
                (0.0, leak.trend.fit_start_bytes as f64 / mib),
                (leak.trend.window_s, leak.trend.fit_end_bytes as f64 / mib),
            ],
        );
        fit.dashed = true;
        chart.series.push(fit);
        drawn.push(t.name.clone());
    }
    vec![Figure::of(
        "memory-trend",
        "Long run: memory and its fitted trend",
        "Resident memory of the target's process tree second by second over the trial the leak verdict judged (trials[].vitals.series[].rss_bytes), and, dashed, the least-squares line through every 200 ms sample of that window (vitals.memory_trend: fit_start_bytes to fit_end_bytes). A line that climbs and fits well is a suspected leak (the table gives the slope, R² and verdict); a sawtooth around a level is the garbage collector at work.",
        legend(s, |t| drawn.contains(&t.name)),
        chart,
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::MemoryTrend;

    fn target_with(trend: MemoryTrend) -> TargetResult {
        let mut t: TargetResult = serde_json::from_value(serde_json::json!({
            "name": "t", "kind": "server", "package": null, "version": null,
            "settings": {}, "status": "ok", "problem": null, "log_tail": null,
            "log_file": null, "ready_s": null, "rss_idle_bytes": 50_000_000u64,
            "checks": [], "trials": [], "summary": null
        }))
        .unwrap();
        let mut tr: crate::results::TrialResult = serde_json::from_value(serde_json::json!({
            "trial": 1, "position": 1, "started_at": "x",
            "load": serde_json::to_value(gqlbench_engine::LoadResult::default()).unwrap(),
            "vitals": serde_json::to_value(crate::results::Vitals::default()).unwrap(),
            "generator": serde_json::to_value(crate::results::GeneratorUsage::default()).unwrap(),
            "saturation": [], "valid": true, "problems": []
        }))
        .unwrap();
        tr.vitals.memory_trend = Some(trend);
        t.trials.push(tr);
        t
    }

    fn trend(start_mib: f64, end_mib: f64, r2: f64, samples: u32) -> MemoryTrend {
        let mib = 1024.0 * 1024.0;
        MemoryTrend {
            slope_mib_per_min: (end_mib - start_mib) / 2.0,
            r2,
            fit_start_bytes: (start_mib * mib) as u64,
            fit_end_bytes: (end_mib * mib) as u64,
            window_s: 120.0,
            samples,
        }
    }

    #[test]
    fn growth_along_a_line_is_a_suspected_leak() {
        let spec = LongRunSpec::default();
        let v = judge(&spec, &target_with(trend(100.0, 160.0, 0.95, 600))).unwrap();
        assert_eq!(v.verdict, "growing", "{}", v.detail);
        assert_eq!(v.baseline_bytes, Some(50_000_000));
    }

    #[test]
    fn small_or_noisy_growth_is_stable_and_few_samples_too_short() {
        let spec = LongRunSpec::default();
        // 3 MiB is below the 8 MiB floor.
        let v = judge(&spec, &target_with(trend(100.0, 103.0, 0.99, 600))).unwrap();
        assert_eq!(v.verdict, "stable");
        // Large growth but a poor fit (a sawtooth that happened to end high).
        let v = judge(&spec, &target_with(trend(100.0, 140.0, 0.2, 600))).unwrap();
        assert_eq!(v.verdict, "stable");
        let v = judge(&spec, &target_with(trend(100.0, 200.0, 0.99, 4))).unwrap();
        assert_eq!(v.verdict, "too_short");
    }
}
