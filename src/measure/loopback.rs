//! A minimal HTTP/1.1 GET on loopback, for the small status endpoints of the run's own
//! helpers: the subgraphs' counters, a coprocessor's health and stats, the trace
//! collector's counts. One short body with Content-Length; no client library needed.
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// A minimal HTTP/1.1 GET on loopback answering 200 with one small JSON body (the
/// subgraphs' counters, a coprocessor's health and stats).
pub fn get_json(port: u16, path: &str) -> Result<serde_json::Value> {
    Ok(serde_json::from_str(get_text(port, path)?.trim())?)
}

/// A minimal HTTP/1.1 GET on loopback: the body of a 200 answer with Content-Length.
pub fn get_text(port: u16, path: &str) -> Result<String> {
    let (status, body) = get(port, path)?;
    if status != 200 {
        bail!("GET {path}: HTTP {status}");
    }
    Ok(body)
}

/// A minimal HTTP/1.1 GET on loopback: the status and body of whatever it answers.
pub fn get(port: u16, path: &str) -> Result<(u16, String)> {
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(2)))?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf)?;
    if Instant::now() > deadline {
        bail!("GET {path} timed out");
    }
    let text = String::from_utf8_lossy(&buf);
    let (head, body) = text.split_once("\r\n\r\n").context("no HTTP body")?;
    let status = head
        .strip_prefix("HTTP/1.1 ")
        .and_then(|r| r.get(..3))
        .and_then(|c| c.parse().ok())
        .with_context(|| format!("GET {path}: {}", head.lines().next().unwrap_or("")))?;
    // A chunked body would need decoding; the subgraphs and coprocessors send
    // Content-Length.
    Ok((status, body.to_string()))
}
