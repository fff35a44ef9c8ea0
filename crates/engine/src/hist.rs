//! Histogram helpers: constructors with the engine's precision, the text encoding used in
//! results (HdrHistogram V2 + deflate, base64) so trials can be merged later, and the
//! latency summary.

use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;

use crate::result::LatencySummary;

/// A duration in whole microseconds (saturating).
pub fn micros(d: std::time::Duration) -> u64 {
    d.as_micros().min(u64::MAX as u128) as u64
}

/// Microsecond latencies, 3 significant figures, growing past 60 s when needed.
pub fn new_latency() -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, 60_000_000, 3).expect("static bounds are valid");
    h.auto(true);
    h
}

/// Small per-connection / per-second histograms: low precision keeps them a few KiB.
pub fn new_small(sigfig: u8) -> Histogram<u32> {
    let mut h = Histogram::new_with_bounds(1, 60_000_000, sigfig).expect("static bounds are valid");
    h.auto(true);
    h
}

/// Records a value; with auto-resize only an absurd value can fail, and then it is clamped.
pub fn record<T: hdrhistogram::Counter>(h: &mut Histogram<T>, v: u64) {
    if h.record(v).is_err() {
        h.saturating_record(v);
    }
}

/// Encodes as HdrHistogram V2 + deflate, then base64 (standard alphabet).
pub fn encode_hist(h: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    // Serializing into a Vec cannot fail for a well-formed histogram.
    if V2DeflateSerializer::new().serialize(h, &mut bytes).is_err() {
        return String::new();
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Decodes what [`encode_hist`] produced.
pub fn decode_hist(s: &str) -> anyhow::Result<Histogram<u64>> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(s.trim())?;
    let h: Histogram<u64> = Deserializer::new().deserialize(&mut bytes.as_slice())?;
    Ok(h)
}

/// Mean, spread and percentiles of a histogram (all zero when empty).
pub fn summarize(h: &Histogram<u64>) -> LatencySummary {
    if h.is_empty() {
        return LatencySummary::default();
    }
    LatencySummary {
        count: h.len(),
        mean_us: h.mean(),
        stdev_us: h.stdev(),
        min_us: h.min(),
        p50_us: h.value_at_quantile(0.50),
        p90_us: h.value_at_quantile(0.90),
        p95_us: h.value_at_quantile(0.95),
        p99_us: h.value_at_quantile(0.99),
        p999_us: h.value_at_quantile(0.999),
        max_us: h.max(),
        unmeasured: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_equals_histogram_of_all_samples() {
        let mut a = new_latency();
        let mut b = new_latency();
        let mut all = new_latency();
        let mut x: u64 = 12345;
        for i in 0..20_000u64 {
            // A deterministic spread of values from 1 us to ~2 s.
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = 1 + (x >> 33) % 2_000_000;
            if i % 3 == 0 {
                record(&mut a, v)
            } else {
                record(&mut b, v)
            };
            record(&mut all, v);
        }
        let mut merged = new_latency();
        merged.add(&a).unwrap();
        merged.add(&b).unwrap();
        assert_eq!(merged, all);
        assert_eq!(summarize(&merged), summarize(&all));
        // Averaging the two p99s is not the merged p99 in general; the merge is exact.
        assert_eq!(merged.value_at_quantile(0.99), all.value_at_quantile(0.99));
    }

    #[test]
    fn encode_decode_roundtrip_and_values_beyond_60s() {
        let mut h = new_latency();
        for v in [1, 10, 100, 1000, 123_456, 90_000_000] {
            record(&mut h, v);
        }
        let s = encode_hist(&h);
        let back = decode_hist(&s).unwrap();
        assert_eq!(back.len(), 6);
        assert_eq!(back.max(), h.max());
        assert!(back.max() >= 89_000_000);
        assert_eq!(back.value_at_quantile(0.5), h.value_at_quantile(0.5));
        assert!(decode_hist("not base64!").is_err());
    }

    #[test]
    fn empty_summary_is_zero() {
        assert_eq!(summarize(&new_latency()), LatencySummary::default());
    }
}
