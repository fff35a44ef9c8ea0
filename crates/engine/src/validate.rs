//! Judges every response: HTTP 200, a JSON object body, no `errors`, `data` non-null and,
//! when an expected answer is known, equal to it as canonical JSON.
//!
//! Parsing every body into a `serde_json::Value` would dominate the generator's CPU, so a
//! [`Validator`] remembers, per variant, the exact status and body bytes last judged and
//! their verdict: identical bytes give an identical verdict, so a byte-equal response is
//! judged by one memcmp. Only a body that differs from the previous one is parsed.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::canonical;

/// Why a request failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The TCP connection could not be opened.
    Connect,
    /// No complete response within the timeout.
    Timeout,
    /// The connection was closed or reset before a complete response arrived.
    Closed,
    /// HTTP status other than 200.
    HttpStatus,
    /// A response arrived but is not JSON, or its HTTP framing is malformed.
    BadBody,
    /// The response carries GraphQL `errors`.
    GraphqlError,
    /// `data` is null, missing, or differs from the expected answer.
    WrongData,
    /// The response lacks the headers the plan requires (see [`crate::HeaderRule`]).
    Headers,
}

impl FailureKind {
    pub const ALL: [FailureKind; 8] = [
        FailureKind::Connect,
        FailureKind::Timeout,
        FailureKind::Closed,
        FailureKind::HttpStatus,
        FailureKind::BadBody,
        FailureKind::GraphqlError,
        FailureKind::WrongData,
        FailureKind::Headers,
    ];
    /// Number of kinds (length of per-kind arrays).
    pub const COUNT: usize = Self::ALL.len();

    /// Dense index for per-kind arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether a failure of this kind came with a response. Requests without one
    /// (connect failures, timeouts, closed connections) are counted by kind only: they add
    /// no latency sample and no throughput, since nothing was served.
    pub fn answered(self) -> bool {
        !matches!(
            self,
            FailureKind::Connect | FailureKind::Timeout | FailureKind::Closed
        )
    }
}

/// Bytes of a body quoted in failure details.
pub const BODY_EXCERPT: usize = 300;

/// The first bytes of a body as text, for failure details.
pub fn excerpt(body: &[u8]) -> String {
    let cut = body.len().min(BODY_EXCERPT);
    let mut s = String::from_utf8_lossy(&body[..cut]).into_owned();
    if body.len() > cut {
        s.push_str("...");
    }
    s
}

/// Full judgement of one response (no cache). `Err` carries the kind and a short detail.
pub fn judge(
    status: u16,
    body: &[u8],
    expected: Option<&Value>,
) -> Result<(), (FailureKind, String)> {
    if status != 200 {
        return Err((
            FailureKind::HttpStatus,
            format!("HTTP {status}: {}", excerpt(body)),
        ));
    }
    let v: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Err((
                FailureKind::BadBody,
                format!("not JSON ({e}): {}", excerpt(body)),
            ))
        }
    };
    let Value::Object(mut obj) = v else {
        return Err((
            FailureKind::BadBody,
            format!("JSON but not an object: {}", excerpt(body)),
        ));
    };
    match obj.get("errors") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) if a.is_empty() => {}
        Some(errors) => {
            let first = match errors {
                Value::Array(a) => a.first().unwrap_or(errors),
                other => other,
            };
            let msg = first
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| canonical::to_canonical_string(first));
            let mut detail = format!("errors: {msg}");
            detail.truncate(BODY_EXCERPT);
            return Err((FailureKind::GraphqlError, detail));
        }
    }
    let data = match obj.remove("data") {
        None | Some(Value::Null) => {
            return Err((
                FailureKind::WrongData,
                "data is missing or null".to_string(),
            ));
        }
        Some(d) => d,
    };
    if let Some(expected) = expected {
        if let Some(d) = canonical::diff("data", expected, &data) {
            return Err((FailureKind::WrongData, d));
        }
    }
    Ok(())
}

#[derive(Debug, Default)]
struct Memo {
    filled: bool,
    status: u16,
    body: Vec<u8>,
    verdict: Option<(FailureKind, String)>,
}

/// A judge with a per-variant memory of the last body (see the module doc).
#[derive(Debug)]
pub struct Validator {
    memos: Vec<Memo>,
    /// Responses judged by memcmp only (for tests and diagnostics).
    pub hits: u64,
}

/// The verdict on one response; the detail borrows the validator's memory.
pub type Judged<'a> = Result<(), (FailureKind, &'a str)>;

impl Validator {
    /// `variants` = number of distinct variant ids.
    pub fn new(variants: usize) -> Validator {
        Validator {
            memos: (0..variants).map(|_| Memo::default()).collect(),
            hits: 0,
        }
    }

    pub fn judge(
        &mut self,
        variant: usize,
        status: u16,
        body: &[u8],
        expected: Option<&Value>,
    ) -> Judged<'_> {
        let memo = &mut self.memos[variant];
        if memo.filled && memo.status == status && memo.body == body {
            self.hits += 1;
        } else {
            memo.verdict = judge(status, body, expected).err();
            memo.status = status;
            memo.body.clear();
            memo.body.extend_from_slice(body);
            memo.filled = true;
        }
        match &memo.verdict {
            None => Ok(()),
            Some((k, d)) => Err((*k, d.as_str())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind(status: u16, body: &str, expected: Option<Value>) -> Option<FailureKind> {
        judge(status, body.as_bytes(), expected.as_ref())
            .err()
            .map(|e| e.0)
    }

    #[test]
    fn kinds() {
        assert_eq!(kind(200, r#"{"data":{"a":1}}"#, None), None);
        assert_eq!(kind(200, r#"{"data":{"a":1},"errors":[]}"#, None), None);
        assert_eq!(
            kind(500, r#"{"data":{"a":1}}"#, None),
            Some(FailureKind::HttpStatus)
        );
        assert_eq!(
            kind(200, r#"{"data":{"a":1}"#, None),
            Some(FailureKind::BadBody)
        );
        assert_eq!(kind(200, r#"[1]"#, None), Some(FailureKind::BadBody));
        assert_eq!(
            kind(200, r#"{"data":null,"errors":[{"message":"boom"}]}"#, None),
            Some(FailureKind::GraphqlError)
        );
        assert_eq!(
            kind(200, r#"{"data":null}"#, None),
            Some(FailureKind::WrongData)
        );
        assert_eq!(kind(200, r#"{}"#, None), Some(FailureKind::WrongData));
        assert_eq!(
            kind(200, r#"{"data":{"b":2,"a":1}}"#, Some(json!({"a":1,"b":2}))),
            None
        );
        assert_eq!(
            kind(200, r#"{"data":{"b":3,"a":1}}"#, Some(json!({"a":1,"b":2}))),
            Some(FailureKind::WrongData)
        );
    }

    #[test]
    fn details_are_short_and_useful() {
        let e = judge(200, br#"{"errors":[{"message":"boom"}]}"#, None).unwrap_err();
        assert_eq!(e.1, "errors: boom");
        let e = judge(503, &[b'x'; 1000], None).unwrap_err();
        assert!(
            e.1.starts_with("HTTP 503: xxx") && e.1.len() < 320,
            "{}",
            e.1
        );
        let e = judge(200, br#"{"data":{"a":2}}"#, Some(&json!({"a":1}))).unwrap_err();
        assert_eq!(e.1, "data.a: expected 1, got 2");
    }

    #[test]
    fn memo_gives_same_verdict_without_parsing() {
        let mut v = Validator::new(2);
        let exp = json!({"a": 1});
        assert!(v.judge(0, 200, br#"{"data":{"a":1}}"#, Some(&exp)).is_ok());
        assert!(v.judge(0, 200, br#"{"data":{"a":1}}"#, Some(&exp)).is_ok());
        assert_eq!(v.hits, 1);
        // Same bytes under another status are judged again.
        assert_eq!(
            v.judge(0, 500, br#"{"data":{"a":1}}"#, Some(&exp))
                .unwrap_err()
                .0,
            FailureKind::HttpStatus
        );
        assert_eq!(v.hits, 1);
        // A different body is judged in full; wrong data is remembered too.
        assert_eq!(
            v.judge(0, 200, br#"{"data":{"a":2}}"#, Some(&exp))
                .unwrap_err()
                .0,
            FailureKind::WrongData
        );
        assert_eq!(
            v.judge(0, 200, br#"{"data":{"a":2}}"#, Some(&exp))
                .unwrap_err()
                .0,
            FailureKind::WrongData
        );
        assert_eq!(v.hits, 2);
        // Variants do not share memory.
        assert!(v.judge(1, 200, br#"{"data":{"a":1}}"#, Some(&exp)).is_ok());
        assert_eq!(v.hits, 2);
    }
}
