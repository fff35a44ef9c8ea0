//! Connection sweep: the closed-model load at each of several connection counts in turn,
//! within every trial (each step with its own warm-up, since new connections start cold).
//! Shows how throughput and latency move with concurrency. Asked for by a scenario's
//! `connection_sweep = [50, 100, 250, 500]`, or for any closed-model scenario by
//! `run --connection-sweep 50,100,...`.
use std::sync::Arc;

use anyhow::Result;

use crate::kind::load::conclude;
use crate::kind::{Kind, KindDef, ResolveCx, TrialCx};
use crate::measure::trial::Measured;
use crate::results::{now_rfc3339, ScenarioResult, SweepStep, TrialResult};
use crate::stats;
use crate::view::Table;

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    charts: |s| {
        csv(s)
            .map(|c| (format!("sweep-{}.csv", s.name), c))
            .into_iter()
            .collect()
    },
    html,
    list: |v, _, _| {
        let counts: Vec<String> = v
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_integer())
            .map(|c| c.to_string())
            .collect();
        format!("sweep {} conn", counts.join(", "))
    },
    not_in_k6: Some(
        "a sweep is one run per connection count; export it once per level with --connections N",
    ),
    levels_by_connections: true,
    ..KindDef::base("connection_sweep", resolve)
};

/// The connection counts, run in this order in every trial.
#[derive(Debug)]
pub struct ConnectionSweep {
    pub counts: Vec<u32>,
}

fn resolve(cx: &ResolveCx<'_>, _: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let from_file: Option<Vec<u32>> = cx.spec("connection_sweep")?;
    // The flag sweeps any closed-model scenario that has no other kind of its own.
    let other = ["sweep", "subscriptions", "cold_start"]
        .iter()
        .any(|k| cx.section(k).is_some());
    let counts = match (&cx.args.connection_sweep, from_file) {
        (Some(c), _) if !cx.load.is_open() && !other => c.clone(),
        (_, Some(c)) => c,
        _ => return Ok(None),
    };
    if counts.is_empty() || counts.contains(&0) {
        return Err(cx
            .bad(format!(
                "`connection_sweep` needs connection counts above zero, e.g. [50, 100, 250, 500] (got {counts:?})"
            ))
            .into());
    }
    if cx.load.is_open() {
        return Err(cx
            .bad("`connection_sweep` needs the closed model ([load] model = \"closed\")".into())
            .into());
    }
    Ok(Some(Arc::new(ConnectionSweep { counts })))
}

impl Kind for ConnectionSweep {
    fn adaptive_rounds(&self) -> bool {
        false
    }

    fn describe(&self, s: &mut ScenarioResult) {
        s.connection_sweep = Some(self.counts.clone());
    }

    fn trial_secs(&self, sp: &crate::kind::ScenarioPlan) -> f64 {
        (sp.warmup + sp.duration).as_secs_f64() * self.counts.len() as f64
    }

    fn trial(&self, cx: &mut TrialCx<'_>) -> TrialResult {
        let started_at = now_rfc3339();
        let (m, steps) = steps(cx, &self.counts);
        conclude(cx, started_at, m, Some(steps))
    }
}

/// Run the closed model at each connection count in turn (each step with its own warm-up,
/// since new connections start cold). The trial's figures are those of the step with the
/// highest throughput; a failure in any step makes the trial invalid.
fn steps(cx: &mut TrialCx<'_>, counts: &[u32]) -> (Measured, Vec<SweepStep>) {
    let mut steps = Vec::new();
    let mut best: Option<Measured> = None;
    let mut problems = Vec::new();
    for &c in counts {
        if cx.ctx.cancelled() {
            break;
        }
        let (load, label) = (
            cx.sp.load.with_connections(c),
            format!("{} @ {c} connections", cx.label),
        );
        let m = cx.measure(&load, cx.sp.warmup, cx.sp.duration, &label);
        steps.push(SweepStep {
            rate: None,
            connections: Some(c),
            achieved_rps: m.load.throughput_rps,
            p50_us: m.load.latency.p50_us,
            p99_us: m.load.latency.p99_us,
            failed: m.load.failed,
            flags: m.saturation.iter().map(|f| f.kind.clone()).collect(),
            held: m.load.failed == 0 && m.problems.is_empty() && !m.load.interrupted,
            phase: None,
            verdict: None,
            reason: None,
        });
        for p in &m.problems {
            problems.push(format!("{c} connections: {p}"));
        }
        if m.load.failed > 0 {
            problems.push(format!(
                "{c} connections: {} failed responses",
                m.load.failed
            ));
        }
        let better = best
            .as_ref()
            .map(|b| m.load.throughput_rps > b.load.throughput_rps)
            .unwrap_or(true);
        let dead = cx.sess.process.exited().is_some();
        if better {
            best = Some(m);
        }
        if dead {
            break;
        }
    }
    let mut m = best.unwrap_or_else(Measured::no_step);
    // The best step's own problems are already in `problems`; keep each once.
    m.problems = problems;
    (m, steps)
}

/// Connection sweep: per target, median req/s and p99 at each connection count.
fn table(s: &ScenarioResult) -> Option<Table> {
    let counts = s.connection_sweep.as_ref()?;
    let mut headers = vec!["target".to_string()];
    for c in counts {
        headers.push(format!("{c} conns: req/s, p99 ms"));
    }
    let rows = s
        .targets
        .iter()
        .filter(|t| !t.trials.is_empty())
        .map(|t| {
            let mut row = vec![t.name.clone()];
            for &c in counts {
                let steps: Vec<_> = t
                    .trials
                    .iter()
                    .filter_map(|x| x.sweep.as_ref())
                    .flat_map(|st| st.iter().filter(|x| x.connections == Some(c)))
                    .collect();
                if steps.is_empty() {
                    row.push("-".into());
                    continue;
                }
                let rps: Vec<f64> = steps.iter().map(|x| x.achieved_rps).collect();
                let p99: Vec<f64> = steps.iter().map(|x| x.p99_us as f64).collect();
                let failed: u64 = steps.iter().map(|x| x.failed).sum();
                row.push(format!(
                    "{}, {}{}",
                    crate::units::fmt_rps(stats::median(&rps)),
                    crate::units::fmt_ms(stats::median(&p99)),
                    if failed > 0 {
                        format!(" ({failed} FAILED)")
                    } else {
                        String::new()
                    }
                ));
            }
            row
        })
        .collect();
    Some(Table {
        title: format!(
            "load sweep: median over trials at each connection count (chart data: sweep-{}.csv)",
            s.name
        ),
        headers,
        rows,
    })
}

/// The sweep as CSV, one line per target, counted trial and step: the data behind a chart
/// of throughput and p99 against connections (a trial measured again after a burst of
/// noise is left out: its repeat carries the round).
fn csv(s: &ScenarioResult) -> Option<String> {
    s.connection_sweep.as_ref()?;
    let mut out = String::from("target,trial,connections,rps,p50_ms,p99_ms,failed\n");
    for t in &s.targets {
        for tr in crate::summary::counted_trials(t) {
            for st in tr.sweep.iter().flatten() {
                let Some(c) = st.connections else { continue };
                out.push_str(&format!(
                    "{},{},{},{:.1},{:.3},{:.3},{}\n",
                    t.name,
                    tr.trial,
                    c,
                    st.achieved_rps,
                    st.p50_us as f64 / 1000.0,
                    st.p99_us as f64 / 1000.0,
                    st.failed
                ));
            }
        }
    }
    Some(out)
}

/// The sweep in report.html: p99 against achieved req/s per target and trial, each step
/// labelled with its connection count.
fn html(s: &ScenarioResult) -> Vec<crate::view::Figure> {
    if s.connection_sweep.is_none() {
        return Vec::new();
    }
    vec![crate::view::curve::Curve {
        kind: "connection-sweep",
        title: "Connection sweep: p99 latency against throughput",
        about: "Each step of a trial (trials[].sweep[]: the closed model at one connection count, with its own warm-up) is a point at its achieved req/s and its p99, joined in the order of the counts; labels give the connection counts of each target's first trial. A dot is a step without failures, a ring one with failed responses. Where the curve turns upward, more connections only queue.".into(),
        steps: |tr| {
            tr.sweep
                .iter()
                .flatten()
                .filter(|x| x.connections.is_some())
                .collect()
        },
        note: |x| x.connections.map(|c| format!("{c} conn")),
    }
    .figure(s)]
}
