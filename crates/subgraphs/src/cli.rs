//! Command line: `serve`, `sdl` and `expected`. Shared by the standalone binary and the
//! hidden `gqlbench subgraphs ...` subcommand, both of which call [`cli_main`].

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};

use crate::delay::DelaySpec;
use crate::ports::Ports;
use crate::server::{self, ServeConfig};
use crate::subgraph::{Federation, Subgraph};

/// The four subgraphs (accounts, products, reviews, inventory) of the classic Apollo
/// federation demo, for benchmarking gateways.
#[derive(Debug, Parser)]
#[command(name = "gqlbench-subgraphs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the four subgraphs on 127.0.0.1, one port each; prints `ready` once listening.
    Serve(ServeArgs),
    /// Print one subgraph's SDL (what `_service { sdl }` returns).
    Sdl {
        /// accounts, products, reviews or inventory.
        #[arg(long, value_parser = |s: &str| s.parse::<Subgraph>())]
        subgraph: Subgraph,
        #[arg(long, value_enum, default_value_t = Federation::V2)]
        federation: Federation,
    },
    /// Print `{"data": ...}` for a query run against a non-federated schema over the same
    /// data: the answer every gateway must give.
    Expected {
        /// File holding the GraphQL operation.
        #[arg(long)]
        query: PathBuf,
        /// Variables as a JSON object.
        #[arg(long)]
        variables: Option<String>,
    },
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// e.g. accounts=4001,products=4002,reviews=4003,inventory=4004
    #[arg(long, value_parser = Ports::parse)]
    ports: Ports,
    /// SDL flavour `_service { sdl }` returns (v1 for Mercurius' gateway).
    #[arg(long, value_enum, default_value_t = Federation::V2)]
    federation: Federation,
    /// Delay every response of a subgraph by a uniform draw in a range, e.g.
    /// reviews=20..150ms; repeatable, once per subgraph.
    #[arg(long = "delay", value_parser = DelaySpec::parse)]
    delays: Vec<DelaySpec>,
    /// Worker threads (default: the CPUs this process may use).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the delay draws.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Execute every request, even a body answered before (to measure the subgraphs'
    /// own cost; by default repeated bodies are answered from memory).
    #[arg(long)]
    no_response_cache: bool,
}

/// Parses `args` (`args[0]` is the program name) and runs the command.
pub fn cli_main(args: Vec<String>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Prints help/version to stdout and usage errors to stderr.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gqlbench-subgraphs: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => serve(args),
        Command::Sdl {
            subgraph,
            federation,
        } => {
            print!("{}", crate::sdl::sdl(subgraph, federation)?);
            Ok(())
        }
        Command::Expected { query, variables } => expected(&query, variables.as_deref()),
    }
}

fn serve(args: ServeArgs) -> anyhow::Result<()> {
    for (i, d) in args.delays.iter().enumerate() {
        if args.delays[..i].iter().any(|e| e.subgraph == d.subgraph) {
            anyhow::bail!(
                "--delay is given twice for {}; give each subgraph one range, e.g. --delay reviews=20..150ms",
                d.subgraph
            );
        }
    }
    let threads = match args.threads {
        Some(0) => anyhow::bail!("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    // One thread needs no work stealing: the current-thread scheduler is cheaper.
    let runtime = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
    }
    .context("cannot start the async runtime")?;
    let config = ServeConfig {
        ports: args.ports.0,
        federation: args.federation,
        delays: args.delays,
        seed: args.seed,
        response_cache: !args.no_response_cache,
    };
    let result = runtime.block_on(async {
        server::start(&config).await?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "ready")?;
        stdout.flush()?;
        drop(stdout);
        shutdown_signal().await
    });
    // Connections still open are dropped, not drained: the runner stops us between trials.
    runtime.shutdown_background();
    result
}

async fn shutdown_signal() -> anyhow::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).context("cannot watch SIGTERM")?;
    let mut int = signal(SignalKind::interrupt()).context("cannot watch SIGINT")?;
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    Ok(())
}

fn expected(query: &std::path::Path, variables: Option<&str>) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(query)
        .with_context(|| format!("cannot read the query file {}", query.display()))?;
    let variables: serde_json::Value = match variables {
        Some(v) => {
            serde_json::from_str(v).with_context(|| format!("--variables is not JSON: {v}"))?
        }
        None => serde_json::Value::Null,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .context("cannot start the async runtime")?;
    let data = runtime.block_on(crate::monolith::expected(&text, variables))?;
    // Serialized from async-graphql's ordered map, so fields keep the query's order.
    #[derive(serde::Serialize)]
    struct Answer {
        data: async_graphql::Value,
    }
    println!("{}", serde_json::to_string_pretty(&Answer { data })?);
    Ok(())
}
