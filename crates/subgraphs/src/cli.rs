//! Command line: `serve`, `mock`, `sdl` and `expected`. Shared by the standalone binary and the
//! hidden `gqlbench subgraphs ...` subcommand, both of which call [`cli_main`].

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};

use crate::delay::DelaySpec;
use crate::graph::Graph;
use crate::ports::Ports;
use crate::server::{self, ServeConfig};
use crate::subgraph::Federation;

/// Subgraphs for benchmarking gateways: the four of the classic Apollo federation demo
/// (accounts, products, reviews, inventory) or twelve generated ones (--graph wide).
#[derive(Debug, Parser)]
#[command(name = "gqlbench-subgraphs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve a graph's subgraphs on 127.0.0.1, one port each; prints `ready NAME=PORT,...`
    /// (the ports bound) once listening.
    Serve(ServeArgs),
    /// Serve mock subgraphs from Federation v2 SDL files (docs/own-graph.md): one per
    /// DIR/*.graphql, named by its file stem; prints `ready NAME=PORT,...` (the ports
    /// bound: port 0 picks a free one) once listening.
    Mock(MockArgs),
    /// Print one subgraph's SDL (what `_service { sdl }` returns).
    Sdl {
        /// A subgraph of the graph: accounts, products, reviews or inventory (demo).
        #[arg(long)]
        subgraph: String,
        #[arg(long, value_enum, default_value_t = Federation::V2)]
        federation: Federation,
        #[arg(long, value_enum, default_value_t = Graph::Demo)]
        graph: Graph,
    },
    /// Print the operation that walks the whole wide graph (every subgraph, down the tree
    /// of entity references): scenarios/queries/federation-wide/all12.graphql.
    WalkQuery,
    /// Print `{"data": ...}` for a query run against a non-federated schema over the same
    /// data: the answer every gateway must give.
    Expected {
        #[arg(long, value_enum, default_value_t = Graph::Demo)]
        graph: Graph,
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
    /// Which subgraphs: the demo's four or the twelve generated ones.
    #[arg(long, value_enum, default_value_t = Graph::Demo)]
    graph: Graph,
    /// One port per subgraph of the graph, e.g.
    /// accounts=4001,products=4002,reviews=4003,inventory=4004
    #[arg(long)]
    ports: String,
    /// SDL flavour `_service { sdl }` returns (v1 for Mercurius' gateway).
    #[arg(long, value_enum, default_value_t = Federation::V2)]
    federation: Federation,
    /// Delay every response of a subgraph by a uniform draw in a range, e.g.
    /// reviews=20..150ms; repeatable, once per subgraph.
    #[arg(long = "delay")]
    delays: Vec<String>,
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

#[derive(Debug, Args)]
struct MockArgs {
    /// Directory of subgraph SDL files (*.graphql).
    #[arg(long)]
    dir: PathBuf,
    /// One port per SDL file, by file stem, e.g. products=4001,reviews=4002 (0: any free
    /// port, named in the `ready` line)
    #[arg(long)]
    ports: String,
    /// A list field's length, e.g. Query.topProducts=10 (repeatable; default 3,
    /// at most 1000).
    #[arg(long = "list")]
    lists: Vec<String>,
    /// One value in N of a nullable field (below the root fields, nullable in every
    /// subgraph) is null; 0: never.
    #[arg(long, default_value_t = crate::mock::NULL_EVERY)]
    nulls: u64,
    /// Delay every response of a subgraph by a uniform draw in a range, e.g.
    /// reviews=20..150ms, or '*=5..20ms' for every subgraph (a subgraph named explicitly
    /// keeps its own); repeatable, once per name.
    #[arg(long = "delay")]
    delays: Vec<String>,
    /// Seed of the delay draws.
    #[arg(long, default_value_t = 0)]
    delay_seed: u64,
    /// Busy the resolving thread this long each time a field is resolved, e.g.
    /// Product.price=50us (units us, ms, s; at most 1s; repeatable).
    #[arg(long = "cost")]
    costs: Vec<String>,
    /// Worker threads (default: the CPUs this process may use).
    #[arg(long)]
    threads: Option<usize>,
    /// Execute every request, even a body answered before (by default a body answered
    /// before gets the same bytes from memory; never with --cost, whose CPU is paid on
    /// every request).
    #[arg(long)]
    no_response_cache: bool,
}

/// Parses `args` (`args[0]` is the program name) and runs the command. Exit 2 for bad
/// input (a flag, a value or the SDL folder: all checked before anything listens), 1 when
/// serving fails (a port taken), 0 after SIGTERM or SIGINT.
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
    // Ports and delays name subgraphs of the graph chosen in the same command line (or of
    // the SDL folder, for `mock`), so they are read here, after it; a bad one is a usage
    // error like any other (exit 2).
    let command = match resolve(cli.command) {
        Ok(command) => command,
        Err(e) => {
            eprintln!("error: {e}\n\nFor more information, try '--help'.");
            return ExitCode::from(2);
        }
    };
    match run(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // As gqlbench's own errors read: this runs as `gqlbench subgraphs` too, where a
            // "gqlbench-subgraphs:" prefix would name a program the user did not type.
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// A command with its subgraph names checked against its graph.
enum Resolved {
    Serve(ServeArgs, Ports, Vec<DelaySpec>),
    Sdl(Graph, usize, Federation),
    WalkQuery,
    Expected(Graph, PathBuf, Option<String>),
    Mock(MockPlan),
}

/// `mock`'s folder loaded and its flags read against the folder's subgraphs.
struct MockPlan {
    subgraphs: Vec<crate::mock::MockSubgraph>,
    ports: Vec<u16>,
    delays: Vec<DelaySpec>,
    delay_seed: u64,
    threads: Option<usize>,
    response_cache: bool,
}

fn resolve(command: Command) -> Result<Resolved, String> {
    Ok(match command {
        Command::Serve(args) => {
            let ports = Ports::parse(&args.ports, args.graph).map_err(|e| {
                format!("invalid value '{}' for '--ports <PORTS>': {e}", args.ports)
            })?;
            let mut delays: Vec<DelaySpec> = Vec::new();
            for spec in &args.delays {
                let d = DelaySpec::parse_for(spec, args.graph)
                    .map_err(|e| format!("invalid value '{spec}' for '--delay <DELAYS>': {e}"))?;
                if delays.iter().any(|e| e.index == d.index) {
                    return Err(format!(
                        "--delay is given twice for {}; give each subgraph one range, e.g. --delay reviews=20..150ms",
                        d.subgraph
                    ));
                }
                delays.push(d);
            }
            check_threads(args.threads)?;
            Resolved::Serve(args, ports, delays)
        }
        Command::Sdl {
            subgraph,
            federation,
            graph,
        } => Resolved::Sdl(
            graph,
            graph
                .index_of(&subgraph)
                .map_err(|e| format!("invalid value '{subgraph}' for '--subgraph': {e}"))?,
            federation,
        ),
        Command::WalkQuery => Resolved::WalkQuery,
        Command::Mock(args) => Resolved::Mock(resolve_mock(args).map_err(|e| format!("{e:#}"))?),
        Command::Expected {
            graph,
            query,
            variables,
        } => Resolved::Expected(graph, query, variables),
    })
}

/// `--threads 0` would leave no thread to serve on.
fn check_threads(threads: Option<usize>) -> Result<(), String> {
    match threads {
        Some(0) => Err("--threads must be at least 1".into()),
        _ => Ok(()),
    }
}

/// Loads `mock`'s folder and reads the flags that name its subgraphs and fields (the
/// names come from the folder's files, so they can only be checked once it is read).
fn resolve_mock(args: MockArgs) -> anyhow::Result<MockPlan> {
    use crate::mock::{cost, serve, MockSubgraph};
    check_threads(args.threads).map_err(anyhow::Error::msg)?;
    let mut config = serve::parse_lists(&args.lists).context("--list")?;
    config.costs = cost::parse_costs(&args.costs).context("--cost")?;
    config.null_every = args.nulls;
    let subgraphs = MockSubgraph::load_dir(&args.dir, &config)?;
    let names: Vec<&str> = subgraphs.iter().map(|s| s.name.as_str()).collect();
    let ports = serve::parse_ports(&args.ports, &names).context("--ports")?;
    let delays = serve::parse_delays(&args.delays, &names).context("--delay")?;
    Ok(MockPlan {
        subgraphs,
        ports,
        delays,
        delay_seed: args.delay_seed,
        threads: args.threads,
        // A field's cost stands for work the subgraph does on every request.
        response_cache: !args.no_response_cache && config.costs.is_empty(),
    })
}

fn run(command: Resolved) -> anyhow::Result<()> {
    match command {
        Resolved::Serve(args, ports, delays) => serve(args, ports, delays),
        Resolved::Sdl(graph, index, federation) => {
            print!("{}", graph.sdl(index, federation)?);
            Ok(())
        }
        Resolved::WalkQuery => {
            print!("{}", crate::wide::spec::walk_query());
            Ok(())
        }
        Resolved::Expected(graph, query, variables) => {
            expected(graph, &query, variables.as_deref())
        }
        Resolved::Mock(plan) => mock(plan),
    }
}

/// The runtime of `--threads` (default: the CPUs this process may use).
fn runtime(threads: Option<usize>) -> anyhow::Result<tokio::runtime::Runtime> {
    let threads = match threads {
        Some(0) => anyhow::bail!("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    // One thread needs no work stealing: the current-thread scheduler is cheaper.
    if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
    }
    .context("cannot start the async runtime")
}

fn serve(args: ServeArgs, ports: Ports, delays: Vec<DelaySpec>) -> anyhow::Result<()> {
    let runtime = runtime(args.threads)?;
    let config = ServeConfig {
        graph: args.graph,
        ports: ports.0,
        federation: args.federation,
        delays,
        seed: args.seed,
        response_cache: !args.no_response_cache,
    };
    serve_until_signal(runtime, server::start(&config))
}

/// Runs `start` (binding and spawning the listeners) on `runtime`, says `ready` with the
/// ports bound, and serves until SIGTERM or SIGINT.
fn serve_until_signal(
    runtime: tokio::runtime::Runtime,
    start: impl std::future::Future<Output = anyhow::Result<server::Running>>,
) -> anyhow::Result<()> {
    let result = runtime.block_on(async {
        let running = start.await?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", ready_line(&running.names, &running.addrs))?;
        stdout.flush()?;
        drop(stdout);
        shutdown_signal().await
    });
    // Connections still open are dropped, not drained: the runner stops us between trials.
    runtime.shutdown_background();
    result
}

/// `ready products=4001,reviews=4002`: the ports bound, in `--ports`' own form, so a
/// caller that asked for port 0 (any free one) learns which it got.
fn ready_line(names: &[String], addrs: &[std::net::SocketAddr]) -> String {
    let ports: Vec<String> = names
        .iter()
        .zip(addrs)
        .map(|(n, a)| format!("{n}={}", a.port()))
        .collect();
    format!("ready {}", ports.join(","))
}

fn mock(plan: MockPlan) -> anyhow::Result<()> {
    let runtime = runtime(plan.threads)?;
    for s in &plan.subgraphs {
        for w in &s.warnings {
            eprintln!("{}: warning: {w}", s.name);
        }
    }
    serve_until_signal(
        runtime,
        crate::mock::serve::start(
            plan.subgraphs,
            &plan.ports,
            plan.delays,
            plan.delay_seed,
            plan.response_cache,
        ),
    )
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

fn expected(graph: Graph, query: &std::path::Path, variables: Option<&str>) -> anyhow::Result<()> {
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
    let data = runtime.block_on(graph.expected(&text, variables))?;
    // Serialized from async-graphql's ordered map, so fields keep the query's order.
    #[derive(serde::Serialize)]
    struct Answer {
        data: async_graphql::Value,
    }
    println!("{}", serde_json::to_string_pretty(&Answer { data })?);
    Ok(())
}
