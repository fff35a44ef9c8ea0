//! The four subgraphs of the classic Apollo federation demo (accounts, products, reviews,
//! inventory) that gqlbench puts behind every federation gateway, plus a non-federated
//! "monolith" over the same data that computes the expected answers.

mod cli;
pub mod counters;
pub mod data;
pub mod delay;
mod doc_cache;
pub mod executor;
pub mod header_tally;
pub mod monolith;
pub mod ports;
mod response_cache;
pub mod schemas;
pub mod sdl;
pub mod server;
mod service;
pub mod subgraph;

pub use cli::cli_main;
