//! The cold-start scenario run by itself: every target started fresh, again and again,
//! interleaved, each start timed to ready and to its first two requests.
use super::*;

pub(super) fn run(cx: &mut ScenarioCx<'_>, starts: u32) -> Result<()> {
    let (sp, si, plan, ctx) = (cx.sp, cx.si, cx.plan, cx.ctx);
    let (results, progress, install_failed, env) =
        (&mut *cx.results, &mut *cx.progress, cx.unavailable, cx.env);
    let out = &plan.out_dir;
    progress.line(&opening_line(sp, starts));
    let Some((op, _)) = sp.operations.first() else {
        anyhow::bail!("cold-start scenario {} has no operation", sp.name);
    };
    let first = op.to_engine(1);
    let Some(variant) = first.variants.first() else {
        anyhow::bail!("operation {} has no case", op.name);
    };
    let cancelled = || ctx.cancelled();
    let runnable: Vec<usize> = (0..sp.targets.len())
        .filter(|&ti| {
            let t = &sp.targets[ti];
            match Unavailable::find(install_failed, &t.name) {
                Some(u) => {
                    let tr = &mut results.scenarios[si].targets[ti];
                    tr.status = u.status;
                    tr.problem = Some(u.message.clone());
                    progress.skip(NOMINAL_START_S * starts as f64);
                    false
                }
                None => true,
            }
        })
        .collect();
    'starts: for start in 1..=starts {
        if runnable.is_empty() {
            break;
        }
        let k = (start as usize - 1) % runnable.len();
        let order: Vec<usize> = runnable[k..]
            .iter()
            .chain(runnable[..k].iter())
            .copied()
            .collect();
        for ti in order {
            if ctx.cancelled() {
                break 'starts;
            }
            let t = &sp.targets[ti];
            let log_rel = format!("logs/{}-{}-start{start}.log", sp.name, t.name);
            progress.message(format!(
                "{}: fresh start {start}/{starts} of {}",
                sp.name, t.name
            ));
            let started = Session::start(
                t,
                StartOptions::for_scenario(plan, sp, &ctx.root, env, &log_rel, &cancelled, true),
            );
            let sample = match started {
                Err(f) => {
                    let mut problem = f.problem.clone();
                    if let Some(note) = sp.limits.kill_note(&problem) {
                        problem.push_str(&note);
                    }
                    let tr = &mut results.scenarios[si].targets[ti];
                    if tr.log_tail.is_none() {
                        tr.log_tail = f.log_tail.clone();
                        tr.log_file = Some(log_rel.clone());
                    }
                    ColdStartSample {
                        start,
                        outcome: StartOutcome::Failed(f.status.label().into()),
                        ready_s: None,
                        first_request_s: None,
                        second_request_s: None,
                        rss_at_ready_bytes: None,
                        rss_after_first_bytes: None,
                        problem: Some(problem),
                    }
                }
                Ok((mut s, note)) => {
                    if let Some(n) = note {
                        results.scenarios[si].limits.applied = n;
                    } else if let Some(c) = &s.cgroup {
                        results.scenarios[si].limits.applied = c.applied.clone();
                    }
                    let sample = measure_start(&mut s, start, variant);
                    s.stop();
                    sample
                }
            };
            progress.line(&format!(
                "  {} start {start}/{starts}: {}",
                t.name,
                sample_line(&sample)
            ));
            progress.skip(NOMINAL_START_S);
            let tr = &mut results.scenarios[si].targets[ti];
            tr.cold_starts.push(sample);
            match summarize(&tr.cold_starts) {
                Some(sum) => tr.by_kind.set(&SUMMARY, &sum),
                None => tr.by_kind.remove(&SUMMARY),
            }
            results.save(out)?;
        }
    }
    conclude(
        &mut results.scenarios[si],
        &runnable,
        starts,
        ctx.cancelled(),
    );
    Ok(())
}

/// The scenario's opening line: targets, starts and the limits they start under.
fn opening_line(sp: &crate::kind::ScenarioPlan, starts: u32) -> String {
    format!(
        "scenario {}/{}: {} targets x {starts} fresh starts{}",
        sp.suite,
        sp.name,
        sp.targets.len(),
        match (sp.limits.cpus, sp.limits.memory_bytes) {
            (None, None) => String::new(),
            (c, m) => format!(
                " (limits:{}{})",
                c.map(|c| format!(" {c} cores")).unwrap_or_default(),
                m.map(|m| format!(" {}", crate::units::fmt_bytes(m)))
                    .unwrap_or_default()
            ),
        }
    )
}

/// How a start went, for its progress line.
fn sample_line(sample: &ColdStartSample) -> String {
    match (&sample.ready_s, &sample.first_request_s) {
        (Some(r), Some(f)) => format!(
            "ready in {:.0} ms, first request {:.1} ms",
            r * 1000.0,
            f * 1000.0
        ),
        _ => format!(
            "{} — {}",
            sample.outcome,
            sample.problem.as_deref().unwrap_or("")
        ),
    }
}

/// Each target's status after its starts: interrupted before all of them, or failed to
/// start when none succeeded (that is the finding, with the reason).
fn conclude(sr: &mut ScenarioResult, runnable: &[usize], starts: u32, cancelled: bool) {
    for &ti in runnable {
        let tr = &mut sr.targets[ti];
        let ok = tr.cold_starts.iter().filter(|c| c.outcome.is_ok()).count();
        if cancelled && tr.cold_starts.len() < starts as usize {
            tr.status = TargetStatus::Interrupted;
            tr.problem = Some(format!(
                "run interrupted after {} of {starts} starts",
                tr.cold_starts.len()
            ));
        } else if ok == 0 {
            // Never came up in this setting: that is the finding, with the reason.
            tr.status = TargetStatus::StartFailed;
            tr.problem = tr
                .cold_starts
                .iter()
                .find_map(|c| c.problem.clone())
                .map(|p| format!("no start succeeded: {p}"));
        }
    }
}

/// The first request (checked against its expected answer), the second, and memory.
pub(super) fn measure_start(
    s: &mut Session,
    start: u32,
    variant: &gqlbench_engine::Variant,
) -> ColdStartSample {
    let ready_s = s.ready_s;
    let rss_at_ready = s.rss_idle_bytes;
    let v1 = gqlbench_engine::check_once(&s.endpoint, variant, REQUEST_TIMEOUT);
    let rss_after = vitals::read(s.process.pid, s.cgroup.as_deref()).rss;
    let v2 = gqlbench_engine::check_once(&s.endpoint, variant, REQUEST_TIMEOUT);
    let problem = ready::problem(&v1)
        .map(|p| format!("first request: {p}"))
        .or_else(|| ready::problem(&v2).map(|p| format!("second request: {p}")));
    ColdStartSample {
        start,
        outcome: if problem.is_none() {
            StartOutcome::Ok
        } else {
            StartOutcome::WrongAnswer
        },
        ready_s: Some(ready_s),
        first_request_s: v1.is_ok().then_some(v1.latency.as_secs_f64()),
        second_request_s: v2.is_ok().then_some(v2.latency.as_secs_f64()),
        rss_at_ready_bytes: rss_at_ready,
        rss_after_first_bytes: rss_after,
        problem,
    }
}
