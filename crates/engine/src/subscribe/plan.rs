//! What a subscription run is asked to do ([`SubscribePlan`], checked before anything
//! starts) and how the caller steers and watches it ([`SubscribeControl`]).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::extract;
use super::live::SubscribeLive;
use crate::endpoint::Endpoint;
use crate::error::EngineError;

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
