//! The reference servers answered over loopback, in process, by a plain client.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use gqlbench_servers::publisher::{Misbehavior, Publisher, PublisherOptions};
use gqlbench_servers::static_server;

/// Sends `request` and reads the whole response (the servers close after it, or `limit`
/// bytes are enough).
fn exchange(addr: std::net::SocketAddr, request: &str, limit: usize) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).expect("write");
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while got.len() < limit {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

fn post(path: &str, accept: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nAccept: {accept}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn publisher(misbehavior: Misbehavior) -> Publisher {
    Publisher::start(PublisherOptions {
        rate: 50.0,
        misbehavior,
        ..PublisherOptions::default()
    })
    .expect("publisher")
}

#[test]
fn the_static_server_answers_every_post_with_its_one_body() {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std_listener.set_nonblocking(true).unwrap();
    let addr = std_listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).unwrap();
            static_server::accept_loop(listener).await
        })
    });
    for body in [
        r#"{"query":"{ __typename }"}"#,
        r#"{"query":"{ anything }"}"#,
    ] {
        let resp = exchange(
            addr,
            &post("/graphql", "application/json", body),
            usize::MAX,
        );
        assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
        assert!(resp.contains("content-type: application/json"), "{resp}");
        let sent = String::from_utf8_lossy(static_server::BODY);
        assert!(resp.ends_with(sent.as_ref()), "{resp}");
    }
}

#[test]
fn the_publisher_answers_a_readiness_check_and_refuses_what_it_does_not_serve() {
    let p = publisher(Misbehavior::default());
    let typename = r#"{"query":"{ __typename }"}"#;
    let resp = exchange(
        p.addr(),
        &post("/graphql", "application/json", typename),
        1 << 20,
    );
    assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
    assert!(
        resp.ends_with(r#"{"data":{"__typename":"Query"}}"#),
        "{resp}"
    );
    let resp = exchange(
        p.addr(),
        &post("/other", "application/json", typename),
        1 << 20,
    );
    assert!(resp.starts_with("HTTP/1.1 404"), "{resp}");
    let query = r#"{"query":"{ users { id } }"}"#;
    let resp = exchange(
        p.addr(),
        &post("/graphql", "application/json", query),
        1 << 20,
    );
    assert!(resp.starts_with("HTTP/1.1 406"), "a plain query: {resp}");
    let unknown = r#"{"query":"subscription { other }"}"#;
    let resp = exchange(
        p.addr(),
        &post("/graphql", "text/event-stream", unknown),
        1 << 20,
    );
    assert!(resp.starts_with("HTTP/1.1 400"), "{resp}");
    let get = "GET /graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    let resp = exchange(p.addr(), get, 1 << 20);
    assert!(
        resp.starts_with("HTTP/1.1 405"),
        "GET without upgrade: {resp}"
    );
    assert_eq!(p.stats().subscriptions, 0);
}

#[test]
fn the_publisher_streams_ticks_in_order_over_sse() {
    let p = publisher(Misbehavior::default());
    let mut s = TcpStream::connect(p.addr()).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let sub = r#"{"query":"subscription { ticks { seq publishedAt } }"}"#;
    s.write_all(post("/graphql", "text/event-stream", sub).as_bytes())
        .unwrap();
    let mut lines = BufReader::new(s).lines();
    let status = lines.next().expect("a status line").unwrap();
    assert_eq!(status, "HTTP/1.1 200 OK");
    let mut seqs = Vec::new();
    for line in lines {
        let line = line.expect("the stream goes on");
        if let Some(data) = line.strip_prefix("data: ") {
            let v: serde_json::Value = serde_json::from_str(data).expect("JSON data");
            let seq = v["data"]["ticks"]["seq"].as_u64().expect("a seq");
            assert!(v["data"]["ticks"]["publishedAt"].as_f64().is_some(), "{v}");
            seqs.push(seq);
            if seqs.len() == 3 {
                break;
            }
        }
    }
    assert_eq!(seqs[1], seqs[0] + 1);
    assert_eq!(seqs[2], seqs[1] + 1);
    assert_eq!(p.stats().subscriptions, 1);
}

#[test]
fn the_publisher_wants_the_graphql_transport_ws_subprotocol() {
    let p = publisher(Misbehavior::default());
    let upgrade = "GET /graphql HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    let resp = exchange(p.addr(), upgrade, 1 << 20);
    assert!(resp.starts_with("HTTP/1.1 400"), "{resp}");
    let with_protocol = upgrade.replace(
        "Sec-WebSocket-Version: 13\r\n",
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n",
    );
    let resp = exchange(p.addr(), &with_protocol, 12);
    assert!(resp.starts_with("HTTP/1.1 101"), "{resp}");
}
