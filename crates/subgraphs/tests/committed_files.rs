//! The committed SDL files and expected answers are what this crate produces now, and
//! `_service { sdl }` serves exactly those files.

mod common;

use std::path::PathBuf;

use gqlbench_subgraphs::subgraph::{Federation, Subgraph};
use serde_json::json;

fn scenarios() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn sdl_file(g: Subgraph, f: Federation) -> String {
    read(scenarios().join(format!(
        "federation/subgraphs/{}.{}.graphql",
        g.name(),
        f.name()
    )))
}

const REGENERATE: &str = "regenerate with `gqlbench-subgraphs sdl --subgraph NAME --federation V > scenarios/federation/subgraphs/NAME.V.graphql`";

#[test]
fn sdl_files_are_current() {
    for g in Subgraph::ALL {
        for f in [Federation::V1, Federation::V2] {
            let now = gqlbench_subgraphs::sdl::sdl(g, f).unwrap();
            assert!(
                sdl_file(g, f) == now,
                "{g}.{}: stale; {REGENERATE}",
                f.name()
            );
        }
    }
}

#[test]
fn v1_files_extend_foreign_types_and_link_nothing() {
    for g in Subgraph::ALL {
        let sdl = sdl_file(g, Federation::V1);
        assert!(!sdl.contains("@link"), "{g}");
        assert!(!sdl.contains("@shareable"), "{g}");
    }
    assert!(sdl_file(Subgraph::Reviews, Federation::V1)
        .contains("extend type User @key(fields: \"id\")"));
    assert!(sdl_file(Subgraph::Inventory, Federation::V1)
        .contains("extend type Product @key(fields: \"upc\")"));
    assert!(sdl_file(Subgraph::Products, Federation::V1).contains("extend type Query"));
}

#[tokio::test]
async fn service_sdl_serves_the_committed_files() {
    for f in [Federation::V1, Federation::V2] {
        let running = common::start(f, &[]).await;
        for g in Subgraph::ALL {
            let reply = common::graphql(
                running.addrs[g.index()],
                "query __ApolloGetServiceDefinition__ { _service { sdl } }",
                json!(null),
            )
            .await;
            let v = reply.json();
            assert_eq!(
                v["data"]["_service"]["sdl"].as_str(),
                Some(sdl_file(g, f).as_str()),
                "{g} {f:?}"
            );
        }
    }
}

#[tokio::test]
async fn expected_answers_are_current() {
    let dir = scenarios().join("expected/federation");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let op = path.file_stem().unwrap().to_str().unwrap().to_string();
        let query = read(scenarios().join(format!("queries/federation/{op}.graphql")));
        let cases: serde_json::Value = serde_json::from_str(&read(path.clone())).unwrap();
        let cases = cases.as_array().unwrap();
        assert!(!cases.is_empty(), "{op}");
        for case in cases {
            let data = gqlbench_subgraphs::monolith::expected(&query, case["variables"].clone())
                .await
                .unwrap();
            assert!(
                serde_json::to_value(&data).unwrap() == case["data"],
                "{op}: stale; regenerate with `gqlbench-subgraphs expected --query scenarios/queries/federation/{op}.graphql`"
            );
        }
        seen += 1;
    }
    assert!(seen >= 2, "expected large and small, found {seen}");
}
