//! The state of one HTTP load worker, shared by its connection tasks on the worker's
//! thread (`Cell`/`RefCell` only): admission to the window and the request budget, the
//! choice of operation and variant, request writing, and judging and recording responses.
//! Its [`Driver`] tells the harness's ticker when the worker is done: every task ended, or
//! the window's end plus one timeout (for requests still in flight) has passed.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::answer::Arrival;
use super::record::{Recorder, Sample};
use super::slices::profile_bin;
use super::window::Window;
use crate::conn::Conn;
use crate::harness::{Driver, Span};
use crate::live::LIVE_COUNTERS;
use crate::parse::Response;
use crate::prepare::{fmt_u64, Prepared, Rng};
use crate::slicing::Slicing;
use crate::validate::{FailureKind, Shape, Validator};

/// Slack after the last timeout before a worker gives up on stragglers.
const GRACE: Duration = Duration::from_millis(200);

/// One request on its way.
#[derive(Debug, Clone, Copy)]
pub struct Pending {
    pub op: usize,
    pub variant: usize,
    pub intended: Option<Instant>,
    pub sent: Instant,
    pub in_window: bool,
    pub bytes_out: u64,
}

/// State shared by the tasks of one worker (single thread: `Cell`/`RefCell` only).
#[derive(Debug)]
pub struct Ctx {
    pub prep: Arc<Prepared>,
    pub addr: SocketAddr,
    pub timeout: Duration,
    pub worker: usize,
    pub run_start: Instant,
    pub window_start: Instant,
    /// End of a duration window, shared by the workers (it may be pushed back).
    pub window: Arc<Window>,
    /// Send only in own slices, count only past their guard.
    pub slicing: Option<Slicing>,
    /// Requests this worker may still send in the window (request-count stop).
    budget: Cell<Option<u64>>,
    /// No new requests: cancelled, or the open-model dispatcher is done.
    pub stop: Cell<bool>,
    pub rec: RefCell<Recorder>,
    validator: RefCell<Validator>,
    variant_rr: Vec<Cell<usize>>,
    unique: Cell<u64>,
    /// What is left of this worker's block of unique numbers (numbered bodies): the next
    /// one and the end of the block.
    numbers: Cell<(u64, u64)>,
    /// Tasks still running; the ticker ends the worker when it reaches zero.
    alive: Cell<usize>,
    all_done: Notify,
}

/// Decrements the live-task count when a task ends, however it ends.
pub struct AliveGuard(Rc<Ctx>);

impl Drop for AliveGuard {
    fn drop(&mut self) {
        let n = self.0.alive.get().saturating_sub(1);
        self.0.alive.set(n);
        if n == 0 {
            self.0.all_done.notify_one();
        }
    }
}

impl Ctx {
    /// Registers a task; keep the guard alive for the task's life.
    pub fn task_started(self: &Rc<Self>) -> AliveGuard {
        self.alive.set(self.alive.get() + 1);
        AliveGuard(self.clone())
    }

    /// Spawns a task on this worker, counted as alive from now on (not from its first poll,
    /// so the ticker cannot see zero tasks between spawn and start).
    pub fn spawn<F: std::future::Future<Output = ()> + 'static>(self: &Rc<Self>, fut: F) {
        let guard = self.task_started();
        tokio::task::spawn_local(async move {
            let _guard = guard;
            fut.await
        });
    }

    /// May a request (due or sent at `at`) go out? `Some(in_window)`, or None when this
    /// worker must send nothing more. Takes one ticket of a request-count window. With
    /// slicing, a request in the guard of an own slice goes out uncounted, as in warm-up
    /// (the caller sends nothing outside own slices).
    pub fn admit(&self, at: Instant) -> Option<bool> {
        if self.stop.get() {
            return None;
        }
        if at < self.window_start {
            return Some(false);
        }
        if self.window_end().is_some_and(|end| at >= end) {
            return None;
        }
        let counted = self.slicing.is_none_or(|s| s.counts_at(at));
        match self.budget.get() {
            None => Some(counted),
            Some(0) => None,
            Some(n) => {
                if counted {
                    self.budget.set(Some(n - 1));
                }
                Some(counted)
            }
        }
    }

    /// Whether this run may send at `t`: always, or with slicing in an own slice.
    pub fn own_at(&self, t: Instant) -> bool {
        self.slicing.is_none_or(|s| s.own_position(t).is_some())
    }

    /// With slicing: the profile bin of `t` (the closed model's answer, the open model's
    /// due time), if it lies in an own slice within the measured window.
    fn profile_bin(&self, t: Instant) -> Option<usize> {
        let s = self.slicing.as_ref()?;
        if t < self.window_start || self.window_end().is_some_and(|e| t >= e) {
            return None;
        }
        profile_bin(s, t)
    }

    /// End of a duration window, as it stands now.
    pub fn window_end(&self) -> Option<Instant> {
        self.window.end().map(|e| self.run_start + e)
    }

    /// Gives back the ticket of a request that was never answered by design (the server
    /// announced `Connection: close`), so it is sent again.
    pub fn refund(&self, p: &Pending) {
        if p.in_window {
            if let Some(n) = self.budget.get() {
                self.budget.set(Some(n + 1));
            }
        }
    }

    /// True when the request-count window has no tickets left.
    pub fn budget_exhausted(&self) -> bool {
        self.budget.get() == Some(0)
    }

    /// True when nothing more may be sent at `now` (stop, end of window or of budget).
    pub fn finished(&self, now: Instant) -> bool {
        self.stop.get()
            || self.window_end().is_some_and(|e| now >= e)
            || (now >= self.window_start && self.budget_exhausted())
    }

    /// Picks an operation (weighted, from the connection's PRNG) and its next variant
    /// (round-robin per worker, so variables vary from request to request).
    pub fn pick(&self, rng: &mut Rng) -> (usize, usize) {
        let op = self.prep.pick_op(rng.next_u64());
        let rr = &self.variant_rr[op];
        let n = self.prep.ops[op].variants.len();
        let v = rr.get();
        rr.set(if v + 1 >= n { 0 } else { v + 1 });
        (op, v)
    }

    /// Appends a request; with a unique header its value is `<worker>-<counter>`, and a
    /// numbered body gets the next of this worker's unique numbers.
    pub fn write_request(&self, op: usize, variant: usize, out: &mut Vec<u8>) {
        self.write(op, variant, false, out)
    }

    /// Appends a request: a persisted query's short form, or with `full` (and for every
    /// other request) the full one.
    pub(super) fn write(&self, op: usize, variant: usize, full: bool, out: &mut Vec<u8>) {
        let number = if self.prep.numbered(op, variant) {
            let (mut next, mut end) = self.numbers.get();
            if next >= end {
                let block = crate::prepare::take_number_block();
                (next, end) = (block.start, block.end);
            }
            self.numbers.set((next + 1, end));
            next
        } else {
            0
        };
        if self.prep.unique_header.is_some() {
            let n = self.unique.get();
            self.unique.set(n + 1);
            let mut tmp = [0u8; 48];
            let mut a = [0u8; 20];
            let mut b = [0u8; 20];
            let w = fmt_u64(self.worker as u64, &mut a);
            let c = fmt_u64(n, &mut b);
            tmp[..w.len()].copy_from_slice(w);
            tmp[w.len()] = b'-';
            tmp[w.len() + 1..w.len() + 1 + c.len()].copy_from_slice(c);
            let unique = &tmp[..w.len() + 1 + c.len()];
            if full {
                self.prep.write_full(op, variant, unique, number, out);
            } else {
                self.prep.write_request(op, variant, unique, number, out);
            }
        } else if full {
            self.prep.write_full(op, variant, b"", number, out);
        } else {
            self.prep.write_request(op, variant, b"", number, out);
        }
    }

    /// Judges and records the response `r` that arrived on `c`, with what reading it
    /// found (`arrival`: an incremental answer's first part, a persisted query's miss).
    ///
    /// A request outside the counted time (warm-up, or the guard of an own slice) counts
    /// only in `warmup_requests`. With slicing one sent in the window's guard is judged too,
    /// for the profile of answers within slices; a failure there is, like a warm-up
    /// failure, counted nowhere: the guard is the switch's transient, and the counted part
    /// of the slices shows what fails for good.
    pub fn complete(
        &self,
        slot: usize,
        p: &Pending,
        c: &Conn,
        r: &Response,
        done: Instant,
        arrival: Arrival,
    ) {
        let mut rec = self.rec.borrow_mut();
        let end_now = self.window_end();
        // Answered: its share of the counted time, counted or not (closed model only).
        rec.answered_span(p.sent, done, end_now);
        // The closed model profiles answers where they arrive, as it counts them (`slices`).
        let bin = self.profile_bin(p.intended.unwrap_or(done));
        if !p.in_window {
            rec.warmup_requests += 1;
            // Sliced, the closed model counts a guard's answer that arrives past the guard
            // (`slices`); a wrong one there is, like the guard's failures, counted nowhere.
            // Judged only when it is profiled or counted: warm-up answers are not parsed.
            let counted = rec.slices.counts_answer(done, end_now);
            if (bin.is_some() || counted) && self.judge(p, c, r).is_ok() {
                if let Some(bin) = bin {
                    rec.profile_ok(bin);
                }
                if counted {
                    rec.slice_counted(done, true, true);
                }
            }
            return;
        }
        let mut validator = self.validator.borrow_mut();
        let verdict = self.judge_with(&mut validator, p, c, r);
        if let (Some(bin), true) = (bin, verdict.is_ok()) {
            rec.profile_ok(bin);
        }
        rec.slice_answer(done, end_now, true, verdict.is_ok());
        let verdict = match &verdict {
            Ok(()) => Ok(()),
            Err((kind, detail)) => Err((*kind, detail.as_ref())),
        };
        let mut s = sample(slot, p, r.wire_len as u64, done);
        if self.prep.ops[p.op].variants[p.variant].shape == Shape::Incremental {
            s.first_part = Some(arrival.first_part.unwrap_or(done));
        }
        s.persisted = arrival.persisted;
        rec.record(&s, verdict);
    }

    /// The verdict on a response, without recording it.
    fn judge(&self, p: &Pending, c: &Conn, r: &Response) -> Result<(), FailureKind> {
        let mut validator = self.validator.borrow_mut();
        self.judge_with(&mut validator, p, c, r)
            .map_err(|(kind, _)| kind)
    }

    /// The verdict on a response: its body, then the response headers the plan requires.
    fn judge_with<'v>(
        &'v self,
        validator: &'v mut Validator,
        p: &Pending,
        c: &Conn,
        r: &Response,
    ) -> Result<(), (FailureKind, Cow<'v, str>)> {
        let variant = &self.prep.ops[p.op].variants[p.variant];
        let verdict = validator.judge(
            variant.id,
            r.status,
            c.head(r),
            c.body(r),
            variant.expected.as_ref(),
            variant.shape,
        );
        // The body is judged first: a wrong answer says more than missing headers.
        let headers = match (&verdict, &self.prep.response_headers) {
            (Ok(()), Some(rule)) => rule.check(c.head(r)).err(),
            _ => None,
        };
        match headers {
            Some(detail) => Err((FailureKind::Headers, Cow::Owned(detail))),
            None => verdict.map_err(|(kind, detail)| (kind, Cow::Borrowed(detail))),
        }
    }

    /// Records a request that got no (complete) response. One sent outside the counted
    /// time (warm-up, a slice's guard) counts only in `warmup_requests`, as in `complete`.
    pub fn fail(&self, slot: usize, p: &Pending, kind: FailureKind, detail: &str, done: Instant) {
        let mut rec = self.rec.borrow_mut();
        if !p.in_window {
            rec.warmup_requests += 1;
            return;
        }
        rec.record(&sample(slot, p, 0, done), Err((kind, detail)));
        rec.slice_answer(done, self.window_end(), false, false);
    }

    pub fn count_reconnect(&self, p_in_window: bool) {
        if p_in_window {
            self.rec.borrow_mut().reconnects += 1;
        }
    }
}

fn sample(slot: usize, p: &Pending, bytes_in: u64, done: Instant) -> Sample {
    Sample {
        conn: slot,
        op: p.op,
        intended: p.intended,
        sent: p.sent,
        done,
        first_part: None,
        persisted: None,
        bytes_in,
        bytes_out: p.bytes_out,
    }
}

impl Ctx {
    /// A worker's state at the start of the load.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        prep: Arc<Prepared>,
        addr: SocketAddr,
        timeout: Duration,
        worker: usize,
        run_start: Instant,
        window_start: Instant,
        window: Arc<Window>,
        slicing: Option<Slicing>,
        budget: Option<u64>,
        rec: Recorder,
    ) -> Ctx {
        let ops = prep.ops.len();
        Ctx {
            validator: RefCell::new(Validator::new(prep.variant_count)),
            prep,
            addr,
            timeout,
            worker,
            run_start,
            window_start,
            window,
            slicing,
            budget: Cell::new(budget),
            stop: Cell::new(false),
            rec: RefCell::new(rec),
            variant_rr: (0..ops).map(|_| Cell::new(0)).collect(),
            unique: Cell::new(0),
            numbers: Cell::new((0, 0)),
            alive: Cell::new(0),
            all_done: Notify::new(),
        }
    }
}

impl Driver<LIVE_COUNTERS> for Ctx {
    type Rec = Recorder;

    fn rec(&self) -> &RefCell<Recorder> {
        &self.rec
    }

    fn window(&self) -> Option<Span> {
        Some(Span {
            start: self.window_start,
            end: self.window_end(),
        })
    }

    /// Every task ended, or the latest time a worker may run to has passed: the window's
    /// end as it stands, plus one timeout for requests still in flight, plus a grace.
    fn done(&self, now: Instant) -> bool {
        self.alive.get() == 0
            || self
                .window_end()
                .is_some_and(|e| now >= e + self.timeout + GRACE)
    }

    fn stop(&self) {
        self.stop.set(true);
    }

    fn woken(&self) -> Option<&Notify> {
        Some(&self.all_done)
    }

    fn finish(&self, _now: Instant) {
        self.rec.borrow_mut().budget_exhausted = self.budget_exhausted();
    }

    fn take_rec(&self) -> Recorder {
        let empty = Recorder::new(self.window_start, false, 0, 0, 0);
        self.rec.replace(empty)
    }
}

/// Per-connection PRNG seed: distinct per worker and slot, same from run to run.
pub fn seed(worker: usize, slot: usize) -> u64 {
    ((worker as u64) << 32) ^ slot as u64 ^ 0x5EED
}
