//! Running one scenario: start its targets (each in isolation, with its helpers), let the
//! kind check them, check every answer, then run the kind's trials in a rotating order
//! (A B C, B C A, ...) so drift hits every target alike; summarize after every trial and
//! save. A kind that runs its scenario on its own (cold starts) does so instead. Also the
//! environment its targets get (`env`).

use anyhow::{Context, Result};

use crate::catalog::TargetDef;
use crate::kind::ScenarioCx;
use crate::kind::ScenarioPlan;
use crate::measure::answers;
use crate::measure::ready;
use crate::measure::session::{self, Session, StartOptions};
use crate::results::*;

pub use crate::kind::ScenarioCx as Cx;

pub fn empty_target_result(t: &TargetDef) -> TargetResult {
    TargetResult {
        base: t.base.clone(),
        package: t.package.clone(),
        version: t.package_version(),
        runtime: t.runtime_version(),
        settings: t.settings.clone(),
        ..TargetResult::new(t.name.clone(), t.kind)
    }
}

/// The scenario's result before anything ran: its plan, and what its kind says of itself.
pub fn result(sp: &ScenarioPlan) -> ScenarioResult {
    let mut s = ScenarioResult {
        description: sp.description.clone(),
        workload: sp.workload.clone(),
        operations: sp
            .operations
            .iter()
            .map(|(o, w)| OperationInfo {
                name: o.name.clone(),
                weight: *w,
                cases: o.cases.len(),
            })
            .collect(),
        trials_planned: sp.trials,
        warmup_s: sp.warmup.as_secs_f64(),
        duration_s: sp.duration.as_secs_f64(),
        limits: LimitsInfo {
            cpus: sp.limits.cpus,
            memory_bytes: sp.limits.memory_bytes,
            applied: String::new(),
        },
        targets: sp.targets.iter().map(empty_target_result).collect(),
        suite: sp.suite.clone(),
        name: sp.name.clone(),
        load: sp.load.info(),
        ..Default::default()
    };
    if !sp.not_supported.is_empty() {
        let list: Vec<_> = sp
            .not_supported
            .iter()
            .map(|(target, why)| crate::results::NotSupported {
                target: target.clone(),
                why: why.clone(),
            })
            .collect();
        s.by_kind.set(&crate::results::NOT_SUPPORTED, &list);
    }
    sp.kind.describe(&mut s);
    s
}

/// Runs the scenario: its kind's own way, or trials over targets started once.
pub fn run(cx: &mut ScenarioCx<'_>) -> Result<()> {
    let kind = cx.sp.kind.clone();
    if let Some(r) = kind.run_alone(cx) {
        return r;
    }
    run_trials(cx)
}

fn run_trials(cx: &mut ScenarioCx<'_>) -> Result<()> {
    let line = super::header::scenario_line(cx.plan, cx.sp, cx.unavailable);
    cx.progress.line(&line);
    let mut sessions = start_targets(cx)?;
    let checked: Vec<&[CheckOutcome]> = cx.results.scenarios[cx.si]
        .targets
        .iter()
        .filter(|t| !t.checks.is_empty())
        .map(|t| t.checks.as_slice())
        .collect();
    if let Some(fault) = answers::catalogue_fault(&cx.sp.operations, &checked) {
        cx.progress.line(&format!("  CATALOGUE FAULT — {fault}"));
        cx.results.scenarios[cx.si].catalogue_fault = Some(fault);
        cx.results.save(&cx.plan.out_dir)?;
    }
    let engine_ops: Vec<_> = cx
        .sp
        .operations
        .iter()
        .map(|(o, w)| o.to_engine(*w))
        .collect();
    let kind = cx.sp.kind.clone();
    kind.before_rounds(cx, &mut sessions, &engine_ops)?;
    cx.results.save(&cx.plan.out_dir)?;
    super::rounds_loop::run(cx, &mut sessions, &engine_ops)?;
    stop_sessions(cx, &mut sessions);
    Ok(())
}

/// Starts each target in turn, lets the kind prepare it and checks its answers: a session
/// for each target that may be measured, `None` (its row saying why) for the rest.
fn start_targets(cx: &mut ScenarioCx<'_>) -> Result<Vec<Option<Session>>> {
    let (sp, si, plan, ctx, install_failed, env) =
        (cx.sp, cx.si, cx.plan, cx.ctx, cx.unavailable, cx.env);
    let results = &mut *cx.results;
    let progress = &mut *cx.progress;
    let out = &plan.out_dir;
    let per_trial = sp.per_target_trial_secs();
    let cancelled = || ctx.cancelled();
    let mut sessions: Vec<Option<Session>> = Vec::new();
    for (ti, t) in sp.targets.iter().enumerate() {
        let tr = &mut results.scenarios[si].targets[ti];
        if let Some(u) = crate::results::Unavailable::find(install_failed, &t.name) {
            tr.status = u.status;
            tr.problem = Some(u.message.clone());
            sessions.push(None);
            progress.skip(per_trial * sp.trials as f64);
            continue;
        }
        let log_rel = format!("logs/{}-{}.log", sp.name, t.name);
        tr.log_file = Some(log_rel.clone());
        progress.message(format!("{}: starting {}", sp.name, t.name));
        let starting = std::time::Instant::now();
        let mut options =
            StartOptions::for_scenario(plan, sp, &ctx.root, env, &log_rel, &cancelled, false);
        options.federation = session::FederationStart::for_target(t, plan, sp, &ctx.root);
        let started = Session::start(t, options);
        match started {
            Err(f) => {
                progress.line(&format!(
                    "  {}: {} — {}",
                    t.name,
                    f.status.label(),
                    f.problem
                ));
                tr.status = f.status;
                tr.problem = Some(f.problem);
                tr.log_tail = f.log_tail;
                sessions.push(None);
                progress.skip(per_trial * sp.trials as f64);
            }
            Ok((mut s, note)) => {
                tr.ready_s = Some(s.ready_s);
                tr.rss_idle_bytes = s.rss_idle_bytes;
                let applied = match (&s.cgroup, &note) {
                    (Some(c), _) => c.applied.clone(),
                    (None, Some(n)) => n.clone(),
                    (None, None) => "no cgroup (disabled)".into(),
                };
                results.scenarios[si].limits.applied = applied;
                let tr = &mut results.scenarios[si].targets[ti];
                sp.kind.prepare(sp, &s, tr, progress);
                // A kind's check before the answers may fail the target (a response cache
                // that serves stale answers): it is not measured.
                if tr.status != TargetStatus::Ok {
                    progress.line(&format!(
                        "  {}: {} — {}",
                        t.name,
                        tr.status.label().to_uppercase(),
                        tr.problem.as_deref().unwrap_or("")
                    ));
                    s.stop();
                    sessions.push(None);
                    progress.skip(per_trial * sp.trials as f64);
                    results.save(out)?;
                    continue;
                }
                let refused = check_answers(sp, t, &s, tr);
                if let Some((status, label, problem)) = refused {
                    progress.line(&format!("  {}: {label} — {problem}", t.name));
                    tr.status = status;
                    tr.problem = Some(problem);
                    s.stop();
                    sessions.push(None);
                    progress.skip(per_trial * sp.trials as f64);
                } else {
                    sessions.push(Some(s));
                }
                cx.budget.record_start(starting.elapsed());
            }
        }
        results.save(out)?;
    }
    Ok(sessions)
}

/// Stops every session; a target the run was interrupted in the middle of is marked so.
fn stop_sessions(cx: &mut ScenarioCx<'_>, sessions: &mut [Option<Session>]) {
    let (sp, si, ctx) = (cx.sp, cx.si, cx.ctx);
    let results = &mut *cx.results;
    for (ti, s) in sessions.iter_mut().enumerate() {
        if let Some(s) = s.as_mut() {
            s.stop();
            let tr = &mut results.scenarios[si].targets[ti];
            if ctx.cancelled()
                && tr.trials.len() < sp.trials as usize
                && tr.status == TargetStatus::Ok
            {
                tr.status = TargetStatus::Interrupted;
                tr.problem = Some(format!(
                    "run interrupted after {} of {} trials",
                    tr.trials.len(),
                    sp.trials
                ));
                // Its summary was made while it still looked whole.
                if let Some(sum) = tr.summary.as_mut() {
                    sum.valid = false;
                }
            }
        }
    }
}

/// Checks every operation's answer on a started target (recorded in `tr.checks`) and a
/// customization that must be there: what keeps the target from its trials, if anything
/// (its status, a label for the progress line, the problem). No answer in time is "too
/// slow to check", not a wrong answer.
pub fn check_answers(
    sp: &ScenarioPlan,
    t: &TargetDef,
    s: &Session,
    tr: &mut TargetResult,
) -> Option<(TargetStatus, &'static str, String)> {
    tr.checks = ready::check_operations(
        &s.endpoint,
        &sp.operations,
        &sp.load.headers,
        ready::CHECK_TIMEOUT,
    );
    // A customization that is not there is found before any load, with the scenario's
    // first operation as the probe.
    let custom = match (tr.checks.iter().all(|c| c.ok), sp.operations.first()) {
        (true, Some((op, _))) => crate::measure::customization::precheck(
            t.customization.as_ref(),
            &s.endpoint,
            &op.to_engine(1).variants[0],
            &sp.load.headers,
        )
        .err(),
        _ => None,
    };
    if let Some(problem) = crate::measure::answers::timed_out(&tr.checks, ready::CHECK_TIMEOUT) {
        Some((TargetStatus::TimedOut, "TIMED OUT", problem))
    } else if let Some(bad) = tr.checks.iter().find(|c| !c.ok) {
        let detail = bad.detail.clone().unwrap_or_default();
        let problem = sp
            .kind
            .wrong_answer_problem(tr, &detail)
            .unwrap_or_else(|| format!("operation {}: {detail}", bad.operation));
        Some((TargetStatus::WrongAnswers, "WRONG ANSWERS", problem))
    } else {
        custom.map(|p| (TargetStatus::WrongAnswers, "CUSTOMIZATION MISSING", p))
    }
}

/// A scenario's environment for its targets: its kind's variables, and the files it writes
/// beside the results (so the file the targets read stays with what they measured).
pub fn env(
    sp: &crate::kind::ScenarioPlan,
    out: &std::path::Path,
) -> Result<std::collections::BTreeMap<String, String>> {
    let mut env = std::collections::BTreeMap::new();
    sp.kind.env(&mut env);
    for f in sp.kind.run_files(sp) {
        let path = out.join(&f.name);
        std::fs::write(&path, &f.text).with_context(|| format!("writing {}", path.display()))?;
        let path = std::path::absolute(&path).unwrap_or(path);
        env.insert(f.env.to_string(), path.display().to_string());
    }
    Ok(env)
}
