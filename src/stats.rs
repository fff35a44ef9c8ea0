//! Statistics over trials: medians with 95% bootstrap confidence intervals, spread,
//! coefficient of variation, and the significance of a difference between two sets of
//! trials. Bootstrap resampling uses a fixed seed so the same data gives the same report.
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::results::Estimate;

const RESAMPLES: usize = 4000;
/// Trials needed on each side before a difference may be called significant.
pub const MIN_TRIALS: usize = 3;
const SEED: u64 = 0x6771_6c62_656e_6368; // "gqlbench"

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

/// Linear-interpolated quantile of sorted data, q in [0, 1].
fn quantile_sorted(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let pos = q * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

fn resample_median(xs: &[f64], rng: &mut StdRng, buf: &mut Vec<f64>) -> f64 {
    buf.clear();
    for _ in 0..xs.len() {
        buf.push(xs[rng.gen_range(0..xs.len())]);
    }
    median(buf)
}

/// Percentile bootstrap 95% interval of the median.
pub fn bootstrap_median_ci(xs: &[f64]) -> (f64, f64) {
    if xs.len() < 2 {
        let m = median(xs);
        return (m, m);
    }
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut buf = Vec::with_capacity(xs.len());
    let mut meds: Vec<f64> = (0..RESAMPLES)
        .map(|_| resample_median(xs, &mut rng, &mut buf))
        .collect();
    meds.sort_by(f64::total_cmp);
    (quantile_sorted(&meds, 0.025), quantile_sorted(&meds, 0.975))
}

pub fn estimate(xs: &[f64]) -> Estimate {
    if xs.is_empty() {
        return Estimate::default();
    }
    let (lo, hi) = bootstrap_median_ci(xs);
    let m = mean(xs);
    Estimate {
        n: xs.len() as u32,
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

/// How `b` differs from `a`: the change of the median in % with a 95% bootstrap interval
/// (each side resampled independently), and whether that interval excludes zero.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Change {
    pub pct: f64,
    pub ci_low_pct: f64,
    pub ci_high_pct: f64,
    pub significant: bool,
}

pub fn relative_change(a: &[f64], b: &[f64]) -> Option<Change> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let ma = median(a);
    if ma == 0.0 {
        return None;
    }
    let pct = (median(b) / ma - 1.0) * 100.0;
    let mut rng = StdRng::seed_from_u64(SEED ^ 0x5a5a);
    let (mut ba, mut bb) = (Vec::new(), Vec::new());
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .filter_map(|_| {
            let ra = resample_median(a, &mut rng, &mut ba);
            let rb = resample_median(b, &mut rng, &mut bb);
            (ra != 0.0).then(|| (rb / ra - 1.0) * 100.0)
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let lo = quantile_sorted(&ratios, 0.025);
    let hi = quantile_sorted(&ratios, 0.975);
    // With fewer trials a side the bootstrap has too few distinct resamples to say
    // anything about noise: never significant.
    let enough = a.len() >= MIN_TRIALS && b.len() >= MIN_TRIALS;
    Some(Change {
        pct,
        ci_low_pct: lo,
        ci_high_pct: hi,
        significant: enough && (lo > 0.0 || hi < 0.0),
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
}
