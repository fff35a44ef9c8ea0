//! An alternating round: every target of the round measured together, in time slices of
//! one shared clock (`measure::alternate`), so that each sees the same machine, moment by
//! moment, and drift and noise weigh on every target alike. Each target's trial is its
//! figures over its own slices, recorded as a sequential trial is (`rounds_loop::record`),
//! so the rows, the intervals, the ranking and `compare` read them unchanged.
//!
//! A round alternates when the run asks for it (the default; `--one-at-a-time` does not),
//! the scenario's kind is plain load in the closed model (an open model's throughput is
//! its rate: nothing to rank), at least two targets are up, and no target has a helper
//! whose figures are read per trial (subgraphs, a coprocessor, a trace collector, execution
//! counters), or more targets than the engine's slicing takes: those are measured one at a
//! time. The first round warms each target up for
//! the profile's longest warm-up (its JIT is still tiering up); later rounds, whose targets
//! were loaded moments before, not at all. Warm-up and window are whole blocks, so every
//! target gets the same share of the window.
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::kind::{RunPlan, ScenarioCx, ScenarioPlan};
use crate::measure::alternate::{self, SharedLoad, Sharing};
use crate::measure::session::Session;
use crate::plan::alternation::Alternation;
use crate::results::SlicesInfo;

/// The alternation a scenario's rounds plan, before its targets are started: the run's,
/// when its kind is plain load in the closed model and its targets need no helpers.
pub fn planned(plan: &RunPlan, sp: &ScenarioPlan) -> Option<Alternation> {
    let alt = plan.alternation?;
    // What `applies` finds in the started sessions, known from the plan: per-trial
    // helpers (subgraphs, execution counters, a collector, a coprocessor) keep a scenario's
    // targets one at a time, and its progress header must say so.
    let helpers = sp.subgraphs.is_some()
        || sp.needs.counts_executions
        || sp.needs.trace_collector.is_some()
        || sp.targets.iter().any(|t| t.coprocessor.is_some());
    (sp.kind.alternates() && !sp.load.is_open() && !helpers).then_some(alt)
}

/// The alternation round `order`'s targets take, if they alternate (see the module).
pub fn applies(
    cx: &ScenarioCx<'_>,
    sessions: &[Option<Session>],
    order: &[usize],
) -> Option<Alternation> {
    let alt = planned(cx.plan, cx.sp)?;
    let alone = |s: &Session| {
        s.subgraphs.is_none()
            && s.coprocessor.is_none()
            && s.collector.is_none()
            && s.counters_port.is_none()
    };
    let helpers_free = order
        .iter()
        .all(|&ti| sessions[ti].as_ref().is_some_and(alone));
    let arms = 2..=gqlbench_engine::MAX_ARMS;
    (arms.contains(&order.len()) && helpers_free).then_some(alt)
}

/// What the scenario's alternating rounds are, for its results: the slice, the guard and
/// each target's own time in the first round's warm-up and in every window.
pub fn info(sp: &ScenarioPlan, alt: Alternation, rounds: u32) -> SlicesInfo {
    let own = |d: Duration| (alt.block_own() * alt.blocks_for(d)).as_secs_f64();
    SlicesInfo {
        slice_ms: alt.slice.as_secs_f64() * 1000.0,
        guard_ms: alt.guard.as_secs_f64() * 1000.0,
        rounds,
        first_warmup_s: own(sp.warmup.max(sp.warmup_max)),
        window_s: own(sp.duration),
    }
}

/// Round `round` of the targets `order` (arm i is `order[i]`), measured again once if the
/// sentinels saw interference.
pub fn round(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    engine_ops: &[gqlbench_engine::Operation],
    order: &[usize],
    round: u32,
    alt: Alternation,
) -> Result<()> {
    let sp = cx.sp;
    let n = order.len();
    // Later rounds need none: their targets were loaded moments before, and a round's
    // first slices start after an idle gap as every slice does, their start not counted.
    let warmup = if round == 1 {
        alt.wall(alt.blocks_for(sp.warmup.max(sp.warmup_max)), n)
    } else {
        Duration::ZERO
    };
    let duration = alt.wall(alt.blocks_for(sp.duration), n);
    let mut again = false;
    loop {
        let label = format!(
            "{} round {round}/{}, {n} targets alternating{}",
            sp.name,
            super::rounds_loop::rounds_planned(&sp.precision),
            if again { " (again)" } else { "" }
        );
        let began = Instant::now();
        let mut live: Vec<&mut Session> = Vec::with_capacity(n);
        // Arm i is order[i]: take each session out of the slice in that order.
        let mut pool: Vec<Option<&mut Session>> = sessions.iter_mut().map(|s| s.as_mut()).collect();
        for &ti in order {
            match pool[ti].take() {
                Some(s) => live.push(s),
                None => return Ok(()),
            }
        }
        let run = {
            let shared: Vec<&Session> = live.iter().map(|s| &**s).collect();
            alternate::run(
                cx.plan,
                cx.ctx,
                &shared,
                &SharedLoad {
                    load: &sp.load,
                    ops: engine_ops,
                    warmup,
                    duration,
                    sharing: Sharing::Alternate {
                        slice: alt.slice,
                        guard: alt.guard,
                        seed: alternate::seed(round),
                    },
                },
                cx.progress,
                &label,
            )
        };
        let trials: Vec<_> = run
            .arms
            .into_iter()
            .zip(live)
            .zip(order)
            .enumerate()
            .map(|(i, ((arm, sess), &ti))| {
                let mut t = alternate::arm_trial(round, i as u32 + 1, arm, sess, run.noise.clone());
                t.alternated = Some(n as u32);
                (ti, t)
            })
            .collect();
        cx.budget
            .record_trial(sp.per_target_trial_secs() * n as f64, began.elapsed());
        if !super::rounds_loop::record(cx, sessions, trials, round, &label, again)? {
            return Ok(());
        }
        again = true;
        cx.progress.extend(sp.per_target_trial_secs() * n as f64);
    }
}
