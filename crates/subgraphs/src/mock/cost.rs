//! A CPU cost per field, if asked: `--cost Product.price=50us` keeps the resolving thread
//! busy for 50 µs each time `Product.price` is resolved, so a mock subgraph can stand in for
//! one whose resolvers compute. The schema (`schema.rs`) calls [`burn`] in the resolvers of
//! the fields named; which fields a folder's SDL has is checked in `subgraph.rs`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const EXAMPLE: &str = "e.g. --cost Product.price=50us (units: us, ms or s)";

/// Far above any resolver worth imitating, and a bound on how long a request can pin a
/// thread per field.
pub const MAX_COST: Duration = Duration::from_secs(1);

/// `--cost Type.field=DURATION`, repeatable: the cost by `Type.field`.
pub fn parse_costs(items: &[String]) -> anyhow::Result<BTreeMap<String, Duration>> {
    let mut costs = BTreeMap::new();
    for item in items {
        let (path, value) = item
            .split_once('=')
            .filter(|(p, _)| {
                p.split_once('.')
                    .is_some_and(|(t, f)| !t.is_empty() && !f.is_empty())
            })
            .ok_or_else(|| anyhow::anyhow!("'{item}' is not Type.field=DURATION; {EXAMPLE}"))?;
        let cost = parse_duration(value.trim())
            .ok_or_else(|| anyhow::anyhow!("'{item}': '{value}' is not a duration; {EXAMPLE}"))?;
        anyhow::ensure!(
            cost <= MAX_COST,
            "'{item}': a cost is at most {MAX_COST:?}; {EXAMPLE}"
        );
        let path = path.trim().to_string();
        anyhow::ensure!(
            costs.insert(path.clone(), cost).is_none(),
            "--cost is given twice for {path}"
        );
    }
    Ok(costs)
}

/// A non-negative decimal number with unit `us` (or `µs`), `ms` or `s`.
fn parse_duration(value: &str) -> Option<Duration> {
    let (number, seconds_per_unit) = if let Some(n) = value.strip_suffix("us") {
        (n, 1e-6)
    } else if let Some(n) = value.strip_suffix("µs") {
        (n, 1e-6)
    } else if let Some(n) = value.strip_suffix("ms") {
        (n, 1e-3)
    } else {
        (value.strip_suffix('s')?, 1.0)
    };
    let n: f64 = number.trim().parse().ok()?;
    (n.is_finite() && n >= 0.0 && n * seconds_per_unit <= 3600.0)
        .then(|| Duration::from_nanos((n * seconds_per_unit * 1e9).round() as u64))
}

/// Keeps this thread busy for `cost`: arithmetic the optimiser cannot drop, the clock read
/// every few hundred steps.
pub fn burn(cost: Duration) {
    let start = Instant::now();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    while start.elapsed() < cost {
        for _ in 0..256 {
            x = std::hint::black_box(x.rotate_left(5) ^ x.wrapping_mul(0xBF58_476D_1CE4_E5B9));
        }
    }
    std::hint::black_box(x);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_refuses_the_malformed() {
        let costs = parse_costs(&[
            "Product.price=50us".into(),
            "Query.top=1.5ms".into(),
            "A.b=0s".into(),
        ])
        .unwrap();
        assert_eq!(costs["Product.price"], Duration::from_micros(50));
        assert_eq!(costs["Query.top"], Duration::from_micros(1500));
        assert_eq!(costs["A.b"], Duration::ZERO);
        for (bad, says) in [
            ("Product=50us", "not Type.field=DURATION"),
            ("Product.price", "not Type.field=DURATION"),
            ("Product.price=50", "not a duration"),
            ("Product.price=-1ms", "not a duration"),
            ("Product.price=2s", "at most"),
        ] {
            let err = parse_costs(&[bad.to_string()]).unwrap_err().to_string();
            assert!(err.contains(says) && err.contains(bad), "{bad}: {err}");
        }
        let twice = parse_costs(&["A.b=1us".into(), "A.b=2us".into()]).unwrap_err();
        assert!(twice.to_string().contains("twice for A.b"), "{twice}");
    }

    #[test]
    fn burns_at_least_the_cost() {
        let start = Instant::now();
        burn(Duration::from_millis(2));
        assert!(start.elapsed() >= Duration::from_millis(2));
    }
}
