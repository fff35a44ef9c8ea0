//! Recording one measurement's trials (one target's, or every target's of an alternating
//! round): the noise judged (`noise::Judge`: a burst is measured again, outside a race; a
//! steady level, or a burst in a race, counted and named), each target's crash or interruption, its summary, the results saved.
use anyhow::Result;

use crate::kind::ScenarioCx;
use crate::measure::budget::fits;
use crate::measure::noise::Verdict;
use crate::measure::session::Session;
use crate::results::*;
use crate::summary;

/// Records the trials one measurement made (one target's, or every target's of an
/// alternating round, sharing its noise): each target's crash, interruption and summary,
/// saved. True when the measurement is to be made again: the sentinels saw a burst of noise
/// (`noise::Judge`), it was the first time, every trial is valid and there is time; its
/// trials are then kept but not counted. A measurement under the machine's steady noise,
/// or a second disturbed one, is counted, flagged `interference` (the row stays ranked;
/// the report names it).
pub fn record(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    mut trials: Vec<(usize, TrialResult)>,
    round: u32,
    label: &str,
    again: bool,
) -> Result<bool> {
    let (sp, si, plan, ctx) = (cx.sp, cx.si, cx.plan, cx.ctx);
    let per_trial = sp.per_target_trial_secs();
    // One reading for the measurement (an alternating round's targets share it).
    let verdict = trials
        .first()
        .and_then(|(_, t)| t.noise.as_ref())
        .map_or(Verdict::Clean, |n| match ctx.noise.lock() {
            Ok(mut j) => j.judge(n),
            Err(e) => e.into_inner().judge(n),
        });
    let (noisy, burst) = match verdict {
        Verdict::Clean => (None, false),
        Verdict::Steady(why) => (Some(why), false),
        Verdict::Burst(why) => (Some(why), true),
    };
    let crashed = |sessions: &mut [Option<Session>], ti: usize| {
        sessions[ti].as_mut().and_then(|s| s.process.exited())
    };
    let any_crashed = trials
        .iter()
        .any(|(ti, _)| crashed(sessions, *ti).is_some());
    // A race does not measure a burst again: its intervals rest on the spread between
    // blocks and rounds, which a disturbed round widens instead of biasing, and measuring
    // again cost the noisy VM's default run about a minute of its nine (12 trials).
    let repeat = burst
        && !sp.races()
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
                trial_result.excluded = Some(format!("a burst of noise, measured again: {why}"));
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
