//! Fresh processes for a race's round (`rounds_loop`): every process of the round before is
//! stopped, and each target the round measures is started again as the scenario first
//! started it (its own cgroup, pinning, environment; its output in a log of its own,
//! `logs/<scenario>-<target>.round-<k>.log`). Its answers are not checked again before the
//! load: every response of the round is judged. A target that cannot start again is
//! reported with why (its earlier rounds stay in the results) and the race goes on
//! without it.
use std::time::Instant;

use anyhow::Result;

use crate::kind::ScenarioCx;
use crate::measure::session::{Session, StartOptions};
use crate::results::TargetStatus;

/// Stops every restartable process up and starts `who`'s afresh for round `round`; the wall
/// seconds the starts took.
pub fn round(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    who: &[usize],
    may_restart: &[bool],
    round: u32,
) -> Result<f64> {
    let (sp, si, plan, ctx) = (cx.sp, cx.si, cx.plan, cx.ctx);
    let began = Instant::now();
    for (i, s) in sessions.iter_mut().enumerate() {
        if may_restart[i] {
            if let Some(mut s) = s.take() {
                s.stop();
            }
        }
    }
    let cancelled = || ctx.cancelled();
    for &i in who.iter().filter(|&&i| may_restart[i]) {
        if ctx.cancelled() {
            break;
        }
        let t = &sp.targets[i];
        cx.progress.message(format!(
            "{}: starting {} afresh for round {round}",
            sp.name, t.name
        ));
        let log_rel = format!("logs/{}-{}.round-{round}.log", sp.name, t.name);
        let options =
            StartOptions::for_scenario(plan, sp, &ctx.root, cx.env, &log_rel, &cancelled, false);
        let starting = Instant::now();
        match Session::start(t, options) {
            Ok((s, _)) => {
                cx.budget.record_start(starting.elapsed());
                sessions[i] = Some(s);
            }
            Err(f) => {
                let tr = &mut cx.results.scenarios[si].targets[i];
                // Ctrl-C while it started is an interruption, not its failure.
                if ctx.cancelled() {
                    continue;
                }
                tr.status = match f.status {
                    TargetStatus::Ok => TargetStatus::StartFailed,
                    other => other,
                };
                tr.problem = Some(format!(
                    "started afresh for round {round}: {} — {}",
                    f.status.label(),
                    f.problem
                ));
                tr.log_tail = f.log_tail;
                tr.summary = crate::summary::summarize(tr);
                sp.kind.summarize(sp, tr);
                cx.progress.line(&format!(
                    "  {}: {} when started afresh for round {round} — {}",
                    t.name,
                    f.status.label().to_uppercase(),
                    f.problem
                ));
            }
        }
    }
    cx.results.save(&plan.out_dir)?;
    Ok(began.elapsed().as_secs_f64())
}
