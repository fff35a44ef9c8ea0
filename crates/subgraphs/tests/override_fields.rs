//! A field moved by `@override` (issue 37): the subgraph it moved from and the one it moved
//! to serve the same value for the same entity (progressive `label` included), so the
//! answer does not depend on which one a planner asks, and the computed answer is that
//! value.

use crate::common;

use common::mocks::{entities, folder, run};
use gqlbench_subgraphs::mock::answer::Graph;
use gqlbench_subgraphs::mock::{MockConfig, MockSubgraph};
use serde_json::{json, Map};

const FROM: &str = r#"type Query { items: [Item!]! }
type Item @key(fields: "id") { id: ID! price: Int! rank: Int! }"#;
const TO: &str = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@override"])
type Item @key(fields: "id") { id: ID! price: Int! @override(from: "from") rank: Int! @override(from: "from", label: "percent(50)") }"#;

#[tokio::test]
async fn an_overridden_field_has_one_value_in_both_subgraphs() {
    let dir = folder("override", &[("from", FROM), ("to", TO)]);
    let config = MockConfig::default();
    let subs = MockSubgraph::load_dir(&dir, &config).unwrap();
    let (from, to) = (&subs[0], &subs[1]);
    let items = run(from, "{ items { id price rank } }", json!(null)).await;
    let items = items["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), config.default_list);
    let reps = items
        .iter()
        .map(|i| json!({"__typename": "Item", "id": i["id"]}))
        .collect();
    let moved = entities(to, "Item", "id price rank", reps).await;
    assert_eq!(moved, items, "the same values in both subgraphs");
    // Different entities differ: a value fixed per field would pass the check above.
    assert_ne!(items[0]["price"], items[1]["price"], "{items:?}");

    let graph = Graph::load_dir(&dir, &config).unwrap();
    let computed = graph
        .expected("{ items { id price rank } }", None, &Map::new())
        .unwrap();
    assert_eq!(computed["items"], json!(items));
    let _ = std::fs::remove_dir_all(&dir);
}
