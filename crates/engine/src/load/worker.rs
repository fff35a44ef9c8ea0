//! One HTTP load worker on the harness: before the start line it opens the closed model's
//! connections (so connecting is kept out of the warm-up and the window), and primes them
//! when the plan asks (one uncounted request each); at the start it
//! builds its [`Ctx`] and spawns the schedule's tasks — a task per connection slot (closed
//! model) or one dispatcher that opens connections on demand (open model).

use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::closed::{self, ClosedConn};
use super::ctx::Ctx;
use super::open;
use super::record::Recorder;
use super::window::Window;
use crate::conn::{self, Conn};
use crate::error::EngineError;
use crate::harness::ticker::TICK;
use crate::harness::{Flags, Outcome, Seat};
use crate::live::LIVE_COUNTERS;
use crate::plan::Schedule;
use crate::prepare::Prepared;
use crate::schedule::{Curve, RateCursor};
use crate::slicing::Slicing;

/// A worker's share of the plan.
#[derive(Debug, Clone)]
pub(super) struct WorkerSetup {
    pub prep: Arc<Prepared>,
    pub addr: SocketAddr,
    pub timeout: Duration,
    pub warmup: Duration,
    /// Requests this worker may send in a request-count window.
    pub budget: Option<u64>,
    /// Connection slots (closed model) or most connections (open model) of this worker.
    pub slots: usize,
    /// Closed model: the slots meant to be active at some time in the window.
    pub expected: Vec<bool>,
    pub keep_examples: usize,
    pub window: Arc<Window>,
    /// Prime each closed-model connection with one request before the start.
    pub prime: bool,
    pub slicing: Option<Slicing>,
}

/// Runs one worker of `schedule` (split over `threads` workers) to its end.
pub(super) fn run_worker(
    seat: Seat<'_, LIVE_COUNTERS>,
    setup: WorkerSetup,
    schedule: &Schedule,
    threads: usize,
) -> Result<Outcome<Recorder>, EngineError> {
    let worker = seat.worker;
    let closed = matches!(schedule, Schedule::Closed { .. });
    let (addr, slots, timeout) = (setup.addr, setup.slots, setup.timeout);
    let primer = setup.prime.then(|| (setup.prep.clone(), worker));
    seat.run(
        |rt, flags| {
            Ok(if closed {
                rt.block_on(connect_all(addr, slots, timeout, flags, primer))
            } else {
                (Vec::new(), None)
            })
        },
        |(conns, primed), run_start| {
            let window_start = run_start + setup.warmup;
            let established = conns.iter().filter(|c| c.is_some()).count() as u64;
            let ops = setup.prep.ops.len();
            let mut rec = Recorder::new(window_start, !closed, ops, slots, setup.keep_examples);
            rec.slice_by(setup.slicing);
            if let (Schedule::Closed { think_time, .. }, Some(_)) = (schedule, setup.window.end()) {
                rec.track_progress(*think_time);
            }
            if closed {
                rec.established = Some(established);
                rec.primed = primed;
                rec.expect_slots(&setup.expected);
                if setup.window.min_per_connection > 0 {
                    rec.report_minimum(setup.window.clone());
                }
            }
            let ctx = Rc::new(Ctx::new(
                setup.prep,
                addr,
                timeout,
                worker,
                run_start,
                window_start,
                setup.window,
                setup.slicing,
                setup.budget,
                rec,
            ));
            // Holds the count of live tasks above zero until the schedule's are spawned.
            let startup = ctx.task_started();
            spawn_tasks(&ctx, schedule, conns, slots, threads);
            drop(startup);
            ctx
        },
    )
}

/// Spawns the schedule's tasks on the worker. `conns` holds the connections opened before
/// the start (closed model), one per slot, None where connecting failed.
fn spawn_tasks(
    ctx: &Rc<Ctx>,
    schedule: &Schedule,
    conns: Vec<Option<Conn>>,
    slots: usize,
    threads: usize,
) {
    match schedule {
        Schedule::Closed {
            connections,
            pipelining,
            think_time,
        } => {
            let curve = Rc::new(Curve::new(connections));
            let mut conns = conns.into_iter();
            for slot in 0..slots {
                let cfg = ClosedConn {
                    slot,
                    global: slot * threads + ctx.worker,
                    curve: curve.clone(),
                    pipelining: (*pipelining).max(1) as usize,
                    think_time: *think_time,
                };
                let conn = conns.next().flatten();
                ctx.spawn(closed::run_connection(ctx.clone(), cfg, conn));
            }
        }
        Schedule::Open { rate, .. } => {
            let cursor = RateCursor::new(rate, ctx.worker, threads);
            ctx.spawn(open::run_dispatcher(ctx.clone(), cursor, slots));
        }
    }
}

/// Opens `n` connections at once (each bounded by `timeout`); a slot whose connection
/// failed is None and connects again when its task runs. With a primer (the prepared
/// requests and the worker's number), each open connection then sends one request and
/// waits for its answer, within the same `timeout` from the start of the phase; a
/// connection whose answer did not come, or came with a close, is dropped (None) and
/// connects again at the start. Returns the slots and how many were primed. Cancel ends
/// the wait early.
async fn connect_all(
    addr: SocketAddr,
    n: usize,
    timeout: Duration,
    flags: &Flags<'_>,
    primer: Option<(Arc<Prepared>, usize)>,
) -> (Vec<Option<Conn>>, Option<u64>) {
    let deadline = Instant::now() + timeout;
    let mut set = tokio::task::JoinSet::new();
    for i in 0..n {
        let primer = primer.clone();
        set.spawn(async move {
            let c = conn::connect(addr, timeout).await.ok();
            let c = match (c, primer) {
                (Some(c), Some((prep, worker))) => prime(c, &prep, worker, i, deadline).await,
                (c, _) => c,
            };
            (i, c)
        });
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
                if flags.cancelled() {
                    set.abort_all();
                    break;
                }
            }
        }
    }
    let primed = primer.map(|_| out.iter().filter(|c| c.is_some()).count() as u64);
    (out, primed)
}

/// Sends slot `i`'s priming request (its operation chosen round-robin, first variant)
/// and waits for the answer until `deadline`. The answer is not validated or counted: the
/// load that follows checks every response of its own.
async fn prime(
    mut c: Conn,
    prep: &Prepared,
    worker: usize,
    i: usize,
    deadline: Instant,
) -> Option<Conn> {
    let op = i % prep.ops.len().max(1);
    let unique = format!("prime-{worker}-{i}");
    let mut req = Vec::new();
    // A numbered body is sent with the number it was written with: priming only opens
    // the connection, and its answer is not counted.
    prep.write_request(op, 0, unique.as_bytes(), 0, &mut req);
    let timer = tokio::time::sleep_until(deadline.into());
    tokio::pin!(timer);
    c.write_all(&req, deadline, timer.as_mut()).await.ok()?;
    let r = c.next_response(deadline, timer.as_mut()).await.ok()?;
    c.consume(&r);
    (!r.close).then_some(c)
}
