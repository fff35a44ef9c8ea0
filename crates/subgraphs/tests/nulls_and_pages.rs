//! Nullable values and page arguments in the mocks: a nullable field is null for one value
//! in `null_every` by its seed, alike in every subgraph and in the computed answer, never
//! where some subgraph declares it non-null, never at the root; a list's length follows a
//! page argument (`first: 5` returns 5, a connection's `edges` too) unless `[lists]` sets it.

use std::path::PathBuf;

use crate::common;

use common::mocks::run;
use gqlbench_subgraphs::mock::answer::Graph;
use gqlbench_subgraphs::mock::{MockConfig, MockSubgraph};
use serde_json::{json, Map, Value};

const LINK: &str = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])"#;

/// `label` is nullable in a and non-null in b, so it is never null; `note`, `child` and
/// `score` may be.
const A: &str = r#"type Query { items(first: Int = 40): [Item] feed(first: Int): ItemConnection }
type Item @key(fields: "id") { id: ID! note: String label: String @shareable child: Child }
type Child { x: Int }
type ItemConnection { edges: [ItemEdge] nodes: [Item] total: Int }
type ItemEdge { cursor: String node: Item }"#;
const B: &str = r#"type Item @key(fields: "id") { id: ID! label: String! @shareable score: Int tags(limit: Int): [String!]! }"#;

fn folder(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gqlbench-nulls-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, sdl) in [("a", A), ("b", B)] {
        std::fs::write(
            dir.join(format!("{name}.graphql")),
            format!("{LINK}\n{sdl}"),
        )
        .unwrap();
    }
    dir
}

fn expected(g: &Graph, query: &str) -> Value {
    g.expected(query, None, &Map::new()).unwrap()
}

fn count(items: &[Value], f: impl Fn(&Value) -> bool) -> usize {
    items.iter().filter(|v| f(v)).count()
}

#[tokio::test]
async fn nullable_values_are_null_by_seed_alike_everywhere_and_never_where_they_cannot_be() {
    let dir = folder("nulls");
    let config = MockConfig::default();
    let graph = Graph::load_dir(&dir, &config).unwrap();
    let subs = MockSubgraph::load_dir(&dir, &config).unwrap();
    let q = "{ items { id note label score child { x } } }";
    let computed = expected(&graph, q);
    let items = computed["items"].as_array().unwrap();
    assert_eq!(items.len(), 40, "the page argument's default");
    // One in ten, by seed: of 40, some null and most not (fixed by the seeds, not drawn).
    for field in ["note", "score", "child"] {
        let nulls = count(items, |i| i[field].is_null());
        assert!((1..=12).contains(&nulls), "{field}: {nulls} of 40 null");
    }
    assert_eq!(count(items, |i| i["label"].is_null()), 0, "non-null in b");
    assert_eq!(count(items, |i| i["id"].is_null()), 0, "a key");
    // Served alike: a's own fields, and b's by `_entities` for the same items.
    let served = run(
        &subs[0],
        "{ items { id note label child { x } } }",
        json!({}),
    )
    .await;
    for (c, s) in items.iter().zip(served["items"].as_array().unwrap()) {
        for field in ["id", "note", "label", "child"] {
            assert_eq!(c[field], s[field], "{field} of {c}");
        }
    }
    let reps: Vec<Value> = items
        .iter()
        .map(|i| json!({"__typename": "Item", "id": i["id"]}))
        .collect();
    let q_b =
        "query($r: [_Any!]!) { _entities(representations: $r) { ... on Item { label score } } }";
    let from_b = run(&subs[1], q_b, json!({ "r": reps })).await;
    for (c, b) in items.iter().zip(from_b["_entities"].as_array().unwrap()) {
        assert_eq!(c["label"], b["label"]);
        assert_eq!(c["score"], b["score"]);
    }
    // Never: with nulls off, and the root field.
    let off = MockConfig {
        null_every: 0,
        ..MockConfig::default()
    };
    let none = expected(&Graph::load_dir(&dir, &off).unwrap(), q);
    let none = none["items"].as_array().unwrap();
    assert_eq!(
        count(none, |i| i["note"].is_null() || i["child"].is_null()),
        0
    );
    assert!(
        expected(&graph, "{ feed { total } }")["feed"].is_object(),
        "the root"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn page_arguments_set_list_lengths_unless_the_lists_do() {
    let dir = folder("pages");
    let off = MockConfig {
        null_every: 0,
        ..MockConfig::default()
    };
    let graph = Graph::load_dir(&dir, &off).unwrap();
    let subs = MockSubgraph::load_dir(&dir, &off).unwrap();
    let len = |v: &Value| v.as_array().map_or(0, Vec::len);
    for (q, path, want) in [
        ("{ items(first: 5) { id } }", "/items", 5),
        ("{ items(first: 0) { id } }", "/items", 0),
        ("{ items(first: -3) { id } }", "/items", 0),
        ("{ items { id } }", "/items", 40),
        // A connection: its edges and nodes hold the page; a list below them does not.
        (
            "{ feed(first: 7) { edges { node { id } } } }",
            "/feed/edges",
            7,
        ),
        ("{ feed(first: 2) { nodes { id } } }", "/feed/nodes", 2),
        ("{ feed { edges { cursor } } }", "/feed/edges", 3),
    ] {
        let computed = expected(&graph, q);
        assert_eq!(
            len(computed.pointer(path).unwrap()),
            want,
            "{q}: {computed}"
        );
        assert_eq!(run(&subs[0], q, json!({})).await, computed, "{q}: served");
    }
    // An argument of b's field, reached by `_entities`.
    let q =
        "query($r: [_Any!]!) { _entities(representations: $r) { ... on Item { tags(limit: 6) } } }";
    let got = run(
        &subs[1],
        q,
        json!({"r": [{"__typename": "Item", "id": "Item-1"}]}),
    )
    .await;
    assert_eq!(len(&got["_entities"][0]["tags"]), 6, "{got}");
    // `[lists]` is the user's word over the argument.
    let mut config = off.clone();
    config.lists.insert("Query.items".into(), 2);
    let short = Graph::load_dir(&dir, &config).unwrap();
    assert_eq!(
        len(&expected(&short, "{ items(first: 9) { id } }")["items"]),
        2
    );
    let _ = std::fs::remove_dir_all(&dir);
}
