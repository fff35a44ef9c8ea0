//! Never blame a gateway for the mock (issue 37), keys: an entity a gateway may fetch by
//! any of its keys (compound `sku package`, nested `sku variation { id }`, and `email`, a
//! key only the fetching subgraph declares) is the same entity whichever it sends, so two
//! gateways with their own query planners both answer exactly as computed.
mod common;
use std::path::Path;

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

fn write_graph(dir: &Path) {
    let sdl = dir.join("sdl");
    std::fs::create_dir_all(&sdl).unwrap();
    for (name, text) in SUBGRAPHS {
        std::fs::write(
            sdl.join(format!("{name}.graphql")),
            format!("{LINK}\n{text}\n"),
        )
        .unwrap();
    }
    let ops = dir.join("ops");
    std::fs::create_dir_all(&ops).unwrap();
    std::fs::write(
        ops.join("products.graphql"),
        "query Products { allProducts { id name stock rating variation { id } } }",
    )
    .unwrap();
    std::fs::write(
        ops.join("accounts.graphql"),
        "query Accounts { accounts { name karma } }",
    )
    .unwrap();
}

#[test]
fn gateways_fetching_an_entity_by_any_of_its_keys_are_checked_and_valid() {
    let tmp = tempfile::tempdir().unwrap();
    write_graph(tmp.path());
    federation_tools();
    let init = Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(tmp.path().join("g"))
        .arg("--from")
        .arg(tmp.path().join("sdl"))
        .arg("--operations")
        .arg(tmp.path().join("ops"))
        .go();
    assert!(init.success(), "{}", init.stderr);
    assert!(!init.stderr.contains("LEFT OUT"), "{}", init.stderr);

    let out = tempfile::tempdir().unwrap();
    let r = run_graph_on_two_gateways(&tmp.path().join("g"), out.path());
    let s = &r.scenarios[0];
    let mut ops: Vec<&str> = s.operations.iter().map(|o| o.name.as_str()).collect();
    ops.sort();
    assert_eq!(ops, ["g/accounts", "g/products"]);
    assert_two_gateways_checked(&r, 2);
    assert_no_process(&format!("mock --dir {}", tmp.path().join("g").display()));
}
