//! Never blame a gateway for the mock (issue 37): nullable values, page arguments and
//! `@override`, end to end through two gateways. Nullable fields are null for one value in
//! ten (alike in every subgraph, so a gateway carrying a null and not fetching below it
//! answers as computed), `first: N` returns N items (a connection's `edges` too), and a field
//! moved by `@override` has one value whichever subgraph a planner asks.
use crate::common;

use common::*;
use gqlbench_subgraphs::mock::answer::Graph;
use gqlbench_subgraphs::mock::MockConfig;
use serde_json::{Map, Value};

const LINK: &str = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable", "@override"])"#;

const SUBGRAPHS: &[(&str, &str)] = &[
    (
        "a",
        r#"type Query { items(first: Int = 3): [Item] feed(first: Int): ItemConnection }
type Item @key(fields: "id") { id: ID! note: String child: Child price: Int }
type Child { x: Int }
type ItemConnection { edges: [ItemEdge] total: Int }
type ItemEdge { cursor: String node: Item }"#,
    ),
    (
        "b",
        r#"type Item @key(fields: "id") { id: ID! score: Int price: Int @override(from: "a") }"#,
    ),
];

const OPS: &[(&str, &str)] = &[
    (
        "items",
        "{ items(first: 30) { id note child { x } score price } }",
    ),
    (
        "feed",
        "{ feed(first: 12) { total edges { cursor node { id note score } } } }",
    ),
];

#[test]
fn gateways_carry_nulls_pages_and_overridden_fields_as_computed() {
    let tmp = tempfile::tempdir().unwrap();
    init_own_graph(tmp.path(), LINK, SUBGRAPHS, OPS);
    let g = tmp.path().join("g");
    // What the gateways are checked against holds nulls, both subgraphs' and below an
    // entity fetched by key, and the lengths asked.
    let graph = Graph::load_dir(&g.join("subgraphs"), &MockConfig::default()).unwrap();
    let items = graph.expected(OPS[0].1, None, &Map::new()).unwrap();
    let items = items["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 30);
    let nulls = |field: &str| items.iter().filter(|i| i[field].is_null()).count();
    for field in ["note", "child", "score", "price"] {
        assert!((1..30).contains(&nulls(field)), "{field}: {items:?}");
    }
    let feed = graph.expected(OPS[1].1, None, &Map::new()).unwrap();
    assert_eq!(feed["feed"]["edges"].as_array().map(Vec::len), Some(12));
    assert!(feed["feed"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e.is_null() || e["node"].is_null() || e["node"]["score"] == Value::Null));
    let out = tempfile::tempdir().unwrap();
    let r = run_graph_on_two_gateways(&g, out.path());
    assert_two_gateways_checked(&r, 2);
    assert_no_process(&format!("mock --dir {}", g.display()));
}
