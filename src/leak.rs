//! The leak verdict of a long run: a straight line through the target's memory samples over
//! the measured window (warm-up excluded). Memory that keeps growing along a line that fits
//! well is a suspected leak; a sawtooth around a level (the garbage collector at work) is not.
use crate::catalog::scenario::LongRunSpec;
use crate::results::{LeakVerdict, TargetResult};

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
