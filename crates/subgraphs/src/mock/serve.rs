//! HTTP for mock subgraphs: one listener per subgraph on 127.0.0.1, `POST /graphql` and
//! `GET /health` over HTTP/1.1 keep-alive. Smaller than `server` (no delays, counters or
//! response cache yet), which is tied to the built-in graphs' fixed subgraph lists.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{header, Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use super::MockSubgraph;

/// A bound on request bodies so a broken client cannot make us buffer without limit.
const MAX_BODY: usize = 16 << 20;

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

async fn accept_loop(listener: TcpListener, subgraph: Arc<MockSubgraph>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Typically out of file descriptors: wait for connections to close.
                eprintln!("{}: accept failed: {e}", subgraph.name);
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let subgraph = subgraph.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |req| {
                let subgraph = subgraph.clone();
                async move { Ok::<_, Infallible>(handle(&subgraph, req).await) }
            });
            // A client hanging up mid-request is its business.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

async fn handle(subgraph: &MockSubgraph, req: Request<Incoming>) -> Response<Full<Bytes>> {
    match (req.method(), req.uri().path()) {
        (&Method::POST, "/graphql") => {}
        (&Method::GET, "/health") => return respond(StatusCode::OK, "text/plain", "ok".into()),
        _ => return error(StatusCode::NOT_FOUND, "try POST /graphql or GET /health"),
    }
    let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(e) => return error(StatusCode::BAD_REQUEST, &format!("cannot read body: {e}")),
    };
    let batch: async_graphql::BatchRequest = match serde_json::from_slice(&body) {
        Ok(batch) => batch,
        Err(e) => {
            let why = format!("body is not a GraphQL JSON request: {e}");
            return error(StatusCode::BAD_REQUEST, &why);
        }
    };
    let response = subgraph.execute_batch(batch).await;
    match serde_json::to_vec(&response) {
        Ok(bytes) => respond(StatusCode::OK, "application/json", bytes.into()),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("cannot encode response: {e}"),
        ),
    }
}

fn error(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    let body = serde_json::json!({ "errors": [{ "message": message }] }).to_string();
    respond(status, "application/json", body.into())
}

fn respond(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
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
