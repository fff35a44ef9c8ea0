//! Judges every response: HTTP 200, a JSON object body, no `errors`, `data` non-null and,
//! when an expected answer is known, equal to it as canonical JSON.
//!
//! Parsing every body into a `serde_json::Value` would dominate the generator's CPU, so a
//! [`Validator`] remembers, per variant, the exact status and body bytes last judged and
//! their verdict: identical bytes give an identical verdict, so a byte-equal response is
//! judged by one memcmp. Only a body that differs from the previous one is parsed.

use serde_json::Value;

use crate::canonical;
pub use crate::failure::{excerpt, FailureKind, BODY_EXCERPT};

/// What a request's answer must be: one response, a batch of `n` (a JSON array of as many
/// responses), or incremental parts (`multipart/mixed` parts or `text/event-stream` events,
/// merged).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Shape {
    #[default]
    Single,
    Batch(usize),
    Incremental,
}

/// Full judgement of one response (no cache). `Err` carries the kind and a short detail.
pub fn judge(
    status: u16,
    body: &[u8],
    expected: Option<&Value>,
) -> Result<(), (FailureKind, String)> {
    judge_variant(status, &[], body, expected, Shape::Single)
}

/// [`judge`] of a response of any [`Shape`]: a batch of `n` must be a JSON array of
/// exactly that many responses, each judged as one (against element `i` of `expected`,
/// an array) and named by its place in a failure; incremental parts are read in the
/// framing the response `head` names (a multipart boundary, or an event stream), checked
/// in order, and their merged `data` judged.
pub fn judge_variant(
    status: u16,
    head: &[u8],
    body: &[u8],
    expected: Option<&Value>,
    shape: Shape,
) -> Result<(), (FailureKind, String)> {
    if status != 200 {
        return Err((
            FailureKind::HttpStatus,
            format!("HTTP {status}: {}", excerpt(body)),
        ));
    }
    if shape == Shape::Incremental {
        return judge_incremental(head, body, expected);
    }
    let batch = match shape {
        Shape::Batch(n) => Some(n),
        _ => None,
    };
    let v: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Err((
                FailureKind::BadBody,
                format!("not JSON ({e}): {}", excerpt(body)),
            ))
        }
    };
    let Some(n) = batch else {
        return judge_value(v, expected, body);
    };
    let Value::Array(elements) = v else {
        return Err((
            FailureKind::BadBody,
            format!(
                "a batch of {n} operations was answered by one JSON value, not an array: {}",
                excerpt(body)
            ),
        ));
    };
    if elements.len() != n {
        return Err((
            FailureKind::WrongData,
            format!(
                "a batch of {n} operations was answered with {} elements",
                elements.len()
            ),
        ));
    }
    let wanted = expected.and_then(Value::as_array);
    for (i, e) in elements.into_iter().enumerate() {
        let want = wanted.and_then(|w| w.get(i)).filter(|w| !w.is_null());
        judge_value(e, want, body).map_err(|(kind, detail)| {
            let mut detail = format!("batch element {i}: {detail}");
            detail.truncate(BODY_EXCERPT);
            (kind, detail)
        })?;
    }
    Ok(())
}

/// The parts of an incremental answer, in order, merged and judged as one response.
fn judge_incremental(
    head: &[u8],
    body: &[u8],
    expected: Option<&Value>,
) -> Result<(), (FailureKind, String)> {
    let assembled = if crate::sse::is_event_stream(head) {
        crate::sse::read(body)?
    } else {
        let Some(boundary) = crate::multipart::boundary(head) else {
            return Err((
                FailureKind::Protocol,
                format!(
                    "an incremental request was answered neither with multipart/mixed parts nor with a text/event-stream: {}",
                    excerpt(body)
                ),
            ));
        };
        crate::multipart::read(body, &boundary)?
    };
    if let Some(expected) = expected {
        if let Some(d) = canonical::diff("data", expected, &assembled.data) {
            return Err((FailureKind::WrongData, format!("parts merged: {d}")));
        }
    }
    Ok(())
}

/// One GraphQL response already parsed: an object, no `errors`, `data` non-null and equal
/// to `expected` when given. `body` is quoted in details.
fn judge_value(
    v: Value,
    expected: Option<&Value>,
    body: &[u8],
) -> Result<(), (FailureKind, String)> {
    let Value::Object(mut obj) = v else {
        return Err((
            FailureKind::BadBody,
            format!("JSON but not an object: {}", excerpt(body)),
        ));
    };
    if let Some(detail) = crate::failure::errors_detail(obj.get("errors")) {
        return Err((FailureKind::GraphqlError, detail));
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

    /// Judges a response to `variant`, whose answer has `shape` (`head`: its status line
    /// and headers, read for an incremental answer's boundary).
    pub fn judge(
        &mut self,
        variant: usize,
        status: u16,
        head: &[u8],
        body: &[u8],
        expected: Option<&Value>,
        shape: Shape,
    ) -> Judged<'_> {
        let memo = &mut self.memos[variant];
        if memo.filled && memo.status == status && memo.body == body {
            self.hits += 1;
        } else {
            memo.verdict = judge_variant(status, head, body, expected, shape).err();
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
        assert!(v
            .judge(
                0,
                200,
                b"",
                br#"{"data":{"a":1}}"#,
                Some(&exp),
                Shape::Single
            )
            .is_ok());
        assert!(v
            .judge(
                0,
                200,
                b"",
                br#"{"data":{"a":1}}"#,
                Some(&exp),
                Shape::Single
            )
            .is_ok());
        assert_eq!(v.hits, 1);
        // Same bytes under another status are judged again.
        assert_eq!(
            v.judge(
                0,
                500,
                b"",
                br#"{"data":{"a":1}}"#,
                Some(&exp),
                Shape::Single
            )
            .unwrap_err()
            .0,
            FailureKind::HttpStatus
        );
        assert_eq!(v.hits, 1);
        // A different body is judged in full; wrong data is remembered too.
        assert_eq!(
            v.judge(
                0,
                200,
                b"",
                br#"{"data":{"a":2}}"#,
                Some(&exp),
                Shape::Single
            )
            .unwrap_err()
            .0,
            FailureKind::WrongData
        );
        assert_eq!(
            v.judge(
                0,
                200,
                b"",
                br#"{"data":{"a":2}}"#,
                Some(&exp),
                Shape::Single
            )
            .unwrap_err()
            .0,
            FailureKind::WrongData
        );
        assert_eq!(v.hits, 2);
        // Variants do not share memory.
        assert!(v
            .judge(
                1,
                200,
                b"",
                br#"{"data":{"a":1}}"#,
                Some(&exp),
                Shape::Single
            )
            .is_ok());
        assert_eq!(v.hits, 2);
    }

    #[test]
    fn batches_are_judged_element_by_element() {
        let exp = json!([{"a": 1}, {"a": 2}]);
        let b = |body: &str| judge_variant(200, b"", body.as_bytes(), Some(&exp), Shape::Batch(2));
        assert!(b(r#"[{"data":{"a":1}},{"data":{"a":2}}]"#).is_ok());
        // A short batch is invalid, and says so.
        let e = b(r#"[{"data":{"a":1}}]"#).unwrap_err();
        assert_eq!(e.0, FailureKind::WrongData);
        assert!(
            e.1.contains("batch of 2") && e.1.contains("1 elements"),
            "{}",
            e.1
        );
        // One object instead of an array.
        assert_eq!(
            b(r#"{"data":{"a":1}}"#).unwrap_err().0,
            FailureKind::BadBody
        );
        // A wrong or failed element is named by its place.
        let e = b(r#"[{"data":{"a":1}},{"data":{"a":3}}]"#).unwrap_err();
        assert_eq!(e.0, FailureKind::WrongData);
        assert!(e.1.starts_with("batch element 1: data.a"), "{}", e.1);
        let e = b(r#"[{"errors":[{"message":"no"}]},{"data":{"a":2}}]"#).unwrap_err();
        assert_eq!(
            (e.0, e.1.as_str()),
            (FailureKind::GraphqlError, "batch element 0: errors: no")
        );
        // A null expected element checks only that the element is a valid response.
        let loose = json!([null, {"a": 2}]);
        let body = br#"[{"data":{"z":9}},{"data":{"a":2}}]"#;
        assert!(judge_variant(200, b"", body, Some(&loose), Shape::Batch(2)).is_ok());
        // Not a batch: an array body is not a response.
        assert_eq!(
            judge(200, br#"[{"data":{"a":1}}]"#, None).unwrap_err().0,
            FailureKind::BadBody
        );
    }

    #[test]
    fn incremental_answers_are_read_in_the_framing_their_head_names() {
        let want = json!({"a": 1, "b": 2});
        let first = r#"{"data":{"a":1},"hasNext":true}"#;
        let last = |b: u8| {
            format!(r#"{{"incremental":[{{"data":{{"b":{b}}},"path":[]}}],"hasNext":false}}"#)
        };
        let sse = |b: u8| {
            format!(
                "event: next\ndata: {first}\n\nevent: next\ndata: {}\n\nevent: complete\n\n",
                last(b)
            )
        };
        let multipart = format!(
            "\r\n---\r\n\r\n{first}\r\n---\r\n\r\n{}\r\n-----\r\n",
            last(2)
        );
        let j = |head: &[u8], body: &str| {
            judge_variant(200, head, body.as_bytes(), Some(&want), Shape::Incremental)
        };
        let es = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
        let mp = b"HTTP/1.1 200 OK\r\ncontent-type: multipart/mixed; boundary=\"-\"\r\n\r\n";
        assert_eq!(j(es, &sse(2)), Ok(()));
        assert_eq!(j(mp, &multipart), Ok(()));
        let (k, d) = j(es, &sse(3)).unwrap_err();
        assert_eq!(k, FailureKind::WrongData);
        assert!(d.starts_with("parts merged: data.b"), "{d}");
        // The same events under another content type, and multipart parts under SSE's.
        let plain = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n";
        let (k, d) = j(plain, &sse(2)).unwrap_err();
        assert_eq!(k, FailureKind::Protocol);
        assert!(d.contains("neither with multipart/mixed parts nor"), "{d}");
        assert_eq!(j(es, &multipart).unwrap_err().0, FailureKind::Protocol);
    }
}
