//! The response-cache scenario's report from a saved result: executions per request, hit
//! ratios against the base, subgraph calls, and the staleness verdict.
use super::*;

/// Executions per request of a trial: what the target itself counted, NaN when it did not.
pub(super) fn executions(t: &TrialResult) -> f64 {
    t.by_kind
        .get(&EXECUTIONS)
        .map_or(f64::NAN, |e| e.per_request)
}

/// The hit ratio of `variant` in each round both ran validly: 1 − its executions per
/// request over its base's (the requests its cache answered without executing them).
pub fn hit_ratios(base: &TargetResult, variant: &TargetResult) -> Vec<f64> {
    paired(base, variant, executions)
        .into_iter()
        .filter(|(b, v)| *b > 0.0 && v.is_finite())
        .map(|(b, v)| (1.0 - v / b).clamp(0.0, 1.0))
        .collect()
}

pub(super) fn table(s: &ScenarioResult) -> Option<Table> {
    let info = s.by_kind.get(&INFO)?;
    let closed = s.load.model == Model::Closed;
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    let rows = s
        .targets
        .iter()
        .map(|t| {
            let per_request = median_of(t, |x| x.by_kind.get(&EXECUTIONS).map(|e| e.per_request));
            let calls = median_of(t, |x| x.upstream.as_ref().map(|u| u.calls_per_request));
            let base = crate::kinds::overhead::base_in(s, t);
            let (hits, speed) = match base {
                Err(why) if t.settings.response_cache => (dash(), why),
                Ok(Some(b)) if t.settings.response_cache => {
                    let h = hit_ratios(b, t);
                    let hits = match h.len() {
                        0 => dash(),
                        1 => pct(h[0]),
                        n => format!(
                            "{} ({}–{}, {n} rounds)",
                            pct(crate::stats::mean(&h)),
                            pct(h.iter().copied().fold(f64::INFINITY, f64::min)),
                            pct(h.iter().copied().fold(0.0, f64::max))
                        ),
                    };
                    let change =
                        crate::stats::paired_change(&paired(b, t, |x| x.load.throughput_rps));
                    let speed = match (closed, change) {
                        (false, _) | (_, None) => dash(),
                        (true, Some(c)) => {
                            let x = |p: f64| 1.0 + p / 100.0;
                            let core = format!(
                                "×{:.2} [{:.2}, {:.2}]",
                                x(c.pct),
                                x(c.ci_low_pct),
                                x(c.ci_high_pct)
                            );
                            if c.significant {
                                core
                            } else {
                                format!("{core}: below resolution")
                            }
                        }
                    };
                    (hits, speed)
                }
                _ => ("(cache off)".to_string(), "(base)".to_string()),
            };
            let fmt = |x: Option<f64>| x.map(|w| format!("{w:.3}")).unwrap_or_else(dash);
            vec![
                t.name.clone(),
                hits,
                fmt(per_request),
                fmt(calls),
                speed,
                fmt_staleness(t.by_kind.get(&STALENESS).as_ref()),
            ]
        })
        .collect();
    let staleness = match &info.staleness {
        Some(o) => format!(
            "; after a write: {} read, written through the target by {}, and read every {} ms until the new answer showed (an old answer past the TTL + {} ms fails the target)",
            o.read,
            o.write,
            POLL.as_millis(),
            TTL_SLACK.as_millis()
        ),
        None => "; staleness after a write: not checked in this scenario".into(),
    };
    Some(Table {
        title: format!(
            "response cache on vs off (TTL {:.0} s): hit ratio = 1 − executions per request with the cache / without it (its base) in the same round, mean over the rounds both ran validly (range); executions = what the target counted itself: root fields a server resolved, operations a gateway executed, per request sent (warm-up included; median of valid trials); subgraph calls / request: what reached a gateway's subgraphs (fewer than its misses when it merges identical in-flight fetches); speed-up = req/s over the base, paired by round, with its 95% interval{staleness}",
            info.ttl_s
        ),
        headers: [
            "target",
            "hit ratio",
            "executions / request",
            "subgraph calls / request",
            "speed-up (req/s, closed model)",
            "after a write",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
