//! An OTLP/HTTP trace receiver that counts spans (`gqlbench serve-otlp`): the collector of
//! the tracing-overhead variants. A "tracing on" variant must prove that it exported, so
//! the receiver decodes every export (protobuf, as Apollo Router sends it, or JSON, as the
//! JavaScript exporters do; gzip or not) and counts the spans in it; `GET /stats` gives
//! `{"requests", "spans", "undecodable"}`. It stores nothing: counting is all a benchmark
//! needs, and storing would make the collector part of what is measured.
use std::convert::Infallible;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use prost::Message;

/// The parts of `ExportTraceServiceRequest` (opentelemetry-proto, trace/v1) needed to count
/// spans; prost skips every other field.
#[derive(Clone, PartialEq, Message)]
pub struct ExportTraceServiceRequest {
    #[prost(message, repeated, tag = "1")]
    pub resource_spans: Vec<ResourceSpans>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ResourceSpans {
    #[prost(message, repeated, tag = "2")]
    pub scope_spans: Vec<ScopeSpans>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ScopeSpans {
    #[prost(message, repeated, tag = "2")]
    pub spans: Vec<Span>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Span {
    #[prost(bytes = "vec", tag = "1")]
    pub trace_id: Vec<u8>,
}

/// Far above one batch of spans; a bound so a broken exporter cannot make us buffer forever.
const MAX_BODY: usize = 64 << 20;

#[derive(Debug, Default)]
pub struct Counts {
    pub requests: AtomicU64,
    pub spans: AtomicU64,
    pub undecodable: AtomicU64,
}

impl Counts {
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "requests": self.requests.load(Ordering::Relaxed),
            "spans": self.spans.load(Ordering::Relaxed),
            "undecodable": self.undecodable.load(Ordering::Relaxed),
        })
        .to_string()
    }
}

/// Spans in one export body, by its content type and encoding.
pub fn count_spans(content_type: &str, gzip: bool, body: &[u8]) -> Result<u64> {
    let mut unzipped = Vec::new();
    let body = if gzip {
        flate2::read::GzDecoder::new(body)
            .read_to_end(&mut unzipped)
            .context("gzip")?;
        &unzipped[..]
    } else {
        body
    };
    if content_type.starts_with("application/json") {
        let v: serde_json::Value = serde_json::from_slice(body).context("JSON")?;
        let mut n = 0;
        for rs in v["resourceSpans"].as_array().into_iter().flatten() {
            // `instrumentationLibrarySpans`: the name before OTLP 0.15.
            let scopes = rs["scopeSpans"]
                .as_array()
                .or_else(|| rs["instrumentationLibrarySpans"].as_array());
            for ss in scopes.into_iter().flatten() {
                n += ss["spans"].as_array().map_or(0, |s| s.len() as u64);
            }
        }
        return Ok(n);
    }
    let req = ExportTraceServiceRequest::decode(body).context("protobuf")?;
    Ok(req
        .resource_spans
        .iter()
        .flat_map(|r| &r.scope_spans)
        .map(|s| s.spans.len() as u64)
        .sum())
}

async fn handle(req: Request<Incoming>, counts: Arc<Counts>) -> Response<Full<Bytes>> {
    let text = |status: StatusCode, ct: &'static str, body: String| {
        Response::builder()
            .status(status)
            .header("content-type", ct)
            .body(Full::new(Bytes::from(body)))
            .unwrap_or_default()
    };
    match (req.method(), req.uri().path()) {
        (&Method::GET, "/health") => text(StatusCode::OK, "text/plain", "ok".into()),
        (&Method::GET, "/stats") => text(StatusCode::OK, "application/json", counts.to_json()),
        (&Method::POST, "/v1/traces") => {
            let header = |name: &str| {
                req.headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_ascii_lowercase()
            };
            let ct = header("content-type");
            let gzip = header("content-encoding") == "gzip";
            counts.requests.fetch_add(1, Ordering::Relaxed);
            let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
                Ok(b) => b.to_bytes(),
                Err(_) => {
                    counts.undecodable.fetch_add(1, Ordering::Relaxed);
                    return text(StatusCode::BAD_REQUEST, "text/plain", "body".into());
                }
            };
            match count_spans(&ct, gzip, &body) {
                Ok(n) => {
                    counts.spans.fetch_add(n, Ordering::Relaxed);
                    // An empty ExportTraceServiceResponse, in the request's own encoding.
                    if ct.starts_with("application/json") {
                        text(StatusCode::OK, "application/json", "{}".into())
                    } else {
                        text(StatusCode::OK, "application/x-protobuf", String::new())
                    }
                }
                Err(e) => {
                    counts.undecodable.fetch_add(1, Ordering::Relaxed);
                    text(StatusCode::BAD_REQUEST, "text/plain", format!("{e:#}"))
                }
            }
        }
        _ => text(
            StatusCode::NOT_FOUND,
            "text/plain",
            "try POST /v1/traces, GET /stats, GET /health".into(),
        ),
    }
}

/// Serves on 127.0.0.1:`port` until the process ends (one runtime thread: exports are
/// batches, a few per second).
pub fn serve(port: u16) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("building the runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .with_context(|| format!("binding 127.0.0.1:{port}"))?;
        eprintln!("OTLP receiver ready on 127.0.0.1:{port}");
        let counts = Arc::new(Counts::default());
        loop {
            let (stream, _) = listener.accept().await?;
            let counts = counts.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req| {
                    let counts = counts.clone();
                    async move { Ok::<_, Infallible>(handle(req, counts).await) }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn export(spans_per_scope: &[usize]) -> ExportTraceServiceRequest {
        ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                scope_spans: spans_per_scope
                    .iter()
                    .map(|n| ScopeSpans {
                        spans: (0..*n)
                            .map(|i| Span {
                                trace_id: vec![i as u8; 16],
                            })
                            .collect(),
                    })
                    .collect(),
            }],
        }
    }

    #[test]
    fn protobuf_exports_are_counted_plain_and_gzipped() {
        let body = export(&[3, 4]).encode_to_vec();
        assert_eq!(
            count_spans("application/x-protobuf", false, &body).unwrap(),
            7
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &body).unwrap();
        let zipped = gz.finish().unwrap();
        assert_eq!(
            count_spans("application/x-protobuf", true, &zipped).unwrap(),
            7
        );
        assert!(count_spans("application/x-protobuf", false, b"\xff\xff\xff").is_err());
    }

    #[test]
    fn json_exports_are_counted_in_both_spellings() {
        let body = br#"{"resourceSpans":[{"scopeSpans":[{"spans":[{},{}]},{"spans":[{}]}]},
            {"instrumentationLibrarySpans":[{"spans":[{},{},{}]}]}]}"#;
        assert_eq!(count_spans("application/json", false, body).unwrap(), 6);
        assert_eq!(count_spans("application/json", false, b"{}").unwrap(), 0);
        assert!(count_spans("application/json", false, b"not json").is_err());
    }
}
