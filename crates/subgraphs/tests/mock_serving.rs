//! Serving a folder's mock subgraphs as `serve` serves the built-in ones: requests counted
//! per subgraph (`GET /counters`), watched headers tallied (`GET /headers`), delays per
//! subgraph or for all (`*`), a CPU cost per field, and bad names refused by the command.

use crate::common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use gqlbench_subgraphs::mock::{serve, MockConfig, MockSubgraph};
use gqlbench_subgraphs::server::Running;
use serde_json::json;

const PRODUCTS: &str = r#"
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { topProducts: [Product] }
type Product @key(fields: "upc") { upc: String! name: String price: Int }
"#;

const REVIEWS: &str = r#"
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { reviews: [Review] }
type Review { id: ID! body: String }
"#;

const ENTITY: &str =
    "query($r: [_Any!]!) { _entities(representations: $r) { ... on Product { upc name price } } }";

/// products and reviews on free ports, with `--delay` items and `config`'s lengths and costs.
async fn start(delays: &[&str], config: &MockConfig) -> Running {
    let subgraphs = vec![
        MockSubgraph::new("products", "products.graphql", PRODUCTS, config).unwrap(),
        MockSubgraph::new("reviews", "reviews.graphql", REVIEWS, config).unwrap(),
    ];
    let items: Vec<String> = delays.iter().map(|d| d.to_string()).collect();
    let delays = serve::parse_delays(&items, &["products", "reviews"]).unwrap();
    serve::start(subgraphs, &[0, 0], delays, 1, false)
        .await
        .unwrap()
}

async fn entity(addr: SocketAddr) -> common::Reply {
    let rep = json!({ "r": [{ "__typename": "Product", "upc": "Product-1" }] });
    let reply = common::graphql(addr, ENTITY, rep).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["data"]["_entities"][0]["upc"], "Product-1");
    reply
}

#[tokio::test]
async fn mock_counters_count_graphql_requests_per_subgraph() {
    let running = start(&[], &MockConfig::default()).await;
    for _ in 0..5 {
        entity(running.addrs[0]).await;
    }
    let reviews = common::graphql(running.addrs[1], "{ reviews { id } }", json!(null)).await;
    assert_eq!(reviews.status, 200);
    common::request(running.addrs[0], "GET", "/health", "").await;
    // Every port answers for every subgraph of the process, in the folder's order.
    for addr in &running.addrs {
        let reply = common::request(*addr, "GET", "/counters", "").await;
        assert_eq!(reply.status, 200);
        assert_eq!(reply.json(), json!({"products": 5, "reviews": 1}));
        assert!(
            reply.body.find("products") < reply.body.find("reviews"),
            "{}",
            reply.body
        );
    }
}

#[tokio::test]
async fn with_the_response_cache_a_repeated_body_gets_the_same_bytes_and_is_still_counted() {
    let config = MockConfig::default();
    let subgraphs = vec![
        MockSubgraph::new("products", "products.graphql", PRODUCTS, &config).unwrap(),
        MockSubgraph::new("reviews", "reviews.graphql", REVIEWS, &config).unwrap(),
    ];
    let running = serve::start(subgraphs, &[0, 0], Vec::new(), 1, true)
        .await
        .unwrap();
    let first = entity(running.addrs[0]).await;
    let again = entity(running.addrs[0]).await;
    let other = json!({ "r": [{ "__typename": "Product", "upc": "Product-2" }] });
    let second = common::graphql(running.addrs[0], ENTITY, other).await;
    assert_eq!(first.body, again.body);
    assert_eq!(second.json()["data"]["_entities"][0]["upc"], "Product-2");
    assert_ne!(first.body, second.body);
    // A query with an error is not kept: it is executed (and answered alike) each time.
    for _ in 0..2 {
        let bad = common::graphql(running.addrs[1], "{ reviews { nope } }", json!(null)).await;
        assert!(
            bad.json()["errors"][0]["message"].is_string(),
            "{}",
            bad.body
        );
    }
    let reply = common::request(running.addrs[0], "GET", "/counters", "").await;
    assert_eq!(reply.json(), json!({"products": 3, "reviews": 2}));
}

#[tokio::test]
async fn mock_headers_tally_the_watched_request_headers() {
    let running = start(&[], &MockConfig::default()).await;
    let body = json!({ "query": "{ reviews { id } }" }).to_string();
    for source in ["config", "config", "rhai"] {
        let headers = [("source", source), ("x-not-watched", "1")];
        let reply = common::request_with(running.addrs[1], "POST", "/graphql", &body, &headers);
        assert_eq!(reply.await.status, 200);
    }
    common::graphql(running.addrs[0], "{ topProducts { upc } }", json!(null)).await;
    let reply = common::request(running.addrs[0], "GET", "/headers", "").await;
    assert_eq!(
        reply.json(),
        json!({"requests": 4, "headers": {"source": {"config": 2, "rhai": 1}}})
    );
}

#[tokio::test]
async fn a_delayed_mock_subgraph_answers_no_sooner_than_its_lower_bound() {
    let running = start(&["products=40..60ms"], &MockConfig::default()).await;
    for _ in 0..3 {
        let reply = entity(running.addrs[0]).await;
        assert!(
            reply.elapsed >= Duration::from_millis(40),
            "{:?}",
            reply.elapsed
        );
    }
}

#[tokio::test]
async fn a_star_delay_applies_to_all_and_an_explicit_name_wins() {
    // The explicit one first and last: its place in the command line does not matter.
    for delays in [
        ["reviews=80..90ms", "*=30..40ms"],
        ["*=30..40ms", "reviews=80..90ms"],
    ] {
        let parsed = serve::parse_delays(
            &delays.map(String::from),
            &["products", "reviews", "inventory"],
        )
        .unwrap();
        let got: Vec<(&str, usize, u128)> = parsed
            .iter()
            .map(|d| (d.subgraph.as_str(), d.index, d.min.as_millis()))
            .collect();
        assert_eq!(
            got,
            [
                ("products", 0, 30),
                ("reviews", 1, 80),
                ("inventory", 2, 30)
            ]
        );
        let running = start(&delays, &MockConfig::default()).await;
        let products = entity(running.addrs[0]).await;
        assert!(
            products.elapsed >= Duration::from_millis(30),
            "{products:?}"
        );
        let reviews = common::graphql(running.addrs[1], "{ reviews { id } }", json!(null)).await;
        assert!(reviews.elapsed >= Duration::from_millis(80), "{reviews:?}");
    }
    let twice = ["*=1ms", "*=2ms"].map(String::from);
    let err = serve::parse_delays(&twice, &["products"]).unwrap_err();
    assert!(err.to_string().contains("twice for *"), "{err}");
}

#[tokio::test]
async fn a_field_cost_is_paid_each_time_the_field_is_resolved() {
    let mut config = MockConfig::default();
    config
        .costs
        .insert("Product.price".into(), Duration::from_millis(15));
    let running = start(&[], &config).await;
    // Three products, so three prices: at least 45 ms of work.
    let q = "{ topProducts { upc price } }";
    let reply = common::graphql(running.addrs[0], q, json!(null)).await;
    assert!(reply.json()["data"]["topProducts"][2]["price"].is_i64());
    assert!(
        reply.elapsed >= Duration::from_millis(45),
        "{:?}",
        reply.elapsed
    );
    // And every time: no response cache.
    let again = common::graphql(running.addrs[0], q, json!(null)).await;
    assert!(again.elapsed >= Duration::from_millis(45), "{again:?}");
}

fn shop() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/graphs/shop")
}

/// The `mock` command on the shop folder with `extra` arguments: it must fail; its stderr.
fn refused(extra: &[&str]) -> String {
    refused_with_ports("products=1,reviews=2", extra)
}

/// As `refused`, with `--ports PORTS`.
fn refused_with_ports(ports: &str, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_gqlbench-subgraphs"))
        .arg("mock")
        .arg("--dir")
        .arg(shop())
        .args(["--ports", ports])
        .args(extra)
        .output()
        .unwrap();
    // Bad input, as `serve`'s and gqlbench's: exit 2, before anything listens.
    assert_eq!(out.status.code(), Some(2), "{extra:?}");
    assert!(out.stdout.is_empty(), "{extra:?}: never ready");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    // As gqlbench's own errors read (this runs as `gqlbench subgraphs mock` too).
    assert!(err.starts_with("error: "), "{err}");
    err
}

#[test]
fn bad_delay_and_cost_names_are_refused_naming_them() {
    let err = refused(&["--delay", "revews=5ms"]);
    assert!(
        err.contains("revews") && err.contains("valid: products, reviews, or * for all"),
        "{err}"
    );
    let err = refused(&["--delay", "reviews=5"]);
    assert!(err.contains("no unit"), "{err}");
    let err = refused(&["--delay", "reviews=5ms", "--delay", "reviews=6ms"]);
    assert!(err.contains("twice for reviews"), "{err}");
    let err = refused(&["--cost", "Product.prize=50us"]);
    assert!(
        err.contains("Product.prize") && err.contains("names no field"),
        "{err}"
    );
    let err = refused(&["--cost", "Product.price=50"]);
    assert!(err.contains("not a duration"), "{err}");
    let err = refused(&["--threads", "0"]);
    assert!(err.contains("--threads must be at least 1"), "{err}");
    let err = refused_with_ports("products=abc,reviews=2", &[]);
    assert!(
        err.contains("--ports") && err.contains("'abc' is not a port"),
        "{err}"
    );
    let err = refused(&["--list", "Query.topProducts=many"]);
    assert!(err.contains("--list") && err.contains("'many'"), "{err}");
}
