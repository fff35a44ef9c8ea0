//! The response of an SSE subscription as it is read: HTTP/1.1 framing (chunked,
//! content-length or until close) and the event-stream format, decoded over two reused
//! buffers: raw bytes as read, and the decoded body. Per message that is one `read` syscall
//! (the readiness is cleared after a short read, as in `conn.rs`) and a copy of the event
//! data.
//!
//! Lines, fields and event names are read by the event-stream reader of incremental
//! delivery (`crate::sse`), so both read the format alike. Leniency: an event without a
//! name (`message`) is taken as `next`, since some servers omit the name; events of other
//! names (keep-alives) and comments are skipped.

use std::io;

use tokio::net::TcpStream;

use crate::net;
use crate::parse::parse_chunk_size;
use crate::sse::{field, Field, Lines, Name};
use crate::subscribe::result::ConnectionFailureKind as Kind;
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

/// A dispatched event.
#[derive(Debug, PartialEq)]
pub enum Event {
    Next,
    Complete,
}

/// An SSE response being read.
pub struct Stream {
    pub tcp: TcpStream,
    raw: Vec<u8>,
    raw_start: usize,
    raw_end: usize,
    framing: Framing,
    body: Vec<u8>,
    /// Lines of `body` read so far.
    lines: Lines,
    /// The name of the event being assembled.
    name: Name,
    /// The data of the last event dispatched (cleared by the caller once handled).
    pub data: Vec<u8>,
    has_data: bool,
}

/// A response head.
pub struct Head {
    pub status: u16,
    pub content_type: String,
}

impl Stream {
    pub fn new(tcp: TcpStream) -> Stream {
        Stream {
            tcp,
            raw: vec![0; RAW_BUFFER],
            raw_start: 0,
            raw_end: 0,
            framing: Framing::UntilClose,
            body: Vec::new(),
            lines: Lines::default(),
            name: Name::default(),
            data: Vec::new(),
            has_data: false,
        }
    }

    /// Raw bytes read but not decoded yet (the start of a body, after the head).
    pub fn unread(&self) -> &[u8] {
        &self.raw[self.raw_start..self.raw_end]
    }

    /// Reads more raw bytes (0 at end of stream).
    pub async fn read_more(&mut self) -> io::Result<usize> {
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
                        net::clear_read_readiness(&self.tcp);
                    }
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.tcp.readable().await?,
                Err(e) => return Err(e),
            }
        }
    }

    /// Reads the response head and sets the body framing.
    pub async fn read_head(&mut self) -> Result<Head, (Kind, String)> {
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
    pub fn deframe(&mut self) -> Result<(), String> {
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
    pub fn body_done(&self) -> bool {
        matches!(
            self.framing,
            Framing::Chunked(Chunk::Done) | Framing::Length(0)
        )
    }

    /// The next complete event of the decoded body, if any.
    pub fn next_event(&mut self) -> Result<Option<Event>, String> {
        loop {
            let Some(line) = self.lines.next(&self.body) else {
                if self.body.len() - self.lines.pos() > MAX_EVENT {
                    return Err(format!("event line longer than {MAX_EVENT} bytes"));
                }
                self.compact();
                return Ok(None);
            };
            if line.is_empty() {
                let name = std::mem::take(&mut self.name);
                let has_data = std::mem::replace(&mut self.has_data, false);
                match name {
                    Name::Complete => return Ok(Some(Event::Complete)),
                    n if n.is_payload() && has_data => return Ok(Some(Event::Next)),
                    _ => {
                        self.data.clear();
                        continue;
                    }
                }
            }
            match field(line) {
                Field::Event(v) => self.name = Name::of(v),
                Field::Data(v) => {
                    if self.has_data {
                        self.data.push(b'\n');
                    } else {
                        self.data.clear();
                    }
                    self.data.extend_from_slice(v);
                    self.has_data = true;
                    if self.data.len() > MAX_EVENT {
                        return Err(format!("event data longer than {MAX_EVENT} bytes"));
                    }
                }
                Field::Other => {}
            }
        }
    }

    /// Drops read lines from the front of the body buffer.
    fn compact(&mut self) {
        let read = self.lines.pos().min(self.body.len());
        if read == self.body.len() || (read > 0 && read >= self.body.len() / 2) {
            self.body.drain(..read);
            self.lines.shift(read);
        }
    }
}

#[cfg(test)]
mod tests;
