//! The publisher's WebSocket side, `graphql-transport-ws`: the upgrade (with the
//! subprotocol), `connection_init` → `connection_ack`, `subscribe` → `next`* per
//! publication, `ping`/`pong`, `complete`, and the misbehaviours tests ask for.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use gqlbench_engine::net::write_all;
use gqlbench_engine::wsio::{flush, send, would_block, Io, Sock};
use gqlbench_engine::GRAPHQL_TRANSPORT_WS;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tungstenite::handshake::HandshakeError;
use tungstenite::http::{HeaderValue, StatusCode};
use tungstenite::protocol::frame::coding::{CloseCode, Data as OpData, OpCode};
use tungstenite::protocol::frame::{Frame, Utf8Bytes};
use tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tungstenite::{accept_hdr_with_config, Message, WebSocket};

use super::{
    drop_timer, known_subscription, set_zero_linger, DropStyle, Misbehavior, Shared,
    SubscriberGuard, Tick,
};

/// An unmasked (server) text frame holding `text`.
pub(super) fn ws_frame(text: String) -> Bytes {
    let mut out = Vec::with_capacity(text.len() + 10);
    // Formatting into a Vec cannot fail.
    let _ = Frame::message(text, OpCode::Data(OpData::Text), true).format(&mut out);
    Bytes::from(out)
}

fn ws_config() -> WebSocketConfig {
    // Clients send only a few small messages; tungstenite zeroes the free part of the read
    // buffer before each read, so a small one costs less per poll (and memory).
    WebSocketConfig::default()
        .read_buffer_size(512)
        .write_buffer_size(0)
}

/// A WebSocket connection's protocol state.
struct WsState<'a> {
    acked: bool,
    /// The subscription's id, while subscribed.
    sub: Option<(String, SubscriberGuard<'a>)>,
    sent: u64,
}

// The callback's `Result<Response, ErrorResponse>` is tungstenite's signature, not a choice.
#[allow(clippy::result_large_err)]
pub(super) async fn websocket(tcp: TcpStream, head: Vec<u8>, shared: Arc<Shared>) {
    let mis = &shared.misbehavior;
    let refuse = mis.refuse_subprotocol;
    let callback = |req: &Request, mut resp: Response| -> Result<Response, ErrorResponse> {
        let offered = req
            .headers()
            .get_all("sec-websocket-protocol")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|p| p.trim() == GRAPHQL_TRANSPORT_WS);
        if !offered && !refuse {
            let mut err =
                ErrorResponse::new(Some(format!("subprotocol {GRAPHQL_TRANSPORT_WS} required")));
            *err.status_mut() = StatusCode::BAD_REQUEST;
            return Err(err);
        }
        if !refuse {
            resp.headers_mut().insert(
                "sec-websocket-protocol",
                HeaderValue::from_static(GRAPHQL_TRANSPORT_WS),
            );
        }
        Ok(resp)
    };
    let sock = Sock::new(tcp);
    let io = Io::with_prefix(sock.clone(), head);
    let mut attempt = accept_hdr_with_config(io, callback, Some(ws_config()));
    let mut ws = loop {
        match attempt {
            Ok(ws) => break ws,
            Err(HandshakeError::Failure(_)) => return,
            Err(HandshakeError::Interrupted(mid)) => {
                if sock.wait().await.is_err() {
                    return;
                }
                attempt = mid.handshake();
            }
        }
    };
    if refuse {
        let _ = send(
            &mut ws,
            &sock,
            close_msg(4406, "Subprotocol not acceptable"),
        )
        .await;
        return;
    }
    let mut ticks = shared.ticks.clone();
    let drop_timer = drop_timer(mis);
    tokio::pin!(drop_timer);
    // Kept across publications, so the read interest is registered once per message
    // received rather than once per message sent.
    let readable = sock.readable();
    tokio::pin!(readable);
    let mut state = WsState {
        acked: false,
        sub: None,
        sent: 0,
    };
    // Frames tungstenite may already hold are handled before waiting for the socket.
    if incoming(&mut ws, &sock, &shared, &mut ticks, &mut state)
        .await
        .is_err()
    {
        return;
    }
    loop {
        tokio::select! {
            r = &mut readable => {
                if r.is_err() || incoming(&mut ws, &sock, &shared, &mut ticks, &mut state).await.is_err() {
                    return;
                }
                readable.set(sock.readable());
            }
            r = ticks.changed(), if state.sub.is_some() => {
                if r.is_err() {
                    return;
                }
                let Some(tick) = ticks.borrow_and_update().clone() else {
                    continue;
                };
                let Some((id, _)) = &state.sub else { continue };
                let written = if id == "1" {
                    // tungstenite's buffer is emptied first, so the frame cannot land in
                    // the middle of one of its own (an automatic pong).
                    flush(&mut ws, &sock).await.is_ok()
                        && write_all(&sock.tcp, &tick.ws_frame_id1).await.is_ok()
                } else {
                    let text = format!(
                        r#"{{"id":{},"type":"next","payload":{}}}"#,
                        serde_json::Value::from(id.as_str()),
                        tick.result
                    );
                    send(&mut ws, &sock, Message::text(text)).await.is_ok()
                };
                if !written {
                    return;
                }
                shared.stats.messages.fetch_add(1, Ordering::Relaxed);
                state.sent += 1;
                if mis.complete_after == Some(state.sent) {
                    let done = serde_json::json!({"id": id, "type": "complete"}).to_string();
                    let _ = send(&mut ws, &sock, Message::text(done)).await;
                    state.sub = None;
                }
            }
            _ = &mut drop_timer => {
                match mis.drop_style {
                    DropStyle::CloseFrame => {
                        let _ = send(&mut ws, &sock, close_msg(1001, "the publisher drops connections")).await;
                    }
                    DropStyle::Eof => {}
                    DropStyle::Reset => set_zero_linger(&sock.tcp),
                }
                return;
            }
        }
    }
}

/// Handles every message the client has sent; `Err` when the connection must end.
async fn incoming<'a>(
    ws: &mut WebSocket<Io>,
    sock: &Sock,
    shared: &'a Shared,
    ticks: &mut watch::Receiver<Option<Arc<Tick>>>,
    state: &mut WsState<'a>,
) -> Result<(), ()> {
    loop {
        let text = match ws.read() {
            Ok(Message::Text(t)) => t,
            Ok(Message::Close(_)) => return Err(()),
            Ok(_) => continue,
            Err(e) if would_block(&e) => return Ok(()),
            Err(_) => return Err(()),
        };
        let reply = match client_message(text.as_str(), &shared.misbehavior, state.acked) {
            Client::Reply(r) => r,
            Client::Acked(r) => {
                state.acked = true;
                r
            }
            Client::Subscribe(id) => {
                // Only publications after this one are sent.
                ticks.borrow_and_update();
                state.sub = Some((id, SubscriberGuard::new(&shared.stats)));
                if shared.misbehavior.ping {
                    let ping = Message::text(r#"{"type":"ping"}"#);
                    send(ws, sock, ping).await.map_err(|_| ())?;
                    let frame = Message::Ping(Bytes::from_static(b"are you there"));
                    send(ws, sock, frame).await.map_err(|_| ())?;
                }
                None
            }
            Client::Pong => {
                shared.stats.pongs.fetch_add(1, Ordering::Relaxed);
                None
            }
            Client::Complete => {
                state.sub = None;
                None
            }
            Client::Close(code, reason) => {
                let _ = send(ws, sock, close_msg(code, reason)).await;
                return Err(());
            }
        };
        if let Some(r) = reply {
            send(ws, sock, Message::text(r)).await.map_err(|_| ())?;
        }
    }
}

/// What a client's message asks for.
enum Client {
    /// Answer this (or nothing).
    Reply(Option<String>),
    /// `connection_init` accepted: answer this.
    Acked(Option<String>),
    /// Start the subscription with this id.
    Subscribe(String),
    Pong,
    Complete,
    /// Close with this code and reason.
    Close(u16, &'static str),
}

/// The graphql-transport-ws server side of one client message.
fn client_message(text: &str, mis: &Misbehavior, acked: bool) -> Client {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
        return Client::Close(4400, "Invalid message");
    };
    match v.get("type").and_then(|t| t.as_str()) {
        Some("connection_init") if mis.never_ack => Client::Reply(None),
        Some("connection_init") => Client::Acked(Some(r#"{"type":"connection_ack"}"#.to_string())),
        Some("ping") => Client::Reply(Some(r#"{"type":"pong"}"#.to_string())),
        Some("pong") => Client::Pong,
        Some("subscribe") if !acked => Client::Close(4401, "Unauthorized"),
        Some("subscribe") => {
            let id = v
                .get("id")
                .and_then(|i| i.as_str())
                .unwrap_or("")
                .to_string();
            let payload = v.get("payload").cloned().unwrap_or_default();
            if mis.error_on_subscribe || !known_subscription(&payload) {
                let msg = if mis.error_on_subscribe {
                    "the publisher was told to refuse subscriptions"
                } else {
                    "unknown subscription (this publisher serves `ticks`)"
                };
                let err = serde_json::json!({
                    "id": id, "type": "error", "payload": [{"message": msg}]
                });
                Client::Reply(Some(err.to_string()))
            } else {
                Client::Subscribe(id)
            }
        }
        Some("complete") => Client::Complete,
        _ => Client::Close(4400, "Invalid message"),
    }
}

fn close_msg(code: u16, reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame {
        code: CloseCode::from(code),
        reason: Utf8Bytes::from_static(reason),
    }))
}
