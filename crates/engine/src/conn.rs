//! One keep-alive HTTP/1.1 connection: writes request bytes, reads and frames responses
//! (pipelined responses are taken one by one from the same buffer).
//!
//! Costs per response are kept to one `read` and one `write` syscall in steady state:
//! - the read buffer starts small (memory at 10,000 connections) and grows only when a
//!   response does not fit;
//! - after a read that did not fill the buffer the socket is known to be drained, so the
//!   cached readiness is cleared by hand; otherwise tokio would issue a second `read`
//!   just to learn `EWOULDBLOCK`;
//! - the timeout is one lazily re-armed timer per connection: it is not re-registered per
//!   request, only when it fires before the current deadline (once per timeout period).
//!
//! Writing never waits on the peer alone: while a write is blocked on a full socket, the
//! responses the server already sent are read into the buffer. With deep pipelining the
//! server stops reading requests once its own responses fill the socket; a client that
//! only reads after writing everything would then wait on itself until the timeout.

use std::future::{poll_fn, Future};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use tokio::io::Interest;
use tokio::net::TcpStream;
use tokio::time::Sleep;

use crate::net;
use crate::parse::{ParseError, Parser, Response, MAX_RESPONSE_BYTES};
use crate::validate::FailureKind;

/// Initial read buffer: holds several small pipelined responses.
pub const INITIAL_BUFFER: usize = 8 * 1024;
/// Most bytes of not-yet-handled responses read ahead while a write is blocked; beyond it
/// the write simply waits (a pipeline that deep is refused long before, see the plan).
const MAX_READ_AHEAD: usize = 64 << 20;

/// Why no response came.
#[derive(Debug)]
pub enum ReadError {
    /// The deadline passed first.
    Timeout,
    /// The server closed the connection; `partial` if part of a response had arrived.
    Closed {
        partial: bool,
    },
    Io(io::Error),
    Parse(ParseError),
}

impl ReadError {
    /// The connection was closed or reset before any byte of a response arrived: on a
    /// kept-alive connection, what a server's idle timeout looks like to the next request.
    pub fn never_answered(&self) -> bool {
        matches!(
            self,
            ReadError::Closed { partial: false } | ReadError::Io(_)
        )
    }

    /// How a request that got this instead of a response is counted. Only a malformed
    /// response is an answer; a closed or reset connection is not.
    pub fn failure(&self, timeout: Duration) -> (FailureKind, String) {
        match self {
            ReadError::Timeout => (
                FailureKind::Timeout,
                format!("no response within {timeout:?}"),
            ),
            ReadError::Closed { .. } | ReadError::Io(_) => (FailureKind::Closed, self.to_string()),
            ReadError::Parse(_) => (FailureKind::BadBody, self.to_string()),
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Timeout => write!(f, "timed out"),
            ReadError::Closed { partial: true } => write!(f, "connection closed mid-response"),
            ReadError::Closed { partial: false } => {
                write!(f, "connection closed before the response")
            }
            ReadError::Io(e) => write!(f, "connection error: {e}"),
            ReadError::Parse(e) => write!(f, "{e}"),
        }
    }
}

/// An open connection and its read state.
#[derive(Debug)]
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    parser: Parser,
    /// The server closed its side while we were still writing (seen by a read-ahead).
    eof: bool,
}

/// Where a connection's lazy timeout timer starts: far away, re-armed by a wait that needs
/// it (see the module header).
pub fn far_future() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(86_400 * 365)
}

/// Opens a TCP connection (no Nagle: requests are written whole).
pub async fn connect(addr: SocketAddr, timeout: Duration) -> io::Result<Conn> {
    let stream = match tokio::time::timeout(timeout, TcpStream::connect(addr)).await {
        Ok(r) => r?,
        Err(_) => return Err(io::Error::new(io::ErrorKind::TimedOut, "connect timed out")),
    };
    stream.set_nodelay(true)?;
    Ok(Conn {
        stream,
        buf: vec![0; INITIAL_BUFFER],
        start: 0,
        end: 0,
        parser: Parser::new(),
        eof: false,
    })
}

impl Conn {
    /// Writes all of `data`, waiting for socket space until `deadline`; while it waits,
    /// responses that arrive are read ahead into the buffer (see the module header).
    pub async fn write_all(
        &mut self,
        mut data: &[u8],
        deadline: Instant,
        timer: Pin<&mut Sleep>,
    ) -> Result<(), ReadError> {
        let mut timer = timer;
        while !data.is_empty() {
            match self.stream.try_write(data) {
                Ok(0) => return Err(ReadError::Closed { partial: false }),
                Ok(n) => data = &data[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let read_ahead = !self.eof && self.buffered() < MAX_READ_AHEAD;
                    let interest = if read_ahead {
                        Interest::WRITABLE | Interest::READABLE
                    } else {
                        Interest::WRITABLE
                    };
                    let ready = self.wait(interest, deadline, timer.as_mut()).await?;
                    if ready.is_readable() {
                        self.read_ahead()?;
                    }
                }
                Err(e) => return Err(ReadError::Io(e)),
            }
        }
        Ok(())
    }

    /// Reads what the server sent into the buffer, without parsing it yet.
    fn read_ahead(&mut self) -> Result<(), ReadError> {
        if self.start > 0 && self.end == self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            let len = (self.buf.len() * 2).min(MAX_READ_AHEAD + INITIAL_BUFFER);
            self.buf.resize(len, 0);
        }
        let space = self.buf.len() - self.end;
        match self.stream.try_read(&mut self.buf[self.end..]) {
            Ok(0) => self.eof = true,
            Ok(n) => {
                self.end += n;
                if n < space {
                    net::clear_read_readiness(&self.stream);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(ReadError::Io(e)),
        }
        Ok(())
    }

    /// The next complete response: from buffered bytes if there are enough, else reading.
    pub async fn next_response(
        &mut self,
        deadline: Instant,
        timer: Pin<&mut Sleep>,
    ) -> Result<Response, ReadError> {
        self.next_response_with(deadline, timer, |_, _| {}).await
    }

    /// [`Conn::next_response`], telling `progress` the head and the body received so far
    /// each time more of an incomplete response has arrived (an incremental response's
    /// parts are timed as they come).
    pub async fn next_response_with(
        &mut self,
        deadline: Instant,
        mut timer: Pin<&mut Sleep>,
        mut progress: impl FnMut(&[u8], &[u8]),
    ) -> Result<Response, ReadError> {
        loop {
            if let Some(r) = self.parse_buffered()? {
                return Ok(r);
            }
            let pending = &self.buf[self.start..self.end];
            if let Some((head_len, body)) = self.parser.partial(pending) {
                progress(&pending[..head_len], body);
            }
            self.make_room()?;
            let space = self.buf.len() - self.end;
            let read = if self.eof {
                Ok(0)
            } else {
                self.stream.try_read(&mut self.buf[self.end..])
            };
            match read {
                Ok(0) => {
                    let pending = &self.buf[self.start..self.end];
                    if let Some(r) = self.parser.finish_at_eof(pending) {
                        return Ok(r);
                    }
                    let partial = !pending.is_empty() || self.parser.in_progress();
                    return Err(ReadError::Closed { partial });
                }
                Ok(n) => {
                    self.end += n;
                    if n < space {
                        net::clear_read_readiness(&self.stream);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.wait(Interest::READABLE, deadline, timer.as_mut())
                        .await?;
                }
                Err(e) => return Err(ReadError::Io(e)),
            }
        }
    }

    /// A response already complete in the buffer, without any syscall.
    pub fn parse_buffered(&mut self) -> Result<Option<Response>, ReadError> {
        if self.start == self.end && !self.parser.in_progress() {
            return Ok(None);
        }
        self.parser
            .parse(&self.buf[self.start..self.end])
            .map_err(ReadError::Parse)
    }

    /// Body of a response returned by `next_response` (valid until `consume`).
    pub fn body(&self, r: &Response) -> &[u8] {
        self.parser.body(&self.buf[self.start..self.end], r)
    }

    /// Status line and headers of a response returned by `next_response`.
    pub fn head(&self, r: &Response) -> &[u8] {
        &self.buf[self.start..self.start + r.body_start]
    }

    /// Drops a handled response from the buffer.
    pub fn consume(&mut self, r: &Response) {
        self.start += r.wire_len;
        if self.start >= self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Bytes received but not yet consumed.
    pub fn buffered(&self) -> usize {
        self.end - self.start
    }

    fn make_room(&mut self) -> Result<(), ReadError> {
        let pending = self.end - self.start;
        let needed = self.parser.needed().unwrap_or(0).max(pending + 1);
        if needed > MAX_RESPONSE_BYTES {
            return Err(ReadError::Parse(ParseError::TooLarge(MAX_RESPONSE_BYTES)));
        }
        if self.end < self.buf.len() && self.buf.len() - self.start >= needed {
            return Ok(());
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.start = 0;
            self.end = pending;
        }
        if self.end == self.buf.len() || needed > self.buf.len() {
            let new_len = needed.max(self.buf.len() * 2).min(MAX_RESPONSE_BYTES);
            self.buf.resize(new_len, 0);
        }
        Ok(())
    }

    /// Waits for readiness or the deadline, re-arming the lazy timer when it fired early.
    /// Returns which of the asked readinesses is there.
    async fn wait(
        &self,
        interest: Interest,
        deadline: Instant,
        mut timer: Pin<&mut Sleep>,
    ) -> Result<Interest, ReadError> {
        let deadline = tokio::time::Instant::from_std(deadline);
        if timer.deadline() > deadline {
            timer.as_mut().reset(deadline);
        }
        loop {
            let fired = poll_fn(|cx| {
                if interest.is_readable() {
                    match self.stream.poll_read_ready(cx) {
                        Poll::Ready(Ok(())) => return Poll::Ready(Ok(Some(Interest::READABLE))),
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                        Poll::Pending => {}
                    }
                }
                if interest.is_writable() {
                    match self.stream.poll_write_ready(cx) {
                        Poll::Ready(Ok(())) => return Poll::Ready(Ok(Some(Interest::WRITABLE))),
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                        Poll::Pending => {}
                    }
                }
                timer.as_mut().poll(cx).map(|()| Ok(None))
            })
            .await
            .map_err(ReadError::Io)?;
            if let Some(ready) = fired {
                return Ok(ready);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(ReadError::Timeout);
            }
            timer.as_mut().reset(deadline);
        }
    }
}
