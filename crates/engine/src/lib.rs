//! gqlbench load engine: sends GraphQL requests over HTTP/1.1 keep-alive connections to one
//! endpoint and records what happened. It composes three independent parts — an arrival
//! schedule (closed or open, with stages), a stop condition (duration, request count) and
//! a recorder (HDR histograms per worker, merged at the end) — and validates every response.
//! It knows nothing of processes, targets or reports.

mod affinity;
mod canonical;
mod check;
mod closed;
mod conn;
mod error;
mod gate;
mod hist;
mod limits;
mod live;
mod open;
mod parse;
mod plan;
mod prepare;
pub mod publisher;
mod record;
mod result;
mod run;
mod schedule;
mod subscribe;
mod timer;
mod validate;
mod window;
mod worker;
mod wsio;

pub use canonical::{canonical_eq, diff as canonical_diff, to_canonical_string};
pub use check::{check_once, Verdict};
pub use error::EngineError;
pub use hist::{decode_hist, encode_hist, new_latency, summarize as summarize_hist};
pub use live::{LiveStats, Phase};
pub use plan::{
    Control, Endpoint, Extend, LoadPlan, Operation, Schedule, Stage, Stages, Stop, Variant,
    MAX_PIPELINING, MAX_SPAN,
};
pub use record::LATE_THRESHOLD;
pub use result::{
    ConnectionSpread, FailureExample, LatencySummary, LoadResult, OperationCounts, SecondSample,
};
pub use run::run;
pub use schedule::Curve;
pub use subscribe::{
    run_subscriptions, ConnectionFailureKind, FailureStage, MessageFailureKind, PerConnectionRate,
    SubscribeConnections, SubscribeControl, SubscribeFailureExample, SubscribeLive, SubscribePhase,
    SubscribePlan, SubscribeResult, SubscribeSecond, SubscribeTransport, GRAPHQL_TRANSPORT_WS,
};
pub use validate::{judge, FailureKind};
