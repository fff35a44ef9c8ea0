//! End-to-end: subscriptions against the real servers (graphql-ws on Apollo Server, Yoga and
//! Mercurius; SSE on Yoga): every subscription held, every tick delivered at the set rate,
//! latency and memory per 1,000 subscriptions measured.
mod common;
use common::*;

fn run_subs(scenario: &str, connections: &str) -> serde_json::Value {
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .arg("--root")
        .arg(repo())
        .args(["run", "servers", "--scenarios", scenario, "--trials", "1"])
        .args(["--warmup", "0s", "--duration", "2s", "-c", connections])
        .args(["--json", "--out"])
        .arg(out_dir.path()));
    assert!(out.status.success());
    json(&out)
}

fn assert_delivered(t: &serde_json::Value, connections: u64) {
    let name = t["name"].as_str().unwrap();
    assert_eq!(t["status"], "ok", "{name}: {}", t["problem"]);
    let trial = &t["trials"][0];
    assert_eq!(trial["valid"], true, "{name}: {}", trial["problems"]);
    let e = &trial["subscriptions"]["engine"];
    assert_eq!(e["connections"]["held_at_end"], connections, "{name}");
    assert_eq!(e["connections"]["dropped"], 0, "{name}");
    // 10 ticks a second to every subscriber, over a 2 s window.
    let per_conn = e["per_connection"]["mean_per_s"].as_f64().unwrap();
    assert!((8.0..=12.0).contains(&per_conn), "{name}: {per_conn} msg/s");
    assert!(e["latency"]["p99_us"].as_u64().unwrap() > 0, "{name}");
    let s = &t["summary"]["subscriptions"];
    assert!(
        s["memory_per_1000_bytes"]["median"].as_f64().is_some(),
        "{name}"
    );
}

#[test]
fn graphql_ws_subscriptions_are_held_and_delivered_on_every_server() {
    let r = run_subs("subscriptions-ws", "200");
    let targets = r["scenarios"][0]["targets"].as_array().unwrap();
    let names: Vec<&str> = targets
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["apollo-server", "graphql-yoga", "mercurius"]);
    for t in targets {
        assert_delivered(t, 200);
    }
}

#[test]
fn sse_subscriptions_are_delivered_by_yoga() {
    let r = run_subs("subscriptions-sse", "100");
    let t = target(&r, 0, "graphql-yoga");
    assert_delivered(t, 100);
    assert_eq!(
        t["trials"][0]["subscriptions"]["engine"]["transport"],
        "sse"
    );
}
