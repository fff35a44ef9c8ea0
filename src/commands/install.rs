//! `gqlbench install [TARGET...]`: install targets ahead of a run. Without names, every
//! target but the long native builds (which must be named); a native build already current
//! in the cache is reported with its record (where, when, by which command, how long) in
//! seconds, whichever checkout built it; `--force` reinstalls; `--check` installs nothing and
//! answers whether the targets are installed (exit 0) or not (exit 1).
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;

use crate::catalog::{Catalog, TargetDef};
use crate::cli::InstallArgs;
use crate::measure::install::{self, Missing, Outcome, State};
use crate::measure::install_record::{self as record, InstallRecord};

pub fn run(root: &Path, a: &InstallArgs) -> Result<ExitCode> {
    let cat = Catalog::load(root)?;
    let node = crate::sys::machine::node_version().unwrap_or_default();
    let targets = chosen(&cat, a)?;
    if a.check {
        return Ok(check(&targets, &node));
    }
    if !a.force {
        refuse_unrecorded(&targets, a, &node)?;
    }
    let mut failed = 0;
    let cancel = super::cancel_flag();
    for t in targets {
        if t.install.is_none() {
            eprintln!("{}: nothing to install", t.name);
            continue;
        }
        if a.targets.is_empty() {
            // A variant installs as its base, which is in the list itself.
            if t.install_owner() != t.name {
                continue;
            }
            // Coprocessors, trace collectors and servers in other languages need their
            // language's toolchain (Go, Python, a JDK, Cargo): installed with the runs that
            // use them, or when named, so a machine with Node alone installs the rest.
            if matches!(
                t.kind,
                crate::catalog::TargetKind::Coprocessor | crate::catalog::TargetKind::Collector
            ) || beyond_node(t)
            {
                eprintln!(
                    "{}: installed with the runs that use it (name it to install now: `gqlbench install {}`)",
                    t.name, t.name
                );
                continue;
            }
        }
        let state = install::settle(t, &node);
        if !a.force {
            if let Ok(State::Current(rec)) = &state {
                eprintln!("{}", already(t, rec.as_deref(), true));
                continue;
            }
        }
        // Long native builds only when named: `gqlbench install` alone stays quick.
        if a.targets.is_empty() && native(t) {
            eprintln!(
                "{}: skipped (native build{}; name it to build: `gqlbench install {}`)",
                t.name,
                takes(t).map(|d| format!(", {d}")).unwrap_or_default(),
                t.name
            );
            continue;
        }
        // A missing program fails here, before the install command is even shown.
        if let Err(e) = install::check_requirements(t) {
            failed += 1;
            eprintln!("{}: FAILED: {e:#}", t.name);
            continue;
        }
        if let Ok(State::NotCurrent(Missing::Stale(why))) = &state {
            let verb = if install::is_cache_build(t) {
                "rebuilding"
            } else {
                "reinstalling"
            };
            eprintln!("{}: {verb}: {why}", t.name);
        }
        if !install_one(t, &node, a.force, &cancel) {
            failed += 1;
        }
    }
    Ok(if cancel.load(Ordering::Relaxed) {
        ExitCode::from(130)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Whether `t` is a server whose install, not a native build into the cache (those have
/// their own rule below), needs a program other than Node's (`[install] requires`).
fn beyond_node(t: &TargetDef) -> bool {
    t.kind == crate::catalog::TargetKind::Server
        && !install::is_cache_build(t)
        && t.install.as_ref().is_some_and(|i| {
            i.requires
                .iter()
                .any(|r| !matches!(r.program.as_str(), "node" | "npm"))
        })
}

/// The targets named (all when none is, but those `--except` names), a gateway variant
/// named alone bringing its coprocessor.
fn chosen<'c>(cat: &'c Catalog, a: &InstallArgs) -> Result<Vec<&'c TargetDef>> {
    // An unknown name is refused (exit 2, with the known ones) rather than excepting nothing.
    for n in &a.except {
        cat.target(n)?;
    }
    let mut targets: Vec<&TargetDef> = if a.targets.is_empty() {
        cat.targets
            .iter()
            .filter(|t| !a.except.contains(&t.name))
            .collect()
    } else {
        a.targets
            .iter()
            .map(|n| cat.target(n))
            .collect::<Result<_>>()?
    };
    if !a.targets.is_empty() {
        let extra: Vec<&TargetDef> = targets
            .iter()
            .filter_map(|t| t.coprocessor_def.as_ref())
            .filter_map(|c| cat.target(&c.name).ok())
            .filter(|c| !targets.iter().any(|t| t.name == c.name))
            .collect();
        targets.extend(extra);
        targets.dedup_by(|a, b| a.name == b.name);
    }
    Ok(targets)
}

/// Refuses (before anything installs) a build in the cache that no record vouches for.
fn refuse_unrecorded(targets: &[&TargetDef], a: &InstallArgs, node: &str) -> Result<()> {
    // Before anything installs: a build in the cache that no record vouches for is most
    // likely one an older gqlbench finished from another checkout; rebuilding it would cost
    // its full build time, so that takes --force.
    for t in targets
        .iter()
        .filter(|t| !a.targets.is_empty() || !native(t))
    {
        if let Ok(State::NotCurrent(Missing::Unrecorded(file))) = install::state(t, node) {
            return Err(crate::error::InstallError::NeedsForce {
                message: format!(
                    "{name}: {file} is already in the cache but has no install record, so whether it was built from today's inputs is not known (built by a gqlbench older than install records?). If another checkout built it, `gqlbench install {name}` there records it in seconds; `gqlbench install {name} --force` here rebuilds it{takes}",
                    name = t.name,
                    file = record::tilde(&file),
                    takes = takes(t).map(|d| format!(" ({d})")).unwrap_or_default(),
                ),
            }
            .into());
        }
    }
    Ok(())
}

/// Installs one target with a spinner on its log's last line; false when it failed.
fn install_one(t: &TargetDef, node: &str, force: bool, cancel: &AtomicBool) -> bool {
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.enable_steady_tick(std::time::Duration::from_millis(200));
    let tick = |el: std::time::Duration, line: &str| {
        let mut l: String = line.chars().take(100).collect();
        if l.is_empty() {
            l = "working".into();
        }
        spinner.set_message(format!("{} {}s: {l}", t.name, el.as_secs()));
    };
    // Once the install's lock is ours (another install may hold it first).
    let start = || {
        spinner.suspend(|| {
            eprintln!(
                "{}: `{}` (log: {})",
                t.name,
                install::command_line(t),
                install::log_path(t).display()
            )
        })
    };
    let outcome = install::install(t, node, force, &start, &tick, &|| {
        cancel.load(Ordering::Relaxed)
    });
    spinner.finish_and_clear();
    match outcome {
        // Another gqlbench installed it while this one waited for the lock.
        Ok(Outcome::Cached(rec)) => eprintln!("{}", already(t, rec.as_deref(), false)),
        Ok(Outcome::Installed { seconds }) => match record::build_dir(t) {
            Some(d) => eprintln!(
                "{}: built in {}, recorded in {} for every checkout",
                t.name,
                crate::units::fmt_minutes(seconds),
                record::tilde(&record::record_path(&d))
            ),
            None => eprintln!("{}: installed in {seconds:.0} s", t.name),
        },
        Ok(Outcome::NothingToInstall) => {}
        Err(e) => {
            eprintln!("{}: FAILED: {e:#}", t.name);
            return false;
        }
    }
    true
}

/// `--check`: whether each target is installed from today's inputs, reading only (nothing
/// is built, installed or recorded), one line each on stdout: exit 0 when every one is, 1
/// when one is not. A build an older gqlbench finished counts as installed, as `run
/// --targets` counts it (the run records it).
fn check(targets: &[&TargetDef], node: &str) -> ExitCode {
    let mut missing = 0;
    for t in targets {
        let line = match install::state(t, node) {
            Ok(State::Nothing) => format!("{}: nothing to install", t.name),
            Ok(State::Current(rec)) => already(t, rec.as_deref(), false),
            Ok(State::Legacy { stamp }) => format!(
                "{}: built by an older gqlbench (its stamp {} matches); recorded in the cache by the next `gqlbench install {}` or run",
                t.name,
                record::tilde(&stamp),
                t.name
            ),
            Ok(State::NotCurrent(why)) => {
                missing += 1;
                format!("{}: {}", t.name, install::not_installed_message(t, &why))
            }
            Err(e) => {
                missing += 1;
                format!("{}: {e:#}", t.name)
            }
        };
        println!("{line}");
    }
    if missing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A long build `run` never starts (`install.auto = false`): built only when named.
fn native(t: &TargetDef) -> bool {
    t.install.as_ref().map(|i| !i.auto).unwrap_or(false)
}

fn takes(t: &TargetDef) -> Option<String> {
    t.install.as_ref().and_then(|i| i.takes.clone())
}

/// "apollo-router: already built in the cache (~/.cache/gqlbench/apollo-router-2.17.0,
/// built ... by `cargo install ...`, 17 min); --force rebuilds", with a note when this
/// machine's toolchain is not the one the build used.
fn already(t: &TargetDef, rec: Option<&InstallRecord>, force_hint: bool) -> String {
    let (Some(rec), Some(dir)) = (rec, record::build_dir(t)) else {
        return format!(
            "{}: already installed (cache current{})",
            t.name,
            if force_hint {
                "; --force to reinstall"
            } else {
                ""
            }
        );
    };
    let mut s = format!(
        "{}: already built in the cache ({}, {}){}",
        t.name,
        record::tilde(&dir),
        rec.describe(),
        if force_hint { "; --force rebuilds" } else { "" }
    );
    let changes = record::toolchain_changes(rec, &record::toolchain(t));
    if !changes.is_empty() {
        s.push_str(&format!(
            "\n{}: note: built with another toolchain than this machine's ({}); a toolchain change does not invalidate a build (the version and lockfile are pinned): --force rebuilds with this one",
            t.name,
            changes.join(", ")
        ));
    }
    s
}
