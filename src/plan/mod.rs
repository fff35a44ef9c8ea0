//! Plans: what to run, resolved once from the CLI, the scenario files and the profile. The
//! runner receives only these; it never sees flags or raw manifests. A scenario's plan
//! holds its typed load and its kind (`src/kinds/`), which owns the rest.
pub mod ab;
pub mod alternation;
pub mod isolation;
pub mod load;
mod options;
mod precision;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::catalog::{OperationDef, TargetDef};
use crate::sys::cgroup::Limits;
pub use isolation::{resolve_isolation, IsolationPlan};
pub use load::{placeholder_endpoint, Load};
pub use options::{IsolationOptions, RunOptions, DEFAULT_PROFILE, DEFAULT_SUITE};
pub use precision::Precision;

/// One scenario as it will run. `K` is the kind (`kind::Kind` above this floor: the plan
/// is generic so that what sits below the kinds can read it without naming them).
#[derive(Debug)]
pub struct ScenarioPlan<K: ?Sized> {
    pub suite: String,
    pub name: String,
    pub description: String,
    pub workload: String,
    pub operations: Vec<(OperationDef, u32)>,
    pub targets: Vec<TargetDef>,
    /// Targets that say they cannot serve the workload (`[unsupported]`), with why: listed
    /// in the results, never started.
    pub not_supported: Vec<(String, String)>,
    pub load: Load,
    /// Trials per target always run (the minimum rounds).
    pub trials: u32,
    /// Rounds beyond `trials` until decided (`summary::rounds`).
    pub precision: crate::plan::Precision,
    pub warmup: Duration,
    /// Warm-up until steady, at most this long (equal to `warmup`: a fixed warm-up).
    pub warmup_max: Duration,
    pub duration: Duration,
    pub limits: Limits,
    /// Federation: subgraph delays (name -> range spec); Some when the scenario has
    /// `[subgraphs]` or its workload is "federation".
    pub subgraphs: Option<std::collections::BTreeMap<String, String>>,
    /// Which subgraphs a gateway is put in front of (`[subgraphs] graph`, or the user's
    /// own graph of `run federation --graph DIR`).
    pub graph: crate::catalog::graph::GraphPlan,
    /// What the scenario measures, and how.
    pub kind: Arc<K>,
    /// What the kind asks of the floors below it, worked out when the plan is made.
    pub needs: KindNeeds,
}

/// What a scenario's kind asks of the runner's machinery, as plain figures: the floors
/// below the kinds (`measure`) read these instead of calling the kind.
#[derive(Debug, Clone, Default)]
pub struct KindNeeds {
    /// Seconds of load one trial of one target takes (progress, ETA).
    pub trial_secs: f64,
    /// Seconds of the shortest trial the run's time budget may cut it to.
    pub min_trial_secs: f64,
    /// Trials per target the time budget counts (cold starts count starts).
    pub budget_trials: u32,
    /// Every load a trial may run (a connection sweep's counts, a ramp's stages).
    pub loads: Vec<Load>,
    /// The real trace collector tracing variants export through, if any.
    pub trace_collector: Option<TargetDef>,
    /// Whether servers count their executions for this scenario.
    pub counts_executions: bool,
    /// Whether a round may measure the targets together, alternating in slices: a kind
    /// that says so, in the closed model, with no helper read per trial (the run may still
    /// ask for one at a time).
    pub alternates: bool,
    /// Whether rounds may be added until decided (a race, with a precision).
    pub adaptive: bool,
}

/// The run's PostgreSQL, when a scenario needs one.
#[derive(Debug, Clone)]
pub struct DatabasePlan {
    /// Users to seed (posts, comments and followers follow from it).
    pub scale: u64,
    /// Folder for the temporary data directory (default: the system temp folder).
    pub dir: Option<PathBuf>,
}

/// Foreign CPU above this (% of one CPU over the window) makes a trial noisy, unless the
/// run says otherwise (`--interference-limit`, whose default this is).
pub const FOREIGN_LIMIT_PCT: f64 = 10.0;

/// Fewest users a database can be seeded with: the expected answers need the first 10,000.
pub const MIN_SCALE: u64 = 10_000;

#[derive(Debug)]
pub struct RunPlan<K: ?Sized> {
    pub suite: String,
    pub profile: String,
    pub scenarios: Vec<ScenarioPlan<K>>,
    pub out_dir: PathBuf,
    pub isolation: IsolationPlan,
    pub json: bool,
    pub database: Option<DatabasePlan>,
    /// The run's one time budget (`measure::budget`), counted after the installs.
    pub budget: Option<Duration>,
    /// Foreign CPU use (% of one CPU) above which a trial counts as disturbed.
    pub interference_limit_pct: f64,
    /// Steal (% of one CPU) above which a trial counts as disturbed.
    pub steal_limit_pct: f64,
    /// Extra environment for every target (`--target-env`), over the scenario's own.
    pub target_env: BTreeMap<String, String>,
    /// How the rounds of plain-load scenarios measure their targets: alternating in slices
    /// (the default), or one after another (None: `--one-at-a-time`).
    pub alternation: Option<alternation::Alternation>,
    /// The scenarios were named (`--scenarios`): the run keeps every one, even beyond its
    /// budget, where it may leave some of the suite's default scope out (`budget::scope`).
    pub scenarios_named: bool,
}

impl<K: ?Sized> RunPlan<K> {
    /// Most connections any trial of the plan opens at once (over every load a kind may
    /// run: a connection sweep's largest count, a ramp's highest stage).
    pub fn peak_connections(&self) -> u32 {
        self.scenarios
            .iter()
            .flat_map(|s| s.needs.loads.iter())
            .map(|l| l.peak_connections())
            .max()
            .unwrap_or(0)
    }

    /// Seconds of load (warm-up + measured) the plan asks for, for progress and ETA.
    pub fn planned_load_secs(&self) -> f64 {
        self.scenarios
            .iter()
            .map(ScenarioPlan::<K>::planned_load_secs)
            .sum()
    }
}

impl<K: ?Sized> ScenarioPlan<K> {
    /// The seconds the own warm-ups (`start.warmup`: a JVM) of the targets `who` (indices)
    /// take on fresh processes, for estimates: their least, which a JVM is steady soon after.
    pub fn own_warmup_s(&self, who: impl IntoIterator<Item = usize>) -> f64 {
        who.into_iter()
            .filter_map(|ti| self.targets[ti].start.warmup)
            .map(|d| d.as_secs_f64())
            .sum()
    }

    /// Whether its rounds race (`summary::race`): a precision asked for, and a kind whose
    /// trial is one throughput figure.
    pub fn races(&self) -> bool {
        self.needs.adaptive && self.precision.target.is_some()
    }

    /// Seconds of load this scenario asks for.
    pub fn planned_load_secs(&self) -> f64 {
        self.per_target_trial_secs() * self.trials as f64 * self.running_targets() as f64
    }

    /// The targets that will start: those that can front the scenario's graph (a gateway
    /// whose configuration names the built-in subgraphs is skipped on a graph of one's
    /// own, before anything starts).
    pub fn running_targets(&self) -> usize {
        self.targets
            .iter()
            .filter(|t| t.serves_graph(&self.graph).is_ok())
            .count()
    }

    /// Seconds of load one trial of one target takes.
    pub fn per_target_trial_secs(&self) -> f64 {
        self.needs.trial_secs
    }
}
