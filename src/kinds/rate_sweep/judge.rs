//! Whose limit a lost sweep step shows: the target's (failed responses, a dead target, p99
//! over the limit while the requests' own latency from their actual send is over it too)
//! or the generator's (requests not sent, or a p99 over the limit that only the send lag
//! explains). Send lag alone never loses a step whose p99, lag included, is within the
//! limit: the target held that rate.
use std::time::Duration;

use gqlbench_engine::LoadResult;

use crate::results::{FlagKind, SaturationFlag};

/// Whose limit a step showed.
#[derive(Debug, Clone, PartialEq)]
pub enum StepVerdict {
    Held,
    /// The target could not hold the rate (the reason in words).
    Target(String),
    /// The generator could not deliver the rate; says nothing about the target.
    Generator(String),
}

impl StepVerdict {
    pub fn name(&self) -> &'static str {
        match self {
            StepVerdict::Held => "held",
            StepVerdict::Target(_) => "target",
            StepVerdict::Generator(_) => "generator",
        }
    }
    pub fn reason(&self) -> Option<String> {
        match self {
            StepVerdict::Held => None,
            StepVerdict::Target(r) | StepVerdict::Generator(r) => Some(r.clone()),
        }
    }
}

/// Judges one step from what was measured.
pub fn judge_step(
    load: &LoadResult,
    flags: &[SaturationFlag],
    problems: &[String],
    limit: Duration,
) -> StepVerdict {
    if let Some(p) = problems.first() {
        return StepVerdict::Target(p.clone());
    }
    if load.failed > 0 {
        return StepVerdict::Target(format!("{} failed responses", load.failed));
    }
    let limit_us = limit.as_micros() as u64;
    let ms = |us: u64| us as f64 / 1000.0;
    let p99 = load.latency.p99_us;
    if p99 > limit_us {
        // Latency is counted from the intended send time: when the requests' own p99 (from
        // the actual send) is within the limit, the lag before sending made up the rest.
        let own = load.uncorrected_latency.as_ref().map_or(p99, |u| u.p99_us);
        if own <= limit_us {
            let lag = load.send_lag.as_ref().map_or(0, |l| l.p99_us);
            return StepVerdict::Generator(format!(
                "p99 {:.1} ms over the limit only from the intended send time: requests left late (send lag p99 {:.1} ms), the target answered within {:.1} ms",
                ms(p99),
                ms(lag),
                ms(own)
            ));
        }
        return StepVerdict::Target(format!("p99 {:.1} ms > {:.0} ms", ms(p99), ms(limit_us)));
    }
    // Requests never sent mean the rate was not delivered; a busy generator is then the
    // likely cause (a slow target shows in p99 first).
    for kind in [FlagKind::Unsent, FlagKind::RateShortfall] {
        if let Some(f) = flags.iter().find(|f| f.kind == kind) {
            return StepVerdict::Generator(f.detail.clone());
        }
    }
    StepVerdict::Held
}

#[cfg(test)]
mod tests {
    use super::*;
    use gqlbench_engine::LatencySummary;

    fn lat(p99_ms: u64) -> LatencySummary {
        LatencySummary {
            count: 100,
            p99_us: p99_ms * 1000,
            ..Default::default()
        }
    }

    fn step(p99: u64, own: u64, lag: u64, failed: u64) -> LoadResult {
        LoadResult {
            requests: 100,
            ok: 100 - failed,
            failed,
            latency: lat(p99),
            uncorrected_latency: Some(lat(own)),
            send_lag: Some(lat(lag)),
            ..Default::default()
        }
    }

    fn flag(kind: &str) -> SaturationFlag {
        SaturationFlag {
            kind: FlagKind::from(kind.to_string()),
            detail: format!("{kind} detail"),
        }
    }

    #[test]
    fn send_lag_alone_never_loses_a_step_within_the_limit() {
        // The step: p50 3.7 ms, p99 9.7 ms, flagged send_lag at 8 req/s.
        let l = step(10, 4, 6, 0);
        let v = judge_step(&l, &[flag("send_lag")], &[], Duration::from_millis(500));
        assert_eq!(v, StepVerdict::Held);
    }

    #[test]
    fn whose_limit_a_lost_step_shows() {
        let limit = Duration::from_millis(500);
        // Slow answers: the target's.
        assert!(matches!(
            judge_step(&step(900, 880, 1, 0), &[], &[], limit),
            StepVerdict::Target(r) if r.contains("p99 900.0 ms > 500 ms")
        ));
        // Over the limit only counting from the intended time: the generator's.
        assert!(matches!(
            judge_step(&step(700, 20, 690, 0), &[flag("send_lag")], &[], limit),
            StepVerdict::Generator(r) if r.contains("send lag p99 690.0 ms")
        ));
        // Failures and a dead target are the target's, whatever else happened.
        assert!(matches!(
            judge_step(&step(10, 10, 1, 3), &[flag("unsent")], &[], limit),
            StepVerdict::Target(r) if r.contains("3 failed")
        ));
        assert!(matches!(
            judge_step(&step(10, 10, 1, 0), &[], &["target exited".into()], limit),
            StepVerdict::Target(r) if r == "target exited"
        ));
        // Requests never sent at a p99 within the limit: the rate was not delivered.
        assert!(matches!(
            judge_step(&step(10, 10, 1, 0), &[flag("unsent")], &[], limit),
            StepVerdict::Generator(r) if r == "unsent detail"
        ));
    }
}
