//! Closed model driver: each connection sends, waits for its answers, optionally thinks,
//! and repeats. With pipelining p, p requests go out back to back and the pipe is kept
//! full: the responses that arrive in one read are handled, then as many new requests are
//! written in one `write`. Without think time no timer is armed per request.
//! Stages ramp the number of *active* connections: slot g is active while g < value(t);
//! inactive connections stay open and idle. A sliced run's connections likewise stay open
//! and idle outside the run's own slices.

use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::answer::Arrival;
use super::ctx::{seed, Ctx, Pending};
use super::drain::AnswerTime;
use crate::conn::{self, Conn};
use crate::prepare::Rng;
use crate::schedule::Curve;
use crate::validate::FailureKind;

/// Pause after a failed connection attempt, so a refused port is not hammered in a loop.
const CONNECT_BACKOFF: Duration = Duration::from_millis(10);
/// Longest idle nap of an inactive connection before it re-checks stop conditions.
const IDLE_NAP: Duration = Duration::from_millis(50);

/// What a closed-model connection needs.
#[derive(Debug, Clone)]
pub struct ClosedConn {
    /// Worker-local slot (recorder index).
    pub slot: usize,
    /// Global connection number (activity threshold for ramps).
    pub global: usize,
    pub curve: Rc<Curve>,
    pub pipelining: usize,
    pub think_time: Duration,
}

/// Runs one connection of the closed model until the worker stops sending. `conn` is the
/// connection opened before the start, if that worked.
pub async fn run_connection(ctx: Rc<Ctx>, cfg: ClosedConn, conn: Option<Conn>) {
    let mut rng = Rng::new(seed(ctx.worker, cfg.slot));
    let mut conn = conn;
    let timer = tokio::time::sleep_until(conn::far_future());
    tokio::pin!(timer);
    let mut inflight: VecDeque<Pending> = VecDeque::with_capacity(cfg.pipelining);
    let mut wbuf: Vec<u8> = Vec::new();
    let mut answer = AnswerTime::default();
    // The end of the own slices this connection last idled out (told once per run of them).
    let mut drained: Option<Instant> = None;
    // All workers start the load together, at the run's start.
    tokio::time::sleep_until(ctx.run_start.into()).await;
    let constant = cfg.curve.max_value() == cfg.curve.value(0.0)
        && cfg.curve.value(1e12) == cfg.curve.value(0.0);
    loop {
        let now = Instant::now();
        let t_rel = now.saturating_duration_since(ctx.run_start).as_secs_f64();
        let active = constant || cfg.curve.value(t_rel) > cfg.global as f64;
        if inflight.is_empty() {
            if ctx.finished(now) {
                break;
            }
            // Sliced: outside its own slices the connection idles (open, so no reconnect
            // at the switch) until the next own slice; so it does in the last answer's
            // time of its own slices, so its answers are in before the next arm's slice.
            let own = ctx.may_start(now, answer.get());
            if active
                && !own
                && ctx.own_at(now)
                && drained != ctx.slicing.and_then(|s| s.own_run_end(now))
            {
                drained = ctx.draining(now);
            }
            if !active || !own {
                let until = idle_until(&ctx, &cfg, (now, t_rel), active, own);
                tokio::time::sleep_until(until.into()).await;
                continue;
            }
        }
        // A connection kept from before (opened ahead of the load, or answered before) may
        // have been closed by the server while it sat idle: see `stale` below.
        let reused = conn.is_some();
        let c = match &mut conn {
            Some(c) => c,
            None => match conn::connect(ctx.addr, ctx.timeout).await {
                Ok(c) => conn.insert(c),
                Err(e) => {
                    let done = Instant::now();
                    if let Some(in_window) = ctx.admit(now) {
                        let (op, variant) = ctx.pick(&mut rng);
                        let p = Pending {
                            op,
                            variant,
                            intended: None,
                            sent: now,
                            in_window,
                            bytes_out: 0,
                        };
                        ctx.fail(cfg.slot, &p, FailureKind::Connect, &e.to_string(), done);
                    }
                    tokio::time::sleep(CONNECT_BACKOFF).await;
                    continue;
                }
            },
        };
        // Fill the pipe; a sliced run starts new requests only in its own slices, and not
        // in their last answer's time.
        let send_at = Instant::now();
        let sending = active && ctx.may_start(send_at, answer.get());
        if sending {
            fill(&ctx, &cfg, &mut rng, &mut wbuf, &mut inflight, send_at);
        } else {
            wbuf.clear();
        }
        let Some(oldest) = inflight.front().copied() else {
            // Nothing admitted: the window or budget is over.
            continue;
        };
        let deadline = oldest.sent + ctx.timeout;
        let (outcome, arrival) = match c.write_all(&wbuf, deadline, timer.as_mut()).await {
            Ok(()) => {
                ctx.read_response(c, &oldest, deadline, timer.as_mut())
                    .await
            }
            Err(e) => (Err(e), Arrival::default()),
        };
        match outcome {
            Ok(first) => {
                let done = Instant::now();
                answer.add(done.saturating_duration_since(oldest.sent));
                if take_answers(&ctx, &cfg, c, &mut inflight, (first, arrival), done) {
                    // The server announced the close: unanswered requests are re-sent.
                    for p in inflight.drain(..) {
                        ctx.refund(&p);
                    }
                    conn = None;
                    ctx.count_reconnect(!ctx.finished(done));
                }
            }
            Err(e) if reused && e.never_answered() => {
                // A kept-alive connection the server closed while it was idle (a ramp's
                // later connections wait seconds for their stage; Node closes idle ones
                // after 5 s): ordinary HTTP, not a failure of the target. The requests
                // never got a byte of answer, so they are sent again on a fresh connection,
                // whose own failure would count.
                for p in inflight.drain(..) {
                    ctx.refund(&p);
                }
                conn = None;
                ctx.count_reconnect(!ctx.finished(Instant::now()));
            }
            Err(e) => {
                let done = Instant::now();
                let (kind, detail) = e.failure(ctx.timeout);
                for p in inflight.drain(..) {
                    ctx.fail(cfg.slot, &p, kind, &detail, done);
                }
                conn = None;
                ctx.count_reconnect(!ctx.finished(done));
            }
        }
        if !cfg.think_time.is_zero() && inflight.is_empty() && !ctx.finished(Instant::now()) {
            tokio::time::sleep(cfg.think_time).await;
        }
    }
}

/// Writes new requests into `wbuf` until the pipe holds `pipelining` or the window admits
/// no more, each recorded as pending from `send_at`.
fn fill(
    ctx: &Ctx,
    cfg: &ClosedConn,
    rng: &mut Rng,
    wbuf: &mut Vec<u8>,
    inflight: &mut VecDeque<Pending>,
    send_at: Instant,
) {
    wbuf.clear();
    while inflight.len() < cfg.pipelining {
        let Some(in_window) = ctx.admit(send_at) else {
            break;
        };
        let (op, variant) = ctx.pick(rng);
        let before = wbuf.len();
        ctx.write_request(op, variant, wbuf);
        inflight.push_back(Pending {
            op,
            variant,
            intended: None,
            sent: send_at,
            in_window,
            bytes_out: (wbuf.len() - before) as u64,
        });
    }
}

/// Completes the pending requests whose answers are in (the first read, then pipelined
/// answers already buffered whole); true when the server announced it closes the
/// connection.
fn take_answers(
    ctx: &Ctx,
    cfg: &ClosedConn,
    c: &mut Conn,
    inflight: &mut VecDeque<Pending>,
    (first, arrival): (crate::parse::Response, Arrival),
    done: Instant,
) -> bool {
    let mut next = Some(first);
    let mut arrival = Some(arrival);
    while let Some(r) = next {
        let Some(p) = inflight.pop_front() else { break };
        // Pipelined answers after the first were read whole already.
        let a = arrival.take().unwrap_or_default();
        ctx.complete(cfg.slot, &p, c, &r, done, a);
        c.consume(&r);
        if r.close {
            return true;
        }
        next = if inflight.is_empty() {
            None
        } else {
            c.parse_buffered().ok().flatten()
        };
    }
    false
}

/// When an idle connection looks again: its ramp stage's start (inactive), its next own
/// slice (sliced), or after a nap to re-check the stop conditions, whichever is first.
fn idle_until(
    ctx: &Ctx,
    cfg: &ClosedConn,
    (now, t_rel): (Instant, f64),
    active: bool,
    own: bool,
) -> Instant {
    let ramp = (!active)
        .then(|| cfg.curve.time_when_exceeds(cfg.global as f64, t_rel))
        .flatten()
        .map(|t| ctx.run_start + Duration::from_secs_f64(t));
    let slice = ctx.slicing.filter(|_| !own).map(|s| s.next_own_start(now));
    let nap = now + IDLE_NAP;
    [ramp, slice].into_iter().flatten().fold(nap, Instant::min)
}
