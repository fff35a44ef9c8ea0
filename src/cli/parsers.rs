//! The flags' value parsers shared by several commands: durations and percentages, each
//! refusing a bad value with the form to write instead.

/// A precision target: a percentage in (0, 50].
pub fn parse_precision(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches('%');
    t.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0 && *v <= 50.0)
        .ok_or_else(|| format!("'{s}' is not a precision in (0, 50]%; write e.g. 5%"))
}

pub fn parse_interference(s: &str) -> Result<f64, String> {
    if s.trim().eq_ignore_ascii_case("off") {
        return Ok(f64::INFINITY);
    }
    let t = s.trim().trim_end_matches('%');
    t.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| {
            format!("'{s}' is not a share of one CPU above 0; write e.g. 10% or 50%, or off")
        })
}

pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    humantime::parse_duration(s.trim())
        .map_err(|e| format!("'{s}' is not a duration ({e}); write e.g. 500ms, 10s, 2m"))
}

/// The allowance of `--fail-if-slower`: above 0 and at most 100. 0 is refused because an
/// allowance of nothing turns every significant difference, however small, into a failure
/// (and about 1 unchanged row in 20 looks significant by chance); above 100 is refused
/// because a row cannot lose more than all of its throughput, so such a gate would never
/// trip on speed.
pub fn parse_percent(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches('%');
    let v = t
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("'{s}' is not a percentage; write e.g. 5%"))?;
    if v <= 0.0 {
        return Err(format!(
            "'{s}' is not above 0: a gate with no allowance fails on any significant slowdown, however small; write a percentage in (0, 100], e.g. 5%"
        ));
    }
    if v > 100.0 {
        return Err(format!(
            "'{s}' is above 100%: a row cannot lose more than all of its throughput, so this gate could never trip on speed; write a percentage in (0, 100], e.g. 5%"
        ));
    }
    Ok(v)
}

/// `ab --allowance`: a change within it is equivalent, so above 0 (nothing would be) and at
/// most 50% (beyond half the throughput, "equivalent" says nothing; `planner::ab` holds the
/// same bound).
pub fn parse_allowance(s: &str) -> Result<f64, String> {
    let v = parse_percent(s).map_err(|e| {
        e.replace("(0, 100]", "(0, 50%]").replace(
            "a gate with no allowance fails on any significant slowdown, however small",
            "an allowance of nothing leaves no change equivalent",
        )
    })?;
    if v > 50.0 {
        return Err(format!(
            "'{s}' is above 50%: beyond half the throughput, \"equivalent\" says nothing; write a percentage in (0, 50%], e.g. 2%"
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::{parse_allowance, parse_percent};

    #[test]
    fn an_allowance_is_a_percentage_ab_takes() {
        assert_eq!(parse_allowance("2%"), Ok(2.0));
        assert_eq!(parse_allowance("50%"), Ok(50.0));
        for bad in ["0%", "60%", "101%"] {
            let e = parse_allowance(bad).unwrap_err();
            assert!(e.contains("(0, 50%]") && !e.contains("100]"), "{bad}: {e}");
        }
    }

    #[test]
    fn percentages_in_range_are_read_with_or_without_the_sign() {
        assert_eq!(parse_percent("5%"), Ok(5.0));
        assert_eq!(parse_percent("2.5"), Ok(2.5));
        assert_eq!(parse_percent(" 100% "), Ok(100.0));
    }

    #[test]
    fn percentages_out_of_range_or_malformed_are_refused_with_the_fix() {
        for bad in ["0", "0%", "-5%", "100.1%", "500%", "abc", "", "inf", "NaN%"] {
            let e = parse_percent(bad).expect_err(bad);
            assert!(e.contains("e.g. 5%"), "{bad}: {e}");
        }
        assert!(parse_percent("500%").unwrap_err().contains("above 100%"));
        assert!(parse_percent("0%").unwrap_err().contains("not above 0"));
    }
}
