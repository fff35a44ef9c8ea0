//! A subscribed WebSocket connection as the receive loop holds it: its socket (out of the
//! tokio runtime), a receive buffer read in place, and frames waiting to be written. Reads
//! use `recvmsg` to get the kernel's arrival time of the data (`SO_TIMESTAMPNS`).

use std::io::{self, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, RawFd};
use std::time::Instant;

use tungstenite::protocol::frame::Frame;

use crate::net;

/// Receive buffer per connection to start with: a few messages' worth; it grows for a
/// larger frame.
pub const BUFFER: usize = 512;
/// Largest message accepted (tungstenite's default limit).
pub const MAX_MESSAGE: usize = 64 << 20;

/// A subscribed connection.
pub struct Held {
    pub stream: TcpStream,
    pub buf: Vec<u8>,
    pub start: usize,
    pub end: usize,
    /// A read returned less than asked: nothing to read until the next epoll event.
    pub drained: bool,
    /// A fragmented text message being reassembled.
    pub fragments: Option<Vec<u8>>,
    /// Frames to send that the socket did not take yet.
    pub out: Vec<u8>,
    /// Until the first message arrives: when to give up on it.
    pub first_deadline: Option<Instant>,
    /// Kernel arrival time (µs since the epoch) of the last segment read, if known.
    pub rx_wall_us: Option<u64>,
}

impl Held {
    /// A connection just handed over; data that arrived before it joined the epoll set is
    /// reported by `epoll_ctl` itself.
    pub fn new(stream: TcpStream, buffer: usize, first_deadline: Option<Instant>) -> Held {
        Held {
            stream,
            buf: vec![0; buffer],
            start: 0,
            end: 0,
            drained: false,
            fragments: None,
            out: Vec::new(),
            first_deadline,
            rx_wall_us: None,
        }
    }

    /// Queues a (masked, as from a client) frame and writes what the socket takes.
    pub fn send(&mut self, mut frame: Frame) -> io::Result<()> {
        frame.header_mut().mask = Some(rand::random());
        // Formatting into a Vec cannot fail.
        let _ = frame.format(&mut self.out);
        self.flush()
    }

    pub fn flush(&mut self) -> io::Result<()> {
        while !self.out.is_empty() {
            match (&self.stream).write(&self.out) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    self.out.drain(..n);
                }
                // The rest goes when epoll says the socket is writable.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Reads what the socket holds; `Ok(false)` when nothing more is there.
    pub fn fill(&mut self) -> io::Result<bool> {
        if self.drained {
            return Ok(false);
        }
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() && self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            // A frame longer than the buffer (checked against the limit when parsed).
            let len = (self.buf.len() * 2).min(MAX_MESSAGE + 16);
            self.buf.resize(len, 0);
        }
        let space = self.buf.len() - self.end;
        match recv_timestamped(self.stream.as_raw_fd(), &mut self.buf[self.end..]) {
            Ok((0, _)) => Err(io::ErrorKind::UnexpectedEof.into()),
            Ok((n, ts)) => {
                self.end += n;
                self.rx_wall_us = ts;
                // Edge-triggered epoll reports the next arrival: no read just to see
                // EWOULDBLOCK.
                self.drained = n < space;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.drained = true;
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }
}

/// Asks the kernel to timestamp what the socket receives (`SO_TIMESTAMPNS`).
pub fn enable_rx_timestamps(stream: &TcpStream) -> io::Result<()> {
    let on: libc::c_int = 1;
    net::set_socket_option(stream, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, &on)
}

/// `recv` that also returns the kernel's receive time of the data (`SO_TIMESTAMPNS`), in
/// µs since the Unix epoch, when the socket has timestamping on.
pub fn recv_timestamped(fd: RawFd, buf: &mut [u8]) -> io::Result<(usize, Option<u64>)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // Room for one timespec control message, 8-byte aligned as cmsghdr requires.
    let mut control = [0u64; 8];
    // SAFETY: msghdr is plain data; zeroed is a valid empty header.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: `msg` points at `iov` (valid for `buf.len()` bytes) and at `control`, both
    // alive for the call.
    let n = unsafe { libc::recvmsg(fd, &mut msg, libc::MSG_DONTWAIT) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut ts = None;
    // SAFETY: the CMSG_* macros walk the control buffer the kernel filled, within
    // `msg_controllen`.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let t: libc::timespec = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                ts = Some(t.tv_sec as u64 * 1_000_000 + t.tv_nsec as u64 / 1000);
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok((n as usize, ts))
}
