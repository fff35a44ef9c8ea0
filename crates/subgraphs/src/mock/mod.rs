//! Mock subgraphs from SDL: given Federation v2 subgraph SDL files, serve each as a subgraph
//! whose every value is a pure function of a seed (docs/own-graph.md), so that a gateway
//! can be benchmarked on a user's own graph without hand-written resolvers. They are served
//! as `serve` serves the built-in graphs (delays, counters, header tallies, threads), with an
//! optional CPU cost per field (`cost`).

pub mod answer;
mod arguments;
pub mod conform;
pub mod cost;
mod entity;
pub mod identity;
pub mod model;
pub mod resolve;
pub mod schema;
pub mod seed;
pub mod serve;
pub mod shared;
pub mod subgraph;
pub mod values;

pub use subgraph::{MockConfig, MockSubgraph, MAX_LIST, NULL_EVERY};
