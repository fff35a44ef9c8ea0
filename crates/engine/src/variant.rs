//! One request of an operation ([`Variant`]): its body and expected answer, and the forms
//! it may take beside one plain POST (a batch, an incremental request, a persisted query's
//! short form, a number made unique per request); what its answer must then be
//! ([`Shape`]), and the checks that refuse a variant whose forms cannot go together.
use bytes::Bytes;

use crate::validate::Shape;

/// One concrete request of an operation (one set of variables) and its expected answer.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Full JSON request body, e.g. `{"query":"...","variables":{...}}`.
    pub body: Bytes,
    /// Expected value of `data`; `None` checks only status, JSON, no errors, data non-null.
    pub expected_data: Option<serde_json::Value>,
    /// A number in the body that every request replaces with one no other request of this
    /// process has sent (a response cache then sees a new request each time).
    pub unique: Option<UniqueNumber>,
    /// A batch (as Apollo Client's BatchHttpLink sends): the body is a JSON array of this
    /// many operations, and the answer must be an array of as many responses, element `i`
    /// judged against element `i` of `expected_data` (then an array of `data` values, a
    /// null element checking only that the element is a valid response).
    pub batch: Option<usize>,
    /// An incremental request (`@defer`/`@stream`): sent with this `Accept` header (e.g.
    /// `multipart/mixed` or `text/event-stream`), answered in `multipart/mixed` parts or
    /// `text/event-stream` events (as the answer's Content-Type says) that are checked in
    /// order and merged, the merged `data` judged against `expected_data` (the answer of the same
    /// query without `@defer`). The time to the first part is recorded beside the latency
    /// (to the last).
    pub incremental: Option<String>,
    /// A persisted query (APQ): sent first in its short form (see [`Persisted`]); a
    /// server that does not know it is sent `body` (the document with its hash) on the
    /// same connection, as Apollo Client's persisted-queries link does.
    pub persisted: Option<Persisted>,
}

/// Where a variant's body holds a decimal number to be made unique per request: the
/// `len` bytes at `at` (the number the body was written with, so the body as it stands is
/// a valid request) are replaced by `from + n`, with `n` counting up over the whole
/// process (every run, every worker). The answer must not depend on the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniqueNumber {
    pub at: usize,
    pub len: usize,
    pub from: u64,
}

/// Most operations in one batched request (Apollo Client sends at most 10 by default;
/// servers cap it lower or not at all).
pub const MAX_BATCH: usize = 1000;

/// The short form of a persisted query: its hash without its text.
#[derive(Debug, Clone)]
pub struct Persisted {
    /// A POST body (`{"extensions":{"persistedQuery":{...}},"variables":...}`), or, with
    /// `get`, the query string of a GET request (`extensions=...&variables=...`).
    pub short: Bytes,
    pub get: bool,
}

impl Variant {
    /// What its answer must be: incremental parts, a batch, or one response.
    pub fn shape(&self) -> Shape {
        match (&self.incremental, self.batch) {
            (Some(_), _) => Shape::Incremental,
            (None, Some(n)) => Shape::Batch(n),
            (None, None) => Shape::Single,
        }
    }

    /// Why the variant's forms cannot go together, or what its batch lacks.
    pub(crate) fn check_form(&self) -> Result<(), String> {
        if let Some(n) = self.batch {
            let expected = self
                .expected_data
                .as_ref()
                .map(|e| e.as_array().map(Vec::len));
            if n == 0 || n > MAX_BATCH || expected.is_some_and(|len| len != Some(n)) {
                return Err(format!(
                    "a batch of {n} needs 1 to {MAX_BATCH} operations and an array of as many expected answers"
                ));
            }
            if self.unique.is_some() {
                return Err("a batch cannot carry a unique number".into());
            }
        }
        if let Some(accept) = &self.incremental {
            if self.batch.is_some() || accept.is_empty() || accept.contains(['\r', '\n']) {
                return Err("an incremental request needs an Accept value on one line and cannot be a batch".into());
            }
        }
        if let Some(p) = &self.persisted {
            if self.batch.is_some() || self.incremental.is_some() || self.unique.is_some() {
                return Err("a persisted query is sent alone: not in a batch, not incremental, without a unique number".into());
            }
            if p.get
                && p.short
                    .iter()
                    .any(|b| b.is_ascii_whitespace() || *b == b'#')
            {
                return Err("a GET query string must be URL-encoded".into());
            }
        }
        Ok(())
    }
}
