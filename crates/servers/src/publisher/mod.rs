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
//! several threads each has its own `SO_REUSEPORT` listener on the same port. Requests are
//! routed by `http` (which also streams SSE); WebSocket connections are served by `ws`.

mod http;
mod ws;

use std::io;
use std::net::SocketAddr;
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use gqlbench_engine::{affinity, net, Endpoint};
use tokio::net::TcpSocket;
use tokio::sync::watch;

/// Listen backlog: a connect phase of thousands of connections per second must not see
/// SYNs dropped (the kernel caps it at `net.core.somaxconn`).
const BACKLOG: u32 = 4096;

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

    /// The endpoint to give a [`gqlbench_engine::SubscribePlan`].
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
                    tokio::task::spawn_local(http::connection(tcp, setup.shared.clone()));
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
            ws_frame_id1: ws::ws_frame(format!(r#"{{"id":"1","type":"next","payload":{result}}}"#)),
            sse_chunk: Bytes::from(format!("{:x}\r\n{event}\r\n", event.len())),
            result,
        };
        shared.stats.ticks.fetch_add(1, Ordering::Relaxed);
        tx.send_replace(Some(Arc::new(tick)));
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

/// Makes the close of `fd` a reset (RST) instead of a FIN.
fn set_zero_linger(sock: &impl AsFd) {
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // Best effort: without it the connection ends with a FIN instead.
    let _ = net::set_socket_option(sock, libc::SOL_SOCKET, libc::SO_LINGER, &linger);
}
