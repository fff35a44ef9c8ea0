//! A reference subscription server on a loopback port, for tests and for calibrating the
//! subscription engine: WebSocket (`graphql-transport-ws`) at `GET /graphql` + upgrade, and
//! GraphQL over SSE (distinct connections) at `POST /graphql` with
//! `Accept: text/event-stream`. It accepts `subscription { ticks { seq publishedAt } }`-style
//! documents (any document naming `ticks`) and publishes
//! `{"data":{"ticks":{"seq":N,"publishedAt":T}}}` to every subscriber at a fixed rate: one
//! global timer and one global `seq`, so every subscriber sees the same sequence and a
//! client can detect gaps. `publishedAt` is the wall-clock time of the tick in ms since the
//! Unix epoch, with µs in the fraction.
//!
//! Each publication is encoded once and shared (reference-counted) by all subscribers: the
//! per-subscriber cost is a wake-up and one `write`. It can also misbehave on purpose (see
//! [`Misbehavior`]) so tests can check that every failure is counted.
//!
//! It runs on its own threads (one current-thread runtime each, optionally pinned); with
//! several threads each has its own `SO_REUSEPORT` listener on the same port.

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::watch;
use tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tungstenite::handshake::HandshakeError;
use tungstenite::http::{HeaderValue, StatusCode};
use tungstenite::protocol::frame::coding::{CloseCode, Data as OpData, OpCode};
use tungstenite::protocol::frame::{Frame, Utf8Bytes};
use tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tungstenite::{accept_hdr_with_config, Message, WebSocket};

use crate::affinity;
use crate::plan::Endpoint;
use crate::subscribe::GRAPHQL_TRANSPORT_WS;
use crate::wsio::{flush, send, would_block, Io, Sock};

/// Listen backlog: a connect phase of thousands of connections per second must not see
/// SYNs dropped (the kernel caps it at `net.core.somaxconn`).
const BACKLOG: u32 = 4096;
/// Largest request head (and SSE request body) read.
const MAX_REQUEST: usize = 64 * 1024;

/// How a connection is dropped by [`Misbehavior::drop_after`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DropStyle {
    /// A WebSocket close frame (1001 going away) / the end of the SSE chunked stream.
    #[default]
    CloseFrame,
    /// The TCP connection closed without a close frame (FIN).
    Eof,
    /// The TCP connection reset (RST, zero linger).
    Reset,
}

/// Ways to misbehave, for tests. The default behaves.
#[derive(Debug, Clone, Default)]
pub struct Misbehavior {
    /// Drop every connection this long after it was accepted.
    pub drop_after: Option<Duration>,
    pub drop_style: DropStyle,
    /// WebSocket: accept the upgrade without agreeing to `graphql-transport-ws`, then close
    /// with 4406 (as graphql-ws servers do).
    pub refuse_subprotocol: bool,
    /// Never answer: no `connection_ack` (WebSocket), no response (SSE).
    pub never_ack: bool,
    /// Refuse every subscription: an `error` message (WebSocket), a 400 with GraphQL errors
    /// (SSE).
    pub error_on_subscribe: bool,
    /// Publish `{"errors":[...],"data":null}` instead of data.
    pub errors_in_payload: bool,
    /// Skip publishing every sequence number divisible by this (the number is used up, so
    /// subscribers see a gap).
    pub skip_every: Option<u64>,
    /// Complete each subscription after this many messages.
    pub complete_after: Option<u64>,
    /// WebSocket: right after a subscription starts, send a `ping` message and a ping
    /// frame (the client must answer; `pong` messages are counted in the stats).
    pub ping: bool,
}

/// Settings of a [`Publisher`].
#[derive(Debug, Clone)]
pub struct PublisherOptions {
    /// Publications per second (each goes to every subscriber).
    pub rate: f64,
    /// Threads serving connections (the first also runs the timer).
    pub threads: usize,
    /// Pin the threads to these CPUs, round-robin.
    pub cpus: Option<Vec<usize>>,
    /// Loopback port; 0 picks a free one.
    pub port: u16,
    pub misbehavior: Misbehavior,
}

impl Default for PublisherOptions {
    fn default() -> Self {
        PublisherOptions {
            rate: 10.0,
            threads: 1,
            cpus: None,
            port: 0,
            misbehavior: Misbehavior::default(),
        }
    }
}

/// Counters of a running publisher.
#[derive(Debug, Default)]
struct Stats {
    connections: AtomicU64,
    subscribers: AtomicI64,
    subscriptions: AtomicU64,
    ticks: AtomicU64,
    messages: AtomicU64,
    pongs: AtomicU64,
}

/// A snapshot of a publisher's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PublisherStats {
    /// TCP connections accepted.
    pub connections: u64,
    /// Subscriptions active now.
    pub subscribers: u64,
    /// Subscriptions started so far.
    pub subscriptions: u64,
    /// Publications so far (skipped sequence numbers excluded).
    pub ticks: u64,
    /// `next` messages written so far, over all subscribers.
    pub messages: u64,
    /// `pong` messages received (WebSocket).
    pub pongs: u64,
}

/// One publication, encoded once for every subscriber.
#[derive(Debug)]
struct Tick {
    /// The execution result.
    result: String,
    /// The whole WebSocket frame of the `next` message for subscription id "1" (what
    /// gqlbench uses), written as is to every such subscriber.
    ws_frame_id1: Bytes,
    /// One HTTP chunk holding the SSE `next` event.
    sse_chunk: Bytes,
}

/// What every connection task shares.
#[derive(Debug)]
struct Shared {
    misbehavior: Misbehavior,
    stats: Stats,
    ticks: watch::Receiver<Option<Arc<Tick>>>,
}

/// A running reference publisher; stopped (every connection closed) when dropped.
#[derive(Debug)]
pub struct Publisher {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: watch::Sender<bool>,
    threads: Vec<JoinHandle<()>>,
    pinned: Option<Vec<usize>>,
}

impl Publisher {
    /// Starts the publisher's threads and returns once they listen. Must not be called from
    /// within an async runtime's worker (it blocks briefly).
    pub fn start(opts: PublisherOptions) -> io::Result<Publisher> {
        let invalid = |m: &str| io::Error::new(io::ErrorKind::InvalidInput, m.to_string());
        if !opts.rate.is_finite() || opts.rate <= 0.0 {
            return Err(invalid("rate must be positive"));
        }
        if opts.threads == 0 {
            return Err(invalid("threads must be at least 1"));
        }
        if opts.cpus.as_ref().is_some_and(|c| c.is_empty()) {
            return Err(invalid("empty CPU list"));
        }
        let (tick_tx, tick_rx) = watch::channel(None);
        let (shutdown, _) = watch::channel(false);
        let shared = Arc::new(Shared {
            misbehavior: opts.misbehavior.clone(),
            stats: Stats::default(),
            ticks: tick_rx,
        });
        let mut publisher = Publisher {
            addr: SocketAddr::from(([127, 0, 0, 1], opts.port)),
            shared: shared.clone(),
            shutdown,
            threads: Vec::new(),
            pinned: opts.cpus.as_ref().map(|_| Vec::new()),
        };
        let mut tick_tx = Some(tick_tx);
        for i in 0..opts.threads {
            let (ready_tx, ready_rx) = mpsc::channel();
            let setup = ThreadSetup {
                addr: publisher.addr,
                reuseport: opts.threads > 1,
                cpus: opts.cpus.as_ref().map(|c| vec![c[i % c.len()]]),
                rate: opts.rate,
                tick_tx: tick_tx.take(),
                shared: shared.clone(),
                shutdown: publisher.shutdown.subscribe(),
                ready: ready_tx,
            };
            let handle = std::thread::Builder::new()
                .name(format!("gqlbench-publisher-{i}"))
                .spawn(move || serve_thread(setup))?;
            publisher.threads.push(handle);
            // Dropping `publisher` on an error stops the threads already started.
            let (addr, pinned) = ready_rx
                .recv()
                .map_err(|_| io::Error::other("publisher thread ended during start-up"))??;
            publisher.addr = addr;
            if let (Some(all), Some(p)) = (&mut publisher.pinned, pinned) {
                all.extend(p);
                all.sort_unstable();
                all.dedup();
            }
        }
        Ok(publisher)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT/graphql`.
    pub fn url(&self) -> String {
        format!("http://{}/graphql", self.addr)
    }

    /// The endpoint to give a [`crate::SubscribePlan`].
    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            addr: self.addr,
            host: self.addr.to_string(),
            path: "/graphql".to_string(),
        }
    }

    /// CPUs the threads run on, as read back after pinning; None if not pinned.
    pub fn pinned_cpus(&self) -> Option<&[usize]> {
        self.pinned.as_deref()
    }

    pub fn stats(&self) -> PublisherStats {
        let s = &self.shared.stats;
        PublisherStats {
            connections: s.connections.load(Ordering::Relaxed),
            subscribers: s.subscribers.load(Ordering::Relaxed).max(0) as u64,
            subscriptions: s.subscriptions.load(Ordering::Relaxed),
            ticks: s.ticks.load(Ordering::Relaxed),
            messages: s.messages.load(Ordering::Relaxed),
            pongs: s.pongs.load(Ordering::Relaxed),
        }
    }

    /// Stops the threads and closes every connection.
    pub fn stop(self) {}
}

impl Drop for Publisher {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        for h in self.threads.drain(..) {
            let _ = h.join();
        }
    }
}

struct ThreadSetup {
    addr: SocketAddr,
    reuseport: bool,
    cpus: Option<Vec<usize>>,
    rate: f64,
    tick_tx: Option<watch::Sender<Option<Arc<Tick>>>>,
    shared: Arc<Shared>,
    shutdown: watch::Receiver<bool>,
    ready: mpsc::Sender<io::Result<(SocketAddr, Option<Vec<usize>>)>>,
}

fn serve_thread(mut setup: ThreadSetup) {
    let pinned = match &setup.cpus {
        Some(cpus) => match affinity::pin_current_thread(cpus) {
            Ok(got) => Some(got),
            Err(e) => {
                let _ = setup.ready.send(Err(io::Error::other(format!(
                    "cannot pin publisher thread to {cpus:?}: {e}"
                ))));
                return;
            }
        },
        None => None,
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = setup.ready.send(Err(e));
            return;
        }
    };
    // Connection tasks share Rc state with the socket adapter: a LocalSet runs them.
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async move {
        let listener = match listen(setup.addr, setup.reuseport) {
            Ok(l) => l,
            Err(e) => {
                let _ = setup.ready.send(Err(e));
                return;
            }
        };
        let addr = listener.local_addr();
        let _ = setup.ready.send(addr.map(|a| (a, pinned.clone())));
        if let Some(tx) = setup.tick_tx.take() {
            tokio::task::spawn_local(ticker(tx, setup.rate, setup.shared.clone()));
        }
        loop {
            tokio::select! {
                _ = setup.shutdown.changed() => break,
                r = listener.accept() => {
                    let Ok((tcp, _)) = r else {
                        // Out of files or similar: back off instead of spinning.
                        tokio::time::sleep(Duration::from_millis(5)).await;
                        continue;
                    };
                    setup.shared.stats.connections.fetch_add(1, Ordering::Relaxed);
                    tokio::task::spawn_local(connection(tcp, setup.shared.clone()));
                }
            }
        }
    });
    // Dropping the LocalSet and the runtime drops every connection task, closing sockets.
    drop(local);
}

fn listen(addr: SocketAddr, reuseport: bool) -> io::Result<tokio::net::TcpListener> {
    let socket = TcpSocket::new_v4()?;
    socket.set_reuseaddr(true)?;
    if reuseport {
        socket.set_reuseport(true)?;
    }
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// An unmasked (server) text frame holding `text`.
fn ws_frame(text: String) -> Bytes {
    let mut out = Vec::with_capacity(text.len() + 10);
    // Formatting into a Vec cannot fail.
    let _ = Frame::message(text, OpCode::Data(OpData::Text), true).format(&mut out);
    Bytes::from(out)
}

/// The one global timer: encodes each publication once and hands it to every subscriber.
async fn ticker(tx: watch::Sender<Option<Arc<Tick>>>, rate: f64, shared: Arc<Shared>) {
    let mut interval = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
    // A late tick is not made up for with a burst: the rate stays what was asked.
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mis = &shared.misbehavior;
    let mut seq = 0u64;
    loop {
        interval.tick().await;
        seq += 1;
        if mis
            .skip_every
            .is_some_and(|n| n > 0 && seq.is_multiple_of(n))
        {
            continue;
        }
        let result = if mis.errors_in_payload {
            r#"{"errors":[{"message":"the publisher was told to fail"}],"data":null}"#.to_string()
        } else {
            let us = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_micros());
            format!(
                r#"{{"data":{{"ticks":{{"seq":{seq},"publishedAt":{}.{:03}}}}}}}"#,
                us / 1000,
                us % 1000
            )
        };
        let event = format!("event: next\ndata: {result}\n\n");
        let tick = Tick {
            ws_frame_id1: ws_frame(format!(r#"{{"id":"1","type":"next","payload":{result}}}"#)),
            sse_chunk: Bytes::from(format!("{:x}\r\n{event}\r\n", event.len())),
            result,
        };
        shared.stats.ticks.fetch_add(1, Ordering::Relaxed);
        tx.send_replace(Some(Arc::new(tick)));
    }
}

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

async fn connection(mut tcp: TcpStream, shared: Arc<Shared>) {
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

/// The subscription document is one this publisher serves.
fn known_subscription(payload: &serde_json::Value) -> bool {
    payload
        .get("query")
        .and_then(|q| q.as_str())
        .is_some_and(|q| q.contains("subscription") && q.contains("ticks"))
}

/// A timer for `drop_after` (far in the future when not dropping).
fn drop_timer(mis: &Misbehavior) -> tokio::time::Sleep {
    let at = match mis.drop_after {
        Some(d) => tokio::time::Instant::now() + d,
        None => tokio::time::Instant::now() + Duration::from_secs(86_400 * 365),
    };
    tokio::time::sleep_until(at)
}

/// Counts a subscriber for as long as it lives.
struct SubscriberGuard<'a>(&'a Stats);

impl<'a> SubscriberGuard<'a> {
    fn new(stats: &'a Stats) -> Self {
        stats.subscribers.fetch_add(1, Ordering::Relaxed);
        stats.subscriptions.fetch_add(1, Ordering::Relaxed);
        SubscriberGuard(stats)
    }
}

impl Drop for SubscriberGuard<'_> {
    fn drop(&mut self) {
        self.0.subscribers.fetch_sub(1, Ordering::Relaxed);
    }
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
async fn websocket(tcp: TcpStream, head: Vec<u8>, shared: Arc<Shared>) {
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
                        && sock.write_all(&tick.ws_frame_id1).await.is_ok()
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
                    DropStyle::Reset => set_zero_linger(sock.tcp.as_raw_fd()),
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

/// Makes the close of `fd` a reset (RST) instead of a FIN.
fn set_zero_linger(fd: RawFd) {
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: `fd` is the open socket of the caller's live stream; the option is plain data.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
}

/// Writes all of `data` (the socket is shared with a readiness wait on the same task).
async fn write_all(tcp: &TcpStream, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match tcp.try_write(data) {
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => tcp.writable().await?,
            Err(e) => return Err(e),
        }
    }
    Ok(())
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
                    DropStyle::Reset => set_zero_linger(tcp.as_raw_fd()),
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
