//! The kind API: what a scenario kind is and what it is given. A kind (`src/kinds/`, one
//! per file) implements [`Kind`]: its trial against a started target (through [`TrialCx`],
//! which measures with `measure::trial`), what it derives after each trial, or its whole
//! scenario when it runs alone ([`ScenarioCx`]). [`KindDef`] registers it: the scenario-file
//! section that asks for it, how it is built from that section ([`ResolveCx`]), and its
//! report tables and charts (`registry.rs`). The registry itself is `kinds::REGISTRY`, handed in by the
//! commands.
//!
//! A scenario has one *base* kind (plain load by default; a rate sweep, a connection sweep,
//! subscriptions or cold starts when its file has that section) and may be wrapped by
//! *decorating* kinds that add to it (a database behind the target, a depth check before
//! the load, a leak verdict after a long run). A decorator names its inner kind through
//! [`Kind::inner`], and every method it does not override is the inner kind's.
pub mod load;
mod registry;

pub use registry::*;

use std::collections::BTreeMap;

use anyhow::Result;

use crate::measure::database::RunDatabase;
use crate::measure::session::Session;
use crate::measure::RunContext;
use crate::plan::load::Load;
use crate::progress::Progress;
use crate::results::{RunResults, ScenarioResult, TargetResult, TrialResult};

/// Everything one trial of one started target needs.
pub struct TrialCx<'a> {
    pub sp: &'a ScenarioPlan,
    pub plan: &'a RunPlan,
    pub ctx: &'a RunContext,
    pub sess: &'a mut Session,
    /// The scenario's operations in the engine's form.
    pub ops: &'a [gqlbench_engine::Operation],
    pub trial: u32,
    /// The target's process has served no load yet (its first trial, or a fresh process
    /// of a race's later round): its JIT is still tiering up.
    pub fresh: bool,
    /// The warm-up its target needs after a fresh start (`start.warmup`; zero for most).
    pub own_warmup: std::time::Duration,
    /// This target's place in the trial's rotated order (1-based).
    pub position: u32,
    /// "<scenario> trial k/n <target>", for progress lines.
    pub label: &'a str,
    /// What this trial may do beyond its minimum ends by then (its share of the run's time
    /// budget; `measure::budget`): a rate sweep's further steps.
    pub deadline: Option<std::time::Instant>,
    pub progress: &'a mut Progress,
    /// The run's PostgreSQL, for database scenarios.
    pub db: Option<&'a mut RunDatabase>,
}

impl TrialCx<'_> {
    /// One engine run against this trial's target (see `measure::trial::measure`).
    pub fn measure(
        &mut self,
        load: &Load,
        warmup: std::time::Duration,
        duration: std::time::Duration,
        label: &str,
    ) -> crate::measure::trial::Measured {
        // The scenario's own warm-up runs until steady when its profile allows; a sweep's
        // later steps pass their own (none).
        let sp = self.sp;
        let own = warmup == sp.warmup && self.fresh && self.own_warmup > warmup;
        let w = if own {
            // A target that names its own warm-up (a JVM) gets it on a fresh process, until
            // steady; the scenario's is the least every target has.
            crate::measure::trial::Warmup::UntilSteady {
                min: self.own_warmup,
                max: (2 * self.own_warmup).max(sp.warmup_max),
                own: true,
            }
        } else if warmup == sp.warmup && sp.warmup_max > sp.warmup {
            // A target's first trial warms up longer: its JIT is still tiering up.
            let min = if self.fresh {
                sp.warmup
                    .max(crate::measure::warmup::FIRST_MIN)
                    .min(sp.warmup_max)
            } else {
                sp.warmup
            };
            crate::measure::trial::Warmup::UntilSteady {
                min,
                max: sp.warmup_max,
                own: false,
            }
        } else {
            crate::measure::trial::Warmup::Fixed(warmup)
        };
        let cx = crate::measure::trial::MeasureCx {
            plan: self.plan,
            ctx: self.ctx,
            sess: self.sess,
            ops: self.ops,
            progress: self.progress,
        };
        crate::measure::trial::measure(cx, load, w, duration, label)
    }
}

/// Everything a kind that runs its scenario on its own (cold starts) needs.
pub struct ScenarioCx<'a> {
    pub sp: &'a ScenarioPlan,
    /// Index of the scenario in `results.scenarios`.
    pub si: usize,
    pub plan: &'a RunPlan,
    pub ctx: &'a RunContext,
    pub results: &'a mut RunResults,
    pub progress: &'a mut Progress,
    /// Targets that cannot run (install failed, not installed).
    pub unavailable: &'a [crate::results::Unavailable],
    pub env: &'a BTreeMap<String, String>,
    /// The run's PostgreSQL, for database scenarios.
    pub db: Option<&'a mut RunDatabase>,
    /// Rounds added for precision end by then (the run's time budget).
    pub deadline: Option<std::time::Instant>,
    /// The run's time budget, which learns how long trials and starts take.
    pub budget: &'a mut crate::measure::budget::Budget,
}

/// What a scenario measures, at run time. Every method has a default: a decorator's is its
/// inner kind's, a base kind's is plain load.
pub trait Kind: std::fmt::Debug + Send + Sync {
    /// The kind this one decorates, if it is a decorator.
    fn inner(&self) -> Option<&dyn Kind> {
        None
    }

    /// Writes the scenario result's fields that describe this kind.
    fn describe(&self, s: &mut ScenarioResult) {
        if let Some(k) = self.inner() {
            k.describe(s)
        }
    }

    /// The real trace collector tracing variants export through (`[overhead]
    /// trace_collector`), if any.
    fn trace_collector(&self) -> Option<&crate::catalog::TargetDef> {
        self.inner().and_then(|k| k.trace_collector())
    }

    /// Trials per target, given the profile's (cold starts count starts instead).
    fn trials(&self, planned: u32) -> u32 {
        self.inner().map_or(planned, |k| k.trials(planned))
    }

    /// Whether rounds may be added until the rows' intervals or the ranking are decided
    /// (`summary::rounds`): kinds whose trial is one throughput figure.
    fn adaptive_rounds(&self) -> bool {
        self.inner().is_none_or(|k| k.adaptive_rounds())
    }

    /// Whether a round may measure the scenario's targets together, alternating in short
    /// slices (`runner::alternating`) instead of one after another: kinds whose trial is
    /// one plain load run and nothing read beside it (a decorator that only checks its
    /// targets before their trials says what its inner kind says).
    fn alternates(&self) -> bool {
        false
    }

    /// Whether the scenario's operations are queries with expected answers (subscriptions
    /// read their document themselves).
    fn reads_operations(&self) -> bool {
        self.inner().is_none_or(|k| k.reads_operations())
    }

    /// How the scenario's operations are sent: in batches, as persisted queries, as
    /// distinct copies (each decorator sets its part over its inner kind's).
    fn form(&self) -> crate::catalog::forms::OperationForm {
        self.inner().map(|k| k.form()).unwrap_or_default()
    }

    /// Every load a trial may run, checked against the engine before anything starts.
    fn loads(&self, load: &Load) -> Vec<Load> {
        match self.inner() {
            Some(k) => k.loads(load),
            None => vec![load.clone()],
        }
    }

    /// Seconds of load one trial of one target takes (progress, ETA).
    fn trial_secs(&self, sp: &ScenarioPlan) -> f64 {
        match self.inner() {
            Some(k) => k.trial_secs(sp),
            None => (sp.warmup + sp.duration).as_secs_f64(),
        }
    }

    /// Seconds of load the shortest trial takes that the run's time budget may cut it to
    /// (`measure::budget`): a whole trial, unless the kind stops early when told.
    fn min_trial_secs(&self, sp: &ScenarioPlan) -> f64 {
        match self.inner() {
            Some(k) => k.min_trial_secs(sp),
            None => self.trial_secs(sp),
        }
    }

    /// Environment the targets are started with.
    fn env(&self, env: &mut BTreeMap<String, String>) {
        if let Some(k) = self.inner() {
            k.env(env)
        }
    }

    /// Files the run writes beside its results before the scenario's targets start, each
    /// named to them by an environment variable holding its absolute path (a persisted
    /// documents manifest).
    fn run_files(&self, sp: &ScenarioPlan) -> Vec<RunFile> {
        self.inner().map(|k| k.run_files(sp)).unwrap_or_default()
    }

    /// Whether servers count their executions for this scenario (the runner gives each a
    /// counters port: `measure::session::COUNTERS_PORT_ENV`).
    fn counts_executions(&self) -> bool {
        self.inner().is_some_and(|k| k.counts_executions())
    }

    /// The database resolvers a target must serve from, if any (the runner starts the
    /// run's PostgreSQL for it).
    fn database(&self) -> Option<crate::db::Resolvers> {
        self.inner().and_then(|k| k.database())
    }

    /// Checks a started target before its answers are checked and its trials run (the
    /// depth limit); what it finds goes into `tr` and, in words, to `progress`.
    fn prepare(
        &self,
        sp: &ScenarioPlan,
        sess: &Session,
        tr: &mut TargetResult,
        progress: &Progress,
    ) {
        if let Some(k) = self.inner() {
            k.prepare(sp, sess, tr, progress)
        }
    }

    /// One trial of one started target.
    fn trial(&self, cx: &mut TrialCx<'_>) -> TrialResult {
        match self.inner() {
            Some(k) => k.trial(cx),
            None => load::trial(cx),
        }
    }

    /// Why a target that answered an operation wrong before its trials is not measured,
    /// when this kind knows better than "operation X: <the difference>".
    fn wrong_answer_problem(&self, tr: &TargetResult, detail: &str) -> Option<String> {
        self.inner()
            .and_then(|k| k.wrong_answer_problem(tr, detail))
    }

    /// After each trial, with the target's summary made: what this kind derives from it
    /// (a base kind's: plain load's, the row's checks against its load).
    fn summarize(&self, sp: &ScenarioPlan, tr: &mut TargetResult) {
        match self.inner() {
            Some(k) => k.summarize(sp, tr),
            None => load::summarize(sp, tr),
        }
    }

    /// The progress line of a finished trial.
    fn trial_line(&self, label: &str, t: &TrialResult) -> String {
        match self.inner() {
            Some(k) => k.trial_line(label, t),
            None => load::trial_line(label, t),
        }
    }

    /// With every target started and checked, before the first round: what the kind
    /// measures once for the whole scenario (an efficiency scenario's rate, when it is a
    /// share of what the targets serve). It may stop a session (`None`) after recording
    /// why in the target's row.
    fn before_rounds(
        &self,
        cx: &mut ScenarioCx<'_>,
        sessions: &mut [Option<Session>],
        ops: &[gqlbench_engine::Operation],
    ) -> Result<()> {
        match self.inner() {
            Some(k) => k.before_rounds(cx, sessions, ops),
            None => Ok(()),
        }
    }

    /// Runs the whole scenario itself, instead of trials over targets started once.
    fn run_alone(&self, cx: &mut ScenarioCx<'_>) -> Option<Result<()>> {
        self.inner().and_then(|k| k.run_alone(cx))
    }
}

/// A file a scenario's targets read (`Kind::run_files`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFile {
    /// Its name in the run's folder.
    pub name: String,
    pub text: Vec<u8>,
    /// The variable that gives targets its path.
    pub env: &'static str,
}

/// A scenario's plan with its kind (`plan::ScenarioPlan` is generic so that the floors below
/// the kinds can read a plan without naming the kind API).
pub type ScenarioPlan = crate::plan::ScenarioPlan<dyn Kind>;
/// A run's plan with its scenarios' kinds.
pub type RunPlan = crate::plan::RunPlan<dyn Kind>;
