//! Reading back floats JSON cannot hold: serde_json writes an infinite or NaN `f64` as
//! `null`, and a field typed `f64` then refuses its own file. An interval a look could
//! not bound (no degrees of freedom yet) is infinite by design, so its fields read `null`
//! back as the value it stood for.
use serde::{Deserialize, Deserializer};

/// `null` read as +∞ (an upper bound, a multiplier, degrees of freedom without limit).
pub fn null_as_inf<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

/// `null` read as −∞ (a lower bound).
pub fn null_as_neg_inf<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NEG_INFINITY))
}

/// `null` read as NaN (a figure that could not be computed).
pub fn null_as_nan<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// An interval `[low, high]` whose missing bounds read as −∞ and +∞.
pub fn null_as_unbounded<'de, D: Deserializer<'de>>(d: D) -> Result<(f64, f64), D::Error> {
    let (lo, hi) = <(Option<f64>, Option<f64>)>::deserialize(d)?;
    Ok((lo.unwrap_or(f64::NEG_INFINITY), hi.unwrap_or(f64::INFINITY)))
}

#[cfg(test)]
mod tests {
    use crate::stats::Change;

    #[test]
    fn an_unbounded_interval_reads_back_as_written() {
        let c = Change {
            pct: 4.0,
            ci_low_pct: f64::NEG_INFINITY,
            ci_high_pct: f64::INFINITY,
            significant: false,
        };
        let json = serde_json::to_string(&c).unwrap();
        assert!(json.contains("\"ci_low_pct\":null"), "{json}");
        let back: Change = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c);
        let nan: Change = serde_json::from_str(
            r#"{"pct":null,"ci_low_pct":-1.0,"ci_high_pct":2.0,"significant":false}"#,
        )
        .unwrap();
        assert!(nan.pct.is_nan() && nan.ci_low_pct == -1.0);
    }
}
