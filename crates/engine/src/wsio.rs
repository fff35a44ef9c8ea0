//! tungstenite driven directly over a non-blocking tokio socket: the engine's WebSocket
//! client set-up, and the reference publisher of `gqlbench-servers`.
//!
//! tokio-tungstenite's `Stream`/`Sink` adapter registers two wakers and adds a wake-up per
//! message; here tungstenite's blocking-style API is given a `Read + Write` that returns
//! `WouldBlock`, and the task waits on the socket's readiness itself. After a read that
//! returned less than asked the socket is known drained: the cached readiness is cleared and
//! the next read attempt returns `WouldBlock` without a syscall.
//!
//! A client connection can be handed over to a receive loop of its own once subscribed
//! (`subscribe::poll`). For that, tungstenite must hold no received bytes at that moment:
//! in *frame-exact* mode every read stops at the end of the HTTP head or of the current
//! frame (found by peeking), so when tungstenite returns a message its buffer is empty.

use std::cell::Cell;
use std::io::{self, Cursor, Read, Write};
use std::os::fd::AsRawFd;
use std::rc::Rc;

use tokio::io::Interest;
use tokio::net::TcpStream;
use tungstenite::protocol::frame::FrameHeader;
use tungstenite::{Error as WsError, Message, WebSocket};

use crate::net;

/// The socket and what the last attempts learned about it.
#[derive(Debug)]
pub struct Sock {
    pub tcp: TcpStream,
    /// A read returned less than asked: nothing more to read until the next readiness.
    drained: Cell<bool>,
    /// A write would have blocked: output is pending in tungstenite's buffer.
    write_blocked: Cell<bool>,
}

impl Sock {
    pub fn new(tcp: TcpStream) -> Rc<Sock> {
        Rc::new(Sock {
            tcp,
            drained: Cell::new(false),
            write_blocked: Cell::new(false),
        })
    }

    /// Waits until the socket is worth trying again: readable, or writable when output is
    /// pending.
    pub async fn wait(&self) -> io::Result<()> {
        if self.write_blocked.get() {
            let ready = self
                .tcp
                .ready(Interest::READABLE | Interest::WRITABLE)
                .await?;
            if ready.is_writable() {
                self.write_blocked.set(false);
            }
            if ready.is_readable() {
                self.drained.set(false);
            }
        } else {
            self.readable().await?;
        }
        Ok(())
    }

    /// Waits for the socket to be readable (new data, or the end of the stream).
    pub async fn readable(&self) -> io::Result<()> {
        self.tcp.readable().await?;
        self.drained.set(false);
        Ok(())
    }

    /// Reads into `buf`, clearing the cached readiness after a short read.
    fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        if self.drained.get() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        match self.tcp.try_read(buf) {
            Ok(n) => {
                if n > 0 && n < buf.len() {
                    self.drained.set(true);
                    net::clear_read_readiness(&self.tcp);
                }
                Ok(n)
            }
            Err(e) => {
                if e.kind() == io::ErrorKind::WouldBlock {
                    self.drained.set(true);
                }
                Err(e)
            }
        }
    }

    /// Copies what the socket holds into `buf` without consuming it.
    fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        if self.drained.get() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let fd = self.tcp.as_raw_fd();
        let r = self.tcp.try_io(Interest::READABLE, || {
            // SAFETY: `buf` is valid for writes of its length; `fd` is the open socket.
            let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_PEEK) };
            if n < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(n as usize)
            }
        });
        if matches!(&r, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            self.drained.set(true);
        }
        r
    }
}

/// Where a frame-exact reader is.
#[derive(Debug, Clone, PartialEq)]
enum Exact {
    /// In the HTTP response head; how much of `\r\n\r\n` was just seen.
    Head { matched: usize },
    /// In a frame header; its bytes so far.
    Header { got: Vec<u8> },
    /// In a frame payload; bytes left.
    Payload { left: u64 },
    /// Not limiting reads (the bytes stopped making sense as frames: tungstenite fails).
    Off,
}

impl Exact {
    /// How many of the `avail` bytes (the next ones on the socket) belong to the current
    /// head or frame, advancing over them.
    fn take(&mut self, avail: &[u8]) -> usize {
        let mut used = 0;
        while used < avail.len() {
            match self {
                Exact::Off => return avail.len(),
                Exact::Head { matched } => {
                    let b = avail[used];
                    used += 1;
                    *matched = match (*matched, b) {
                        (0 | 2, b'\r') => *matched + 1,
                        (1 | 3, b'\n') => *matched + 1,
                        (_, b'\r') => 1,
                        _ => 0,
                    };
                    if *matched == 4 {
                        *self = Exact::Header { got: Vec::new() };
                        return used;
                    }
                }
                Exact::Header { got } => {
                    got.push(avail[used]);
                    used += 1;
                    match FrameHeader::parse(&mut Cursor::new(&got[..])) {
                        Ok(None) => {}
                        Ok(Some((_, 0))) => {
                            *self = Exact::Header { got: Vec::new() };
                            return used;
                        }
                        Ok(Some((_, len))) => *self = Exact::Payload { left: len },
                        Err(_) => *self = Exact::Off,
                    }
                }
                Exact::Payload { left } => {
                    let n = (avail.len() - used).min(usize::try_from(*left).unwrap_or(usize::MAX));
                    used += n;
                    *left -= n as u64;
                    if *left == 0 {
                        *self = Exact::Header { got: Vec::new() };
                        return used;
                    }
                }
            }
        }
        used
    }
}

/// `Read + Write` over the non-blocking socket, for tungstenite. Bytes already read from
/// the socket by someone else (a request head read to route it) are replayed first.
#[derive(Debug)]
pub struct Io {
    sock: Rc<Sock>,
    prefix: Vec<u8>,
    pos: usize,
    exact: Option<Exact>,
}

impl Io {
    pub fn new(sock: Rc<Sock>) -> Io {
        Io::with_prefix(sock, Vec::new())
    }

    pub fn with_prefix(sock: Rc<Sock>, prefix: Vec<u8>) -> Io {
        Io {
            sock,
            prefix,
            pos: 0,
            exact: None,
        }
    }

    /// A client's reader in frame-exact mode (see the module doc), from the HTTP response
    /// head on.
    pub fn frame_exact(sock: Rc<Sock>) -> Io {
        Io {
            exact: Some(Exact::Head { matched: 0 }),
            ..Io::new(sock)
        }
    }

    /// True when every byte read so far ended a head or a whole frame: tungstenite, having
    /// returned its last message, holds nothing more.
    pub fn at_frame_boundary(&self) -> bool {
        matches!(&self.exact, Some(Exact::Header { got }) if got.is_empty())
    }

    /// The socket, taken away from the tokio runtime (deregistered, still non-blocking).
    /// Fails if someone else still holds the [`Sock`].
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        let sock = Rc::try_unwrap(self.sock)
            .map_err(|_| io::Error::other("socket still shared; cannot hand it over"))?;
        sock.tcp.into_std()
    }
}

impl Read for Io {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos < self.prefix.len() {
            let n = (self.prefix.len() - self.pos).min(buf.len());
            buf[..n].copy_from_slice(&self.prefix[self.pos..self.pos + n]);
            self.pos += n;
            if self.pos == self.prefix.len() {
                self.prefix = Vec::new();
                self.pos = 0;
            }
            return Ok(n);
        }
        let Some(exact) = &mut self.exact else {
            return self.sock.read(buf);
        };
        if *exact == Exact::Off {
            return self.sock.read(buf);
        }
        let mut peeked = [0u8; 4096];
        let cap = buf.len().min(peeked.len());
        let n = self.sock.peek(&mut peeked[..cap])?;
        if n == 0 {
            return Ok(0);
        }
        let mut probe = exact.clone();
        let want = probe.take(&peeked[..n]);
        let got = self.sock.read(&mut buf[..want])?;
        if got == want {
            *exact = probe;
        } else {
            // Fewer bytes than peeked (cannot happen on a TCP socket with one reader):
            // account for what was really read.
            exact.take(&buf[..got]);
        }
        Ok(got)
    }
}

impl Write for Io {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.sock.tcp.try_write(buf);
        if matches!(&r, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            self.sock.write_blocked.set(true);
        }
        r
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

pub fn would_block(e: &WsError) -> bool {
    matches!(e, WsError::Io(io) if io.kind() == io::ErrorKind::WouldBlock)
}

/// The next message.
pub async fn recv(ws: &mut WebSocket<Io>, sock: &Sock) -> Result<Message, WsError> {
    loop {
        match ws.read() {
            Err(e) if would_block(&e) => sock.wait().await?,
            r => return r,
        }
    }
}

/// Sends a message and flushes it.
pub async fn send(ws: &mut WebSocket<Io>, sock: &Sock, msg: Message) -> Result<(), WsError> {
    let r = ws.send(msg);
    finish(ws, sock, r).await
}

/// Flushes what tungstenite has buffered (automatic pongs, a blocked send); afterwards its
/// output buffer is empty.
pub async fn flush(ws: &mut WebSocket<Io>, sock: &Sock) -> Result<(), WsError> {
    let r = ws.flush();
    finish(ws, sock, r).await
}

async fn finish(
    ws: &mut WebSocket<Io>,
    sock: &Sock,
    mut r: Result<(), WsError>,
) -> Result<(), WsError> {
    loop {
        match r {
            Err(e) if would_block(&e) => {
                sock.wait().await?;
                r = ws.flush();
            }
            r => return r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_reads_stop_at_the_head_and_at_each_frame() {
        let mut e = Exact::Head { matched: 0 };
        let head = b"HTTP/1.1 101 S\r\nA: b\r\n\r\n";
        let mut bytes = head.to_vec();
        // A text frame "hi", an empty ping, then a frame with a 16-bit length.
        bytes.extend_from_slice(&[0x81, 2, b'h', b'i', 0x89, 0]);
        bytes.extend_from_slice(&[0x81, 126, 0, 200]);
        bytes.extend_from_slice(&[b'x'; 200]);
        let mut cuts = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let n = e.take(&bytes[at..]);
            at += n;
            cuts.push(at);
        }
        assert_eq!(
            cuts,
            vec![head.len(), head.len() + 4, head.len() + 6, bytes.len()]
        );
        assert_eq!(e, Exact::Header { got: Vec::new() });
        // Byte by byte gives the same boundaries.
        let mut e = Exact::Head { matched: 0 };
        let mut ends = Vec::new();
        for (i, b) in bytes.iter().enumerate() {
            e.take(std::slice::from_ref(b));
            if e == (Exact::Header { got: Vec::new() }) {
                ends.push(i + 1);
            }
        }
        assert_eq!(ends, cuts);
    }
}
