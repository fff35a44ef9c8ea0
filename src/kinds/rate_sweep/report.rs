//! The rate sweep's report from a saved result: every step of every trial, the highest
//! rate held (tables) and the latency-versus-throughput curve.
use super::*;

/// Per target, the steps of its last trial with their verdicts.
pub(super) fn tables(s: &ScenarioResult) -> Vec<Table> {
    let mut out = Vec::new();
    for t in &s.targets {
        let Some(steps) = t
            .trials
            .iter()
            .rev()
            .find_map(|x| x.sweep.as_ref())
            .filter(|steps| steps.iter().any(|s| s.rate.is_some()))
        else {
            continue;
        };
        out.push(Table {
            title: format!(
                "{}: rate sweep (last trial; highest rate held: {})",
                t.name,
                t.summary
                    .as_ref()
                    .and_then(|x| x.max_sustained_rate.as_ref())
                    .map(|e| format!(
                        "median {} req/s over {} trial(s)",
                        crate::units::fmt_rps(e.median),
                        e.n
                    ))
                    .unwrap_or_else(|| "none".into())
            ),
            headers: [
                "step",
                "intended req/s",
                "achieved req/s",
                "p50 ms",
                "p99 ms",
                "failed",
                "flags",
                "verdict",
            ]
            .map(String::from)
            .to_vec(),
            rows: steps
                .iter()
                .map(|st| {
                    let verdict = match (st.verdict.as_deref(), &st.reason) {
                        (_, _) if st.phase.as_deref() == Some("probe") => {
                            format!(
                                "probe, {} connections (closed loop)",
                                st.connections.unwrap_or(0)
                            )
                        }
                        (Some("held"), _) => "held".into(),
                        (Some(v), Some(r)) => format!("lost ({v}): {r}"),
                        _ if st.held => "held".into(),
                        _ => "NOT held".into(),
                    };
                    vec![
                        st.phase.clone().unwrap_or_else(|| "-".into()),
                        st.rate.map_or("-".into(), crate::units::fmt_rps),
                        crate::units::fmt_rps(st.achieved_rps),
                        crate::units::fmt_ms(st.p50_us as f64),
                        crate::units::fmt_ms(st.p99_us as f64),
                        st.failed.to_string(),
                        st.flags
                            .iter()
                            .map(|f| f.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                        verdict,
                    ]
                })
                .collect(),
        });
    }
    out
}

/// The sweep in report.html: p99 against achieved req/s per target and trial, steps in the
/// order of their intended rates (the closed-loop probe left out).
pub(super) fn html(s: &ScenarioResult) -> Vec<crate::view::Figure> {
    vec![crate::view::curve::Curve {
        kind: "rate-sweep",
        title: "Rate sweep: p99 latency against throughput",
        about: "Each open-model step of a trial (trials[].sweep[] with a rate; the closed-loop probe left out) is a point at its achieved req/s and its p99 measured from the intended send time, joined in the order of the intended rates. A dot is a step that held (p99 within the limit, every request sent and answered right), a ring one that did not (its verdict in the table below). The highest dot is the target's sustained rate.".into(),
        steps: |tr| {
            let mut v: Vec<&SweepStep> = tr
                .sweep
                .iter()
                .flatten()
                .filter(|x| x.rate.is_some() && x.phase.as_deref() != Some("probe"))
                .collect();
            v.sort_by(|a, b| a.rate.unwrap_or(0.0).total_cmp(&b.rate.unwrap_or(0.0)));
            v
        },
        note: |_| None,
    }
    .figure(s)]
}
