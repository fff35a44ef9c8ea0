//! Incremental HTTP/1.1 response parser over a byte buffer that grows as reads arrive.
//! It remembers the parsed head and chunk progress between calls, so a response split
//! over many reads is not re-parsed from its first byte each time.
//! All offsets are relative to the first byte of the current response.

/// Largest response accepted (head + body); beyond it the response counts as bad.
pub const MAX_RESPONSE_BYTES: usize = 256 << 20;
const MAX_HEADERS: usize = 64;
const MAX_CHUNK_LINE: usize = 4096;

/// Why a response could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    Head(String),
    Chunk(String),
    TooLarge(usize),
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Head(m) => write!(f, "bad response head: {m}"),
            ParseError::Chunk(m) => write!(f, "bad chunked encoding: {m}"),
            ParseError::TooLarge(n) => write!(f, "response larger than {n} bytes"),
        }
    }
}

/// Where the body is and how it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    Length(usize),
    Chunked,
    /// No length and not chunked: the body runs until the server closes.
    UntilClose,
}

#[derive(Debug, Clone, Copy)]
struct Head {
    status: u16,
    len: usize,
    framing: Framing,
    close: bool,
}

/// A complete response: the body is either `buf[body_start..body_end]` or, when it was
/// chunked, the parser's decoded body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// Bytes of the buffer this response used (head + framed body).
    pub wire_len: usize,
    pub body_start: usize,
    pub body_end: usize,
    pub chunked: bool,
    /// The server said `Connection: close`.
    pub close: bool,
}

/// Parser state for the response at the front of a connection's buffer.
#[derive(Debug, Default)]
pub struct Parser {
    head: Option<Head>,
    /// Next unparsed chunk-size line (chunked bodies).
    chunk_pos: usize,
    /// Decoded chunked body, reused across responses.
    chunked_body: Vec<u8>,
}

impl Parser {
    pub fn new() -> Parser {
        Parser::default()
    }

    /// The body of `r`, whose bytes start at `buf[0]`.
    pub fn body<'a>(&'a self, buf: &'a [u8], r: &Response) -> &'a [u8] {
        if r.chunked {
            &self.chunked_body
        } else {
            &buf[r.body_start..r.body_end]
        }
    }

    /// Bytes the current response needs in total when known (for growing the buffer once).
    pub fn needed(&self) -> Option<usize> {
        match self.head {
            Some(Head {
                len,
                framing: Framing::Length(n),
                ..
            }) => Some(len + n),
            _ => None,
        }
    }

    /// The response in progress as received so far: its head's length and the body bytes
    /// that have arrived (decoded, for a chunked body: whole chunks only). None before its
    /// head is complete. `buf` starts at the response's first byte.
    pub fn partial<'a>(&'a self, buf: &'a [u8]) -> Option<(usize, &'a [u8])> {
        let h = self.head?;
        let body = match h.framing {
            Framing::Chunked => &self.chunked_body[..],
            Framing::Length(n) => &buf[h.len.min(buf.len())..(h.len + n).min(buf.len())],
            Framing::UntilClose => &buf[h.len.min(buf.len())..],
        };
        Some((h.len, body))
    }

    /// True when a response head has been read but not the whole response.
    pub fn in_progress(&self) -> bool {
        self.head.is_some()
    }

    /// Tries to complete the response at the front of `buf`. `Ok(None)`: need more bytes.
    /// After `Some`, the caller drops `wire_len` bytes from the front; the state is reset.
    pub fn parse(&mut self, buf: &[u8]) -> Result<Option<Response>, ParseError> {
        let head = match self.head {
            Some(h) => h,
            None => match parse_head(buf)? {
                Some(h) => {
                    self.head = Some(h);
                    self.chunk_pos = h.len;
                    self.chunked_body.clear();
                    h
                }
                None => {
                    if buf.len() > 64 * 1024 {
                        return Err(ParseError::Head("head larger than 64 KiB".into()));
                    }
                    return Ok(None);
                }
            },
        };
        let done = match head.framing {
            Framing::Length(n) => {
                let end = head.len + n;
                if end > MAX_RESPONSE_BYTES {
                    return Err(ParseError::TooLarge(MAX_RESPONSE_BYTES));
                }
                (buf.len() >= end).then_some(Response {
                    status: head.status,
                    wire_len: end,
                    body_start: head.len,
                    body_end: end,
                    chunked: false,
                    close: head.close,
                })
            }
            Framing::Chunked => self.parse_chunks(buf)?.map(|end| Response {
                status: head.status,
                wire_len: end,
                body_start: head.len,
                body_end: end,
                chunked: true,
                close: head.close,
            }),
            Framing::UntilClose => None,
        };
        if done.is_some() {
            self.head = None;
        }
        Ok(done)
    }

    /// At end of stream: completes a response whose body runs until close, else None.
    pub fn finish_at_eof(&mut self, buf: &[u8]) -> Option<Response> {
        match self.head {
            Some(h) if h.framing == Framing::UntilClose => {
                self.head = None;
                Some(Response {
                    status: h.status,
                    wire_len: buf.len(),
                    body_start: h.len,
                    body_end: buf.len(),
                    chunked: false,
                    close: true,
                })
            }
            _ => None,
        }
    }

    /// Decodes complete chunks from `chunk_pos`; returns the end of the message when the
    /// last chunk and trailers are in.
    fn parse_chunks(&mut self, buf: &[u8]) -> Result<Option<usize>, ParseError> {
        loop {
            let pos = self.chunk_pos;
            let Some(line_end) = find_crlf(&buf[pos..]) else {
                if buf.len() - pos > MAX_CHUNK_LINE {
                    return Err(ParseError::Chunk("chunk-size line too long".into()));
                }
                return Ok(None);
            };
            let line = &buf[pos..pos + line_end];
            let size = parse_chunk_size(line)?;
            let data_start = pos + line_end + 2;
            if size == 0 {
                // Trailer section: empty line, or header lines ending with an empty line.
                let rest = &buf[data_start..];
                if rest.len() < 2 {
                    return Ok(None);
                }
                if &rest[..2] == b"\r\n" {
                    return Ok(Some(data_start + 2));
                }
                return Ok(find_double_crlf(rest).map(|i| data_start + i + 4));
            }
            if self.chunked_body.len() + size > MAX_RESPONSE_BYTES {
                return Err(ParseError::TooLarge(MAX_RESPONSE_BYTES));
            }
            let data_end = data_start + size;
            if buf.len() < data_end + 2 {
                return Ok(None);
            }
            if &buf[data_end..data_end + 2] != b"\r\n" {
                return Err(ParseError::Chunk("chunk data not followed by CRLF".into()));
            }
            self.chunked_body
                .extend_from_slice(&buf[data_start..data_end]);
            self.chunk_pos = data_end + 2;
        }
    }
}

fn parse_head(buf: &[u8]) -> Result<Option<Head>, ParseError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    let len = match resp.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(ParseError::Head(e.to_string())),
    };
    let status = resp.code.unwrap_or(0);
    let mut length = None;
    let mut chunked = false;
    let mut close = resp.version == Some(0);
    for h in resp.headers.iter() {
        if h.name.eq_ignore_ascii_case("content-length") {
            let v = std::str::from_utf8(h.value)
                .ok()
                .and_then(|s| s.trim().parse::<usize>().ok())
                .ok_or_else(|| ParseError::Head("invalid Content-Length".into()))?;
            if length.is_some_and(|l| l != v) {
                return Err(ParseError::Head(
                    "conflicting Content-Length headers".into(),
                ));
            }
            length = Some(v);
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            // Only the final coding matters for framing.
            let last = h.value.rsplit(|&b| b == b',').next().unwrap_or(b"");
            chunked = last.trim_ascii().eq_ignore_ascii_case(b"chunked");
        } else if h.name.eq_ignore_ascii_case("connection") {
            let v = h.value.trim_ascii();
            if v.eq_ignore_ascii_case(b"close") {
                close = true;
            } else if v.eq_ignore_ascii_case(b"keep-alive") {
                close = false;
            }
        }
    }
    if (100..200).contains(&status) {
        return Err(ParseError::Head(format!(
            "unexpected informational status {status}"
        )));
    }
    let framing = if status == 204 || status == 304 {
        Framing::Length(0)
    } else if chunked {
        Framing::Chunked
    } else if let Some(n) = length {
        Framing::Length(n)
    } else {
        Framing::UntilClose
    };
    if framing == Framing::UntilClose {
        close = true;
    }
    Ok(Some(Head {
        status,
        len,
        framing,
        close,
    }))
}

pub(crate) fn parse_chunk_size(line: &[u8]) -> Result<usize, ParseError> {
    // Chunk extensions (";name=value") are allowed and ignored.
    let hex = line
        .split(|&b| b == b';')
        .next()
        .unwrap_or(b"")
        .trim_ascii();
    if hex.is_empty() || hex.len() > 15 {
        return Err(ParseError::Chunk(format!(
            "invalid chunk size {:?}",
            String::from_utf8_lossy(&line[..line.len().min(40)])
        )));
    }
    let mut n = 0usize;
    for &b in hex {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => {
                return Err(ParseError::Chunk(format!(
                    "invalid chunk size {:?}",
                    String::from_utf8_lossy(&line[..line.len().min(40)])
                )))
            }
        };
        n = (n << 4) | d as usize;
    }
    Ok(n)
}

fn find_crlf(b: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = b[from..].iter().position(|&c| c == b'\r') {
        let at = from + i;
        if b.get(at + 1) == Some(&b'\n') {
            return Some(at);
        }
        if at + 1 >= b.len() {
            return None;
        }
        from = at + 1;
    }
    None
}

fn find_double_crlf(b: &[u8]) -> Option<usize> {
    b.windows(4).position(|w| w == b"\r\n\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(parser: &mut Parser, buf: &[u8]) -> Vec<(u16, Vec<u8>)> {
        let mut out = Vec::new();
        let mut pos = 0;
        while let Some(r) = parser.parse(&buf[pos..]).unwrap() {
            out.push((r.status, parser.body(&buf[pos..], &r).to_vec()));
            pos += r.wire_len;
        }
        assert_eq!(pos, buf.len(), "all bytes consumed");
        out
    }

    #[test]
    fn content_length() {
        let mut p = Parser::new();
        let raw = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: x\r\n\r\nhello";
        assert_eq!(parse_all(&mut p, raw), vec![(200, b"hello".to_vec())]);
    }

    #[test]
    fn pipelined_responses_in_one_read() {
        let mut p = Parser::new();
        let mut raw = Vec::new();
        for i in 0..3 {
            raw.extend_from_slice(
                format!("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n{i}").as_bytes(),
            );
        }
        raw.extend_from_slice(
            b"HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n",
        );
        let got = parse_all(&mut p, &raw);
        assert_eq!(got.len(), 4);
        assert_eq!(got[2], (200, b"2".to_vec()));
        assert_eq!(got[3], (500, b"ab".to_vec()));
    }

    #[test]
    fn chunked_with_extensions_and_trailers() {
        let mut p = Parser::new();
        let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n4;ext=1\r\n{\"a\"\r\nA ; x\r\n:12345678}\r\n0\r\nX-Trailer: t\r\n\r\n";
        assert_eq!(
            parse_all(&mut p, raw),
            vec![(200, b"{\"a\":12345678}".to_vec())]
        );
    }

    #[test]
    fn chunked_split_at_every_byte() {
        let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        for split in 1..raw.len() {
            let mut p = Parser::new();
            // First feed a prefix; it must not complete unless it holds the whole first response.
            let first = p.parse(&raw[..split]).unwrap();
            let r = match first {
                Some(r) => r,
                None => p.parse(raw).unwrap().expect("complete"),
            };
            assert_eq!(p.body(raw, &r), b"abc0123456789abcdef", "split {split}");
            let rest = &raw[r.wire_len..];
            let r2 = p.parse(rest).unwrap().unwrap();
            assert_eq!(p.body(rest, &r2), b"ok");
        }
    }

    #[test]
    fn bad_chunking_is_an_error() {
        let mut p = Parser::new();
        let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n";
        assert!(matches!(p.parse(raw), Err(ParseError::Chunk(_))));
        let mut p = Parser::new();
        let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n";
        assert!(matches!(p.parse(raw), Err(ParseError::Chunk(_))));
    }

    #[test]
    fn garbage_head_is_an_error_and_partial_is_none() {
        let mut p = Parser::new();
        assert!(p.parse(b"NOT HTTP\r\n\r\n").is_err());
        let mut p = Parser::new();
        assert_eq!(p.parse(b"HTTP/1.1 200 OK\r\nContent-Le").unwrap(), None);
        assert!(!p.in_progress());
        assert_eq!(
            p.parse(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
                .unwrap(),
            None
        );
        assert_eq!(p.needed(), Some(39 + 10));
    }

    #[test]
    fn until_close_body_and_connection_close() {
        let mut p = Parser::new();
        let raw = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"data\":1}";
        assert_eq!(p.parse(raw).unwrap(), None);
        let r = p.finish_at_eof(raw).unwrap();
        assert!(r.close);
        assert_eq!(p.body(raw, &r), b"{\"data\":1}");
        let mut p = Parser::new();
        let raw = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
        assert!(p.parse(raw).unwrap().unwrap().close);
    }
}
