//! Expected answers computed from the mocks (`mock::answer::Graph`) checked against the
//! real mock executors: a query on one subgraph against that subgraph's own answer, a
//! query across subgraphs against the same hops done by hand (root query on one subgraph,
//! `_entities` on the other with the key values of the first answer), and the errors.

use crate::common;

use std::path::PathBuf;

use common::mocks::run;

use gqlbench_subgraphs::mock::answer::Graph;
use gqlbench_subgraphs::mock::{MockConfig, MockSubgraph};
use serde_json::{json, Map, Value};

fn shop_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/graphs/shop")
}

fn shop() -> Graph {
    Graph::load_dir(&shop_dir(), &MockConfig::default()).unwrap()
}

fn shop_subgraph(name: &str) -> MockSubgraph {
    let file = shop_dir().join(format!("{name}.graphql"));
    let sdl = std::fs::read_to_string(&file).unwrap();
    MockSubgraph::new(
        name,
        &file.display().to_string(),
        &sdl,
        &MockConfig::default(),
    )
    .unwrap()
}

fn graph(subgraphs: &[(&str, &str)], config: &MockConfig) -> Graph {
    let list = subgraphs
        .iter()
        .map(|(n, sdl)| (n.to_string(), format!("{n}.graphql"), sdl.to_string()))
        .collect();
    Graph::new(list, config).unwrap()
}

fn vars(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn expected(g: &Graph, query: &str, variables: Value) -> Value {
    g.expected(query, None, &vars(variables))
        .unwrap_or_else(|e| panic!("{query}: {e}"))
}

/// `_entities` on `s` for `reps`, selecting `selection` on `type_name`.
async fn entities(
    s: &MockSubgraph,
    type_name: &str,
    reps: Vec<Value>,
    selection: &str,
) -> Vec<Value> {
    let q = format!(
        "query($r: [_Any!]!) {{ _entities(representations: $r) {{ ... on {type_name} {selection} }} }}"
    );
    let got = run(s, &q, json!({ "r": reps })).await;
    got["_entities"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_query_on_one_subgraph_is_that_subgraphs_own_answer() {
    let g = shop();
    let products = shop_subgraph("products");
    let cases = [
        ("{ topProducts { upc name price } }", json!({})),
        ("{ topProducts(first: 2) { upc name } }", json!({})),
        ("query($n: Int = 2) { topProducts(first: $n) { upc } }", json!({})),
        ("query($n: Int = 2) { topProducts(first: $n) { upc } }", json!({ "n": 7 })),
        // Unset and nullable: the subgraph sees `first: null`, not the SDL default.
        ("query($n: Int) { topProducts(first: $n) { upc } }", json!({})),
        (
            "{ a: topProducts { upc } b: topProducts(first: 1) { p: price } a: topProducts { name } }",
            json!({}),
        ),
        (
            "fragment P on Product { name } { __typename topProducts { ...P upc ... on Product { price __typename } } }",
            json!({}),
        ),
        (
            "query($s: Boolean!) { topProducts { upc name @skip(if: $s) ... @include(if: $s) { price } } }",
            json!({ "s": true }),
        ),
        (
            "query($s: Boolean!) { topProducts { upc name @skip(if: $s) ... @include(if: $s) { price } } }",
            json!({ "s": false }),
        ),
    ];
    let mut answers = Vec::new();
    for (q, v) in cases {
        let want = run(&products, q, v.clone()).await;
        assert_eq!(expected(&g, q, v), want, "{q}");
        answers.push(want);
    }
    // The cases differ, so an evaluator ignoring arguments, variables or @skip fails above.
    assert_ne!(
        answers[0]["topProducts"][0]["upc"],
        answers[1]["topProducts"][0]["upc"]
    );
    assert_ne!(answers[2], answers[3]);
    assert_ne!(answers[3], answers[4]);
    assert_ne!(answers[7], answers[8]);
    assert!(answers[5]["a"][0]["name"].is_string() && answers[5]["b"][0]["p"].is_i64());
    let reviews = shop_subgraph("reviews");
    let q = "{ latestReviews { id body } }";
    assert_eq!(
        expected(&g, q, json!({})),
        run(&reviews, q, json!({})).await
    );
}

#[tokio::test]
async fn hops_across_subgraphs_match_entities_by_hand() {
    let g = shop();
    let (products, reviews) = (shop_subgraph("products"), shop_subgraph("reviews"));
    let q = "{ topProducts { upc name reviews { id body product { upc name } } } }";
    let got = expected(&g, q, json!({}));
    // By hand, as a gateway: products' root field, then reviews' `_entities` by upc, then
    // products' `_entities` for the name of each review's product.
    let top = run(&products, "{ topProducts { upc name } }", json!({})).await;
    let mut want = top["topProducts"].as_array().unwrap().clone();
    let reps: Vec<Value> = want
        .iter()
        .map(|p| json!({ "__typename": "Product", "upc": p["upc"] }))
        .collect();
    let sel = "{ reviews { id body product { upc } } }";
    let fetched = entities(&reviews, "Product", reps, sel).await;
    for (p, e) in want.iter_mut().zip(fetched) {
        // A null (one nullable value in ten) has nothing below it to fetch.
        let Some(mut list) = e["reviews"].as_array().cloned() else {
            p["reviews"] = Value::Null;
            continue;
        };
        for r in list.iter_mut().filter(|r| !r["product"].is_null()) {
            let rep = json!({ "__typename": "Product", "upc": r["product"]["upc"] });
            let named = entities(&products, "Product", vec![rep], "{ name }").await;
            r["product"]["name"] = named[0]["name"].clone();
        }
        p["reviews"] = Value::Array(list);
    }
    assert_eq!(got, json!({ "topProducts": want }));
    assert_eq!(
        got["topProducts"][2]["reviews"].as_array().map(Vec::len),
        Some(3)
    );
    // The other way: a review's product, named by reviews, completed by products; its
    // reviews are reviews' own field of the entity it derived.
    let q = "{ latestReviews { id product { upc name price reviews { id } } } }";
    let got = expected(&g, q, json!({}));
    let own = run(
        &reviews,
        "{ latestReviews { id product { upc reviews { id } } } }",
        json!({}),
    )
    .await;
    for (i, r) in own["latestReviews"].as_array().unwrap().iter().enumerate() {
        let rep = json!({ "__typename": "Product", "upc": r["product"]["upc"] });
        let p = &entities(&products, "Product", vec![rep], "{ name price }").await[0];
        let mut want = r.clone();
        want["product"]["name"] = p["name"].clone();
        want["product"]["price"] = p["price"].clone();
        assert_eq!(got["latestReviews"][i], want, "review {i}");
    }
}

const FEED: &str = r#"
type Query { feed: [Item!]! search: [Result!]! }
interface Item { id: ID! }
type Post implements Item { id: ID! title: String }
type Photo implements Item { id: ID! url: String }
union Result = Post | Photo | Author
type Author @key(fields: "id") { id: ID! name: String }
"#;

const PEOPLE: &str = r#"
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Author @key(fields: "id") { id: ID! bio: String }
"#;

#[tokio::test]
async fn fragments_on_interfaces_and_unions_follow_the_chosen_type() {
    let mut config = MockConfig::default();
    config.lists.insert("Query.feed".into(), 12);
    config.lists.insert("Query.search".into(), 12);
    let g = graph(&[("feed", FEED), ("people", PEOPLE)], &config);
    let feed = MockSubgraph::new("feed", "feed.graphql", FEED, &config).unwrap();
    let people = MockSubgraph::new("people", "people.graphql", PEOPLE, &config).unwrap();
    let q = "{ feed { __typename id ... on Post { title } ...PhotoBits } \
               search { __typename ... on Item { id } ... on Author { name } } } \
             fragment PhotoBits on Photo { url }";
    let want = run(&feed, q, json!({})).await;
    assert_eq!(expected(&g, q, json!({})), want);
    let kinds = |list: &Value| {
        let mut k: Vec<String> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["__typename"].as_str().unwrap().to_string())
            .collect();
        k.sort();
        k.dedup();
        k
    };
    // Every branch is exercised: a fragment applied to the wrong type shows above.
    assert_eq!(kinds(&want["feed"]), ["Photo", "Post"]);
    assert_eq!(kinds(&want["search"]), ["Author", "Photo", "Post"]);
    // An author's bio lives in `people`: fetched there by the id `feed` derived.
    let q = "{ search { ... on Author { id name bio } } }";
    let got = expected(&g, q, json!({}));
    // `__typename` as a gateway adds it on an abstract type: async-graphql gives null for an
    // object of no selected field where GraphQL (and a gateway) gives `{}`.
    let q = "{ search { __typename ... on Author { id name } } }";
    let own = run(&feed, q, json!({})).await;
    for (i, item) in own["search"].as_array().unwrap().iter().enumerate() {
        let mut want = item.clone();
        want.as_object_mut().unwrap().remove("__typename");
        if item.get("id").is_some() {
            let rep = json!({ "__typename": "Author", "id": item["id"] });
            want["bio"] = entities(&people, "Author", vec![rep], "{ bio }").await[0]["bio"].clone();
        }
        assert_eq!(got["search"][i], want, "search {i}");
    }
}

const STOCK_PRODUCTS: &str = r#"
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { topProducts: [Product!]! }
type Product @key(fields: "upc") { upc: String! price: Int weight: Int }
"#;

const INVENTORY: &str = r#"
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@external", "@requires"])
type Query { restock: [Product!]! }
type Product @key(fields: "upc") {
  upc: String!
  price: Int @external
  weight: Int @external
  inStock: Boolean
  shippingEstimate: Int @requires(fields: "price weight")
}
"#;

#[tokio::test]
async fn requires_sends_the_owners_values() {
    let c = MockConfig::default();
    let g = graph(
        &[("inventory", INVENTORY), ("products", STOCK_PRODUCTS)],
        &c,
    );
    let products = MockSubgraph::new("products", "p.graphql", STOCK_PRODUCTS, &c).unwrap();
    let inventory = MockSubgraph::new("inventory", "i.graphql", INVENTORY, &c).unwrap();
    let q = "{ topProducts { upc shippingEstimate inStock weight } }";
    let got = expected(&g, q, json!({}));
    let top = run(&products, "{ topProducts { upc price weight } }", json!({})).await;
    let list = top["topProducts"].as_array().unwrap();
    let reps: Vec<Value> = list
        .iter()
        .map(|p| json!({ "__typename": "Product", "upc": p["upc"], "price": p["price"], "weight": p["weight"] }))
        .collect();
    let fetched = entities(&inventory, "Product", reps, "{ shippingEstimate inStock }").await;
    let want: Vec<Value> = list
        .iter()
        .zip(&fetched)
        .map(|(p, e)| json!({ "upc": p["upc"], "weight": p["weight"], "shippingEstimate": e["shippingEstimate"], "inStock": e["inStock"] }))
        .collect();
    assert_eq!(got, json!({ "topProducts": want }));
    // Without the required values the estimate differs: the check above is not vacuous.
    let bare: Vec<Value> = list
        .iter()
        .map(|p| json!({ "__typename": "Product", "upc": p["upc"] }))
        .collect();
    let unfed = entities(&inventory, "Product", bare, "{ shippingEstimate }").await;
    assert!(
        unfed
            .iter()
            .zip(&fetched)
            .any(|(a, b)| a["shippingEstimate"] != b["shippingEstimate"]),
        "{unfed:?}"
    );
    // A product inventory itself returned: the gateway still fetches price and weight from
    // products, then asks inventory again with them.
    let got = expected(&g, "{ restock { shippingEstimate } }", json!({}));
    let own = run(&inventory, "{ restock { upc } }", json!({})).await;
    for (i, p) in own["restock"].as_array().unwrap().iter().enumerate() {
        let rep = json!({ "__typename": "Product", "upc": p["upc"] });
        let mut rep =
            entities(&products, "Product", vec![rep], "{ upc price weight }").await[0].clone();
        rep["__typename"] = json!("Product");
        let e = &entities(&inventory, "Product", vec![rep], "{ shippingEstimate }").await[0];
        assert_eq!(got["restock"][i], *e, "restock {i}");
    }
}

#[test]
fn defer_and_stream_give_the_merged_answer_and_list_lengths_apply() {
    let g = shop();
    let plain = expected(&g, "{ topProducts { upc reviews { id } } }", json!({}));
    let deferred = "{ topProducts @stream(initialCount: 1) { upc ... @defer(label: \"r\") { reviews { id } } } }";
    assert_eq!(expected(&g, deferred, json!({})), plain);
    let mut config = MockConfig::default();
    config.lists.insert("Query.topProducts".into(), 2);
    config.lists.insert("Product.reviews".into(), 5);
    let short = Graph::load_dir(&shop_dir(), &config).unwrap();
    let got = expected(&short, "{ topProducts { upc reviews { id } } }", json!({}));
    let top = got["topProducts"].as_array().unwrap();
    assert_eq!(top.len(), 2);
    assert_eq!(top[0]["reviews"].as_array().map(Vec::len), Some(5));
    assert_eq!(top[0]["upc"], plain["topProducts"][0]["upc"], "{got}");
    config.lists.insert("Query.topProduct".into(), 2);
    let err = Graph::load_dir(&shop_dir(), &config)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("Query.topProduct "), "{err}");
}

#[test]
fn operations_are_chosen_by_name() {
    let g = shop();
    let doc = "query Top { topProducts { upc } } query Latest { latestReviews { id } }";
    let top = g.expected(doc, Some("Top"), &Map::new()).unwrap();
    assert!(
        top["topProducts"].is_array() && top.get("latestReviews").is_none(),
        "{top}"
    );
    let latest = g.expected(doc, Some("Latest"), &Map::new()).unwrap();
    assert!(latest["latestReviews"].is_array(), "{latest}");
    let err = g.expected(doc, Some("Nope"), &Map::new()).unwrap_err();
    assert!(err.contains("`Nope`"), "{err}");
    let err = g.expected(doc, None, &Map::new()).unwrap_err();
    assert!(err.contains("Latest, Top"), "{err}");
    let err = g
        .expected("{ topProducts { upc } }", Some("Top"), &Map::new())
        .unwrap_err();
    assert!(err.contains("`Top`"), "{err}");
}

#[tokio::test]
async fn a_mutation_starts_from_the_mutation_root() {
    let sdl = "type Query { count: Int } type Mutation { bump(by: Int = 1): Int }";
    let g = graph(&[("counter", sdl)], &MockConfig::default());
    let s = MockSubgraph::new("counter", "c.graphql", sdl, &MockConfig::default()).unwrap();
    for q in ["mutation { bump }", "mutation { bump(by: 2) }", "{ count }"] {
        assert_eq!(
            expected(&g, q, json!({})),
            run(&s, q, json!({})).await,
            "{q}"
        );
    }
}

#[test]
fn what_cannot_be_computed_is_an_error_naming_it() {
    let g = shop();
    let err = |q: &str, v: Value| g.expected(q, None, &vars(v)).unwrap_err();
    let e = err("{ topProducts { nmae } }", json!({}));
    assert!(
        e.starts_with("topProducts.0.nmae: ") && e.contains("Product.nmae"),
        "{e}"
    );
    let e = err("{ topProducts { reviews { nope } } }", json!({}));
    assert!(e.starts_with("topProducts.0.reviews.0.nope: "), "{e}");
    let e = err("{ nothing }", json!({}));
    assert!(e.contains("Query.nothing"), "{e}");
    let e = err("{ topProducts(last: 2) { upc } }", json!({}));
    assert!(e.contains("`last`"), "{e}");
    let e = err(
        "query($n: Int!) { topProducts(first: $n) { upc } }",
        json!({}),
    );
    assert!(e.contains("$n"), "{e}");
    let e = err("{ topProducts { upc(x: 1) } }", json!({}));
    assert!(e.contains("`x`"), "{e}");
    let e = err("{ topProducts }", json!({}));
    assert!(e.contains("needs a selection"), "{e}");
    let e = err("{ topProducts { ... on Nope { upc } } }", json!({}));
    assert!(e.contains("`Nope`"), "{e}");
    let e = err("{ topProducts { ...Missing } }", json!({}));
    assert!(e.contains("`Missing`"), "{e}");
    let e = err("subscription { topProducts { upc } }", json!({}));
    assert!(e.contains("subscriptions"), "{e}");
    let e = err("{ topProducts { upc }", json!({}));
    assert!(e.contains("does not parse"), "{e}");
    // A value type's field in another subgraph that cannot reach it (no Query.box there).
    let a = "type Query { box: Box } type Box { size: Int }";
    let b = "type Box { colour: String }";
    let split = graph(&[("a", a), ("b", b)], &MockConfig::default());
    let e = split
        .expected("{ box { colour } }", None, &Map::new())
        .unwrap_err();
    assert!(
        e.starts_with("box.colour: ") && e.contains("`b`") && e.contains("Query.box"),
        "{e}"
    );
}

/// A value type shared by two subgraphs (`@shareable`), each serving some of its fields:
/// a gateway fetches the other's fields from the nearest entity above it, down the same
/// path, and gets the object the same seed gives there.
#[tokio::test]
async fn a_shared_value_types_fields_come_down_the_same_path_in_the_other_subgraph() {
    let a = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])
type Query { me: [User!]! }
type User @key(fields: "id") { id: ID! details: Details @shareable }
type Details @shareable { name: String }"#;
    let b = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])
type User @key(fields: "id") { id: ID! details: Details @shareable }
type Details @shareable { age: Int }"#;
    let g = graph(&[("a", a), ("b", b)], &MockConfig::default());
    let got = expected(&g, "{ me { id details { name age } } }", json!({}));
    let sub =
        |name: &str, sdl: &str| MockSubgraph::new(name, name, sdl, &MockConfig::default()).unwrap();
    let (sa, sb) = (sub("a", a), sub("b", b));
    let mine = run(&sa, "{ me { id details { name } } }", json!({})).await;
    let users = mine["me"].as_array().unwrap();
    assert_eq!(users.len(), 3);
    let mut ages = 0;
    for (i, u) in users.iter().enumerate() {
        let rep = json!({ "__typename": "User", "id": u["id"] });
        let theirs = &entities(&sb, "User", vec![rep], "{ details { age } }").await[0];
        assert_eq!(
            got["me"][i]["details"]["name"], u["details"]["name"],
            "user {i}"
        );
        assert_eq!(
            got["me"][i]["details"]["age"], theirs["details"]["age"],
            "user {i}"
        );
        let age = &theirs["details"]["age"];
        assert!(age.is_number() || age.is_null(), "{theirs}");
        ages += usize::from(age.is_number());
    }
    assert!(ages > 0, "some user's age is a number");
}

/// An enum member hidden from the API schema (`@inaccessible`) is never returned: a gateway
/// could only null the field.
#[test]
fn an_inaccessible_enum_member_is_never_returned() {
    let sdl = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@inaccessible"])
type Query { moods: [Mood!]! }
enum Mood { HAPPY SAD HIDDEN @inaccessible }"#;
    let config = MockConfig {
        lists: [("Query.moods".to_string(), 60)].into(),
        ..MockConfig::default()
    };
    let g = graph(&[("m", sdl)], &config);
    let got = expected(&g, "{ moods }", json!({}));
    let moods = got["moods"].as_array().unwrap();
    assert_eq!(moods.len(), 60);
    assert!(moods.iter().all(|m| m == "HAPPY" || m == "SAD"), "{got}");
    assert!(moods.iter().any(|m| m == "SAD") && moods.iter().any(|m| m == "HAPPY"));
}

/// An argument left out, given as null, or given its SDL default seeds the same values:
/// gateways forward an unset nullable variable either way, and must all get one answer.
#[tokio::test]
async fn absent_null_and_default_arguments_give_the_same_values() {
    let sdl = "type Query { items(first: Int = 5, tag: String): [Item!]! } type Item { id: ID! }";
    let g = graph(&[("s", sdl)], &MockConfig::default());
    let plain = expected(&g, "{ items { id } }", json!({}));
    for q in [
        "{ items(first: null, tag: null) { id } }",
        "{ items(first: 5) { id } }",
        "query($t: String) { items(tag: $t) { id } }",
    ] {
        assert_eq!(expected(&g, q, json!({})), plain, "{q}");
    }
    assert_ne!(expected(&g, "{ items(first: 6) { id } }", json!({})), plain);
    assert_ne!(
        expected(&g, "{ items(tag: \"a\") { id } }", json!({})),
        plain
    );
    // The served mock agrees, whichever way the argument arrives.
    let s = MockSubgraph::new("s", "s", sdl, &MockConfig::default()).unwrap();
    let served = run(
        &s,
        "query($t: String) { items(tag: $t, first: null) { id } }",
        json!({}),
    )
    .await;
    assert_eq!(served, plain);
}

/// A subgraph whose root type is named otherwise (`schema { query: Queries }`) is served
/// as the supergraph names it, `Query`; its fields answer as any root field.
#[tokio::test]
async fn a_renamed_root_type_is_served_as_query() {
    let sdl = "schema { query: Queries } type Queries { things: [Thing!]! } type Thing { id: ID! }";
    let g = graph(&[("r", sdl)], &MockConfig::default());
    let got = expected(&g, "{ things { id } }", json!({}));
    assert_eq!(got["things"].as_array().map(Vec::len), Some(3), "{got}");
    let s = MockSubgraph::new("r", "r", sdl, &MockConfig::default()).unwrap();
    assert_eq!(run(&s, "{ things { id } }", json!({})).await, got);
}
