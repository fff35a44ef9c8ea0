//! Why a scenario stopped adding rounds (results.json `stop_reason`).
use serde::{Deserialize, Serialize};

/// Why a scenario stopped adding rounds.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Fixed number of rounds (no precision asked for).
    Fixed,
    /// Every valid row's interval is within the target.
    Precise,
    /// Every adjacent pair of the ranking is decided (faster, or equivalent).
    Decided,
    /// The most rounds the profile allows.
    MaxRounds,
    /// The run's time budget.
    Time,
    /// Interrupted, or no target left to measure.
    Ended,
}

impl StopReason {
    pub fn label(self) -> &'static str {
        match self {
            StopReason::Fixed => "fixed number of trials",
            StopReason::Precise => "every interval within the target",
            StopReason::Decided => "the ranking is decided",
            StopReason::MaxRounds => "budget: the most trials allowed",
            StopReason::Time => "budget: the run's time",
            StopReason::Ended => "ended (interrupted, or no target left)",
        }
    }
}
