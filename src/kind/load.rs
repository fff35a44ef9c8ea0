//! Plain load, the default kind: each trial is one warm-up and one measured window at the
//! scenario's load (closed model: connections; open model: an arrival rate). What every
//! other kind of load measurement builds on.
use crate::kind::{Kind, TrialCx};
use crate::measure::trial::Measured;
use crate::results::{now_rfc3339, SweepStep, TrialResult};

/// Throughput and latency under the scenario's load.
#[derive(Debug)]
pub struct Load;

impl Kind for Load {
    fn alternates(&self) -> bool {
        true
    }
}

/// One trial: a warm-up and a measured window at the scenario's load.
pub fn trial(cx: &mut TrialCx<'_>) -> TrialResult {
    let sp = cx.sp;
    trial_of(cx, &sp.load)
}

/// One trial at `load`, the scenario's or one its kind sends instead (a fixed rate).
pub fn trial_of(cx: &mut TrialCx<'_>, load: &crate::plan::Load) -> TrialResult {
    let started_at = now_rfc3339();
    let label = cx.label.to_string();
    let m = cx.measure(load, cx.sp.warmup, cx.sp.duration, &label);
    conclude(cx, started_at, m, None)
}

/// What plain load derives from a target's summary: a closed-model row's interval floored
/// at its trials' step, and its req/s against Little's law (`summary::checks`). Judged by
/// the load the kind sends when it sends one (a fixed rate is the open model whatever the
/// file's [load] says), else by the file's.
pub fn summarize(sp: &crate::kind::ScenarioPlan, tr: &mut crate::results::TargetResult) {
    let info = match sp.kind.loads(&sp.load).as_slice() {
        [one] => one.info(),
        _ => sp.load.info(),
    };
    crate::summary::checks::apply(&info, tr);
}

/// "<label>: 12,345 req/s, p99 3.2 ms, 0 failed".
pub fn trial_line(label: &str, t: &TrialResult) -> String {
    let (caveats, flags): (Vec<_>, Vec<_>) = t
        .saturation
        .iter()
        .partition(|f| crate::saturation::is_caveat(f));
    let caveats: Vec<&str> = caveats.iter().map(|f| f.kind.as_str()).collect();
    format!(
        "  {label}: {:.0} req/s, p99 {:.1} ms, {} failed{}{}{}",
        t.load.throughput_rps,
        t.load.latency.p99_us as f64 / 1000.0,
        t.load.failed,
        if flags.is_empty() { "" } else { " [SATURATED]" },
        if caveats.is_empty() {
            String::new()
        } else {
            format!(" [{}]", caveats.join(", "))
        },
        if t.valid { "" } else { " [INVALID]" }
    )
}

/// A run's problems, its own and what its figures say (failed responses, a target that
/// exited, an interruption, nothing answered): none means valid.
pub fn problems_of(
    mut problems: Vec<String>,
    load: &gqlbench_engine::LoadResult,
    exited: Option<std::process::ExitStatus>,
) -> Vec<String> {
    if load.failed > 0 {
        problems.push(format!("{} failed responses", load.failed));
    }
    if let Some(st) = exited {
        problems.push(format!("target exited ({st})"));
    }
    if load.interrupted {
        problems.push("interrupted".into());
    }
    if load.requests == 0 && problems.is_empty() {
        problems.push(
            "no request was sent and answered within the measured window: the target may be slower than the window is long (raise --duration)"
                .into(),
        );
    }
    problems
}

/// The trial made of what was measured: its problems (failed responses, a target that
/// exited, nothing answered) decide its validity. `started_at` is when the trial began.
pub fn conclude(
    cx: &mut TrialCx<'_>,
    started_at: String,
    m: Measured,
    sweep: Option<Vec<SweepStep>>,
) -> TrialResult {
    let exited = cx.sess.process.exited();
    let problems = problems_of(m.problems, &m.load, exited);
    TrialResult {
        trial: cx.trial,
        position: cx.position,
        started_at,
        valid: problems.is_empty(),
        problems,
        load: m.load,
        vitals: m.vitals,
        generator: m.generator,
        saturation: m.saturation,
        upstream: m.upstream,
        tracing: m.tracing,
        warmup: m.warmup,
        noise: m.noise,
        excluded: None,
        sweep,
        database: None,
        subscriptions: None,
        alternated: None,
        by_kind: Default::default(),
    }
}
