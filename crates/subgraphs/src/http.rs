//! The HTTP plumbing of the subgraph server (`server`, which serves the built-in graphs and,
//! through `mock::serve`, a user's SDL): the accept loop of one listener over HTTP/1.1
//! keep-alive, the request body read with a bound, and the answers (text, JSON, a GraphQL
//! error).

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{header, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// Far above any gateway request (the largest `_entities` batch is a few KB); a bound so a
/// broken client cannot make us buffer without limit.
pub const MAX_BODY: usize = 16 << 20;

/// One subgraph's answers to requests.
pub trait Handler: Send + Sync + 'static {
    /// Its name, for the log.
    fn name(&self) -> &str;
    fn handle(&self, req: Request<Incoming>) -> impl Future<Output = Response<Full<Bytes>>> + Send;
}

/// Serves `listener` with `handler` until the runtime ends.
pub async fn accept_loop<H: Handler>(listener: TcpListener, handler: Arc<H>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Typically out of file descriptors: wait for connections to close rather
                // than spin or give up on the subgraph.
                eprintln!("{}: accept failed: {e}", handler.name());
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        // Small request/response pairs: Nagle would add latency to every one.
        let _ = stream.set_nodelay(true);
        let handler = handler.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let handler = handler.clone();
                async move { Ok::<_, Infallible>(handler.handle(req).await) }
            });
            // A client hanging up mid-request is its business, not an error to report.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Why a request is answered with a GraphQL error instead: its status and message.
pub struct Refusal(pub StatusCode, pub String);

impl Refusal {
    pub fn answer(&self) -> Response<Full<Bytes>> {
        graphql_error(self.0, &self.1)
    }
}

/// The request's body, at most `MAX_BODY` bytes.
pub async fn read_body(req: Request<Incoming>) -> Result<Bytes, Refusal> {
    match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(body) => Ok(body.to_bytes()),
        Err(e) => Err(Refusal(
            StatusCode::BAD_REQUEST,
            format!("cannot read body: {e}"),
        )),
    }
}

/// A GraphQL request or batch from `body`.
pub fn parse_batch(body: &[u8]) -> Result<async_graphql::BatchRequest, Refusal> {
    serde_json::from_slice(body).map_err(|e| {
        Refusal(
            StatusCode::BAD_REQUEST,
            format!("body is not a GraphQL JSON request: {e}"),
        )
    })
}

/// `response` as JSON bytes.
pub fn encode(response: &async_graphql::BatchResponse) -> Result<Bytes, Refusal> {
    serde_json::to_vec(response).map(Bytes::from).map_err(|e| {
        Refusal(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot encode response: {e}"),
        )
    })
}

pub fn text(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    respond(
        status,
        "text/plain; charset=utf-8",
        Bytes::from_static(body.as_bytes()),
    )
}

pub fn json(status: StatusCode, body: Bytes) -> Response<Full<Bytes>> {
    respond(status, "application/json", body)
}

pub fn graphql_error(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    let body = serde_json::json!({ "errors": [{ "message": message }] }).to_string();
    json(status, body.into())
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
