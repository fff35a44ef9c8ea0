//! Per-subgraph response delays: `--delay reviews=20..150ms` delays every GraphQL response
//! of reviews by a time drawn uniformly in [20 ms, 150 ms]. The same syntax serves a built-in
//! graph's subgraphs (`serve`) and a folder's mock subgraphs (`mock`).
//!
//! Draws come from a counter-based generator (splitmix64 over seed, subgraph and request
//! number): reproducible for a seed, lock-free, and cheap enough to never show up.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::graph::Graph;

const EXAMPLE: &str =
    "e.g. --delay reviews=20..150ms (units: ms or s; a single value like 50ms is a fixed delay)";

/// One parsed `--delay NAME=A..B` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelaySpec {
    /// The subgraph's name and its index in the graph.
    pub subgraph: String,
    pub index: usize,
    pub min: Duration,
    pub max: Duration,
}

impl DelaySpec {
    /// Parses `NAME=A..B<unit>` (or `NAME=A<unit>..B<unit>`, or `NAME=A<unit>`) for a
    /// subgraph of the demo graph.
    pub fn parse(spec: &str) -> Result<DelaySpec, String> {
        DelaySpec::parse_for(spec, Graph::Demo)
    }

    /// As [`DelaySpec::parse`], for a subgraph of `graph`.
    pub fn parse_for(spec: &str, graph: Graph) -> Result<DelaySpec, String> {
        DelaySpec::parse_with(spec, |name| graph.index_of(name))
    }

    /// As [`DelaySpec::parse`], for the subgraphs `index_of` knows: it gives a name's index
    /// or an error listing the valid names (the mock subgraphs of a folder use it).
    pub fn parse_with(
        spec: &str,
        index_of: impl FnOnce(&str) -> Result<usize, String>,
    ) -> Result<DelaySpec, String> {
        let (name, range) = spec.split_once('=').ok_or_else(|| {
            format!("delay '{spec}' has no '=' between subgraph and range; {EXAMPLE}")
        })?;
        let index = index_of(name.trim()).map_err(|e| format!("delay '{spec}': {e}; {EXAMPLE}"))?;
        let range = range.trim();
        let (min, max) = match range.split_once("..") {
            Some((a, b)) => {
                let max = parse_duration(b, None, spec)?;
                // "20..150ms": the lower bound borrows the upper bound's unit.
                let unit = unit_of(b);
                (parse_duration(a, unit, spec)?, max)
            }
            None => {
                let d = parse_duration(range, None, spec)?;
                (d, d)
            }
        };
        if min > max {
            return Err(format!(
                "delay '{spec}' has its lower bound above its upper bound; {EXAMPLE}"
            ));
        }
        Ok(DelaySpec {
            subgraph: name.trim().to_string(),
            index,
            min,
            max,
        })
    }
}

fn unit_of(s: &str) -> Option<&'static str> {
    let s = s.trim();
    if s.ends_with("ms") {
        Some("ms")
    } else if s.ends_with('s') {
        Some("s")
    } else {
        None
    }
}

/// `value` is a non-negative decimal number with unit `ms` or `s`; `default_unit` applies
/// when it has none.
fn parse_duration(value: &str, default_unit: Option<&str>, spec: &str) -> Result<Duration, String> {
    let value = value.trim();
    let (number, unit) = if let Some(n) = value.strip_suffix("ms") {
        (n, "ms")
    } else if let Some(n) = value.strip_suffix('s') {
        (n, "s")
    } else {
        match default_unit {
            Some(unit) => (value, unit),
            None => {
                return Err(format!(
                    "delay '{spec}': '{value}' has no unit (ms or s); {EXAMPLE}"
                ))
            }
        }
    };
    let number: f64 = number
        .trim()
        .parse()
        .ok()
        .filter(|n: &f64| n.is_finite() && *n >= 0.0)
        .ok_or_else(|| {
            format!("delay '{spec}': '{value}' is not a non-negative number of {unit}; {EXAMPLE}")
        })?;
    let seconds = if unit == "ms" {
        number / 1000.0
    } else {
        number
    };
    // An hour is far past any sensible delay and keeps the conversion below exact.
    if seconds > 3600.0 {
        return Err(format!(
            "delay '{spec}': '{value}' is longer than an hour; {EXAMPLE}"
        ));
    }
    Ok(Duration::from_micros((seconds * 1e6).round() as u64))
}

/// Draws the delays of one subgraph.
#[derive(Debug)]
pub struct Delay {
    min_us: u64,
    span_us: u64,
    stream: u64,
    draws: AtomicU64,
}

impl Delay {
    pub fn new(spec: &DelaySpec, seed: u64) -> Delay {
        let min_us = spec.min.as_micros() as u64;
        Delay {
            min_us,
            span_us: spec.max.as_micros() as u64 - min_us,
            // Distinct subgraphs draw distinct sequences from one seed.
            stream: splitmix64(seed ^ (spec.index as u64).wrapping_mul(0xA076_1D64_78BD_642F)),
            draws: AtomicU64::new(0),
        }
    }

    /// The next delay, uniform in [min, max] (microsecond steps).
    pub fn next(&self) -> Duration {
        let n = self.draws.fetch_add(1, Ordering::Relaxed);
        let r = splitmix64(
            self.stream
                .wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        );
        let offset = if self.span_us == 0 {
            0
        } else {
            r % (self.span_us + 1)
        };
        Duration::from_micros(self.min_us + offset)
    }
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn parses_ranges_with_shared_or_separate_units() {
        let d = DelaySpec::parse("reviews=20..150ms").unwrap();
        assert_eq!(
            (d.subgraph.as_str(), d.index, d.min, d.max),
            ("reviews", 2, ms(20), ms(150))
        );
        let d = DelaySpec::parse_for("users=5ms", Graph::Wide).unwrap();
        assert_eq!((d.index, d.min), (11, ms(5)));
        assert!(DelaySpec::parse_for("reviews=5ms", Graph::Demo).is_ok());
        assert!(DelaySpec::parse_for("accounts=5ms", Graph::Wide).is_err());
        let d = DelaySpec::parse("products=100ms..1s").unwrap();
        assert_eq!((d.min, d.max), (ms(100), ms(1000)));
        let d = DelaySpec::parse("accounts=0.5..1s").unwrap();
        assert_eq!((d.min, d.max), (ms(500), ms(1000)));
        let d = DelaySpec::parse("inventory=50ms").unwrap();
        assert_eq!((d.min, d.max), (ms(50), ms(50)));
    }

    #[test]
    fn refuses_malformed_specs_with_an_example() {
        for (spec, says) in [
            ("reviews20..150ms", "no '='"),
            (
                "users=20..150ms",
                "valid: accounts, products, reviews, inventory",
            ),
            ("reviews=20..150", "no unit"),
            ("reviews=a..150ms", "not a non-negative number"),
            ("reviews=-5..150ms", "not a non-negative number"),
            ("reviews=150..20ms", "lower bound above"),
            ("reviews=2h", "no unit"),
        ] {
            let err = DelaySpec::parse(spec).unwrap_err();
            assert!(err.contains(says), "{spec}: {err}");
            assert!(err.contains("--delay reviews=20..150ms"), "{spec}: {err}");
        }
    }

    #[test]
    fn draws_stay_in_range_cover_it_and_repeat_for_a_seed() {
        let spec = DelaySpec::parse("reviews=20..150ms").unwrap();
        let a = Delay::new(&spec, 7);
        let draws: Vec<Duration> = (0..2000).map(|_| a.next()).collect();
        assert!(draws.iter().all(|d| *d >= ms(20) && *d <= ms(150)));
        assert!(draws.iter().any(|d| *d < ms(30)));
        assert!(draws.iter().any(|d| *d > ms(140)));
        let b = Delay::new(&spec, 7);
        assert!(draws.iter().all(|d| *d == b.next()));
        let c = Delay::new(&spec, 8);
        assert!(draws.iter().any(|d| *d != c.next()));
    }
}
