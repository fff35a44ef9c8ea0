//! The receive loop of a worker's subscribed WebSocket connections.
//!
//! Once subscribed, a connection has nothing to do but receive, so it leaves the tokio
//! runtime: its socket moves into the worker's own epoll set, which one task drains every
//! millisecond. Waking up per message (or per few messages: a server writes to its
//! subscribers one after another) would cost a context switch each, more than the messages
//! themselves; draining on a fixed short period bounds the wake-ups to 1,000 per second
//! whatever the message rate. The receive time of each message is not the drain time but
//! the kernel's arrival time of its last segment (`SO_TIMESTAMPNS`, read with `recvmsg`),
//! so the period does not show in the delivery latency. (Without a kernel timestamp the
//! drain time is used, up to one period late.)
//!
//! Frames are read straight from a per-connection buffer: no per-message buffer zeroing,
//! allocation or reference counting. Frame headers are decoded by tungstenite's
//! `FrameHeader::parse` and the frames sent (pongs) encoded by its `Frame`; tungstenite did
//! the handshake and stopped at a frame boundary (see `wsio`), so no byte is lost at the
//! hand-over. Server frames are checked as RFC 6455 asks of a client: no mask, no reserved
//! bits, text is UTF-8, control frames are short and final; fragmented messages are
//! reassembled.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Cursor, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use tungstenite::protocol::frame::coding::{Control as OpCtl, Data as OpData, OpCode};
use tungstenite::protocol::frame::{Frame, FrameHeader};

use super::record::SubRecorder;
use super::run::Ctx;
use super::ws::{on_text, Step};
use super::ConnectionFailureKind as Kind;
use crate::validate::excerpt;

/// Events taken per `epoll_wait`.
const BATCH: usize = 1024;
/// Period of the drain (see the module doc).
const PERIOD: Duration = Duration::from_millis(1);
/// Receive buffer per connection to start with: a few messages' worth; it grows for a
/// larger frame.
const BUFFER: usize = 512;
/// Largest message accepted (tungstenite's default limit).
const MAX_MESSAGE: usize = 64 << 20;

/// A subscribed connection.
struct Held {
    stream: TcpStream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// A read returned less than asked: nothing to read until the next epoll event.
    drained: bool,
    /// A fragmented text message being reassembled.
    fragments: Option<Vec<u8>>,
    /// Frames to send that the socket did not take yet.
    out: Vec<u8>,
    /// Until the first message arrives: when to give up on it.
    first_deadline: Option<Instant>,
    /// Kernel arrival time (µs since the epoch) of the last segment read, if known.
    rx_wall_us: Option<u64>,
}

/// What a frame asks for.
enum After {
    Continue,
    End(Kind, String),
}

impl Held {
    /// Queues a (masked, as from a client) frame and writes what the socket takes.
    fn send(&mut self, mut frame: Frame) -> io::Result<()> {
        frame.header_mut().mask = Some(rand::random());
        // Formatting into a Vec cannot fail.
        let _ = frame.format(&mut self.out);
        self.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
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
    fn fill(&mut self) -> io::Result<bool> {
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

/// `recv` that also returns the kernel's receive time of the data (`SO_TIMESTAMPNS`), in
/// µs since the Unix epoch, when the socket has timestamping on.
fn recv_timestamped(fd: RawFd, buf: &mut [u8]) -> io::Result<(usize, Option<u64>)> {
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

/// One worker's epoll set of subscribed connections, indexed by the worker's slot.
pub struct Poller {
    epfd: OwnedFd,
    conns: RefCell<Vec<Option<Held>>>,
    /// Connections still waiting for their first message, as (deadline, slot), in deadline
    /// order (the timeout is the same for all and they subscribe one after another).
    waiting: RefCell<VecDeque<(Instant, usize)>>,
}

impl std::fmt::Debug for Poller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Poller")
            .field("epfd", &self.epfd.as_raw_fd())
            .finish_non_exhaustive()
    }
}

fn wall_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

impl Poller {
    pub fn new(slots: usize) -> io::Result<Poller> {
        // SAFETY: plain syscall; the fd is owned right after.
        let raw = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: raw is a fresh fd we own.
        let epfd = unsafe { OwnedFd::from_raw_fd(raw) };
        Ok(Poller {
            epfd,
            conns: RefCell::new((0..slots).map(|_| None).collect()),
            waiting: RefCell::new(VecDeque::new()),
        })
    }

    /// Takes a subscribed connection over (its socket already out of the tokio runtime).
    /// On error the connection is closed and the kind and detail returned (not recorded).
    pub fn add(
        &self,
        slot: usize,
        stream: TcpStream,
        first_deadline: Option<Instant>,
    ) -> Result<(), (Kind, String)> {
        let on: libc::c_int = 1;
        // SAFETY: the socket is open; the option value lives for the call. A failure only
        // means no kernel timestamps (the drain time is used instead).
        unsafe {
            libc::setsockopt(
                stream.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_TIMESTAMPNS,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
        let mut ev = libc::epoll_event {
            events: (libc::EPOLLIN | libc::EPOLLOUT | libc::EPOLLRDHUP | libc::EPOLLET) as u32,
            u64: slot as u64,
        };
        // SAFETY: both fds are open (the socket is owned by `stream`); `ev` lives for the call.
        let rc = unsafe {
            libc::epoll_ctl(
                self.epfd.as_raw_fd(),
                libc::EPOLL_CTL_ADD,
                stream.as_raw_fd(),
                &mut ev,
            )
        };
        if rc != 0 {
            let e = io::Error::last_os_error();
            return Err((Kind::Reset, format!("watching the socket: {e}")));
        }
        let held = Held {
            stream,
            buf: vec![0; BUFFER],
            start: 0,
            end: 0,
            // Data that arrived before the registration is reported by epoll_ctl itself.
            drained: false,
            fragments: None,
            out: Vec::new(),
            first_deadline,
            rx_wall_us: None,
        };
        match self.conns.borrow_mut().get_mut(slot) {
            Some(c) => *c = Some(held),
            None => return Err((Kind::Reset, format!("no slot {slot}"))),
        }
        if let Some(d) = first_deadline {
            self.waiting.borrow_mut().push_back((d, slot));
        }
        Ok(())
    }

    /// Drains the epoll set every [`PERIOD`], forever (the worker drops it at the end).
    pub async fn run(&self, ctx: &Ctx) -> io::Result<()> {
        let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; BATCH];
        let mut tick = tokio::time::interval(PERIOD);
        // After a stall, one drain takes everything: no burst of catch-up ticks.
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            loop {
                // SAFETY: the buffer holds BATCH events; timeout 0 never blocks.
                let n = unsafe {
                    libc::epoll_wait(
                        self.epfd.as_raw_fd(),
                        events.as_mut_ptr(),
                        BATCH as libc::c_int,
                        0,
                    )
                };
                if n < 0 {
                    let e = io::Error::last_os_error();
                    if e.kind() == io::ErrorKind::Interrupted {
                        continue;
                    }
                    return Err(e);
                }
                let n = n as usize;
                if n == 0 {
                    break;
                }
                // The drain time: for window accounting, and the receive time when the
                // kernel gave none.
                let now = Instant::now();
                let wall = wall_us();
                let mut rec = ctx.rec.borrow_mut();
                let mut conns = self.conns.borrow_mut();
                for ev in &events[..n] {
                    let (flags, slot) = (ev.events, ev.u64 as usize);
                    let Some(entry) = conns.get_mut(slot) else {
                        continue;
                    };
                    if let Some((kind, detail)) = entry
                        .as_mut()
                        .and_then(|held| service(ctx, &mut rec, held, slot, flags, now, wall))
                    {
                        // Closing the socket also removes it from the epoll set.
                        *entry = None;
                        rec.dropped(slot, kind, now, || detail);
                    }
                }
                if n < BATCH {
                    break;
                }
            }
        }
    }

    /// Ends connections that got no message in time.
    pub fn expire(&self, ctx: &Ctx, now: Instant) {
        loop {
            let front = self.waiting.borrow().front().copied();
            let Some((deadline, slot)) = front else {
                return;
            };
            if deadline > now {
                return;
            }
            self.waiting.borrow_mut().pop_front();
            let mut conns = self.conns.borrow_mut();
            let timed_out = conns
                .get(slot)
                .and_then(|c| c.as_ref())
                .is_some_and(|h| h.first_deadline == Some(deadline));
            if timed_out {
                conns[slot] = None;
                drop(conns);
                let timeout = ctx.prep.first_message_timeout.unwrap_or_default();
                ctx.rec
                    .borrow_mut()
                    .dropped(slot, Kind::NoMessage, now, || {
                        format!("no message within {timeout:?} of subscribing")
                    });
            }
        }
    }
}

/// Handles the events of one connection: flushes pending output when writable, reads and
/// handles every complete frame. Returns why the connection must end, if it must.
fn service(
    ctx: &Ctx,
    rec: &mut SubRecorder,
    held: &mut Held,
    slot: usize,
    flags: u32,
    now: Instant,
    wall: u64,
) -> Option<(Kind, String)> {
    if flags & libc::EPOLLOUT as u32 != 0 && !held.out.is_empty() {
        if let Err(e) = held.flush() {
            return Some((Kind::Reset, format!("sending: {e}")));
        }
    }
    if flags & !(libc::EPOLLOUT as u32) != 0 {
        held.drained = false;
    }
    loop {
        // Every complete frame in the buffer first.
        loop {
            let avail = &held.buf[held.start..held.end];
            let mut cursor = Cursor::new(avail);
            let (header, len) = match FrameHeader::parse(&mut cursor) {
                Ok(Some(h)) => h,
                Ok(None) => break,
                Err(e) => return Some((Kind::Protocol, format!("bad frame: {e}"))),
            };
            let head_len = cursor.position() as usize;
            let Some(len) = usize::try_from(len).ok().filter(|l| *l <= MAX_MESSAGE) else {
                return Some((Kind::Protocol, format!("frame of {len} bytes is too large")));
            };
            if avail.len() - head_len < len {
                // Make room for the whole frame, then read on.
                let need = head_len + len;
                if held.buf.len() - held.start < need {
                    held.buf.copy_within(held.start..held.end, 0);
                    held.end -= held.start;
                    held.start = 0;
                    if held.buf.len() < need {
                        held.buf.resize(need, 0);
                    }
                }
                break;
            }
            let from = held.start + head_len;
            held.start = from + len;
            // The payload is borrowed from the buffer while the frame is handled; only a
            // pong reply copies it.
            let payload_range = from..from + len;
            let wall = held.rx_wall_us.unwrap_or(wall);
            match frame(ctx, rec, held, slot, &header, payload_range, now, wall) {
                After::Continue => {}
                After::End(kind, detail) => return Some((kind, detail)),
            }
        }
        match held.fill() {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                let detail = if held.start < held.end {
                    "connection closed in the middle of a frame"
                } else {
                    "connection closed without close frame"
                };
                return Some((Kind::Closed, detail.to_string()));
            }
            Err(e) => return Some((Kind::Reset, e.to_string())),
        }
    }
}

/// Handles one complete frame whose payload is `held.buf[payload]`.
#[allow(clippy::too_many_arguments)]
fn frame(
    ctx: &Ctx,
    rec: &mut SubRecorder,
    held: &mut Held,
    slot: usize,
    header: &FrameHeader,
    payload: std::ops::Range<usize>,
    now: Instant,
    wall: u64,
) -> After {
    let protocol = |m: String| After::End(Kind::Protocol, m);
    if header.mask.is_some() {
        return protocol("masked frame from the server".into());
    }
    if header.rsv1 || header.rsv2 || header.rsv3 {
        return protocol("reserved bits set (no extension was negotiated)".into());
    }
    let data = &held.buf[payload.clone()];
    match header.opcode {
        OpCode::Data(OpData::Text) if header.is_final => {
            if held.fragments.is_some() {
                return protocol("new message inside a fragmented one".into());
            }
            text(ctx, rec, held, slot, payload, now, wall)
        }
        OpCode::Data(OpData::Text) => {
            if held.fragments.is_some() {
                return protocol("new message inside a fragmented one".into());
            }
            held.fragments = Some(data.to_vec());
            After::Continue
        }
        OpCode::Data(OpData::Continue) => {
            let Some(mut whole) = held.fragments.take() else {
                return protocol("continuation frame without a message".into());
            };
            if whole.len() + data.len() > MAX_MESSAGE {
                return protocol("fragmented message too large".into());
            }
            whole.extend_from_slice(data);
            if !header.is_final {
                held.fragments = Some(whole);
                return After::Continue;
            }
            let step = match std::str::from_utf8(&whole) {
                Ok(_) => on_text(&ctx.prep, rec, slot, &whole, now, wall),
                Err(_) => return protocol("text message is not UTF-8".into()),
            };
            step_after(held, step)
        }
        OpCode::Data(OpData::Binary) => protocol(format!("binary message: {}", excerpt(data))),
        OpCode::Control(_) if !header.is_final || data.len() > 125 => {
            protocol("fragmented or long control frame".into())
        }
        OpCode::Control(OpCtl::Ping) => {
            let pong = Frame::pong(Bytes::copy_from_slice(data));
            match held.send(pong) {
                Ok(()) => After::Continue,
                Err(e) => After::End(Kind::Reset, format!("sending pong: {e}")),
            }
        }
        OpCode::Control(OpCtl::Pong) => After::Continue,
        OpCode::Control(OpCtl::Close) => {
            let detail = match data {
                [a, b, reason @ ..] => format!(
                    "close frame {} {:?}",
                    u16::from_be_bytes([*a, *b]),
                    String::from_utf8_lossy(reason)
                ),
                _ => "close frame without code".to_string(),
            };
            After::End(Kind::Closed, detail)
        }
        OpCode::Data(OpData::Reserved(c)) | OpCode::Control(OpCtl::Reserved(c)) => {
            protocol(format!("reserved opcode {c}"))
        }
    }
}

/// A complete, unfragmented text frame.
#[allow(clippy::too_many_arguments)]
fn text(
    ctx: &Ctx,
    rec: &mut SubRecorder,
    held: &mut Held,
    slot: usize,
    payload: std::ops::Range<usize>,
    now: Instant,
    wall: u64,
) -> After {
    let data = &held.buf[payload];
    if std::str::from_utf8(data).is_err() {
        return After::End(Kind::Protocol, "text message is not UTF-8".into());
    }
    let step = on_text(&ctx.prep, rec, slot, data, now, wall);
    step_after(held, step)
}

fn step_after(held: &mut Held, step: Step) -> After {
    match step {
        Step::Next => {
            held.first_deadline = None;
            After::Continue
        }
        Step::Ignore => After::Continue,
        Step::Ping => {
            let pong = Frame::message(
                Bytes::from_static(br#"{"type":"pong"}"#),
                OpCode::Data(OpData::Text),
                true,
            );
            match held.send(pong) {
                Ok(()) => After::Continue,
                Err(e) => After::End(Kind::Reset, format!("sending pong: {e}")),
            }
        }
        Step::End(kind, detail) => After::End(kind, detail),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Endpoint;
    use crate::subscribe::{SubscribePlan, SubscribeTransport};
    use std::io::Read;
    use std::net::TcpListener;
    use std::time::Duration;

    /// A connected pair: (client end as held by the poller, server end).
    fn pair() -> (Held, TcpStream) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (server, _) = l.accept().unwrap();
        client.set_nonblocking(true).unwrap();
        let held = Held {
            stream: client,
            buf: vec![0; 16],
            start: 0,
            end: 0,
            drained: false,
            fragments: None,
            out: Vec::new(),
            first_deadline: None,
            rx_wall_us: None,
        };
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
        let ctx = Ctx::for_tests(&plan, 1);
        let (mut held, mut server) = pair();
        server.write_all(bytes).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let mut rec = SubRecorder::new(0, 1, 1, 3);
        let now = Instant::now();
        let end = service(&ctx, &mut rec, &mut held, 0, libc::EPOLLIN as u32, now, 0);
        (rec, end, held, server)
    }

    #[test]
    fn the_kernel_timestamps_what_it_receives() {
        let (held, mut server) = pair();
        let fd = held.stream.as_raw_fd();
        let on: libc::c_int = 1;
        // SAFETY: as in Poller::add.
        let rc = unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_TIMESTAMPNS,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        assert_eq!(rc, 0);
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
            let ctx = Ctx::for_tests(&plan, 1);
            let mut held = held;
            let mut rec = SubRecorder::new(0, 1, 1, 3);
            std::thread::sleep(Duration::from_millis(20));
            let end = service(
                &ctx,
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
}
