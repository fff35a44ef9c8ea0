//! The receive loop of a worker's subscribed WebSocket connections.
//!
//! Once subscribed, a connection has nothing to do but receive, so it leaves the tokio
//! runtime: its socket is moved into the worker's own epoll set (edge-triggered), and one
//! task drains that set in batches. Per message this saves a task wake-up, a poll and a
//! waker registration (the bulk of the user-space cost at 100,000 messages per second), and
//! a batch shares one receive timestamp. tungstenite still does the framing, control frames
//! and close; its state and buffers move with the connection.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use tokio::io::unix::AsyncFd;
use tokio_tungstenite::tungstenite::{Message, WebSocket};

use super::record::SubRecorder;
use super::run::Ctx;
use super::ws::{classify, close_detail, error_detail, on_text, Step, PONG};
use super::ConnectionFailureKind as Kind;
use crate::validate::excerpt;
use crate::wsio::{would_block, Io};

/// Events taken per `epoll_wait`.
const BATCH: usize = 1024;

/// A subscribed connection.
struct Held {
    ws: WebSocket<Io>,
    /// Until the first message arrives: when to give up on it.
    first_deadline: Option<Instant>,
}

/// One worker's epoll set of subscribed connections, indexed by the worker's slot.
pub struct Poller {
    epfd: AsyncFd<OwnedFd>,
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
    /// Must be called within the worker's runtime.
    pub fn new(slots: usize) -> io::Result<Poller> {
        // SAFETY: plain syscall; the fd is owned right after.
        let raw = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: raw is a fresh fd we own.
        let owned = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: the AsyncFd owns the fd, so it stays open as long as it is registered.
        let epfd =
            unsafe { AsyncFd::register_with_interest(owned, tokio::io::Interest::READABLE) }?;
        Ok(Poller {
            epfd,
            conns: RefCell::new((0..slots).map(|_| None).collect()),
            waiting: RefCell::new(VecDeque::new()),
        })
    }

    /// Takes a subscribed connection over and handles what it may already hold. On error
    /// the connection is closed and the kind and detail returned (not yet recorded).
    pub fn add(
        &self,
        ctx: &Ctx,
        slot: usize,
        mut ws: WebSocket<Io>,
        first_deadline: Option<Instant>,
    ) -> Result<(), (Kind, String)> {
        let fd = ws
            .get_mut()
            .detach()
            .map_err(|e| (Kind::Reset, format!("handing over the socket: {e}")))?;
        let mut ev = libc::epoll_event {
            events: (libc::EPOLLIN | libc::EPOLLOUT | libc::EPOLLRDHUP | libc::EPOLLET) as u32,
            u64: slot as u64,
        };
        // SAFETY: both fds are open (the socket is owned by `ws`); `ev` lives for the call.
        let rc =
            unsafe { libc::epoll_ctl(self.epfd.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) };
        if rc != 0 {
            let e = io::Error::last_os_error();
            return Err((Kind::Reset, format!("watching the socket: {e}")));
        }
        match self.conns.borrow_mut().get_mut(slot) {
            Some(c) => {
                *c = Some(Held { ws, first_deadline });
            }
            None => return Err((Kind::Reset, format!("no slot {slot}"))),
        }
        if let Some(d) = first_deadline {
            self.waiting.borrow_mut().push_back((d, slot));
        }
        // Frames tungstenite already buffered would raise no epoll event: handle them now.
        let mut rec = ctx.rec.borrow_mut();
        self.service(
            ctx,
            &mut rec,
            slot,
            libc::EPOLLIN as u32,
            Instant::now(),
            wall_us(),
        );
        Ok(())
    }

    /// Drains the epoll set forever (the worker drops it at the end of the run).
    pub async fn run(&self, ctx: &Ctx) -> io::Result<()> {
        let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; BATCH];
        loop {
            let mut guard = self.epfd.readable().await?;
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
                if n > 0 {
                    // One receive timestamp per batch: the batch is taken in microseconds.
                    let now = Instant::now();
                    let wall = wall_us();
                    let mut rec = ctx.rec.borrow_mut();
                    for ev in &events[..n] {
                        let (flags, slot) = (ev.events, ev.u64 as usize);
                        self.service(ctx, &mut rec, slot, flags, now, wall);
                    }
                }
                if n < BATCH {
                    // Every ready event was taken; a later one raises a new edge on the
                    // epoll fd itself, so clearing its cached readiness loses nothing.
                    guard.clear_ready();
                    break;
                }
                // A full batch: let the ticker and the connecting tasks run in between.
                tokio::task::yield_now().await;
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

    /// Handles the events of one connection: flushes pending output when writable, reads
    /// and judges every complete message, ends the connection on close or error.
    fn service(
        &self,
        ctx: &Ctx,
        rec: &mut SubRecorder,
        slot: usize,
        flags: u32,
        now: Instant,
        wall: u64,
    ) {
        let mut conns = self.conns.borrow_mut();
        let Some(Some(held)) = conns.get_mut(slot) else {
            return;
        };
        let ws = &mut held.ws;
        let mut end: Option<(Kind, String)> = None;
        if flags & libc::EPOLLOUT as u32 != 0 && ws.get_mut().set_writable() {
            match ws.flush() {
                Err(e) if !would_block(&e) => end = Some((classify(&e), error_detail(&e))),
                _ => {}
            }
        }
        if flags & !(libc::EPOLLOUT as u32) != 0 {
            ws.get_mut().set_readable();
        }
        while end.is_none() {
            match ws.read() {
                Ok(Message::Text(text)) => {
                    match on_text(&ctx.prep, rec, slot, text.as_bytes(), now, wall) {
                        Step::Next => held.first_deadline = None,
                        Step::Ignore => {}
                        Step::Ping => match ws.send(Message::Text(PONG)) {
                            // A blocked pong stays buffered until the socket is writable.
                            Err(e) if !would_block(&e) => {
                                end = Some((classify(&e), format!("sending pong: {e}")))
                            }
                            _ => {}
                        },
                        Step::End(kind, detail) => end = Some((kind, detail)),
                    }
                }
                Ok(Message::Binary(b)) => {
                    end = Some((Kind::Protocol, format!("binary message: {}", excerpt(&b))))
                }
                Ok(Message::Close(f)) => end = Some((Kind::Closed, close_detail(f.as_ref()))),
                // Ping frames are answered by tungstenite on its next read; pongs need nothing.
                Ok(_) => {}
                Err(e) if would_block(&e) => break,
                Err(e) => end = Some((classify(&e), error_detail(&e))),
            }
        }
        if let Some((kind, detail)) = end {
            // Closing the socket also removes it from the epoll set.
            conns[slot] = None;
            rec.dropped(slot, kind, now, || detail);
        }
    }
}
