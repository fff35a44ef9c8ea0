//! One subscription worker on the harness. Before the start line it creates its epoll set;
//! at the start a connector task opens its share of the connections at its share of the
//! rate (each connection a task of its transport), and one task drains the epoll set of
//! subscribed WebSocket connections. Its [`Driver`] learns the window once the coordinator
//! fixes it, expires connections that got no first message in time, samples the held
//! connections at the end of each second, and is done at the window's end.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ctx::{Ctx, Shared};
use super::live::LIVE_COUNTERS;
use super::plan::{SubscribePlan, SubscribeTransport};
use super::prepared::Prepared;
use super::record::{SubRecorder, Window};
use super::sse;
use super::ws::{self, Poller};
use crate::error::EngineError;
use crate::harness::{Driver, Outcome, Seat, Span};

/// A worker's state beside its context, as the ticker sees it.
#[derive(Debug)]
struct Worker {
    ctx: Rc<Ctx>,
    poller: Rc<Poller>,
    hold: Duration,
    /// Known once the coordinator fixed it.
    window: Cell<Option<Window>>,
    /// The next second of the window whose held connections are sampled at its end.
    next_second: Cell<u32>,
}

/// Runs one worker (its `slots` connections) to its end.
pub(super) fn run_worker(
    seat: Seat<'_, LIVE_COUNTERS>,
    plan: &SubscribePlan,
    prep: Arc<Prepared>,
    shared: Arc<Shared>,
    slots: usize,
) -> Result<Outcome<SubRecorder>, EngineError> {
    let (worker, threads, rate) = (seat.worker, plan.threads, plan.connect_rate);
    let rec = SubRecorder::new(worker, threads, slots, plan.keep_examples);
    seat.run(
        |_, _| Ok(Poller::new(slots)?),
        |poller, run_start| {
            let ctx = Rc::new(Ctx {
                prep,
                rec: RefCell::new(rec),
                shared,
            });
            let poller = Rc::new(poller);
            let connector = Connector {
                slots,
                worker,
                threads,
                rate,
                run_start,
            };
            tokio::task::spawn_local(connector.run(ctx.clone(), poller.clone()));
            let (c, p) = (ctx.clone(), poller.clone());
            tokio::task::spawn_local(async move {
                // Only an epoll failure (never expected) ends this early; the connections
                // it held then stop receiving, which shows as missing messages, not as a
                // hang.
                let _ = p.run(&c.prep, &c.rec).await;
            });
            Rc::new(Worker {
                ctx,
                poller,
                hold: plan.hold,
                window: Cell::new(None),
                next_second: Cell::new(1),
            })
        },
    )
}

/// Opens a worker's connections, interleaved with the other workers' so the total rate is
/// the plan's.
struct Connector {
    slots: usize,
    worker: usize,
    threads: usize,
    rate: f64,
    run_start: Instant,
}

impl Connector {
    async fn run(self, ctx: Rc<Ctx>, poller: Rc<Poller>) {
        for slot in 0..self.slots {
            let global = slot * self.threads + self.worker;
            let due = self.run_start + Duration::from_secs_f64(global as f64 / self.rate);
            if due > Instant::now() {
                tokio::time::sleep_until(due.into()).await;
            }
            ctx.rec.borrow_mut().attempted += 1;
            let (c, p) = (ctx.clone(), poller.clone());
            tokio::task::spawn_local(async move {
                let t0 = Instant::now();
                match c.prep.transport {
                    SubscribeTransport::WebSocket => ws::connection(&c, &p, slot, t0).await,
                    SubscribeTransport::Sse => sse::connection(&c, slot, t0).await,
                }
            });
        }
    }
}

impl Worker {
    fn sample_held(rec: &mut SubRecorder) {
        let held = rec.held.max(0) as u64;
        rec.held_series.push(held);
    }
}

impl Driver<LIVE_COUNTERS> for Worker {
    type Rec = SubRecorder;

    fn rec(&self) -> &RefCell<SubRecorder> {
        &self.ctx.rec
    }

    fn tick(&self, now: Instant) {
        self.poller.expire(&self.ctx.prep, &self.ctx.rec, now);
        if self.window.get().is_none() {
            if let Some(start) = self.ctx.shared.window_start() {
                let w = Window {
                    start,
                    end: start + self.hold,
                };
                self.window.set(Some(w));
                self.ctx.rec.borrow_mut().set_window(w);
            }
        }
        if let Some(w) = self.window.get() {
            let mut rec = self.ctx.rec.borrow_mut();
            let mut next = self.next_second.get();
            while w.start + Duration::from_secs(u64::from(next)) <= now.min(w.end) {
                Worker::sample_held(&mut rec);
                next += 1;
            }
            self.next_second.set(next);
        }
    }

    fn window(&self) -> Option<Span> {
        self.window.get().map(|w| Span {
            start: w.start,
            end: Some(w.end),
        })
    }

    fn done(&self, now: Instant) -> bool {
        self.window.get().is_some_and(|w| now >= w.end)
    }

    fn finish(&self, now: Instant) {
        let mut rec = self.ctx.rec.borrow_mut();
        if let Some(w) = self.window.get().filter(|w| now >= w.start) {
            // A partial last second (cancel) still gets its held sample.
            let secs = now.min(w.end).duration_since(w.start).as_secs_f64().ceil() as usize;
            while rec.held_series.len() < secs {
                Worker::sample_held(&mut rec);
            }
        }
        rec.held_at_end = Some(rec.held.max(0) as u64);
    }

    fn take_rec(&self) -> SubRecorder {
        self.ctx.rec.replace(SubRecorder::new(0, 1, 0, 0))
    }
}
