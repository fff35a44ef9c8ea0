//! The framing and event parsers, fed one byte at a time.

use super::*;

/// Feeds bytes through the framing and event parsers as if read from a socket.
fn events(stream: &mut Stream, bytes: &[u8]) -> Result<Vec<(Event, String)>, String> {
    let mut out = Vec::new();
    for b in bytes {
        // One byte at a time: every split point is exercised. Bytes not yet consumed
        // stay in front, as `read_more` keeps them.
        let pending = stream.raw[stream.raw_start..stream.raw_end].to_vec();
        stream.raw.clear();
        stream.raw.extend_from_slice(&pending);
        stream.raw.push(*b);
        stream.raw_start = 0;
        stream.raw_end = stream.raw.len();
        stream.deframe()?;
        while let Some(e) = stream.next_event()? {
            out.push((e, String::from_utf8_lossy(&stream.data).into_owned()));
            stream.data.clear();
        }
    }
    Ok(out)
}

fn stream(framing: Framing) -> Stream {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // A connected socket pair, only to build the struct.
    let tcp = rt.block_on(async {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap();
        let (c, _) = tokio::join!(TcpStream::connect(addr), l.accept());
        c.unwrap()
    });
    let mut s = Stream::new(tcp);
    s.framing = framing;
    std::mem::forget(rt);
    s
}

#[test]
fn chunked_event_stream_split_anywhere() {
    let body = "event: next\r\ndata: {\"a\":1}\r\n\r\n: keep-alive\n\nevent: ping\ndata: x\n\ndata: {\"b\":\ndata: 2}\n\nevent: complete\ndata:\n\n";
    let mut framed = Vec::new();
    for piece in body.as_bytes().chunks(7) {
        framed.extend_from_slice(format!("{:x};ext=1\r\n", piece.len()).as_bytes());
        framed.extend_from_slice(piece);
        framed.extend_from_slice(b"\r\n");
    }
    framed.extend_from_slice(b"0\r\nX-Trailer: y\r\n\r\n");
    let mut s = stream(Framing::Chunked(Chunk::Size));
    let got = events(&mut s, &framed).unwrap();
    assert_eq!(
        got,
        vec![
            (Event::Next, "{\"a\":1}".to_string()),
            (Event::Next, "{\"b\":\n2}".to_string()),
            (Event::Complete, String::new()),
        ]
    );
    assert!(s.body_done());
}

#[test]
fn bad_chunk_framing_is_an_error() {
    let mut s = stream(Framing::Chunked(Chunk::Size));
    assert!(events(&mut s, b"zz\r\n").is_err());
    let mut s = stream(Framing::Chunked(Chunk::Size));
    assert!(events(&mut s, b"2\r\nabXY").is_err());
}

#[test]
fn cr_only_lines_and_until_close() {
    let mut s = stream(Framing::UntilClose);
    let got = events(&mut s, b"data: 1\r\rdata: 2\n\n").unwrap();
    assert_eq!(
        got,
        vec![
            (Event::Next, "1".to_string()),
            (Event::Next, "2".to_string())
        ]
    );
}

/// The subscription reader and incremental delivery's reader (`crate::sse::payloads`) read
/// the same body into the same payloads: one line reader, one field reader.
#[test]
fn reads_events_as_incremental_delivery_does() {
    let body: &[u8] =
        b"event:\ndata: 1\n\nevent: message\ndata: 2\r\n\r\n:c\nid: 7\nevent: next\ndata: 3\rdata: 4\r\r\nevent: ping\ndata: no\n\nevent: complete\n\n";
    let mut s = stream(Framing::UntilClose);
    let got: Vec<String> = events(&mut s, body)
        .unwrap()
        .into_iter()
        .filter(|(e, _)| *e == Event::Next)
        .map(|(_, d)| d)
        .collect();
    let want: Vec<String> = crate::sse::payloads(body)
        .unwrap()
        .iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    assert_eq!(want, ["1", "2", "3\n4"]);
    assert_eq!(got, want);
}
