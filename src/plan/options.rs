//! What a run is asked to do, as plain data: the suite, the scenarios and targets chosen,
//! the overrides of the profile, the isolation. The commands build it from the command
//! line (`commands::run::options`); everything below them reads this, never clap's types,
//! so a run can be planned without a command line (`export k6` does).
use std::path::PathBuf;
use std::time::Duration;

/// Where the generator and the targets run, as asked (`plan::resolve_isolation` checks it).
#[derive(Debug, Clone, Default)]
pub struct IsolationOptions {
    /// CPUs for the load generator ("0-3"); None: the default split.
    pub generator_cpus: Option<String>,
    /// CPUs for the targets; None: the default split.
    pub target_cpus: Option<String>,
    /// Do not pin at all.
    pub no_pin: bool,
    /// Do not apply cgroup limits.
    pub no_cgroups: bool,
    /// Run beside another gqlbench holding some of these CPUs.
    pub force_concurrent: bool,
}

/// The suite a run (and `check`) takes when none is named.
pub const DEFAULT_SUITE: &str = "servers";
/// The profile a run takes when none is named.
pub const DEFAULT_PROFILE: &str = "quick";

/// A run's options. `Default` is what `gqlbench run` does with no flags (the command line
/// takes its defaults from the same constants).
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub suite: String,
    /// Only these targets (empty: every target of each scenario).
    pub targets: Vec<String>,
    /// Only these scenarios (empty: every scenario that is not optional).
    pub scenarios: Vec<String>,
    /// Optional scenarios too.
    pub all: bool,
    pub profile: String,
    pub trials: Option<u32>,
    pub duration: Option<Duration>,
    pub warmup: Option<Duration>,
    pub warmup_max: Option<Duration>,
    /// Interval half-width wanted, in % (adds rounds until reached).
    pub precision: Option<f64>,
    pub max_trials: Option<u32>,
    /// Foreign CPU (% of one CPU) above which a trial counts as disturbed.
    pub interference_limit: Option<f64>,
    /// Steal (% of one CPU) above which a trial counts as disturbed.
    pub steal_limit: Option<f64>,
    /// `NAME=VALUE` for every target, checked by the planner.
    pub target_env: Vec<String>,
    pub max_time: Option<Duration>,
    pub connections: Option<u32>,
    pub connection_sweep: Option<Vec<u32>>,
    /// Users the database is seeded with.
    pub scale: u64,
    pub db_dir: Option<PathBuf>,
    pub out: Option<PathBuf>,
    pub json: bool,
    pub isolation: IsolationOptions,
    /// The slice of alternating rounds (None: the default).
    pub slice: Option<Duration>,
    /// Each target's trial alone, one after another, instead of alternating.
    pub one_at_a_time: bool,
    /// A user's own graph folder (`--graph DIR`, federation suite only).
    pub graph: Option<PathBuf>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            suite: DEFAULT_SUITE.into(),
            targets: Vec::new(),
            scenarios: Vec::new(),
            all: false,
            profile: DEFAULT_PROFILE.into(),
            trials: None,
            duration: None,
            warmup: None,
            warmup_max: None,
            precision: None,
            max_trials: None,
            interference_limit: None,
            steal_limit: None,
            target_env: Vec::new(),
            max_time: None,
            connections: None,
            connection_sweep: None,
            scale: super::MIN_SCALE,
            db_dir: None,
            out: None,
            json: false,
            isolation: IsolationOptions::default(),
            slice: None,
            one_at_a_time: false,
            graph: None,
        }
    }
}
