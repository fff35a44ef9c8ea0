//! A worker: one OS thread running a single-threaded tokio runtime that drives its share
//! of the connections. Everything a worker touches per request (recorder, validator
//! memory, request budget) is owned by its thread: no locks or shared atomics on the hot
//! path. Progress is published to [`LiveStats`] by a ticker task every ~100 ms.

use std::cell::{Cell, RefCell};
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::affinity;
use crate::conn::{self, Conn};
use crate::error::EngineError;
use crate::gate::StartGate;
use crate::live::{LiveStats, Phase};
use crate::prepare::{fmt_u64, Prepared, Rng};
use crate::record::{Recorder, Sample};
use crate::validate::{FailureKind, Validator};
use crate::window::Window;

/// Period of the ticker that watches cancel/stop and publishes progress.
const TICK: Duration = Duration::from_millis(10);
/// Progress is published at most this often.
const PUBLISH_EVERY: Duration = Duration::from_millis(100);

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
    /// Requests this worker may still send in the window (request-count stop).
    budget: Cell<Option<u64>>,
    /// No new requests: cancelled, or the open-model dispatcher is done.
    pub stop: Cell<bool>,
    pub rec: RefCell<Recorder>,
    validator: RefCell<Validator>,
    variant_rr: Vec<Cell<usize>>,
    unique: Cell<u64>,
    /// Tasks still running; the ticker ends the worker when it reaches zero.
    alive: Cell<usize>,
    pub all_done: Notify,
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
    /// worker must send nothing more. Takes one ticket of a request-count window.
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
        match self.budget.get() {
            None => Some(true),
            Some(0) => None,
            Some(n) => {
                self.budget.set(Some(n - 1));
                Some(true)
            }
        }
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

    /// Appends a request; with a unique header its value is `<worker>-<counter>`.
    pub fn write_request(&self, op: usize, variant: usize, out: &mut Vec<u8>) {
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
            self.prep
                .write_request(op, variant, &tmp[..w.len() + 1 + c.len()], out);
        } else {
            self.prep.write_request(op, variant, b"", out);
        }
    }

    /// Judges and records a response.
    pub fn complete(
        &self,
        slot: usize,
        p: &Pending,
        status: u16,
        body: &[u8],
        wire_len: usize,
        done: Instant,
    ) {
        let mut rec = self.rec.borrow_mut();
        if !p.in_window {
            rec.warmup_requests += 1;
            return;
        }
        let variant = &self.prep.ops[p.op].variants[p.variant];
        let mut validator = self.validator.borrow_mut();
        let verdict = validator.judge(variant.id, status, body, variant.expected.as_ref());
        rec.record(&sample(slot, p, wire_len as u64, done), verdict);
    }

    /// Records a request that got no (complete) response.
    pub fn fail(&self, slot: usize, p: &Pending, kind: FailureKind, detail: &str, done: Instant) {
        let mut rec = self.rec.borrow_mut();
        if !p.in_window {
            rec.warmup_requests += 1;
            return;
        }
        rec.record(&sample(slot, p, 0, done), Err((kind, detail)));
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
        bytes_in,
        bytes_out: p.bytes_out,
    }
}

/// What a worker needs to start.
#[derive(Debug, Clone)]
pub struct WorkerSetup {
    pub prep: Arc<Prepared>,
    pub addr: SocketAddr,
    pub timeout: Duration,
    pub worker: usize,
    pub warmup: Duration,
    pub budget: Option<u64>,
    pub slots: usize,
    /// Closed model: open every slot's connection before the start line.
    pub preconnect: bool,
    /// Closed model: the slots meant to be active at some time in the window.
    pub expected: Vec<bool>,
    pub open: bool,
    pub keep_examples: usize,
    pub cpus: Option<Vec<usize>>,
    pub gate: Arc<StartGate>,
    pub window: Arc<Window>,
    pub cancel: Arc<AtomicBool>,
    pub live: Arc<LiveStats>,
}

/// Slack after the last timeout before workers give up on stragglers.
const GRACE: Duration = Duration::from_millis(200);

/// Latest time a worker may run to (duration windows): the window's end as it stands, plus
/// one timeout for requests still in flight, plus a small grace.
fn hard_end(ctx: &Ctx) -> Option<Instant> {
    ctx.window_end().map(|e| e + ctx.timeout + GRACE)
}

/// What a worker hands back.
#[derive(Debug)]
pub struct WorkerOutput {
    pub rec: Recorder,
    pub pinned: Option<Vec<usize>>,
    pub interrupted_at: Option<Instant>,
    pub budget_exhausted: bool,
}

/// Opens `n` connections at once (each bounded by `timeout`); a slot whose connection
/// failed is None and connects again when its task runs. Cancel ends the wait early.
async fn connect_all(
    addr: SocketAddr,
    n: usize,
    timeout: Duration,
    cancel: &AtomicBool,
) -> Vec<Option<Conn>> {
    let mut set = tokio::task::JoinSet::new();
    for i in 0..n {
        set.spawn(async move { (i, conn::connect(addr, timeout).await.ok()) });
    }
    let mut out: Vec<Option<Conn>> = (0..n).map(|_| None).collect();
    loop {
        tokio::select! {
            next = set.join_next() => match next {
                Some(Ok((i, c))) => out[i] = c,
                Some(Err(_)) => {}
                None => break,
            },
            _ = tokio::time::sleep(TICK) => {
                if cancel.load(Ordering::Relaxed) {
                    set.abort_all();
                    break;
                }
            }
        }
    }
    out
}

/// Runs one worker thread to completion: pins it, opens its connections (closed model),
/// waits at the start line, then runs the tasks `spawn_tasks` starts with the open
/// connections (one per slot, None where connecting failed).
pub fn run_worker<F>(setup: WorkerSetup, spawn_tasks: F) -> Result<WorkerOutput, EngineError>
where
    F: FnOnce(&Rc<Ctx>, Vec<Option<Conn>>),
{
    let gate = setup.gate.clone();
    let arrival = gate.arrival();
    let pinned = match &setup.cpus {
        Some(cpus) => {
            Some(
                affinity::pin_current_thread(cpus).map_err(|reason| EngineError::Pin {
                    cpus: cpus.clone(),
                    reason,
                })?,
            )
        }
        None => None,
    };
    affinity::tighten_timer_slack();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let conns = if setup.preconnect {
        rt.block_on(connect_all(
            setup.addr,
            setup.slots,
            setup.timeout,
            &setup.cancel,
        ))
    } else {
        Vec::new()
    };
    let established = conns.iter().filter(|c| c.is_some()).count() as u64;
    let run_start = arrival.wait_start();
    let window_start = run_start + setup.warmup;
    let local = tokio::task::LocalSet::new();
    let ops = setup.prep.ops.len();
    let mut rec = Recorder::new(
        window_start,
        setup.open,
        ops,
        setup.slots,
        setup.keep_examples,
    );
    if setup.preconnect {
        rec.established = Some(established);
        rec.expect_slots(&setup.expected);
        if setup.window.min_per_connection > 0 {
            rec.report_minimum(setup.window.clone());
        }
    }
    let ctx = Rc::new(Ctx {
        prep: setup.prep.clone(),
        addr: setup.addr,
        timeout: setup.timeout,
        worker: setup.worker,
        run_start,
        window_start,
        window: setup.window.clone(),
        budget: Cell::new(setup.budget),
        stop: Cell::new(false),
        rec: RefCell::new(rec),
        validator: RefCell::new(Validator::new(setup.prep.variant_count)),
        variant_rr: (0..ops).map(|_| Cell::new(0)).collect(),
        unique: Cell::new(0),
        alive: Cell::new(0),
        all_done: Notify::new(),
    });
    let interrupted_at = local.block_on(&rt, async {
        // Holds the count above zero until the schedule's tasks are spawned.
        let startup = ctx.task_started();
        spawn_tasks(&ctx, conns);
        drop(startup);
        ticker(&ctx, &setup).await
    });
    // Tasks still running (cancel, hard end) are dropped with the runtime.
    drop(local);
    drop(rt);
    let budget_exhausted = ctx.budget_exhausted();
    let rec = std::mem::replace(
        &mut *ctx.rec.borrow_mut(),
        Recorder::new(window_start, setup.open, 0, 0, 0),
    );
    Ok(WorkerOutput {
        rec,
        pinned,
        interrupted_at,
        budget_exhausted,
    })
}

/// Watches cancel, the hard end and task completion; publishes progress; reads the
/// thread's CPU clock at the window's start and end. Returns the cancel time if cancelled.
async fn ticker(ctx: &Rc<Ctx>, setup: &WorkerSetup) -> Option<Instant> {
    let live = &setup.live;
    let mut cpu_start = None;
    let mut cpu_end = None;
    let mut published = (0u64, 0u64);
    let mut last_publish = Instant::now();
    let mut interrupted = None;
    if Instant::now() < ctx.window_start {
        live.set_phase(Phase::Warmup);
    }
    loop {
        let now = Instant::now();
        if cpu_start.is_none() && now >= ctx.window_start {
            cpu_start = Some(affinity::thread_cpu_time());
            live.set_phase(Phase::Measure);
        }
        if cpu_end.is_none() && ctx.window_end().is_some_and(|e| now >= e) {
            cpu_end = Some(affinity::thread_cpu_time());
        }
        let cancelled = setup.cancel.load(Ordering::Relaxed);
        let done = ctx.alive.get() == 0 || hard_end(ctx).is_some_and(|h| now >= h);
        if now.duration_since(last_publish) >= PUBLISH_EVERY || cancelled || done {
            let totals = ctx.rec.borrow().totals();
            live.add(totals.0 - published.0, totals.1 - published.1);
            published = totals;
            if now >= ctx.window_start {
                live.set_elapsed_ms(now.duration_since(ctx.window_start).as_millis() as u64);
            }
            last_publish = now;
        }
        if cancelled {
            ctx.stop.set(true);
            interrupted = Some(now);
            break;
        }
        if done {
            break;
        }
        let mut next = now + TICK;
        if now < ctx.window_start {
            next = next.min(ctx.window_start);
        }
        if let Some(e) = ctx.window_end().filter(|e| now < *e) {
            next = next.min(e);
        }
        tokio::select! {
            _ = ctx.all_done.notified() => {}
            _ = tokio::time::sleep_until(next.into()) => {}
        }
    }
    let end = cpu_end.unwrap_or_else(affinity::thread_cpu_time);
    ctx.rec.borrow_mut().cpu_s = cpu_start.map_or(0.0, |s| end.saturating_sub(s).as_secs_f64());
    interrupted
}

/// Per-connection PRNG seed: distinct per worker and slot, same from run to run.
pub fn seed(worker: usize, slot: usize) -> u64 {
    ((worker as u64) << 32) ^ slot as u64 ^ 0x5EED
}
