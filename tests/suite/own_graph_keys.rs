//! Never blame a gateway for the mock (issue 37), keys: an entity a gateway may fetch by
//! any of its keys (compound `sku package`, nested `sku variation { id }`, and `email`, a
//! key only the fetching subgraph declares) is the same entity whichever it sends, so two
//! gateways with their own query planners both answer exactly as computed; and an entity
//! keyed through a list (`books { isbn }`) is the same entity in every subgraph.
use crate::common;
use common::*;

const LINK: &str = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])"#;

const SUBGRAPHS: &[(&str, &str)] = &[
    (
        "products",
        r#"type Query { allProducts: [Product] }
type Variation @shareable { id: ID! }
type Product @key(fields: "id") @key(fields: "sku package") @key(fields: "sku variation { id }") {
  id: ID! sku: String! package: String! variation: Variation! name: String
}"#,
    ),
    (
        "inventory",
        r#"type Variation @shareable { id: ID! }
type Product @key(fields: "sku variation { id }") { sku: String! variation: Variation! stock: Int }"#,
    ),
    (
        "reviews",
        r#"type Product @key(fields: "sku package") { sku: String! package: String! rating: Int }
type Account @key(fields: "email") { email: String! karma: Int }"#,
    ),
    (
        "accounts",
        r#"type Query { accounts: [Account] }
type Account @key(fields: "id") { id: ID! email: String! @shareable name: String }"#,
    ),
];

const OPS: &[(&str, &str)] = &[
    (
        "products",
        "query Products { allProducts { id name stock rating variation { id } } }",
    ),
    ("accounts", "query Accounts { accounts { name karma } }"),
];

#[test]
fn gateways_fetching_an_entity_by_any_of_its_keys_are_checked_and_valid() {
    let tmp = tempfile::tempdir().unwrap();
    init_own_graph(tmp.path(), LINK, SUBGRAPHS, OPS);

    let out = tempfile::tempdir().unwrap();
    let r = run_graph_on_two_gateways(&tmp.path().join("g"), out.path());
    let s = &r.scenarios[0];
    let mut ops: Vec<&str> = s.operations.iter().map(|o| o.name.as_str()).collect();
    ops.sort();
    assert_eq!(ops, ["g/accounts", "g/products"]);
    assert_two_gateways_checked(&r, 2);
    assert_no_process(&format!("mock --dir {}", tmp.path().join("g").display()));
}

/// A shelf keyed through its list of books (`books { isbn }`, `books { isbn code }`), as
/// the audit's complex-entity-call keys a product list.
const LIST_KEYED: &[(&str, &str)] = &[
    (
        "shelf",
        r#"type Query { topShelf: Shelf! }
type Shelf @key(fields: "books { isbn }") { books: [Book!]! }
type Book @key(fields: "isbn") { isbn: String! title: String! }"#,
    ),
    (
        "codes",
        r#"type Book @key(fields: "isbn") { isbn: String! code: String! @shareable }"#,
    ),
    (
        "picks",
        r#"type Shelf @key(fields: "books { isbn code }") { books: [Book!]! pick: Book! }
type Book @key(fields: "isbn code") { isbn: String! code: String! }"#,
    ),
];

#[test]
fn gateways_fetching_an_entity_by_a_key_through_a_list_are_checked_and_valid() {
    let tmp = tempfile::tempdir().unwrap();
    let op = "query Shelf { topShelf { books { isbn title code } pick { isbn code title } } }";
    init_own_graph(tmp.path(), LINK, LIST_KEYED, &[("shelf", op)]);
    let out = tempfile::tempdir().unwrap();
    let r = run_graph_on_two_gateways(&tmp.path().join("g"), out.path());
    assert_two_gateways_checked(&r, 1);
    assert_no_process(&format!("mock --dir {}", tmp.path().join("g").display()));
}
