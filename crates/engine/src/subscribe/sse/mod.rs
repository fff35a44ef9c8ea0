//! One subscription over GraphQL over SSE, distinct connections mode: a `POST` with
//! `Accept: text/event-stream` and the JSON body `{query, variables}`, answered by a 200
//! `text/event-stream` whose events are `next` (data: an execution result) and `complete`.
//! The response is decoded by `stream`; each `next` is judged in one extraction pass.

mod stream;

use std::rc::Rc;
use std::time::Instant;

use tokio::net::TcpStream;
use tokio::time::timeout_at;

use super::ctx::Ctx;
use super::extract::{extract, Val};
use super::prepared::MAX_RESULT_PATHS;
use super::record::Judged;
use super::result::{ConnectionFailureKind as Kind, MessageFailureKind};
use crate::net;
use crate::validate::excerpt;
use stream::{Event, Stream};

/// Judges the data of a `next` event and records it.
fn on_next(ctx: &Ctx, slot: usize, data: &[u8]) {
    let rp = &ctx.prep.sse_paths;
    let mut vals: [Val; MAX_RESULT_PATHS] = Default::default();
    let vals = &mut vals[..rp.paths.len()];
    let judged = match extract(data, &rp.paths, vals) {
        Ok(()) if data.trim_ascii_start().starts_with(b"{") => rp.judge(vals),
        _ => Judged::Invalid(MessageFailureKind::BadJson),
    };
    ctx.record(slot, judged, data);
}

/// Runs one connection to its end (or until the worker drops it).
pub async fn connection(ctx: &Rc<Ctx>, slot: usize, t0: Instant) {
    let prep = &ctx.prep;
    let deadline = tokio::time::Instant::from_std(t0 + prep.ack_timeout);
    let timeout_detail = |what: &str| format!("no {what} within {:?}", prep.ack_timeout);
    let tcp = match timeout_at(deadline, TcpStream::connect(prep.addr)).await {
        Err(_) => {
            return ctx.setup_failed(slot, Kind::Timeout, || timeout_detail("TCP connection"))
        }
        Ok(Err(e)) => return ctx.setup_failed(slot, Kind::Connect, || e.to_string()),
        Ok(Ok(s)) => s,
    };
    let _ = tcp.set_nodelay(true);
    let mut s = Stream::new(tcp);
    match timeout_at(deadline, net::write_all(&s.tcp, &prep.sse_request)).await {
        Err(_) => return ctx.setup_failed(slot, Kind::Timeout, || timeout_detail("request write")),
        Ok(Err(e)) => {
            return ctx.setup_failed(slot, Kind::Reset, || format!("writing the request: {e}"))
        }
        Ok(Ok(())) => {}
    }
    ctx.connected();
    let head = match timeout_at(deadline, s.read_head()).await {
        Err(_) => return ctx.setup_failed(slot, Kind::Timeout, || timeout_detail("response")),
        Ok(Err((kind, detail))) => return ctx.setup_failed(slot, kind, || detail),
        Ok(Ok(h)) => h,
    };
    let is_stream = head
        .content_type
        .get(..17)
        .is_some_and(|p| p.eq_ignore_ascii_case("text/event-stream"));
    if head.status != 200 || !is_stream {
        let body = excerpt(s.unread());
        return ctx.setup_failed(slot, Kind::Handshake, || {
            format!(
                "HTTP {} ({:?}) instead of a 200 event stream: {body}",
                head.status, head.content_type
            )
        });
    }
    let subscribed_at = ctx.subscribed(slot, t0);
    let mut first_deadline = prep
        .first_message_timeout
        .map(|t| tokio::time::Instant::from_std(subscribed_at + t));
    loop {
        if let Err(e) = s.deframe() {
            return ctx.dropped(slot, Kind::Protocol, || e);
        }
        loop {
            match s.next_event() {
                Ok(Some(Event::Next)) => {
                    on_next(ctx, slot, &s.data);
                    s.data.clear();
                    first_deadline = None;
                }
                Ok(Some(Event::Complete)) => {
                    return ctx.dropped(slot, Kind::Complete, || {
                        "event: complete from the server".to_string()
                    })
                }
                Ok(None) => break,
                Err(e) => return ctx.dropped(slot, Kind::Protocol, || e),
            }
        }
        if s.body_done() {
            return ctx.dropped(slot, Kind::Closed, || {
                "the server ended the event stream".to_string()
            });
        }
        let read = match first_deadline {
            None => s.read_more().await,
            Some(d) => match timeout_at(d, s.read_more()).await {
                Ok(r) => r,
                Err(_) => {
                    return ctx.dropped(slot, Kind::NoMessage, || {
                        format!(
                            "no message within {:?} of subscribing",
                            prep.first_message_timeout.unwrap_or_default()
                        )
                    })
                }
            },
        };
        match read {
            Ok(0) => {
                return ctx.dropped(slot, Kind::Closed, || {
                    "connection closed by the server".to_string()
                })
            }
            Ok(_) => {}
            Err(e) => return ctx.dropped(slot, Kind::Reset, || e.to_string()),
        }
    }
}
