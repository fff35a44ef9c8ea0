//! `run`: checks the plan, splits the load over the harness's workers (connection slots,
//! request budget, the slots a ramp will use), coordinates a window extension while they
//! run, and sums up their merged records. Bounded in time: opening connections takes at
//! most one timeout (plus a slack), and a duration window ends at warm-up + duration (as
//! extended, within its bound), plus at most one timeout for requests still in flight, plus
//! a small grace.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::summary::{finish, RunFacts};
use super::window::{next_end, Window, DECIDE_AHEAD};
use super::worker::{run_worker, WorkerSetup};
use crate::error::EngineError;
use crate::harness::{share, Harness, Running, Seat};
use crate::live::LIVE_COUNTERS;
use crate::plan::{Control, Extend, LoadPlan, Schedule};
use crate::prepare::Prepared;
use crate::result::LoadResult;
use crate::schedule::Curve;

/// Slack over the connect timeout before the start goes ahead without a missing worker.
const GATE_SLACK: Duration = Duration::from_secs(5);

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
    let harness = Harness {
        name: "gqlbench-worker",
        threads,
        cpus: plan.cpus.as_deref(),
        cancel: &control.cancel,
        board: control.live.board(),
        precise_timers: true,
        gate_limit: plan.timeout + GATE_SLACK,
        start_at: plan.start_at.map(|at| crate::harness::StartAt {
            at,
            every: plan.start_every,
        }),
    };
    let worker = |seat: Seat<'_, LIVE_COUNTERS>| {
        let w = seat.worker;
        let setup = WorkerSetup {
            prep: prep.clone(),
            addr: plan.endpoint.addr,
            timeout: plan.timeout,
            warmup: plan.warmup,
            budget: plan.stop.max_requests.map(|n| share(n, threads, w)),
            slots: slots[w],
            expected: expected[w].clone(),
            keep_examples: plan.keep_examples,
            window: window.clone(),
            prime: plan.prime,
            slicing: plan.slicing,
        };
        run_worker(seat, setup, &plan.schedule, threads)
    };
    let (joined, run_start) = harness.run(worker, |running| {
        if let (Some(x), Some(d)) = (extend, plan.stop.duration) {
            let meant = expected.iter().flatten().filter(|e| **e).count() as u64;
            extend_window(&window, running, plan.warmup, d, x, meant, control);
        }
        running.start
    })?;
    let window_start = run_start + plan.warmup;
    let rec = joined.rec;
    let interrupted_at = joined.interrupted_at;
    let all_budgets_spent = plan.stop.max_requests.is_some() && rec.budget_exhausted;
    // The window as it ended: an extension lengthened it.
    let duration = window.end().map(|e| e.saturating_sub(plan.warmup));
    let elapsed = if let Some(t) = interrupted_at {
        t.saturating_duration_since(window_start)
            .min(duration.unwrap_or(Duration::MAX))
    } else if all_budgets_spent {
        let end = rec.last_done.unwrap_or(window_start);
        let d = end.saturating_duration_since(window_start);
        duration.map_or(d, |max| d.min(max))
    } else {
        duration.unwrap_or_else(|| Instant::now().saturating_duration_since(window_start))
    };
    let extended_by = match (duration, plan.stop.duration) {
        (Some(now), Some(planned)) if now > planned => Some(now - planned),
        _ => None,
    };
    let facts = RunFacts {
        model,
        op_names: prep.op_names(),
        elapsed,
        threads,
        pinned_cpus: joined.pinned_cpus,
        interrupted: interrupted_at.is_some(),
        keep_examples: plan.keep_examples,
        planned: if model == "closed" {
            slots_total as u64
        } else {
            open_max as u64
        },
        count_unused: plan.stop.duration.is_some() && !all_budgets_spent,
        pipelining: match &plan.schedule {
            Schedule::Closed { pipelining, .. } => u64::from(*pipelining),
            Schedule::Open { .. } => 1,
        },
        timed: plan.stop.duration.is_some() && !all_budgets_spent,
    };
    let mut r = finish(rec, facts);
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
    running: &Running<'_>,
    warmup: Duration,
    duration: Duration,
    x: Extend,
    connections: u64,
    control: &Control,
) {
    // Steps of half the planned window (at least a second): few decisions, little overshoot.
    let step = (duration / 2).max(Duration::from_secs(1));
    let max_end = warmup + x.max_duration;
    loop {
        let Some(end) = window.end() else { return };
        let decide_at = running.start + end.saturating_sub(DECIDE_AHEAD);
        while Instant::now() < decide_at {
            if control.cancel.load(Ordering::Relaxed) || running.all_ended() {
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
