//! One entity whatever key reaches it: the served mocks give the same fields for a
//! representation by any of an entity's keys (simple, compound, nested, and a key only
//! another subgraph declares), the computed answer agrees with them, and a key that cannot
//! carry the identity (enums only) is left out where a gateway could choose it.

use crate::common;

use common::mocks::{entities, folder, run};
use gqlbench_subgraphs::mock::answer::{AnswerError, Graph};
use gqlbench_subgraphs::mock::{MockConfig, MockSubgraph};
use serde_json::{json, Map, Value};

/// Products as supergraph-demo-fed2 keys them: `id`, `sku package`, `sku variation { id }`.
const PRODUCTS: &str = r#"type Query { allProducts: [Product] }
type Variation @shareable { id: ID! }
type Product @key(fields: "id") @key(fields: "sku package") @key(fields: "sku variation { id }") {
  id: ID! sku: String! package: String! variation: Variation! name: String
}"#;
/// Inventory resolves Product by the nested key only.
const INVENTORY: &str = r#"type Variation @shareable { id: ID! }
type Product @key(fields: "sku variation { id }") { sku: String! variation: Variation! stock: Int }"#;
/// Reviews resolves Product by `sku package` only, and Account by `email`, a field the
/// accounts subgraph serves but does not key on.
const REVIEWS: &str = r#"type Product @key(fields: "sku package") { sku: String! package: String! rating: Int }
type Account @key(fields: "email") { email: String! karma: Int }"#;
const ACCOUNTS: &str = r#"type Query { accounts: [Account] }
type Account @key(fields: "id") { id: ID! email: String! @shareable name: String }"#;

#[tokio::test]
async fn every_key_of_an_entity_finds_the_same_entity() {
    let dir = folder(
        "keys",
        &[
            ("accounts", ACCOUNTS),
            ("inventory", INVENTORY),
            ("products", PRODUCTS),
            ("reviews", REVIEWS),
        ],
    );
    let subs = MockSubgraph::load_dir(&dir, &MockConfig::default()).unwrap();
    let (accounts, inventory, products, reviews) = (&subs[0], &subs[1], &subs[2], &subs[3]);
    let all = run(
        products,
        "{ allProducts { id sku package variation { id } name } }",
        json!(null),
    )
    .await;
    let first = all["allProducts"][0].clone();
    let by_id = json!({"__typename": "Product", "id": first["id"]});
    let by_pair =
        json!({"__typename": "Product", "sku": first["sku"], "package": first["package"]});
    let by_nested =
        json!({"__typename": "Product", "sku": first["sku"], "variation": first["variation"]});
    // products resolves it by each of its three keys: the same fields every time.
    let fields = "id sku package variation { id } name";
    let got = entities(
        products,
        "Product",
        fields,
        vec![by_id, by_pair.clone(), by_nested.clone()],
    )
    .await;
    assert_eq!(got.len(), 3);
    for g in &got {
        assert_eq!(g, &first, "{got:?}");
    }
    // Another subgraph's values for it agree whichever key it was sent.
    let stock = entities(
        inventory,
        "Product",
        "stock sku variation { id }",
        vec![by_nested],
    )
    .await;
    assert!(stock[0]["stock"].is_i64(), "{stock:?}");
    assert_eq!(stock[0]["variation"], first["variation"]);
    let rating = entities(reviews, "Product", "rating", vec![by_pair]).await;
    assert!(rating[0]["rating"].is_i64(), "{rating:?}");

    // A key (email) that accounts serves without keying on it still carries the identity.
    let acc = run(accounts, "{ accounts { id email name } }", json!(null)).await;
    let a0 = acc["accounts"][0].clone();
    let by_email = json!({"__typename": "Account", "email": a0["email"]});
    let by_account_id = json!({"__typename": "Account", "id": a0["id"]});
    let named = entities(accounts, "Account", "id email name", vec![by_account_id]).await;
    assert_eq!(named[0], a0);
    let karma = entities(reviews, "Account", "email karma", vec![by_email]).await;
    assert_eq!(karma[0]["email"], a0["email"]);

    // The computed answer fetches through these keys and agrees with the served values.
    let graph = Graph::load_dir(&dir, &MockConfig::default()).unwrap();
    let q = "{ allProducts { name stock rating } accounts { email karma } }";
    let computed = graph.expected(q, None, &Map::new()).unwrap();
    assert_eq!(computed["allProducts"][0]["name"], first["name"]);
    assert_eq!(computed["allProducts"][0]["stock"], stock[0]["stock"]);
    assert_eq!(computed["allProducts"][0]["rating"], rating[0]["rating"]);
    assert_eq!(computed["accounts"][0]["karma"], karma[0]["karma"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_key_of_enums_only_beside_another_key_is_left_out() {
    let dir = folder(
        "blind",
        &[
            (
                "a",
                r#"type Query { seats: [Seat] }
                   enum Row { A B C }
                   type Seat @key(fields: "id") @key(fields: "row") { id: ID! row: Row! label: String }"#,
            ),
            (
                "b",
                r#"enum Row { A B C }
                   type Seat @key(fields: "row") { row: Row! price: Int }"#,
            ),
        ],
    );
    let graph = Graph::load_dir(&dir, &MockConfig::default()).unwrap();
    match graph.answer("{ seats { price } }", None, &Map::new()) {
        Err(AnswerError::Unsupported(why)) => {
            for n in ["seats.0", "Seat", "\"row\"", "enums or Booleans", "`a`"] {
                assert!(why.contains(n), "{why} should name {n}");
            }
        }
        other => panic!("expected unsupported, got {other:?}"),
    }
    // Fields a serves itself need no fetch by that key.
    assert!(graph
        .answer("{ seats { label } }", None, &Map::new())
        .is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn resolvable_keys_beside_unresolvable_ones_and_a_mutations_only_subgraph_are_served() {
    let dir = folder(
        "mixed",
        &[
            (
                "a",
                r#"type Widget @key(fields: "id") @key(fields: "code", resolvable: false) { id: ID! code: String! name: String }"#,
            ),
            ("m", "type Mutation { add(num: Int!): Int! }"),
        ],
    );
    let subs = MockSubgraph::load_dir(&dir, &MockConfig::default()).unwrap();
    let got = entities(
        &subs[0],
        "Widget",
        "id name",
        vec![json!({"__typename": "Widget", "id": "Widget-4"})],
    )
    .await;
    assert_eq!(got[0]["id"], "Widget-4", "{got:?}");
    assert!(got[0]["name"].is_string(), "{got:?}");
    let sum = run(&subs[1], "mutation { add(num: 2) }", json!(null)).await;
    assert!(sum["add"].is_i64(), "{sum}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A parent entity call: `Category.details` is served only by a subgraph where Category is
/// a value type (no key), so a gateway fetches the parent Product there and follows
/// `category`; the computed answer does the same and agrees with that subgraph.
#[tokio::test]
async fn a_field_reached_through_its_parent_entity_is_computed_as_served() {
    let dir = folder(
        "parent",
        &[
            (
                "a",
                r#"type Query { products: [Product!]! }
                   type Product @key(fields: "id pid") { id: ID! pid: ID! category: Category @shareable }
                   type Category @key(fields: "id") { id: ID! name: String! @shareable }"#,
            ),
            (
                "c",
                r#"type Product @key(fields: "id pid") { id: ID! pid: ID! category: Category @shareable }
                   type Category { details: Details }
                   type Details { count: Int }"#,
            ),
        ],
    );
    let graph = Graph::load_dir(&dir, &MockConfig::default()).unwrap();
    let computed = graph
        .expected(
            "{ products { id pid category { id details { count } } } }",
            None,
            &Map::new(),
        )
        .unwrap();
    let p0 = &computed["products"][0];
    let subs = MockSubgraph::load_dir(&dir, &MockConfig::default()).unwrap();
    let rep = json!({"__typename": "Product", "id": p0["id"], "pid": p0["pid"]});
    let got = entities(
        &subs[1],
        "Product",
        "category { details { count } }",
        vec![rep],
    )
    .await;
    assert!(p0["category"]["details"]["count"].is_i64(), "{computed}");
    assert_eq!(got[0]["category"]["details"], p0["category"]["details"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A key field missing where the entity was returned (`Category.id`, which only a subgraph
/// holding Category as a value type serves): taken through the parent there, then the
/// entity fetched by it, as served.
#[tokio::test]
async fn a_key_field_taken_through_the_parent_then_the_entity_fetched_by_it() {
    let dir = folder(
        "keyparent",
        &[
            (
                "b",
                r#"type Product @key(fields: "id") { id: ID category: Category @shareable }
                   type Category { id: ID @shareable }"#,
            ),
            (
                "c",
                r#"type Category @key(fields: "id") { id: ID name: String }"#,
            ),
            (
                "d",
                r#"type Query { productFromD(id: ID!): Product }
                   type Product @key(fields: "id") { id: ID name: String }"#,
            ),
        ],
    );
    // Followed by hand below: no nulls on the way (tests/nulls_and_pages.rs has them).
    let no_nulls = MockConfig {
        null_every: 0,
        ..MockConfig::default()
    };
    let graph = Graph::load_dir(&dir, &no_nulls).unwrap();
    let computed = graph
        .expected(
            "{ productFromD(id: \"1\") { id category { id name } } }",
            None,
            &Map::new(),
        )
        .unwrap();
    let p = &computed["productFromD"];
    let subs = MockSubgraph::load_dir(&dir, &no_nulls).unwrap();
    let via_b = entities(
        &subs[0],
        "Product",
        "category { id }",
        vec![json!({"__typename": "Product", "id": p["id"]})],
    )
    .await;
    assert_eq!(
        via_b[0]["category"]["id"], p["category"]["id"],
        "{computed}"
    );
    let named = entities(
        &subs[1],
        "Category",
        "name",
        vec![json!({"__typename": "Category", "id": p["category"]["id"]})],
    )
    .await;
    assert_eq!(named[0]["name"], p["category"]["name"], "{computed}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An entity interface with two implementations, and an `@interfaceObject` standing for it.
const NODES: &str = r#"type Query { users: [NodeWithName!]! me: User }
interface NodeWithName @key(fields: "id") { id: ID! name: String }
type User implements NodeWithName @key(fields: "id") { id: ID! name: String age: Int }
type Admin implements NodeWithName @key(fields: "id") { id: ID! name: String level: Int }"#;
const PROFILES: &str = r#"type Query { anotherUsers: [NodeWithName] }
type NodeWithName @key(fields: "id") @interfaceObject { id: ID! username: String }"#;

#[tokio::test]
async fn an_entity_interface_and_its_interface_object_name_one_concrete_type_per_identity() {
    let dir = folder("iface", &[("nodes", NODES), ("profiles", PROFILES)]);
    let mut config = MockConfig::default();
    config.lists.insert("Query.anotherUsers".into(), 8);
    let subs = MockSubgraph::load_dir(&dir, &config).unwrap();
    let (nodes, profiles) = (&subs[0], &subs[1]);
    let graph = Graph::load_dir(&dir, &config).unwrap();
    let by_interface = |id: &Value| json!({"__typename": "NodeWithName", "id": id});

    // The interface's subgraph names, for an identity, the type it served it as.
    let served = run(
        nodes,
        "{ users { __typename id name } me { id } }",
        json!(null),
    )
    .await;
    let users = served["users"].as_array().unwrap();
    assert!(!users.is_empty(), "{served}");
    let reps: Vec<Value> = users.iter().map(|u| by_interface(&u["id"])).collect();
    let again = entities(nodes, "NodeWithName", "__typename name", reps.clone()).await;
    for (u, e) in users.iter().zip(&again) {
        assert_eq!(
            (&u["__typename"], &u["name"]),
            (&e["__typename"], &e["name"])
        );
    }
    let me = entities(
        nodes,
        "NodeWithName",
        "__typename",
        vec![by_interface(&served["me"]["id"])],
    )
    .await;
    assert_eq!(
        me[0]["__typename"], "User",
        "a User reached as itself is a User by its interface"
    );

    // The interface object's fields, as the computed answer gives them through the gateway.
    let profiled = entities(profiles, "NodeWithName", "id username", reps).await;
    let expected = graph
        .expected(
            "{ users { __typename id username ... on User { age } } }",
            None,
            &Map::new(),
        )
        .unwrap();
    for (i, (u, p)) in users.iter().zip(&profiled).enumerate() {
        let e = &expected["users"][i];
        assert_eq!(
            (&e["__typename"], &e["id"], &e["username"]),
            (&u["__typename"], &u["id"], &p["username"])
        );
        assert_eq!(e.get("age").is_some(), u["__typename"] == "User", "{e}");
    }

    // From the interface object's side: its ids find their concrete types and fields.
    let others = run(profiles, "{ anotherUsers { id username } }", json!(null)).await;
    let others = others["anotherUsers"].as_array().unwrap();
    let reps: Vec<Value> = others.iter().map(|u| by_interface(&u["id"])).collect();
    let concrete = entities(nodes, "NodeWithName", "__typename name", reps).await;
    let expected = graph
        .expected(
            "{ anotherUsers { __typename id name username } }",
            None,
            &Map::new(),
        )
        .unwrap();
    for (i, (o, c)) in others.iter().zip(&concrete).enumerate() {
        let e = &expected["anotherUsers"][i];
        assert_eq!(
            e,
            &json!({"__typename": c["__typename"], "id": o["id"], "name": c["name"], "username": o["username"]})
        );
    }
    let kinds: std::collections::BTreeSet<&str> = concrete
        .iter()
        .filter_map(|c| c["__typename"].as_str())
        .collect();
    // Both implementations among the identities served (the data is fixed: a check that
    // the concrete type varies with the identity, not a chance).
    let both: std::collections::BTreeSet<&str> = ["Admin", "User"].into_iter().collect();
    assert_eq!(kinds, both);
}

#[tokio::test]
async fn an_id_given_as_a_number_is_served_as_a_string_and_finds_the_same_entity() {
    let dir = folder(
        "idnum",
        &[(
            "d",
            r#"type Query { product(id: ID!): Product }
type Product @key(fields: "id") { id: ID name: String }"#,
        )],
    );
    let subs = MockSubgraph::load_dir(&dir, &MockConfig::default()).unwrap();
    // ID input coercion takes 1 for "1": a gateway may write either.
    let text = run(&subs[0], r#"{ product(id: "1") { id name } }"#, json!(null)).await;
    let number = run(&subs[0], "{ product(id: 1) { id name } }", json!(null)).await;
    assert_eq!(text, number);
    assert_eq!(text["product"]["id"], "1");
    let rep = entities(
        &subs[0],
        "Product",
        "id name",
        vec![json!({"__typename": "Product", "id": 1})],
    )
    .await;
    assert_eq!(rep[0], text["product"]);
}

/// A Federation 1 extension's `@external` key field that no other subgraph defines
/// (fed1-external-extends-resolvable: `upc` only in b) is b's own, as composition makes it:
/// the computed answer fetches it from b by the key a can build, as gateways do.
#[tokio::test]
async fn a_lone_external_key_field_is_its_subgraphs_own() {
    let dir = folder(
        "lone",
        &[
            (
                "a",
                r#"type Query { productInA: Product }
                   type Product @key(fields: "id") { id: ID! name: String pid: ID }"#,
            ),
            (
                "b",
                r#"type Query { productInB: Product }
                   extend type Product @key(fields: "id name") @key(fields: "upc") {
                     id: ID @external name: String @external upc: String @external price: Float!
                   }"#,
            ),
        ],
    );
    let no_nulls = MockConfig {
        null_every: 0,
        ..MockConfig::default()
    };
    let graph = Graph::load_dir(&dir, &no_nulls).unwrap();
    let computed = graph
        .expected(
            "{ productInA { id pid price upc name } }",
            None,
            &Map::new(),
        )
        .unwrap();
    let p = &computed["productInA"];
    assert!(p["upc"].is_string() && p["price"].is_number(), "{computed}");
    let subs = MockSubgraph::load_dir(&dir, &no_nulls).unwrap();
    let rep = json!({"__typename": "Product", "id": p["id"], "name": p["name"]});
    let from_b = entities(&subs[1], "Product", "upc price", vec![rep]).await;
    assert_eq!(from_b[0]["upc"], p["upc"], "{computed}");
    assert_eq!(from_b[0]["price"], p["price"], "{computed}");
    // And by the other key, the same entity.
    let by_upc = json!({"__typename": "Product", "upc": p["upc"]});
    let again = entities(&subs[1], "Product", "price", vec![by_upc]).await;
    assert_eq!(again[0]["price"], p["price"]);
    let _ = std::fs::remove_dir_all(&dir);
}
