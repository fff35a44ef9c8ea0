//! gqlbench's load engine: generates GraphQL load against one endpoint and records what
//! happened, validating every response. It knows nothing of processes, targets or reports.
//!
//! Two kinds of load run on one worker harness (`harness`: pinned worker threads with a
//! single-threaded runtime each, a common start line, a ticker for cancel, window and live
//! progress, and records merged at the end):
//! - HTTP load ([`run`], `load`): requests over keep-alive HTTP/1.1 connections. It
//!   composes an arrival schedule (closed or open model, with stages), a stop condition
//!   (duration, request count) and a recorder (HDR histograms per worker, merged);
//! - subscriptions ([`run_subscriptions`], `subscribe`): long-lived GraphQL subscriptions
//!   over WebSocket (`graphql-transport-ws`) or SSE, every message checked and timed.
//!
//! An HTTP load may be sliced ([`Slicing`]): the runs of several arms (builds of a server
//! compared side by side) share a clock of short slices and send in turns, each counting
//! its own slices.
//!
//! Besides: one-off checks of an operation ([`check_once`]), canonical JSON comparison,
//! histogram encoding for results, and the socket helpers the reference servers
//! (`gqlbench-servers`) share with the engine ([`affinity`], [`net`], [`wsio`]).

pub mod affinity;
mod canonical;
mod check;
mod conn;
mod endpoint;
mod error;
mod failure;
mod harness;
mod headers;
mod hist;
mod limits;
mod live;
mod load;
mod multipart;
pub mod net;
mod parse;
mod plan;
mod prepare;
mod result;
mod schedule;
mod slicing;
mod sse;
mod subscribe;
mod timer;
mod validate;
mod variant;
pub mod wsio;

pub use canonical::{canonical_eq, diff as canonical_diff, to_canonical_string};
pub use check::{check_once, check_with_headers, Verdict};
pub use endpoint::Endpoint;
pub use error::EngineError;
pub use headers::HeaderRule;
pub use hist::{decode_hist, encode_hist, new_latency, summarize as summarize_hist};
pub use live::{LiveStats, Phase};
pub use load::{run, LATE_THRESHOLD};
pub use plan::{
    Control, Extend, LoadPlan, Operation, Persisted, Schedule, Stop, UniqueNumber, Variant,
    MAX_BATCH, MAX_PIPELINING, MAX_SPAN,
};
pub use result::{
    count_resolution, ConnectionSpread, FailureExample, LatencySummary, LoadResult,
    OperationCounts, PersistedCounts, SecondSample, SliceSample, SLICE_PROFILE_BIN,
};
pub use schedule::{Curve, Stage, Stages};
pub use slicing::{Slicing, MAX_ARMS, MAX_SLICE, MIN_SLICE};
pub use subscribe::{
    run_subscriptions, ConnectionFailureKind, FailureStage, MessageFailureKind, PerConnectionRate,
    SubscribeConnections, SubscribeControl, SubscribeFailureExample, SubscribeLive, SubscribePhase,
    SubscribePlan, SubscribeResult, SubscribeSecond, SubscribeTransport, GRAPHQL_TRANSPORT_WS,
};
pub use validate::{judge, judge_variant, FailureKind};
