//! The depth-limit check, a decorating kind: before its load, every target is asked an
//! operation at the limit, which must be answered correctly, and one a level deeper, which
//! must be refused with a GraphQL error (HTTP 200 or 400, `errors` set, no `data`). A
//! server that fails it is a finding, shown in the report, not a failure of the run.
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use gqlbench_engine::{check_once, Endpoint, Variant};
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::operation::request_body;
use crate::catalog::OperationDef;
use crate::kind::ScenarioPlan;
use crate::kind::{Kind, KindDef, ResolveCx};
use crate::measure::ready::problem;
use crate::measure::session::Session;
use crate::progress::Progress;
use crate::results::{DepthCheck, Key, ScenarioResult, TargetResult};
use crate::view::Table;

/// `depth_limit` of a scenario: the limit it checks (see each target's `depth_check`).
pub const LIMIT: Key<u32> = Key::new("depth_limit");

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    list: |v, _, line| {
        format!(
            "{line}, depth limit {}",
            v.get("limit").and_then(|l| l.as_integer()).unwrap_or(0)
        )
    },
    skip_in_check: crate::kind::always,
    not_in_k6: Some(
        "a depth probe expects the server to refuse the query; there is no expected answer to check",
    ),
    ..KindDef::decorator("depth", resolve)
};

/// `[depth]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct DepthSpec {
    /// The depth limit every server is expected to enforce.
    pub limit: u32,
    /// An operation at the limit: must be answered correctly.
    pub allowed: String,
    /// An operation one level deeper: must be refused with a GraphQL error.
    pub rejected: String,
}

/// The depth check of a scenario, around the kind it decorates.
#[derive(Debug)]
pub struct Depth {
    pub limit: u32,
    /// At the limit: answered and checked against its expected data.
    pub allowed: OperationDef,
    /// One level deeper: must be refused with a GraphQL error.
    pub rejected_name: String,
    pub rejected_document: String,
    inner: Arc<dyn Kind>,
}

/// How long one depth probe may take.
const TIMEOUT: Duration = Duration::from_secs(30);

fn resolve(cx: &ResolveCx<'_>, inner: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let (Some(spec), Some(inner)) = (cx.spec::<DepthSpec>("depth")?, inner) else {
        return Ok(None);
    };
    let allowed = cx
        .cat
        .operation(&spec.allowed)
        .map_err(|e| cx.bad(format!("[depth] allowed '{}': {e:#}", spec.allowed)))?;
    let rejected_document = cx
        .cat
        .document(&spec.rejected)
        .map_err(|e| cx.bad(format!("[depth] rejected '{}': {e:#}", spec.rejected)))?;
    Ok(Some(Arc::new(Depth {
        limit: spec.limit,
        allowed,
        rejected_name: spec.rejected,
        rejected_document,
        inner,
    })))
}

impl Kind for Depth {
    fn inner(&self) -> Option<&dyn Kind> {
        Some(self.inner.as_ref())
    }

    fn alternates(&self) -> bool {
        self.inner.alternates()
    }

    fn describe(&self, s: &mut ScenarioResult) {
        self.inner.describe(s);
        s.by_kind.set(&LIMIT, &self.limit);
    }

    // The check comes first: a server whose limit refuses the operation at the limit then
    // fails the answer check, and the depth table says why.
    fn prepare(
        &self,
        sp: &ScenarioPlan,
        sess: &Session,
        tr: &mut TargetResult,
        progress: &Progress,
    ) {
        let c = check(&sess.endpoint, self, TIMEOUT);
        if !c.passed() {
            progress.line(&format!(
                "  {}: DEPTH CHECK FAILED — depth {}: {}; depth {}: {}",
                tr.name,
                self.limit,
                c.at_limit_detail.as_deref().unwrap_or("answered"),
                self.limit + 1,
                c.over_limit_detail
            ));
        }
        tr.depth_check = Some(c);
        self.inner.prepare(sp, sess, tr, progress);
    }

    fn wrong_answer_problem(&self, tr: &TargetResult, detail: &str) -> Option<String> {
        tr.depth_check.as_ref().filter(|d| !d.at_limit_ok).map(|_| {
            format!(
                "its depth limit refuses the operation at the limit, so it is not measured (it counts depth differently): {detail}"
            )
        })
    }
}

pub fn check(endpoint: &Endpoint, plan: &Depth, timeout: Duration) -> DepthCheck {
    let allowed = plan.allowed.to_engine(1);
    let at_limit_detail = allowed
        .variants
        .iter()
        .find_map(|v| problem(&check_once(endpoint, v, timeout)));
    let probe = Variant {
        body: request_body(&plan.rejected_document, None).into(),
        expected_data: None,
        unique: None,
        batch: None,
        incremental: None,
        persisted: None,
    };
    let v = check_once(endpoint, &probe, timeout);
    let (rejected, detail) = judge_refusal(v.status, &v.body, &v.detail);
    DepthCheck {
        limit: plan.limit,
        at_limit_ok: at_limit_detail.is_none(),
        at_limit_detail,
        over_limit_rejected: rejected,
        over_limit_status: v.status,
        over_limit_detail: detail,
    }
}

/// Whether a response refuses the operation: a JSON body with a non-empty `errors` array
/// and no data. Returns the first error message, or what came back instead.
pub fn judge_refusal(status: Option<u16>, body: &[u8], transport_problem: &str) -> (bool, String) {
    let Some(status) = status else {
        return (false, format!("no response: {transport_problem}"));
    };
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        let text = String::from_utf8_lossy(&body[..body.len().min(120)]).to_string();
        return (false, format!("HTTP {status}, body is not JSON: {text}"));
    };
    let first_error = v
        .get("errors")
        .and_then(|e| e.as_array())
        .and_then(|a| a.first())
        .map(|e| {
            e.get("message")
                .and_then(|m| m.as_str())
                .unwrap_or("(error without message)")
                .chars()
                .take(160)
                .collect::<String>()
        });
    let has_data = v.get("data").map(|d| !d.is_null()).unwrap_or(false);
    match (first_error, has_data) {
        (Some(msg), false) => (true, msg),
        (Some(msg), true) => (
            false,
            format!("answered with data and an error (not a refusal): {msg}"),
        ),
        (None, true) => (
            false,
            "answered with data: no depth limit enforced".to_string(),
        ),
        (None, false) => (false, format!("HTTP {status} without errors or data")),
    }
}

/// Depth scenarios: the limit check, execution time and the memory spike.
fn table(s: &ScenarioResult) -> Option<Table> {
    let limit = s.by_kind.get(&LIMIT)?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !crate::view::cells::not_installed(t))
        .map(|t| {
            let d = t.depth_check.as_ref();
            let spike = t
                .summary
                .as_ref()
                .and_then(|x| x.rss_peak_bytes)
                .zip(t.rss_idle_bytes)
                .map(|(p, i)| crate::units::fmt_bytes(p.saturating_sub(i)))
                .unwrap_or_else(crate::view::cells::dash);
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
                .unwrap_or_else(crate::view::cells::dash),
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
                .unwrap_or_else(crate::view::cells::dash),
                t.summary
                    .as_ref()
                    .map(|x| crate::units::fmt_ms(x.latency.p50_us as f64))
                    .unwrap_or_else(crate::view::cells::dash),
                spike,
            ]
        })
        .collect();
    Some(Table {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_and_answers() {
        let (ok, msg) = judge_refusal(
            Some(400),
            br#"{"errors":[{"message":"'deep' exceeds maximum operation depth of 10"}]}"#,
            "",
        );
        assert!(ok);
        assert!(msg.contains("maximum operation depth"));
        let (ok, msg) = judge_refusal(Some(200), br#"{"data":{"user":{"id":"1"}}}"#, "");
        assert!(!ok);
        assert!(msg.contains("no depth limit"), "{msg}");
        let (ok, _) = judge_refusal(
            Some(200),
            br#"{"data":{"a":1},"errors":[{"message":"x"}]}"#,
            "",
        );
        assert!(!ok, "partial data is not a refusal");
        let (ok, msg) = judge_refusal(None, b"", "connection refused");
        assert!(!ok && msg.contains("connection refused"));
        let (ok, _) = judge_refusal(Some(500), b"oops", "");
        assert!(!ok);
    }
}
