//! `load`'s arguments: one endpoint benchmarked ad hoc.
use std::path::PathBuf;

use clap::Args;

use super::parsers::parse_duration;

#[derive(Args, Debug)]
pub struct LoadArgs {
    /// GraphQL endpoint, e.g. http://127.0.0.1:4000/graphql
    pub url: String,
    /// File with the GraphQL document to send
    #[arg(short = 'q', long = "query", value_name = "FILE")]
    pub query: PathBuf,
    /// Variables as a JSON object
    #[arg(long)]
    pub variables: Option<String>,
    /// Expected answer: a JSON file holding {"data": ...} (or the data itself)
    #[arg(long, value_name = "FILE")]
    pub expect: Option<PathBuf>,
    /// Connections (closed model) or the connection pool limit (open model)
    #[arg(short = 'c', long, default_value_t = 50)]
    pub connections: u32,
    /// Measured duration (default 10s; with -n alone the count decides, bounded by 1 h)
    #[arg(short = 'd', long, value_parser = parse_duration)]
    pub duration: Option<std::time::Duration>,
    /// Stop after this many requests instead of (or before) the duration
    #[arg(short = 'n', long)]
    pub requests: Option<u64>,
    /// Pipelining depth per connection (closed model)
    #[arg(short = 'p', long, default_value_t = 1)]
    pub pipelining: u32,
    /// Open model: constant arrival rate in requests per second
    #[arg(long)]
    pub rate: Option<f64>,
    /// Think time between a response and the next request (closed model)
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub think_time: std::time::Duration,
    /// Warm-up before measuring (discarded)
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub warmup: std::time::Duration,
    /// Per-request timeout
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Generator threads (default: one per generator CPU)
    #[arg(long)]
    pub threads: Option<usize>,
    /// Extra header "name: value" (repeatable)
    #[arg(short = 'H', long = "header")]
    pub headers: Vec<String>,
    /// Pin the generator to these CPUs, e.g. "0"
    #[arg(long, value_name = "LIST")]
    pub generator_cpus: Option<String>,
    /// Allow a URL that is not on loopback (127.0.0.0/8, ::1)
    #[arg(long)]
    pub allow_remote: bool,
    /// Print the result as JSON on stdout
    #[arg(long)]
    pub json: bool,
}
