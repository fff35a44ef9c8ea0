//! Plain load, the default kind: each trial is one warm-up and one measured window at the
//! scenario's load (closed model: connections; open model: an arrival rate). What every
//! other kind of load measurement builds on.
use super::{Kind, TrialCx};
use crate::measure::trial::conclude;
use crate::results::{now_rfc3339, TrialResult};

/// Throughput and latency under the scenario's load.
#[derive(Debug)]
pub struct Load;

impl Kind for Load {}

/// One trial: a warm-up and a measured window at the scenario's load.
pub fn trial(cx: &mut TrialCx<'_>) -> TrialResult {
    let started_at = now_rfc3339();
    let (load, label) = (cx.sp.load.clone(), cx.label.to_string());
    let m = cx.measure(&load, cx.sp.warmup, cx.sp.duration, &label);
    conclude(cx, started_at, m, None)
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
