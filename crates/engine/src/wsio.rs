//! tungstenite driven directly over a non-blocking tokio socket (client and publisher).
//!
//! tokio-tungstenite's `Stream`/`Sink` adapter registers two wakers and adds a wake-up per
//! message; with thousands of connections each receiving a message every 100 ms the receive
//! path is the whole cost, so here tungstenite's blocking-style API is given a `Read + Write`
//! that returns `WouldBlock`, and the task waits on the socket's readiness itself. After a
//! read that returned less than asked the socket is known drained: the cached readiness is
//! cleared and the next read attempt returns `WouldBlock` without a syscall.

use std::cell::Cell;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;

use tokio::io::Interest;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::{Error as WsError, Message, WebSocket};

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

    /// Writes all of `data` straight to the socket (bypassing tungstenite: only when its
    /// own output buffer is empty, see [`flush`]).
    pub async fn write_all(&self, mut data: &[u8]) -> io::Result<()> {
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
}

/// Where an [`Io`] reads and writes.
#[derive(Debug)]
enum Transport {
    /// A socket driven by the tokio runtime (readiness through [`Sock`]).
    Tokio(Rc<Sock>),
    /// A plain non-blocking socket whose readiness someone else watches (an epoll loop),
    /// telling it with [`Io::set_readable`] / [`Io::set_writable`].
    Raw {
        stream: std::net::TcpStream,
        drained: bool,
        write_blocked: bool,
    },
    /// Only while [`Io::detach`] swaps the others.
    Gone,
}

/// `Read + Write` over the non-blocking socket, for tungstenite. Bytes already read from
/// the socket by someone else (a request head read to route it) are replayed first.
#[derive(Debug)]
pub struct Io {
    transport: Transport,
    prefix: Vec<u8>,
    pos: usize,
}

impl Io {
    pub fn new(sock: Rc<Sock>) -> Io {
        Io::with_prefix(sock, Vec::new())
    }

    pub fn with_prefix(sock: Rc<Sock>, prefix: Vec<u8>) -> Io {
        Io {
            transport: Transport::Tokio(sock),
            prefix,
            pos: 0,
        }
    }

    /// Takes the socket away from the tokio runtime (deregistering it) so an epoll loop can
    /// watch it; tungstenite's state and buffers stay as they are. The caller must hold no
    /// other reference to the [`Sock`].
    pub fn detach(&mut self) -> io::Result<RawFd> {
        let sock = match std::mem::replace(&mut self.transport, Transport::Gone) {
            Transport::Tokio(sock) => sock,
            other => {
                self.transport = other;
                return Err(io::Error::other("socket already detached"));
            }
        };
        let sock = match Rc::try_unwrap(sock) {
            Ok(sock) => sock,
            Err(shared) => {
                self.transport = Transport::Tokio(shared);
                return Err(io::Error::other("socket still shared; cannot detach"));
            }
        };
        let stream = sock.tcp.into_std()?;
        let fd = stream.as_raw_fd();
        self.transport = Transport::Raw {
            stream,
            // Data may have arrived since tokio last looked: try once before waiting.
            drained: false,
            write_blocked: false,
        };
        Ok(fd)
    }

    /// The epoll loop saw the socket readable.
    pub fn set_readable(&mut self) {
        if let Transport::Raw { drained, .. } = &mut self.transport {
            *drained = false;
        }
    }

    /// The epoll loop saw the socket writable; true if output was waiting for it.
    pub fn set_writable(&mut self) -> bool {
        match &mut self.transport {
            Transport::Raw { write_blocked, .. } => std::mem::take(write_blocked),
            Transport::Tokio(_) | Transport::Gone => false,
        }
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
        match &mut self.transport {
            Transport::Tokio(s) => {
                if s.drained.get() {
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                match s.tcp.try_read(buf) {
                    Ok(n) => {
                        if n > 0 && n < buf.len() {
                            // The kernel buffer was empty at that moment; any later arrival
                            // raises a new epoll edge, so clearing the cached readiness
                            // cannot lose data.
                            s.drained.set(true);
                            let _ = s.tcp.try_io(Interest::READABLE, || {
                                Err::<(), _>(io::ErrorKind::WouldBlock.into())
                            });
                        }
                        Ok(n)
                    }
                    Err(e) => {
                        if e.kind() == io::ErrorKind::WouldBlock {
                            s.drained.set(true);
                        }
                        Err(e)
                    }
                }
            }
            Transport::Gone => Err(io::ErrorKind::NotConnected.into()),
            Transport::Raw {
                stream, drained, ..
            } => {
                if *drained {
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                match (&*stream).read(buf) {
                    Ok(n) => {
                        // Edge-triggered epoll reports the next arrival: no need to read
                        // again only to see EWOULDBLOCK.
                        *drained = n > 0 && n < buf.len();
                        Ok(n)
                    }
                    Err(e) => {
                        *drained = e.kind() == io::ErrorKind::WouldBlock;
                        Err(e)
                    }
                }
            }
        }
    }
}

impl Write for Io {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let (r, blocked) = match &mut self.transport {
            Transport::Tokio(s) => (s.tcp.try_write(buf), &s.write_blocked),
            Transport::Raw {
                stream,
                write_blocked,
                ..
            } => {
                let r = (&*stream).write(buf);
                if matches!(&r, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
                    *write_blocked = true;
                }
                return r;
            }
            Transport::Gone => return Err(io::ErrorKind::NotConnected.into()),
        };
        if matches!(&r, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            blocked.set(true);
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
