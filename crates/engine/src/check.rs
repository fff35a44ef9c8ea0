//! One request, one verdict: for correctness pre-checks before a load.

use std::time::{Duration, Instant};

use crate::conn;
use crate::endpoint::Endpoint;
use crate::plan::Variant;
use crate::validate::{judge_variant, FailureKind};

/// The outcome of [`check_once`].
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// None when the response is valid.
    pub failure: Option<FailureKind>,
    /// Why it failed (empty when valid).
    pub detail: String,
    /// HTTP status, if a response head arrived.
    pub status: Option<u16>,
    /// Response body (decoded if chunked), if a response arrived.
    pub body: Vec<u8>,
    /// Status line and headers as received, if a response arrived.
    pub head: Vec<u8>,
    /// Time from send to the last byte (or to the failure).
    pub latency: Duration,
}

impl Verdict {
    pub fn is_ok(&self) -> bool {
        self.failure.is_none()
    }
    fn failed(kind: FailureKind, detail: String, started: Instant) -> Verdict {
        Verdict {
            failure: Some(kind),
            detail,
            status: None,
            body: Vec::new(),
            head: Vec::new(),
            latency: started.elapsed(),
        }
    }
}

/// Sends one request on a fresh connection and judges the answer (blocking).
pub fn check_once(endpoint: &Endpoint, variant: &Variant, timeout: Duration) -> Verdict {
    check_with_headers(endpoint, variant, &[], timeout)
}

/// [`check_once`] with extra request headers (a token a gateway requires, say).
pub fn check_with_headers(
    endpoint: &Endpoint,
    variant: &Variant,
    headers: &[(String, String)],
    timeout: Duration,
) -> Verdict {
    let started = Instant::now();
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            return Verdict::failed(
                FailureKind::Connect,
                format!("cannot start runtime: {e}"),
                started,
            )
        }
    };
    rt.block_on(async {
        let deadline = started + timeout;
        let mut c = match conn::connect(endpoint.addr, timeout).await {
            Ok(c) => c,
            Err(e) => return Verdict::failed(FailureKind::Connect, format!("{}: {e}", endpoint.addr), started),
        };
        let extra: String = headers
            .iter()
            .map(|(k, v)| format!("{k}: {v}\r\n"))
            .collect();
        let accept = variant.incremental.as_deref().unwrap_or("application/json");
        let mut req = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: {accept}\r\n{extra}Content-Length: {}\r\n\r\n",
            endpoint.path,
            endpoint.host,
            variant.body.len()
        )
        .into_bytes();
        req.extend_from_slice(&variant.body);
        let timer = tokio::time::sleep(timeout);
        tokio::pin!(timer);
        let sent = Instant::now();
        let outcome = match c.write_all(&req, deadline, timer.as_mut()).await {
            Ok(()) => c.next_response(deadline, timer.as_mut()).await,
            Err(e) => Err(e),
        };
        match outcome {
            Ok(r) => {
                let body = c.body(&r).to_vec();
                let head = c.head(&r).to_vec();
                let verdict = judge_variant(
                    r.status,
                    &head,
                    &body,
                    variant.expected_data.as_ref(),
                    variant.shape(),
                );
                let (failure, detail) = match verdict {
                    Ok(()) => (None, String::new()),
                    Err((k, d)) => (Some(k), d),
                };
                Verdict {
                    failure,
                    detail,
                    status: Some(r.status),
                    body,
                    head,
                    latency: sent.elapsed(),
                }
            }
            Err(e) => {
                let (kind, detail) = e.failure(timeout);
                Verdict::failed(kind, detail, started)
            }
        }
    })
}
