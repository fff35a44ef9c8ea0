//! How figures are written for people: bytes in MiB/GiB, latency in ms with the digits
//! that matter, req/s with thousands separators, CPU lists as the kernel writes them. Used
//! by every layer that prints, so no layer reaches into another for its formatting.

/// Bytes in MiB below a GiB, in GiB with two decimals above.
pub fn fmt_bytes(b: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    if b as f64 >= 1024.0 * MIB {
        format!("{:.2} GiB", b as f64 / (1024.0 * MIB))
    } else {
        format!("{:.0} MiB", b as f64 / MIB)
    }
}

/// One figure of a latency summary (`field` its name, `us` its value) as `fmt_ms`, or "-"
/// when the source did not measure it (an imported k6 summary without that statistic).
pub fn fmt_latency(l: &gqlbench_engine::LatencySummary, field: &str, us: f64) -> String {
    if l.measured(field) {
        fmt_ms(us)
    } else {
        "-".into()
    }
}

/// How a figure that gqlbench tried to measure and could not read (a target gone before
/// its window, /proc unreadable) is written in every report: never as 0.
pub const UNMEASURED: &str = "unmeasured";

/// Bytes, or [`UNMEASURED`] when they could not be read.
pub fn fmt_bytes_or_unmeasured(b: Option<u64>) -> String {
    b.map(fmt_bytes).unwrap_or_else(|| UNMEASURED.into())
}

/// Microseconds as milliseconds: two decimals below 10 ms, one below 100, none above.
pub fn fmt_ms(us: f64) -> String {
    let ms = us / 1000.0;
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 10.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.2}")
    }
}

/// "45 s", "7 min", "1 h 10 min": a duration to read, not to compute with.
pub fn fmt_minutes(secs: f64) -> String {
    if secs < 90.0 {
        format!("{:.0} s", secs.max(0.0))
    } else if secs < 5400.0 {
        format!("{:.0} min", secs / 60.0)
    } else {
        // Whole minutes first, so 7,199 s reads "2 h 0 min", not "1 h 60 min".
        let m = (secs / 60.0).round();
        format!("{:.0} h {:.0} min", (m / 60.0).floor(), m % 60.0)
    }
}

/// Requests per second: whole with thousands separators from 100 up, one decimal below.
pub fn fmt_rps(x: f64) -> String {
    if x >= 100.0 {
        let s = format!("{x:.0}");
        // Thousands separators for readability.
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    } else {
        format!("{x:.1}")
    }
}

/// A CPU list as the kernel writes it ("0-3,6"), or "not pinned" when empty.
pub fn fmt_cpus(cpus: &[usize]) -> String {
    if cpus.is_empty() {
        "not pinned".into()
    } else {
        cpu_list(cpus)
    }
}

/// A sorted CPU list in the kernel's range notation ("0-3,6"): runs of consecutive CPUs
/// collapse to "first-last".
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        out.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    out.join(",")
}

/// The time now as RFC 3339 in UTC, to the second (results' timestamps).
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A change with its interval, in % with one decimal and signs: "-4.7% [-6.0, -3.4]".
pub fn fmt_change(pct: f64, low: f64, high: f64) -> String {
    format!("{pct:+.1}% [{low:+.1}, {high:+.1}]")
}

/// A percentage without trailing zeros ("5", "2.5"), for flags and sentences.
pub fn pct(p: f64) -> String {
    let s = format!("{p:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The serde (snake_case) name of an enum value, as results.json writes it.
pub fn snake_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => "?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duration_reads_in_seconds_minutes_or_hours() {
        assert_eq!(fmt_minutes(12.4), "12 s");
        assert_eq!(fmt_minutes(1020.0), "17 min");
        assert_eq!(fmt_minutes(7199.0), "2 h 0 min");
        assert_eq!(fmt_minutes(5460.0), "1 h 31 min");
    }

    #[test]
    fn figures_read_as_people_write_them() {
        assert_eq!(fmt_bytes(100 * 1024 * 1024), "100 MiB");
        assert_eq!(fmt_bytes(3 * 1024 * 1024 * 1024 / 2), "1.50 GiB");
        assert_eq!(fmt_ms(1234.0), "1.23");
        assert_eq!(fmt_ms(12_345.0), "12.3");
        assert_eq!(fmt_ms(123_456.0), "123");
        assert_eq!(fmt_rps(39_762.4), "39,762");
        assert_eq!(fmt_rps(5.25), "5.2");
        assert_eq!(fmt_cpus(&[0, 1, 2, 5]), "0-2,5");
        assert_eq!(fmt_cpus(&[]), "not pinned");
        assert_eq!(fmt_bytes_or_unmeasured(None), "unmeasured");
        assert_eq!(fmt_bytes_or_unmeasured(Some(2 << 20)), "2 MiB");
    }
}
