//! The geometry of the report's axes, apart from drawing: the "nines" axis of a latency
//! percentile distribution (50%, 90%, 99%, 99.9% equally spaced), the decades a log axis
//! spans, the range of a linear axis, and how tick values are written. Pure functions, so
//! the unit tests can pin what a chart will show.

/// The position of quantile `q` (0 ≤ q < 1) on the nines axis: −log10(1 − q), so that 0%,
/// 90%, 99% and 99.9% fall on 0, 1, 2 and 3. The tail, where latency distributions differ
/// most, gets as much room as the body.
pub fn nines(q: f64) -> f64 {
    -(1.0 - q).log10()
}

/// The quantile at position `x` of the nines axis (the inverse of [`nines`]).
pub fn quantile_at(x: f64) -> f64 {
    1.0 - 10f64.powf(-x)
}

/// How far along the nines axis a histogram of `count` samples says anything: to the
/// quantile 1 − 1/count (one sample above it), i.e. log10(count), at least 1 (90%) so that a
/// short run still has an axis, at most 6 (99.9999%). 1,000 samples: 99.9%; 180,000:
/// 5.26 nines, where the curve ends though the axis runs on to the next whole nine.
pub fn nines_extent(count: u64) -> f64 {
    (count.max(1) as f64).log10().clamp(1.0, 6.0)
}

/// The positions along the nines axis at which a distribution is sampled: every 0.05 from 0,
/// and `extent` itself (20 points per nine: smooth at the scale drawn).
pub fn nines_points(extent: f64) -> Vec<f64> {
    let n = (extent / 0.05 + 1e-9).floor() as usize;
    let mut v: Vec<f64> = (0..=n).map(|i| i as f64 * 0.05).collect();
    if extent - n as f64 * 0.05 > 1e-9 {
        v.push(extent);
    }
    v
}

/// A tick of the nines axis as a percentile: 0 → "0%", 1 → "90%", 2 → "99%", 3 → "99.9%",
/// and a point between whole nines with the digits it needs (0.301 → "50%").
pub fn percentile_label(x: f64) -> String {
    let pct = quantile_at(x) * 100.0;
    // As many decimals as the nines beyond the second, so 99.9% and 99.99% read as such.
    let decimals = ((x.round() as i64) - 2).clamp(0, 6) as usize;
    let s = format!("{pct:.decimals$}");
    format!("{s}%")
}

/// The whole decades a log axis spans for positive values from `min` to `max`: 0.35 to 12
/// gives 0.1 to 100. None when there is no positive value. A single value gets the decade
/// around it, so the axis is never empty.
pub fn log_range(min: f64, max: f64) -> Option<(f64, f64)> {
    if max.is_nan() || max <= 0.0 || max.is_infinite() {
        return None;
    }
    let min = if min > 0.0 && min.is_finite() {
        min
    } else {
        max
    };
    let lo = 10f64.powf(min.log10().floor());
    let mut hi = 10f64.powf(max.log10().ceil());
    if hi <= lo {
        hi = lo * 10.0;
    }
    Some((lo, hi))
}

/// A linear axis for values from `min` to `max`: from 0 when `from_zero` (or the values
/// cross it), else from `min`; 8% of the span added at each open end so no mark sits on the
/// frame; a span of a value alone gets ±10% (or 0 to 1 for zero). None without finite
/// values.
pub fn linear_range(min: f64, max: f64, from_zero: bool) -> Option<(f64, f64)> {
    if !min.is_finite() || !max.is_finite() || min > max {
        return None;
    }
    let (mut lo, mut hi) = if from_zero {
        (min.min(0.0), max.max(0.0))
    } else {
        (min, max)
    };
    if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return Some((
            if from_zero && lo >= 0.0 {
                0.0
            } else {
                lo - pad
            },
            hi + pad,
        ));
    }
    let pad = (hi - lo) * 0.08;
    if !(from_zero && lo == 0.0) {
        lo -= pad;
    }
    if !(from_zero && hi == 0.0) {
        hi += pad;
    }
    Some((lo, hi))
}

/// A tick value as people write it: thousands as "12k", "1.5M", small values with the digits
/// that matter ("0.25", "0.001"), integers without decimals.
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if a >= 1e6 {
        format!("{}M", trim(format!("{:.1}", v / 1e6)))
    } else if a >= 1e4 {
        format!("{}k", trim(format!("{:.1}", v / 1e3)))
    } else if a >= 1.0 {
        trim(format!("{v:.1}"))
    } else {
        // Two significant figures below 1.
        let digits = (-a.log10().floor()) as usize + 1;
        trim(format!("{v:.digits$}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nines_axis_spaces_90_99_and_999_equally() {
        assert!((nines(0.9) - 1.0).abs() < 1e-12);
        assert!((nines(0.99) - 2.0).abs() < 1e-12);
        assert!((nines(0.999) - 3.0).abs() < 1e-9);
        assert_eq!(nines(0.0), 0.0);
        // The median sits a third of the way to 90%, not halfway.
        assert!((nines(0.5) - std::f64::consts::LOG10_2).abs() < 1e-12);
        for q in [0.1, 0.5, 0.75, 0.999, 0.99999] {
            assert!((quantile_at(nines(q)) - q).abs() < 1e-12, "{q}");
        }
    }

    #[test]
    fn percentile_ticks_read_as_percentiles() {
        assert_eq!(percentile_label(0.0), "0%");
        assert_eq!(percentile_label(1.0), "90%");
        assert_eq!(percentile_label(2.0), "99%");
        assert_eq!(percentile_label(3.0), "99.9%");
        assert_eq!(percentile_label(4.0), "99.99%");
        assert_eq!(percentile_label(nines(0.5)), "50%");
    }

    #[test]
    fn the_tail_drawn_is_what_the_samples_support() {
        assert_eq!(nines_extent(5), 1.0);
        assert_eq!(nines_extent(0), 1.0);
        assert!((nines_extent(1_000) - 3.0).abs() < 1e-12);
        assert!((nines_extent(180_000) - 5.2553).abs() < 1e-4);
        assert_eq!(nines_extent(u64::MAX), 6.0);
        let p = nines_points(2.0);
        assert_eq!(p.len(), 41);
        assert_eq!(p[0], 0.0);
        assert!((p[40] - 2.0).abs() < 1e-12);
        // The curve ends exactly at the extent, not at the 0.05 step before it.
        let p = nines_points(2.33);
        assert_eq!(p.len(), 48);
        assert!((p[46] - 2.30).abs() < 1e-12 && p[47] == 2.33, "{p:?}");
    }

    #[test]
    fn a_log_axis_spans_whole_decades_around_the_values() {
        assert_eq!(log_range(0.35, 12.0), Some((0.1, 100.0)));
        assert_eq!(log_range(1.0, 1000.0), Some((1.0, 1000.0)));
        // A lone value gets its own decade; zero and negative minima are ignored.
        assert_eq!(log_range(5.0, 5.0), Some((1.0, 10.0)));
        assert_eq!(log_range(10.0, 10.0), Some((10.0, 100.0)));
        assert_eq!(log_range(0.0, 50.0), Some((10.0, 100.0)));
        assert_eq!(log_range(0.0, 0.0), None);
        assert_eq!(log_range(1.0, f64::NAN), None);
    }

    #[test]
    fn a_linear_axis_starts_at_zero_when_asked_and_pads_open_ends() {
        let (lo, hi) = linear_range(40.0, 90.0, true).unwrap();
        assert_eq!(lo, 0.0);
        assert!((hi - 97.2).abs() < 1e-9, "{hi}");
        let (lo, hi) = linear_range(40.0, 90.0, false).unwrap();
        assert!((lo - 36.0).abs() < 1e-9 && (hi - 94.0).abs() < 1e-9);
        // Values below zero keep room on both sides of it.
        let (lo, hi) = linear_range(-20.0, 30.0, true).unwrap();
        assert!(lo < -20.0 && hi > 30.0);
        assert_eq!(linear_range(0.0, 0.0, true), Some((0.0, 1.0)));
        assert_eq!(linear_range(50.0, 50.0, false), Some((45.0, 55.0)));
        assert_eq!(linear_range(f64::INFINITY, 1.0, true), None);
    }

    #[test]
    fn ticks_are_written_short() {
        assert_eq!(tick_label(0.0), "0");
        assert_eq!(tick_label(12_000.0), "12k");
        assert_eq!(tick_label(1_500_000.0), "1.5M");
        assert_eq!(tick_label(250.0), "250");
        assert_eq!(tick_label(2.5), "2.5");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(0.001), "0.001");
        assert_eq!(tick_label(-300.0), "-300");
    }
}
