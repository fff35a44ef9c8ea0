//! `run`: checks the plan, splits the load over worker threads, opens the closed model's
//! connections, starts every worker at one instant, joins them and merges their records.
//! Bounded in time: opening connections takes at most one timeout (plus a slack), and a
//! duration window ends at warm-up + duration, plus at most one timeout for requests still
//! in flight, plus a small grace.

use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::closed::{self, ClosedConn};
use crate::error::EngineError;
use crate::gate::StartGate;
use crate::live::Phase;
use crate::open;
use crate::plan::{Control, LoadPlan, Schedule};
use crate::prepare::Prepared;
use crate::record::{finish, RunFacts};
use crate::result::LoadResult;
use crate::schedule::{Curve, RateCursor};
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
    let mut handles = Vec::with_capacity(threads);
    for w in 0..threads {
        let slots = match model {
            "closed" => share(slots_total as u64, threads, w) as usize,
            _ => share(open_max as u64, threads, w) as usize,
        };
        let expected = match &plan.schedule {
            Schedule::Closed { connections, .. } => {
                expected_slots(&Curve::new(connections), slots, w, threads, plan)
            }
            Schedule::Open { .. } => Vec::new(),
        };
        let setup = WorkerSetup {
            prep: prep.clone(),
            addr: plan.endpoint.addr,
            timeout: plan.timeout,
            worker: w,
            warmup: plan.warmup,
            duration: plan.stop.duration,
            budget: plan.stop.max_requests.map(|n| share(n, threads, w)),
            slots,
            preconnect: model == "closed",
            expected,
            open: model == "open",
            keep_examples: plan.keep_examples,
            cpus: plan.cpus.as_ref().map(|c| vec![c[w % c.len()]]),
            gate: gate.clone(),
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
    let elapsed = if let Some(t) = interrupted_at {
        t.saturating_duration_since(window_start)
    } else if all_budgets_spent {
        let end = last_done.unwrap_or(window_start);
        let d = end.saturating_duration_since(window_start);
        plan.stop.duration.map_or(d, |max| d.min(max))
    } else {
        plan.stop
            .duration
            .unwrap_or_else(|| Instant::now().saturating_duration_since(window_start))
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
    Ok(finish(outputs.into_iter().map(|o| o.rec).collect(), facts))
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
