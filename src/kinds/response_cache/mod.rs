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
mod report;
mod staleness;

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
use crate::catalog::humantime_serde_compat as hd;
use crate::catalog::scenario::Model;
use crate::catalog::OperationDef;
use crate::kind::ScenarioPlan;
use crate::kind::{Kind, KindDef, ResolveCx, TrialCx};
use crate::measure::session::Session;
use crate::progress::Progress;
use crate::results::{ScenarioResult, StalenessVerdict, TargetResult, TargetStatus, TrialResult};
use crate::view::cells::dash;
use crate::view::Table;
pub use report::hit_ratios;
use report::*;
use staleness::*;

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    list: |v, _, line| {
        let ttl = v.get("ttl").and_then(|t| t.as_str()).unwrap_or("?");
        format!("{line}, response cache on vs off (TTL {ttl}): hit ratio, speed-up, staleness")
    },
    not_in_k6: None,
    ..KindDef::decorator("response_cache", resolve)
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

#[cfg(test)]
mod tests;
