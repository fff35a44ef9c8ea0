//! Subscription load: many long-lived GraphQL subscriptions (WebSocket with the
//! `graphql-transport-ws` protocol, or GraphQL over SSE in "distinct connections" mode),
//! opened at a bounded rate, held for a measured window, and every message they receive
//! checked and timed.
//!
//! Unlike the request engine there is nothing to send on the hot path: the cost is in
//! receiving. So a worker is one pinned thread with a single-threaded runtime: connections
//! are set up by a task each, then (WebSocket) handed to one epoll loop per worker drained
//! every millisecond (`poll`); each message is parsed once by a visitor that pulls out only
//! the few values it needs (no `serde_json::Value`), and all counters are plain fields
//! owned by the worker, merged at the end. Failures are counted by kind with examples,
//! never hidden: a connection that fails or drops is not reopened.
//!
//! Timeline of a run: connect phase (connections opened at `connect_rate`), which ends when
//! every connection is subscribed or has failed, or when its time limit passes; then the
//! warm-up (messages counted apart); then the measured window of `hold`.

mod extract;
mod live;
mod poll;
mod record;
mod run;
mod sse;
mod ws;

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::EngineError;
use crate::plan::Endpoint;
use crate::result::LatencySummary;

pub use live::{SubscribeLive, SubscribePhase};
pub use run::run_subscriptions;

/// The subprotocol of the graphql-ws library's protocol (the only one spoken).
pub const GRAPHQL_TRANSPORT_WS: &str = "graphql-transport-ws";

/// How subscriptions are carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubscribeTransport {
    /// WebSocket (`GET` + upgrade on the endpoint's path), subprotocol
    /// `graphql-transport-ws`: `connection_init` → `connection_ack` → `subscribe` →
    /// `next`* / `error` / `complete`; `ping` is answered with `pong`.
    WebSocket,
    /// GraphQL over Server-Sent Events, distinct connections mode: one `POST` per
    /// subscription with `Accept: text/event-stream`; events `next` (data: the execution
    /// result) and `complete`.
    Sse,
}

impl SubscribeTransport {
    pub fn as_str(self) -> &'static str {
        match self {
            SubscribeTransport::WebSocket => "websocket",
            SubscribeTransport::Sse => "sse",
        }
    }
}

/// Everything a subscription run needs.
#[derive(Debug, Clone)]
pub struct SubscribePlan {
    /// Server address, `Host` header and path (`http://` or `ws://` URLs both parse).
    pub endpoint: Endpoint,
    pub transport: SubscribeTransport,
    /// The subscription document, e.g. `subscription { ticks { seq publishedAt } }`.
    pub query: String,
    /// Variables of the operation (an object), sent with every subscription.
    pub variables: Option<serde_json::Value>,
    /// `operationName`, for documents with several operations.
    pub operation_name: Option<String>,
    /// WebSocket: `payload` of `connection_init` (e.g. auth); omitted when `None`.
    pub connection_init_payload: Option<serde_json::Value>,
    /// Subscriptions to open, one per connection.
    pub connections: u32,
    /// Connections opened per second (paces the connect phase so the server's listen
    /// backlog does not overflow).
    pub connect_rate: f64,
    /// Per connection: TCP connect + upgrade + `connection_ack` (WebSocket), or TCP connect +
    /// response head (SSE), must complete within this.
    pub ack_timeout: Duration,
    /// Per connection: the first message must arrive within this after subscribing, else
    /// the connection counts as a `no_message` failure and is closed. `None`: no limit (for
    /// subscriptions whose events are rare).
    pub first_message_timeout: Option<Duration>,
    /// After the connect phase: messages are received but counted apart.
    pub warmup: Duration,
    /// The measured window.
    pub hold: Duration,
    /// JSON pointer, in the execution result (`{"data": ...}`), to the publish time of a
    /// message in milliseconds since the Unix epoch (a number, fractions allowed, or a
    /// numeric string), e.g. `/data/ticks/publishedAt`. `None`: no delivery latency.
    pub published_at_pointer: Option<String>,
    /// JSON pointer, in the execution result, to the message's sequence number (an
    /// integer increasing by one per publication), e.g. `/data/ticks/seq`. `None`: no gap,
    /// duplicate or ordering checks.
    pub seq_pointer: Option<String>,
    /// Worker threads (>= 1), each with its own single-threaded runtime.
    pub threads: usize,
    /// Pin worker threads to these CPUs, round-robin.
    pub cpus: Option<Vec<usize>>,
    /// Extra headers of the upgrade request (WebSocket) or of the POST (SSE).
    pub headers: Vec<(String, String)>,
    /// Failure examples kept per kind.
    pub keep_examples: usize,
}

impl SubscribePlan {
    /// A plan with common defaults: 1 connection, 1,000 connections/s, 10 s ack and first
    /// message timeouts, no warm-up, 10 s hold, one thread, 3 examples.
    pub fn new(endpoint: Endpoint, transport: SubscribeTransport, query: &str) -> SubscribePlan {
        SubscribePlan {
            endpoint,
            transport,
            query: query.to_string(),
            variables: None,
            operation_name: None,
            connection_init_payload: None,
            connections: 1,
            connect_rate: 1000.0,
            ack_timeout: Duration::from_secs(10),
            first_message_timeout: Some(Duration::from_secs(10)),
            warmup: Duration::ZERO,
            hold: Duration::from_secs(10),
            published_at_pointer: None,
            seq_pointer: None,
            threads: 1,
            cpus: None,
            headers: Vec::new(),
            keep_examples: 3,
        }
    }

    /// Longest the connect phase may last: the last connection starts at
    /// `connections / connect_rate` and gives up after `ack_timeout`.
    pub fn connect_phase_limit(&self) -> Duration {
        let spread = if self.connect_rate > 0.0 {
            Duration::from_secs_f64(f64::from(self.connections) / self.connect_rate)
        } else {
            Duration::ZERO
        };
        spread + self.ack_timeout + CONNECT_PHASE_SLACK
    }

    /// Rejects plans that cannot run; the message names the problem.
    pub fn validate(&self) -> Result<(), EngineError> {
        let bad = |m: String| Err(EngineError::InvalidPlan(m));
        if self.query.trim().is_empty() {
            return bad("empty subscription document".into());
        }
        if self.connections == 0 {
            return bad("connections must be at least 1".into());
        }
        if !self.connect_rate.is_finite() || self.connect_rate <= 0.0 {
            return bad(format!(
                "connect rate must be positive, got {}",
                self.connect_rate
            ));
        }
        if self.ack_timeout.is_zero() || self.first_message_timeout == Some(Duration::ZERO) {
            return bad("timeouts must be positive".into());
        }
        if self.hold.is_zero() {
            return bad("the hold duration is zero".into());
        }
        if self.threads == 0 {
            return bad("threads must be at least 1".into());
        }
        if self.threads > self.connections as usize {
            return bad(format!(
                "{} threads for {} connections: use at most one thread per connection",
                self.threads, self.connections
            ));
        }
        if let Some(cpus) = &self.cpus {
            if cpus.is_empty() {
                return bad("empty CPU list".into());
            }
        }
        if let Some(v) = &self.variables {
            if !v.is_object() && !v.is_null() {
                return bad("variables must be a JSON object".into());
            }
        }
        for p in [&self.published_at_pointer, &self.seq_pointer]
            .into_iter()
            .flatten()
        {
            extract::parse_pointer(p).map_err(EngineError::InvalidPlan)?;
        }
        for (k, v) in &self.headers {
            let bad_char = |s: &str| s.bytes().any(|b| b == b'\r' || b == b'\n');
            if k.is_empty() || bad_char(k) || bad_char(v) || k.contains(':') {
                return bad(format!("invalid header {k:?}"));
            }
        }
        Ok(())
    }
}

/// Margin on top of [`SubscribePlan::connect_phase_limit`] for a loaded machine.
const CONNECT_PHASE_SLACK: Duration = Duration::from_millis(500);

/// How the caller steers and watches a running subscription load.
#[derive(Debug, Clone, Default)]
pub struct SubscribeControl {
    /// Set to stop promptly; the partial result comes back with `interrupted: true`.
    pub cancel: Arc<AtomicBool>,
    /// Progress, updated by the workers about every 100 ms.
    pub live: Arc<SubscribeLive>,
}

impl SubscribeControl {
    /// A control sharing an existing cancel flag (e.g. the one a Ctrl-C handler sets).
    pub fn with_cancel(cancel: Arc<AtomicBool>) -> SubscribeControl {
        SubscribeControl {
            cancel,
            live: Arc::default(),
        }
    }
}

/// Why a connection failed to subscribe, or was lost once subscribed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionFailureKind {
    /// The TCP connection could not be opened.
    Connect,
    /// The upgrade (WebSocket) or the POST (SSE) was answered with something else than a
    /// switch to WebSocket / a 200 event stream.
    Handshake,
    /// The server did not agree to the `graphql-transport-ws` subprotocol.
    Subprotocol,
    /// No `connection_ack` (WebSocket) or no response (SSE) within `ack_timeout`.
    Timeout,
    /// No message within `first_message_timeout` of subscribing.
    NoMessage,
    /// The server closed the connection (close frame, end of stream).
    Closed,
    /// The connection was reset (or another I/O error).
    Reset,
    /// The server broke the protocol (bad frame, unexpected or malformed message, bad
    /// event-stream framing).
    Protocol,
    /// The server sent an `error` message for the subscription.
    ErrorMessage,
    /// The server completed the subscription.
    Complete,
}

impl ConnectionFailureKind {
    pub const ALL: [ConnectionFailureKind; 10] = [
        ConnectionFailureKind::Connect,
        ConnectionFailureKind::Handshake,
        ConnectionFailureKind::Subprotocol,
        ConnectionFailureKind::Timeout,
        ConnectionFailureKind::NoMessage,
        ConnectionFailureKind::Closed,
        ConnectionFailureKind::Reset,
        ConnectionFailureKind::Protocol,
        ConnectionFailureKind::ErrorMessage,
        ConnectionFailureKind::Complete,
    ];
    /// Dense index for per-kind arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Why a received message is not valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageFailureKind {
    /// The execution result carries GraphQL `errors`.
    GraphqlError,
    /// `data` is missing or null.
    MissingData,
    /// A configured pointer (publish time, sequence number) is missing or not a number.
    MissingField,
    /// SSE: the data of a `next` event is not a JSON object.
    BadJson,
}

impl MessageFailureKind {
    pub const ALL: [MessageFailureKind; 4] = [
        MessageFailureKind::GraphqlError,
        MessageFailureKind::MissingData,
        MessageFailureKind::MissingField,
        MessageFailureKind::BadJson,
    ];
    /// Dense index for per-kind arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// When a failure happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureStage {
    /// Before the connection was subscribed.
    Setup,
    /// A subscribed connection was lost.
    Drop,
    /// An invalid message (the connection is kept).
    Message,
}

/// One described failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscribeFailureExample {
    pub stage: FailureStage,
    /// A [`ConnectionFailureKind`] or [`MessageFailureKind`], as in the maps' keys.
    pub kind: String,
    /// Connection number (0-based, in opening order).
    pub connection: u64,
    /// Close code and reason, status and body excerpt, error text or message excerpt.
    pub detail: String,
}

/// What happened to the connections.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscribeConnections {
    /// Connections the run tried to open.
    pub attempted: u64,
    /// Connections whose handshake completed: TCP connected and upgraded (WebSocket) or TCP
    /// connected with the POST written (SSE).
    pub connected: u64,
    /// Connections subscribed: `connection_ack` received (WebSocket), 200 with
    /// `text/event-stream` (SSE).
    pub subscribed: u64,
    /// Subscribed connections still open at the end of the measured window.
    pub held_at_end: u64,
    /// Subscribed connections lost before the end of the window (sum of `drops`).
    pub dropped: u64,
    /// Of `dropped`, those lost within the measured window.
    pub dropped_in_window: u64,
    /// Connections that failed to subscribe (sum of `setup_failures`).
    pub setup_failed: u64,
    /// Connections still subscribing when the run ended (not counted as failures).
    pub pending_at_end: u64,
}

/// Messages per second of single connections over the measured window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PerConnectionRate {
    /// Connections subscribed at some time in the window (the rates are over them).
    pub connections: u64,
    pub mean_per_s: f64,
    pub min_per_s: f64,
    pub max_per_s: f64,
}

/// One second of the measured window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscribeSecond {
    /// Seconds since the window start (this sample covers [t_s, t_s + 1)).
    pub t_s: u64,
    /// Messages received in this second (valid and invalid).
    pub messages: u64,
    /// Invalid messages received in this second.
    pub invalid: u64,
    /// Subscribed connections open at the end of this second.
    pub held: u64,
    /// 99th percentile delivery latency of this second (2 significant figures).
    pub p99_us: u64,
}

/// Everything a subscription run measured. Units are in the field names. Message figures
/// are of the measured window unless named otherwise.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscribeResult {
    /// `websocket` or `sse`.
    pub transport: String,
    pub connections: SubscribeConnections,
    /// Connections that never subscribed, per kind.
    pub setup_failures: BTreeMap<ConnectionFailureKind, u64>,
    /// Subscribed connections lost before the end of the window, per kind.
    pub drops: BTreeMap<ConnectionFailureKind, u64>,
    /// Invalid messages of the window, per kind.
    pub message_failures: BTreeMap<MessageFailureKind, u64>,
    /// The first few failures of each kind and stage, described.
    pub failure_examples: Vec<SubscribeFailureExample>,
    /// From the start of the run to the end of the connect phase, in seconds.
    pub connect_phase_s: f64,
    /// The connect phase ended on its time limit with connections still subscribing.
    pub connect_phase_timed_out: bool,
    /// Time from starting the TCP connect to subscribed, over subscribed connections.
    pub connect_time: LatencySummary,
    /// Histogram of `connect_time` (HdrHistogram V2 + deflate, base64; see `decode_hist`).
    pub connect_time_hist: String,
    /// Messages (`next`) received over the whole run, warm-up included.
    pub messages_total: u64,
    /// Messages received in the measured window (valid and invalid).
    pub messages: u64,
    /// Invalid messages of the window (sum of `message_failures`).
    pub invalid_messages: u64,
    /// Messages received during the connect phase and the warm-up.
    pub warmup_messages: u64,
    /// `messages / elapsed_s`.
    pub messages_per_s: f64,
    pub per_connection: PerConnectionRate,
    /// Delivery latency: receive wall-clock time minus the message's publish time, over
    /// valid messages of the window (empty without `published_at_pointer`). WebSocket: the
    /// receive time is the kernel's arrival time of the message's last segment
    /// (`SO_TIMESTAMPNS`), else the time its read batch was taken (at most 1 ms later);
    /// SSE: the time the message was read.
    pub latency: LatencySummary,
    /// Histogram of `latency`, encoded as `connect_time_hist`.
    pub latency_hist: String,
    /// Messages whose publish time is later than their receipt (a clock or data problem;
    /// recorded with latency 0).
    pub future_published_at: u64,
    /// Messages missed: sum over connections of jumps in the sequence number (a jump from
    /// 4 to 7 misses 2).
    pub missed: u64,
    /// Jumps in the sequence number (each gap once, whatever its size).
    pub gaps: u64,
    /// Messages whose sequence number repeats the previous one.
    pub duplicates: u64,
    /// Messages whose sequence number is lower than the previous one.
    pub out_of_order: u64,
    /// Bytes of message payloads received in the window (WebSocket frame payloads, SSE
    /// event data).
    pub bytes_received: u64,
    /// Length of the measured window actually run, in seconds.
    pub elapsed_s: f64,
    /// CPU time of the worker threads during the measured window, in seconds (sum over
    /// threads of CLOCK_THREAD_CPUTIME_ID deltas).
    pub generator_cpu_s: f64,
    /// `generator_cpu_s / elapsed_s * 100`: percent of one core.
    pub generator_cpu_percent: f64,
    /// Worker threads used.
    pub threads: usize,
    /// CPUs the workers were pinned to, as read back with sched_getaffinity; None if not pinned.
    pub pinned_cpus: Option<Vec<usize>>,
    /// The run was cancelled before the end of its window.
    pub interrupted: bool,
    /// One sample per second of the window.
    pub series: Vec<SubscribeSecond>,
}

impl SubscribeResult {
    /// Connection failures (setup and drops) plus invalid messages: zero for a clean run.
    pub fn failures(&self) -> u64 {
        self.connections.setup_failed + self.connections.dropped + self.invalid_messages
    }
}
