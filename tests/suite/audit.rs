//! `gqlbench audit`: the correctness matrix over suites laid out as the federation gateway
//! audit's (`src/test-suites/NAME/{*.subgraph.ts,test.ts}`; the suites here are our own
//! SDL, not the audit's). Each suite is set up with `init graph` and run through two
//! gateways; the matrix names per suite and gateway what was found, operations that are no
//! GraphQL or do not fit the graph are dropped with why, a suite the mocks cannot serve at
//! all is "not run" with init's reason, and bad input exits 2 naming the path or flag.
use crate::common;
use std::path::Path;

use common::*;

const LINK: &str = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])"#;

fn subgraph(dir: &Path, name: &str, sdl: &str) {
    std::fs::write(
        dir.join(format!("{name}.subgraph.ts")),
        format!(
            "import {{ createSubgraph }} from \"../../subgraph.js\";\nexport default createSubgraph(\"{name}\", {{\n  typeDefs: /* GraphQL */ `\n{LINK}\n{sdl}\n`,\n  resolvers: {{ Query: {{ x() {{ return `${{1}}`; }} }} }},\n}});\n"
        ),
    )
    .unwrap();
}

fn tests(dir: &Path, ops: &[&str]) {
    let calls: Vec<String> = ops
        .iter()
        .map(|op| format!("  createTest(\n    /* GraphQL */ `\n      {op}\n    `,\n    {{ data: {{}} }},\n  ),\n"))
        .collect();
    std::fs::write(
        dir.join("test.ts"),
        format!(
            "import {{ createTest }} from \"../../testkit.js\";\nexport default [\n{}];\n",
            calls.join("")
        ),
    )
    .unwrap();
}

/// A checkout with two suites: `keys` (an entity fetched by a compound key; one operation
/// that is no GraphQL, one that does not fit the graph) and `apart` (a shared union with
/// no member in common: nothing the mocks can check).
fn checkout(root: &Path) {
    let keys = root.join("src/test-suites/keys");
    std::fs::create_dir_all(&keys).unwrap();
    subgraph(
        &keys,
        "a",
        r#"type Query { products: [Product] }
type Product @key(fields: "id") @key(fields: "sku package") { id: ID! sku: String! package: String! name: String }"#,
    );
    subgraph(
        &keys,
        "b",
        r#"type Product @key(fields: "sku package") { sku: String! package: String! price: Int }"#,
    );
    tests(
        &keys,
        &[
            "query { products { id name price } }",
            "query { products { ",
            "query { products { nope } }",
        ],
    );
    let apart = root.join("src/test-suites/apart");
    std::fs::create_dir_all(&apart).unwrap();
    subgraph(
        &apart,
        "a",
        "type Query { media: Media @shareable }\nunion Media = Song\ntype Song @shareable { title: String! }",
    );
    subgraph(
        &apart,
        "b",
        "type Query { media: Media @shareable }\nunion Media = Movie\ntype Movie @shareable { title: String! }",
    );
    tests(&apart, &["query { media { ... on Song { title } } }"]);
}

#[test]
fn the_matrix_names_each_suite_and_gateway_and_what_was_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    checkout(tmp.path());
    federation_tools();
    let out = tmp.path().join("out");
    let o = Gqlbench::new(["audit"])
        .root(repo())
        .arg(tmp.path())
        .arg("--targets")
        .arg("hive-gateway,apollo-gateway")
        .out(&out)
        .go();
    o.assert_exit(0);
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("audit.json")).unwrap()).unwrap();
    let suites = m["suites"].as_array().unwrap();
    assert_eq!(suites.len(), 2, "{m}");
    let (apart, keys) = (&suites[0], &suites[1]);
    assert_eq!(keys["suite"], "keys");
    assert_eq!(keys["operations"], serde_json::json!(["t1"]), "{keys}");
    for g in ["hive-gateway", "apollo-gateway"] {
        assert_eq!(keys["cells"][g]["verdict"], "correct", "{g}: {keys}");
    }
    let dropped = keys["dropped"].to_string();
    assert!(
        dropped.contains("t2") && dropped.contains("not a GraphQL document"),
        "{dropped}"
    );
    assert!(
        dropped.contains("t3") && dropped.contains("refused by init graph: t3.graphql:"),
        "{dropped}"
    );
    assert_eq!(apart["suite"], "apart");
    let why = apart["not_run"].as_str().unwrap_or_default();
    assert!(why.contains("no operation can be checked"), "{apart}");
    assert_eq!(apart["left_out"][0][0], "t1", "{apart}");
    assert!(
        apart["left_out"]
            .to_string()
            .contains("no member in common"),
        "{apart}"
    );

    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("| suite | ops | apollo-gateway | hive-gateway |")
            && md.contains("| keys | 1 (2 not taken) | correct | correct |"),
        "{md}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("<td class=\"correct\">correct</td>"),
        "{html}"
    );
    // The suite's graph folder is kept for the user to run again.
    assert!(out.join("suites/keys/graph/graph.toml").is_file());
    assert_no_process(&format!("mock --dir {}", out.display()));
}

#[test]
fn a_path_without_suites_or_an_unknown_suite_is_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let o = Gqlbench::new(["audit"]).root(repo()).arg(tmp.path()).go();
    o.assert_exit(2);
    assert!(
        o.stderr.contains(&tmp.path().display().to_string()) && o.stderr.contains("no audit suite"),
        "{}",
        o.stderr
    );
    checkout(tmp.path());
    let o = Gqlbench::new(["audit"])
        .root(repo())
        .arg(tmp.path())
        .arg("--suites")
        .arg("keys,nope")
        .go();
    o.assert_exit(2);
    assert!(
        o.stderr.contains("--suites")
            && o.stderr.contains("'nope'")
            && o.stderr.contains("apart, keys"),
        "{}",
        o.stderr
    );
    let o = Gqlbench::new(["audit"])
        .root(repo())
        .arg(tmp.path().join("missing"))
        .go();
    o.assert_exit(2);
    assert!(o.stderr.contains("is not a folder"), "{}", o.stderr);
}
