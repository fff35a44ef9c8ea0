//! Shared by the integration tests: an in-process server on free ports and a minimal
//! HTTP/1.1 client (one request per connection), so tests need no HTTP client crate.

#![allow(dead_code)] // each test binary uses a different subset

pub mod mocks;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gqlbench_subgraphs::server::{self, Running, ServeConfig};
use gqlbench_subgraphs::subgraph::Federation;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub async fn start(federation: Federation, delays: &[&str]) -> Running {
    start_with(federation, delays, true).await
}

pub async fn start_with(federation: Federation, delays: &[&str], response_cache: bool) -> Running {
    let config = ServeConfig {
        graph: gqlbench_subgraphs::graph::Graph::Demo,
        ports: vec![0; 4],
        federation,
        delays: delays
            .iter()
            .map(|d| gqlbench_subgraphs::delay::DelaySpec::parse(d).unwrap())
            .collect(),
        seed: 1,
        response_cache,
    };
    server::start(&config).await.unwrap()
}

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub elapsed: Duration,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

pub async fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> Reply {
    request_with(addr, method, path, body, &[]).await
}

/// As [`request`], with extra request headers.
pub async fn request_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> Reply {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let extra: String = headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}\r\n"))
        .collect();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra}connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let elapsed = started.elapsed();
    let raw = String::from_utf8(raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    Reply {
        status,
        body: body.to_string(),
        elapsed,
    }
}

/// POSTs a GraphQL request (query plus JSON variables) to /graphql.
pub async fn graphql(addr: SocketAddr, query: &str, variables: serde_json::Value) -> Reply {
    let body = serde_json::json!({ "query": query, "variables": variables }).to_string();
    request(addr, "POST", "/graphql", &body).await
}
