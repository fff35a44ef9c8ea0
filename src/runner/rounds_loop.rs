//! The rounds of a scenario over its started targets. Each round measures the targets it
//! needs in an order that rotates from round to round (A B C, B C A, ...), so drift hits
//! every target alike; a plain-load round measures them together, alternating in time
//! slices (`alternating`), when it can. After each trial the target's summary is made and
//! saved; a trial spoiled by a burst of noise is measured again (`noise::Judge`). A canary
//! times each watched CPU before the first round and after every round.
//!
//! With a precision asked for, the rounds are a *race* (`summary::race`): every target is
//! measured in the first rounds (the profile's minimum); after that only the targets of
//! adjacent pairs still open, until every pair is decided or the budget is spent
//! (`rounds::decide`). A race samples the processes' luck: every round after the first
//! starts fresh processes of the targets it measures (`restart`), so one lucky or
//! unlucky process cannot decide a ranking; what that costs is recorded
//! (`RoundsInfo::race`). Targets with helpers read per trial (subgraphs, a coprocessor, a
//! collector, execution counters) keep their processes.
use std::time::Instant;

use anyhow::Result;

use crate::kind::RunPlan;
use crate::kind::{ScenarioCx, TrialCx};
use crate::measure::budget::{fits, share};
use crate::measure::session::Session;
use crate::results::*;
use crate::summary;
use crate::summary::race::{Looks, Standing};
use crate::summary::rounds::{self, Row, StopReason};

/// The rule's view of the scenario's rows: each target's counted samples by round.
fn rows(s: &ScenarioResult) -> Vec<Row> {
    let figure = crate::summary::efficiency::ranked_figure(s);
    s.targets
        .iter()
        .filter(|t| t.status == TargetStatus::Ok)
        .map(|t| {
            Row::of(
                t,
                summary::rankable(t) && t.kind != crate::catalog::TargetKind::Baseline,
                &figure,
            )
        })
        .collect()
}

/// The canary on the CPUs the run uses.
fn canary(plan: &RunPlan, round: u32) -> CanaryPoint {
    let cpus = crate::measure::trial::watched_cpus(plan);
    CanaryPoint {
        round,
        ms: crate::measure::noise::canary(&cpus),
        cpus,
    }
}

/// Whether a started target may be started afresh between rounds: nothing beside it whose
/// figures are read per trial.
fn restartable(s: &Session) -> bool {
    s.subgraphs.is_none()
        && s.coprocessor.is_none()
        && s.collector.is_none()
        && s.counters_port.is_none()
}

/// Most blocks a round's window holds when the race lengthens it.
const MAX_BLOCKS: u32 = 8;

/// The blocks of an alternating round's window: the profile's duration in whole blocks, or,
/// in a race that starts fresh processes, as many as Kalibera and Jones' rule finds worth a
/// round's cost at the noise of the pairs still open (`levels::blocks_per_round`): a round
/// term as large as the blocks' noise asks for short rounds (more processes), none for long
/// ones (restarts cost more than they tell).
fn window_blocks(
    cx: &ScenarioCx<'_>,
    alt: crate::plan::alternation::Alternation,
    standing: Option<&Standing>,
    restart: bool,
) -> u32 {
    let sp = cx.sp;
    let base = alt.blocks_for(sp.duration);
    let Some(st) = standing.filter(|_| restart) else {
        return base;
    };
    let open: Vec<crate::stats::levels::Levels> = st
        .pairs
        .iter()
        .filter(|p| p.state == crate::summary::race::State::Undecided)
        .filter_map(|p| p.estimate.map(|e| e.levels))
        .collect();
    // Per target: a start and the warm-up against one block of its own slices.
    let block = alt.block_own().as_secs_f64();
    let c_round = cx.budget.start_s()
        + block * alt.blocks_for(sp.warmup.max(sp.warmup_max)) as f64
        + sp.own_warmup_s(0..sp.targets.len()) / sp.targets.len().max(1) as f64;
    crate::stats::levels::blocks_per_round(&open, c_round, block, base, MAX_BLOCKS.max(base))
}

/// What one more round of `who` costs, wall seconds at the run's pace: fresh processes
/// started (when `restart`), their warm-up and the window.
fn round_secs(
    cx: &ScenarioCx<'_>,
    who: &[usize],
    restart: bool,
    fresh: bool,
    blocks: Option<u32>,
) -> f64 {
    let sp = cx.sp;
    let n = who.len();
    let starts = if restart {
        n as f64 * cx.budget.start_s()
    } else {
        0.0
    };
    let load = match super::alternating::planned(cx.plan, sp).filter(|_| n >= 2) {
        Some(alt) => {
            let warm = if fresh {
                alt.wall(alt.blocks_for(sp.warmup.max(sp.warmup_max)), n)
            } else {
                std::time::Duration::ZERO
            };
            let blocks = blocks.unwrap_or_else(|| alt.blocks_for(sp.duration));
            (warm + alt.wall(blocks, n)).as_secs_f64()
        }
        None => sp.per_target_trial_secs() * n as f64,
    };
    // Targets that name their own warm-up (a JVM) run it alone on a fresh process.
    let own = sp.own_warmup_s(who.iter().copied().filter(|_| fresh));
    starts + (load + own) * cx.budget.pace()
}

/// The rounds a race's share of the budget holds, from its deadline at the run's pace:
/// a first round of every target that started (`running`: one skipped, e.g. on a graph of
/// one's own, takes no time; counted, it cost the chain graph's efficiency-20 two rounds of
/// six gateways), then rounds of them on fresh processes (those that may restart), at the
/// profile's window; within [min, most] rounds. None without a deadline.
fn planned_looks(cx: &ScenarioCx<'_>, may_restart: &[bool], running: &[usize]) -> Option<u32> {
    let p = cx.sp.precision;
    let deadline = cx.deadline?;
    let blocks = super::alternating::planned(cx.plan, cx.sp).map(|a| a.blocks_for(cx.sp.duration));
    let restart = may_restart.iter().any(|&x| x);
    let first = round_secs(cx, running, false, true, blocks);
    let later = round_secs(cx, running, restart, restart, blocks);
    let left = deadline
        .saturating_duration_since(Instant::now())
        .as_secs_f64();
    let more = if later > 0.0 {
        ((left - first) / later).floor().max(0.0) as u32
    } else {
        p.max_rounds
    };
    Some(
        more.saturating_add(1)
            .clamp(p.min_rounds.max(1), p.max_rounds.max(p.min_rounds)),
    )
}

pub fn run(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    engine_ops: &[gqlbench_engine::Operation],
) -> Result<()> {
    let (sp, si, plan, ctx) = (cx.sp, cx.si, cx.plan, cx.ctx);
    let out = &plan.out_dir;
    let p = sp.precision;
    let racing = sp.races();
    // Which targets may be started afresh, decided once from their first start: a target
    // with helpers read per trial keeps its processes for the whole scenario.
    let may_restart: Vec<bool> = sessions
        .iter()
        .map(|s| racing && s.as_ref().is_some_and(restartable))
        .collect();
    let running: Vec<usize> = (0..sessions.len())
        .filter(|&i| sessions[i].is_some())
        .collect();
    let mut info = first_info(cx, racing, &may_restart, &running);
    let looks = info.race.as_ref().and_then(|r| r.looks);
    let most = looks.unwrap_or(p.max_rounds);
    // Whose process has served no load yet (its warm-up is a first one).
    let mut fresh: Vec<bool> = vec![true; sp.targets.len()];
    let mut round = 0u32;
    let mut alternated = 0u32;
    let stop = loop {
        // Targets that can still be measured: up, or dropped from the race and startable
        // again.
        let available: Vec<usize> = (0..sp.targets.len())
            .filter(|&i| {
                cx.results.scenarios[si].targets[i].status == TargetStatus::Ok
                    && (sessions[i].is_some() || may_restart[i])
            })
            .collect();
        if available.is_empty() || ctx.cancelled() {
            break StopReason::Ended;
        }
        // A standing without a pair (one row) is no race: its rounds go on for its interval,
        // every target in each.
        let standing: Option<Standing> = (racing && round > 0)
            .then(|| {
                summary::standing::standing(
                    &cx.results.scenarios[si],
                    Looks::Sequential { last: false },
                )
            })
            .filter(|st| !st.pairs.is_empty());
        // The next round: every target up to the minimum, then the race's.
        let next: Vec<usize> = match &standing {
            Some(st) if round >= p.min_rounds => available
                .iter()
                .copied()
                .filter(|&i| st.racing.contains(&sp.targets[i].name))
                .collect(),
            _ => available.clone(),
        };
        let restart = round > 0 && next.iter().any(|&i| may_restart[i]);
        let blocks = super::alternating::planned(plan, sp)
            .map(|alt| window_blocks(cx, alt, standing.as_ref(), restart));
        let secs = round_secs(cx, &next, restart, restart || round == 0, blocks);
        let time_left = fits(cx.deadline, secs);
        let rows = rows(&cx.results.scenarios[si]);
        if let Some(why) = rounds::decide(
            &rows,
            round,
            &p,
            standing.as_ref(),
            next.is_empty(),
            time_left,
        ) {
            break why;
        }
        // The budget's looks are the race's last (its last look spends what is left).
        if round >= p.min_rounds && round >= most {
            break StopReason::Time;
        }
        round += 1;
        if round > p.min_rounds {
            cx.progress.extend(secs);
            cx.progress
                .line(&round_line(sp, round, most, standing.is_some(), &next));
        }
        let began = Instant::now();
        // Fresh processes for this round (see the module).
        if restart {
            let spent = super::restart::round(cx, sessions, &next, &may_restart, round)?;
            for &i in &next {
                fresh[i] |= may_restart[i];
            }
            if let Some(r) = info.race.as_mut() {
                r.restarts += next.iter().filter(|&&i| may_restart[i]).count() as u32;
                r.restart_s += spent;
            }
        }
        // Those whose start failed are out; rotate the order each round (A B C, B C A,
        // ...) so drift hits every target alike.
        let up: Vec<usize> = next
            .iter()
            .copied()
            .filter(|&i| sessions[i].is_some())
            .collect();
        if up.is_empty() {
            continue;
        }
        let k = (round as usize - 1) % up.len();
        let order: Vec<usize> = up[k..].iter().chain(&up[..k]).copied().collect();
        if let Some(alt) = super::alternating::applies(cx, sessions, &order) {
            let shape = super::alternating::Shape {
                warm: order.iter().any(|&i| fresh[i]),
                blocks: blocks.unwrap_or_else(|| alt.blocks_for(sp.duration)),
            };
            super::alternating::round(cx, sessions, engine_ops, &order, round, alt, shape)?;
            if let Some(r) = info.race.as_mut() {
                r.blocks.push(shape.blocks);
            }
            alternated += 1;
            info.slices = Some(super::alternating::info(sp, alt, alternated));
        } else {
            trials_in_turn(cx, sessions, engine_ops, &order, round, &fresh)?;
        }
        for &i in &order {
            fresh[i] = false;
        }
        info.run = round;
        info.canary.push(canary(plan, round));
        if let Some(r) = info.race.as_mut() {
            r.measured
                .push(order.iter().map(|&i| sp.targets[i].name.clone()).collect());
            r.round_s.push(began.elapsed().as_secs_f64());
        }
        cx.results.scenarios[si].rounds = Some(info.clone());
        cx.results.save(out)?;
    };
    info.stop = stop;
    cx.results.scenarios[si].rounds = Some(info);
    Ok(())
}

/// The rounds' record before the first round: the limits, the first canary, and for a
/// race the looks it spreads its error rate over.
fn first_info(
    cx: &ScenarioCx<'_>,
    racing: bool,
    may_restart: &[bool],
    running: &[usize],
) -> RoundsInfo {
    let p = cx.sp.precision;
    let mut info = RoundsInfo {
        run: 0,
        min: p.min_rounds,
        max: p.max_rounds,
        // Rounded back to what was written (0.07 × 100 is 7.000000000000001).
        target_pct: p.target.map(|t| (t * 100.0 * 1e6).round() / 1e6),
        stop: StopReason::Ended,
        canary: vec![canary(cx.plan, 0)],
        slices: None,
        race: racing.then(RaceInfo::default),
    };
    // The looks the race spreads its error rate over, fixed before its first round as a
    // sequential design's must be: the rounds its share of the budget holds at the
    // machine's pace. Planned over the profile's most rounds instead, a race the budget
    // stops after two would decide at a tenth of its error rate (α·t² at t = 2/10).
    let looks = if racing {
        planned_looks(cx, may_restart, running)
    } else {
        None
    };
    if let Some(r) = info.race.as_mut() {
        r.looks = looks;
        r.rule = summary::race::RULE;
    }
    info
}

/// The progress line of a round past the minimum: who is still racing, or why it goes on.
fn round_line(
    sp: &crate::kind::ScenarioPlan,
    round: u32,
    most: u32,
    race: bool,
    next: &[usize],
) -> String {
    let why = if race {
        format!(
            "{} racing ({})",
            next.len(),
            next.iter()
                .map(|&i| sp.targets[i].name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        "the intervals are not within the precision yet".into()
    };
    format!("  {}: round {round} (up to {most}): {why}", sp.name)
}

/// A round without alternation: one trial of each target in `order`, each given its share
/// of the scenario's time left.
fn trials_in_turn(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    engine_ops: &[gqlbench_engine::Operation],
    order: &[usize],
    round: u32,
    fresh: &[bool],
) -> Result<()> {
    let min_rounds = cx.sp.precision.min_rounds;
    for (pos, &ti) in order.iter().enumerate() {
        if cx.ctx.cancelled() {
            break;
        }
        // This trial and the others left to the minimum share the scenario's time.
        let left =
            (order.len() - pos) as u32 + order.len() as u32 * min_rounds.saturating_sub(round);
        let deadline = share(cx.deadline, left);
        one_trial(
            cx,
            sessions,
            engine_ops,
            ti,
            (round, pos as u32 + 1),
            fresh[ti],
            deadline,
        )?;
    }
    Ok(())
}

/// The rounds a scenario plans, for progress: "3" for a fixed count, "3-6" when rounds are
/// added until precise.
pub(super) fn rounds_planned(p: &crate::plan::Precision) -> String {
    if p.target.is_none() || p.max_rounds <= p.min_rounds {
        p.min_rounds.to_string()
    } else {
        format!("{}-{}", p.min_rounds, p.max_rounds)
    }
}

/// One target's trial of a round, measured again once if a burst of noise spoiled it.
/// `at`: the round and the target's place in its order; `fresh`: its process has served
/// no load yet.
fn one_trial(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    engine_ops: &[gqlbench_engine::Operation],
    ti: usize,
    at: (u32, u32),
    fresh: bool,
    deadline: Option<Instant>,
) -> Result<()> {
    let (sp, plan, ctx) = (cx.sp, cx.plan, cx.ctx);
    let (round, position) = at;
    let t = &sp.targets[ti];
    let per_trial = sp.per_target_trial_secs();
    let mut again = false;
    loop {
        let Some(sess) = sessions[ti].as_mut() else {
            return Ok(());
        };
        let label = format!(
            "{} trial {round}/{} {}{}",
            sp.name,
            rounds_planned(&sp.precision),
            t.name,
            if again { " (again)" } else { "" }
        );
        let began = Instant::now();
        let trial_result = sp.kind.trial(&mut TrialCx {
            sp,
            plan,
            ctx,
            sess,
            ops: engine_ops,
            trial: round,
            fresh: fresh && !again,
            own_warmup: t.start.warmup.unwrap_or_default(),
            position,
            label: &label,
            deadline,
            progress: cx.progress,
            db: cx.db.as_deref_mut(),
        });
        // Kinds whose trial stops early at its deadline would teach the budget nothing
        // about the nominal length of a trial.
        if sp.kind.adaptive_rounds() {
            cx.budget.record_trial(per_trial, began.elapsed());
        }
        if !super::record::record(cx, sessions, vec![(ti, trial_result)], round, &label, again)? {
            return Ok(());
        }
        again = true;
        cx.progress.extend(per_trial);
    }
}
