//! Response cache, a decorating kind: a server or gateway with its response cache on (a
//! target with `settings.response_cache` and a `base` without it) against the same target
//! with it off, in the same rounds, under a mix of repeated and never-repeated requests
//! (a case's `unique` variable takes a new value on every request). Every answer is
//! checked as always, cached or not. Around the load it measures:
//!
//! - the hit ratio, from the executions the cache saved: the target's own count (`GET
//!   /counters` on GQLBENCH_COUNTERS_PORT: root fields a Node server resolved, operations a
//!   gateway executed), per request, against its base's in the same round; a gateway's
//!   subgraph calls come along;
//! - the speed-up: the req/s change over the base, paired by round;
//! - staleness: before the load, an answer is read (and cached), a write through the
//!   target changes it, and reads follow until the new answer shows; then the same to undo
//!   it. A cache may serve the old answer for at most its time to live (GQLBENCH_CACHE_TTL_MS,
//!   the scenario's `ttl`, given to every target); an old answer later than that, or an
//!   answer that is neither, fails the target.
mod record;

pub use record::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use gqlbench_engine::{canonical_eq, check_with_headers, Endpoint, Variant};
use serde::Deserialize;
use serde_json::Value;

use super::overhead::{median_of, paired};
use crate::catalog::scenario::Model;
use crate::catalog::target::humantime_serde_compat as hd;
use crate::catalog::OperationDef;
use crate::kind::ScenarioPlan;
use crate::kind::{Kind, KindDef, ResolveCx, TrialCx};
use crate::measure::session::Session;
use crate::progress::Progress;
use crate::results::{ScenarioResult, StalenessVerdict, TargetResult, TargetStatus, TrialResult};
use crate::view::cells::dash;
use crate::view::Table;

pub const DEF: KindDef = KindDef {
    section: "response_cache",
    resolve,
    decorator: true,
    tables: |s| table(s).into_iter().collect(),
    charts: crate::kind::no_charts,
    html: crate::kind::no_html,
    list: |v, _, line| {
        let ttl = v.get("ttl").and_then(|t| t.as_str()).unwrap_or("?");
        format!("{line}, response cache on vs off (TTL {ttl}): hit ratio, speed-up, staleness")
    },
    skip_in_check: crate::kind::never,
    not_in_k6: None,
};

/// The environment variable that gives every target the caches' time to live, in ms.
pub const TTL_ENV: &str = "GQLBENCH_CACHE_TTL_MS";

/// How long after its time to live a cache may still be seen serving an old answer: the
/// polling's own step and the caches' timer resolution.
const TTL_SLACK: Duration = Duration::from_millis(500);
/// Time between reads while a cache still serves the old answer.
const POLL: Duration = Duration::from_millis(25);
const TIMEOUT: Duration = Duration::from_secs(5);

/// `[response_cache]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct Spec {
    #[serde(with = "hd")]
    ttl: Duration,
    staleness: Option<StalenessOps>,
}

#[derive(Debug)]
pub struct ResponseCache {
    ttl: Duration,
    staleness: Option<Staleness>,
    inner: Arc<dyn Kind>,
}

/// The staleness check's operations, resolved: `read`'s two cases are its answer before
/// the write and after it; `write`'s two cases are the change and its undoing.
#[derive(Debug)]
struct Staleness {
    ops: StalenessOps,
    read: [Variant; 2],
    write: [Variant; 2],
}

fn resolve(cx: &ResolveCx<'_>, inner: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let (Some(spec), Some(inner)) = (cx.spec::<Spec>("response_cache")?, inner) else {
        return Ok(None);
    };
    // Apollo Server's cache hints are whole seconds: every cache gets the same TTL.
    if spec.ttl.is_zero() || spec.ttl.subsec_nanos() != 0 {
        return Err(cx
            .bad(format!(
                "[response_cache] ttl = \"{}\": give a whole number of seconds, at least 1 (e.g. \"2s\"): Apollo Server's cache hints are in seconds",
                humantime::format_duration(spec.ttl)
            ))
            .into());
    }
    // Every cache runs beside its base, or there is no hit ratio or speed-up to tell.
    let named = cx.def.file.targets.as_deref().unwrap_or_default();
    let mut cached = 0;
    for n in named {
        let Ok(t) = cx.cat.target(n) else { continue };
        if !t.settings.response_cache {
            continue;
        }
        cached += 1;
        let base = t.base.as_ref().and_then(|b| cx.cat.target(b).ok());
        match base {
            Some(b) if named.contains(&b.name) && !b.settings.response_cache => {}
            _ => {
                return Err(cx
                    .bad(format!(
                        "[response_cache]: target '{n}' has its response cache on, but its base ({}) is not among `targets` with the cache off; list the base there",
                        t.base.as_deref().unwrap_or("none: set `base` in its target.toml")
                    ))
                    .into())
            }
        }
    }
    if cached == 0 {
        return Err(cx
            .bad("[response_cache] compares targets with their response cache on (settings.response_cache = true in target.toml) with their base, but `targets` names none".into())
            .into());
    }
    let staleness = match spec.staleness {
        None => None,
        Some(ops) => Some(staleness_ops(cx, ops)?),
    };
    Ok(Some(Arc::new(ResponseCache {
        ttl: spec.ttl,
        staleness,
        inner,
    })))
}

/// The staleness check's operations, checked: two cases each, the read's with the same
/// variables, the write a mutation.
fn staleness_ops(cx: &ResolveCx<'_>, ops: StalenessOps) -> Result<Staleness> {
    let two = |op: &OperationDef, what: &str| -> Result<[Variant; 2]> {
        let v = op.to_engine(1).variants;
        <[Variant; 2]>::try_from(v).map_err(|v| {
            cx.bad(format!(
                "[response_cache.staleness] {what} = \"{}\": its expected answers ({}) need exactly two cases, {} (it has {})",
                op.name,
                op.expected_path.display(),
                if what == "read" {
                    "the answer before the write and the answer after it, with the same variables"
                } else {
                    "the write that changes the read's answer and the one that undoes it"
                },
                v.len()
            ))
            .into()
        })
    };
    let read_op = cx.cat.operation(&ops.read)?;
    let write_op = cx.cat.operation(&ops.write)?;
    let read = two(&read_op, "read")?;
    let write = two(&write_op, "write")?;
    if read_op.cases[0].variables != read_op.cases[1].variables {
        return Err(cx
            .bad(format!(
                "[response_cache.staleness] read = \"{}\": its two cases must have the same variables (one read, answered before and after the write); see {}",
                ops.read,
                read_op.expected_path.display()
            ))
            .into());
    }
    if !is_mutation(&write_op.document) {
        return Err(cx
            .bad(format!(
                "[response_cache.staleness] write = \"{}\": {} must be a mutation (a response cache never caches one, and may invalidate what it wrote)",
                ops.write,
                write_op.document_path.display()
            ))
            .into());
    }
    Ok(Staleness { ops, read, write })
}

/// Whether every operation of `document` is a mutation.
fn is_mutation(document: &str) -> bool {
    use async_graphql_parser::types::{DocumentOperations, OperationType};
    let Ok(doc) = async_graphql_parser::parse_query(document) else {
        return false;
    };
    match doc.operations {
        DocumentOperations::Single(op) => op.node.ty == OperationType::Mutation,
        DocumentOperations::Multiple(ops) => {
            ops.values().all(|op| op.node.ty == OperationType::Mutation)
        }
    }
}

impl Kind for ResponseCache {
    fn inner(&self) -> Option<&dyn Kind> {
        Some(self.inner.as_ref())
    }

    fn describe(&self, s: &mut ScenarioResult) {
        self.inner.describe(s);
        s.by_kind.set(
            &INFO,
            &ResponseCacheInfo {
                ttl_s: self.ttl.as_secs_f64(),
                staleness: self.staleness.as_ref().map(|x| x.ops.clone()),
            },
        );
    }

    fn env(&self, env: &mut BTreeMap<String, String>) {
        self.inner.env(env);
        env.insert(TTL_ENV.into(), self.ttl.as_millis().to_string());
    }

    fn counts_executions(&self) -> bool {
        true
    }

    /// The staleness check, on the targets with a cache, before their answers are checked
    /// (the check leaves the data as it found it).
    fn prepare(
        &self,
        sp: &ScenarioPlan,
        sess: &Session,
        tr: &mut TargetResult,
        progress: &Progress,
    ) {
        self.inner.prepare(sp, sess, tr, progress);
        let Some(st) = self
            .staleness
            .as_ref()
            .filter(|_| tr.settings.response_cache)
        else {
            return;
        };
        let c = staleness_check(&sess.endpoint, &sp.load.headers, st, self.ttl);
        if c.verdict.fails() {
            tr.status = TargetStatus::WrongAnswers;
            tr.problem = Some(format!(
                "response cache: {}",
                c.detail.as_deref().unwrap_or_default()
            ));
        }
        tr.by_kind.set(&STALENESS, &c);
    }

    fn trial(&self, cx: &mut TrialCx<'_>) -> TrialResult {
        let before = cx.sess.executions();
        let mut t = self.inner.trial(cx);
        if cx.sess.counters_port.is_none() {
            return t;
        }
        match (before, cx.sess.executions()) {
            (Some(a), Some(b)) => {
                // The server counts every request the trial sent, warm-up and priming too.
                let sent = t.requests_sent();
                let executions = b.saturating_sub(a);
                t.by_kind.set(
                    &EXECUTIONS,
                    &ExecutionUsage {
                        executions,
                        requests: sent,
                        per_request: if sent > 0 {
                            executions as f64 / sent as f64
                        } else {
                            0.0
                        },
                    },
                );
            }
            _ => {
                t.valid = false;
                t.problems.push(
                    "the server's execution counters were unreadable: did it stop serving them?"
                        .into(),
                );
            }
        }
        t
    }
}

/// What one read of the staleness check answered.
enum Read {
    Before,
    After,
    Other(String),
}

fn read(endpoint: &Endpoint, headers: &[(String, String)], st: &Staleness) -> Read {
    let v = check_with_headers(endpoint, &st.read[0], headers, TIMEOUT);
    if v.is_ok() {
        return Read::Before;
    }
    let data = serde_json::from_slice::<Value>(&v.body)
        .ok()
        .and_then(|b| b.get("data").cloned());
    match (data, &st.read[1].expected_data) {
        (Some(d), Some(after)) if canonical_eq(&d, after) => Read::After,
        _ => Read::Other(crate::measure::ready::problem(&v).unwrap_or_default()),
    }
}

/// Reads, writes and reads again until each write shows (see the module header).
fn staleness_check(
    endpoint: &Endpoint,
    headers: &[(String, String)],
    st: &Staleness,
    ttl: Duration,
) -> StalenessCheck {
    let mut c = StalenessCheck {
        stale_s: 0.0,
        stale_reads: 0,
        ttl_s: ttl.as_secs_f64(),
        verdict: StalenessVerdict::Fresh,
        detail: None,
    };
    let wrong = |mut c: StalenessCheck, detail: String| {
        c.verdict = StalenessVerdict::Wrong;
        c.detail = Some(detail);
        c
    };
    // Twice: the first answer is cached, the second may come from the cache.
    for _ in 0..2 {
        if let Read::After | Read::Other(_) = read(endpoint, headers, st) {
            return wrong(
                c,
                format!(
                    "{} did not give its first expected answer before any write",
                    st.ops.read
                ),
            );
        }
    }
    for (i, write) in st.write.iter().enumerate() {
        let v = check_with_headers(endpoint, write, headers, TIMEOUT);
        if let Some(p) = crate::measure::ready::problem(&v) {
            return wrong(
                c,
                format!("the write {} (case {i}) failed: {p}", st.ops.write),
            );
        }
        let written = Instant::now();
        loop {
            // The first write moves the read from its first answer to its second; the
            // second write moves it back.
            match (read(endpoint, headers, st), i) {
                (Read::After, 0) | (Read::Before, 1) => break,
                (Read::Other(p), _) => {
                    return wrong(
                        c,
                        format!(
                            "after the write {} (case {i}), {} answered neither the old nor the new answer: {p}",
                            st.ops.write, st.ops.read
                        ),
                    )
                }
                _ => {}
            }
            let age = written.elapsed();
            c.stale_reads += 1;
            c.stale_s = c.stale_s.max(age.as_secs_f64());
            if age > ttl + TTL_SLACK {
                c.verdict = StalenessVerdict::Stale;
                c.detail = Some(format!(
                    "still served the answer from before the write {} (case {i}) {:.1} s after it, past its time to live of {:.0} s",
                    st.ops.write,
                    age.as_secs_f64(),
                    ttl.as_secs_f64()
                ));
                return c;
            }
            std::thread::sleep(POLL);
        }
    }
    if c.stale_reads > 0 {
        c.verdict = StalenessVerdict::WithinTtl;
    }
    c
}

/// Executions per request of a trial: what the target itself counted, NaN when it did not.
fn executions(t: &TrialResult) -> f64 {
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

/// "fresh at once", "old answer for 1.9 s (TTL 2 s)", "STALE: ..." or "-".
fn fmt_staleness(c: Option<&StalenessCheck>) -> String {
    let Some(c) = c else { return dash() };
    match c.verdict {
        StalenessVerdict::Fresh => "fresh at once (invalidated by the write)".into(),
        StalenessVerdict::WithinTtl => format!(
            "old answer for up to {:.1} s after a write (within its {:.0} s TTL: invalidates by TTL only)",
            c.stale_s, c.ttl_s
        ),
        v => format!(
            "{}: {}",
            if v == StalenessVerdict::Stale { "STALE" } else { "WRONG" },
            c.detail.as_deref().unwrap_or_default()
        ),
    }
}

fn table(s: &ScenarioResult) -> Option<Table> {
    let info = s.by_kind.get(&INFO)?;
    let closed = s.load.model == Model::Closed;
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    let rows = s
        .targets
        .iter()
        .map(|t| {
            let per_request = median_of(t, |x| x.by_kind.get(&EXECUTIONS).map(|e| e.per_request));
            let calls = median_of(t, |x| x.upstream.as_ref().map(|u| u.calls_per_request));
            let base = super::overhead::base_in(s, t);
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
