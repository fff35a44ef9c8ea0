//! The subgraphs gqlbench puts behind every federation gateway: the four of the classic
//! Apollo federation demo (accounts, products, reviews, inventory) and twelve generated ones
//! (`wide`), each with a non-federated "monolith" over the same data that computes the
//! expected answers.

mod cli;
pub mod counters;
pub mod data;
pub mod delay;
mod doc_cache;
pub mod executor;
pub mod graph;
pub mod header_tally;
mod http;
pub mod mock;
pub mod monolith;
pub mod ports;
mod response_cache;
pub mod schemas;
pub mod sdl;
pub mod server;
mod service;
pub mod subgraph;
pub mod wide;

pub use cli::cli_main;
