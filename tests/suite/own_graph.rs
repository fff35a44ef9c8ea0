//! A graph of the user's own (issue 27): a folder of Federation v2 subgraph SDL composes
//! into a supergraph with placeholder URLs (targets/_federation/compose.mjs --dir), and a
//! folder that does not parse or compose is refused with errors naming its subgraphs. The
//! mock subgraphs that serve such a folder are tested in crates/subgraphs/tests/mock.rs.
use crate::common;
use std::process::{Command, Output};

use common::*;

fn compose(dir: &std::path::Path, out: &std::path::Path) -> Output {
    Command::new("node")
        .arg(federation_tools().join("compose.mjs"))
        .arg("--dir")
        .arg(dir)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn a_folder_of_subgraph_sdl_composes_with_a_placeholder_url_per_subgraph() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("supergraph.graphql");
    let o = compose(&fixtures().join("graphs/shop"), &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sg = std::fs::read_to_string(&out).unwrap();
    // Named by file stem, URLs by alphabetical position.
    assert!(
        sg.contains(r#"join__graph(name: "products", url: "http://127.0.0.1:4401/graphql")"#),
        "{sg}"
    );
    assert!(
        sg.contains(r#"join__graph(name: "reviews", url: "http://127.0.0.1:4402/graphql")"#),
        "{sg}"
    );
    // The entity both subgraphs serve is one type, resolvable from both.
    assert!(sg.contains("type Product"), "{sg}");
    assert!(sg.contains("latestReviews"), "{sg}");
}

#[test]
fn a_folder_that_does_not_parse_or_compose_is_refused_naming_its_subgraphs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("supergraph.graphql");
    let dir = tmp.path().join("graph");
    std::fs::create_dir(&dir).unwrap();
    // The same root field with two types, in two subgraphs, and not shareable.
    std::fs::write(dir.join("alpha.graphql"), "type Query { total: Int }\n").unwrap();
    std::fs::write(dir.join("beta.graphql"), "type Query { total: String }\n").unwrap();
    let o = compose(&dir, &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("composition failed") && err.contains("Query.total"),
        "{err}"
    );
    assert!(!out.exists());

    std::fs::write(dir.join("beta.graphql"), "type Query { total: Int \n").unwrap();
    let o = compose(&dir, &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // Where graphql-js stopped: the file, line and column.
    assert!(
        err.contains("subgraph beta") && err.contains("beta.graphql:2:1): syntax error"),
        "{err}"
    );

    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = compose(&empty, &out);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds no *.graphql"));

    // --dir without --out is a usage error.
    let o = Command::new("node")
        .arg(federation_tools().join("compose.mjs"))
        .arg("--dir")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
