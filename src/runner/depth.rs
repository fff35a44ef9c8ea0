//! The depth-limit check: an operation at the limit must be answered correctly, one a level
//! deeper must be refused with a GraphQL error (HTTP 200 or 400, `errors` set, no `data`).
use std::time::Duration;

use gqlbench_engine::{check_once, Endpoint, Variant};
use serde_json::Value;

use super::ready::problem;
use crate::catalog::operation::request_body;
use crate::plan::DepthPlan;
use crate::results::DepthCheck;

pub fn check(endpoint: &Endpoint, plan: &DepthPlan, timeout: Duration) -> DepthCheck {
    let allowed = plan.allowed.to_engine(1);
    let at_limit_detail = allowed
        .variants
        .iter()
        .find_map(|v| problem(&check_once(endpoint, v, timeout)));
    let probe = Variant {
        body: request_body(&plan.rejected_document, None).into(),
        expected_data: None,
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
