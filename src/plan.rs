//! Plans: what to run, resolved once from the CLI, the scenario files and the profile.
//! The runner receives only these; it never sees flags or raw manifests.
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use crate::catalog::scenario::{
    parse_size, DepthSpec, LongRunSpec, Model, Resolvers, ScenarioDef, Transport,
};
use crate::catalog::{Catalog, OperationDef, Profile, TargetDef};
use crate::cli::{IsolationArgs, RunArgs};
use crate::error::UserError;
use crate::results::LoadInfo;
use crate::sys::cgroup::Limits;
use crate::sys::cpus::CpuSet;

#[derive(Debug, Clone)]
pub struct ScenarioPlan {
    pub suite: String,
    pub name: String,
    pub description: String,
    pub workload: String,
    pub operations: Vec<(OperationDef, u32)>,
    pub targets: Vec<TargetDef>,
    pub load: LoadInfo,
    pub trials: u32,
    pub warmup: Duration,
    pub duration: Duration,
    pub limits: Limits,
    /// Federation: subgraph delays (name -> range spec); Some when the scenario has
    /// `[subgraphs]` or its workload is "federation".
    pub subgraphs: Option<std::collections::BTreeMap<String, String>>,
    pub sweep: Option<crate::catalog::scenario::SweepSpec>,
    /// Closed-model load sweep: connection counts, run in this order within each trial.
    pub connection_sweep: Option<Vec<u32>>,
    /// Served from the run's PostgreSQL with these resolvers.
    pub database: Option<Resolvers>,
    /// Cold starts: fresh starts per target (trials and load are not used).
    pub cold_start: Option<u32>,
    pub long_run: Option<LongRunSpec>,
    pub depth: Option<DepthPlan>,
    pub subscriptions: Option<SubscriptionsPlan>,
}

#[derive(Debug, Clone)]
pub struct DepthPlan {
    pub limit: u32,
    /// At the limit: answered and checked against its expected data.
    pub allowed: OperationDef,
    /// One level deeper: must be refused with a GraphQL error.
    pub rejected_name: String,
    pub rejected_document: String,
}

#[derive(Debug, Clone)]
pub struct SubscriptionsPlan {
    pub transport: Transport,
    pub publish_rate: f64,
    pub connect_rate: f64,
    pub operation: String,
    pub document: String,
}

/// The run's PostgreSQL, when a scenario needs one.
#[derive(Debug, Clone)]
pub struct DatabasePlan {
    /// Users to seed (posts, comments and followers follow from it).
    pub scale: u64,
    /// Folder for the temporary data directory (default: the system temp folder).
    pub dir: Option<PathBuf>,
}

/// Fewest users a database can be seeded with: the expected answers need the first 10,000.
pub const MIN_SCALE: u64 = 10_000;

#[derive(Debug, Clone)]
pub struct IsolationPlan {
    pub generator: Option<CpuSet>,
    pub target: Option<CpuSet>,
    pub cgroups: bool,
    /// Why something asked for could not be done (shown in reports).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct RunPlan {
    pub suite: String,
    pub profile: String,
    pub scenarios: Vec<ScenarioPlan>,
    pub out_dir: PathBuf,
    pub isolation: IsolationPlan,
    pub json: bool,
    pub database: Option<DatabasePlan>,
}

impl RunPlan {
    /// Seconds of load (warm-up + measured) the plan asks for, for progress and ETA.
    pub fn planned_load_secs(&self) -> f64 {
        self.scenarios
            .iter()
            .map(ScenarioPlan::planned_load_secs)
            .sum()
    }
}

impl ScenarioPlan {
    /// Seconds of load this scenario asks for (a cold start counts a nominal 2 s a start).
    pub fn planned_load_secs(&self) -> f64 {
        let per_trial = self.per_target_trial_secs();
        match self.cold_start {
            Some(n) => 2.0 * n as f64 * self.targets.len() as f64,
            None => per_trial * self.trials as f64 * self.targets.len() as f64,
        }
    }

    /// Seconds of load one trial of one target takes.
    pub fn per_target_trial_secs(&self) -> f64 {
        let one = (self.warmup + self.duration).as_secs_f64();
        match &self.connection_sweep {
            Some(steps) => one * steps.len() as f64,
            None => one,
        }
    }
}

pub fn resolve_isolation(args: &IsolationArgs) -> Result<IsolationPlan> {
    let mut notes = Vec::new();
    if args.no_pin {
        notes.push("CPU pinning disabled (--no-pin): generator and targets share CPUs".into());
        return Ok(IsolationPlan {
            generator: None,
            target: None,
            cgroups: !args.no_cgroups,
            notes,
        });
    }
    let allowed = crate::sys::cpus::allowed_cpus();
    let (dg, dt) = crate::sys::cpus::default_split(&allowed);
    let parse = |flag: &'static str, v: &Option<String>, default: CpuSet| -> Result<CpuSet> {
        let Some(s) = v else { return Ok(default) };
        let set = CpuSet::parse(s).map_err(|e| UserError::Flag {
            flag,
            message: e.to_string(),
        })?;
        if let Some(c) = set.0.iter().find(|c| !allowed.contains(c)) {
            return Err(UserError::Flag {
                flag,
                message: format!(
                    "CPU {c} is not available to this process (allowed: {})",
                    CpuSet(allowed.clone()).display()
                ),
            }
            .into());
        }
        Ok(set)
    };
    let g = parse("--generator-cpus", &args.generator_cpus, dg)?;
    let t = parse("--target-cpus", &args.target_cpus, dt)?;
    if g.0.iter().any(|c| t.0.contains(c)) {
        notes.push(format!(
            "generator CPUs {} and target CPUs {} overlap: the generator competes with the target",
            g.display(),
            t.display()
        ));
    }
    Ok(IsolationPlan {
        generator: Some(g),
        target: Some(t),
        cgroups: !args.no_cgroups,
        notes,
    })
}

fn resolve_scenario(
    cat: &Catalog,
    def: &ScenarioDef,
    base: Profile,
    profile_name: &str,
    args: &RunArgs,
) -> Result<ScenarioPlan> {
    let f = &def.file;
    let bad = |message: String| UserError::Manifest {
        file: def.path.clone(),
        message,
    };
    let over = f.profiles.get(profile_name).cloned().unwrap_or_default();
    let trials = args.trials.or(over.trials).unwrap_or(base.trials);
    let warmup = args.warmup.or(over.warmup).unwrap_or(base.warmup);
    let duration = args.duration.or(over.duration).unwrap_or(base.duration);
    if trials == 0 {
        return Err(UserError::Flag {
            flag: "--trials",
            message: "must be at least 1".into(),
        }
        .into());
    }
    if duration.is_zero() {
        return Err(UserError::Flag {
            flag: "--duration",
            message: "must be above zero, e.g. 10s".into(),
        }
        .into());
    }
    let spec = f.load.merged(&over.load);
    let model = spec.model.unwrap_or(Model::Closed);
    let mut connections = spec.connections.unwrap_or(100);
    if let (Some(c), Model::Closed) = (args.connections, model) {
        connections = c;
    }
    if model == Model::Open && spec.rate.is_none() && spec.stages.is_none() {
        return Err(bad(
            "[load] model = \"open\" needs `rate` (requests per second) or `stages`".into(),
        )
        .into());
    }
    if model == Model::Closed && connections == 0 {
        return Err(bad("[load] `connections` must be at least 1".into()).into());
    }
    let pipelining = spec.pipelining.unwrap_or(1);
    if pipelining == 0 {
        return Err(
            bad("[load] `pipelining` must be at least 1 (1 = no pipelining)".into()).into(),
        );
    }
    let load = LoadInfo {
        model: match model {
            Model::Closed => "closed",
            Model::Open => "open",
        }
        .into(),
        connections: if model == Model::Open {
            spec.max_connections.unwrap_or(connections)
        } else {
            connections
        },
        pipelining,
        think_time_s: spec.think_time.unwrap_or_default().as_secs_f64(),
        rate: spec.rate,
        stages: spec
            .stages
            .clone()
            .unwrap_or_default()
            .iter()
            .map(|s| (s.duration.as_secs_f64(), s.target))
            .collect(),
        timeout_s: spec
            .timeout
            .unwrap_or(Duration::from_secs(10))
            .as_secs_f64(),
        unique_request_header: spec.unique_request_header.unwrap_or(false),
    };
    let mut operations = Vec::new();
    let mut subscriptions = None;
    if let Some(sub) = &f.subscriptions {
        // A subscription has no expected answer file: every message is checked for its
        // fields instead.
        let o = &f.operations[0];
        let document = cat
            .document(&o.name)
            .map_err(|e| bad(format!("operation '{}': {e:#}", o.name)))?;
        subscriptions = Some(SubscriptionsPlan {
            transport: sub.transport,
            publish_rate: sub.publish_rate,
            connect_rate: sub.connect_rate,
            operation: o.name.clone(),
            document,
        });
    } else {
        for o in &f.operations {
            operations.push((
                cat.operation(&o.name)
                    .map_err(|e| bad(format!("operation '{}': {e:#}", o.name)))?,
                o.weight,
            ));
        }
    }
    let depth = match &f.depth {
        None => None,
        Some(DepthSpec {
            limit,
            allowed,
            rejected,
        }) => Some(DepthPlan {
            limit: *limit,
            allowed: cat
                .operation(allowed)
                .map_err(|e| bad(format!("[depth] allowed '{allowed}': {e:#}")))?,
            rejected_name: rejected.clone(),
            rejected_document: cat
                .document(rejected)
                .map_err(|e| bad(format!("[depth] rejected '{rejected}': {e:#}")))?,
        }),
    };
    let connection_sweep = match (&args.connection_sweep, model) {
        (Some(c), Model::Closed) if f.cold_start.is_none() && f.subscriptions.is_none() => {
            Some(c.clone())
        }
        _ => f.connection_sweep.clone(),
    };
    if connection_sweep.is_some() && model != Model::Closed {
        return Err(bad(
            "`connection_sweep` needs the closed model ([load] model = \"closed\")".into(),
        )
        .into());
    }
    let cold_start = f
        .cold_start
        .as_ref()
        .map(|c| args.trials.unwrap_or(c.starts));
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
            .cloned()
            .collect(),
    };
    if !args.targets.is_empty() {
        targets.retain(|t| args.targets.contains(&t.name));
    }
    if let Some(sg) = &f.subgraphs {
        for (name, spec) in &sg.delays {
            gqlbench_subgraphs::delay::DelaySpec::parse(&format!("{name}={spec}"))
                .map_err(|e| bad(format!("[subgraphs] delays: {e}")))?;
        }
    }
    // The same checks `load` makes, before any target starts: a plan the engine or this
    // machine cannot carry is bad input, not a run of invalid trials.
    let ops: Vec<gqlbench_engine::Operation> = if operations.is_empty() {
        vec![placeholder_operation()]
    } else {
        operations.iter().map(|(o, w)| o.to_engine(*w)).collect()
    };
    let loads = match &connection_sweep {
        Some(counts) => counts
            .iter()
            .map(|&c| LoadInfo {
                connections: c,
                ..load.clone()
            })
            .collect(),
        None => vec![load.clone()],
    };
    for l in &loads {
        let stop = gqlbench_engine::Stop {
            duration: Some(duration),
            max_requests: None,
            extend: None,
        };
        let generator = resolve_isolation(&args.isolation)?.generator;
        engine_plan(
            l,
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
                UserError::Flag {
                    flag: "-c/--connection-sweep",
                    message: format!("scenario {}: {message}", def.name),
                }
                .into()
            } else {
                bad(format!("[load]: {message}")).into()
            }
        })?;
    }
    let memory_bytes = f
        .limits
        .memory
        .as_deref()
        .map(parse_size)
        .transpose()
        .map_err(|e| bad(format!("[limits] memory: {e}")))?;
    Ok(ScenarioPlan {
        suite: def.suite.clone(),
        name: def.name.clone(),
        description: f.description.clone(),
        workload: f.workload.clone(),
        operations,
        targets,
        load,
        trials,
        warmup,
        duration,
        limits: Limits {
            cpus: f.limits.cpus,
            memory_bytes,
        },
        subgraphs: f
            .subgraphs
            .as_ref()
            .map(|s| s.delays.clone())
            .or_else(|| (f.workload == "federation").then(Default::default)),
        sweep: over.sweep.clone().or_else(|| f.sweep.clone()),
        connection_sweep,
        database: f.database.as_ref().map(|d| d.resolvers),
        cold_start,
        long_run: f.long_run.clone(),
        depth,
        subscriptions,
    })
}

pub fn resolve_run(cat: &Catalog, args: &RunArgs) -> Result<RunPlan> {
    let names = cat.scenario_names(&args.suite)?;
    for s in &args.scenarios {
        if !names.contains(s) {
            return Err(UserError::unknown("scenario", s, &names).into());
        }
    }
    for t in &args.targets {
        // A named native build that is not installed would only be skipped: refuse it now.
        crate::runner::install::require_installed(cat.target(t)?).map_err(|message| {
            UserError::Flag {
                flag: "--targets",
                message,
            }
        })?;
    }
    let profiles = cat.profiles()?;
    let base = profiles.get(&args.profile).map_err(|e| UserError::Flag {
        flag: "--profile",
        message: e.to_string(),
    })?;
    let mut scenarios = Vec::new();
    for n in &names {
        if !args.scenarios.is_empty() && !args.scenarios.contains(n) {
            continue;
        }
        let def = cat.scenario(&args.suite, n)?;
        if def.file.optional && !args.all && !args.scenarios.contains(n) {
            continue;
        }
        let sp = resolve_scenario(cat, &def, base, &args.profile, args)?;
        if !sp.targets.is_empty() {
            scenarios.push(sp);
        }
    }
    if scenarios.is_empty() {
        return Err(UserError::Flag {
            flag: "--targets",
            message: format!(
                "no scenario of suite '{}' runs any of the chosen targets",
                args.suite
            ),
        }
        .into());
    }
    if args.scale < MIN_SCALE {
        return Err(UserError::Flag {
            flag: "--scale",
            message: format!(
                "{} users is below the minimum {MIN_SCALE}: the expected answers need the first 10,000 users and their 100,000 posts",
                args.scale
            ),
        }
        .into());
    }
    if let Some(c) = &args.connection_sweep {
        if c.is_empty() || c.contains(&0) {
            return Err(UserError::Flag {
                flag: "--connection-sweep",
                message: "give connection counts above zero, e.g. 50,100,250,500".into(),
            }
            .into());
        }
    }
    let database = scenarios
        .iter()
        .any(|s| s.database.is_some())
        .then(|| DatabasePlan {
            scale: args.scale,
            dir: args.db_dir.clone(),
        });
    if let Some(dp) = &database {
        // Refuse a scale the disk cannot hold before anything starts.
        let dir = crate::db::DbOptions {
            dir: dp.dir.clone(),
            ..Default::default()
        }
        .base_dir();
        crate::db::check_scale_and_disk(dp.scale, &dir).map_err(|e| UserError::Flag {
            flag: "--scale",
            message: format!("{e:#}"),
        })?;
    }
    let out_dir = match &args.out {
        Some(d) => d.clone(),
        None => cat.root.join("results").join(format!(
            "{}-{}",
            chrono::Local::now().format("%Y%m%d-%H%M%S"),
            args.suite
        )),
    };
    Ok(RunPlan {
        suite: args.suite.clone(),
        profile: args.profile.clone(),
        scenarios,
        out_dir,
        isolation: resolve_isolation(&args.isolation)?,
        json: args.json,
        database,
    })
}

/// An address nothing is sent to: plans are checked against the engine before targets
/// (and their ports) exist.
pub fn placeholder_endpoint() -> gqlbench_engine::Endpoint {
    gqlbench_engine::Endpoint {
        addr: std::net::SocketAddr::from(([127, 0, 0, 1], 9)),
        host: "127.0.0.1:9".into(),
        path: "/graphql".into(),
    }
}

/// Stands in for the operations of a scenario that has none of its own (subscriptions).
fn placeholder_operation() -> gqlbench_engine::Operation {
    gqlbench_engine::Operation {
        name: "placeholder".into(),
        weight: 1,
        variants: vec![gqlbench_engine::Variant {
            body: bytes::Bytes::from_static(b"{}"),
            expected_data: None,
        }],
    }
}

/// The engine's plan for one run of a resolved load against one endpoint.
pub fn engine_plan(
    load: &LoadInfo,
    endpoint: gqlbench_engine::Endpoint,
    operations: Vec<gqlbench_engine::Operation>,
    generator_cpus: Option<&CpuSet>,
    warmup: Duration,
    stop: gqlbench_engine::Stop,
) -> gqlbench_engine::LoadPlan {
    use gqlbench_engine::{Schedule, Stage, Stages};
    let stages = |start: f64| Stages {
        start,
        stages: load
            .stages
            .iter()
            .map(|(d, t)| Stage {
                duration: Duration::from_secs_f64(*d),
                target: *t,
            })
            .collect(),
    };
    let schedule = if load.model == "open" {
        Schedule::Open {
            rate: stages(load.rate.unwrap_or(0.0)),
            max_connections: load.connections,
        }
    } else {
        Schedule::Closed {
            connections: stages(load.connections as f64),
            pipelining: load.pipelining,
            think_time: Duration::from_secs_f64(load.think_time_s),
        }
    };
    // Without a CPU list, the CPUs this process may use (a `taskset` mask counts), not
    // every CPU of the machine.
    let threads = generator_cpus
        .map(|c| c.0.len())
        .unwrap_or_else(|| crate::sys::cpus::allowed_cpus().len())
        .max(1)
        // Never more threads than connections: an idle worker only costs.
        .min(load.connections.max(1) as usize);
    let mut p = gqlbench_engine::LoadPlan::new(endpoint, operations, schedule, stop);
    p.warmup = warmup;
    p.timeout = Duration::from_secs_f64(load.timeout_s);
    p.threads = threads;
    p.cpus = generator_cpus.map(|c| c.0.clone());
    if load.unique_request_header {
        p.unique_request_header = Some("x-gqlbench-request".into());
    }
    p
}
