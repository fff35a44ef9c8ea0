//! `gqlbench run [suite]`: the main job.
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::catalog::Catalog;
use crate::cli::{IsolationArgs, RunArgs};
use crate::measure::RunContext;
use crate::plan::{IsolationOptions, RunOptions};
use crate::planner::resolve_run;
use crate::progress::Progress;
use crate::report::cost::Priced;
use crate::report::{Csv, Dest, ExportManager, Html, Json, Markdown, Terminal};
use crate::runner;

pub fn run(root: &Path, args: &RunArgs) -> Result<ExitCode> {
    let cat = Catalog::load(root)?;
    // A bad price table is refused before anything runs, not after the run.
    let pricing = args.cost.pricing()?;
    for t in &args.targets {
        // A named native build that is not installed would only be skipped: refuse it now.
        crate::measure::install::require_installed(cat.target(t)?, "--targets")
            .context("--targets")?;
    }
    let plan = resolve_run(&cat, &options(args), crate::kinds::REGISTRY)?;
    // Before anything starts: this run's CPUs, its output folder, leftovers of killed runs.
    let locks = crate::sys::lock::lock_cpus(&plan.isolation, args.isolation.force_concurrent)?;
    crate::measure::out_dir::prepare(&plan.out_dir, args.force)?;
    let db_base = crate::db::DbOptions {
        dir: args.db_dir.clone(),
        ..Default::default()
    };
    crate::measure::leftovers::sweep_and_report(&db_base.base_dir());
    let ctx = RunContext {
        root: root.to_path_buf(),
        cancel: super::cancel_flag(),
        command: std::env::args().collect(),
        noise: std::sync::Mutex::new(crate::measure::noise::Judge::new(
            plan.interference_limit_pct,
            plan.steal_limit_pct,
        )),
    };
    let (nofile, nofile_note) = crate::sys::cpus::raise_nofile();
    // Said only when this plan's connections come near a limit that could not be raised.
    let nofile_note = nofile_note
        .filter(|_| crate::sys::cpus::nofile_matters(nofile, plan.peak_connections().into()));
    if let Some(g) = &plan.isolation.generator {
        // The whole gqlbench process (runner, sampler, engine threads) stays off the
        // target CPUs.
        crate::sys::cpus::pin_current_thread(g)
            .context("pinning gqlbench to the generator CPUs")?;
    }
    std::fs::create_dir_all(&plan.out_dir)
        .with_context(|| format!("creating the output folder {}", plan.out_dir.display()))?;
    let notes = nofile_note.into_iter().chain(locks.notes.iter().cloned());
    let mut results = runner::new_results(&plan, &ctx, nofile, notes.collect());
    let mut progress = Progress::new(plan.planned_load_secs(), false);
    progress.line(&format!(
        "gqlbench: suite {} ({} scenarios, profile {}), about {:.0} s of load; results in {}",
        plan.suite,
        plan.scenarios.len(),
        plan.profile,
        plan.planned_load_secs(),
        plan.out_dir.display()
    ));
    if let Some(c) = args.connections {
        let open = crate::planner::ignoring_connections(&plan.scenarios);
        if !open.is_empty() {
            progress.line(&format!(
                "note: -c {c} does not apply to {} (open model: a rate sets the load)",
                open.join(", ")
            ));
        }
    }
    if let Some(slice) = args.slice {
        let alone: Vec<&str> = plan
            .scenarios
            .iter()
            .filter(|s| !s.needs.alternates)
            .map(|s| s.name.as_str())
            .collect();
        if !alone.is_empty() {
            progress.line(&format!(
                "note: --slice {} does not apply to {} (their targets are measured one at a time: an open model, a kind of its own, or helpers read per trial)",
                humantime::format_duration(slice),
                alone.join(", ")
            ));
        }
    }
    let outcome = runner::run_plan(&plan, &ctx, &mut results, &mut progress);
    progress.finish();
    results.end(outcome.is_err(), ctx.cancelled());
    let verdict = crate::verdict::judge(&results, args.ignore_failures);
    results.verdict = Some(verdict.clone());
    // Whatever happened, what was measured is saved and rendered: results.json (its last
    // checkpoint, with the final status), report.md, report.html and the chart CSVs, then
    // the table.
    let folder = Dest::Dir(plan.out_dir.clone());
    let saved = ExportManager::new()
        .add(Json, folder.clone())
        .add(Priced::new(Markdown, pricing.clone()), folder.clone())
        .add(Priced::new(Html, pricing.clone()), folder.clone())
        .add(Csv, folder)
        .write(&results);
    let shown = if plan.json {
        ExportManager::new()
            .add(Priced::new(Terminal, pricing), Dest::Stderr)
            .add(Json, Dest::Stdout)
    } else {
        ExportManager::new().add(Priced::new(Terminal, pricing), Dest::Stdout)
    }
    .write(&results);
    eprintln!(
        "\nresults: {}\nreport:  {} (charts: {})",
        plan.out_dir.join("results.json").display(),
        plan.out_dir.join("report.md").display(),
        plan.out_dir.join("report.html").display()
    );
    outcome?;
    saved?;
    shown?;
    if !plan.json {
        // The table on stdout ended with the verdict; CI logs that keep only stderr get
        // its last line too.
        if let Some(last) = verdict.lines().last() {
            eprintln!("{last}");
        }
    }
    Ok(verdict.exit())
}

/// The run's options from its command line: the one place clap's `RunArgs` is read.
pub fn options(a: &RunArgs) -> RunOptions {
    RunOptions {
        suite: a.suite.clone(),
        targets: a.targets.clone(),
        scenarios: a.scenarios.clone(),
        all: a.all,
        profile: a.profile.clone(),
        trials: a.trials,
        duration: a.duration,
        warmup: a.warmup,
        warmup_max: a.warmup_max,
        precision: a.precision,
        max_trials: a.max_trials,
        interference_limit: a.interference_limit,
        steal_limit: a.steal_limit,
        target_env: a.target_env.clone(),
        max_time: a.max_time,
        connections: a.connections,
        connection_sweep: a.connection_sweep.clone(),
        scale: a.scale,
        db_dir: a.db_dir.clone(),
        out: a.out.clone(),
        json: a.json,
        isolation: isolation_options(&a.isolation),
        slice: a.slice,
        one_at_a_time: a.one_at_a_time,
        graph: a.graph.clone(),
    }
}

/// The isolation flags as options (`run`, `check`, `calibrate`).
pub fn isolation_options(a: &IsolationArgs) -> IsolationOptions {
    IsolationOptions {
        generator_cpus: a.generator_cpus.clone(),
        target_cpus: a.target_cpus.clone(),
        no_pin: a.no_pin,
        no_cgroups: a.no_cgroups,
        force_concurrent: a.force_concurrent,
    }
}
