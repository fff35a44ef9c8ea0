//! The kind API: what a scenario kind is and what it is given. A kind (`src/kinds/`, one
//! per file) implements [`Kind`]: its trial against a started target (through [`TrialCx`],
//! which measures with `measure::trial`), what it derives after each trial, or its whole
//! scenario when it runs alone ([`ScenarioCx`]). [`KindDef`] registers it: the scenario-file
//! section that asks for it, how it is built from that section ([`ResolveCx`]), and its
//! report tables and charts. The registry itself is `kinds::REGISTRY`, handed in by the
//! commands.
//!
//! A scenario has one *base* kind (plain load by default; a rate sweep, a connection sweep,
//! subscriptions or cold starts when its file has that section) and may be wrapped by
//! *decorating* kinds that add to it (a database behind the target, a depth check before
//! the load, a leak verdict after a long run). A decorator names its inner kind through
//! [`Kind::inner`], and every method it does not override is the inner kind's.
pub mod load;

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Result;

use crate::catalog::scenario::{ScenarioDef, ScenarioFile};
use crate::catalog::Catalog;
use crate::measure::database::RunDatabase;
use crate::measure::session::Session;
use crate::measure::RunContext;
use crate::plan::load::Load;
use crate::plan::RunOptions;
use crate::progress::Progress;
use crate::results::{RunResults, ScenarioResult, TargetResult, TrialResult};
use crate::view::Table;

/// Everything one trial of one started target needs.
pub struct TrialCx<'a> {
    pub sp: &'a ScenarioPlan,
    pub plan: &'a RunPlan,
    pub ctx: &'a RunContext,
    pub sess: &'a mut Session,
    /// The scenario's operations in the engine's form.
    pub ops: &'a [gqlbench_engine::Operation],
    pub trial: u32,
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
        let w = if warmup == sp.warmup && sp.warmup_max > sp.warmup {
            // A target's first trial warms up longer: its JIT is still tiering up.
            let min = if self.trial == 1 {
                sp.warmup
                    .max(crate::measure::warmup::FIRST_MIN)
                    .min(sp.warmup_max)
            } else {
                sp.warmup
            };
            crate::measure::trial::Warmup::UntilSteady {
                min,
                max: sp.warmup_max,
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

    /// After each trial, with the target's summary made: what this kind derives from it.
    fn summarize(&self, sp: &ScenarioPlan, tr: &mut TargetResult) {
        if let Some(k) = self.inner() {
            k.summarize(sp, tr)
        }
    }

    /// The progress line of a finished trial.
    fn trial_line(&self, label: &str, t: &TrialResult) -> String {
        match self.inner() {
            Some(k) => k.trial_line(label, t),
            None => load::trial_line(label, t),
        }
    }

    /// Runs the whole scenario itself, instead of trials over targets started once.
    fn run_alone(&self, cx: &mut ScenarioCx<'_>) -> Option<Result<()>> {
        self.inner().and_then(|k| k.run_alone(cx))
    }
}

/// What resolving a scenario's kinds has at hand.
pub struct ResolveCx<'a> {
    pub cat: &'a Catalog,
    pub def: &'a ScenarioDef,
    pub args: &'a RunOptions,
    /// The profile in force (its name picks `[profiles.<name>.<section>]` overrides).
    pub profile: &'a str,
    pub load: &'a Load,
}

impl ResolveCx<'_> {
    /// The scenario's `[section]`, or its profile's override of it.
    pub fn section(&self, name: &str) -> Option<&toml::Value> {
        let f = &self.def.file;
        f.profiles
            .get(self.profile)
            .and_then(|p| p.sections.get(name))
            .or_else(|| f.sections.get(name))
    }

    /// A section deserialized into a kind's spec; the error names the file and section.
    pub fn spec<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<Option<T>> {
        let Some(v) = self.section(name) else {
            return Ok(None);
        };
        v.clone()
            .try_into()
            .map(Some)
            .map_err(|e| self.bad(format!("[{name}]: {e}")).into())
    }

    pub fn bad(&self, message: String) -> crate::error::CatalogError {
        crate::error::CatalogError::File {
            file: self.def.path.clone(),
            message,
        }
    }
}

/// Builds a kind from its section, if present; a decorator gets the kind it wraps.
pub type Resolver = fn(&ResolveCx<'_>, Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>>;

/// A registered kind: the section it reads, how it is built, and its report.
pub struct KindDef {
    /// The scenario-file section (or key) that asks for it.
    pub section: &'static str,
    /// Builds the kind when the section is present. A base kind gets None as `inner`; a
    /// decorator gets the kind it wraps.
    pub resolve: Resolver,
    /// Whether it wraps another kind (decorators are applied after the base kind).
    pub decorator: bool,
    /// Its report tables, from a saved result alone (reports are rebuilt from results.json).
    pub tables: fn(&ScenarioResult) -> Vec<Table>,
    /// Its chart files (name, CSV text).
    pub charts: fn(&ScenarioResult) -> Vec<(String, String)>,
    /// Its charts in report.html, from a saved result alone (beside those every throughput
    /// scenario has: `report::html::load`).
    pub html: fn(&ScenarioResult) -> Vec<crate::view::Figure>,
    /// `gqlbench list`'s load column: given the section and the column so far (the plain
    /// load), what to show instead.
    pub list: fn(&toml::Value, &ScenarioFile, String) -> String,
    /// `gqlbench check` leaves a scenario of this kind out: its run checks what it needs
    /// (no expected answers, refusals by design, the same operations served elsewhere).
    pub skip_in_check: fn(&ScenarioFile, &Catalog) -> bool,
    /// Why `gqlbench export k6` cannot reproduce a scenario of this kind; None when its
    /// measurement is a load on one endpoint that a k6 script reproduces.
    pub not_in_k6: Option<&'static str>,
    /// The kind sweeps connection counts, so `gqlbench export k6 -c N` exports one level of
    /// it (the one `-c` names) instead of refusing it.
    pub levels_by_connections: bool,
    /// The report's load line of a saved scenario of this kind, when the kind measures
    /// something other than a load ("5 fresh starts per target"); None keeps the plain
    /// load's line.
    pub load_line: fn(&ScenarioResult) -> Option<String>,
}

impl KindDef {
    /// A base kind reading `section`, with no tables, charts or figures of its own, the
    /// plain load's line in `list` and in reports, checked by `gqlbench check` and
    /// exportable to k6: a kind's `DEF` gives what differs and `..KindDef::base(..)`.
    pub const fn base(section: &'static str, resolve: Resolver) -> KindDef {
        KindDef {
            section,
            resolve,
            decorator: false,
            tables: no_tables,
            charts: no_charts,
            html: no_html,
            list: same_line,
            skip_in_check: never,
            not_in_k6: None,
            levels_by_connections: false,
            load_line: no_load_line,
        }
    }

    /// A decorating kind reading `section`, with the same defaults as `base`.
    pub const fn decorator(section: &'static str, resolve: Resolver) -> KindDef {
        KindDef {
            decorator: true,
            ..KindDef::base(section, resolve)
        }
    }
}

/// `KindDef::list` of the kinds that leave the plain load's column as it is.
pub fn same_line(_: &toml::Value, _: &ScenarioFile, line: String) -> String {
    line
}

/// The scenario's kind: its one base kind (plain load when no section asks for another),
/// wrapped by its decorators.
pub fn resolve(cx: &ResolveCx<'_>, registry: &[&KindDef]) -> Result<Arc<dyn Kind>> {
    let mut base: Option<(&str, Arc<dyn Kind>)> = None;
    for def in registry.iter().filter(|d| !d.decorator) {
        if let Some(k) = (def.resolve)(cx, None)? {
            if let Some((other, _)) = &base {
                return Err(cx
                    .bad(format!(
                        "a scenario has one kind, but this one has both `{other}` and `{}`; split it into two files",
                        def.section
                    ))
                    .into());
            }
            base = Some((def.section, k));
        }
    }
    let mut kind = base.map_or_else(|| Arc::new(load::Load) as Arc<dyn Kind>, |(_, k)| k);
    for def in registry.iter().filter(|d| d.decorator) {
        if let Some(k) = (def.resolve)(cx, Some(kind.clone()))? {
            kind = k;
        }
    }
    Ok(kind)
}

/// Refuses a section of the scenario file (or of one of its profiles) that no kind reads:
/// a typo would otherwise be silently ignored.
pub fn check_sections(def: &ScenarioDef, registry: &[&KindDef]) -> Result<()> {
    let f = &def.file;
    let known: Vec<&str> = registry.iter().map(|k| k.section).collect();
    let given = f
        .sections
        .keys()
        .chain(f.profiles.values().flat_map(|p| p.sections.keys()));
    for name in given {
        if !known.contains(&name.as_str()) {
            return Err(crate::error::CatalogError::File {
                file: def.path.clone(),
                message: format!(
                    "unknown field `{name}`; valid fields: description, optional, workload, targets, operations, load, limits, profiles, subgraphs, {}",
                    known.join(", ")
                ),
            }
            .into());
        }
    }
    Ok(())
}

/// `KindDef::skip_in_check` of the kinds `check` always leaves out, or never.
pub fn always(_: &ScenarioFile, _: &Catalog) -> bool {
    true
}

pub fn never(_: &ScenarioFile, _: &Catalog) -> bool {
    false
}

/// For kinds without tables or charts.
pub fn no_tables(_: &ScenarioResult) -> Vec<Table> {
    Vec::new()
}

pub fn no_charts(_: &ScenarioResult) -> Vec<(String, String)> {
    Vec::new()
}

/// `KindDef::load_line` of the kinds whose load line is the plain load's.
pub fn no_load_line(_: &ScenarioResult) -> Option<String> {
    None
}

pub fn no_html(_: &ScenarioResult) -> Vec<crate::view::Figure> {
    Vec::new()
}

/// A scenario's plan with its kind (`plan::ScenarioPlan` is generic so that the floors below
/// the kinds can read a plan without naming the kind API).
pub type ScenarioPlan = crate::plan::ScenarioPlan<dyn Kind>;
/// A run's plan with its scenarios' kinds.
pub type RunPlan = crate::plan::RunPlan<dyn Kind>;
