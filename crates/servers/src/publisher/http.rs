//! The publisher's HTTP side: reads a request head and routes it (WebSocket upgrade or
//! SSE), answers plain requests (a `{ __typename }` readiness check, errors), and streams
//! publications as SSE events in HTTP chunks.

use std::io;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use gqlbench_engine::net::write_all;
use tokio::net::TcpStream;

use super::ws::websocket;
use super::{drop_timer, known_subscription, set_zero_linger, DropStyle, Shared, SubscriberGuard};

/// Largest request head (and SSE request body) read.
const MAX_REQUEST: usize = 64 * 1024;

/// A parsed request head.
struct RequestHead {
    method: String,
    path: String,
    upgrade_websocket: bool,
    accepts_event_stream: bool,
    content_length: usize,
    len: usize,
}

/// Reads until the request head is complete; `None` if the client went away or sent junk.
async fn read_head(tcp: &mut TcpStream, buf: &mut Vec<u8>) -> Option<RequestHead> {
    use tokio::io::AsyncReadExt;
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(buf) {
            Ok(httparse::Status::Complete(len)) => {
                let mut head = RequestHead {
                    method: req.method.unwrap_or("").to_string(),
                    path: req.path.unwrap_or("").to_string(),
                    upgrade_websocket: false,
                    accepts_event_stream: false,
                    content_length: 0,
                    len,
                };
                for h in req.headers.iter() {
                    let v = String::from_utf8_lossy(h.value).to_ascii_lowercase();
                    if h.name.eq_ignore_ascii_case("upgrade") {
                        head.upgrade_websocket = v.trim() == "websocket";
                    } else if h.name.eq_ignore_ascii_case("accept") {
                        head.accepts_event_stream = v.contains("text/event-stream");
                    } else if h.name.eq_ignore_ascii_case("content-length") {
                        head.content_length = v.trim().parse().ok()?;
                    }
                }
                return Some(head);
            }
            Ok(httparse::Status::Partial) if buf.len() < MAX_REQUEST => {}
            _ => return None,
        }
        let mut tmp = [0u8; 4096];
        match tcp.read(&mut tmp).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&tmp[..n]),
        }
    }
}

async fn respond(tcp: &mut TcpStream, status: &str, content_type: &str, body: &str) {
    use tokio::io::AsyncWriteExt;
    let resp = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tcp.write_all(resp.as_bytes()).await;
}

pub(super) async fn connection(mut tcp: TcpStream, shared: Arc<Shared>) {
    // Publications are small and must leave at once.
    let _ = tcp.set_nodelay(true);
    let mut buf = Vec::with_capacity(1024);
    let Some(head) = read_head(&mut tcp, &mut buf).await else {
        return;
    };
    let path = head.path.split('?').next().unwrap_or("");
    if path != "/graphql" {
        return respond(&mut tcp, "404 Not Found", "text/plain", "not found").await;
    }
    match head.method.as_str() {
        "GET" if head.upgrade_websocket => websocket(tcp, buf, shared).await,
        "POST" => sse(tcp, buf, head, shared).await,
        _ => {
            respond(
                &mut tcp,
                "405 Method Not Allowed",
                "text/plain",
                "GET (WebSocket) or POST (SSE)",
            )
            .await
        }
    }
}

async fn sse(mut tcp: TcpStream, mut buf: Vec<u8>, head: RequestHead, shared: Arc<Shared>) {
    use tokio::io::AsyncReadExt;
    let mis = &shared.misbehavior;
    if head.content_length > MAX_REQUEST {
        return respond(&mut tcp, "413 Content Too Large", "text/plain", "too large").await;
    }
    while buf.len() < head.len + head.content_length {
        let mut tmp = [0u8; 4096];
        match tcp.read(&mut tmp).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&tmp[..n]),
        }
    }
    let body = &buf[head.len..head.len + head.content_length];
    let payload: serde_json::Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) => {
            let e = r#"{"errors":[{"message":"the body is not JSON"}]}"#;
            return respond(&mut tcp, "400 Bad Request", "application/json", e).await;
        }
    };
    if !head.accepts_event_stream {
        // A plain `{ __typename }` query is answered, so that the runner's readiness check
        // works on the publisher like on any GraphQL server.
        let is_typename = payload
            .get("query")
            .and_then(|q| q.as_str())
            .map(|q| q.trim() == "{ __typename }")
            .unwrap_or(false);
        if is_typename {
            let ok = r#"{"data":{"__typename":"Query"}}"#;
            return respond(&mut tcp, "200 OK", "application/json", ok).await;
        }
        let e =
            r#"{"errors":[{"message":"this publisher streams only (Accept: text/event-stream)"}]}"#;
        return respond(&mut tcp, "406 Not Acceptable", "application/json", e).await;
    }
    if mis.error_on_subscribe || !known_subscription(&payload) {
        let e = r#"{"errors":[{"message":"subscription refused"}]}"#;
        return respond(&mut tcp, "400 Bad Request", "application/json", e).await;
    }
    let drop_timer = drop_timer(mis);
    tokio::pin!(drop_timer);
    if mis.never_ack {
        // Hold the connection without a word until dropped, or the client leaves.
        let mut tmp = [0u8; 64];
        tokio::select! {
            _ = &mut drop_timer => {}
            _ = tcp.read(&mut tmp) => {}
        }
        return;
    }
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
    if write_all(&tcp, head.as_bytes()).await.is_err() {
        return;
    }
    let mut ticks = shared.ticks.clone();
    ticks.borrow_and_update();
    let _guard = SubscriberGuard::new(&shared.stats);
    let mut sent = 0u64;
    // Kept across publications, so its readiness interest is registered once.
    let readable = tcp.readable();
    tokio::pin!(readable);
    loop {
        tokio::select! {
            r = ticks.changed() => {
                if r.is_err() {
                    return;
                }
                let Some(tick) = ticks.borrow_and_update().clone() else {
                    continue;
                };
                if write_all(&tcp, &tick.sse_chunk).await.is_err() {
                    return;
                }
                shared.stats.messages.fetch_add(1, Ordering::Relaxed);
                sent += 1;
                if mis.complete_after == Some(sent) {
                    let event = "event: complete\ndata:\n\n";
                    let end = format!("{:x}\r\n{event}\r\n0\r\n\r\n", event.len());
                    let _ = write_all(&tcp, end.as_bytes()).await;
                    return;
                }
            }
            _ = &mut drop_timer => {
                match mis.drop_style {
                    DropStyle::CloseFrame => {
                        let _ = write_all(&tcp, b"0\r\n\r\n").await;
                    }
                    DropStyle::Eof => {}
                    DropStyle::Reset => set_zero_linger(&tcp),
                }
                return;
            }
            r = &mut readable => {
                // The client sends nothing more; a readable socket means it closed.
                if r.is_err() {
                    return;
                }
                readable.set(tcp.readable());
                let mut tmp = [0u8; 512];
                match tcp.try_read(&mut tmp) {
                    Ok(0) => return,
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(_) => return,
                }
            }
        }
    }
}
