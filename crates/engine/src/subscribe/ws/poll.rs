//! The receive loop of a worker's subscribed WebSocket connections: one epoll set per
//! worker.
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
use std::io;
use std::net::TcpStream;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use super::frames::service;
use super::held::{enable_rx_timestamps, Held, BUFFER};
use crate::subscribe::prepared::Prepared;
use crate::subscribe::record::{wall_us, SubRecorder};
use crate::subscribe::result::ConnectionFailureKind as Kind;

/// Events taken per `epoll_wait`.
const BATCH: usize = 1024;
/// Period of the drain (see the module doc).
const PERIOD: Duration = Duration::from_millis(1);

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
        // A failure only means no kernel timestamps (the drain time is used instead).
        let _ = enable_rx_timestamps(&stream);
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
        let held = Held::new(stream, BUFFER, first_deadline);
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
    pub async fn run(&self, prep: &Prepared, rec: &RefCell<SubRecorder>) -> io::Result<()> {
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
                let mut rec = rec.borrow_mut();
                let mut conns = self.conns.borrow_mut();
                for ev in &events[..n] {
                    let (flags, slot) = (ev.events, ev.u64 as usize);
                    let Some(entry) = conns.get_mut(slot) else {
                        continue;
                    };
                    if let Some((kind, detail)) = entry
                        .as_mut()
                        .and_then(|held| service(prep, &mut rec, held, slot, flags, now, wall))
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
    pub fn expire(&self, prep: &Prepared, rec: &RefCell<SubRecorder>, now: Instant) {
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
                let timeout = prep.first_message_timeout.unwrap_or_default();
                rec.borrow_mut().dropped(slot, Kind::NoMessage, now, || {
                    format!("no message within {timeout:?} of subscribing")
                });
            }
        }
    }
}
