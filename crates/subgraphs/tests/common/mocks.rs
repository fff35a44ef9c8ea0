//! Mock subgraphs in-process: a folder of SDL files, a query on one served subgraph, and
//! `_entities` by given representations.

use std::path::PathBuf;

use async_graphql::{Request, Variables};
use gqlbench_subgraphs::mock::MockSubgraph;
use serde_json::{json, Value};

/// Federation 2.3 with `@key` and `@shareable`, put above every SDL of [`folder`].
pub const LINK: &str = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])"#;

/// A fresh folder under the temporary directory, one `NAME.graphql` per file (with [`LINK`]
/// above it); `tag` keeps tests of one binary apart.
pub fn folder(tag: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gqlbench-mocks-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, sdl) in files {
        std::fs::write(
            dir.join(format!("{name}.graphql")),
            format!("{LINK}\n{sdl}"),
        )
        .unwrap();
    }
    dir
}

/// `query` on `s`, asserted free of errors: its data.
pub async fn run(s: &MockSubgraph, query: &str, vars: Value) -> Value {
    let r = s
        .execute(Request::new(query).variables(Variables::from_json(vars)))
        .await;
    assert!(r.errors.is_empty(), "{query}: {:?}", r.errors);
    r.data.into_json().unwrap()
}

/// `_entities` on `s` for `reps`, selecting `fields` on `ty`.
pub async fn entities(s: &MockSubgraph, ty: &str, fields: &str, reps: Vec<Value>) -> Vec<Value> {
    let q = format!(
        "query($r: [_Any!]!) {{ _entities(representations: $r) {{ ... on {ty} {{ {fields} }} }} }}"
    );
    let d = run(s, &q, json!({ "r": reps })).await;
    d["_entities"].as_array().cloned().unwrap_or_default()
}
