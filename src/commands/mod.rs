//! One file per subcommand; each turns its arguments into a plan and renders the result.
pub mod calibrate;
pub mod check;
pub mod compare;
pub mod list;
pub mod load;
pub mod run;

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::Result;

use crate::catalog::Catalog;
use crate::cli::{Cli, Command};
use crate::results::RunResults;

pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    let root = || Catalog::locate(cli.root.as_deref());
    match &cli.command {
        Command::Run(a) => run::run(&root()?, a),
        Command::Load(a) => load::run(a),
        Command::Check(a) => check::run(&root()?, a),
        Command::List => list::run(&root()?),
        Command::Report(a) => {
            let mut r = RunResults::load(&a.run)?;
            // The ranking is derived from the stored summaries; derive it again so a saved
            // run is judged by this version's rules.
            for s in &mut r.scenarios {
                s.ranking = crate::summary::rank(s);
            }
            match a.format {
                crate::cli::ReportFormat::Md => print!("{}", crate::report::markdown::render(&r)),
                crate::cli::ReportFormat::Terminal => {
                    print!("{}", crate::report::terminal::render(&r))
                }
                crate::cli::ReportFormat::Json => println!("{}", serde_json::to_string_pretty(&r)?),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Compare(a) => compare::run(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::Install(a) => {
            let cat = Catalog::load(&root()?)?;
            let node = crate::machine::node_version().unwrap_or_default();
            let names: Vec<String> = if a.targets.is_empty() {
                cat.targets.iter().map(|t| t.name.clone()).collect()
            } else {
                a.targets.clone()
            };
            let mut failed = 0;
            let cancel = cancel_flag();
            for n in &names {
                let t = cat.target(n)?;
                if t.install.is_none() {
                    eprintln!("{}: nothing to install", t.name);
                    continue;
                }
                // Long native builds only when named: `gqlbench install` alone stays quick.
                if a.targets.is_empty() && t.install.as_ref().map(|i| !i.auto).unwrap_or(false) {
                    eprintln!(
                        "{}: skipped (native build{}; name it to build: `gqlbench install {}`)",
                        t.name,
                        t.install
                            .as_ref()
                            .and_then(|i| i.takes.clone())
                            .map(|d| format!(", {d}"))
                            .unwrap_or_default(),
                        t.name
                    );
                    continue;
                }
                let current = crate::runner::install::cache_key(t, &node)
                    .map(|k| crate::runner::install::is_current(t, &k))
                    .unwrap_or(false);
                if current && !a.force {
                    eprintln!(
                        "{}: already installed (cache current; --force to reinstall)",
                        t.name
                    );
                    continue;
                }
                // A missing program fails here, before the install command is even shown.
                if let Err(e) = crate::runner::install::check_requirements(t) {
                    failed += 1;
                    eprintln!("{}: FAILED: {e:#}", t.name);
                    continue;
                }
                eprintln!(
                    "{}: `{}` (log: {})",
                    t.name,
                    crate::runner::install::command_line(t),
                    crate::runner::install::log_path(t).display()
                );
                let spinner = indicatif::ProgressBar::new_spinner();
                spinner.enable_steady_tick(std::time::Duration::from_millis(200));
                let tick = |el: std::time::Duration, line: &str| {
                    let mut l: String = line.chars().take(100).collect();
                    if l.is_empty() {
                        l = "working".into();
                    }
                    spinner.set_message(format!("{} {}s: {l}", t.name, el.as_secs()));
                };
                let outcome = crate::runner::install::install(t, &node, a.force, &tick, &|| {
                    cancel.load(std::sync::atomic::Ordering::Relaxed)
                });
                spinner.finish_and_clear();
                match outcome {
                    Ok(crate::runner::install::Outcome::Cached) => {
                        eprintln!(
                            "{}: already installed (cache current; --force to reinstall)",
                            t.name
                        )
                    }
                    Ok(crate::runner::install::Outcome::Installed { seconds }) => {
                        eprintln!("{}: installed in {seconds:.0} s", t.name)
                    }
                    Ok(crate::runner::install::Outcome::NothingToInstall) => {}
                    Err(e) => {
                        failed += 1;
                        eprintln!("{}: FAILED: {e:#}", t.name)
                    }
                }
            }
            Ok(if failed > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Subgraphs { args } => {
            let mut argv = vec!["gqlbench subgraphs".to_string()];
            argv.extend(args.iter().cloned());
            Ok(gqlbench_subgraphs::cli_main(argv))
        }
        Command::ServeStatic(a) => {
            crate::static_server::serve(a.port)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::ServeSubscriptions(a) => {
            let p = gqlbench_engine::publisher::Publisher::start(
                gqlbench_engine::publisher::PublisherOptions {
                    rate: a.rate,
                    port: a.port,
                    misbehavior: gqlbench_engine::publisher::Misbehavior {
                        drop_after: a.drop_after,
                        ..Default::default()
                    },
                    ..Default::default()
                },
            )?;
            println!("publishing {} ticks/s on {}", a.rate, p.url());
            // Serve until a signal ends the process (the runner stops targets by group).
            let cancel = cancel_flag();
            while !cancel.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            p.stop();
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Ctrl-C and SIGTERM set this flag; the runner and the engine stop promptly, children are
/// killed by their guards and partial results are saved.
pub fn cancel_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(sig, flag.clone());
    }
    flag
}
