//! The runner: installs targets, starts them in isolation, checks their answers, runs
//! interleaved trials, samples vitals, and saves results after every trial so an
//! interrupted run loses nothing.
pub mod answers;
pub mod cold_start;
pub mod database;
pub mod depth;
pub mod gc;
pub mod install;
pub mod install_record;
pub mod leftovers;
pub mod out_dir;
pub mod rate_sweep;
pub mod ready;
pub mod session;
pub mod subgraphs;
pub mod subscriptions;
pub mod trial;
pub mod vitals;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::catalog::TargetDef;
use crate::plan::{RunPlan, ScenarioPlan};
use crate::progress::Progress;
use crate::results::*;
use crate::summary;
use crate::sys::machine;
use session::{Session, StartOptions};

pub struct RunContext {
    pub root: std::path::PathBuf,
    pub cancel: Arc<AtomicBool>,
    pub command: Vec<String>,
}

impl RunContext {
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// Install every target a plan needs; returns the ones that failed with their message.
/// Targets that cannot run: name, status, message.
pub type InstallFailures = Vec<(String, TargetStatus, String)>;

/// Targets `run` never installs by itself (native builds) and that are not current are
/// returned as `NotInstalled` with one line saying so and how to build them: the one place
/// a run says it, since the reports list them once, not per scenario.
pub fn install_all(
    targets: &[&TargetDef],
    progress: &Progress,
    cancelled: &dyn Fn() -> bool,
) -> InstallFailures {
    let node = machine::node_version().unwrap_or_default();
    let mut failed = Vec::new();
    for t in targets {
        if t.install.is_none() {
            continue;
        }
        if cancelled() {
            failed.push((
                t.name.clone(),
                TargetStatus::Interrupted,
                "interrupted before its install".into(),
            ));
            continue;
        }
        // An error here (an input file missing) is reported by the install below.
        let state = install::settle(t, &node);
        if let Ok(st) = &state {
            if st.is_current() {
                continue;
            }
        }
        if t.install.as_ref().map(|i| !i.auto).unwrap_or(false) {
            let why = match state {
                Ok(install::State::NotCurrent(m)) => m,
                _ => install::Missing::Never,
            };
            let msg = install::not_installed_message(t, &why);
            progress.line(&format!("skipping {}: {msg}", t.name));
            failed.push((t.name.clone(), TargetStatus::NotInstalled, msg));
            continue;
        }
        progress.line(&format!(
            "installing {} ({}) ...",
            t.name,
            install::command_line(t)
        ));
        let name = t.name.clone();
        let tick = |el: Duration, line: &str| {
            progress.message(format!("installing {name} ({}s): {line}", el.as_secs()))
        };
        match install::install(t, &node, false, &tick, cancelled) {
            Ok(install::Outcome::Installed { seconds }) => {
                progress.line(&format!("installed {} in {seconds:.0} s", t.name))
            }
            Ok(_) => {}
            Err(e) => {
                progress.line(&format!("install of {} FAILED: {e:#}", t.name));
                failed.push((
                    t.name.clone(),
                    TargetStatus::InstallFailed,
                    format!("{e:#}"),
                ));
            }
        }
    }
    failed
}

pub fn new_results(
    plan: &RunPlan,
    ctx: &RunContext,
    nofile: u64,
    mut notes: Vec<String>,
) -> RunResults {
    notes.extend(plan.isolation.notes.iter().cloned());
    let cg = if plan.isolation.cgroups {
        match crate::sys::cgroup::detect() {
            Some(crate::sys::cgroup::CgroupVersion::V1) => "v1",
            Some(crate::sys::cgroup::CgroupVersion::V2) => "v2",
            None => "none",
        }
    } else {
        "none"
    };
    RunResults {
        schema_version: SCHEMA_VERSION,
        tool: machine::tool(&ctx.root),
        suite: plan.suite.clone(),
        profile: plan.profile.clone(),
        command: ctx.command.clone(),
        started_at: now_rfc3339(),
        finished_at: None,
        status: RunStatus::Running,
        machine: machine::machine(),
        isolation: IsolationInfo {
            generator_cpus: plan
                .isolation
                .generator
                .as_ref()
                .map(|c| c.0.clone())
                .unwrap_or_default(),
            target_cpus: plan
                .isolation
                .target
                .as_ref()
                .map(|c| c.0.clone())
                .unwrap_or_default(),
            cgroups: cg.into(),
            notes,
            nofile_limit: nofile,
        },
        runtimes: machine::runtimes(),
        scenarios: Vec::new(),
        verdict: None,
    }
}

fn empty_target_result(t: &TargetDef) -> TargetResult {
    TargetResult {
        name: t.name.clone(),
        kind: t.kind,
        package: t.package.clone(),
        version: t.package_version(),
        settings: t.settings.clone(),
        status: TargetStatus::Ok,
        problem: None,
        log_tail: None,
        log_file: None,
        ready_s: None,
        rss_idle_bytes: None,
        checks: Vec::new(),
        trials: Vec::new(),
        summary: None,
        depth_check: None,
        cold_starts: Vec::new(),
        cold_start: None,
    }
}

fn scenario_result(sp: &ScenarioPlan) -> ScenarioResult {
    ScenarioResult {
        suite: sp.suite.clone(),
        name: sp.name.clone(),
        description: sp.description.clone(),
        workload: sp.workload.clone(),
        operations: match &sp.subscriptions {
            Some(sub) => vec![OperationInfo {
                name: sub.operation.clone(),
                weight: 1,
                cases: 1,
            }],
            None => sp
                .operations
                .iter()
                .map(|(o, w)| OperationInfo {
                    name: o.name.clone(),
                    weight: *w,
                    cases: o.cases.len(),
                })
                .collect(),
        },
        load: sp.load.clone(),
        trials_planned: sp.trials,
        warmup_s: sp.warmup.as_secs_f64(),
        duration_s: sp.duration.as_secs_f64(),
        limits: LimitsInfo {
            cpus: sp.limits.cpus,
            memory_bytes: sp.limits.memory_bytes,
            applied: String::new(),
        },
        targets: sp.targets.iter().map(empty_target_result).collect(),
        ranking: None,
        kind: if sp.cold_start.is_some() {
            ScenarioKind::ColdStart
        } else if sp.subscriptions.is_some() {
            ScenarioKind::Subscriptions
        } else {
            ScenarioKind::Load
        },
        database: None,
        connection_sweep: sp.connection_sweep.clone(),
        long_run: sp.long_run.clone(),
        depth_limit: sp.depth.as_ref().map(|d| d.limit),
        subscriptions: sp.subscriptions.as_ref().map(|s| SubscriptionsInfo {
            transport: match s.transport {
                crate::catalog::scenario::Transport::Ws => "ws",
                crate::catalog::scenario::Transport::Sse => "sse",
            }
            .into(),
            publish_rate: s.publish_rate,
            connect_rate: s.connect_rate,
            operation: s.operation.clone(),
        }),
        catalogue_fault: None,
    }
}

/// Run a whole plan. Results are saved into `plan.out_dir` after every trial.
pub fn run_plan(
    plan: &RunPlan,
    ctx: &RunContext,
    results: &mut RunResults,
    progress: &mut Progress,
) -> Result<()> {
    let out = &plan.out_dir;
    let logs = out.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;
    let mut all: Vec<&TargetDef> = plan
        .scenarios
        .iter()
        .flat_map(|s| s.targets.iter())
        .collect();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all.dedup_by(|a, b| a.name == b.name);
    let install_failed = install_all(&all, progress, &|| ctx.cancelled());
    results.save(out)?;

    // The database lives from the first database scenario to the last one (stopped then,
    // so later scenarios do not share the machine with it); Drop stops it on any exit.
    let last_db = plan.scenarios.iter().rposition(|s| s.database.is_some());
    let mut db: Option<database::RunDatabase> = None;
    // Why the database could not start, and whether that is only this machine lacking the
    // PostgreSQL server (the scenarios are then skipped, not failed).
    let mut db_error: Option<(String, bool)> = None;
    for (k, sp) in plan.scenarios.iter().enumerate() {
        if ctx.cancelled() {
            break;
        }
        results.scenarios.push(scenario_result(sp));
        let si = results.scenarios.len() - 1;
        let mut env = scenario_env(sp);
        if let (Some(resolvers), Some(dp)) = (sp.database, &plan.database) {
            if db.is_none() && db_error.is_none() {
                match database::RunDatabase::start(dp, plan, progress, &|| ctx.cancelled()) {
                    Ok(d) => db = Some(d),
                    Err(e) => {
                        let missing = matches!(
                            e.downcast_ref::<crate::db::error::DbError>(),
                            Some(crate::db::error::DbError::MissingBinaries { .. })
                                | Some(crate::db::error::DbError::BadPgBin { .. })
                        );
                        progress.line(&format!(
                            "database: {} — {e:#}",
                            if missing { "SKIPPED" } else { "FAILED" }
                        ));
                        db_error = Some((format!("{e:#}"), missing));
                    }
                }
                results.save(out)?;
            }
            match &db {
                Some(d) => {
                    env.extend(d.env(resolvers.as_str()));
                    results.scenarios[si].database = Some(d.info(resolvers.as_str()));
                }
                None => {
                    let (why, missing) = db_error
                        .clone()
                        .unwrap_or_else(|| ("unknown error".into(), false));
                    let msg = format!(
                        "PostgreSQL could not be started, so this database scenario did not run: {why}"
                    );
                    for t in &mut results.scenarios[si].targets {
                        t.status = if missing {
                            TargetStatus::Skipped
                        } else {
                            TargetStatus::StartFailed
                        };
                        t.problem = Some(msg.clone());
                    }
                    progress.skip(sp.planned_load_secs());
                    results.save(out)?;
                    continue;
                }
            }
        }
        match sp.cold_start {
            Some(starts) => cold_start::run(
                sp,
                starts,
                si,
                plan,
                ctx,
                results,
                progress,
                &install_failed,
                &env,
            )?,
            None => run_scenario(
                sp,
                si,
                plan,
                ctx,
                results,
                progress,
                &install_failed,
                &env,
                db.as_mut().filter(|_| sp.database.is_some()),
            )?,
        }
        if Some(k) == last_db {
            if let Some(mut d) = db.take() {
                if let Err(e) = d.db.stop() {
                    progress.line(&format!("database: stopping it: {e:#}"));
                }
            }
        }
        let s = &mut results.scenarios[si];
        s.ranking = summary::rank(s);
        results.save(out)?;
    }
    Ok(())
}

/// What a scenario tells its targets through the environment.
fn scenario_env(sp: &ScenarioPlan) -> std::collections::BTreeMap<String, String> {
    let mut env = std::collections::BTreeMap::new();
    if let Some(s) = &sp.subscriptions {
        env.insert("GQLBENCH_PUBLISH_RATE".into(), s.publish_rate.to_string());
    }
    env
}

#[allow(clippy::too_many_arguments)]
fn run_scenario(
    sp: &ScenarioPlan,
    si: usize,
    plan: &RunPlan,
    ctx: &RunContext,
    results: &mut RunResults,
    progress: &mut Progress,
    install_failed: &[(String, TargetStatus, String)],
    env: &std::collections::BTreeMap<String, String>,
    mut db: Option<&mut database::RunDatabase>,
) -> Result<()> {
    let out = &plan.out_dir;
    let per_trial = (sp.warmup + sp.duration).as_secs_f64();
    progress.line(&format!(
        "scenario {}/{}: {} targets x {} trials x ({} warm-up + {} measured)",
        sp.suite,
        sp.name,
        sp.targets.len(),
        sp.trials,
        humantime::format_duration(sp.warmup),
        humantime::format_duration(sp.duration)
    ));
    let probe = ctx.root.join("targets/_node/gc-probe.mjs");
    let cancelled = || ctx.cancelled();
    let no_delays = std::collections::BTreeMap::new();
    let mut sessions: Vec<Option<Session>> = Vec::new();
    for (ti, t) in sp.targets.iter().enumerate() {
        let tr = &mut results.scenarios[si].targets[ti];
        if let Some((_, status, msg)) = install_failed.iter().find(|(n, _, _)| n == &t.name) {
            tr.status = *status;
            tr.problem = Some(msg.clone());
            sessions.push(None);
            progress.skip(per_trial * sp.trials as f64);
            continue;
        }
        let log_rel = format!("logs/{}-{}.log", sp.name, t.name);
        tr.log_file = Some(log_rel.clone());
        progress.message(format!("{}: starting {}", sp.name, t.name));
        let started = Session::start(
            t,
            StartOptions {
                cpus: plan.isolation.target.as_ref(),
                use_cgroups: plan.isolation.cgroups,
                limits: &sp.limits,
                log: out.join(&log_rel),
                scratch: &out.join("logs"),
                node_probe: Some(probe.clone()),
                cancelled: &cancelled,
                env: env.clone(),
                cold: false,
                federation: (t.kind == crate::catalog::TargetKind::Gateway).then(|| {
                    session::FederationStart {
                        root: &ctx.root,
                        delays: sp.subgraphs.as_ref().unwrap_or(&no_delays),
                        cpus: plan.isolation.generator.as_ref(),
                    }
                }),
            },
        );
        match started {
            Err(f) => {
                progress.line(&format!(
                    "  {}: {} — {}",
                    t.name,
                    f.status.label(),
                    f.problem
                ));
                tr.status = f.status;
                tr.problem = Some(f.problem);
                tr.log_tail = f.log_tail;
                sessions.push(None);
                progress.skip(per_trial * sp.trials as f64);
            }
            Ok((mut s, note)) => {
                tr.ready_s = Some(s.ready_s);
                tr.rss_idle_bytes = Some(s.rss_idle_bytes);
                let applied = match (&s.cgroup, &note) {
                    (Some(c), _) => c.applied.clone(),
                    (None, Some(n)) => n.clone(),
                    (None, None) => "no cgroup (disabled)".into(),
                };
                results.scenarios[si].limits.applied = applied;
                let tr = &mut results.scenarios[si].targets[ti];
                // The depth check comes first: a server whose limit refuses the operation
                // at the limit fails the answer check below, and the depth table says why.
                if let Some(d) = &sp.depth {
                    let check = depth::check(&s.endpoint, d, Duration::from_secs(30));
                    if !check.passed() {
                        progress.line(&format!(
                            "  {}: DEPTH CHECK FAILED — depth {}: {}; depth {}: {}",
                            t.name,
                            d.limit,
                            check.at_limit_detail.as_deref().unwrap_or("answered"),
                            d.limit + 1,
                            check.over_limit_detail
                        ));
                    }
                    tr.depth_check = Some(check);
                }
                tr.checks =
                    ready::check_operations(&s.endpoint, &sp.operations, Duration::from_secs(10));
                if let Some(bad) = tr.checks.iter().find(|c| !c.ok) {
                    tr.status = TargetStatus::WrongAnswers;
                    let refused_by_limit = tr
                        .depth_check
                        .as_ref()
                        .map(|d| !d.at_limit_ok)
                        .unwrap_or(false);
                    tr.problem = Some(if refused_by_limit {
                        format!(
                            "its depth limit refuses the operation at the limit, so it is not measured (it counts depth differently): {}",
                            bad.detail.clone().unwrap_or_default()
                        )
                    } else {
                        format!(
                            "operation {}: {}",
                            bad.operation,
                            bad.detail.clone().unwrap_or_default()
                        )
                    });
                    progress.line(&format!(
                        "  {}: WRONG ANSWERS — {}",
                        t.name,
                        tr.problem.as_deref().unwrap_or("")
                    ));
                    s.stop();
                    sessions.push(None);
                    progress.skip(per_trial * sp.trials as f64);
                } else {
                    sessions.push(Some(s));
                }
            }
        }
        results.save(out)?;
    }

    let checked: Vec<&[CheckOutcome]> = results.scenarios[si]
        .targets
        .iter()
        .filter(|t| !t.checks.is_empty())
        .map(|t| t.checks.as_slice())
        .collect();
    if let Some(fault) = answers::catalogue_fault(&sp.operations, &checked) {
        progress.line(&format!("  CATALOGUE FAULT — {fault}"));
        results.scenarios[si].catalogue_fault = Some(fault);
        results.save(out)?;
    }
    let engine_ops: Vec<_> = sp.operations.iter().map(|(o, w)| o.to_engine(*w)).collect();
    'trials: for trial in 1..=sp.trials {
        let alive: Vec<usize> = (0..sp.targets.len())
            .filter(|&i| sessions[i].is_some())
            .collect();
        if alive.is_empty() {
            break;
        }
        // Rotate the order each trial (A B C, B C A, ...) so drift hits every target alike.
        let k = (trial as usize - 1) % alive.len();
        let order: Vec<usize> = alive[k..]
            .iter()
            .chain(alive[..k].iter())
            .copied()
            .collect();
        for (pos, &ti) in order.iter().enumerate() {
            if ctx.cancelled() {
                break 'trials;
            }
            let t = &sp.targets[ti];
            let Some(sess) = sessions[ti].as_mut() else {
                continue;
            };
            let label = format!("{} trial {trial}/{} {}", sp.name, sp.trials, t.name);
            let db_before = db.as_ref().map(|d| d.probe());
            let mut trial_result = match &sp.subscriptions {
                Some(sub) => subscriptions::run_trial(
                    sp,
                    sub,
                    plan,
                    ctx,
                    sess,
                    trial,
                    pos as u32 + 1,
                    &label,
                    progress,
                ),
                None => trial::run_trial(
                    sp,
                    plan,
                    ctx,
                    sess,
                    &engine_ops,
                    trial,
                    pos as u32 + 1,
                    &label,
                    progress,
                ),
            };
            if let (Some(d), Some(before)) = (db.as_mut(), db_before.as_ref()) {
                let l = &trial_result.load;
                let usage = d.finish(before, l.requests + l.warmup_requests);
                if !usage.db_alive {
                    trial_result.valid = false;
                    trial_result.problems.push(format!(
                        "the database stopped answering during this trial (its log: {})",
                        d.db.log().display()
                    ));
                }
                trial_result.database = Some(usage);
            }
            let tr = &mut results.scenarios[si].targets[ti];
            let crashed = sess.process.exited();
            tr.trials.push(trial_result);
            if let Some(st) = crashed {
                tr.status = TargetStatus::Crashed;
                tr.problem = Some(format!("exited ({st}) during trial {trial}"));
                tr.log_tail = Some(sess.process.log_tail(20));
                progress.line(&format!(
                    "  {}: CRASHED during trial {trial} ({st})",
                    t.name
                ));
                if let Some(mut s) = sessions[ti].take() {
                    s.stop();
                }
                progress.skip(per_trial * (sp.trials - trial) as f64);
            }
            if ctx.cancelled() {
                tr.status = TargetStatus::Interrupted;
                tr.problem = Some("run interrupted (Ctrl-C) during this trial".into());
            }
            tr.summary = summary::summarize(tr);
            if let (Some(spec), Some(sum)) = (&sp.long_run, tr.summary.as_ref()) {
                let leak = crate::leak::judge(spec, tr);
                let mut sum = sum.clone();
                sum.leak = leak;
                tr.summary = Some(sum);
            }
            if sp.subscriptions.is_some() {
                let x = subscriptions::summarize(tr, sp.load.connections);
                if let Some(sum) = tr.summary.as_mut() {
                    sum.subscriptions = x;
                }
            }
            if let Some(sub) = tr.trials.last().and_then(|l| l.subscriptions.as_ref()) {
                let e = &sub.engine;
                progress.line(&format!(
                    "  {label}: {} of {} held, {:.2} msg/s per connection, p99 {:.1} ms, {} dropped{}",
                    e.connections.held_at_end,
                    e.connections.attempted,
                    e.per_connection.mean_per_s,
                    e.latency.p99_us as f64 / 1000.0,
                    e.connections.dropped,
                    if tr.trials.last().map(|l| l.valid).unwrap_or(false) {
                        ""
                    } else {
                        " [INVALID]"
                    }
                ));
            } else if let Some(last) = tr.trials.last() {
                progress.line(&format!(
                    "  {label}: {:.0} req/s, p99 {:.1} ms, {} failed{}{}",
                    last.load.throughput_rps,
                    last.load.latency.p99_us as f64 / 1000.0,
                    last.load.failed,
                    if last.saturation.is_empty() {
                        ""
                    } else {
                        " [SATURATED]"
                    },
                    if last.valid { "" } else { " [INVALID]" }
                ));
            }
            results.save(out)?;
        }
    }
    for (ti, s) in sessions.iter_mut().enumerate() {
        if let Some(s) = s.as_mut() {
            s.stop();
            let tr = &mut results.scenarios[si].targets[ti];
            if ctx.cancelled()
                && tr.trials.len() < sp.trials as usize
                && tr.status == TargetStatus::Ok
            {
                tr.status = TargetStatus::Interrupted;
                tr.problem = Some(format!(
                    "run interrupted after {} of {} trials",
                    tr.trials.len(),
                    sp.trials
                ));
                // Its summary was made while it still looked whole.
                if let Some(sum) = tr.summary.as_mut() {
                    sum.valid = false;
                }
            }
        }
    }
    Ok(())
}
