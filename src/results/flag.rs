//! Saturation flags: a trial's figure may describe the load generator or the schedule
//! rather than the target (the row is then not ranked), or carries a caveat (the row
//! stays valid and ranked). `saturation::check` raises most of them.
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SaturationFlag {
    pub kind: FlagKind,
    pub detail: String,
}

/// What a saturation flag says. results.json writes its snake_case name; a name this
/// version does not know (a newer file) is kept as it is.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(from = "String", into = "String")]
pub enum FlagKind {
    /// The load generator's CPU was near its limit.
    GeneratorCpu,
    /// Open model: requests left late (send lag p99 over its limit).
    SendLag,
    /// Open model: requests due were never sent.
    Unsent,
    /// Open model: the achieved rate fell short of the one asked for.
    RateShortfall,
    /// Closed model: the think-time cap, not the target, set the throughput.
    ClosedModelCap,
    /// Connections that carried no request.
    ConnectionsUnused,
    /// Other processes used the target's CPUs during the trial.
    SharedCpu,
    /// A gateway's subgraphs were the bottleneck.
    SubgraphCpu,
    /// A sweep ended by the load generator, not by the target.
    SweepGenerator,
    /// k6 dropped iterations (an imported run).
    DroppedIterations,
    /// Caveat: the warm-up never settled.
    Unsteady,
    /// Caveat: a disturbed trial that could not be measured again.
    Interference,
    /// Caveat: the run's time budget ended a sweep early (its figure is a lower bound).
    Budget,
    /// Caveat: a closed-model row's req/s disagrees with Little's law (connections over
    /// the mean latency) by more than its interval (`summary::little`).
    LittlesLaw,
    /// A name this version does not know.
    Other(String),
}

impl FlagKind {
    const NAMES: [(FlagKind, &'static str); 14] = [
        (FlagKind::GeneratorCpu, "generator_cpu"),
        (FlagKind::SendLag, "send_lag"),
        (FlagKind::Unsent, "unsent"),
        (FlagKind::RateShortfall, "rate_shortfall"),
        (FlagKind::ClosedModelCap, "closed_model_cap"),
        (FlagKind::ConnectionsUnused, "connections_unused"),
        (FlagKind::SharedCpu, "shared_cpu"),
        (FlagKind::SubgraphCpu, "subgraph_cpu"),
        (FlagKind::SweepGenerator, "sweep_generator"),
        (FlagKind::DroppedIterations, "dropped_iterations"),
        (FlagKind::Unsteady, "unsteady"),
        (FlagKind::Interference, "interference"),
        (FlagKind::Budget, "budget"),
        (FlagKind::LittlesLaw, "littles_law"),
    ];

    pub fn as_str(&self) -> &str {
        match self {
            FlagKind::Other(name) => name,
            k => FlagKind::NAMES
                .iter()
                .find(|(n, _)| n == k)
                .map_or("", |(_, s)| s),
        }
    }

    /// A caveat qualifies a figure without making it the generator's or the schedule's:
    /// the row stays valid, ranked and comparable (`saturation::is_caveat`).
    pub fn is_caveat(&self) -> bool {
        matches!(
            self,
            FlagKind::Unsteady | FlagKind::Interference | FlagKind::Budget | FlagKind::LittlesLaw
        )
    }
}

impl From<String> for FlagKind {
    fn from(s: String) -> FlagKind {
        FlagKind::NAMES
            .iter()
            .find(|(_, n)| *n == s)
            .map_or(FlagKind::Other(s), |(k, _)| k.clone())
    }
}

impl From<FlagKind> for String {
    fn from(k: FlagKind) -> String {
        k.as_str().to_string()
    }
}

impl std::fmt::Display for FlagKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_itself_and_an_unknown_one_is_kept() {
        for (kind, name) in FlagKind::NAMES.iter() {
            let json = serde_json::to_string(kind).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            let back: FlagKind = serde_json::from_str(&json).unwrap();
            assert_eq!(&back, kind);
        }
        let future: FlagKind = serde_json::from_str("\"gpu_throttle\"").unwrap();
        assert_eq!(future, FlagKind::Other("gpu_throttle".into()));
        assert_eq!(serde_json::to_string(&future).unwrap(), "\"gpu_throttle\"");
        let caveats: Vec<&str> = FlagKind::NAMES
            .iter()
            .filter(|(k, _)| k.is_caveat())
            .map(|(_, n)| *n)
            .collect();
        assert_eq!(
            caveats,
            ["unsteady", "interference", "budget", "littles_law"]
        );
    }
}
