//! One subscription over WebSocket, protocol `graphql-transport-ws` (the graphql-ws
//! library's): upgrade with the subprotocol, `connection_init` → `connection_ack`,
//! `subscribe` with id "1", then `next` messages until the run ends. `ping` is answered with
//! `pong`; `error`, `complete`, a close or a broken frame end the connection and are counted.
//!
//! The set-up (handshake, `connection_init` → `connection_ack`, `subscribe`) is a task per
//! connection using tungstenite over the tokio socket (`wsio`), bounded by `ack_timeout`;
//! it is this file. Once subscribed the connection is handed to the worker's receive loop
//! (`poll`, one epoll set per worker), which holds it (`held`) and handles its frames and
//! messages (`frames`).

mod frames;
mod held;
mod poll;
#[cfg(test)]
mod tests;

pub use poll::Poller;

use std::cell::Cell;
use std::io;
use std::rc::Rc;
use std::time::Instant;

use tokio::net::TcpStream;
use tokio::time::timeout_at;
use tungstenite::client::{client_with_config, IntoClientRequest};
use tungstenite::error::ProtocolError;
use tungstenite::handshake::HandshakeError;
use tungstenite::protocol::frame::Utf8Bytes;
use tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tungstenite::{Error as WsError, Message, WebSocket};

use super::ctx::Ctx;
use super::extract::{extract, Val};
use super::plan::GRAPHQL_TRANSPORT_WS;
use super::result::ConnectionFailureKind as Kind;
use crate::validate::excerpt;
use crate::wsio::{recv, send, Io, Sock};

/// tungstenite's read buffer during the set-up (it zeroes the free part before each read).
pub const READ_BUFFER: usize = 512;

/// The client's WebSocket settings.
pub fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER)
        // Messages are sent rarely and each is flushed at once.
        .write_buffer_size(0)
}

type Ws = WebSocket<Io>;

const PONG: Utf8Bytes = Utf8Bytes::from_static(r#"{"type":"pong"}"#);

/// Where the setup is, for the detail of a timeout.
#[derive(Debug, Clone, Copy)]
enum Stage {
    Connect,
    Upgrade,
    Ack,
}

impl Stage {
    fn what(self) -> &'static str {
        match self {
            Stage::Connect => "TCP connection",
            Stage::Upgrade => "WebSocket upgrade",
            Stage::Ack => "connection_ack",
        }
    }
}

/// Kind of a tungstenite error on an established connection.
fn classify(e: &WsError) -> Kind {
    match e {
        WsError::ConnectionClosed | WsError::AlreadyClosed => Kind::Closed,
        // tungstenite's name for a TCP end of stream without a close frame.
        WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => Kind::Closed,
        WsError::Io(io) if io.kind() == io::ErrorKind::UnexpectedEof => Kind::Closed,
        WsError::Io(_) => Kind::Reset,
        _ => Kind::Protocol,
    }
}

/// Detail of a tungstenite error, in the words of this module's kinds.
fn error_detail(e: &WsError) -> String {
    match e {
        WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => {
            "connection closed without close frame".to_string()
        }
        other => other.to_string(),
    }
}

fn close_detail(f: Option<&CloseFrame>) -> String {
    match f {
        Some(f) => format!("close frame {} {:?}", u16::from(f.code), f.reason.as_str()),
        None => "close frame without code".to_string(),
    }
}

/// Runs one connection to its end (or until the worker drops it).
pub async fn connection(ctx: &Rc<Ctx>, poller: &Poller, slot: usize, t0: Instant) {
    let prep = &ctx.prep;
    let stage = Cell::new(Stage::Connect);
    let deadline = tokio::time::Instant::from_std(t0 + prep.ack_timeout);
    let (mut ws, sock) = match timeout_at(deadline, setup(ctx, &stage)).await {
        Ok(Ok(pair)) => pair,
        Ok(Err((kind, detail))) => return ctx.setup_failed(slot, kind, || detail),
        Err(_) => {
            return ctx.setup_failed(slot, Kind::Timeout, || {
                format!("no {} within {:?}", stage.get().what(), prep.ack_timeout)
            })
        }
    };
    let subscribed_at = ctx.subscribed(slot, t0);
    let subscribe = Message::text(prep.subscribe_msg.clone());
    if let Err(e) = send(&mut ws, &sock, subscribe).await {
        return ctx.dropped(slot, classify(&e), || format!("sending subscribe: {e}"));
    }
    // From here on the worker's epoll loop receives (see poll.rs). tungstenite read frame by
    // frame, so it holds no received byte now; the socket must have no other owner to leave
    // the runtime.
    if !ws.get_ref().at_frame_boundary() {
        return ctx.dropped(slot, Kind::Protocol, || {
            "a frame was half read when subscribing".to_string()
        });
    }
    drop(sock);
    let stream = match ws.into_inner().into_std() {
        Ok(s) => s,
        Err(e) => return ctx.dropped(slot, Kind::Reset, || format!("handing over: {e}")),
    };
    let first_deadline = prep.first_message_timeout.map(|t| subscribed_at + t);
    if let Err((kind, detail)) = poller.add(slot, stream, first_deadline) {
        ctx.dropped(slot, kind, || detail);
    }
}

/// TCP connect, upgrade with the subprotocol, `connection_init` → `connection_ack`.
async fn setup(ctx: &Ctx, stage: &Cell<Stage>) -> Result<(Ws, Rc<Sock>), (Kind, String)> {
    let prep = &ctx.prep;
    let tcp = TcpStream::connect(prep.addr)
        .await
        .map_err(|e| (Kind::Connect, e.to_string()))?;
    // Messages are small and written whole: no reason to delay them.
    let _ = tcp.set_nodelay(true);
    stage.set(Stage::Upgrade);
    let mut req = prep.ws_uri.clone().into_client_request().map_err(|e| {
        (
            Kind::Handshake,
            format!("building the upgrade request: {e}"),
        )
    })?;
    req.headers_mut().extend(prep.ws_headers.clone());
    let sock = Sock::new(tcp);
    let mut attempt = client_with_config(req, Io::frame_exact(sock.clone()), Some(config()));
    let mut ws = loop {
        match attempt {
            Ok((ws, _resp)) => break ws,
            Err(HandshakeError::Failure(e)) => return Err(handshake_error(e)),
            Err(HandshakeError::Interrupted(mid)) => {
                sock.wait()
                    .await
                    .map_err(|e| (Kind::Reset, format!("during the upgrade: {e}")))?;
                attempt = mid.handshake();
            }
        }
    };
    ctx.connected();
    stage.set(Stage::Ack);
    send(&mut ws, &sock, Message::text(prep.init_msg.clone()))
        .await
        .map_err(|e| (classify(&e), format!("sending connection_init: {e}")))?;
    loop {
        match recv(&mut ws, &sock).await {
            Ok(Message::Text(t)) => {
                let raw = t.as_bytes();
                let mut vals: [Val; 1] = Default::default();
                extract(raw, &prep.type_only, &mut vals).map_err(|e| {
                    (
                        Kind::Protocol,
                        format!("message is not JSON ({e}): {}", excerpt(raw)),
                    )
                })?;
                match vals[0].as_str() {
                    Some("connection_ack") => return Ok((ws, sock)),
                    Some("ping") => send(&mut ws, &sock, Message::Text(PONG))
                        .await
                        .map_err(|e| (classify(&e), format!("sending pong: {e}")))?,
                    Some("pong") => {}
                    Some("error") => return Err((Kind::ErrorMessage, excerpt(raw))),
                    _ => {
                        return Err((
                            Kind::Protocol,
                            format!("expected connection_ack, got {}", excerpt(raw)),
                        ))
                    }
                }
            }
            Ok(Message::Close(f)) => {
                return Err((
                    Kind::Closed,
                    format!("before connection_ack: {}", close_detail(f.as_ref())),
                ))
            }
            Ok(Message::Binary(b)) => {
                return Err((Kind::Protocol, format!("binary message: {}", excerpt(&b))))
            }
            Ok(_) => {}
            Err(e) => {
                return Err((
                    classify(&e),
                    format!("before connection_ack: {}", error_detail(&e)),
                ))
            }
        }
    }
}

/// Kind and detail of a failed upgrade.
fn handshake_error(e: WsError) -> (Kind, String) {
    match e {
        WsError::Http(resp) => {
            let body = resp.body().as_deref().map(excerpt).unwrap_or_default();
            (
                Kind::Handshake,
                format!("HTTP {} instead of 101: {body}", resp.status().as_u16()),
            )
        }
        WsError::Protocol(ProtocolError::SecWebSocketSubProtocolError(s)) => (
            Kind::Subprotocol,
            format!("subprotocol {} refused: {s}", GRAPHQL_TRANSPORT_WS),
        ),
        WsError::Io(io) => {
            let kind = if io.kind() == io::ErrorKind::UnexpectedEof {
                Kind::Handshake
            } else {
                Kind::Reset
            };
            (kind, format!("during the upgrade: {io}"))
        }
        other => (Kind::Handshake, other.to_string()),
    }
}
