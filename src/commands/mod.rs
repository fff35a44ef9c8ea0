//! One file per subcommand; each turns its arguments into a plan and renders the result.
pub mod ab;
pub mod audit;
pub mod calibrate;
pub mod check;
pub mod compare;
pub mod export;
pub mod import;
pub mod init;
mod init_operations;
pub mod install;
pub mod list;
pub mod load;
pub mod report;
pub mod run;
pub mod sensitivity;

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::Result;

use crate::catalog::Catalog;
use crate::cli::{Cli, Command};

pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    let root = || Catalog::locate(cli.root.as_deref());
    match &cli.command {
        Command::Run(a) => run::run(&root()?, a),
        // A/B: side A's checkout is the project root when none is found from here.
        Command::Ab(a) => match (root(), &a.a_root) {
            (Ok(r), _) => ab::run(&r, a),
            (Err(_), Some(r)) => ab::run(r, a),
            (Err(e), None) => Err(e),
        },
        Command::Load(a) => load::run(a),
        Command::Check(a) => check::run(&root()?, a),
        Command::List => list::run(&root()?),
        Command::Report(a) => report::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Calibrate(a) if a.sensitivity => {
            sensitivity::run(&root()?, cli.root.as_deref(), a)
        }
        Command::Calibrate(a) => calibrate::run(a),
        Command::Install(a) => install::run(&root()?, a),
        Command::Init(crate::cli::InitCommand::Graph(a)) => init::graph(&root()?, a),
        Command::Audit(a) => audit::run(&root()?, a),
        Command::Export(crate::cli::ExportCommand::K6(a)) => export::k6(&root()?, a),
        Command::Import(crate::cli::ImportCommand::K6(a)) => import::k6(a),
        Command::Subgraphs { args } => {
            let mut argv = vec!["gqlbench subgraphs".to_string()];
            argv.extend(args.iter().cloned());
            Ok(gqlbench_subgraphs::cli_main(argv))
        }
        Command::ServeStatic(a) => {
            gqlbench_servers::static_server::serve(a.port)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::ServeOtlp(a) => {
            gqlbench_servers::otlp::serve(a.port)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::ServeSubscriptions(a) => {
            let p = gqlbench_servers::publisher::Publisher::start(
                gqlbench_servers::publisher::PublisherOptions {
                    rate: a.rate,
                    port: a.port,
                    misbehavior: gqlbench_servers::publisher::Misbehavior {
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
