//! `gqlbench ab [scenario]`: two builds of one target in one run, decided sequentially over
//! fresh process pairs. Exit 1 when side B is slower and a slowdown beyond the allowance is
//! not ruled out, or a side failed; 2 on bad input.
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::cli::{AbArgs, FormArg};
use crate::kinds::ab::AB;
use crate::measure::RunContext;
use crate::plan::ab::{AbOptions, Form, SideOptions};
use crate::planner::resolve_ab;
use crate::progress::Progress;
use crate::report::{Dest, ExportManager, Html, Json, Markdown, Terminal};
use crate::results::{RunResults, RunVerdict};
use crate::runner;

pub fn run(root: &Path, args: &AbArgs) -> Result<ExitCode> {
    let ap = resolve_ab(root, &options(args), crate::kinds::REGISTRY)?;
    let flags = ["--a-target", "--b-target"];
    for ((t, arm), flag) in ap.run.scenarios[0]
        .targets
        .iter()
        .zip(ap.arms.iter())
        .zip(flags)
    {
        // A native build that is not installed would only be skipped: refuse it now.
        crate::measure::install::require_installed(t, flag)
            .with_context(|| format!("side {} ({})", arm.label, arm.root.display()))?;
    }
    let locks = crate::sys::lock::lock_cpus(&ap.run.isolation, args.isolation.force_concurrent)?;
    crate::measure::out_dir::prepare(&ap.run.out_dir, args.force)?;
    crate::measure::leftovers::sweep_and_report(&crate::db::DbOptions::default().base_dir());
    let ctx = RunContext {
        root: root.to_path_buf(),
        cancel: super::cancel_flag(),
        command: std::env::args().collect(),
        noise: std::sync::Mutex::new(crate::measure::noise::Judge::new(
            ap.run.interference_limit_pct,
            ap.run.steal_limit_pct,
        )),
    };
    let (nofile, _) = crate::sys::cpus::raise_nofile();
    if let Some(g) = &ap.run.isolation.generator {
        // The whole gqlbench process stays off the target CPUs.
        crate::sys::cpus::pin_current_thread(g)
            .context("pinning gqlbench to the generator CPUs")?;
    }
    let out = ap.run.out_dir.clone();
    std::fs::create_dir_all(out.join("logs"))
        .with_context(|| format!("creating the output folder {}", out.display()))?;
    let mut results = runner::new_results(&ap.run, &ctx, nofile, locks.notes.clone());
    results.suite = format!("ab {}", ap.run.scenarios[0].suite);
    let mut progress = Progress::new(ap.budget.as_secs_f64(), false);
    progress.line(&format!(
        "gqlbench ab: {}/{}, {} vs {} ({}), allowance ±{}%, up to {} pairs or {}; results in {}",
        ap.run.scenarios[0].suite,
        ap.run.scenarios[0].name,
        ap.arms[1].label,
        ap.arms[0].label,
        crate::units::snake_name(&ap.form),
        crate::units::pct(ap.allowance * 100.0),
        ap.max_pairs,
        humantime::format_duration(ap.budget),
        out.display()
    ));
    // Each side installs in its own checkout (one checkout once); a failure is its side's.
    let targets = &ap.run.scenarios[0].targets;
    let a_failed = runner::install_all(&[&targets[0]], &progress, &|| ctx.cancelled());
    let b_failed = if targets[1].dir == targets[0].dir {
        a_failed.clone()
    } else {
        runner::install_all(&[&targets[1]], &progress, &|| ctx.cancelled())
    };
    let unavailable = [a_failed.into_iter().next(), b_failed.into_iter().next()];
    results.scenarios.push(runner::ab::new_scenario(&ap));
    let outcome = runner::ab::run(&ap, &ctx, &mut results, &mut progress, &unavailable);
    progress.finish();
    results.end(outcome.is_err(), ctx.cancelled());
    let mut verdict = crate::verdict::judge(&results, false);
    // `ab` has no --ignore-failures: its verdict line does not offer it.
    verdict.ignorable = false;
    gate(&results, &mut verdict);
    results.verdict = Some(verdict.clone());
    let folder = Dest::Dir(out.clone());
    let saved = ExportManager::new()
        .add(Json, folder.clone())
        .add(Markdown, folder.clone())
        .add(Html, folder)
        .write(&results);
    let shown = if args.json {
        ExportManager::new()
            .add(Terminal, Dest::Stderr)
            .add(Json, Dest::Stdout)
    } else {
        ExportManager::new().add(Terminal, Dest::Stdout)
    }
    .write(&results);
    eprintln!(
        "\nresults: {}\nreport:  {} ({})",
        out.join("results.json").display(),
        out.join("report.md").display(),
        out.join("report.html").display()
    );
    outcome?;
    saved?;
    shown?;
    if let Some(last) = verdict.lines().last() {
        eprintln!("{last}");
    }
    Ok(verdict.exit())
}

/// The A/B gate on top of the rows' verdict: side B slower with a slowdown beyond the
/// allowance not ruled out fails the run (exit 1), as `compare --fail-if-slower` does.
pub fn gate(results: &RunResults, verdict: &mut RunVerdict) {
    let Some(s) = results.scenarios.first() else {
        return;
    };
    let Some(r) = s.by_kind.get(&AB) else {
        return;
    };
    let labels = |i: usize| r.arms.get(i).map_or("?".to_string(), |a| a.label.clone());
    if let Some(f) = &r.failure {
        let line = format!("{}/{} A/B: {f}", s.suite, s.name);
        if !verdict.failures.contains(&line) {
            verdict.failures.push(line);
        }
    }
    // A run that ended without deciding (too few pairs gave an estimate) answers nothing:
    // it fails rather than pass a change it never measured.
    let undecided = r
        .decision
        .as_ref()
        .is_none_or(|d| d.verdict == crate::summary::ab::AbVerdict::TooFewPairs || !d.stop);
    if r.failure.is_none() && undecided && r.stopped != crate::kinds::ab::AbStop::Interrupted {
        verdict.failures.push(format!(
            "{}/{} A/B: no decision: {} of {} pairs gave an estimate ({}); give a longer --budget or --pair-time",
            s.suite,
            s.name,
            r.pairs.iter().filter(|p| p.d.is_some() && p.uncounted.is_none()).count(),
            r.pairs.len(),
            r.stopped
        ));
    }
    if let Some(d) = r.decision.as_ref().filter(|d| d.trips) {
        verdict.regressions.push(format!(
            "{}/{} A/B: {} is slower than {}: {}, beyond the ±{}% allowance",
            s.suite,
            s.name,
            labels(1),
            labels(0),
            crate::units::fmt_change(d.pct, d.low_pct, d.high_pct),
            crate::units::pct(r.allowance * 100.0)
        ));
    }
    if (!verdict.failures.is_empty() || !verdict.regressions.is_empty()) && verdict.exit_code == 0 {
        verdict.exit_code = 1;
    }
}

/// The A/B's options from its command line: the one place clap's `AbArgs` is read.
pub fn options(a: &AbArgs) -> AbOptions {
    let side = |target: &Option<String>,
                root: &Option<std::path::PathBuf>,
                label: &Option<String>,
                env: &[String]| SideOptions {
        target: target.clone(),
        root: root.clone(),
        label: label.clone(),
        env: env.to_vec(),
    };
    AbOptions {
        scenario: a.scenario.clone(),
        target: a.target.clone(),
        a: side(&a.a_target, &a.a_root, &a.a_label, &a.a_env),
        b: side(&a.b_target, &a.b_root, &a.b_label, &a.b_env),
        target_env: a.target_env.clone(),
        allowance: a.allowance / 100.0,
        budget: a.budget,
        pair_time: a.pair_time,
        warmup: a.warmup,
        slice: a.slice,
        guard: a.guard,
        form: match a.form {
            FormArg::Alternate => Form::Alternate,
            FormArg::Duet => Form::Duet,
        },
        max_pairs: a.max_pairs,
        connections: a.connections,
        latency_time: a.latency_time,
        profile: a.profile.clone(),
        out: a.out.clone(),
        json: a.json,
        isolation: super::run::isolation_options(&a.isolation),
    }
}
