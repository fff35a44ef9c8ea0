//! `run`: checks the plan, splits the load over worker threads, opens the closed model's
//! connections, starts every worker at one instant, joins them and merges their records.
//! Bounded in time: opening connections takes at most one timeout (plus a slack), and a
//! duration window ends at warm-up + duration, plus at most one timeout for requests still
//! in flight, plus a small grace.

use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::closed::{self, ClosedConn};
use crate::error::EngineError;
use crate::gate::StartGate;
use crate::live::Phase;
use crate::open;
use crate::plan::{Control, Extend, LoadPlan, Schedule};
use crate::prepare::Prepared;
use crate::record::{finish, RunFacts};
use crate::result::LoadResult;
use crate::schedule::{Curve, RateCursor};
use crate::window::{next_end, Window, DECIDE_AHEAD};
use crate::worker::{run_worker, WorkerOutput, WorkerSetup};

/// Time between the last worker reaching the start line and the start of the load, so
/// every worker is waiting when it comes.
const LEAD: Duration = Duration::from_millis(20);
/// Slack over the connect timeout before the start goes ahead without a missing worker.
const GATE_SLACK: Duration = Duration::from_secs(5);

/// Share `i` of `total` split over `n` (the first `total % n` get one more).
fn share(total: u64, n: usize, i: usize) -> u64 {
    total / n as u64 + u64::from((i as u64) < total % n as u64)
}

/// Runs the plan to its stop (or until `control.cancel`), blocking the caller.
pub fn run(plan: &LoadPlan, control: &Control) -> Result<LoadResult, EngineError> {
    plan.preflight()?;
    let prep = Prepared::new(plan);
    let threads = plan.threads;
    control.live.reset();
    let (model, slots_total, open_max) = match &plan.schedule {
        Schedule::Closed { connections, .. } => (
            "closed",
            Curve::new(connections).max_value().ceil() as usize,
            0,
        ),
        Schedule::Open {
            max_connections, ..
        } => ("open", 0, *max_connections as usize),
    };
    let gate = Arc::new(StartGate::new(threads));
    let extend = plan.stop.extend.filter(|_| model == "closed");
    let window = Arc::new(Window::new(
        plan.stop.duration.map(|d| plan.warmup + d),
        extend.map_or(0, |x| x.min_per_connection),
    ));
    control
        .live
        .set_window_ms(plan.stop.duration.map_or(0, |d| d.as_millis() as u64));
    let slots: Vec<usize> = (0..threads)
        .map(|w| match model {
            "closed" => share(slots_total as u64, threads, w) as usize,
            _ => share(open_max as u64, threads, w) as usize,
        })
        .collect();
    let expected: Vec<Vec<bool>> = (0..threads)
        .map(|w| match &plan.schedule {
            Schedule::Closed { connections, .. } => {
                expected_slots(&Curve::new(connections), slots[w], w, threads, plan)
            }
            Schedule::Open { .. } => Vec::new(),
        })
        .collect();
    let mut handles = Vec::with_capacity(threads);
    for w in 0..threads {
        let setup = WorkerSetup {
            prep: prep.clone(),
            addr: plan.endpoint.addr,
            timeout: plan.timeout,
            worker: w,
            warmup: plan.warmup,
            budget: plan.stop.max_requests.map(|n| share(n, threads, w)),
            slots: slots[w],
            preconnect: model == "closed",
            expected: expected[w].clone(),
            open: model == "open",
            keep_examples: plan.keep_examples,
            cpus: plan.cpus.as_ref().map(|c| vec![c[w % c.len()]]),
            gate: gate.clone(),
            window: window.clone(),
            cancel: control.cancel.clone(),
            live: control.live.clone(),
        };
        let schedule = plan.schedule.clone();
        let handle = std::thread::Builder::new()
            .name(format!("gqlbench-worker-{w}"))
            .spawn(move || worker_thread(setup, schedule, threads))?;
        handles.push(handle);
    }
    let run_start = gate.open_when_ready(plan.timeout + GATE_SLACK, LEAD, &control.cancel);
    let window_start = run_start + plan.warmup;
    if let (Some(x), Some(d)) = (extend, plan.stop.duration) {
        let meant = expected.iter().flatten().filter(|e| **e).count() as u64;
        extend_window(
            &window,
            run_start,
            plan.warmup,
            d,
            x,
            meant,
            control,
            &handles,
        );
    }
    let mut outputs: Vec<WorkerOutput> = Vec::with_capacity(threads);
    let mut first_err = None;
    for (w, h) in handles.into_iter().enumerate() {
        match h.join() {
            Ok(Ok(o)) => outputs.push(o),
            Ok(Err(e)) => {
                first_err.get_or_insert(e);
            }
            Err(_) => {
                first_err.get_or_insert(EngineError::WorkerPanicked(w));
            }
        }
    }
    control.live.set_phase(Phase::Done);
    if let Some(e) = first_err {
        return Err(e);
    }
    let interrupted_at = outputs.iter().filter_map(|o| o.interrupted_at).min();
    let all_budgets_spent =
        plan.stop.max_requests.is_some() && outputs.iter().all(|o| o.budget_exhausted);
    let last_done = outputs.iter().filter_map(|o| o.rec.last_done).max();
    // The window as it ended: an extension lengthened it.
    let duration = window.end().map(|e| e.saturating_sub(plan.warmup));
    let elapsed = if let Some(t) = interrupted_at {
        t.saturating_duration_since(window_start)
            .min(duration.unwrap_or(Duration::MAX))
    } else if all_budgets_spent {
        let end = last_done.unwrap_or(window_start);
        let d = end.saturating_duration_since(window_start);
        duration.map_or(d, |max| d.min(max))
    } else {
        duration.unwrap_or_else(|| Instant::now().saturating_duration_since(window_start))
    };
    let extended_by = match (duration, plan.stop.duration) {
        (Some(now), Some(planned)) if now > planned => Some(now - planned),
        _ => None,
    };
    let pinned_cpus = if plan.cpus.is_some() {
        let mut all: Vec<usize> = outputs
            .iter()
            .filter_map(|o| o.pinned.clone())
            .flatten()
            .collect();
        all.sort_unstable();
        all.dedup();
        Some(all)
    } else {
        None
    };
    let facts = RunFacts {
        model,
        op_names: prep.op_names(),
        elapsed,
        threads,
        pinned_cpus,
        interrupted: interrupted_at.is_some(),
        keep_examples: plan.keep_examples,
        planned: if model == "closed" {
            slots_total as u64
        } else {
            open_max as u64
        },
        count_unused: plan.stop.duration.is_some() && !all_budgets_spent,
    };
    let mut r = finish(outputs.into_iter().map(|o| o.rec).collect(), facts);
    r.window_extended_s = extended_by.map(|d| d.as_secs_f64());
    Ok(r)
}

/// The coordinator of a window extension, run by the thread that started the workers:
/// shortly before each end it either lets the window close (every connection met its
/// minimum, or the bound is reached) or pushes the end back by a step. Returns once the
/// window is closed for good, the run is cancelled, or every worker has ended.
#[allow(clippy::too_many_arguments)]
fn extend_window(
    window: &Window,
    run_start: Instant,
    warmup: Duration,
    duration: Duration,
    x: Extend,
    connections: u64,
    control: &Control,
    workers: &[std::thread::JoinHandle<Result<WorkerOutput, EngineError>>],
) {
    // Steps of half the planned window (at least a second): few decisions, little overshoot.
    let step = (duration / 2).max(Duration::from_secs(1));
    let max_end = warmup + x.max_duration;
    loop {
        let Some(end) = window.end() else { return };
        let decide_at = run_start + end.saturating_sub(DECIDE_AHEAD);
        while Instant::now() < decide_at {
            if control.cancel.load(Ordering::Relaxed) || workers.iter().all(|h| h.is_finished()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10).min(decide_at - Instant::now()));
        }
        match next_end(end, max_end, step, window.satisfied(), connections) {
            Some(new_end) => {
                window.set_end(new_end);
                control
                    .live
                    .set_window_ms(new_end.saturating_sub(warmup).as_millis() as u64);
            }
            None => return,
        }
    }
}

/// Which of worker `w`'s slots are active at some time of the measured window: slot s is
/// global connection `s * threads + w`, active while the curve is above that number.
fn expected_slots(
    curve: &Curve,
    slots: usize,
    w: usize,
    threads: usize,
    plan: &LoadPlan,
) -> Vec<bool> {
    let ws = plan.warmup.as_secs_f64();
    let we = plan
        .stop
        .duration
        .map_or(f64::INFINITY, |d| ws + d.as_secs_f64());
    (0..slots)
        .map(|s| {
            let g = (s * threads + w) as f64;
            curve.value(ws) > g || curve.time_when_exceeds(g, ws).is_some_and(|t| t < we)
        })
        .collect()
}

fn worker_thread(
    setup: WorkerSetup,
    schedule: Schedule,
    threads: usize,
) -> Result<WorkerOutput, EngineError> {
    let worker = setup.worker;
    let slots = setup.slots;
    run_worker(setup, move |ctx, conns| match schedule {
        Schedule::Closed {
            connections,
            pipelining,
            think_time,
        } => {
            let curve = Rc::new(Curve::new(&connections));
            let mut conns = conns.into_iter();
            for slot in 0..slots {
                let cfg = ClosedConn {
                    slot,
                    global: slot * threads + worker,
                    curve: curve.clone(),
                    pipelining: pipelining.max(1) as usize,
                    think_time,
                };
                let conn = conns.next().flatten();
                ctx.spawn(closed::run_connection(ctx.clone(), cfg, conn));
            }
        }
        Schedule::Open { rate, .. } => {
            let cursor = RateCursor::new(&rate, worker, threads);
            ctx.spawn(open::run_dispatcher(ctx.clone(), cursor, slots));
        }
    })
}

#[allow(dead_code)]
fn _assert_send() {
    fn is_send<T: Send>() {}
    is_send::<Arc<Prepared>>();
}
