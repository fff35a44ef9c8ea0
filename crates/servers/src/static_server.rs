//! A native static GraphQL server for `calibrate`: it answers every POST with one fixed,
//! pre-serialized response, so the figure measured against it is the load generator's
//! ceiling on this machine, not a server's. One runtime thread per CPU it may run on.

use std::convert::Infallible;

use anyhow::{Context, Result};
use bytes::Bytes;
use gqlbench_engine::affinity;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

pub const BODY: &[u8] = br#"{"data":{"__typename":"Query"}}"#;

/// Serves on 127.0.0.1:`port` until the process ends.
pub fn serve(port: u16) -> Result<()> {
    let threads = affinity::current_affinity().map_or(1, |c| c.len()).max(1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .context("building the runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .with_context(|| format!("binding 127.0.0.1:{port}"))?;
        eprintln!("static server ready on 127.0.0.1:{port}");
        accept_loop(listener).await
    })
}

/// Serves every connection `listener` accepts, each on its own task.
pub async fn accept_loop(listener: tokio::net::TcpListener) -> Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let svc = service_fn(|req: Request<Incoming>| async move {
                // The request body is not read: hyper discards it, as a static server would.
                drop(req);
                Ok::<_, Infallible>(
                    Response::builder()
                        .header("content-type", "application/json")
                        .body(Full::new(Bytes::from_static(BODY)))
                        .unwrap_or_default(),
                )
            });
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}
