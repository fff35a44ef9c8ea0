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
