//! async-graphql on axum 0.8: gqlbench's Rust server of the servers suite, serving the
//! social and authors workloads (schema.rs's code-first types over data.rs's data) at
//! POST /graphql on HOST:PORT (127.0.0.1:4000 by default).
//!
//! async-graphql as its guides wire it to axum: a `Schema` built once, an axum handler
//! taking async-graphql-axum's `GraphQLRequest` extractor and answering a
//! `GraphQLResponse`; every request parsed, validated (depth limit 10 via `limit_depth`)
//! and executed. Operations sent as a JSON array are refused unless GQLBENCH_BATCHING is
//! set (a batching scenario), which swaps in the `GraphQLBatchRequest` extractor.
//! With GQLBENCH_APQ=1 (the APQ scenarios) async-graphql's ApolloPersistedQueries extension
//! is added and GET /graphql answered too (the hashed query sent as a GET). With
//! GQLBENCH_RESOLVERS=naive|dataloader the social fields are read from PostgreSQL
//! (db.rs), and in dataloader mode every request gets its own async-graphql DataLoader in
//! its request data. Subscriptions (`ticks`) over graphql-ws on the same path: a GET
//! upgraded to a WebSocket by async-graphql-axum's `GraphQLSubscription`, the ticks
//! published only when GQLBENCH_PUBLISH_RATE is set. `--sdl` prints the schema and exits
//! (to compare with the suite's SDL).

mod data;
mod db;
mod schema;

use std::env;
use std::net::IpAddr;
use std::process::ExitCode;
use std::time::Duration;

use async_graphql::dataloader::DataLoader;
use async_graphql::extensions::apollo_persisted_queries::{
    ApolloPersistedQueries, LruCacheStorage,
};
use async_graphql_axum::{
    GraphQLBatchRequest, GraphQLRequest, GraphQLResponse, GraphQLSubscription,
};
use axum::Router;
use axum::extract::State;
use axum::routing::post;
use axum::serve::ListenerExt;
use tokio::net::TcpListener;

use db::{Db, Mode, PgLoader};
use schema::AppSchema;

/// The servers' common limit (targets/_node/index.mjs DEPTH_LIMIT). async-graphql counts
/// the top-level field as depth 1, one more than graphql-depth-limit, so it refuses the
/// suite's depth-10 query too; left at 10 as the Yoga and Mercurius targets leave theirs.
const DEPTH_LIMIT: usize = 10;

/// Documents the APQ cache holds (least recently used evicted): far more than the one
/// document the APQ scenarios send, so every miss is a first sight.
const APQ_CACHE_SIZE: usize = 1024;

/// What every request needs: the schema, and in dataloader mode the pool its DataLoader
/// reads through.
#[derive(Clone)]
struct App {
    schema: AppSchema,
    loader_db: Option<Db>,
}

async fn graphql(State(app): State<App>, req: GraphQLRequest) -> GraphQLResponse {
    let mut req = req.into_inner();
    if let Some(database) = &app.loader_db {
        // Per request, never shared: batches only this request's keys, caches nothing
        // beyond it (DataLoader::new has no cache), as the Node targets' loaders.
        req = req.data(DataLoader::new(PgLoader(database.clone()), tokio::spawn));
    }
    app.schema.execute(req).await.into()
}

async fn graphql_batch(State(app): State<App>, req: GraphQLBatchRequest) -> GraphQLResponse {
    app.schema.execute_batch(req.into_inner()).await.into()
}

/// PORT as the Node targets read it: unset or empty is 4000, anything but a port is None.
fn port() -> Option<u16> {
    match env::var("PORT") {
        Err(_) => Some(4000),
        Ok(v) if v.is_empty() => Some(4000),
        Ok(v) => v.parse().ok(),
    }
}

/// GQLBENCH_PUBLISH_RATE (ticks per second) or None when unset; a bad value ends the
/// process at start-up, since a run at a silently different rate would measure something
/// else.
fn publish_rate() -> Result<Option<f64>, String> {
    match env::var("GQLBENCH_PUBLISH_RATE")
        .unwrap_or_default()
        .as_str()
    {
        "" => Ok(None),
        v => match v.parse::<f64>() {
            Ok(r) if r.is_finite() && r > 0.0 => Ok(Some(r)),
            _ => Err(format!(
                "invalid GQLBENCH_PUBLISH_RATE {v:?}: expected ticks per second above 0"
            )),
        },
    }
}

/// Resolves on SIGTERM (how gqlbench stops a target) or SIGINT.
async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    // Graceful shutdown lets in-flight requests finish; a client holding a connection busy
    // must not keep the process alive, so exit anyway after the Node targets' grace period.
    tokio::spawn(async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        std::process::exit(0);
    });
}

#[tokio::main]
async fn main() -> ExitCode {
    // Automatic persisted queries are opt-in for the suite's servers (GQLBENCH_APQ=1), as
    // async-graphql ships them: an extension an application adds.
    let apq = env::var("GQLBENCH_APQ").is_ok_and(|v| v == "1");
    let mut builder = schema::builder().limit_depth(DEPTH_LIMIT);
    if apq {
        builder = builder.extension(ApolloPersistedQueries::new(LruCacheStorage::new(
            APQ_CACHE_SIZE,
        )));
    }
    let schema = builder.finish();
    if env::args().nth(1).as_deref() == Some("--sdl") {
        print!("{}", schema.sdl());
        return ExitCode::SUCCESS;
    }
    let Some(port) = port() else {
        eprintln!("async-graphql: invalid PORT {:?}", env::var("PORT"));
        return ExitCode::from(2);
    };
    let host = env::var("HOST").unwrap_or_else(|_| "127.0.0.1".into());
    let Ok(host) = host.parse::<IpAddr>() else {
        eprintln!("async-graphql: invalid HOST {host:?}");
        return ExitCode::from(2);
    };
    // Batching is opt-in for the suite's servers: only a scenario's GQLBENCH_BATCHING turns
    // it on (its value, a batch size, is not a limit here: async-graphql has none).
    let batching = env::var("GQLBENCH_BATCHING").is_ok_and(|v| !v.is_empty());

    let database = match db::from_env() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("async-graphql: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(d) = &database {
        println!(
            "async-graphql: {:?} resolvers on PostgreSQL (pool max {})",
            d.mode,
            d.pool_size()
        );
    }
    let loader_db = database.clone().filter(|d| d.mode == Mode::Dataloader);
    schema::init(database);
    // The batching scenario never runs in database mode: the batch handler adds no loader.
    let mut route = if batching && loader_db.is_none() {
        post(graphql_batch)
    } else {
        post(graphql)
    };
    if apq {
        // GraphQLRequest reads a GET's query string (query, variables, extensions).
        route = route.get(graphql);
    } else {
        // Subscriptions: a WebSocket upgrade (a GET) on the same path, graphql-transport-ws
        // or the older graphql-ws subprotocol, as async-graphql-axum serves them.
        route = route.get_service(GraphQLSubscription::new(schema.clone()));
    }
    match publish_rate() {
        Ok(None) => {}
        Ok(Some(rate)) => {
            tokio::spawn(schema::run_ticker(rate));
        }
        Err(e) => {
            eprintln!("async-graphql: {e}");
            return ExitCode::from(2);
        }
    }
    let app = Router::new()
        .route("/graphql", route)
        .with_state(App { schema, loader_db });

    let listener = match TcpListener::bind((host, port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("async-graphql: cannot listen on {host}:{port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let addr = listener
        .local_addr()
        .map_or_else(|_| format!("{host}:{port}"), |a| a.to_string());
    // Small JSON answers: do not let Nagle hold them back (Node sets TCP_NODELAY too).
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    println!(
        "ready: async-graphql listening on http://{addr}/graphql (pid {}, batching {}, apq {})",
        std::process::id(),
        if batching { "on" } else { "off" },
        if apq { "on" } else { "off" }
    );
    if let Err(e) = axum::serve(listener, app)
        .with_graceful_shutdown(shutdown_signal())
        .await
    {
        eprintln!("async-graphql: server error: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
