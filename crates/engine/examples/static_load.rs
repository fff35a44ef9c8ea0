//! Measures the engine's efficiency: a minimal static GraphQL-ish server pinned to one CPU,
//! the engine pinned to another, and requests per generator CPU-second reported.
//!
//! cargo run --release -p gqlbench-engine --example static_load -- [connections] [seconds] [pipelining] [rate]
//! (rate > 0 selects the open model at that rate, rate < 0 only serves for `seconds`;
//! server CPU 1, engine CPU 0.)
//!
//! PARTS=3 makes it an incremental request: the same answer comes as three
//! `multipart/mixed` parts (chunked, each part written on its own), read part by part,
//! checked and merged by the engine. Comparing its req per CPU-second with PARTS=1's (the
//! default, one JSON answer) is the cost of the incremental reader; ONE_WRITE=1 sends an
//! answer's parts in one write, leaving out the cost of reading them one by one. SSE=1
//! sends the same three payloads as `text/event-stream` events instead (as Yoga writes
//! them: a `:` keep-alive, `event: next` per payload, `event: complete`).
//! SPLIT=3 (with PARTS=1) writes the one JSON answer in three pieces: the cost of reading
//! an answer that arrives in three writes, without the incremental reader, i.e. what the
//! kernel and the wake-ups alone cost.

use std::sync::Arc;
use std::time::Duration;

use gqlbench_engine::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const BODY: &str = r#"{"data":{"user":{"id":"123","email":"user123@example.com","firstName":"First123","lastName":"Last123","createdAt":"2024-01-01T00:00:00Z"}}}"#;

fn pin(cpu: usize) {
    // SAFETY: plain libc calls on a zeroed cpu_set_t.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// The three payloads of the incremental answer.
const PAYLOADS: [&str; 3] = [
    r#"{"data":{"user":{"id":"123","email":"user123@example.com"}},"hasNext":true}"#,
    r#"{"incremental":[{"data":{"firstName":"First123","lastName":"Last123"},"path":["user"]}],"hasNext":true}"#,
    r#"{"incremental":[{"data":{"createdAt":"2024-01-01T00:00:00Z"},"path":["user"]}],"hasNext":false}"#,
];

/// The answer in three parts: head and first part, then each later part as its own chunk;
/// multipart parts, or with `sse` event-stream events.
fn three_parts(sse: bool) -> Vec<Vec<u8>> {
    let chunk = |p: String| format!("{:x}\r\n{p}\r\n", p.len());
    let piece = |i: usize| {
        let json = PAYLOADS[i];
        match (sse, i) {
            (true, 0) => format!(":\n\nevent: next\ndata: {json}\n\n"),
            (true, 2) => format!("event: next\ndata: {json}\n\nevent: complete\ndata:\n\n"),
            (true, _) => format!("event: next\ndata: {json}\n\n"),
            (false, 2) => format!(
                "\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{json}\r\n-----\r\n"
            ),
            (false, _) => {
                format!("\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{json}")
            }
        }
    };
    let kind = if sse {
        "text/event-stream"
    } else {
        "multipart/mixed; boundary=\"-\""
    };
    let head =
        format!("HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nTransfer-Encoding: chunked\r\n\r\n");
    vec![
        format!("{head}{}", chunk(piece(0))).into_bytes(),
        chunk(piece(1)).into_bytes(),
        format!("{}0\r\n\r\n", chunk(piece(2))).into_bytes(),
    ]
}

/// Answers every complete request in the buffer with the same response, written in its
/// pieces (one piece: all pending answers in one write).
async fn serve(mut s: tokio::net::TcpStream, resp: Arc<Vec<Vec<u8>>>) {
    let mut buf = vec![0u8; 4096];
    let mut have = 0;
    let mut out = Vec::new();
    loop {
        let n = match s.read(&mut buf[have..]).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        have += n;
        let mut pos = 0;
        loop {
            let mut h = [httparse::EMPTY_HEADER; 16];
            let mut req = httparse::Request::new(&mut h);
            let Ok(httparse::Status::Complete(head)) = req.parse(&buf[pos..have]) else {
                break;
            };
            let len: usize = req
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .and_then(|h| std::str::from_utf8(h.value).ok()?.parse().ok())
                .unwrap_or(0);
            if have - pos < head + len {
                break;
            }
            pos += head + len;
            if resp.len() == 1 {
                out.extend_from_slice(&resp[0]);
                continue;
            }
            for piece in resp.iter() {
                if s.write_all(piece).await.is_err() {
                    return;
                }
            }
        }
        buf.copy_within(pos..have, 0);
        have -= pos;
        if !out.is_empty() {
            if s.write_all(&out).await.is_err() {
                return;
            }
            out.clear();
        }
    }
}

fn main() {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let conns = args.first().copied().unwrap_or(50.0);
    let secs = args.get(1).copied().unwrap_or(5.0);
    let pipelining = args.get(2).copied().unwrap_or(1.0) as u32;
    let rate = args.get(3).copied().unwrap_or(0.0);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let addr = listener.local_addr().expect("addr");
    let parts = std::env::var("PARTS")
        .ok()
        .and_then(|p| p.parse::<u32>().ok())
        .unwrap_or(1);
    // ONE_WRITE=1 writes the parts of an answer together (the reader's parsing alone).
    let together = std::env::var("ONE_WRITE").is_ok_and(|v| v == "1");
    let split = std::env::var("SPLIT")
        .ok()
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let sse = std::env::var("SSE").is_ok_and(|v| v == "1");
    let resp = Arc::new(if parts == 3 && together {
        vec![three_parts(sse).concat()]
    } else if parts == 3 {
        three_parts(sse)
    } else {
        let whole = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{BODY}",
            BODY.len()
        )
        .into_bytes();
        let size = whole.len().div_ceil(split);
        whole.chunks(size).map(<[u8]>::to_vec).collect()
    });
    std::thread::spawn(move || {
        pin(1);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("rt");
        rt.block_on(async move {
            let l = tokio::net::TcpListener::from_std(listener).expect("listener");
            loop {
                if let Ok((s, _)) = l.accept().await {
                    let _ = s.set_nodelay(true);
                    tokio::spawn(serve(s, resp.clone()));
                }
            }
        });
    });
    if rate < 0.0 {
        // Serve only (to compare other load generators against the same server).
        println!("http://{addr}/graphql");
        std::thread::sleep(Duration::from_secs_f64(secs));
        return;
    }
    let endpoint = Endpoint::from_url(&format!("http://{addr}/graphql")).expect("url");
    let op =
        Operation {
            name: "simple".into(),
            weight: 1,
            variants: vec![Variant {
            body: bytes::Bytes::from_static(
                br#"{"query":"{ user(id: \"123\") { id email firstName lastName createdAt } }"}"#,
            ),
            expected_data: Some(
                serde_json::from_str::<serde_json::Value>(BODY).expect("json")["data"].clone(),
            ),
            unique: None,
            batch: None,
            incremental: (parts == 3).then(|| {
                if sse { "text/event-stream" } else { "multipart/mixed" }.to_string()
            }),
            persisted: None,
        }],
        };
    let schedule = if rate > 0.0 {
        Schedule::Open {
            rate: Stages::constant(rate),
            max_connections: conns as u32,
        }
    } else {
        Schedule::Closed {
            connections: Stages::constant(conns),
            pipelining,
            think_time: Duration::ZERO,
        }
    };
    let stop = Stop {
        duration: Some(Duration::from_secs_f64(secs)),
        max_requests: None,
        extend: None,
    };
    let mut plan = LoadPlan::new(endpoint, vec![op], schedule, stop);
    plan.warmup = Duration::from_secs(1);
    plan.cpus = Some(vec![0]);
    let r = run(&plan, &Control::default()).expect("run");
    println!(
        "requests {} ok {} failed {} in {:.2}s = {:.0} req/s; generator CPU {:.3}s => {:.0} req per CPU-second",
        r.requests,
        r.ok,
        r.failed,
        r.elapsed_s,
        r.throughput_rps,
        r.generator_cpu_s,
        r.requests as f64 / r.generator_cpu_s.max(1e-9)
    );
    println!(
        "latency p50 {}us p99 {}us max {}us; pinned {:?}",
        r.latency.p50_us, r.latency.p99_us, r.latency.max_us, r.pinned_cpus
    );
    if let Some(f) = &r.first_part {
        println!("first part p50 {}us p99 {}us", f.p50_us, f.p99_us);
    }
    if r.failed > 0 {
        println!(
            "failures {:?}; examples {:?}",
            r.failures, r.failure_examples
        );
    }
    if let Some(lag) = &r.send_lag {
        println!(
            "send lag p50 {}us p99 {}us max {}us; late {} unsent {} intended {}",
            lag.p50_us, lag.p99_us, lag.max_us, r.late, r.unsent, r.intended_requests
        );
    }
}
