//! The extra tables of a scenario beyond its main table: the kind's own tables
//! (`kinds::tables`), the servers grouped by language (`languages`), then for gateways the federation upstream table (calls to subgraphs,
//! their CPU and memory, what bound the row: `summary::bound`) and the first-request table (what a cold query-plan cache costs).
use crate::results::{ScenarioResult, TargetResult};
use crate::view::Table as ExtraTable;

pub fn extra_tables(s: &ScenarioResult) -> Vec<ExtraTable> {
    let mut out = crate::kinds::tables(s);
    out.extend(super::languages::table(s));
    out.extend(upstream_table(s));
    if let Some(t) = first_request_table(s) {
        out.push(t);
    }
    out
}

/// The federation table: per gateway its settings, its calls to subgraphs per request and by
/// subgraph, and the subgraphs' CPU and peak memory; None when no target's trials recorded
/// upstream traffic.
fn upstream_table(s: &ScenarioResult) -> Option<ExtraTable> {
    let fed: Vec<&TargetResult> = s
        .targets
        .iter()
        .filter(|t| t.trials.iter().any(|x| x.upstream.is_some()))
        .collect();
    if fed.is_empty() {
        return None;
    }
    let rows = fed
        .iter()
        .map(|t| {
            let last = t.trials.iter().rev().find_map(|x| x.upstream.as_ref());
            vec![
                t.name.clone(),
                t.settings.summary(),
                t.summary
                    .as_ref()
                    .and_then(|x| x.upstream_calls_per_request)
                    .map(|c| format!("{c:.2}"))
                    .unwrap_or_else(|| "-".into()),
                last.map(|u| {
                    u.calls
                        .iter()
                        .map(|(k, v)| format!("{k} {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default(),
                t.summary
                    .as_ref()
                    .and_then(|x| x.subgraph_cpu_pct)
                    .map(|c| {
                        format!(
                            "{c:.0} (of {} core(s))",
                            last.map(|u| u.subgraph_cores).unwrap_or(1)
                        )
                    })
                    .unwrap_or_else(|| "-".into()),
                last.map(|u| crate::units::fmt_bytes_or_unmeasured(u.subgraph_rss_peak_bytes))
                    .unwrap_or_default(),
                cpu_per_request(t),
                crate::summary::bound::Bound::of(t)
                    .map(|b| b.label())
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    Some(ExtraTable {
        title: "gateways: settings and upstream traffic".into(),
        headers: [
            "target",
            "settings",
            "subgraph calls per request",
            "calls by subgraph (last trial)",
            "subgraph CPU %",
            "subgraph RSS peak",
            "CPU µs per request: gateway / subgraphs",
            "bound by (median CPU share of the counted trials)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The gateway's CPU time per request beside its subgraphs' (both from the medians of the
/// trials: CPU % over req/s): the subgraphs are no bottleneck when theirs is the smaller.
fn cpu_per_request(t: &TargetResult) -> String {
    let Some(s) = &t.summary else {
        return "-".into();
    };
    let rps = s.rps.center_or_median();
    let per = |pct: Option<f64>| {
        pct.and_then(|p| crate::summary::efficiency::cpu_us_per_request(p, rps))
            .map_or_else(|| "-".into(), |us| format!("{us:.0}"))
    };
    format!("{} / {}", per(s.cpu_avg_pct), per(s.subgraph_cpu_pct))
}

/// Per gateway and operation, its first request against the same request repeated right
/// after (from the answer checks before any load): what a cold query-plan cache costs.
fn first_request_table(s: &ScenarioResult) -> Option<ExtraTable> {
    let ms = |x: f64| format!("{:.1}", x * 1e3);
    let rows: Vec<Vec<String>> = s
        .targets
        .iter()
        .filter(|t| t.kind == crate::catalog::TargetKind::Gateway)
        .flat_map(|t| {
            t.checks.iter().filter_map(move |c| {
                let (first, warm) = (c.first_s?, c.warm_s?);
                Some(vec![
                    t.name.clone(),
                    c.operation.clone(),
                    ms(first),
                    ms(warm),
                    ms(first - warm),
                ])
            })
        })
        .collect();
    (!rows.is_empty()).then(|| ExtraTable {
        title: "gateways: first request (cold plan cache) against its repeats".into(),
        headers: [
            "target",
            "operation",
            "first request ms",
            "repeated ms (median of 5)",
            "first minus repeated ms",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
