//! The rounds of a scenario over its started targets. Each round runs the kind's trial of
//! every target still up, in an order that rotates from round to round (A B C, B C A, ...),
//! so drift hits every target alike; a plain-load round measures them together,
//! alternating in time slices (`alternating`), when it can. After each trial the target's summary is made and
//! saved; a trial the noise sentinels call disturbed is measured again (once, within the
//! budget) and the disturbed one kept but not counted. A canary times each watched CPU
//! before the first round and after every round. Rounds go on until `rounds::decide` says
//! why not.
use std::time::Instant;

use anyhow::Result;

use crate::catalog::TargetKind;
use crate::kind::RunPlan;
use crate::kind::{ScenarioCx, TrialCx};
use crate::measure::budget::{fits, share};
use crate::measure::session::Session;
use crate::results::*;
use crate::summary;
use crate::summary::rounds::{self, Row, StopReason};

/// The rule's view of the scenario's rows: each target's counted samples by round.
fn rows(s: &ScenarioResult) -> Vec<Row> {
    s.targets
        .iter()
        .filter(|t| t.status == TargetStatus::Ok)
        .map(|t| Row::of(t, summary::rankable(t) && t.kind != TargetKind::Baseline))
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

pub fn run(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    engine_ops: &[gqlbench_engine::Operation],
) -> Result<()> {
    let (sp, si, plan, ctx) = (cx.sp, cx.si, cx.plan, cx.ctx);
    let out = &plan.out_dir;
    let per_trial = sp.per_target_trial_secs();
    let p = sp.precision;
    let mut info = RoundsInfo {
        run: 0,
        min: p.min_rounds,
        max: p.max_rounds,
        // Rounded back to what was written (0.07 × 100 is 7.000000000000001).
        target_pct: p.target.map(|t| (t * 100.0 * 1e6).round() / 1e6),
        stop: StopReason::Ended,
        canary: vec![canary(plan, 0)],
        slices: None,
    };
    let mut round = 0u32;
    let mut alternated = 0u32;
    let stop = loop {
        let alive: Vec<usize> = (0..sp.targets.len())
            .filter(|&i| sessions[i].is_some())
            .collect();
        if alive.is_empty() || ctx.cancelled() {
            break StopReason::Ended;
        }
        // A round beyond the minimum costs what trials have cost so far.
        let round_secs = per_trial * alive.len() as f64 * cx.budget.pace();
        let time_left = fits(cx.deadline, round_secs);
        if let Some(why) = rounds::decide(&rows(&cx.results.scenarios[si]), round, &p, time_left) {
            break why;
        }
        round += 1;
        if round > p.min_rounds {
            cx.progress.extend(round_secs);
            cx.progress.line(&format!(
                "  {}: round {round} (up to {}): the intervals or the ranking are not decided yet",
                sp.name, p.max_rounds
            ));
        }
        // Rotate the order each round (A B C, B C A, ...) so drift hits every target alike.
        let k = (round as usize - 1) % alive.len();
        let order: Vec<usize> = alive[k..].iter().chain(&alive[..k]).copied().collect();
        if let Some(alt) = super::alternating::applies(cx, sessions, &order) {
            super::alternating::round(cx, sessions, engine_ops, &order, round, alt)?;
            alternated += 1;
            info.slices = Some(super::alternating::info(sp, alt, alternated));
        } else {
            for (pos, &ti) in order.iter().enumerate() {
                if ctx.cancelled() {
                    break;
                }
                // This trial and the others left to the minimum share the scenario's time.
                let left = (order.len() - pos) as u32
                    + alive.len() as u32 * p.min_rounds.saturating_sub(round);
                let deadline = share(cx.deadline, left);
                one_trial(
                    cx,
                    sessions,
                    engine_ops,
                    ti,
                    round,
                    pos as u32 + 1,
                    deadline,
                )?;
            }
        }
        info.run = round;
        info.canary.push(canary(plan, round));
        cx.results.scenarios[si].rounds = Some(info.clone());
        cx.results.save(out)?;
    };
    info.stop = stop;
    cx.results.scenarios[si].rounds = Some(info);
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

/// One target's trial of a round, measured again once if the sentinels saw interference.
fn one_trial(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    engine_ops: &[gqlbench_engine::Operation],
    ti: usize,
    round: u32,
    position: u32,
    deadline: Option<Instant>,
) -> Result<()> {
    let (sp, plan, ctx) = (cx.sp, cx.plan, cx.ctx);
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
        if !record(cx, sessions, vec![(ti, trial_result)], round, &label, again)? {
            return Ok(());
        }
        again = true;
        cx.progress.extend(per_trial);
    }
}

/// Records the trials one measurement made (one target's, or every target's of an
/// alternating round, sharing its noise): each target's crash, interruption and summary,
/// saved. True when the measurement is to be made again: the sentinels saw interference,
/// it was the first time, every trial is valid and there is time; its trials are then kept
/// but not counted. A second disturbed measurement is counted, flagged `interference`
/// (the row stays ranked; the report names it).
pub(super) fn record(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    mut trials: Vec<(usize, TrialResult)>,
    round: u32,
    label: &str,
    again: bool,
) -> Result<bool> {
    let (sp, si, plan, ctx) = (cx.sp, cx.si, cx.plan, cx.ctx);
    let per_trial = sp.per_target_trial_secs();
    let noisy = trials.first().and_then(|(_, t)| {
        t.noise
            .as_ref()
            .and_then(|n| crate::measure::noise::interference(n, plan.interference_limit_pct))
    });
    let crashed = |sessions: &mut [Option<Session>], ti: usize| {
        sessions[ti].as_mut().and_then(|s| s.process.exited())
    };
    let any_crashed = trials
        .iter()
        .any(|(ti, _)| crashed(sessions, *ti).is_some());
    let repeat = noisy.is_some()
        && !again
        && !any_crashed
        && !ctx.cancelled()
        && trials.iter().all(|(_, t)| t.valid)
        && fits(
            cx.deadline,
            per_trial * trials.len() as f64 * cx.budget.pace(),
        );
    for (ti, mut trial_result) in trials.drain(..) {
        let t = &sp.targets[ti];
        if let Some(why) = &noisy {
            if repeat {
                trial_result.excluded = Some(format!("interference, measured again: {why}"));
            } else {
                trial_result.saturation.push(SaturationFlag {
                    kind: crate::results::FlagKind::Interference,
                    detail: why.clone(),
                });
            }
        }
        let tr = &mut cx.results.scenarios[si].targets[ti];
        tr.trials.push(trial_result);
        if let Some(st) = crashed(sessions, ti) {
            tr.status = TargetStatus::Crashed;
            let st = st.to_string();
            let note = sp.limits.kill_note(&st).unwrap_or_default();
            tr.problem = Some(format!("exited ({st}) during trial {round}{note}"));
            if let Some(mut s) = sessions[ti].take() {
                tr.log_tail = Some(s.process.log_tail(20));
                s.stop();
            }
            cx.progress.line(&format!(
                "  {}: CRASHED during trial {round} ({st})",
                t.name
            ));
            cx.progress
                .skip(per_trial * sp.trials.saturating_sub(round) as f64);
        }
        if ctx.cancelled() {
            tr.status = TargetStatus::Interrupted;
            tr.problem = Some("run interrupted (Ctrl-C) during this trial".into());
        }
        tr.summary = summary::summarize(tr);
        sp.kind.summarize(sp, tr);
        if let Some(last) = tr.trials.last() {
            let line = if last.alternated.is_some() {
                format!("{label} {}", t.name)
            } else {
                label.to_string()
            };
            cx.progress.line(&sp.kind.trial_line(&line, last));
            if let Some(why) = &last.excluded {
                cx.progress.line(&format!("  {}: {why}", t.name));
            }
        }
    }
    cx.results.save(&plan.out_dir)?;
    Ok(repeat)
}
