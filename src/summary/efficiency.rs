//! What a trial at a fixed rate cost (`kinds::efficiency`, `[efficiency]`): the target's
//! CPU time per validated answer over the window, and its answers per CPU-second, the
//! figure an efficiency scenario's race ranks by (higher is cheaper). A trial that served
//! less than [`HELD`] of the offered rate has no cost: a target that quietly serves less must
//! not look cheap.
use serde::{Deserialize, Serialize};

use crate::results::{Key, ScenarioResult, TrialResult};

/// `efficiency` of a scenario: the rate its trials were sent.
pub const RATE: Key<Rate> = Key::new("efficiency");
/// `efficiency_probe` of a scenario whose rate is a share of what its targets served: the
/// probe of each started target at the start, before its rounds.
pub const PROBE: Key<Vec<Probe>> = Key::new("efficiency_probe");
/// `efficiency` of a trial: softirq time of the target's CPUs over the window, % of one
/// CPU (absent where /proc/stat could not be read).
pub const SOFTIRQ: Key<f64> = Key::new("target_softirq_pct");

/// Achieved over offered rate below which a trial gives no cost figure.
pub const HELD: f64 = 0.98;

/// The arrival rate every target of an efficiency scenario is sent.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
pub struct Rate {
    /// Requests per second, sent on schedule; 0 while a measured rate is not known (its
    /// probe found no target that answered).
    pub rate: f64,
    /// `[efficiency] share`: the rate is this share of the least any target served in the
    /// probe at the start ([`PROBE`]); None for a rate the file gives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
}

/// One target's probe: a short closed-model run at the start of a scenario whose rate is
/// measured, saturating whichever of the gateway and the CPUs the generator shares with
/// the subgraphs binds first.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
pub struct Probe {
    pub target: String,
    /// Validated answers per second over the probe's window.
    pub rps: f64,
    /// No failed response and the target stayed up: only valid probes set the rate.
    pub valid: bool,
    /// What bound it (`summary::bound`'s label: "gateway (CPU 97%)", "subgraphs (...)").
    pub bound: Option<String>,
    /// The generator's and the subgraphs' CPU over the window, each a fraction of the CPUs
    /// they share (the subgraphs' None where not measured, or not a federation target).
    pub generator_share: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subgraphs_share: Option<f64>,
    /// Subgraph requests per client request (warm-up included): below the plan's count
    /// where the gateway merged identical subgraph fetches in flight, which a saturating
    /// probe's concurrency allows and a lower rate's trials hardly do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls_per_request: Option<f64>,
    /// Why it is not valid.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// CPU time per request in µs: a process's average CPU share over the window (% of one
/// core) divided by the requests answered per second.
pub fn cpu_us_per_request(cpu_pct: f64, rps: f64) -> Option<f64> {
    (rps > 0.0 && cpu_pct.is_finite()).then(|| cpu_pct / 100.0 / rps * 1e6)
}

/// A trial's cost figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    /// The target's CPU time per validated answer, µs.
    pub us_per_request: f64,
    /// Validated answers per CPU-second of the target (1e6 / µs per request).
    pub per_core_second: f64,
}

/// The cost of a valid trial that held the offered `rate` (at least [`HELD`] of it) and
/// whose CPU was measured; None otherwise.
pub fn cost(rate: f64, x: &TrialResult) -> Option<Cost> {
    let rps = x.load.throughput_rps;
    let cpu = x.vitals.cpu_avg_pct?;
    if !x.valid || rate <= 0.0 || rps / rate < HELD || cpu <= 0.0 {
        return None;
    }
    let us = cpu_us_per_request(cpu, rps)?;
    Some(Cost {
        us_per_request: us,
        per_core_second: 1e6 / us,
    })
}

/// The figure a race ranks a trial of scenario `s` by: answers per CPU-second for an
/// efficiency scenario (None for a trial without a cost), its rate of answers otherwise.
pub fn ranked_figure(s: &ScenarioResult) -> impl Fn(&TrialResult) -> Option<f64> {
    let rate = s.by_kind.get(&RATE).map(|r| r.rate);
    move |x| match rate {
        Some(r) => cost(r, x).map(|c| c.per_core_second),
        None => (x.load.throughput_rps > 0.0).then_some(x.load.throughput_rps),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_efficiency_scenario_ranks_answers_per_cpu_second_on_each_pairs_own_rounds() {
        let mut s = ScenarioResult {
            rounds: Some(crate::results::RoundsInfo {
                run: 2,
                min: 2,
                max: 10,
                target_pct: Some(5.0),
                stop: crate::results::StopReason::Decided,
                canary: Vec::new(),
                slices: None,
                race: Some(crate::results::RaceInfo {
                    rule: crate::summary::race::RULE,
                    ..Default::default()
                }),
            }),
            ..Default::default()
        };
        let plain = trial(500.0, Some(25.0), true);
        // A throughput scenario ranks answers per second, and pools its rounds' noise.
        assert_eq!(ranked_figure(&s)(&plain), Some(500.0));
        assert!(crate::summary::standing::rule(&s).pooled);
        s.by_kind.set(
            &RATE,
            &Rate {
                rate: 500.0,
                share: None,
            },
        );
        let f = ranked_figure(&s);
        assert!(
            (f(&plain).unwrap() - 2000.0).abs() < 1e-9,
            "answers per CPU-second"
        );
        assert_eq!(
            f(&trial(400.0, Some(25.0), true)),
            None,
            "fell behind the rate"
        );
        assert!(
            !crate::summary::standing::rule(&s).pooled,
            "pairs on their own rounds"
        );
        assert!(!crate::summary::fixed_rate(&s), "a fixed rate that ranks");
    }

    fn trial(rps: f64, cpu: Option<f64>, valid: bool) -> TrialResult {
        let mut x = TrialResult::of_load(1, String::new(), Default::default());
        x.valid = valid;
        x.load.throughput_rps = rps;
        x.vitals.cpu_avg_pct = cpu;
        x
    }

    #[test]
    fn a_trial_costs_its_cpu_over_its_answers_only_when_it_held_the_rate() {
        // 25% of a CPU at 500 answers a second: 500 µs each, 2,000 per CPU-second.
        let c = cost(500.0, &trial(500.0, Some(25.0), true)).unwrap();
        assert!((c.us_per_request - 500.0).abs() < 1e-9, "{c:?}");
        assert!((c.per_core_second - 2000.0).abs() < 1e-9, "{c:?}");
        // 98% of the rate holds; 97% does not (a target serving less must not look cheap).
        assert!(cost(500.0, &trial(490.0, Some(25.0), true)).is_some());
        assert!(cost(500.0, &trial(485.0, Some(25.0), true)).is_none());
        // No CPU reading, an invalid trial: no cost, never a zero one.
        assert!(cost(500.0, &trial(500.0, None, true)).is_none());
        assert!(cost(500.0, &trial(500.0, Some(25.0), false)).is_none());
    }
}
