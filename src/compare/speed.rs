//! Machine-speed adjustment of a comparison between two runs. The development VM's speed
//! drifts by up to ~10% between runs minutes apart (host load), and the canary (fixed CPU
//! work timed before and after every round) tracks it: five runs of node-baseline with a
//! fixed work per request had centers 4,796 to 5,238 req/s and canaries 4.45 to 4.03 ms
//! (docs/performance.md). Within one run the rounds are blocks (paired comparisons);
//! between runs, this scaling is what cancels the drift.
use crate::results::{ScenarioResult, TargetResult};
use crate::summary::used_trials;

/// The row's counted req/s (the summary's samples: valid trials not excluded, or all
/// counted trials when none is valid), each multiplied by its round's canary time in ms:
/// "req/s at a canary of 1 ms". None when any counted trial has no canary timing.
pub fn adjusted_samples(s: &ScenarioResult, t: &TargetResult) -> Option<Vec<f64>> {
    let rounds = s.rounds.as_ref()?;
    let used = used_trials(t);
    if used.is_empty() {
        return None;
    }
    used.iter()
        .map(|x| Some(x.load.throughput_rps * rounds.canary_ms(x.trial)?))
        .collect()
}

/// The median canary time (ms) over the rounds of the row's used trials.
pub fn median_canary_ms(s: &ScenarioResult, t: &TargetResult) -> Option<f64> {
    let rounds = s.rounds.as_ref()?;
    let mut ms: Vec<f64> = used_trials(t)
        .iter()
        .filter_map(|x| rounds.canary_ms(x.trial))
        .collect();
    if ms.is_empty() {
        return None;
    }
    ms.sort_by(f64::total_cmp);
    let n = ms.len();
    Some(if n % 2 == 1 {
        ms[n / 2]
    } else {
        (ms[n / 2 - 1] + ms[n / 2]) / 2.0
    })
}
