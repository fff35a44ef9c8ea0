//! gqlbench's reference servers, kept out of the load generator: a static GraphQL server
//! (one fixed answer, so a run against it measures the generator's own ceiling; served by
//! `gqlbench serve-static` for `gqlbench calibrate`) and a subscription publisher (WebSocket
//! `graphql-transport-ws` and SSE, optionally misbehaving; served by `gqlbench
//! serve-subscriptions`, and used in process by the engine's tests); and an OTLP trace
//! receiver that counts spans (`gqlbench serve-otlp`, the collector of tracing variants).

pub mod otlp;
pub mod publisher;
pub mod static_server;
