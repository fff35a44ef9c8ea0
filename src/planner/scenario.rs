//! One scenario's plan, resolved from its file, the profile and the flags: the numbers
//! (trials, warm-up, window), the typed load, the operations and targets, the limits, and
//! the kind (`src/kinds/`), which reads and checks its own section. Every check that can
//! be made before anything starts is made here, with the same limits `load` uses.
use anyhow::Result;

use crate::catalog::scenario::ScenarioDef;
use crate::catalog::{Catalog, Profile, TargetDef};
use crate::error::{CatalogError, PlanError};
use crate::kind::{self, KindDef, ResolveCx, ScenarioPlan};
use crate::plan::load::{placeholder_endpoint, placeholder_operation, Load};
use crate::plan::{resolve_isolation, KindNeeds, RunOptions};
use crate::sys::cgroup::Limits;

pub fn resolve(
    cat: &Catalog,
    def: &ScenarioDef,
    base: Profile,
    profile_name: &str,
    args: &RunOptions,
    registry: &[&KindDef],
    own: Option<&std::sync::Arc<crate::catalog::own_graph::OwnGraph>>,
) -> Result<ScenarioPlan> {
    let f = &def.file;
    let bad = |message: String| CatalogError::File {
        file: def.path.clone(),
        message,
    };
    kind::check_sections(def, registry)?;
    let over = f.profiles.get(profile_name).cloned().unwrap_or_default();
    let Numbers {
        trials,
        warmup,
        warmup_max,
        duration,
        target,
        max_rounds,
    } = numbers(def, base, profile_name, args, &over)?;
    let load = Load::from_spec(&f.load.merged(&over.load), args.connections).map_err(bad)?;
    let kind = kind::resolve(
        &ResolveCx {
            cat,
            def,
            args,
            profile: profile_name,
            load: &load,
        },
        registry,
    )?;
    let operations = super::operations::from_file(cat, def, kind.as_ref(), own.is_some())?;
    let (targets, not_supported) = targets(cat, def, args)?;
    let super::operations::OnGraph {
        graph,
        delays,
        operations,
    } = super::operations::graph(cat, def, kind.as_ref(), own, operations)?;
    preflight(
        def,
        args,
        kind.as_ref(),
        &load,
        &operations,
        warmup,
        duration,
    )?;
    let memory_bytes = def.memory_bytes()?;
    // A race looks first after two rounds (`race::MIN_LOOK`) and adds rounds only for the
    // pairs still open: the profile's minimum, set for rows' own intervals, would make every
    // target run a third round on fresh processes. A count given (--trials, the scenario's
    // own) is kept.
    let races = target.is_some() && kind.adaptive_rounds();
    let trials = if races && args.trials.is_none() && over.trials.is_none() {
        trials.min(crate::summary::race::MIN_LOOK as u32)
    } else {
        trials
    };
    let mut sp = ScenarioPlan {
        suite: def.suite.clone(),
        name: def.name.clone(),
        description: super::operations::description(&f.description, &graph, &operations),
        workload: f.workload.clone(),
        operations,
        targets,
        not_supported,
        trials: kind.trials(trials),
        precision: crate::plan::Precision {
            min_rounds: kind.trials(trials),
            max_rounds: kind.trials(max_rounds),
            target: target.filter(|_| kind.adaptive_rounds()).map(|p| p / 100.0),
        },
        load,
        warmup,
        warmup_max,
        duration,
        limits: Limits {
            cpus: f.limits.cpus,
            memory_bytes,
        },
        subgraphs: delays,
        graph,
        kind,
        needs: KindNeeds::default(),
    };
    sp.needs = needs(&sp);
    Ok(sp)
}

/// What a scenario's kind asks of the runner, worked out once from its plan.
fn needs(sp: &ScenarioPlan) -> KindNeeds {
    let kind = &sp.kind;
    let mut needs = KindNeeds {
        trial_secs: kind.trial_secs(sp),
        min_trial_secs: kind.min_trial_secs(sp),
        budget_trials: kind.trials(sp.trials),
        loads: kind.loads(&sp.load),
        trace_collector: kind.trace_collector().cloned(),
        counts_executions: kind.counts_executions(),
        alternates: false,
        adaptive: kind.adaptive_rounds(),
    };
    // What `runner::alternating::applies` finds in the started sessions, known from the
    // plan: per-trial helpers (subgraphs, execution counters, a collector, a coprocessor)
    // keep a scenario's targets one at a time, and its progress header must say so.
    let helpers = sp.subgraphs.is_some()
        || needs.counts_executions
        || needs.trace_collector.is_some()
        || sp.targets.iter().any(|t| t.coprocessor.is_some());
    needs.alternates = kind.alternates() && !sp.load.is_open() && !helpers;
    needs
}

/// A scenario's numbers, from the flags, then its file's profile section, then the profile.
struct Numbers {
    trials: u32,
    warmup: std::time::Duration,
    warmup_max: std::time::Duration,
    duration: std::time::Duration,
    /// The precision asked for (%), when rounds are added for it.
    target: Option<f64>,
    max_rounds: u32,
}

/// The scenario's numbers (see [`Numbers`]); a value that cannot work is refused, blamed on
/// where it came from.
fn numbers(
    def: &ScenarioDef,
    base: Profile,
    profile_name: &str,
    args: &RunOptions,
    over: &crate::catalog::scenario::ProfileOverride,
) -> Result<Numbers> {
    let bad = |message: String| CatalogError::File {
        file: def.path.clone(),
        message,
    };
    let trials = args.trials.or(over.trials).unwrap_or(base.trials);
    let warmup = args.warmup.or(over.warmup).unwrap_or(base.warmup);
    let duration = args.duration.or(over.duration).unwrap_or(base.duration);
    // --warmup alone fixes the warm-up; --warmup-max (or the profile's) lets it run on
    // until the throughput is steady. A scenario's own warm-up is fixed the same way,
    // unless it gives its own most as well.
    let warmup_max = match (args.warmup, args.warmup_max, over.warmup) {
        (_, Some(m), _) => m,
        (Some(w), None, _) => w,
        (None, None, Some(w)) => over.warmup_max.unwrap_or(w),
        (None, None, None) => over.warmup_max.or(base.warmup_max).unwrap_or(warmup),
    }
    .max(warmup);
    // --trials alone fixes the count; --precision (or the profile's) adds rounds to it.
    let target = match (args.trials, args.precision) {
        (_, Some(p)) => Some(p),
        (Some(_), None) => None,
        (None, None) => base.precision,
    };
    // A fixed count runs exactly its trials: no more rounds to announce than that.
    let max_rounds = match target {
        None => trials,
        Some(_) => args
            .max_trials
            .or(base.max_trials)
            .unwrap_or(trials)
            .max(trials),
    };
    // A value that cannot work is blamed on where it came from: the flag when one was
    // passed, else the scenario file's profile section (profiles.toml checks its own).
    let refuse = |passed: bool, flag: &'static str, field: &str, message: &str| {
        let e: anyhow::Error = if passed {
            PlanError::Flag {
                flag,
                message: message.into(),
            }
            .into()
        } else {
            bad(format!("[profiles.{profile_name}] `{field}` {message}")).into()
        };
        e
    };
    if trials == 0 {
        let passed = args.trials.is_some();
        return Err(refuse(passed, "--trials", "trials", "must be at least 1"));
    }
    if duration.is_zero() {
        let passed = args.duration.is_some();
        let why = "must be above zero, e.g. 10s";
        return Err(refuse(passed, "--duration", "duration", why));
    }
    if args.connections == Some(0) {
        // Checked here, not by the scenario's [load]: the value is the flag's, not the file's.
        return Err(PlanError::Flag {
            flag: "--connections",
            message: "must be at least 1".into(),
        }
        .into());
    }
    Ok(Numbers {
        trials,
        warmup,
        warmup_max,
        duration,
        target,
        max_rounds,
    })
}

/// The scenario's targets (its file's list, else every target serving its workload but the
/// optional ones not named), kept to `--targets`; and the targets left out for a reason
/// their target.toml gives.
#[allow(clippy::type_complexity)]
fn targets(
    cat: &Catalog,
    def: &ScenarioDef,
    args: &RunOptions,
) -> Result<(Vec<TargetDef>, Vec<(String, String)>)> {
    let f = &def.file;
    let bad = |message: String| CatalogError::File {
        file: def.path.clone(),
        message,
    };
    let mut targets: Vec<TargetDef> = match &f.targets {
        Some(names) => names
            .iter()
            .map(|n| {
                cat.target(n)
                    .cloned()
                    .map_err(|e| bad(format!("field `targets`: {e}")).into())
            })
            .collect::<Result<_>>()?,
        None => cat
            .targets
            .iter()
            .filter(|t| t.workloads.iter().any(|w| w == &f.workload))
            .filter(|t| !t.optional || args.targets.contains(&t.name))
            .cloned()
            .collect(),
    };
    if !args.targets.is_empty() {
        targets.retain(|t| args.targets.contains(&t.name));
    }
    let not_supported: Vec<(String, String)> = cat
        .targets
        .iter()
        .filter(|t| t.base.is_none() && !targets.iter().any(|r| r.name == t.name))
        .filter(|t| args.targets.is_empty() || args.targets.contains(&t.name))
        .filter(|t| !t.optional || args.targets.contains(&t.name))
        .filter(|t| f.targets.as_ref().is_none_or(|n| n.contains(&t.name)))
        .filter_map(|t| {
            let why = t.unsupported.get(&f.workload)?;
            Some((t.name.clone(), why.clone()))
        })
        .collect();
    Ok((targets, not_supported))
}

/// The same checks `load` makes, before any target starts: a plan the engine or this
/// machine cannot carry is bad input, not a run of invalid trials.
fn preflight(
    def: &ScenarioDef,
    args: &RunOptions,
    kind: &dyn crate::kind::Kind,
    load: &Load,
    operations: &[(crate::catalog::OperationDef, u32)],
    warmup: std::time::Duration,
    duration: std::time::Duration,
) -> Result<()> {
    let bad = |message: String| CatalogError::File {
        file: def.path.clone(),
        message,
    };
    let ops: Vec<gqlbench_engine::Operation> = if operations.is_empty() {
        vec![placeholder_operation()]
    } else {
        operations.iter().map(|(o, w)| o.to_engine(*w)).collect()
    };
    // The default split's generator: the fewest CPUs a run gives it.
    let generator = resolve_isolation(&args.isolation, false)?.generator;
    for l in kind.loads(load) {
        let stop = gqlbench_engine::Stop {
            duration: Some(duration),
            max_requests: None,
            extend: None,
        };
        l.engine_plan(
            placeholder_endpoint(),
            ops.clone(),
            generator.as_ref(),
            warmup,
            stop,
        )
        .preflight()
        .map_err(|e| -> anyhow::Error {
            let message = format!("{e}");
            if args.connections.is_some() || args.connection_sweep.is_some() {
                PlanError::Flag {
                    flag: "-c/--connection-sweep",
                    message: format!("scenario {}: {message}", def.name),
                }
                .into()
            } else {
                bad(format!("[load]: {message}")).into()
            }
        })?;
    }
    Ok(())
}
