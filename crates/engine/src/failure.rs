//! Why a request failed: the kinds every failure is counted by, whether a kind came with
//! a response, and their dense index for per-kind arrays. Plain data, below the code that
//! judges (`validate`) and reads (`multipart`, `sse`) responses.
use serde::{Deserialize, Serialize};

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
    /// An incremental (multipart or SSE) response whose framing is malformed: no boundary,
    /// a truncated or unparsable part or event stream, parts out of the protocol's order.
    Protocol,
}

impl FailureKind {
    pub const ALL: [FailureKind; 9] = [
        FailureKind::Connect,
        FailureKind::Timeout,
        FailureKind::Closed,
        FailureKind::HttpStatus,
        FailureKind::BadBody,
        FailureKind::GraphqlError,
        FailureKind::WrongData,
        FailureKind::Headers,
        FailureKind::Protocol,
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

/// A response's `errors` when present and not empty: "errors: <the first one's message>"
/// (its canonical JSON when it has no message), cut to [`BODY_EXCERPT`] bytes.
pub(crate) fn errors_detail(errors: Option<&serde_json::Value>) -> Option<String> {
    use serde_json::Value;
    let errors = match errors {
        None | Some(Value::Null) => return None,
        Some(Value::Array(a)) if a.is_empty() => return None,
        Some(e) => e,
    };
    let first = match errors {
        Value::Array(a) => a.first().unwrap_or(errors),
        other => other,
    };
    let msg = first
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| crate::canonical::to_canonical_string(first));
    let mut detail = format!("errors: {msg}");
    let mut cut = detail.len().min(BODY_EXCERPT);
    while !detail.is_char_boundary(cut) {
        cut -= 1;
    }
    detail.truncate(cut);
    Some(detail)
}
