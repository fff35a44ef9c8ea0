//! HTTP load: GraphQL requests over keep-alive HTTP/1.1 connections to one endpoint, on the
//! worker harness. A closed model (`closed`: N connections, each sends, waits, optionally
//! thinks, with pipelining and ramps of active connections) or an open model (`open`:
//! requests at intended times of a rate curve, latency from the intended time) drives each
//! worker's connections; a duration window (`window`, extended when a connection completed
//! nothing) or a request count ends the run; every response is judged and recorded per
//! worker (`record`), merged at the end and summed up into the result (`summary`); the
//! closed model's rate is also taken from the requests' own timing (`progress`), without
//! the count's step of one request per connection at each edge.
//! A sliced run (`LoadPlan::slicing`, comparing arms side by side) sends only in its own
//! time slices, counts each slice's requests past its guard (`slices`), and profiles the
//! answers over the offset within slices; its closed-model connections stop sending one
//! answer's time before their slices end (`drain`).
//! Progress for the caller goes to the crate's `live` board, which the plan's `Control`
//! carries in.

mod answer;
mod closed;
mod ctx;
mod drain;
mod open;
mod progress;
mod record;
mod run;
mod slices;
mod summary;
mod window;
mod worker;

pub use record::LATE_THRESHOLD;
pub use run::run;
