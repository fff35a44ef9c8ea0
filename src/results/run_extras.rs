//! What a run records besides its scenarios' figures: what the machine showed at the
//! start, the scenarios it left out to keep its budget, and what each scenario's race did
//! (the targets each round measured, the fresh processes it started and their cost).
use serde::{Deserialize, Serialize};

use super::NoiseInfo;

/// What the machine showed at the start of the run (`measure::machine_probe`): the canary
/// on each CPU the run uses, the noise under a short load of the generator against a static
/// server, and the generator's requests per CPU-second.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct MachineProbe {
    /// ms per watched CPU (None: a CPU the canary could not be pinned to).
    pub canary_ms: Vec<Option<f64>>,
    pub noise: Option<NoiseInfo>,
    pub generator_rps_per_cpu_s: Option<f64>,
    /// Why the loaded part could not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Scenarios a run left out of the suite's default scope because their minimums did not fit
/// its budget after the others' (`measure::budget::scope`), and the command that runs them.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct LeftOut {
    pub scenarios: Vec<String>,
    /// Their minimums together, and the kept scenarios', at the start's estimates, seconds.
    pub minimum_s: f64,
    pub kept_minimum_s: f64,
    pub command: String,
    /// Scenarios the start's estimates left out and the run measured after all, once the
    /// pace it had measured showed their minimums fit what was left of the budget.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added_back: Vec<String>,
}

impl LeftOut {
    /// "left out to keep the time budget: cold-start, subscriptions-ws (their minimum 70 s
    /// did not fit after the others' 480 s); run them with: gqlbench run servers ...".
    pub fn line(&self) -> String {
        let back = if self.added_back.is_empty() {
            String::new()
        } else {
            format!(
                "; measured after all, once the run's own pace showed they fit: {}",
                self.added_back.join(", ")
            )
        };
        if self.scenarios.is_empty() {
            return format!(
                "every scenario of the default scope measured: the start's estimates left out {} and the run's own pace showed they fit",
                self.added_back.join(", ")
            );
        }
        format!(
            "left out to keep the time budget: {} (their minimum {:.0} s did not fit after the others' {:.0} s){back}; run them with: {}",
            self.scenarios.join(", "),
            self.minimum_s,
            self.kept_minimum_s,
            self.command
        )
    }
}

/// What a scenario's race did besides its figures.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct RaceInfo {
    /// The targets each round measured, by round (round 1 first).
    pub measured: Vec<Vec<String>>,
    /// Fresh processes started for rounds after the first, and the wall seconds their
    /// starts and warm-ups took (the price of sampling the processes' luck).
    pub restarts: u32,
    pub restart_s: f64,
    /// Wall seconds each round took, starts and warm-ups included.
    pub round_s: Vec<f64>,
    /// The blocks of each alternating round's window (Kalibera and Jones' rule sets them
    /// once the race has seen its noise).
    #[serde(default)]
    pub blocks: Vec<u32>,
    /// The looks its error rate was spread over: the rounds the scenario's share of the
    /// budget held at its start, at the machine's pace (at most its most rounds). Absent
    /// (no budget, or a results file from before): its most rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub looks: Option<u32>,
    /// The version of the race's rule that judged it (`summary::race::RULE`): a results
    /// file is judged again as its run judged it. 1 (absent): each pair on its own figures;
    /// 2: with the noise of a round pooled over the scenario's targets.
    #[serde(default = "first_rule")]
    pub rule: u32,
}

fn first_rule() -> u32 {
    1
}
