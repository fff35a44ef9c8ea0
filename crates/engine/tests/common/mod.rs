//! A small in-process HTTP/1.1 server with scripted behaviours, for the engine's tests.
#![allow(dead_code)]

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use gqlbench_engine::*;

#[derive(Clone, Debug)]
pub enum Mode {
    /// 200 with this body (Content-Length).
    Ok(String),
    /// 200 with this body, chunked in pieces of this size (with chunk extensions).
    Chunked(String, usize),
    /// This status with a small body.
    Status(u16),
    /// Reads requests, never answers.
    Silent,
    /// Answers like Ok, but every `period` the first `stall` of it delays answers.
    Stall {
        body: String,
        period: Duration,
        stall: Duration,
    },
    /// Answers only once `n` requests are buffered (or 100 ms passed): observes pipelining.
    Batch { body: String, n: usize },
    /// Like Ok, but says `Connection: close` and closes after every `n`th response.
    CloseEvery { body: String, n: u64 },
    /// Like Ok, but every answer takes this long (a slow target).
    Slow { body: String, delay: Duration },
    /// Like Ok, but a connection idle this long (no request since the last answer, or
    /// since it was opened) is closed without a word, as a keep-alive timeout does.
    IdleClose { body: String, idle: Duration },
    /// Like Ok, with headers `guid-1`..`guid-3` of distinct values, except that every
    /// `skip_every`th answer leaves out `guid-2` (a plugin that sometimes does not run).
    Guids { body: String, skip_every: u64 },
}

#[derive(Debug, Default)]
pub struct Stats {
    pub requests: AtomicU64,
    pub connections: AtomicU64,
    pub max_batch: AtomicU64,
    pub unique_values: Mutex<HashSet<String>>,
    /// Every distinct request body received.
    pub bodies: Mutex<HashSet<Vec<u8>>>,
    /// When set (Some), the arrival time of every request, in order of reading.
    pub arrivals: Mutex<Option<Vec<Instant>>>,
}

pub struct Server {
    pub addr: SocketAddr,
    pub stats: Arc<Stats>,
}

impl Server {
    pub fn url(&self) -> String {
        format!("http://{}/graphql", self.addr)
    }
    pub fn endpoint(&self) -> Endpoint {
        Endpoint::from_url(&self.url()).unwrap()
    }
    pub fn requests(&self) -> u64 {
        self.stats.requests.load(Ordering::SeqCst)
    }
}

pub const HELLO: &str = r#"{"data":{"hello":"world"}}"#;

/// Starts the server on its own thread (current-thread runtime), listening on 127.0.0.1:0.
pub fn start(mode: Mode) -> Server {
    start_limited(mode, u64::MAX)
}

/// As `start`, but the server accepts only its first `accepts` connections; later ones
/// wait in the listen queue (or are never let in), like a server whose backlog is full.
pub fn start_limited(mode: Mode, accepts: u64) -> Server {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std_listener.set_nonblocking(true).unwrap();
    let addr = std_listener.local_addr().unwrap();
    let stats = Arc::new(Stats::default());
    let st = stats.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = TcpListener::from_std(std_listener).unwrap();
            let epoch = Instant::now();
            for _ in 0..accepts {
                let Ok((sock, _)) = listener.accept().await else {
                    continue;
                };
                st.connections.fetch_add(1, Ordering::SeqCst);
                let _ = sock.set_nodelay(true);
                tokio::spawn(serve(sock, mode.clone(), st.clone(), epoch));
            }
            // Keep the listener (and the connections served) alive.
            std::future::pending::<()>().await;
        });
    });
    Server { addr, stats }
}

/// Parses complete requests at the front of buf; returns how many and bytes used.
fn take_requests(buf: &[u8], stats: &Stats) -> (usize, usize) {
    let mut pos = 0;
    let mut n = 0;
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut req = httparse::Request::new(&mut headers);
        let Ok(httparse::Status::Complete(head)) = req.parse(&buf[pos..]) else {
            break;
        };
        let mut len = 0;
        for h in req.headers.iter() {
            if h.name.eq_ignore_ascii_case("content-length") {
                len = std::str::from_utf8(h.value)
                    .unwrap()
                    .trim()
                    .parse()
                    .unwrap();
            }
            if h.name.eq_ignore_ascii_case("x-request-id") {
                let v = String::from_utf8(h.value.to_vec()).unwrap();
                stats.unique_values.lock().unwrap().insert(v);
            }
        }
        if buf.len() < pos + head + len {
            break;
        }
        let body = buf[pos + head..pos + head + len].to_vec();
        stats.bodies.lock().unwrap().insert(body);
        pos += head + len;
        n += 1;
    }
    (n, pos)
}

fn response(status: u16, body: &str, close: bool) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}\r\n{body}",
        body.len(),
        if close { "Connection: close\r\n" } else { "" }
    )
    .into_bytes()
}

fn chunked(body: &str, piece: usize) -> Vec<u8> {
    let mut out = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for (i, c) in body.as_bytes().chunks(piece).enumerate() {
        if i % 2 == 0 {
            out.extend_from_slice(format!("{:x};ext=\"v\"\r\n", c.len()).as_bytes());
        } else {
            out.extend_from_slice(format!("{:X}\r\n", c.len()).as_bytes());
        }
        out.extend_from_slice(c);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

async fn serve(mut sock: tokio::net::TcpStream, mode: Mode, stats: Arc<Stats>, epoch: Instant) {
    let mut buf = Vec::new();
    let mut tmp = vec![0u8; 65536];
    let mut answered = 0u64;
    loop {
        let read = sock.read(&mut tmp);
        let n = match &mode {
            Mode::IdleClose { idle, .. } => match tokio::time::timeout(*idle, read).await {
                Ok(r) => r,
                Err(_) => return,
            },
            _ => read.await,
        };
        let n = match n {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        buf.extend_from_slice(&tmp[..n]);
        let (mut count, mut used) = take_requests(&buf, &stats);
        if let Mode::Batch { n: want, .. } = &mode {
            let until = Instant::now() + Duration::from_millis(100);
            while count < *want && count > 0 {
                let left = until.saturating_duration_since(Instant::now());
                match tokio::time::timeout(left, sock.read(&mut tmp)).await {
                    Ok(Ok(0)) | Ok(Err(_)) => return,
                    Ok(Ok(n)) => buf.extend_from_slice(&tmp[..n]),
                    Err(_) => break,
                }
                (count, used) = take_requests(&buf, &stats);
            }
            stats.max_batch.fetch_max(count as u64, Ordering::SeqCst);
        }
        buf.drain(..used);
        if count == 0 {
            continue;
        }
        stats.requests.fetch_add(count as u64, Ordering::SeqCst);
        if let Some(a) = stats.arrivals.lock().unwrap().as_mut() {
            a.extend(std::iter::repeat_n(Instant::now(), count));
        }
        let mut out = Vec::new();
        let mut close = false;
        for _ in 0..count {
            answered += 1;
            match &mode {
                Mode::Ok(b) | Mode::Batch { body: b, .. } | Mode::IdleClose { body: b, .. } => {
                    out.extend(response(200, b, false))
                }
                Mode::Chunked(b, piece) => out.extend(chunked(b, *piece)),
                Mode::Status(s) => out.extend(response(*s, "oops", false)),
                Mode::Silent => {}
                Mode::Stall {
                    body,
                    period,
                    stall,
                } => {
                    let phase = Duration::from_nanos(
                        (epoch.elapsed().as_nanos() % period.as_nanos()) as u64,
                    );
                    if phase < *stall {
                        tokio::time::sleep(*stall - phase).await;
                    }
                    out.extend(response(200, body, false));
                }
                Mode::Guids { body, skip_every } => {
                    let mut r = format!(
                        "HTTP/1.1 200 OK\r\nguid-1: a{answered}\r\nguid-3: c{answered}\r\n"
                    );
                    if !answered.is_multiple_of(*skip_every) {
                        r.push_str(&format!("guid-2: b{answered}\r\n"));
                    }
                    r.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
                    out.extend(r.into_bytes());
                }
                Mode::Slow { body, delay } => {
                    tokio::time::sleep(*delay).await;
                    out.extend(response(200, body, false));
                }
                Mode::CloseEvery { body, n } => {
                    let c = answered.is_multiple_of(*n);
                    out.extend(response(200, body, c));
                    if c {
                        close = true;
                        break;
                    }
                }
            }
        }
        if !out.is_empty() && sock.write_all(&out).await.is_err() {
            return;
        }
        if close {
            return;
        }
    }
}

pub fn variant(body: &str, expected: Option<serde_json::Value>) -> Variant {
    Variant {
        body: bytes::Bytes::from(body.to_string()),
        expected_data: expected,
        unique: None,
        batch: None,
        incremental: None,
        persisted: None,
    }
}

pub fn hello_op() -> Operation {
    Operation {
        name: "hello".into(),
        weight: 1,
        variants: vec![variant(
            r#"{"query":"{hello}"}"#,
            Some(serde_json::json!({"hello": "world"})),
        )],
    }
}

pub fn closed(connections: f64, pipelining: u32) -> Schedule {
    Schedule::Closed {
        connections: Stages::constant(connections),
        pipelining,
        think_time: Duration::ZERO,
    }
}

pub fn plan(endpoint: Endpoint, schedule: Schedule, stop: Stop) -> LoadPlan {
    let mut p = LoadPlan::new(endpoint, vec![hello_op()], schedule, stop);
    p.timeout = Duration::from_secs(2);
    p
}

pub fn for_requests(n: u64) -> Stop {
    Stop {
        duration: None,
        max_requests: Some(n),
        extend: None,
    }
}

pub fn for_duration(ms: u64) -> Stop {
    Stop {
        duration: Some(Duration::from_millis(ms)),
        max_requests: None,
        extend: None,
    }
}
