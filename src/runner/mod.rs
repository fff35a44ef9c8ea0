//! The runner: installs targets, starts the run's database when a scenario needs it, and
//! runs each scenario (`scenario.rs`: start the targets, check their answers, run the
//! kind's trials interleaved), saving results after every trial so an interrupted run
//! loses nothing.
pub mod ab;
mod ab_pair;
mod alternating;
mod header;
mod readmit;
mod record;
mod restart;
pub mod rounds_loop;
mod run_db;
pub mod scenario;

use std::time::Duration;

use anyhow::{Context, Result};

use crate::catalog::TargetDef;
use crate::kind::RunPlan;
use crate::measure::{budget, install, RunContext};
use crate::progress::Progress;
use crate::results::*;
use crate::summary;
use crate::sys::machine;

/// Install every target a plan needs; returns the ones that failed with their message.
/// Targets that cannot run: name, status, message.
pub type InstallFailures = Vec<Unavailable>;

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
            failed.push(Unavailable::new(
                &t.name,
                TargetStatus::Interrupted,
                "interrupted before its install",
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
            failed.push(Unavailable::new(&t.name, TargetStatus::NotInstalled, msg));
            continue;
        }
        let start = || {
            progress.line(&format!(
                "installing {} ({}) ...",
                t.name,
                install::command_line(t)
            ))
        };
        let name = t.name.clone();
        let tick = |el: Duration, line: &str| {
            progress.message(format!("installing {name} ({}s): {line}", el.as_secs()))
        };
        match install::install(t, &node, false, &start, &tick, cancelled) {
            Ok(install::Outcome::Installed { seconds }) => {
                progress.line(&format!("installed {} in {seconds:.0} s", t.name))
            }
            Ok(_) => {}
            Err(e) => {
                progress.line(&format!("install of {} FAILED: {e:#}", t.name));
                failed.push(Unavailable::new(
                    &t.name,
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
        engine: crate::results::gqlbench_engine(),
        import: None,
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
        target_env: plan.target_env.clone(),
        scenarios: Vec::new(),
        budget: None,
        machine_probe: None,
        left_out: None,
        verdict: None,
    }
}

/// Every target the plan runs installed (and the helpers it needs: a gateway variant's
/// coprocessor, a trace collector), each install made once; what could not be installed,
/// a variant whose base or coprocessor could not included.
fn install_targets(
    plan: &crate::kind::RunPlan,
    progress: &Progress,
    ctx: &RunContext,
) -> InstallFailures {
    // A gateway variant's coprocessor is installed with it; variants share their base's
    // install, made once. A gateway that cannot front its scenario's graph (a user's own
    // graph for a Federation v1 gateway) is skipped at its start, saying why: installing
    // it would spend the run's time for nothing.
    let mut all: Vec<&TargetDef> = plan
        .scenarios
        .iter()
        .flat_map(|s| {
            s.targets
                .iter()
                .filter(|t| t.serves_graph(&s.graph).is_ok())
                .chain(s.kind.trace_collector())
        })
        .flat_map(|t| std::iter::once(t).chain(t.coprocessor_def.as_deref()))
        .collect();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all.dedup_by(|a, b| a.name == b.name);
    let mut installs = all.clone();
    installs.sort_by(|a, b| a.install_owner().cmp(b.install_owner()));
    installs.dedup_by(|a, b| a.install_owner() == b.install_owner());
    let mut install_failed = install_all(&installs, progress, &|| ctx.cancelled());
    // A variant whose base or coprocessor could not be installed cannot run either.
    let failed_owner = |owner: &str, failed: &[Unavailable]| {
        installs
            .iter()
            .find(|i| i.install_owner() == owner)
            .and_then(|i| Unavailable::find(failed, &i.name).cloned())
    };
    for t in &all {
        let why = failed_owner(t.install_owner(), &install_failed)
            .map(|u| (u.status, u.message))
            .or_else(|| {
                let c = t.coprocessor_def.as_deref()?;
                failed_owner(c.install_owner(), &install_failed).map(|u| {
                    (
                        u.status,
                        format!("its coprocessor {}: {}", c.name, u.message),
                    )
                })
            });
        if let Some((st, msg)) = why {
            if Unavailable::find(&install_failed, &t.name).is_none() {
                install_failed.push(Unavailable::new(&t.name, st, msg));
            }
        }
    }
    install_failed
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
    let install_failed = install_targets(plan, progress, ctx);
    results.save(out)?;
    // The time budget counts from here: installs are not load. What the machine shows
    // before any target sets the noise's level and the budget's estimates.
    let budget = budget::Budget::new(plan.budget);
    let slowdown = probe_machine(plan, ctx, results, progress);
    let mut budget = budget.with_machine(plan.alternation, slowdown);
    let (mut kept, mut left) = scope(plan, &budget, results, progress);

    // The database lives from the first database scenario to the last one; Drop stops it
    // on any exit.
    let mut db = run_db::RunDb::default();
    let mut k = 0;
    loop {
        if ctx.cancelled() {
            break;
        }
        readmit::readmit(plan, &budget, &mut kept, k, &mut left, results, progress);
        if k < kept.len()
            && readmit::recheck(plan, &budget, &mut kept, k, &mut left, results, progress)
        {
            continue;
        }
        let Some(sp) = kept.get(k).copied() else {
            break;
        };
        // Kept may grow (`readmit`): whether this is the last database scenario is asked now.
        let last_db = kept.iter().rposition(|s| s.kind.database().is_some()) == Some(k);
        k += 1;
        results.scenarios.push(scenario::result(sp));
        let si = results.scenarios.len() - 1;
        let mut env = scenario::env(sp, out)?;
        match db.for_scenario((plan, ctx, sp, si), results, progress, &mut env)? {
            run_db::Ready::Go => {}
            run_db::Ready::Skip => continue,
            run_db::Ready::Interrupted => break,
        }
        // What the scenario does beyond its minimum ends at its share of the spare time,
        // and before the rest of the run's budget is what the later scenarios need.
        let deadline = budget.deadline(sp, &kept[k..]);
        let began = std::time::Instant::now();
        let mut cx = crate::kind::ScenarioCx {
            deadline,
            budget: &mut budget,
            sp,
            si,
            plan,
            ctx,
            results: &mut *results,
            progress: &mut *progress,
            unavailable: &install_failed,
            env: &env,
            db: db.db.as_mut().filter(|_| sp.kind.database().is_some()),
        };
        scenario::run(&mut cx)?;
        // A race that did its minimum rounds teaches the budget what a scenario costs
        // beyond its trials and starts (not one that added rounds: those are its choice).
        let minimal = results.scenarios[si]
            .rounds
            .as_ref()
            .is_some_and(|r| r.race.is_some() && r.run <= sp.needs.budget_trials.max(1));
        if minimal {
            budget.record_scenario(budget.estimate_s(sp), began.elapsed());
        }
        if last_db {
            db.stop(progress);
        }
        let s = &mut results.scenarios[si];
        s.ranking = summary::rank(s);
        if let Some(b) = results.budget.as_mut() {
            b.used_s = budget.elapsed().as_secs_f64();
        }
        results.save(out)?;
    }
    Ok(())
}

/// Probes the machine before any target (canary, noise under load, the generator's pace):
/// seeds the noise sentinel's level, keeps the probe in the results and gives how much
/// slower than the reference machine this one is.
fn probe_machine(
    plan: &RunPlan,
    ctx: &RunContext,
    results: &mut RunResults,
    progress: &mut Progress,
) -> f64 {
    // The probe's load (~3 s) serves the estimates of rounds added for precision; a run of
    // fixed counts times its canary only.
    let adaptive = plan.scenarios.iter().any(|s| s.precision.target.is_some());
    progress.message("probing the machine (canary, noise under load, generator) ...".into());
    let probe = crate::measure::machine_probe::probe(plan, ctx, adaptive);
    if let Some(n) = &probe.noise {
        match ctx.noise.lock() {
            Ok(mut j) => j.seed(n),
            Err(e) => e.into_inner().seed(n),
        }
    }
    progress.line(&probe.line());
    let slowdown = probe.slowdown();
    results.machine_probe = Some(probe);
    slowdown
}

/// The scenarios this run measures: all that were named, or the suite's default scope as
/// far as the budget holds it at the start's estimates (what does not fit is left out,
/// named, with its command); and those left out, in the order they may be measured after
/// all (`readmit`).
fn scope<'p>(
    plan: &'p RunPlan,
    budget: &budget::Budget,
    results: &mut RunResults,
    progress: &mut Progress,
) -> (readmit::Scenarios<'p>, readmit::Scenarios<'p>) {
    let keep = if plan.scenarios_named {
        vec![true; plan.scenarios.len()]
    } else {
        budget.scope(&plan.scenarios)
    };
    let kept: Vec<&crate::kind::ScenarioPlan> = plan
        .scenarios
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(s, _)| s)
        .collect();
    // Left in the plan's order, the races (the rankings) first: the reverse of the order
    // `Budget::scope` leaves them in.
    let mut left: Vec<&crate::kind::ScenarioPlan> = plan
        .scenarios
        .iter()
        .zip(&keep)
        .filter(|(_, k)| !**k)
        .map(|(s, _)| s)
        .collect();
    left.sort_by_key(|s| !s.races());
    if !left.is_empty() {
        let lo = readmit::left_out(
            plan,
            &left,
            budget.minimum_of(&left),
            budget.minimum_of(&kept),
        );
        progress.line(&lo.line());
        for s in &left {
            progress.skip(s.planned_load_secs());
        }
        results.left_out = Some(lo);
    }
    progress.line(&budget.expectation(&kept));
    results.budget = budget.total().map(|t| BudgetInfo {
        max_s: t.as_secs_f64(),
        used_s: 0.0,
        promised_s: Some(budget.minimum_of(&kept).max(t.as_secs_f64())),
    });
    (kept, left)
}
