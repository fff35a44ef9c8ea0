//! Tables for what only some scenarios measure: load sweeps, database queries, long runs,
//! depth limits, cold starts and subscriptions. Every cell comes from the result model.
use super::{fmt_bytes, fmt_ms, fmt_rps, ExtraTable};
use crate::results::{Estimate, ScenarioResult, TargetResult};
use crate::stats;

fn dash() -> String {
    "-".into()
}

fn est_ms(e: &Estimate) -> String {
    if e.n == 0 {
        return dash();
    }
    format!(
        "{:.1} [{:.1} – {:.1}]",
        e.median * 1000.0,
        e.min * 1000.0,
        e.max * 1000.0
    )
}

/// Connection sweep: per target, median req/s and p99 at each connection count.
pub fn connection_sweep(s: &ScenarioResult) -> Option<ExtraTable> {
    let counts = s.connection_sweep.as_ref()?;
    let mut headers = vec!["target".to_string()];
    for c in counts {
        headers.push(format!("{c} conns: req/s, p99 ms"));
    }
    let rows = s
        .targets
        .iter()
        .filter(|t| !t.trials.is_empty())
        .map(|t| {
            let mut row = vec![t.name.clone()];
            for &c in counts {
                let steps: Vec<_> = t
                    .trials
                    .iter()
                    .filter_map(|x| x.sweep.as_ref())
                    .flat_map(|st| st.iter().filter(|x| x.connections == Some(c)))
                    .collect();
                if steps.is_empty() {
                    row.push(dash());
                    continue;
                }
                let rps: Vec<f64> = steps.iter().map(|x| x.achieved_rps).collect();
                let p99: Vec<f64> = steps.iter().map(|x| x.p99_us as f64).collect();
                let failed: u64 = steps.iter().map(|x| x.failed).sum();
                row.push(format!(
                    "{}, {}{}",
                    fmt_rps(stats::median(&rps)),
                    fmt_ms(stats::median(&p99)),
                    if failed > 0 {
                        format!(" ({failed} FAILED)")
                    } else {
                        String::new()
                    }
                ));
            }
            row
        })
        .collect();
    Some(ExtraTable {
        title: format!(
            "load sweep: median over trials at each connection count (chart data: sweep-{}.csv)",
            s.name
        ),
        headers,
        rows,
    })
}

/// The sweep as CSV, one line per target, trial and step: the data behind a chart of
/// throughput and p99 against connections.
pub fn connection_sweep_csv(s: &ScenarioResult) -> Option<String> {
    s.connection_sweep.as_ref()?;
    let mut out = String::from("target,trial,connections,rps,p50_ms,p99_ms,failed\n");
    for t in &s.targets {
        for tr in &t.trials {
            for st in tr.sweep.iter().flatten() {
                let Some(c) = st.connections else { continue };
                out.push_str(&format!(
                    "{},{},{},{:.1},{:.3},{:.3},{}\n",
                    t.name,
                    tr.trial,
                    c,
                    st.achieved_rps,
                    st.p50_us as f64 / 1000.0,
                    st.p99_us as f64 / 1000.0,
                    st.failed
                ));
            }
        }
    }
    Some(out)
}

/// Database scenarios: queries per request as PostgreSQL counted them.
pub fn database(s: &ScenarioResult) -> Option<ExtraTable> {
    let db = s.database.as_ref()?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !t.trials.is_empty())
        .map(|t| {
            let last = t.trials.iter().rev().find_map(|x| x.database.as_ref());
            vec![
                t.name.clone(),
                db.resolvers.clone(),
                t.summary
                    .as_ref()
                    .and_then(|x| x.db_queries_per_request)
                    .map(|q| format!("{q:.2}"))
                    .unwrap_or_else(dash),
                last.map(|d| format!("{:.0}", d.db_cpu_pct))
                    .unwrap_or_else(dash),
                last.map(|d| fmt_bytes(d.db_rss_peak_bytes))
                    .unwrap_or_else(dash),
                last.map(|d| if d.db_alive { "yes" } else { "NO" }.to_string())
                    .unwrap_or_else(dash),
            ]
        })
        .collect();
    Some(ExtraTable {
        title: format!(
            "database: PostgreSQL {}, {} users ({} rows in all), pool {} per target, seeded in {:.1} s; queries counted by pg_stat_statements",
            db.server_version,
            db.scale,
            db.rows.values().sum::<u64>(),
            db.pool_size,
            db.seed_s
        ),
        headers: [
            "target",
            "resolvers",
            "DB queries / request",
            "DB CPU % (last trial)",
            "DB memory (PSS)",
            "DB up at end",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Long runs: memory baseline/peak/average, GC and the leak verdict with its slope.
pub fn long_run(s: &ScenarioResult) -> Option<ExtraTable> {
    s.long_run.as_ref()?;
    let rows = s
        .targets
        .iter()
        .filter_map(|t| {
            let sum = t.summary.as_ref()?;
            let leak = sum.leak.as_ref();
            Some(vec![
                t.name.clone(),
                leak.and_then(|l| l.baseline_bytes)
                    .map(fmt_bytes)
                    .unwrap_or_else(dash),
                leak.map(|l| fmt_bytes(l.peak_bytes)).unwrap_or_else(dash),
                leak.map(|l| fmt_bytes(l.avg_bytes)).unwrap_or_else(dash),
                sum.gc
                    .as_ref()
                    .map(|g| {
                        // The probe's max is lifetime-wide: shown only when set in the window.
                        let max = if g.max_ms > 0.0 {
                            format!(" (max {:.1} ms)", g.max_ms)
                        } else {
                            String::new()
                        };
                        format!("{} / {:.0} ms{max}", g.count, g.total_ms)
                    })
                    .unwrap_or_else(dash),
                leak.map(|l| {
                    format!(
                        "{:+.2} MiB/min (R² {:.2})",
                        l.trend.slope_mib_per_min, l.trend.r2
                    )
                })
                .unwrap_or_else(dash),
                leak.map(|l| match l.verdict.as_str() {
                    "growing" => "GROWING: leak suspected".to_string(),
                    v => v.replace('_', " "),
                })
                .unwrap_or_else(dash),
            ])
        })
        .collect();
    Some(ExtraTable {
        title: format!(
            "long run: memory over the measured window (series per second in results.json and memory-{}.csv)",
            s.name
        ),
        headers: [
            "target",
            "RSS baseline (idle)",
            "peak",
            "average",
            "GC pauses / total",
            "memory trend",
            "leak verdict",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Long runs as CSV: one line per target, trial and second.
pub fn memory_csv(s: &ScenarioResult) -> Option<String> {
    s.long_run.as_ref()?;
    let mut out = String::from("target,trial,t_s,cpu_pct,rss_mib,gc_count,gc_total_ms\n");
    for t in &s.targets {
        for tr in &t.trials {
            for p in &tr.vitals.series {
                out.push_str(&format!(
                    "{},{},{:.1},{:.1},{:.2},{},{}\n",
                    t.name,
                    tr.trial,
                    p.t_s,
                    p.cpu_pct,
                    p.rss_bytes as f64 / (1024.0 * 1024.0),
                    p.gc_count.map(|c| c.to_string()).unwrap_or_default(),
                    p.gc_total_ms.map(|c| format!("{c:.1}")).unwrap_or_default()
                ));
            }
        }
    }
    Some(out)
}

/// Depth scenarios: the limit check, execution time and the memory spike.
pub fn depth(s: &ScenarioResult) -> Option<ExtraTable> {
    let limit = s.depth_limit?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !super::not_installed(t))
        .map(|t| {
            let d = t.depth_check.as_ref();
            let spike = t
                .summary
                .as_ref()
                .and_then(|x| x.rss_peak_bytes)
                .zip(t.rss_idle_bytes)
                .map(|(p, i)| fmt_bytes(p.saturating_sub(i)))
                .unwrap_or_else(dash);
            vec![
                t.name.clone(),
                t.settings
                    .depth_limit
                    .map(|d| d.to_string())
                    .unwrap_or_else(|| "none".into()),
                d.map(|d| {
                    if d.at_limit_ok {
                        "answered".to_string()
                    } else {
                        format!("FAILED: {}", d.at_limit_detail.clone().unwrap_or_default())
                    }
                })
                .unwrap_or_else(dash),
                d.map(|d| {
                    let status = d
                        .over_limit_status
                        .map(|s| format!("HTTP {s}"))
                        .unwrap_or_default();
                    if d.over_limit_rejected {
                        format!("rejected ({status}): {}", d.over_limit_detail)
                    } else {
                        format!("ACCEPTED ({status}): {}", d.over_limit_detail)
                    }
                })
                .unwrap_or_else(dash),
                t.summary
                    .as_ref()
                    .map(|x| fmt_ms(x.latency.p50_us as f64))
                    .unwrap_or_else(dash),
                spike,
            ]
        })
        .collect();
    Some(ExtraTable {
        title: format!(
            "depth limit {limit}: depth {limit} must be answered, depth {} refused with a GraphQL error",
            limit + 1
        ),
        headers: [
            "target",
            "configured limit",
            format!("depth {limit}").as_str(),
            format!("depth {}", limit + 1).as_str(),
            "execution p50 ms",
            "memory spike (peak − idle)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Cold starts: spawn to ready, first request, memory at start.
pub fn cold_start(s: &ScenarioResult) -> Option<ExtraTable> {
    if s.kind != crate::results::ScenarioKind::ColdStart {
        return None;
    }
    let rows = s
        .targets
        .iter()
        .filter(|t| !super::not_installed(t))
        .map(|t| match &t.cold_start {
            None => vec![
                t.name.clone(),
                format!("0/{}", t.cold_starts.len()),
                dash(),
                dash(),
                dash(),
                dash(),
                cold_problem(t),
            ],
            Some(c) => vec![
                t.name.clone(),
                format!("{}/{}", c.ok, c.starts),
                est_ms(&c.ready_s),
                est_ms(&c.first_request_s),
                est_ms(&c.second_request_s),
                if c.rss_at_ready_bytes.n > 0 {
                    fmt_bytes(c.rss_at_ready_bytes.median as u64)
                } else {
                    dash()
                },
                cold_problem(t),
            ],
        })
        .collect();
    Some(ExtraTable {
        title: "cold start: median [min – max] over fresh starts (ms)".into(),
        headers: [
            "target",
            "starts ok",
            "spawn → ready ms",
            "first request ms",
            "second request ms",
            "RSS at ready",
            "problems",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

fn cold_problem(t: &TargetResult) -> String {
    let mut seen = Vec::new();
    for c in &t.cold_starts {
        if let Some(p) = &c.problem {
            let line = format!("{}: {p}", c.outcome);
            if !seen.contains(&line) {
                seen.push(line);
            }
        }
    }
    // When no start worked, the target's problem repeats a start's; it is shown only when
    // the starts say nothing (e.g. not installed).
    if seen.is_empty() {
        if let Some(p) = &t.problem {
            seen.push(p.clone());
        }
    }
    if seen.is_empty() {
        "-".into()
    } else {
        seen.join("; ")
    }
}

/// Subscriptions: held connections, delivery, latency, memory per 1,000.
pub fn subscriptions(s: &ScenarioResult) -> Option<ExtraTable> {
    let info = s.subscriptions.as_ref()?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !super::not_installed(t))
        .map(
            |t| match t.summary.as_ref().and_then(|x| x.subscriptions.as_ref()) {
                None => vec![
                    t.name.clone(),
                    dash(),
                    dash(),
                    dash(),
                    dash(),
                    dash(),
                    dash(),
                    super::validity(t),
                ],
                Some(x) => vec![
                    t.name.clone(),
                    format!("{:.0} / {}", x.held.median, x.connections),
                    x.dropped.to_string(),
                    format!("{:.2}", x.msgs_per_conn_s.median),
                    format!(
                        "{} / {} / {}",
                        fmt_ms(x.latency.p50_us as f64),
                        fmt_ms(x.latency.p99_us as f64),
                        fmt_ms(x.latency.max_us as f64)
                    ),
                    x.gaps.to_string(),
                    x.memory_per_1000_bytes
                        .as_ref()
                        .map(|m| fmt_bytes(m.median as u64))
                        .unwrap_or_else(dash),
                    super::validity(t),
                ],
            },
        )
        .collect();
    Some(ExtraTable {
        title: format!(
            "subscriptions over {}: the server publishes {} msg/s to every subscriber",
            info.transport, info.publish_rate
        ),
        headers: [
            "target",
            "held / opened",
            "dropped",
            "msg/s per connection",
            "delivery p50 / p99 / max ms",
            "missed (seq gaps)",
            "memory per 1,000 subscriptions",
            "validity",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
