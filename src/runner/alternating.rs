//! An alternating round: every target of the round measured together, in time slices of
//! one shared clock (`measure::alternate`), so that each sees the same machine, moment by
//! moment, and drift and noise weigh on every target alike. Each target's trial is its
//! figures over its own slices, recorded as a sequential trial is (`record`),
//! so the rows, the intervals, the ranking and `compare` read them unchanged.
//!
//! A round alternates when the run asks for it (the default; `--one-at-a-time` does not),
//! the scenario's kind is plain load in the closed model (an open model's throughput is
//! its rate: nothing to rank), at least two targets are up, and no target has a helper
//! whose figures are read per trial (subgraphs, a coprocessor, a trace collector, execution
//! counters), or more targets than the engine's slicing takes: those are measured one at a
//! time. A round of fresh processes (the first, or a race's restarted ones) warms each
//! target up for the profile's longest warm-up (its JIT is still tiering up); a round of
//! processes loaded moments before, not at all. Warm-up and window are whole blocks, so every
//! target gets the same share of the window.
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::kind::{RunPlan, ScenarioCx, ScenarioPlan};
use crate::measure::alternate::{self, SharedLoad, Sharing};
use crate::measure::session::Session;
use crate::measure::trial::MeasureCx;
use crate::measure::warmup::until_steady;
use crate::plan::alternation::Alternation;
use crate::results::{SlicesInfo, WarmupInfo};

/// The alternation a scenario's rounds plan, before its targets are started: the run's,
/// when its kind is plain load in the closed model and its targets need no helpers.
pub fn planned(plan: &RunPlan, sp: &ScenarioPlan) -> Option<Alternation> {
    plan.alternation.filter(|_| sp.needs.alternates)
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
    let own = |d: Duration| alt.whole_blocks(d).as_secs_f64();
    SlicesInfo {
        slice_ms: alt.slice.as_secs_f64() * 1000.0,
        guard_ms: alt.guard.as_secs_f64() * 1000.0,
        rounds,
        first_warmup_s: own(sp.warmup.max(sp.warmup_max)),
        window_s: own(sp.duration),
    }
}

/// What one alternating round is: whether its processes are fresh (the first round, or a
/// race's restarted ones) and warm up first, and its window's blocks.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub warm: bool,
    pub blocks: u32,
}

/// Round `round` of the targets `order` (arm i is `order[i]`), measured again once if a
/// burst of noise spoiled it.
pub fn round(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    engine_ops: &[gqlbench_engine::Operation],
    order: &[usize],
    round: u32,
    alt: Alternation,
    shape: Shape,
) -> Result<()> {
    let sp = cx.sp;
    let n = order.len();
    // Processes loaded moments before need none: a round's first slices start after an
    // idle gap as every slice does, their start not counted.
    let warmup = if shape.warm {
        alt.wall(alt.blocks_for(sp.warmup.max(sp.warmup_max)), n)
    } else {
        Duration::ZERO
    };
    let duration = alt.wall(shape.blocks, n);
    let mut own = if shape.warm {
        own_warmups(cx, sessions, engine_ops, order, round)
    } else {
        vec![None; n]
    };
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
                t.warmup = own[i].take();
                (ti, t)
            })
            .collect();
        // Its nominal length is its blocks' (what the budget's estimates assume).
        cx.budget
            .record_trial((warmup + duration).as_secs_f64(), began.elapsed());
        if !super::record::record(cx, sessions, trials, round, &label, again)? {
            return Ok(());
        }
        again = true;
        cx.progress.extend((warmup + duration).as_secs_f64());
    }
}

/// The warm-up of the targets of `order` that name their own (`start.warmup`: a JVM), on
/// fresh processes: each alone, one after another, until steady (at least that long, at
/// most twice), so that the round's shared warm-up stays short for the others and the
/// JIT's early work does not land in their slices. What each took, by arm.
fn own_warmups(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    engine_ops: &[gqlbench_engine::Operation],
    order: &[usize],
    round: u32,
) -> Vec<Option<WarmupInfo>> {
    let sp = cx.sp;
    order
        .iter()
        .map(|&ti| {
            let least = sp.targets[ti].start.warmup?;
            let sess = sessions[ti].as_mut()?;
            let label = format!("{} round {round}, {}", sp.name, sp.targets[ti].name);
            let mcx = MeasureCx {
                plan: cx.plan,
                ctx: cx.ctx,
                sess,
                ops: engine_ops,
                progress: cx.progress,
            };
            Some(until_steady(&mcx, &sp.load, least, 2 * least, true, &label))
        })
        .collect()
}
