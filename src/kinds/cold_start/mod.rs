//! Cold starts: each target is started fresh again and again (targets interleaved, so drift
//! hits all alike), and for every start we record spawn → ready, the latency of the first
//! real request and of the one after it, and memory at readiness. A start that fails (a
//! crash, never ready, killed by the memory cap) is recorded as such; the others go on.
mod record;

pub use record::*;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use serde::Deserialize;

use crate::kind::{Kind, KindDef, ResolveCx, ScenarioCx};
use crate::measure::session::{Session, StartOptions};
use crate::measure::{ready, vitals};
use crate::results::{ColdStartSample, ScenarioKind, ScenarioResult};
use crate::results::{StartOutcome, TargetResult, TargetStatus, Unavailable};
use crate::stats;
use crate::view::Table;

pub const DEF: KindDef = KindDef {
    section: "cold_start",
    resolve,
    decorator: false,
    tables: |s| table(s).into_iter().collect(),
    charts: crate::kind::no_charts,
    html,
    list: |v, f, _| {
        format!(
            "{} fresh starts{}",
            v.get("starts").and_then(|s| s.as_integer()).unwrap_or(5),
            f.limits
                .memory
                .as_ref()
                .map(|m| format!(", cap {m}"))
                .unwrap_or_default()
        )
    },
    skip_in_check: crate::kind::never,
    not_in_k6: Some("cold starts time a process's start, which k6 cannot do"),
};

/// `[cold_start]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ColdStartSpec {
    /// Fresh starts per target (at least 5 for statistics).
    #[serde(default = "five")]
    pub starts: u32,
}

fn five() -> u32 {
    5
}

fn resolve(cx: &ResolveCx<'_>, _: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let Some(spec): Option<ColdStartSpec> = cx.spec("cold_start")? else {
        return Ok(None);
    };
    if spec.starts == 0 {
        return Err(cx
            .bad("[cold_start] `starts` must be at least 1 (5 or more for statistics)".into())
            .into());
    }
    // --trials sets the number of starts.
    let starts = cx.args.trials.unwrap_or(spec.starts);
    Ok(Some(Arc::new(ColdStart { starts })))
}

/// Fresh starts per target.
#[derive(Debug)]
pub struct ColdStart {
    pub starts: u32,
}

impl Kind for ColdStart {
    fn adaptive_rounds(&self) -> bool {
        false
    }

    fn describe(&self, s: &mut ScenarioResult) {
        s.kind = ScenarioKind::ColdStart;
        s.trials_planned = self.starts;
    }

    fn trial_secs(&self, _: &crate::kind::ScenarioPlan) -> f64 {
        NOMINAL_START_S
    }

    fn run_alone(&self, cx: &mut ScenarioCx<'_>) -> Option<Result<()>> {
        Some(run(cx, self.starts))
    }
}

const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Nominal seconds one start takes, for progress (matches `ScenarioPlan::planned_load_secs`).
const NOMINAL_START_S: f64 = 2.0;

fn run(cx: &mut ScenarioCx<'_>, starts: u32) -> Result<()> {
    let (sp, si, plan, ctx) = (cx.sp, cx.si, cx.plan, cx.ctx);
    let (results, progress, install_failed, env) =
        (&mut *cx.results, &mut *cx.progress, cx.unavailable, cx.env);
    let out = &plan.out_dir;
    progress.line(&format!(
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
    ));
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
    for &ti in &runnable {
        let tr = &mut results.scenarios[si].targets[ti];
        let ok = tr.cold_starts.iter().filter(|c| c.outcome.is_ok()).count();
        if ctx.cancelled() && tr.cold_starts.len() < starts as usize {
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
    Ok(())
}

/// The first request (checked against its expected answer), the second, and memory.
fn measure_start(
    s: &mut Session,
    start: u32,
    variant: &gqlbench_engine::Variant,
) -> ColdStartSample {
    let ready_s = s.ready_s;
    let rss_at_ready = s.rss_idle_bytes;
    let v1 = gqlbench_engine::check_once(&s.endpoint, variant, REQUEST_TIMEOUT);
    let (_, rss_after, _) = vitals::read(s.process.pid, s.cgroup.as_deref());
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

pub fn summarize(samples: &[ColdStartSample]) -> Option<ColdStartSummary> {
    let ok: Vec<&ColdStartSample> = samples.iter().filter(|c| c.outcome.is_ok()).collect();
    if ok.is_empty() {
        return None;
    }
    let col = |f: &dyn Fn(&ColdStartSample) -> Option<f64>| -> Vec<f64> {
        ok.iter().filter_map(|c| f(c)).collect()
    };
    Some(ColdStartSummary {
        starts: samples.len() as u32,
        ok: ok.len() as u32,
        ready_s: stats::estimate(&col(&|c| c.ready_s)),
        first_request_s: stats::estimate(&col(&|c| c.first_request_s)),
        second_request_s: stats::estimate(&col(&|c| c.second_request_s)),
        rss_at_ready_bytes: stats::estimate(&col(&|c| c.rss_at_ready_bytes.map(|b| b as f64))),
    })
}

/// Cold starts: spawn to ready, first request, memory at start.
fn table(s: &ScenarioResult) -> Option<Table> {
    if s.kind != crate::results::ScenarioKind::ColdStart {
        return None;
    }
    let rows = s
        .targets
        .iter()
        .filter(|t| !crate::view::cells::not_installed(t))
        .map(|t| match &t.by_kind.get(&SUMMARY) {
            None => vec![
                t.name.clone(),
                format!("0/{}", t.cold_starts.len()),
                crate::view::cells::dash(),
                crate::view::cells::dash(),
                crate::view::cells::dash(),
                crate::view::cells::dash(),
                cold_problem(t),
            ],
            Some(c) => vec![
                t.name.clone(),
                format!("{}/{}", c.ok, c.starts),
                crate::view::cells::est_ms(&c.ready_s),
                crate::view::cells::est_ms(&c.first_request_s),
                crate::view::cells::est_ms(&c.second_request_s),
                // Starts that worked but whose memory could not be read: unmeasured.
                crate::units::fmt_bytes_or_unmeasured(
                    (c.rss_at_ready_bytes.n > 0).then_some(c.rss_at_ready_bytes.median as u64),
                ),
                cold_problem(t),
            ],
        })
        .collect();
    Some(Table {
        title: "cold start: median [min – max] over fresh starts (ms)".into(),
        headers: [
            "target",
            "starts ok",
            "spawn → ready ms",
            "first request ms",
            "second request ms",
            "RSS at ready",
            "problems",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

fn cold_problem(t: &TargetResult) -> String {
    let mut seen = Vec::new();
    for c in &t.cold_starts {
        if let Some(p) = &c.problem {
            let line = format!("{}: {p}", c.outcome);
            if !seen.contains(&line) {
                seen.push(line);
            }
        }
    }
    // When no start worked, the target's problem repeats a start's; it is shown only when
    // the starts say nothing (e.g. not installed).
    if seen.is_empty() {
        if let Some(p) = &t.problem {
            seen.push(p.clone());
        }
    }
    if seen.is_empty() {
        "-".into()
    } else {
        seen.join("; ")
    }
}

/// Cold starts in report.html: spawn → ready and the first request per target, each start
/// a ring, the median with the spread of the starts that worked.
fn html(s: &ScenarioResult) -> Vec<crate::view::Figure> {
    use crate::view::intervals::{Intervals, Row};
    use crate::view::{color_of, legend, Figure};
    if s.kind != ScenarioKind::ColdStart {
        return Vec::new();
    }
    let chart = |of: fn(&ColdStartSummary) -> &crate::results::Estimate,
                 each: fn(&ColdStartSample) -> Option<f64>| {
        let rows = s
            .targets
            .iter()
            .filter_map(|t| {
                let summary = t.by_kind.get(&SUMMARY)?;
                let e = of(&summary);
                (e.n > 0).then(|| Row {
                    label: t.name.clone(),
                    color: color_of(s, t),
                    center: e.median * 1000.0,
                    interval: Some((e.min * 1000.0, e.max * 1000.0)),
                    samples: t
                        .cold_starts
                        .iter()
                        .filter(|c| c.outcome.is_ok())
                        .filter_map(|c| each(c).map(|v| v * 1000.0))
                        .collect(),
                })
            })
            .collect();
        Intervals {
            x_desc: "milliseconds".into(),
            from_zero: true,
            zero_line: false,
            rows,
        }
    };
    let legend = legend(s, |t| t.by_kind.has(&SUMMARY));
    [
        Figure::of(
            "cold-start-ready",
            "Cold start: spawn to ready",
            "For each fresh start that worked (cold_starts[] with outcome ok): the time from spawning the target to its first correct { __typename } answer, polled every 2 ms. The dot is the median, the whisker runs from the fastest to the slowest start (as the table's median [min – max]), the rings are the starts. Failed starts are counted in the table, never drawn as times.",
            legend.clone(),
            chart(|c| &c.ready_s, |c| c.ready_s),
        ),
        Figure::of(
            "cold-start-first-request",
            "Cold start: the first request",
            "The latency of the first real request after ready (the scenario's first operation, its answer checked), per start that worked: cold_starts[].first_request_s; the dot is the median, the whisker the fastest to the slowest start, the rings the starts. The table beside it gives the second request, for contrast.",
            legend,
            chart(|c| &c.first_request_s, |c| c.first_request_s),
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(start: u32, ok: bool, ready: f64) -> ColdStartSample {
        ColdStartSample {
            start,
            outcome: if ok {
                StartOutcome::Ok
            } else {
                StartOutcome::Failed("never ready".into())
            },
            ready_s: ok.then_some(ready),
            first_request_s: ok.then_some(0.01),
            second_request_s: ok.then_some(0.002),
            rss_at_ready_bytes: ok.then_some(50 << 20),
            rss_after_first_bytes: ok.then_some(52 << 20),
            problem: (!ok).then(|| "not ready after 30s".into()),
        }
    }

    #[test]
    fn failed_starts_are_counted_not_averaged() {
        let s = vec![
            sample(1, true, 0.5),
            sample(2, false, 0.0),
            sample(3, true, 0.7),
            sample(4, true, 0.6),
        ];
        let x = summarize(&s).unwrap();
        assert_eq!((x.starts, x.ok), (4, 3));
        assert_eq!(x.ready_s.n, 3);
        assert!((x.ready_s.median - 0.6).abs() < 1e-9);
        assert!(summarize(&[sample(1, false, 0.0)]).is_none());
    }
}
