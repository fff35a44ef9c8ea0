//! What a subscription run measured ([`SubscribeResult`], serialized into results.json:
//! field names and meanings are part of the results format) and the kinds of failure it
//! counts.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::result::LatencySummary;

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
