//! `run_subscriptions`: validates the plan, starts the workers on the harness, runs the
//! connect phase on the calling thread — it ends when every connection has subscribed or
//! failed, or at its time limit — then fixes the measured window for every worker, and sums
//! up the workers' merged records.
//!
//! Timeline of a run: the start line (every worker's epoll set ready), the connect phase
//! (connections opened at `connect_rate`), the warm-up (messages counted apart), then the
//! measured window of `hold`. At the window's end each worker's runtime is dropped, closing
//! every socket.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ctx::Shared;
use super::live::LIVE_COUNTERS;
use super::plan::{SubscribeControl, SubscribePlan};
use super::prepared::Prepared;
use super::result::SubscribeResult;
use super::summary::{finish, SubscribeFacts};
use super::worker::run_worker;
use crate::error::EngineError;
use crate::harness::live::RunStage;
use crate::harness::{share, Harness, Running, Seat};

/// The window starts at least this long after the coordinator fixes it, so every worker
/// (ticking every 10 ms) knows it before it begins.
const LEAD: Duration = Duration::from_millis(30);
/// Period of the coordinator's checks during the connect phase.
const COORDINATE: Duration = Duration::from_millis(5);
/// Sockets a process needs besides the connections (stdio, epoll, timers, ...).
const SPARE_FILES: u64 = 64;
/// How long the start waits for a worker setting up its epoll set (it takes microseconds).
const GATE_LIMIT: Duration = Duration::from_secs(5);

/// How the connect phase ended.
#[derive(Debug, Clone, Copy)]
struct ConnectPhase {
    start: Instant,
    end: Instant,
    timed_out: bool,
    window_start: Instant,
}

/// Runs the plan to the end of its window (or until `control.cancel`), blocking the caller.
pub fn run_subscriptions(
    plan: &SubscribePlan,
    control: &SubscribeControl,
) -> Result<SubscribeResult, EngineError> {
    plan.validate()?;
    let prep = Arc::new(Prepared::new(plan)?);
    let open_files = crate::limits::raise_open_files_limit();
    let needed = u64::from(plan.connections);
    if open_files > 0 && needed + SPARE_FILES > open_files {
        return Err(EngineError::InvalidPlan(format!(
            "{needed} connections need more open files than the limit of {open_files} (raise `ulimit -n`)"
        )));
    }
    let board = control.live.board();
    board.reset();
    board.enter(RunStage::Connecting);
    let shared = Arc::new(Shared::new());
    let threads = plan.threads;
    let harness = Harness {
        name: "gqlbench-sub",
        threads,
        cpus: plan.cpus.as_deref(),
        cancel: &control.cancel,
        board,
        precise_timers: false,
        gate_limit: GATE_LIMIT,
        start_at: None,
    };
    let worker = |seat: Seat<'_, LIVE_COUNTERS>| {
        let slots = share(needed, threads, seat.worker) as usize;
        run_worker(seat, plan, prep.clone(), shared.clone(), slots)
    };
    let (joined, phase) = harness.run(worker, |running| {
        connect_phase(running, plan, &shared, control)
    })?;
    let elapsed = match joined.interrupted_at {
        Some(t) => t
            .saturating_duration_since(phase.window_start)
            .min(plan.hold),
        None => plan.hold,
    };
    let facts = SubscribeFacts {
        transport: plan.transport.as_str(),
        elapsed,
        window_start: Some(phase.window_start),
        window_end: Some(phase.window_start + elapsed),
        connect_phase: phase.end.saturating_duration_since(phase.start),
        connect_phase_timed_out: phase.timed_out,
        threads,
        pinned_cpus: joined.pinned_cpus,
        interrupted: joined.interrupted_at.is_some(),
        keep_examples: plan.keep_examples,
    };
    Ok(finish(joined.rec, facts))
}

/// Waits until every connection settled, a cancel, a worker ending early (it could not
/// start), or the time limit; then fixes the window's start for every worker.
fn connect_phase(
    running: &Running<'_>,
    plan: &SubscribePlan,
    shared: &Shared,
    control: &SubscribeControl,
) -> ConnectPhase {
    let needed = u64::from(plan.connections);
    let limit = running.start + plan.connect_phase_limit();
    let mut timed_out = false;
    loop {
        let now = Instant::now();
        if control.cancel.load(Ordering::Relaxed)
            || shared.settled() >= needed
            || running.any_ended()
        {
            break;
        }
        if now >= limit {
            timed_out = true;
            break;
        }
        std::thread::sleep(COORDINATE.min(limit - now));
    }
    let end = Instant::now();
    let window_start = end + plan.warmup.max(LEAD);
    shared.fix_window_start(window_start);
    ConnectPhase {
        start: running.start,
        end,
        timed_out,
        window_start,
    }
}
