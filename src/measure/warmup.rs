//! Warm-up until steady. A JIT-compiled server runs its first second at half speed, and a
//! fixed warm-up either wastes time on a warm target or measures a cold one. So the load
//! runs (discarded) while its throughput is read every quarter second; the warm-up ends
//! when the last second is steady (no trend, spread within a bound), no sooner than the
//! minimum and no later than the maximum. A target that never settles is reported so, and
//! its row flagged, rather than silently averaged.
use std::time::{Duration, Instant};

use gqlbench_engine::{Control, Stop};

use super::trial::MeasureCx;
use crate::plan::load::Load;
use crate::results::WarmupInfo;

/// The least warm-up of a target's first trial (when the profile warms up until steady).
/// With 1 s the detector called a fresh Node process steady while its JIT was still
/// tiering up slowly: in 5 runs of node-baseline (fixed work per request, 5 trials each)
/// the first trial ran 3% below the others every time, and in 8-trial runs of the five
/// servers the first was the lowest of 4 of them (graphql-yoga 3.2k against 4.2-4.5k).
pub const FIRST_MIN: Duration = Duration::from_secs(3);
/// Throughput is read this often.
pub const BUCKET: Duration = Duration::from_millis(250);
/// The buckets that must be steady: the last second.
pub const WINDOW: usize = 4;
/// Spread allowed within them: (max - min) / mean.
pub const SPREAD: f64 = 0.10;
/// Trend allowed within them: the fitted slope, relative to the mean, per second.
pub const TREND: f64 = 0.05;

/// Whether the last `WINDOW` buckets of `series` (req/s per bucket) are steady.
pub fn steady(series: &[f64]) -> bool {
    if series.len() < WINDOW {
        return false;
    }
    let w = &series[series.len() - WINDOW..];
    let n = w.len() as f64;
    let mean = w.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return false;
    }
    let (min, max) = w
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
    if (max - min) / mean > SPREAD {
        return false;
    }
    // Least-squares slope over bucket index, as a share of the mean per second.
    let xm = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in w.iter().enumerate() {
        let dx = i as f64 - xm;
        sxy += dx * (y - mean);
        sxx += dx * dx;
    }
    let per_bucket = sxy / sxx;
    (per_bucket / mean / BUCKET.as_secs_f64()).abs() <= TREND
}

/// Runs `load` (discarded) against `cx`'s session until steady: at least `min`, at most
/// `max`; `own` when it is the target's own warm-up, not the scenario's.
pub fn until_steady<K: ?Sized>(
    cx: &MeasureCx<'_, K>,
    load: &Load,
    min: Duration,
    max: Duration,
    own: bool,
    label: &str,
) -> WarmupInfo {
    let MeasureCx {
        plan,
        ctx,
        sess,
        ops,
        progress,
    } = cx;
    let control = Control::default();
    let eplan = sess.engine_plan(
        load,
        ops,
        plan.isolation.generator.as_ref(),
        Duration::ZERO,
        Stop {
            duration: Some(max),
            max_requests: None,
            extend: None,
        },
    );
    let mut series = Vec::new();
    let mut settled = false;
    let started = Instant::now();
    let mut sent = 0;
    std::thread::scope(|scope| {
        let run = scope.spawn(|| gqlbench_engine::run(&eplan, &control));
        let live = &control.live;
        let mut last = (0u64, 0u64);
        let mut next = None;
        while !run.is_finished() {
            std::thread::sleep(Duration::from_millis(5));
            if ctx.cancelled() {
                control
                    .cancel
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                continue;
            }
            // Buckets start with the window (after the connect phase).
            if live.phase() != gqlbench_engine::Phase::Measure {
                continue;
            }
            let at = *next.get_or_insert_with(|| Instant::now() + BUCKET);
            if Instant::now() < at {
                continue;
            }
            next = Some(at + BUCKET);
            // Workers publish their counts every 100 ms with the window time they reached:
            // the rate is taken between those times, not between our reads.
            let (done, at_ms) = (live.requests(), live.elapsed_ms());
            if at_ms <= last.1 {
                continue;
            }
            series.push((done - last.0) as f64 * 1000.0 / (at_ms - last.1) as f64);
            last = (done, at_ms);
            let elapsed = BUCKET * series.len() as u32;
            progress.message(format!(
                "{label}: warming up until steady ({:.1} s, {:.0} req/s)",
                elapsed.as_secs_f64(),
                series.last().copied().unwrap_or(0.0)
            ));
            if elapsed >= min && steady(&series) {
                settled = true;
                control
                    .cancel
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
        // The run's figures are discarded (its errors show in the measured run), all but
        // how many requests it sent.
        if let Ok(Ok(r)) = run.join() {
            sent = r.sent();
        }
    });
    WarmupInfo {
        min_s: min.as_secs_f64(),
        max_s: max.as_secs_f64(),
        used_s: started.elapsed().as_secs_f64(),
        requests: sent,
        steady: settled,
        bucket_s: BUCKET.as_secs_f64(),
        rps: series.iter().map(|x| (x * 10.0).round() / 10.0).collect(),
        own,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ramp_is_not_steady_a_plateau_is() {
        // JIT tier-up: half speed, then climbing, then flat with a little noise.
        let ramp = [6000.0, 8000.0, 10000.0, 12000.0];
        assert!(!steady(&ramp));
        let plateau = [6000.0, 12000.0, 23000.0, 23300.0, 22800.0, 23100.0];
        assert!(steady(&plateau));
        assert!(!steady(&plateau[..3]), "too few buckets");
    }

    #[test]
    fn a_slow_drift_or_a_wide_spread_is_not_steady() {
        // +4% per bucket (16% per second) with little spread per step.
        let drift: Vec<f64> = (0..6).map(|i| 10000.0 * 1.04f64.powi(i)).collect();
        assert!(!steady(&drift));
        // Flat on average, but ±15% from bucket to bucket.
        let wide = [10000.0, 11500.0, 8500.0, 11500.0, 8500.0];
        assert!(!steady(&wide));
        // Nothing answered: not steady, whatever the shape.
        assert!(!steady(&[0.0, 0.0, 0.0, 0.0]));
    }
}
