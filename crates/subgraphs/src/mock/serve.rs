//! HTTP for mock subgraphs: one listener per subgraph on 127.0.0.1, `POST /graphql` and
//! `GET /health` over HTTP/1.1 keep-alive. Smaller than `server` (no delays, counters or
//! response cache yet), which is tied to the built-in graphs' fixed subgraph lists.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use tokio::net::TcpListener;

use super::MockSubgraph;
use crate::http::{
    accept_loop, encode, graphql_error, json, parse_batch, read_body, text, Handler,
};

/// Binds a port per subgraph (`ports[i]` for `subgraphs[i]`; 0 picks a free one), then
/// serves them in the background on the current runtime. Returns the bound addresses.
pub async fn start(subgraphs: Vec<MockSubgraph>, ports: &[u16]) -> anyhow::Result<Vec<SocketAddr>> {
    anyhow::ensure!(
        subgraphs.len() == ports.len(),
        "{} ports for {} subgraphs",
        ports.len(),
        subgraphs.len()
    );
    let mut bound = Vec::new();
    for (s, &port) in subgraphs.iter().zip(ports) {
        let listener = TcpListener::bind(("127.0.0.1", port)).await.map_err(|e| {
            anyhow::anyhow!("cannot listen on 127.0.0.1:{port} for {}: {e}", s.name)
        })?;
        bound.push(listener);
    }
    let mut addrs = Vec::new();
    for (listener, s) in bound.into_iter().zip(subgraphs) {
        addrs.push(listener.local_addr()?);
        tokio::spawn(accept_loop(listener, Arc::new(s)));
    }
    Ok(addrs)
}

impl Handler for MockSubgraph {
    fn name(&self) -> &str {
        &self.name
    }

    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        match (req.method(), req.uri().path()) {
            (&Method::POST, "/graphql") => {}
            (&Method::GET, "/health") => return text(StatusCode::OK, "ok"),
            _ => return graphql_error(StatusCode::NOT_FOUND, "try POST /graphql or GET /health"),
        }
        let body = match read_body(req).await {
            Ok(body) => body,
            Err(r) => return r.answer(),
        };
        let batch = match parse_batch(&body) {
            Ok(batch) => batch,
            Err(r) => return r.answer(),
        };
        match encode(&self.execute_batch(batch).await) {
            Ok(bytes) => json(StatusCode::OK, bytes),
            Err(r) => r.answer(),
        }
    }
}

/// `--ports products=4001,reviews=4002`: a port for each of `names`, in their order.
pub fn parse_ports(list: &str, names: &[&str]) -> anyhow::Result<Vec<u16>> {
    let mut ports: Vec<Option<u16>> = vec![None; names.len()];
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, port) = item
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("'{item}' is not NAME=PORT"))?;
        let i = names
            .iter()
            .position(|n| *n == name.trim())
            .ok_or_else(|| anyhow::anyhow!("no subgraph {name}; the SDL files give {names:?}"))?;
        let port: u16 = port
            .trim()
            .parse()
            .map_err(|_| anyhow::anyhow!("'{item}': '{port}' is not a port"))?;
        anyhow::ensure!(ports[i].replace(port).is_none(), "{name} is given twice");
    }
    names
        .iter()
        .zip(ports)
        .map(|(n, p)| p.ok_or_else(|| anyhow::anyhow!("no port for {n}")))
        .collect()
}

/// `--list Type.field=n`, repeatable: list lengths by field.
pub fn parse_lists(items: &[String]) -> anyhow::Result<super::MockConfig> {
    let mut config = super::MockConfig::default();
    for item in items {
        let (path, n) = item
            .split_once('=')
            .filter(|(p, _)| p.contains('.'))
            .ok_or_else(|| anyhow::anyhow!("'{item}' is not Type.field=LENGTH"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| anyhow::anyhow!("'{item}': '{n}' is not a length"))?;
        config.lists.insert(path.trim().to_string(), n);
    }
    Ok(config)
}
