//! The efficiency and cost section of report.md, report.html and (briefly) the terminal:
//! the price table's provenance, the assumptions, per throughput scenario each target's
//! req/s per core and per GiB with their intervals, the cheapest instance per million
//! requests and the instances the traffic needs, every instance in detail, and seed 001's
//! published table beside it, labelled as published, not measured. Everything is derived
//! from the saved run and the price table when the report is written (`cost`).
//!
//! The formats take the price table from a `Priced` exporter (`run` and `report` build one
//! from `--prices`, `--traffic` and `--utilization`); the plain exporters use the shipped
//! table. Instances for a traffic, and their month, are shown only when `--traffic` gives
//! one: no default traffic sizes the targets apart (docs/cost.md).
use crate::cost::{self, seed, sizing, Efficiency, Pricing};
use crate::results::{RunResults, ScenarioResult};
use crate::view::cells::est;

use super::{fmt_bytes, fmt_rps, ExtraTable};

/// An exporter with the price table its cost section uses.
pub struct Priced<E> {
    pub format: E,
    pub pricing: Pricing,
}

impl<E> Priced<E> {
    pub fn new(format: E, pricing: Pricing) -> Self {
        Priced { format, pricing }
    }
}

/// One priced scenario: the summary per target, each target on each instance, and notes.
pub struct ScenarioCost {
    pub title: String,
    pub summary: ExtraTable,
    pub detail: ExtraTable,
    pub notes: Vec<String>,
}

/// The whole section; None when the run has no throughput scenario to price.
pub struct Section {
    pub provenance: Vec<String>,
    pub instances: ExtraTable,
    pub assumptions: String,
    pub scenarios: Vec<ScenarioCost>,
    pub seed: ExtraTable,
    pub seed_remarks: Vec<String>,
}

pub const TITLE: &str = "Efficiency and cost";

/// An amount of money in the table's currency: "$0.0123" in USD, "0.0123 EUR" otherwise,
/// with three significant digits below 1.
pub fn money(currency: &str, v: f64) -> String {
    let n = if !v.is_finite() {
        "-".to_string()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else if v > 0.0 {
        // Three significant digits, trailing zeros dropped (a price of $0.085 stays that),
        // at least cents.
        let decimals = (2.0 - v.log10().floor()).clamp(2.0, 9.0) as usize;
        let t = format!("{v:.decimals$}");
        let t = t.trim_end_matches('0');
        match t.split_once('.') {
            Some((_, d)) if d.len() < 2 => format!("{v:.2}"),
            _ => t.to_string(),
        }
    } else {
        "0".to_string()
    };
    if currency.eq_ignore_ascii_case("USD") {
        format!("${n}")
    } else {
        format!("{n} {currency}")
    }
}

fn range<T: PartialEq + std::fmt::Display>(
    c: &T,
    lo: &T,
    hi: &T,
    f: impl Fn(&T) -> String,
) -> String {
    if lo == c && hi == c {
        f(c)
    } else {
        format!("{} [{} – {}]", f(c), f(lo), f(hi))
    }
}

pub fn traffic_line(p: &Pricing) -> String {
    match &p.traffic {
        Some(t) => format!(
            "traffic sized for: {} ({} req/s on average), each instance planned at {:.0}% of its capacity (--traffic, --utilization)",
            t.text,
            fmt_rps(t.rps),
            p.utilization * 100.0
        ),
        None => format!(
            "traffic sized for: none given, so no instance count or monthly cost: each target's capacity and cost per 1M requests are what tell them apart; --traffic RATE sizes for a traffic (e.g. --traffic {}, seed 001's, or the traffic you expect)",
            cost::SEED_TRAFFIC
        ),
    }
}

pub fn prices_line(p: &Pricing) -> String {
    let t = &p.table;
    format!(
        "prices: {}: {}, {}, dated {}; source: {}",
        p.origin(),
        t.region,
        t.currency,
        t.date,
        t.source
    )
}

fn assumptions(r: &RunResults) -> String {
    format!(
        "req/s per core is each valid trial's req/s ÷ its measured CPU (the target's process tree in % of one core over the measured window, not its quota); req/s per GiB is req/s ÷ the trial's peak RSS; each is the geometric mean of the trials with its 95% t interval, like req/s. \
An instance's capacity is req/s per core × its vCPUs: one process per vCPU (Node runs JavaScript on one thread), as many as its memory holds at the peak RSS measured. \
That assumes throughput grows linearly with vCPUs, the work is CPU-bound, and one of the instance's vCPUs does what one CPU of this machine ({}) did: a different CPU (another generation, arm64) differs, and none was measured here. \
Cost per 1M requests = hourly price ÷ (capacity × 3,600) × 1,000,000, with the instance fully busy; with --traffic, instances for it = ⌈traffic ÷ (capacity × utilization)⌉, at least 1 (a real deployment runs at least 2 for availability), per month at 730 hours, and that month's cost per 1M requests of the traffic (what seed 001's table gives). \
Instance hours only: no load balancer, storage, data transfer or database. Throughput scenarios of the closed model only (not fixed rates, sweeps, cold starts or subscriptions).",
        if r.machine.cpu_model.is_empty() { "unknown" } else { &r.machine.cpu_model }
    )
}

fn scenario_cost(s: &ScenarioResult, effs: &[Efficiency], p: &Pricing) -> ScenarioCost {
    let cur = &p.table.currency;
    let mut summary = Vec::new();
    let mut detail = Vec::new();
    let mut notes = Vec::new();
    let traffic = p.traffic.as_ref();
    for e in effs {
        let sized = sizing::size_all(e, &p.table.instances, traffic.map(|t| t.rps), p.utilization);
        let row = summary_row(e, &sized, p);
        summary.push(row);
        if e.sized() && sized.is_empty() {
            notes.push(format!(
                "{}: no instance of the table has room for one process at its peak RSS ({})",
                e.target,
                e.rss_peak_bytes.map(fmt_bytes).unwrap_or_else(dash)
            ));
        }
        detail.extend(sized.iter().map(|z| detail_row(e, z, cur)));
    }
    let (summary_headers, detail_headers) = headers(traffic);
    ScenarioCost {
        title: format!("{}/{}", s.suite, s.name),
        summary: ExtraTable {
            title: format!("{}/{}: efficiency and cost", s.suite, s.name),
            headers: summary_headers,
            rows: summary,
        },
        detail: ExtraTable {
            title: format!("{}/{}: every instance", s.suite, s.name),
            headers: detail_headers,
            rows: detail,
        },
        notes,
    }
}

/// A target's row of the efficiency and cost table.
fn summary_row(e: &Efficiency, sized: &[sizing::Sizing], p: &Pricing) -> Vec<String> {
    let cur = &p.table.currency;
    let traffic = p.traffic.as_ref();
    let cheapest = sized.first();
    let cheapest_month = sized
        .iter()
        .filter_map(|z| Some((z, z.monthly?, z.needed?)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let mut row = vec![
        e.target.clone(),
        e.cpu_pct.map(|c| format!("{c:.0}")).unwrap_or_else(dash),
        e.per_core
            .as_ref()
            .map(|x| est(x, fmt_rps))
            .unwrap_or_else(dash),
        e.per_gib
            .as_ref()
            .map(|x| est(x, fmt_rps))
            .unwrap_or_else(dash),
        // A sized row had its trials' CPU read; memory it could not read is unmeasured.
        match e.rss_peak_bytes {
            Some(b) => fmt_bytes(b),
            None if e.sized() => crate::units::UNMEASURED.into(),
            None => dash(),
        },
        cheapest
            .map(|z| {
                format!(
                    "{} on {}",
                    range(&z.per_million.0, &z.per_million.1, &z.per_million.2, |v| {
                        money(cur, *v)
                    }),
                    z.instance.name
                )
            })
            .unwrap_or_else(dash),
    ];
    if let Some(t) = traffic {
        row.push(
            cheapest_month
                .map(|(z, monthly, n)| {
                    format!(
                        "{} × {} ({}/month: {} per 1M requests at this traffic)",
                        range(&n.0, &n.1, &n.2, |v| v.to_string()),
                        z.instance.name,
                        money(cur, monthly),
                        money(
                            cur,
                            monthly / (t.rps * 3600.0 * sizing::HOURS_PER_MONTH) * 1e6
                        )
                    )
                })
                .unwrap_or_else(dash),
        );
    }
    row.push(if e.notes.is_empty() {
        String::new()
    } else {
        e.notes.join("; ")
    });
    row
}

/// A target's row for one instance of the table.
fn detail_row(e: &Efficiency, z: &sizing::Sizing, cur: &str) -> Vec<String> {
    let mut row = vec![
        e.target.clone(),
        z.instance.name.clone(),
        format!("{} / {} GiB", z.instance.vcpus, z.instance.memory_gib),
        money(cur, z.instance.hourly_price),
        if z.processes < z.instance.vcpus {
            format!("{} (memory-bound)", z.processes)
        } else {
            z.processes.to_string()
        },
        range(&z.capacity.0, &z.capacity.1, &z.capacity.2, |v| fmt_rps(*v)),
        range(&z.per_million.0, &z.per_million.1, &z.per_million.2, |v| {
            money(cur, *v)
        }),
    ];
    if let (Some(n), Some(monthly)) = (z.needed, z.monthly) {
        row.push(range(&n.0, &n.1, &n.2, |v| v.to_string()));
        row.push(money(cur, monthly));
    }
    row
}

/// The two tables' headers; the traffic's columns only when a traffic was given (see
/// traffic_line).
fn headers(traffic: Option<&sizing::Traffic>) -> (Vec<String>, Vec<String>) {
    let mut summary_headers: Vec<String> = [
        "target",
        "CPU %",
        "req/s per core [95% CI]",
        "req/s per GiB peak RSS [95% CI]",
        "RSS peak",
        "cheapest per 1M requests [95% CI]",
    ]
    .map(String::from)
    .to_vec();
    let mut detail_headers: Vec<String> = [
        "target",
        "instance",
        "vCPUs / memory",
        "per hour",
        "processes",
        "capacity req/s [95% CI]",
        "per 1M requests [95% CI]",
    ]
    .map(String::from)
    .to_vec();
    if let Some(t) = traffic {
        let instances = format!("instances for {}", t.text);
        summary_headers.push(format!("{instances} (cheapest per month)"));
        detail_headers.push(instances);
        detail_headers.push("per month".into());
    }
    summary_headers.push("notes".into());
    (summary_headers, detail_headers)
}

fn dash() -> String {
    "-".into()
}

/// The section for a run, or None when it has no throughput scenario to price.
pub fn section(r: &RunResults, p: &Pricing) -> Option<Section> {
    let scenarios: Vec<ScenarioCost> = r
        .scenarios
        .iter()
        .filter_map(|s| {
            let effs = cost::efficiencies(s);
            (!effs.is_empty()).then(|| scenario_cost(s, &effs, p))
        })
        .collect();
    if scenarios.is_empty() {
        return None;
    }
    let cur = &p.table.currency;
    let instances = ExtraTable {
        title: "instances priced".into(),
        headers: [
            "instance",
            "vCPUs",
            "memory GiB",
            "per hour",
            "date",
            "source",
            "note",
        ]
        .map(String::from)
        .to_vec(),
        rows: p
            .table
            .instances
            .iter()
            .map(|i| {
                vec![
                    i.name.clone(),
                    i.vcpus.to_string(),
                    i.memory_gib.to_string(),
                    money(cur, i.hourly_price),
                    i.date.clone().unwrap_or_else(|| p.table.date.clone()),
                    i.source.clone().unwrap_or_else(|| p.table.source.clone()),
                    i.note.clone().unwrap_or_default(),
                ]
            })
            .collect(),
    };
    let seed = ExtraTable {
        title: seed::TITLE.into(),
        headers: [
            "server",
            "EC2 instances",
            "monthly cost",
            "cost per 1M requests",
        ]
        .map(String::from)
        .to_vec(),
        rows: seed::ROWS
            .iter()
            .map(|x| {
                vec![
                    x.server.into(),
                    x.instances.into(),
                    format!("${:.0}", x.monthly_usd),
                    format!("${:.2}", x.per_million_usd),
                ]
            })
            .collect(),
    };
    let mut seed_remarks = vec![
        "Published by seed 001, not measured: gqlbench shows it as printed, beside this run's own figures above.".to_string(),
    ];
    seed_remarks.extend(seed::remarks());
    match &p.traffic {
        Some(t) if (t.rps - 1e6 / 86_400.0).abs() > 1e-9 => seed_remarks.push(format!(
            "The table above was sized for {}, not the seed's 1M requests/day: use --traffic {} to size for the same traffic.",
            t.text,
            cost::SEED_TRAFFIC
        )),
        Some(_) => {}
        None => seed_remarks.push(format!(
            "The table above sizes no traffic: use --traffic {} to size for the seed's.",
            cost::SEED_TRAFFIC
        )),
    }
    Some(Section {
        provenance: vec![
            prices_line(p),
            format!("what the prices include: {}", p.table.note),
            traffic_line(p),
        ],
        instances,
        assumptions: assumptions(r),
        scenarios,
        seed,
        seed_remarks,
    })
}

#[cfg(test)]
mod tests {
    use super::money;

    #[test]
    fn money_has_the_digits_that_matter() {
        assert_eq!(money("USD", 146.0), "$146");
        assert_eq!(money("USD", 4.8667), "$4.87");
        assert_eq!(money("USD", 0.012345), "$0.0123");
        assert_eq!(money("USD", 0.5), "$0.50");
        assert_eq!(money("USD", 0.085), "$0.085");
        assert_eq!(money("USD", 0.34), "$0.34");
        assert_eq!(money("USD", 0.0816), "$0.0816");
        assert_eq!(money("EUR", 0.0004567), "0.000457 EUR");
    }
}
