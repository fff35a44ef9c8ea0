//! Statistics over trials: the center of a few trials with a 95% interval that keeps its
//! coverage at 3 to 10 trials, spread and coefficient of variation, and the change between
//! two sets of trials (independent, or paired round by round) with its interval.
//!
//! Why t intervals on logarithms, not a bootstrap of the median: with 3 to 10 trials a
//! percentile bootstrap has too few distinct resamples and covers far less than 95% (the
//! median of 3 trials has no 95% interval at all without assumptions). Throughputs are
//! positive and their noise is multiplicative (a machine 5% slower is 5% slower at any
//! speed), so the logarithms are close to normal and Student's t gives the nominal coverage;
//! the center is then the geometric mean. `tests::coverage_*` check it by simulation.
pub mod between;
pub mod levels;
pub mod sequential;
pub mod t;
pub mod twoway;

use serde::{Deserialize, Serialize};

/// Trials needed on each side before a difference may be called significant: a t interval
/// on fewer is honest but so wide, and so dependent on normality, that it decides nothing.
pub const MIN_TRIALS: usize = 3;
/// Confidence level of every interval.
pub const LEVEL: f64 = 0.95;

pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

pub fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample standard deviation (n - 1).
pub fn stdev(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let m = mean(xs);
    (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
}

/// The t critical value of a two-sided interval at `LEVEL` with `df` degrees of freedom.
pub fn t_crit(df: f64) -> f64 {
    t::quantile(1.0 - (1.0 - LEVEL) / 2.0, df)
}

/// The center of `xs` and its interval: the geometric mean with a t interval on the
/// logarithms when every value is positive, else the arithmetic mean with a t interval.
pub fn center_interval(xs: &[f64]) -> (f64, f64, f64) {
    let n = xs.len();
    if n == 0 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let positive = xs.iter().all(|x| *x > 0.0);
    let v: Vec<f64> = if positive {
        xs.iter().map(|x| x.ln()).collect()
    } else {
        xs.to_vec()
    };
    let m = mean(&v);
    let half = if n >= 2 {
        t_crit((n - 1) as f64) * stdev(&v) / (n as f64).sqrt()
    } else {
        0.0
    };
    let back = |x: f64| if positive { x.exp() } else { x };
    (back(m), back(m - half), back(m + half))
}

/// A figure over trials: the geometric mean (`center`) with a 95% t interval on the
/// logarithms (`stats::estimate`), beside the median, extremes and spread.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct Estimate {
    pub n: u32,
    /// The center the interval is around: the geometric mean of the samples (the
    /// arithmetic mean when a sample is not positive). 0 in files of schema 2 and older,
    /// whose interval was a bootstrap of the median: see `center_or_median`.
    #[serde(default)]
    pub center: f64,
    pub median: f64,
    /// 95% t interval of the center (on the logarithms for the geometric mean).
    pub ci_low: f64,
    pub ci_high: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// Coefficient of variation (stdev / mean) across trials; 0.05 = 5%.
    pub cv: f64,
    pub samples: Vec<f64>,
}

impl Estimate {
    /// The figure to show: the center, or the median in older files that have none.
    pub fn center_or_median(&self) -> f64 {
        if self.center > 0.0 || self.n == 0 {
            self.center
        } else {
            self.median
        }
    }

    /// Half the interval's width relative to the center (0.05 = ±5%), when it has one.
    pub fn relative_half_width(&self) -> Option<f64> {
        let c = self.center_or_median();
        (self.n >= 2 && c > 0.0).then(|| (self.ci_high - self.ci_low) / 2.0 / c)
    }
}

pub fn estimate(xs: &[f64]) -> Estimate {
    if xs.is_empty() {
        return Estimate::default();
    }
    let (center, lo, hi) = center_interval(xs);
    let m = mean(xs);
    Estimate {
        n: xs.len() as u32,
        center,
        median: median(xs),
        ci_low: lo,
        ci_high: hi,
        min: xs.iter().copied().fold(f64::INFINITY, f64::min),
        max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        mean: m,
        cv: if m != 0.0 { stdev(xs) / m } else { 0.0 },
        samples: xs.to_vec(),
    }
}

/// How `b` differs from `a`: the change of the center in % with its 95% interval, and
/// whether that interval excludes zero.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Change {
    #[serde(deserialize_with = "crate::results::nonfinite::null_as_nan")]
    pub pct: f64,
    #[serde(deserialize_with = "crate::results::nonfinite::null_as_neg_inf")]
    pub ci_low_pct: f64,
    #[serde(deserialize_with = "crate::results::nonfinite::null_as_inf")]
    pub ci_high_pct: f64,
    pub significant: bool,
}

impl Change {
    /// From a difference of logarithms `d`, its standard error and degrees of freedom.
    fn from_log(d: f64, se: f64, df: f64, enough: bool) -> Change {
        let half = if se > 0.0 && df > 0.0 {
            t_crit(df) * se
        } else {
            0.0
        };
        let pct = |x: f64| (x.exp() - 1.0) * 100.0;
        let (lo, hi) = (pct(d - half), pct(d + half));
        Change {
            pct: pct(d),
            ci_low_pct: lo,
            ci_high_pct: hi,
            significant: enough && half > 0.0 && (lo > 0.0 || hi < 0.0),
        }
    }
}

/// The logarithms of `xs`, or None when any is not positive.
fn logs(xs: &[f64]) -> Option<Vec<f64>> {
    xs.iter()
        .map(|x| (*x > 0.0).then(|| x.ln()))
        .collect::<Option<Vec<f64>>>()
}

/// The change from independent trials `a` to `b` (two runs): the ratio of geometric means
/// with a Welch t interval on the logarithms (the two runs' spreads may differ).
pub fn relative_change(a: &[f64], b: &[f64]) -> Option<Change> {
    between::LogChange::of(a, b).map(|c| c.change())
}

/// The change from `a` to `b` measured in the same rounds (each pair one round, the round
/// a block that every target shares): a t interval on the logarithms of the per-round
/// ratios. Drift of the machine between rounds cancels out of each ratio.
pub fn paired_change(pairs: &[(f64, f64)]) -> Option<Change> {
    let r: Vec<f64> = pairs
        .iter()
        .map(|(a, b)| (*a > 0.0 && *b > 0.0).then(|| (b / a).ln()))
        .collect::<Option<Vec<f64>>>()?;
    if r.is_empty() {
        return None;
    }
    let n = r.len() as f64;
    let se = stdev(&r) / n.sqrt();
    let df = if r.len() >= 2 { n - 1.0 } else { 0.0 };
    Some(Change::from_log(mean(&r), se, df, r.len() >= MIN_TRIALS))
}

/// An added amount (µs of latency, say) measured in the same rounds: the mean of the
/// per-round differences `b - a` with a t interval, and whether that interval excludes 0.
/// Differences, not ratios: an overhead is a fixed cost per request, not a share of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    pub mean: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub rounds: usize,
    /// The interval excludes 0 (and there were at least [`MIN_TRIALS`] rounds).
    pub resolved: bool,
}

impl Difference {
    /// Half the interval's width: the smallest difference these rounds could tell from 0.
    pub fn resolution(&self) -> f64 {
        (self.ci_high - self.ci_low) / 2.0
    }
}

pub fn paired_difference(pairs: &[(f64, f64)]) -> Option<Difference> {
    let d: Vec<f64> = pairs.iter().map(|(a, b)| b - a).collect();
    if d.is_empty() || d.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let n = d.len();
    let m = mean(&d);
    let half = if n >= 2 {
        t_crit((n - 1) as f64) * stdev(&d) / (n as f64).sqrt()
    } else {
        f64::INFINITY
    };
    Some(Difference {
        mean: m,
        ci_low: m - half,
        ci_high: m + half,
        rounds: n,
        resolved: n >= MIN_TRIALS && (m - half > 0.0 || m + half < 0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn stdev_and_cv_of_known_sample() {
        // Sample stdev of 2,4,4,4,5,5,7,9 is 2.138 (population stdev would be 2.0).
        let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert!((stdev(&xs) - 2.13809).abs() < 1e-4);
        let e = estimate(&xs);
        assert!((e.cv - 2.13809 / 5.0).abs() < 1e-4);
        assert_eq!(e.min, 2.0);
        assert_eq!(e.max, 9.0);
        assert_eq!(e.median, 4.5);
    }

    #[test]
    fn ci_brackets_median_and_stays_in_range() {
        let xs = [100.0, 102.0, 98.0, 101.0, 99.0, 103.0, 97.0];
        let e = estimate(&xs);
        assert!(e.ci_low <= e.median && e.median <= e.ci_high);
        assert!(e.ci_low >= 97.0 && e.ci_high <= 103.0);
        assert!(e.ci_high - e.ci_low > 0.0);
    }

    #[test]
    fn clear_difference_is_significant_noise_is_not() {
        let a = [100.0, 101.0, 99.0, 100.5, 99.5];
        let b = [120.0, 121.0, 119.0, 120.5, 119.5];
        let c = relative_change(&a, &b).unwrap();
        assert!((c.pct - 20.0).abs() < 0.01);
        assert!(c.significant);
        assert!(c.ci_low_pct > 15.0 && c.ci_high_pct < 25.0);

        let d = [99.0, 102.0, 98.0, 101.5, 100.0];
        let c = relative_change(&a, &d).unwrap();
        assert!(!c.significant, "{c:?}");
    }

    #[test]
    fn too_few_trials_are_never_significant() {
        let c = relative_change(&[100.0], &[200.0]).unwrap();
        assert!(!c.significant);
        assert!((c.pct - 100.0).abs() < 1e-9);
        // Two trials a side, clearly apart: still too few to call it.
        let c = relative_change(&[100.0, 101.0], &[200.0, 201.0]).unwrap();
        assert!(!c.significant);
        assert!(c.ci_low_pct > 90.0);
    }

    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// A standard normal draw (Box–Muller), so the test needs no distribution crate.
    fn normal(rng: &mut StdRng) -> f64 {
        let u1: f64 = rng.gen_range(f64::EPSILON..1.0);
        let u2: f64 = rng.gen();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// Repetitions of each simulation: the coverage's standard error is then 0.5%, and the
    /// accepted band (93% to 97%) four of them wide on each side.
    const REPS: usize = 2000;

    #[test]
    fn coverage_of_the_center_holds_at_three_to_ten_trials() {
        // Throughputs around 1,000 req/s with 5% multiplicative noise.
        let mut rng = StdRng::seed_from_u64(1);
        for n in [3, 5, 10] {
            let mut hits = 0;
            for _ in 0..REPS {
                let xs: Vec<f64> = (0..n)
                    .map(|_| 1000.0 * (0.05 * normal(&mut rng)).exp())
                    .collect();
                let (_, lo, hi) = center_interval(&xs);
                if lo <= 1000.0 && 1000.0 <= hi {
                    hits += 1;
                }
            }
            let cov = hits as f64 / REPS as f64;
            assert!((0.93..=0.97).contains(&cov), "n = {n}: coverage {cov}");
        }
    }

    #[test]
    fn coverage_of_a_change_holds_independent_and_paired() {
        let mut rng = StdRng::seed_from_u64(2);
        for n in [3, 6, 10] {
            let (mut welch, mut paired) = (0, 0);
            let (mut w_width, mut p_width) = (0.0, 0.0);
            for _ in 0..REPS {
                // b is 10% faster than a. Each round shifts both alike (the machine's
                // drift, 8%), each trial adds its own noise (2%).
                let rounds: Vec<(f64, f64)> = (0..n)
                    .map(|_| {
                        let drift = (0.08 * normal(&mut rng)).exp();
                        (
                            1000.0 * drift * (0.02 * normal(&mut rng)).exp(),
                            1100.0 * drift * (0.02 * normal(&mut rng)).exp(),
                        )
                    })
                    .collect();
                let (a, b): (Vec<f64>, Vec<f64>) = rounds.iter().copied().unzip();
                let w = relative_change(&a, &b).unwrap();
                let p = paired_change(&rounds).unwrap();
                welch += usize::from(w.ci_low_pct <= 10.0 && 10.0 <= w.ci_high_pct);
                paired += usize::from(p.ci_low_pct <= 10.0 && 10.0 <= p.ci_high_pct);
                w_width += w.ci_high_pct - w.ci_low_pct;
                p_width += p.ci_high_pct - p.ci_low_pct;
            }
            let (cw, cp) = (welch as f64 / REPS as f64, paired as f64 / REPS as f64);
            // Welch's interval is conservative here (the drift is counted as noise).
            assert!(cw >= 0.93, "n = {n}: Welch coverage {cw}");
            assert!((0.93..=0.97).contains(&cp), "n = {n}: paired coverage {cp}");
            // Blocking on the round takes the drift out: a far narrower interval.
            assert!(p_width < w_width / 2.0, "n = {n}: {p_width} vs {w_width}");
        }
    }

    #[test]
    fn a_paired_difference_finds_a_known_shift_and_covers_it() {
        // p50 of a baseline around 650 µs drifting 40 µs from round to round (the
        // machine), a variant 50 µs slower, each measurement with its own 10 µs of noise.
        let mut rng = StdRng::seed_from_u64(3);
        for n in [3, 5, 10] {
            let (mut covered, mut resolved) = (0, 0);
            for _ in 0..REPS {
                let rounds: Vec<(f64, f64)> = (0..n)
                    .map(|_| {
                        let drift = 40.0 * normal(&mut rng);
                        (
                            650.0 + drift + 10.0 * normal(&mut rng),
                            700.0 + drift + 10.0 * normal(&mut rng),
                        )
                    })
                    .collect();
                let d = paired_difference(&rounds).unwrap();
                covered += usize::from(d.ci_low <= 50.0 && 50.0 <= d.ci_high);
                resolved += usize::from(d.resolved);
            }
            let cov = covered as f64 / REPS as f64;
            assert!((0.93..=0.97).contains(&cov), "n = {n}: coverage {cov}");
            // Pairing removes the drift: 50 µs against 14 µs of paired noise is resolved
            // nearly always from 5 rounds on.
            if n >= 5 {
                assert!(resolved as f64 / REPS as f64 > 0.95, "n = {n}: {resolved}");
            }
        }
        // No shift: resolved (a false "slower" or "faster") about 5% of the time at most.
        let mut false_calls = 0;
        for _ in 0..REPS {
            let rounds: Vec<(f64, f64)> = (0..5)
                .map(|_| {
                    let drift = 40.0 * normal(&mut rng);
                    (
                        650.0 + drift + 10.0 * normal(&mut rng),
                        650.0 + drift + 10.0 * normal(&mut rng),
                    )
                })
                .collect();
            false_calls += usize::from(paired_difference(&rounds).unwrap().resolved);
        }
        assert!(false_calls as f64 / REPS as f64 <= 0.07, "{false_calls}");
    }

    #[test]
    fn a_paired_difference_needs_three_rounds_to_resolve() {
        let d = paired_difference(&[(100.0, 150.0), (110.0, 161.0)]).unwrap();
        assert!(!d.resolved && (d.mean - 50.5).abs() < 1e-9);
        let one = paired_difference(&[(100.0, 150.0)]).unwrap();
        assert!(one.resolution().is_infinite() && !one.resolved);
        assert!(paired_difference(&[]).is_none());
        let d = paired_difference(&[(100.0, 150.0), (110.0, 161.0), (90.0, 139.0)]).unwrap();
        assert!(d.resolved && d.ci_low > 40.0 && d.ci_high < 60.0, "{d:?}");
    }

    #[test]
    fn a_paired_change_needs_three_rounds_and_positive_figures() {
        let c = paired_change(&[(100.0, 110.0), (90.0, 99.5), (105.0, 115.0)]).unwrap();
        assert!(c.significant && (c.pct - 10.0).abs() < 0.5, "{c:?}");
        assert!(
            !paired_change(&[(100.0, 110.0), (90.0, 99.5)])
                .unwrap()
                .significant
        );
        assert!(paired_change(&[(0.0, 1.0)]).is_none());
        assert!(paired_change(&[]).is_none());
    }
}
