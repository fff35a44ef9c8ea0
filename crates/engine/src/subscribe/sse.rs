//! One subscription over GraphQL over SSE, distinct connections mode: a `POST` with
//! `Accept: text/event-stream` and the JSON body `{query, variables}`, answered by a 200
//! `text/event-stream` whose events are `next` (data: an execution result) and `complete`.
//!
//! HTTP/1.1 framing (chunked, content-length or until close) and the event-stream format
//! are decoded here over two reused buffers: raw bytes as read, and the decoded body. Per
//! message that is one `read` syscall (the readiness is cleared after a short read, as in
//! `conn.rs`), a copy of the event data, and one extraction pass.
//!
//! Leniency: an event without a name (`message`) is taken as `next`, since some servers
//! omit the name; events of other names (keep-alives) and comments are skipped.

use std::io;
use std::rc::Rc;
use std::time::Instant;

use tokio::io::Interest;
use tokio::net::TcpStream;
use tokio::time::timeout_at;

use super::extract::{extract, Val};
use super::record::Judged;
use super::run::Ctx;
use super::{ConnectionFailureKind as Kind, MessageFailureKind};
use crate::parse::parse_chunk_size;
use crate::validate::excerpt;

/// Raw read buffer (grows only for a long chunk-size or header line).
const RAW_BUFFER: usize = 4096;
/// Largest response head accepted.
const MAX_HEAD: usize = 64 * 1024;
/// Largest event accepted (data and field lines not yet dispatched).
const MAX_EVENT: usize = 16 << 20;
/// Longest line of chunked framing (size line or trailer).
const MAX_FRAMING_LINE: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Framing {
    /// `Transfer-Encoding: chunked`.
    Chunked(Chunk),
    /// `Content-Length`: bytes of body still to come.
    Length(u64),
    /// No length: the body runs until the server closes.
    UntilClose,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Chunk {
    Size,
    Data(usize),
    DataEnd,
    Trailers,
    Done,
}

/// The name of the event being assembled.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Name {
    Unset,
    Next,
    Complete,
    Other,
}

/// A dispatched event.
#[derive(Debug, PartialEq)]
enum Event {
    Next,
    Complete,
}

/// An SSE response being read.
struct Stream {
    tcp: TcpStream,
    raw: Vec<u8>,
    raw_start: usize,
    raw_end: usize,
    framing: Framing,
    body: Vec<u8>,
    body_start: usize,
    name: Name,
    data: Vec<u8>,
    has_data: bool,
}

/// A response head.
struct Head {
    status: u16,
    content_type: String,
}

impl Stream {
    fn new(tcp: TcpStream) -> Stream {
        Stream {
            tcp,
            raw: vec![0; RAW_BUFFER],
            raw_start: 0,
            raw_end: 0,
            framing: Framing::UntilClose,
            body: Vec::new(),
            body_start: 0,
            name: Name::Unset,
            data: Vec::new(),
            has_data: false,
        }
    }

    async fn write_all(&self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            match self.tcp.try_write(data) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => data = &data[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.tcp.writable().await?,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Reads more raw bytes (0 at end of stream).
    async fn read_more(&mut self) -> io::Result<usize> {
        if self.raw_start == self.raw_end {
            self.raw_start = 0;
            self.raw_end = 0;
        } else if self.raw_end == self.raw.len() {
            if self.raw_start > 0 {
                self.raw.copy_within(self.raw_start..self.raw_end, 0);
                self.raw_end -= self.raw_start;
                self.raw_start = 0;
            } else {
                let len = self.raw.len() * 2;
                self.raw.resize(len, 0);
            }
        }
        loop {
            let space = self.raw.len() - self.raw_end;
            match self.tcp.try_read(&mut self.raw[self.raw_end..]) {
                Ok(n) => {
                    self.raw_end += n;
                    if n > 0 && n < space {
                        // As in conn.rs: the socket was drained; a later arrival raises a
                        // new epoll edge, so no data can be missed.
                        let _ = self.tcp.try_io(Interest::READABLE, || {
                            Err::<(), _>(io::ErrorKind::WouldBlock.into())
                        });
                    }
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.tcp.readable().await?,
                Err(e) => return Err(e),
            }
        }
    }

    /// Reads the response head and sets the body framing.
    async fn read_head(&mut self) -> Result<Head, (Kind, String)> {
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 64];
            let mut resp = httparse::Response::new(&mut headers);
            match resp.parse(&self.raw[..self.raw_end]) {
                Ok(httparse::Status::Complete(len)) => {
                    let mut head = Head {
                        status: resp.code.unwrap_or(0),
                        content_type: String::new(),
                    };
                    let mut framing = Framing::UntilClose;
                    for h in resp.headers.iter() {
                        let value = String::from_utf8_lossy(h.value);
                        if h.name.eq_ignore_ascii_case("content-type") {
                            head.content_type = value.trim().to_string();
                        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                            // The last coding decides the framing (RFC 9112 6.3).
                            let last = value.rsplit(',').next().unwrap_or("").trim();
                            if last.eq_ignore_ascii_case("chunked") {
                                framing = Framing::Chunked(Chunk::Size);
                            }
                        } else if h.name.eq_ignore_ascii_case("content-length")
                            && framing == Framing::UntilClose
                        {
                            let n = value.trim().parse().map_err(|_| {
                                (Kind::Handshake, format!("bad Content-Length {value:?}"))
                            })?;
                            framing = Framing::Length(n);
                        }
                    }
                    self.framing = framing;
                    self.raw_start = len;
                    return Ok(head);
                }
                Ok(httparse::Status::Partial) => {}
                Err(e) => {
                    return Err((
                        Kind::Handshake,
                        format!(
                            "bad response head ({e}): {}",
                            excerpt(&self.raw[..self.raw_end])
                        ),
                    ))
                }
            }
            if self.raw_end >= MAX_HEAD {
                return Err((Kind::Handshake, "response head too large".to_string()));
            }
            match self.read_more().await {
                Ok(0) => {
                    return Err((
                        Kind::Closed,
                        format!(
                            "closed before the response head: {}",
                            excerpt(&self.raw[..self.raw_end])
                        ),
                    ))
                }
                Ok(_) => {}
                Err(e) => return Err((Kind::Reset, format!("reading the response: {e}"))),
            }
        }
    }

    /// Moves the raw bytes read into `body`, undoing the HTTP framing.
    fn deframe(&mut self) -> Result<(), String> {
        loop {
            let avail = &self.raw[self.raw_start..self.raw_end];
            match &mut self.framing {
                Framing::UntilClose => {
                    self.body.extend_from_slice(avail);
                    self.raw_start = self.raw_end;
                    return Ok(());
                }
                Framing::Length(left) => {
                    let take = avail
                        .len()
                        .min(usize::try_from(*left).unwrap_or(usize::MAX));
                    self.body.extend_from_slice(&avail[..take]);
                    *left -= take as u64;
                    self.raw_start += take;
                    return Ok(());
                }
                Framing::Chunked(state) => match *state {
                    Chunk::Size | Chunk::Trailers => {
                        let Some(nl) = avail.iter().position(|&b| b == b'\n') else {
                            if avail.len() > MAX_FRAMING_LINE {
                                return Err("chunked framing line too long".to_string());
                            }
                            return Ok(());
                        };
                        let line = avail[..nl].strip_suffix(b"\r").unwrap_or(&avail[..nl]);
                        if *state == Chunk::Size {
                            let size = parse_chunk_size(line).map_err(|e| e.to_string())?;
                            *state = if size == 0 {
                                Chunk::Trailers
                            } else {
                                Chunk::Data(size)
                            };
                        } else if line.is_empty() {
                            *state = Chunk::Done;
                        }
                        self.raw_start += nl + 1;
                    }
                    Chunk::Data(left) => {
                        if avail.is_empty() {
                            return Ok(());
                        }
                        let take = avail.len().min(left);
                        self.body.extend_from_slice(&avail[..take]);
                        self.raw_start += take;
                        *state = if take == left {
                            Chunk::DataEnd
                        } else {
                            Chunk::Data(left - take)
                        };
                    }
                    Chunk::DataEnd => {
                        if avail.len() < 2 {
                            if avail.first().is_some_and(|&b| b != b'\r') {
                                return Err("chunk data not followed by CRLF".to_string());
                            }
                            return Ok(());
                        }
                        if &avail[..2] != b"\r\n" {
                            return Err("chunk data not followed by CRLF".to_string());
                        }
                        self.raw_start += 2;
                        *state = Chunk::Size;
                    }
                    Chunk::Done => return Ok(()),
                },
            }
        }
    }

    /// True when the framing says the body is over (no more events can come).
    fn body_done(&self) -> bool {
        matches!(
            self.framing,
            Framing::Chunked(Chunk::Done) | Framing::Length(0)
        )
    }

    /// The next complete event of the decoded body, if any.
    fn next_event(&mut self) -> Result<Option<Event>, String> {
        loop {
            let rest = &self.body[self.body_start..];
            // Lines end with LF, CRLF or CR; a CR at the very end may be half of a CRLF.
            let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') else {
                if rest.len() > MAX_EVENT {
                    return Err(format!("event line longer than {MAX_EVENT} bytes"));
                }
                self.compact();
                return Ok(None);
            };
            let term = if rest[end] == b'\r' {
                match rest.get(end + 1) {
                    None => {
                        self.compact();
                        return Ok(None);
                    }
                    Some(b'\n') => 2,
                    Some(_) => 1,
                }
            } else {
                1
            };
            let line_start = self.body_start;
            self.body_start += end + term;
            let line = &self.body[line_start..line_start + end];
            if line.is_empty() {
                let name = std::mem::replace(&mut self.name, Name::Unset);
                let has_data = std::mem::replace(&mut self.has_data, false);
                match name {
                    Name::Complete => return Ok(Some(Event::Complete)),
                    Name::Next | Name::Unset if has_data => return Ok(Some(Event::Next)),
                    _ => {
                        self.data.clear();
                        continue;
                    }
                }
            }
            if line[0] == b':' {
                continue;
            }
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (line, &b""[..]),
            };
            match field {
                b"event" => {
                    self.name = match value {
                        b"next" | b"message" => Name::Next,
                        b"complete" => Name::Complete,
                        _ => Name::Other,
                    }
                }
                b"data" => {
                    if self.has_data {
                        self.data.push(b'\n');
                    } else {
                        self.data.clear();
                    }
                    self.data.extend_from_slice(value);
                    self.has_data = true;
                    if self.data.len() > MAX_EVENT {
                        return Err(format!("event data longer than {MAX_EVENT} bytes"));
                    }
                }
                _ => {}
            }
        }
    }

    /// Drops parsed bytes from the front of the body buffer.
    fn compact(&mut self) {
        if self.body_start == self.body.len() {
            self.body.clear();
            self.body_start = 0;
        } else if self.body_start > 0 && self.body_start >= self.body.len() / 2 {
            self.body.drain(..self.body_start);
            self.body_start = 0;
        }
    }
}

/// Judges the data of a `next` event and records it.
fn on_next(ctx: &Ctx, slot: usize, data: &[u8]) {
    let rp = &ctx.prep.sse_paths;
    let mut vals: [Val; super::run::MAX_RESULT_PATHS] = Default::default();
    let vals = &mut vals[..rp.paths.len()];
    let judged = match extract(data, &rp.paths, vals) {
        Ok(()) if data.trim_ascii_start().starts_with(b"{") => rp.judge(vals),
        _ => Judged::Invalid(MessageFailureKind::BadJson),
    };
    ctx.record(slot, judged, data);
}

/// Runs one connection to its end (or until the worker drops it).
pub async fn connection(ctx: &Rc<Ctx>, slot: usize, t0: Instant) {
    let prep = &ctx.prep;
    let deadline = tokio::time::Instant::from_std(t0 + prep.ack_timeout);
    let timeout_detail = |what: &str| format!("no {what} within {:?}", prep.ack_timeout);
    let tcp = match timeout_at(deadline, TcpStream::connect(prep.addr)).await {
        Err(_) => {
            return ctx.setup_failed(slot, Kind::Timeout, || timeout_detail("TCP connection"))
        }
        Ok(Err(e)) => return ctx.setup_failed(slot, Kind::Connect, || e.to_string()),
        Ok(Ok(s)) => s,
    };
    let _ = tcp.set_nodelay(true);
    let mut s = Stream::new(tcp);
    match timeout_at(deadline, s.write_all(&prep.sse_request)).await {
        Err(_) => return ctx.setup_failed(slot, Kind::Timeout, || timeout_detail("request write")),
        Ok(Err(e)) => {
            return ctx.setup_failed(slot, Kind::Reset, || format!("writing the request: {e}"))
        }
        Ok(Ok(())) => {}
    }
    ctx.connected();
    let head = match timeout_at(deadline, s.read_head()).await {
        Err(_) => return ctx.setup_failed(slot, Kind::Timeout, || timeout_detail("response")),
        Ok(Err((kind, detail))) => return ctx.setup_failed(slot, kind, || detail),
        Ok(Ok(h)) => h,
    };
    let is_stream = head
        .content_type
        .get(..17)
        .is_some_and(|p| p.eq_ignore_ascii_case("text/event-stream"));
    if head.status != 200 || !is_stream {
        let body = excerpt(&s.raw[s.raw_start..s.raw_end]);
        return ctx.setup_failed(slot, Kind::Handshake, || {
            format!(
                "HTTP {} ({:?}) instead of a 200 event stream: {body}",
                head.status, head.content_type
            )
        });
    }
    let subscribed_at = ctx.subscribed(slot, t0);
    let mut first_deadline = prep
        .first_message_timeout
        .map(|t| tokio::time::Instant::from_std(subscribed_at + t));
    loop {
        if let Err(e) = s.deframe() {
            return ctx.dropped(slot, Kind::Protocol, || e);
        }
        loop {
            match s.next_event() {
                Ok(Some(Event::Next)) => {
                    on_next(ctx, slot, &s.data);
                    s.data.clear();
                    first_deadline = None;
                }
                Ok(Some(Event::Complete)) => {
                    return ctx.dropped(slot, Kind::Complete, || {
                        "event: complete from the server".to_string()
                    })
                }
                Ok(None) => break,
                Err(e) => return ctx.dropped(slot, Kind::Protocol, || e),
            }
        }
        if s.body_done() {
            return ctx.dropped(slot, Kind::Closed, || {
                "the server ended the event stream".to_string()
            });
        }
        let read = match first_deadline {
            None => s.read_more().await,
            Some(d) => match timeout_at(d, s.read_more()).await {
                Ok(r) => r,
                Err(_) => {
                    return ctx.dropped(slot, Kind::NoMessage, || {
                        format!(
                            "no message within {:?} of subscribing",
                            prep.first_message_timeout.unwrap_or_default()
                        )
                    })
                }
            },
        };
        match read {
            Ok(0) => {
                return ctx.dropped(slot, Kind::Closed, || {
                    "connection closed by the server".to_string()
                })
            }
            Ok(_) => {}
            Err(e) => return ctx.dropped(slot, Kind::Reset, || e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
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
}
