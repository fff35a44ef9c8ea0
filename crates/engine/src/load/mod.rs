//! HTTP load: GraphQL requests over keep-alive HTTP/1.1 connections to one endpoint, on the
//! worker harness. A closed model (`closed`: N connections, each sends, waits, optionally
//! thinks, with pipelining and ramps of active connections) or an open model (`open`:
//! requests at intended times of a rate curve, latency from the intended time) drives each
//! worker's connections; a duration window (`window`, extended when a connection completed
//! nothing) or a request count ends the run; every response is judged and recorded per
//! worker (`record`) and merged at the end.

mod closed;
mod ctx;
mod live;
mod open;
mod record;
mod run;
mod window;
mod worker;

pub use live::{LiveStats, Phase};
pub use record::LATE_THRESHOLD;
pub use run::run;
