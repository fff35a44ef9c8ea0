//! Subscription load: many long-lived GraphQL subscriptions (WebSocket with the
//! `graphql-transport-ws` protocol, or GraphQL over SSE in "distinct connections" mode),
//! opened at a bounded rate, held for a measured window, and every message they receive
//! checked and timed.
//!
//! Unlike HTTP load there is nothing to send on the hot path: the cost is in receiving. It
//! runs on the same worker harness (one pinned thread with a single-threaded runtime per
//! worker): connections are set up by a task each, then (WebSocket) handed to one epoll
//! loop per worker drained every millisecond (`ws::poll`); each message is parsed once by a
//! visitor that pulls out only the few values it needs (`extract`, no `serde_json::Value`),
//! and all counters are plain fields owned by the worker (`record`), merged at the end
//! (`summary`). Failures are counted by kind with examples, never hidden: a connection that
//! fails or drops is not reopened.
//!
//! Layout: `plan` and `result` are the public types; `prepared` (what every connection
//! reads) and `ctx` (where it reports) are the shared context the transports `ws` and `sse`
//! depend on, neither on the other; `worker` and `run` put them on the harness.

mod ctx;
mod extract;
mod live;
mod plan;
mod prepared;
mod record;
mod result;
mod run;
mod sse;
mod summary;
mod worker;
mod ws;

pub use live::{SubscribeLive, SubscribePhase};
pub use plan::{SubscribeControl, SubscribePlan, SubscribeTransport, GRAPHQL_TRANSPORT_WS};
pub use result::{
    ConnectionFailureKind, FailureStage, MessageFailureKind, PerConnectionRate,
    SubscribeConnections, SubscribeFailureExample, SubscribeResult, SubscribeSecond,
};
pub use run::run_subscriptions;
