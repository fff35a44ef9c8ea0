//! From req/s per core to instances and money. The capacity of an instance is the req/s per
//! core measured here times the instance's vCPUs, as many processes as vCPUs (Node runs
//! JavaScript on one thread, so one process per vCPU; a native multi-threaded gateway the
//! same way, per core), and as many of them as its memory holds at the peak RSS measured.
//! That assumes throughput scales linearly with vCPUs, the work is CPU-bound, and a vCPU
//! there does what a core did here: a different CPU differs, and the report says so.
use crate::results::Estimate;

use super::prices::Instance;
use super::Efficiency;

/// AWS's month: 730 hours (365 × 24 ÷ 12).
pub const HOURS_PER_MONTH: f64 = 730.0;
const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// The most traffic `--traffic` takes: a billion requests per second (86.4 trillion a
/// day), beyond any deployment a benchmark prices. More is a typo or a probe, and sizing
/// it would print instance counts no one can check (1e99/day was 18446744073709551615).
pub const MAX_TRAFFIC_RPS: f64 = 1e9;

/// A traffic to size for, as given ("1M/day") and in requests per second.
#[derive(Debug, Clone, PartialEq)]
pub struct Traffic {
    pub text: String,
    pub rps: f64,
}

impl Traffic {
    /// "250" or "250/s" (req/s), "15000/min", "900k/h", "1M/day"; k and M multiply by a
    /// thousand and a million.
    pub fn parse(s: &str) -> Result<Traffic, String> {
        let bad = || {
            format!("'{s}' is not a traffic; write requests per second (250) or per unit with k or M: 250/s, 15k/min, 900k/h, 1M/day")
        };
        let t = s.trim();
        let (num, per) = match t.split_once('/') {
            Some((n, u)) => (n.trim(), u.trim()),
            None => (t, "s"),
        };
        let secs = match per {
            "s" | "sec" | "second" => 1.0,
            "min" | "minute" => 60.0,
            "h" | "hour" => 3600.0,
            "d" | "day" => 86_400.0,
            _ => return Err(bad()),
        };
        let (digits, mult) = match num.chars().last() {
            Some('k') | Some('K') => (&num[..num.len() - 1], 1e3),
            Some('M') => (&num[..num.len() - 1], 1e6),
            _ => (num, 1.0),
        };
        let n = digits
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(bad)?;
        let rps = n * mult / secs;
        if rps > MAX_TRAFFIC_RPS {
            return Err(format!(
                "'{s}' is {rps:.3e} req/s, more than the {MAX_TRAFFIC_RPS:.0e} req/s (86,400G/day) gqlbench sizes for; write a traffic up to that, e.g. 50M/day"
            ));
        }
        Ok(Traffic {
            text: if t.contains('/') {
                t.to_string()
            } else {
                format!("{t} req/s")
            },
            rps,
        })
    }
}

/// Capacity of one instance, req/s: req/s per core × the processes it runs.
pub fn capacity(per_core: f64, processes: u32) -> f64 {
    per_core * processes as f64
}

/// Cost of a million requests on an instance kept fully busy: its hourly price over the
/// requests it serves in an hour.
pub fn cost_per_million(hourly_price: f64, capacity_rps: f64) -> f64 {
    hourly_price / (capacity_rps * 3600.0) * 1e6
}

/// Instances needed to serve `traffic_rps` with each at `utilization` of its capacity:
/// at least one.
pub fn instances_needed(traffic_rps: f64, capacity_rps: f64, utilization: f64) -> u64 {
    let n = (traffic_rps / (capacity_rps * utilization)).ceil();
    if n.is_finite() && n >= 1.0 {
        n as u64
    } else {
        1
    }
}

/// Processes an instance runs: one per vCPU, as many as its memory holds at `rss_peak`.
pub fn processes(instance: &Instance, rss_peak_bytes: Option<u64>) -> u32 {
    let fit = match rss_peak_bytes {
        Some(b) if b > 0 => (instance.memory_gib * GIB / b as f64).floor() as u64,
        _ => u64::MAX,
    };
    (instance.vcpus as u64).min(fit) as u32
}

/// One target on one instance: center and the bounds from the interval of req/s per core
/// (low capacity ↔ high cost).
#[derive(Debug, Clone)]
pub struct Sizing {
    pub instance: Instance,
    /// Processes the instance runs (fewer than its vCPUs when memory is short; 0: none fits).
    pub processes: u32,
    /// req/s: center, low, high.
    pub capacity: (f64, f64, f64),
    /// Per million requests at full capacity: center, and the bounds (at the high and low
    /// capacity).
    pub per_million: (f64, f64, f64),
    /// Instances for the traffic at the utilization: center, and at the high and low
    /// capacity; None without a traffic (`--traffic`).
    pub needed: Option<(u64, u64, u64)>,
    /// `needed.0` instances for a month; None without a traffic.
    pub monthly: Option<f64>,
}

/// How `e` sizes on `instance`, and for `traffic_rps` at `utilization` when a traffic is
/// given; None when it has no figures or no process fits in the instance's memory.
pub fn size(
    e: &Efficiency,
    instance: &Instance,
    traffic_rps: Option<f64>,
    utilization: f64,
) -> Option<Sizing> {
    let pc: &Estimate = e.per_core.as_ref().filter(|x| x.n > 0)?;
    let n = processes(instance, e.rss_peak_bytes);
    if n == 0 {
        return None;
    }
    let center = pc.center_or_median();
    let (lo, hi) = if pc.n >= 2 {
        (pc.ci_low, pc.ci_high)
    } else {
        (center, center)
    };
    let cap = (capacity(center, n), capacity(lo, n), capacity(hi, n));
    let price = instance.hourly_price;
    let needed = traffic_rps.map(|t| {
        (
            instances_needed(t, cap.0, utilization),
            instances_needed(t, cap.2, utilization),
            instances_needed(t, cap.1, utilization),
        )
    });
    Some(Sizing {
        instance: instance.clone(),
        processes: n,
        capacity: cap,
        per_million: (
            cost_per_million(price, cap.0),
            cost_per_million(price, cap.2),
            cost_per_million(price, cap.1),
        ),
        needed,
        monthly: needed.map(|n| n.0 as f64 * price * HOURS_PER_MONTH),
    })
}

/// Every instance of the table `e` fits on, cheapest per million requests first.
pub fn size_all(
    e: &Efficiency,
    instances: &[Instance],
    traffic_rps: Option<f64>,
    utilization: f64,
) -> Vec<Sizing> {
    let mut v: Vec<Sizing> = instances
        .iter()
        .filter_map(|i| size(e, i, traffic_rps, utilization))
        .collect();
    v.sort_by(|a, b| a.per_million.0.total_cmp(&b.per_million.0));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::TargetKind;

    fn instance(vcpus: u32, memory_gib: f64, hourly_price: f64) -> Instance {
        Instance {
            name: "x".into(),
            vcpus,
            memory_gib,
            hourly_price,
            source: None,
            date: None,
            note: None,
        }
    }

    fn eff(samples: &[f64], rss: u64) -> Efficiency {
        Efficiency {
            target: "t".into(),
            kind: TargetKind::Server,
            per_core: Some(crate::stats::estimate(samples)),
            per_gib: None,
            cpu_pct: Some(100.0),
            rss_peak_bytes: Some(rss),
            notes: vec![],
        }
    }

    #[test]
    fn traffic_is_read_in_any_unit() {
        assert!((Traffic::parse("1M/day").unwrap().rps - 1e6 / 86_400.0).abs() < 1e-9);
        assert_eq!(Traffic::parse("250").unwrap().rps, 250.0);
        assert_eq!(Traffic::parse("250").unwrap().text, "250 req/s");
        assert_eq!(Traffic::parse("1M/day").unwrap().text, "1M/day");
        assert_eq!(Traffic::parse("250/s").unwrap().rps, 250.0);
        assert_eq!(Traffic::parse("15k/min").unwrap().rps, 250.0);
        assert_eq!(Traffic::parse("900k/h").unwrap().rps, 250.0);
        for bad in ["", "0", "-5", "5/week", "abc", "1G/day", "NaN"] {
            assert!(Traffic::parse(bad).is_err(), "{bad}");
        }
        // Absurd traffic is refused, naming the bound, not sized into u64::MAX instances.
        let e = Traffic::parse("1e99/day").unwrap_err();
        assert!(e.contains("more than the 1e9 req/s"), "{e}");
        assert_eq!(Traffic::parse("1000M/s").unwrap().rps, 1e9);
        assert!(Traffic::parse("1001M/s").is_err());
    }

    #[test]
    fn cost_and_instances_follow_from_capacity() {
        // 1,000 req/s per core on 2 vCPUs: 2,000 req/s; 7.2M requests an hour at $0.072:
        // $0.01 per million.
        let c = capacity(1_000.0, 2);
        assert_eq!(c, 2_000.0);
        assert!((cost_per_million(0.072, c) - 0.01).abs() < 1e-12);
        // 5,000 req/s at 70% of 2,000 (1,400 each): 3.57 → 4 instances.
        assert_eq!(instances_needed(5_000.0, 2_000.0, 0.7), 4);
        // Exactly full: 2,800 at 70% of 2,000 is 2, not 3.
        assert_eq!(instances_needed(2_800.0, 2_000.0, 0.7), 2);
        // Tiny traffic: still one instance.
        assert_eq!(instances_needed(11.6, 2_000.0, 0.7), 1);
    }

    #[test]
    fn memory_limits_the_processes_of_an_instance() {
        let gib = 1024 * 1024 * 1024;
        // 4 vCPUs, 2 GiB, 600 MiB per process: 3 fit.
        assert_eq!(
            processes(&instance(4, 2.0, 0.1), Some(600 * 1024 * 1024)),
            3
        );
        assert_eq!(processes(&instance(4, 16.0, 0.1), Some(gib)), 4);
        assert_eq!(processes(&instance(2, 0.5, 0.1), Some(gib)), 0);
        let e = eff(&[1_000.0, 1_000.0], gib);
        assert!(size(&e, &instance(2, 0.5, 0.1), Some(10.0), 0.7).is_none());
    }

    #[test]
    fn a_sizing_carries_the_interval_of_req_s_per_core() {
        let e = eff(&[900.0, 1_000.0, 1_100.0], 100 * 1024 * 1024);
        let pc = e.per_core.clone().unwrap();
        let s = size(&e, &instance(2, 4.0, 0.1), Some(10_000.0), 0.5).unwrap();
        assert_eq!(s.processes, 2);
        assert!((s.capacity.0 - 2.0 * pc.center).abs() < 1e-9);
        assert!((s.capacity.1 - 2.0 * pc.ci_low).abs() < 1e-9);
        assert!((s.capacity.2 - 2.0 * pc.ci_high).abs() < 1e-9);
        // Cheaper at the high capacity, dearer at the low.
        let want = 0.1 / (2.0 * pc.center * 3600.0) * 1e6;
        assert!((s.per_million.0 - want).abs() < 1e-12);
        assert!(s.per_million.1 < s.per_million.0 && s.per_million.0 < s.per_million.2);
        // 10,000 req/s at 50% of ~2,000: 10 instances at the center.
        let n = (10_000.0 / (2.0 * pc.center * 0.5)).ceil() as u64;
        let needed = s.needed.unwrap();
        assert_eq!(needed.0, n);
        assert!(needed.1 <= needed.0 && needed.0 <= needed.2);
        assert!((s.monthly.unwrap() - n as f64 * 0.1 * 730.0).abs() < 1e-9);
        // Without a traffic: capacity and cost per 1M, no instance count or month.
        let s = size(&e, &instance(2, 4.0, 0.1), None, 0.5).unwrap();
        assert_eq!((s.needed, s.monthly), (None, None));
        assert!((s.per_million.0 - want).abs() < 1e-12);
    }
}
