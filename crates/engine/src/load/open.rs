//! Open model driver (coordinated-omission free): requests have intended send times fixed
//! by the rate curve, whatever the server does. A dispatcher task sleeps (precise timer)
//! until the next intended time, then hands the request to an idle connection of the
//! worker's pool, opening a new one while under the worker's share of max_connections.
//! When none is idle the request waits: it is sent late, and its latency still counts
//! from its intended time. Sends still owed at the end of the window are `unsent`. A sliced
//! run skips the intended times outside its own slices.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::answer::Arrival;
use super::ctx::{seed, Ctx, Pending};
use super::slices::owed_counted;
use crate::conn::{self, Conn, ReadError};
use crate::prepare::Rng;
use crate::schedule::RateCursor;
use crate::timer::PreciseTimer;
use crate::validate::FailureKind;

/// A request handed to a connection.
#[derive(Debug, Clone, Copy)]
struct Job {
    intended: Instant,
    op: usize,
    variant: usize,
    in_window: bool,
}

#[derive(Debug, Default)]
struct Slot {
    job: Cell<Option<Job>>,
    wake: Notify,
}

/// The worker's connections and which of them are idle.
#[derive(Debug)]
struct Pool {
    slots: RefCell<Vec<Rc<Slot>>>,
    idle: RefCell<Vec<usize>>,
    freed: Notify,
    max: usize,
}

/// Runs the dispatcher of one worker; it spawns connection tasks on demand.
pub async fn run_dispatcher(ctx: Rc<Ctx>, mut cursor: RateCursor, max_connections: usize) {
    let pool = Rc::new(Pool {
        slots: RefCell::new(Vec::new()),
        idle: RefCell::new(Vec::new()),
        freed: Notify::new(),
        max: max_connections.max(1),
    });
    // Without a timerfd, fall back to tokio's (1 ms) timer rather than fail the run.
    let timer = PreciseTimer::new().ok();
    let mut rng = Rng::new(seed(ctx.worker, usize::MAX));
    let rel = |t: Instant| t.saturating_duration_since(ctx.run_start).as_secs_f64();
    // A request-count stop is not a shortfall: nothing is owed after the budget is spent.
    let mut budget_spent = false;
    loop {
        if ctx.stop.get() {
            break;
        }
        let Some(t_rel) = cursor.peek() else { break };
        let due = ctx.run_start + Duration::from_secs_f64(t_rel);
        if let Some(s) = ctx.slicing.filter(|_| !ctx.own_at(due)) {
            // Sliced: a send due in another arm's slice is skipped, neither sent nor owed,
            // so the rate holds during own slices. Jump to the next own slice at once.
            let next = rel(s.next_own_start(due));
            cursor.skip(cursor.remaining_before(next).max(1));
            continue;
        }
        if ctx.window_end().is_some_and(|e| due >= e) {
            break;
        }
        if due >= ctx.window_start && ctx.budget_exhausted() {
            budget_spent = true;
            break;
        }
        let now = Instant::now();
        if ctx.window_end().is_some_and(|e| now >= e) {
            // The window is over: whatever is still owed stays unsent.
            break;
        }
        if due > now {
            match &timer {
                Some(t) => {
                    if t.sleep_until(due).await.is_err() {
                        tokio::time::sleep_until(due.into()).await;
                    }
                }
                None => tokio::time::sleep_until(due.into()).await,
            }
            continue;
        }
        let idle = pool.idle.borrow_mut().pop();
        let slot_index = match idle {
            Some(i) => i,
            None if pool.slots.borrow().len() < pool.max => {
                let i = pool.slots.borrow().len();
                let slot = Rc::new(Slot::default());
                pool.slots.borrow_mut().push(slot.clone());
                ctx.spawn(run_connection(ctx.clone(), pool.clone(), i, slot));
                i
            }
            None => {
                // Every connection is busy: this request is late. Wait for one to free
                // up, but not past the end of the window.
                let freed = pool.freed.notified();
                match ctx.window_end() {
                    Some(end) => {
                        tokio::select! {
                            _ = freed => {}
                            _ = tokio::time::sleep_until(end.into()) => {}
                        }
                    }
                    None => freed.await,
                }
                continue;
            }
        };
        let Some(in_window) = ctx.admit(due) else {
            pool.idle.borrow_mut().push(slot_index);
            budget_spent = ctx.budget_exhausted();
            break;
        };
        let (op, variant) = ctx.pick(&mut rng);
        let slot = pool.slots.borrow()[slot_index].clone();
        slot.job.set(Some(Job {
            intended: due,
            op,
            variant,
            in_window,
        }));
        slot.wake.notify_one();
        cursor.advance();
    }
    if !ctx.stop.get() && !budget_spent {
        if let Some(end) = ctx.window_end() {
            // Owed sends of the window: due before its end, not before its start (and,
            // sliced, in the counted part of an own slice).
            let owed = match &ctx.slicing {
                Some(s) => {
                    // From the next send owed: the slices before it owe nothing more.
                    let next = cursor
                        .peek()
                        .map(|t| ctx.run_start + Duration::from_secs_f64(t));
                    let from = next.map_or(end, |n| n.max(ctx.window_start));
                    owed_counted(s, &cursor, ctx.run_start, from, end)
                }
                None => cursor
                    .remaining_before(rel(end))
                    .saturating_sub(cursor.remaining_before(rel(ctx.window_start))),
            };
            ctx.rec.borrow_mut().unsent += owed;
        }
    }
    ctx.stop.set(true);
    for slot in pool.slots.borrow().iter() {
        slot.wake.notify_one();
    }
}

/// One pooled connection: waits for a job, sends it, records, goes back to idle.
async fn run_connection(ctx: Rc<Ctx>, pool: Rc<Pool>, index: usize, slot: Rc<Slot>) {
    let mut conn: Option<Conn> = None;
    let timer = tokio::time::sleep_until(conn::far_future());
    tokio::pin!(timer);
    let mut wbuf = Vec::new();
    loop {
        let job = loop {
            if let Some(j) = slot.job.take() {
                break j;
            }
            if ctx.stop.get() {
                return;
            }
            slot.wake.notified().await;
        };
        let mut p = Pending {
            op: job.op,
            variant: job.variant,
            intended: Some(job.intended),
            sent: Instant::now(),
            in_window: job.in_window,
            bytes_out: 0,
        };
        // A kept-alive connection may have been closed by the server while it sat idle in
        // the pool (Node's keep-alive timeout is 5 s): such a request never reached the
        // server, so it is sent once more on a fresh connection (its intended time kept)
        // instead of being counted as a failure of the target.
        let mut attempt = 0;
        let outcome = loop {
            attempt += 1;
            let fresh = conn.is_none();
            if fresh {
                match conn::connect(ctx.addr, ctx.timeout).await {
                    Ok(c) => conn = Some(c),
                    Err(e) => break Attempt::Connect(e),
                }
            }
            let Some(c) = conn.as_mut() else {
                continue;
            };
            wbuf.clear();
            ctx.write_request(p.op, p.variant, &mut wbuf);
            p.bytes_out = wbuf.len() as u64;
            p.sent = Instant::now();
            let deadline = p.sent + ctx.timeout;
            let r = match c.write_all(&wbuf, deadline, timer.as_mut()).await {
                Ok(()) => ctx.read_response(c, &p, deadline, timer.as_mut()).await,
                Err(e) => (Err(e), Arrival::default()),
            };
            let stale = r.0.as_ref().is_err_and(ReadError::never_answered);
            if stale && !fresh && attempt == 1 {
                conn = None;
                ctx.count_reconnect(p.in_window);
                continue;
            }
            break Attempt::Done(r);
        };
        let (outcome, arrival) = match outcome {
            Attempt::Done(r) => r,
            Attempt::Connect(e) => {
                ctx.fail(
                    index,
                    &p,
                    FailureKind::Connect,
                    &e.to_string(),
                    Instant::now(),
                );
                release(&pool, index);
                continue;
            }
        };
        let Some(c) = conn.as_mut() else { continue };
        let done = Instant::now();
        match outcome {
            Ok(r) => {
                ctx.complete(index, &p, c, &r, done, arrival);
                c.consume(&r);
                if r.close || c.buffered() > 0 {
                    // Closed by the server, or it sent more than one response to one
                    // request: the connection can no longer be trusted.
                    conn = None;
                    ctx.count_reconnect(true);
                }
            }
            Err(e) => {
                let (kind, detail) = e.failure(ctx.timeout);
                ctx.fail(index, &p, kind, &detail, done);
                conn = None;
                ctx.count_reconnect(true);
            }
        }
        release(&pool, index);
    }
}

/// How the sending of one request ended.
enum Attempt {
    /// No connection could be opened.
    Connect(std::io::Error),
    /// Sent on a connection: its response or why there is none, and what reading it
    /// found.
    Done((Result<crate::parse::Response, ReadError>, Arrival)),
}

fn release(pool: &Pool, index: usize) {
    pool.idle.borrow_mut().push(index);
    pool.freed.notify_one();
}
