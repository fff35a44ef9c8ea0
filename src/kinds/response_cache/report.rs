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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::TargetKind;
    use crate::results::UpstreamUsage;

    fn target(name: &str, base: Option<&str>, work: &[f64], gateway: bool) -> TargetResult {
        let mut t = TargetResult::new(name.into(), TargetKind::Server);
        t.base = base.map(str::to_string);
        t.settings.response_cache = base.is_some();
        t.trials = work
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let mut x = TrialResult::of_load(i as u32 + 1, String::new(), Default::default());
                if gateway {
                    x.upstream = Some(UpstreamUsage {
                        calls_per_request: *w,
                        ..Default::default()
                    });
                } else {
                    x.by_kind.set(
                        &EXECUTIONS,
                        &ExecutionUsage {
                            executions: 0,
                            requests: 0,
                            per_request: *w,
                        },
                    );
                }
                x
            })
            .collect();
        t
    }

    #[test]
    fn the_hit_ratio_is_the_executions_saved_round_by_round() {
        // A server: one execution per request without the cache, 0.2 with it.
        let base = target("yoga", None, &[1.0, 1.0, 1.0], false);
        let cached = target("yoga-cache", Some("yoga"), &[0.2, 0.25, 0.15], false);
        let h = hit_ratios(&base, &cached);
        assert_eq!(h.len(), 3);
        assert!(
            (h[0] - 0.8).abs() < 1e-9 && (h[2] - 0.85).abs() < 1e-9,
            "{h:?}"
        );
        // A round the variant did not run validly has no ratio.
        let base = target("hive", None, &[1.0, 1.0], false);
        let mut cached = target("hive-cache", Some("hive"), &[0.25, 0.25], false);
        assert_eq!(hit_ratios(&base, &cached), vec![0.75, 0.75]);
        cached.trials[1].valid = false;
        assert_eq!(hit_ratios(&base, &cached).len(), 1);
        // Subgraph calls are not executions: a gateway that counts none has no ratio.
        let base = target("hive", None, &[2.0, 2.0], true);
        let cached = target("hive-cache", Some("hive"), &[0.5, 0.5], true);
        assert!(hit_ratios(&base, &cached).is_empty());
    }

    #[test]
    fn only_mutations_are_writes() {
        assert!(is_mutation(
            "# a comment first\nmutation M($n: String!) { rename(name: $n) }"
        ));
        assert!(!is_mutation("query Q { name }"));
        assert!(!is_mutation("{ name }"));
        assert!(!is_mutation("not graphql"));
    }

    #[test]
    fn staleness_reads_as_its_verdict() {
        let c = |verdict: StalenessVerdict, stale_s: f64| StalenessCheck {
            stale_s,
            stale_reads: 3,
            ttl_s: 2.0,
            verdict,
            detail: Some("still old after 2.7 s".into()),
        };
        assert!(fmt_staleness(Some(&c(StalenessVerdict::Fresh, 0.0))).starts_with("fresh"));
        let s = fmt_staleness(Some(&c(StalenessVerdict::WithinTtl, 1.93)));
        assert!(s.contains("1.9 s") && s.contains("2 s TTL"), "{s}");
        let s = fmt_staleness(Some(&c(StalenessVerdict::Stale, 2.7)));
        assert!(s.starts_with("STALE: still old"), "{s}");
        assert_eq!(fmt_staleness(None), dash());
    }
}
