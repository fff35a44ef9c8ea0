//! `run`: validates the plan, splits the load over worker threads, joins them and merges
//! their records. Bounded in time: a duration window ends at warm-up + duration, plus at
//! most one timeout for requests still in flight, plus a small grace.

use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::closed::{self, ClosedConn};
use crate::error::EngineError;
use crate::live::Phase;
use crate::open;
use crate::plan::{Control, LoadPlan, Schedule};
use crate::prepare::Prepared;
use crate::record::{finish, RunFacts};
use crate::result::LoadResult;
use crate::schedule::{Curve, RateCursor};
use crate::worker::{run_worker, WorkerOutput, WorkerSetup};

/// Slack after the last timeout before workers give up on stragglers.
const GRACE: Duration = Duration::from_millis(200);
/// Time allowed for worker threads to start before load begins (so all start together).
const STARTUP: Duration = Duration::from_millis(20);

/// Share `i` of `total` split over `n` (the first `total % n` get one more).
fn share(total: u64, n: usize, i: usize) -> u64 {
    total / n as u64 + u64::from((i as u64) < total % n as u64)
}

/// Runs the plan to its stop (or until `control.cancel`), blocking the caller.
pub fn run(plan: &LoadPlan, control: &Control) -> Result<LoadResult, EngineError> {
    plan.validate()?;
    let prep = Prepared::new(plan);
    let open_files = crate::limits::raise_open_files_limit();
    let needed = match &plan.schedule {
        Schedule::Closed { connections, .. } => Curve::new(connections).max_value().ceil() as u64,
        Schedule::Open {
            max_connections, ..
        } => *max_connections as u64,
    };
    if open_files > 0 && needed + 64 > open_files {
        return Err(EngineError::InvalidPlan(format!(
            "{needed} connections need more open files than the limit of {open_files} (raise `ulimit -n`)"
        )));
    }
    let threads = plan.threads;
    control.live.reset();
    let run_start = Instant::now() + STARTUP;
    let window_start = run_start + plan.warmup;
    let window_end = plan.stop.duration.map(|d| window_start + d);
    let hard_end = window_end.map(|e| e + plan.timeout + GRACE);
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
    if model == "closed" && slots_total == 0 {
        return Err(EngineError::InvalidPlan("zero connections".into()));
    }
    let mut handles = Vec::with_capacity(threads);
    for w in 0..threads {
        let slots = match model {
            "closed" => share(slots_total as u64, threads, w) as usize,
            _ => share(open_max as u64, threads, w) as usize,
        };
        let setup = WorkerSetup {
            prep: prep.clone(),
            addr: plan.endpoint.addr,
            timeout: plan.timeout,
            worker: w,
            run_start,
            window_start,
            window_end,
            hard_end,
            budget: plan.stop.max_requests.map(|n| share(n, threads, w)),
            slots,
            open: model == "open",
            keep_examples: plan.keep_examples,
            cpus: plan.cpus.as_ref().map(|c| vec![c[w % c.len()]]),
            cancel: control.cancel.clone(),
            live: control.live.clone(),
        };
        let schedule = plan.schedule.clone();
        let handle = std::thread::Builder::new()
            .name(format!("gqlbench-worker-{w}"))
            .spawn(move || worker_thread(setup, schedule, threads))?;
        handles.push(handle);
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
    };
    Ok(finish(outputs.into_iter().map(|o| o.rec).collect(), facts))
}

fn worker_thread(
    setup: WorkerSetup,
    schedule: Schedule,
    threads: usize,
) -> Result<WorkerOutput, EngineError> {
    let worker = setup.worker;
    let slots = setup.slots;
    run_worker(setup, move |ctx| match schedule {
        Schedule::Closed {
            connections,
            pipelining,
            think_time,
        } => {
            let curve = Rc::new(Curve::new(&connections));
            for slot in 0..slots {
                let cfg = ClosedConn {
                    slot,
                    global: slot * threads + worker,
                    curve: curve.clone(),
                    pipelining: pipelining.max(1) as usize,
                    think_time,
                };
                ctx.spawn(closed::run_connection(ctx.clone(), cfg));
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
