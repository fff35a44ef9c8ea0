//! End-to-end: subscriptions against the real servers (graphql-ws on Apollo Server, Yoga and
//! Mercurius; SSE on Yoga): every subscription held, every tick delivered at the set rate,
//! latency and memory per 1,000 subscriptions measured.
use crate::common;
use common::*;
use gqlbench::results::{RunResults, TargetResult, TargetStatus};

fn run_subs(scenario: &str, connections: u64) -> RunResults {
    let out_dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("servers")
        .root(repo())
        .scenarios(scenario)
        .trials(1)
        .warmup("0s")
        .duration("2s")
        .connections(connections)
        .json()
        .out(out_dir.path())
        .go();
    assert!(out.success());
    out.results()
}

fn assert_delivered(t: &TargetResult, connections: u64) {
    let name = &t.name;
    assert_eq!(t.status, TargetStatus::Ok, "{name}: {:?}", t.problem);
    let trial = &t.trials[0];
    assert!(trial.valid, "{name}: {:?}", trial.problems);
    let e = &trial.subscriptions.as_ref().expect("subscriptions").engine;
    assert_eq!(e.connections.held_at_end, connections, "{name}");
    assert_eq!(e.connections.dropped, 0, "{name}");
    // 10 ticks a second to every subscriber, over a 2 s window.
    let per_conn = e.per_connection.mean_per_s;
    assert!((8.0..=12.0).contains(&per_conn), "{name}: {per_conn} msg/s");
    assert!(e.latency.p99_us > 0, "{name}");
    let s = t.summary.as_ref().unwrap().subscriptions.as_ref().unwrap();
    assert!(s.memory_per_1000_bytes.is_some(), "{name}");
}

#[test]
fn graphql_ws_subscriptions_are_held_and_delivered_on_every_server() {
    let r = run_subs("subscriptions-ws", 200);
    let targets = &r.scenarios[0].targets;
    let names: Vec<&str> = targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["apollo-server", "graphql-yoga", "mercurius"]);
    for t in targets {
        assert_delivered(t, 200);
    }
}

#[test]
fn sse_subscriptions_are_delivered_by_yoga() {
    let r = run_subs("subscriptions-sse", 100);
    let t = target(&r, 0, "graphql-yoga");
    assert_delivered(t, 100);
    let s = t.trials[0].subscriptions.as_ref().unwrap();
    assert_eq!(s.engine.transport, "sse");
}
