//! Reading the answer to one request, beyond one HTTP response read whole: an incremental
//! answer's parts timed as they arrive (when the first is in, over multipart or SSE), and
//! a persisted query's miss answered as clients answer it (the server does not know the
//! hash: the full document is sent on the same connection, and that second answer is the
//! request's).

use std::pin::Pin;
use std::time::Instant;

use tokio::time::Sleep;

use super::ctx::{Ctx, Pending};
use crate::conn::{Conn, ReadError};
use crate::multipart::{self, FirstPart};
use crate::parse::Response;
use crate::sse::{self, FirstEvent};
use crate::validate::Shape;

/// What reading an answer found besides the response itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Arrival {
    /// An incremental answer: when its first part had arrived (None when the whole answer
    /// came in one read: its first part arrived with its last).
    pub first_part: Option<Instant>,
    /// A persisted query: whether the server did not know it (a miss, answered by
    /// registering the document), None for other requests.
    pub persisted: Option<bool>,
}

/// What servers answer a persisted query they do not know: Apollo Server and Router,
/// Yoga's plugin, Cosmo and Grafbase with code `PERSISTED_QUERY_NOT_FOUND`, Mercurius with
/// the message alone (statuses 200, 404 or 400).
fn not_found(body: &[u8]) -> bool {
    const MESSAGE: &[u8] = b"PersistedQueryNotFound";
    let has = |s: &[u8]| body.windows(s.len()).any(|w| w == s);
    has(MESSAGE) && has(b"\"errors\"")
}

impl Ctx {
    /// The answer on `c` to `front` (the oldest request in flight): for an incremental
    /// request, timing its first part; for a persisted query the server did not know,
    /// the answer to the full document sent after the miss (within the same deadline).
    pub async fn read_response(
        &self,
        c: &mut Conn,
        front: &Pending,
        deadline: Instant,
        mut timer: Pin<&mut Sleep>,
    ) -> (Result<Response, ReadError>, Arrival) {
        let v = &self.prep.ops[front.op].variants[front.variant];
        if v.shape == Shape::Incremental {
            return self.read_parts(c, deadline, timer).await;
        }
        let first = c.next_response(deadline, timer.as_mut()).await;
        if v.short.is_none() {
            return (first, Arrival::default());
        }
        let r = match first {
            Ok(r) if not_found(c.body(&r)) => r,
            other => {
                let hit = Arrival {
                    persisted: Some(false),
                    ..Arrival::default()
                };
                return (other, hit);
            }
        };
        let miss = Arrival {
            persisted: Some(true),
            ..Arrival::default()
        };
        c.consume(&r);
        if r.close {
            return (Err(ReadError::Closed { partial: false }), miss);
        }
        // Rare next to hits, so a buffer of its own (the connection's is the caller's).
        let mut full = Vec::new();
        self.write(front.op, front.variant, true, &mut full);
        if let Err(e) = c.write_all(&full, deadline, timer.as_mut()).await {
            return (Err(e), miss);
        }
        (c.next_response(deadline, timer).await, miss)
    }

    /// An incremental answer, its first part timed as the body arrives, in the framing its
    /// head names.
    async fn read_parts(
        &self,
        c: &mut Conn,
        deadline: Instant,
        timer: Pin<&mut Sleep>,
    ) -> (Result<Response, ReadError>, Arrival) {
        let mut first = None;
        let mut watch = Watch::Unknown;
        let r = c
            .next_response_with(deadline, timer, |head, body| {
                if first.is_none() && watch.feed(head, body) {
                    first = Some(Instant::now());
                }
            })
            .await;
        let arrival = Arrival {
            first_part: first,
            persisted: None,
        };
        (r, arrival)
    }
}

/// How an incremental answer's first part is watched for, once its head has told.
enum Watch {
    /// The head does not name a framing (yet).
    Unknown,
    Multipart(Vec<u8>, FirstPart),
    Sse(FirstEvent),
}

impl Watch {
    /// True once the first part of the body so far has arrived.
    fn feed(&mut self, head: &[u8], body: &[u8]) -> bool {
        if let Watch::Unknown = self {
            // An event stream is told without allocating; a multipart boundary is kept.
            if sse::is_event_stream(head) {
                *self = Watch::Sse(FirstEvent::new());
            } else if let Some(b) = multipart::boundary(head) {
                *self = Watch::Multipart(b, FirstPart::new());
            }
        }
        match self {
            Watch::Unknown => false,
            Watch::Multipart(b, scan) => scan.feed(body, b),
            Watch::Sse(scan) => scan.feed(body),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misses_are_told_by_their_message_whatever_the_status_or_shape() {
        assert!(not_found(
            br#"{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}"#
        ));
        assert!(not_found(
            br#"{"data":null,"errors":[{"message":"PersistedQueryNotFound"}]}"#
        ));
        assert!(!not_found(br#"{"data":{"user":{"id":"1"}}}"#));
        assert!(!not_found(
            br#"{"errors":[{"message":"PersistedQueryNotSupported"}]}"#
        ));
    }
}
