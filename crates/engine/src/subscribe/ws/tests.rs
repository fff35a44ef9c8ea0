//! The receive loop's frame handling, fed from a real socket pair.

use std::io::{Cursor, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tungstenite::protocol::frame::coding::{Control as OpCtl, Data as OpData, OpCode};
use tungstenite::protocol::frame::{Frame, FrameHeader};

use super::frames::service;
use super::held::{enable_rx_timestamps, recv_timestamped, Held};
use crate::endpoint::Endpoint;
use crate::subscribe::plan::{SubscribePlan, SubscribeTransport};
use crate::subscribe::prepared::Prepared;
use crate::subscribe::record::{wall_us, SubRecorder};
use crate::subscribe::result::ConnectionFailureKind as Kind;

/// A connected pair: (client end as held by the poller, server end).
fn pair() -> (Held, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let client = TcpStream::connect(l.local_addr().unwrap()).unwrap();
    let (server, _) = l.accept().unwrap();
    client.set_nonblocking(true).unwrap();
    let held = Held::new(client, 16, None);
    (held, server)
}

fn frame(opcode: OpCode, fin: bool, payload: &[u8]) -> Vec<u8> {
    let f = match opcode {
        OpCode::Control(OpCtl::Ping) => Frame::ping(Bytes::copy_from_slice(payload)),
        OpCode::Control(_) => Frame::close(None),
        OpCode::Data(_) => Frame::message(Bytes::copy_from_slice(payload), opcode, fin),
    };
    let mut out = Vec::new();
    f.format(&mut out).unwrap();
    out
}

const NEXT: &str =
    r#"{"id":"1","type":"next","payload":{"data":{"ticks":{"seq":7,"publishedAt":1.5}}}}"#;

/// Sends `bytes` from the server end and lets the client end handle them.
fn feed(bytes: &[u8]) -> (SubRecorder, Option<(Kind, String)>, Held, TcpStream) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _g = rt.enter();
    let mut plan = SubscribePlan::new(
        Endpoint::from_url("http://127.0.0.1:1/graphql").unwrap(),
        SubscribeTransport::WebSocket,
        "subscription { ticks { seq } }",
    );
    plan.seq_pointer = Some("/data/ticks/seq".into());
    let prep = Prepared::new(&plan).expect("valid test plan");
    let (mut held, mut server) = pair();
    server.write_all(bytes).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let mut rec = SubRecorder::new(0, 1, 1, 3);
    let now = Instant::now();
    let end = service(&prep, &mut rec, &mut held, 0, libc::EPOLLIN as u32, now, 0);
    (rec, end, held, server)
}

#[test]
fn the_kernel_timestamps_what_it_receives() {
    let (held, mut server) = pair();
    let fd = held.stream.as_raw_fd();
    enable_rx_timestamps(&held.stream).expect("timestamping on");
    // The kernel turns receive timestamps on from a work queue: give it a moment.
    std::thread::sleep(Duration::from_millis(50));
    let before = wall_us();
    server.write_all(b"abc").unwrap();
    std::thread::sleep(Duration::from_millis(30));
    let mut buf = [0u8; 16];
    let (n, ts) = recv_timestamped(fd, &mut buf).unwrap();
    assert_eq!(n, 3);
    let ts = ts.expect("a kernel timestamp");
    // Stamped on arrival, not when read 30 ms later.
    assert!(ts >= before && ts < before + 25_000, "{ts} vs {before}");
    assert!(
        recv_timestamped(fd, &mut buf).is_err(),
        "nothing more: EWOULDBLOCK"
    );
}

#[test]
fn whole_split_and_fragmented_messages() {
    let text = OpCode::Data(OpData::Text);
    let mut bytes = frame(text, true, NEXT.as_bytes());
    let (a, b) = NEXT.as_bytes().split_at(30);
    bytes.extend(frame(text, false, a));
    bytes.extend(frame(OpCode::Data(OpData::Continue), true, b));
    bytes.extend(frame(OpCode::Control(OpCtl::Ping), true, b"hi"));
    bytes.extend(frame(text, true, br#"{"type":"ping"}"#));
    // The buffer starts at 16 bytes: it has to grow for every message.
    let (rec, end, held, mut server) = feed(&bytes);
    assert!(end.is_none(), "{end:?}");
    assert_eq!(rec.messages_total, 2);
    assert!(held.fragments.is_none());
    // The ping frame and the graphql-ws ping were answered, masked.
    let mut got = [0u8; 256];
    server
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let n = server.read(&mut got).unwrap();
    let mut cursor = Cursor::new(&got[..n]);
    let (h1, l1) = FrameHeader::parse(&mut cursor).unwrap().unwrap();
    assert_eq!(h1.opcode, OpCode::Control(OpCtl::Pong));
    assert!(h1.mask.is_some());
    assert_eq!(l1, 2);
}

#[test]
fn protocol_breaches_end_the_connection() {
    let text = OpCode::Data(OpData::Text);
    let cases: Vec<(Vec<u8>, Kind, &str)> = vec![
        (
            frame(OpCode::Data(OpData::Binary), true, b"x"),
            Kind::Protocol,
            "binary",
        ),
        (
            frame(OpCode::Data(OpData::Continue), true, b"x"),
            Kind::Protocol,
            "continuation",
        ),
        (frame(text, true, &[0xff, 0xfe]), Kind::Protocol, "UTF-8"),
        (vec![0x81 | 0x40, 1, b'x'], Kind::Protocol, "reserved bits"),
        (vec![0x81, 0x81, 1, 2, 3, 4, b'x'], Kind::Protocol, "masked"),
        (vec![0x83, 0], Kind::Protocol, "invalid opcode"),
        (
            vec![0x81, 127, 0x7f, 0, 0, 0, 0, 0, 0, 0],
            Kind::Protocol,
            "too large",
        ),
        (
            frame(OpCode::Control(OpCtl::Close), true, b""),
            Kind::Closed,
            "close frame",
        ),
        (
            vec![0x88, 4, 0x03, 0xe9, b'b', b'y'],
            Kind::Closed,
            "close frame 1001 \"by\"",
        ),
        (frame(text, true, b"[1"), Kind::Protocol, "not JSON"),
    ];
    for (bytes, kind, detail) in cases {
        let (_, end, _, _) = feed(&bytes);
        let (k, d) = end.expect("the connection ends");
        assert_eq!(k, kind, "{d}");
        assert!(d.contains(detail), "{d:?} should mention {detail:?}");
    }
    // The server closing mid-frame is told apart from a clean close.
    let (held, server) = pair();
    drop(server);
    let (_, end, _, _) = {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _g = rt.enter();
        let plan = SubscribePlan::new(
            Endpoint::from_url("http://127.0.0.1:1/graphql").unwrap(),
            SubscribeTransport::WebSocket,
            "subscription { ticks { seq } }",
        );
        let prep = Prepared::new(&plan).expect("valid test plan");
        let mut held = held;
        let mut rec = SubRecorder::new(0, 1, 1, 3);
        std::thread::sleep(Duration::from_millis(20));
        let end = service(
            &prep,
            &mut rec,
            &mut held,
            0,
            libc::EPOLLIN as u32,
            Instant::now(),
            0,
        );
        (rec, end, held, ())
    };
    assert_eq!(end.map(|e| e.0), Some(Kind::Closed));
}
