//! HTTP for a process's subgraphs: one listener per subgraph on 127.0.0.1, each serving
//! `POST /graphql`, `GET /health`, `GET /counters` and `GET /headers` over HTTP/1.1
//! keep-alive, with per-subgraph delays and an optional response cache. A built-in graph's
//! subgraphs (`start`) and a folder's mock subgraphs (`mock::serve`) go through the same
//! `start_served`.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use tokio::net::TcpListener;

use crate::counters::Counters;
use crate::delay::{Delay, DelaySpec};
use crate::executor::Executor;
use crate::graph::Graph;
use crate::header_tally::HeaderTally;
use crate::http::{accept_loop, encode, json, parse_batch, read_body, text, Handler};
use crate::response_cache::ResponseCache;
use crate::subgraph::Federation;

#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub graph: Graph,
    /// Port per subgraph (by its index in the graph); 0 picks a free one (tests).
    pub ports: Vec<u16>,
    pub federation: Federation,
    pub delays: Vec<DelaySpec>,
    pub seed: u64,
    /// Answer repeated bodies from memory (see `response_cache`).
    pub response_cache: bool,
}

/// The listeners are bound and their accept loops spawned on the current runtime.
pub struct Running {
    /// Bound address per subgraph (by its index in the graph).
    pub addrs: Vec<SocketAddr>,
    /// The subgraphs' names, in the order of `addrs`.
    pub names: Vec<String>,
    pub counters: Arc<Counters>,
    pub headers: Arc<HeaderTally>,
}

/// One subgraph a listener serves: a built-in graph's or a mock of a user's SDL.
pub struct Served {
    pub name: String,
    pub executor: Executor,
}

/// How every subgraph of a process answers, whatever its graph.
#[derive(Debug, Clone, Default)]
pub struct Serving {
    /// By the subgraph's index in the list served.
    pub delays: Vec<DelaySpec>,
    /// Seed of the delay draws.
    pub seed: u64,
    /// Answer repeated bodies from memory (see `response_cache`).
    pub response_cache: bool,
}

struct SubgraphService {
    index: usize,
    name: String,
    executor: Executor,
    delay: Option<Delay>,
    counters: Arc<Counters>,
    headers: Arc<HeaderTally>,
    cache: Option<ResponseCache>,
}

/// Binds every subgraph's port of a built-in graph, then serves them in the background
/// until the runtime stops.
pub async fn start(config: &ServeConfig) -> anyhow::Result<Running> {
    let names = config.graph.names();
    anyhow::ensure!(
        config.ports.len() == names.len(),
        "{} ports for the {} subgraphs of the {} graph",
        config.ports.len(),
        names.len(),
        config.graph
    );
    let mut served = Vec::with_capacity(names.len());
    for (index, name) in names.iter().enumerate() {
        served.push(Served {
            name: name.to_string(),
            executor: Executor::new(config.graph, index, config.federation)?,
        });
    }
    let serving = Serving {
        delays: config.delays.clone(),
        seed: config.seed,
        response_cache: config.response_cache,
    };
    start_served(served, &config.ports, &serving).await
}

/// Binds a port per subgraph (`ports[i]` for `subgraphs[i]`; 0 picks a free one), then
/// serves them in the background on the current runtime, with one set of counters and
/// header tallies for them all (any port answers `/counters` for every subgraph).
pub async fn start_served(
    subgraphs: Vec<Served>,
    ports: &[u16],
    serving: &Serving,
) -> anyhow::Result<Running> {
    anyhow::ensure!(
        subgraphs.len() == ports.len(),
        "{} ports for {} subgraphs",
        ports.len(),
        subgraphs.len()
    );
    let names: Vec<&str> = subgraphs.iter().map(|s| s.name.as_str()).collect();
    let owned_names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let counters = Arc::new(Counters::new(&names));
    let headers = Arc::new(HeaderTally::default());
    let mut listeners = Vec::new();
    for (name, &port) in names.iter().zip(ports) {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{port} for {name}: {e}"))?;
        listeners.push(listener);
    }
    let mut addrs = Vec::with_capacity(subgraphs.len());
    for (index, (listener, s)) in listeners.into_iter().zip(subgraphs).enumerate() {
        addrs.push(listener.local_addr()?);
        let delay = serving
            .delays
            .iter()
            .find(|d| d.index == index)
            .map(|d| Delay::new(d, serving.seed));
        let service = Arc::new(SubgraphService {
            index,
            name: s.name,
            executor: s.executor,
            delay,
            counters: counters.clone(),
            headers: headers.clone(),
            cache: serving.response_cache.then(ResponseCache::default),
        });
        tokio::spawn(accept_loop(listener, service));
    }
    Ok(Running {
        addrs,
        names: owned_names,
        counters,
        headers,
    })
}

impl Handler for SubgraphService {
    fn name(&self) -> &str {
        &self.name
    }

    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        match (req.method(), req.uri().path()) {
            (&Method::POST, "/graphql") => self.graphql(req).await,
            (&Method::GET, "/health") => text(StatusCode::OK, "ok"),
            (&Method::GET, "/counters") => json(StatusCode::OK, self.counters.to_json().into()),
            (&Method::GET, "/headers") => json(StatusCode::OK, self.headers.to_json().into()),
            (_, "/graphql") => text(
                StatusCode::METHOD_NOT_ALLOWED,
                "POST a JSON GraphQL request",
            ),
            _ => text(
                StatusCode::NOT_FOUND,
                "not found: try POST /graphql, GET /health, GET /counters, GET /headers",
            ),
        }
    }
}

impl SubgraphService {
    async fn graphql(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        self.counters.hit(self.index);
        self.headers.record(req.headers());
        let body = match read_body(req).await {
            Ok(body) => body,
            Err(r) => return r.answer(),
        };
        let cached = self.cache.as_ref().and_then(|c| c.get(&body));
        if let Some(delay) = &self.delay {
            tokio::time::sleep(delay.next()).await;
        }
        if let Some(response) = cached {
            return json(StatusCode::OK, response);
        }
        let batch = match parse_batch(&body) {
            Ok(batch) => batch,
            Err(r) => return r.answer(),
        };
        let response = self.executor.execute_batch(batch).await;
        let bytes = match encode(&response) {
            Ok(bytes) => bytes,
            Err(r) => return r.answer(),
        };
        // Only clean answers are kept: an error may come from a bug worth seeing afresh.
        if let (Some(cache), true) = (&self.cache, response.is_ok()) {
            cache.insert(body, bytes.clone());
        }
        json(StatusCode::OK, bytes)
    }
}
