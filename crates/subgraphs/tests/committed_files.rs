//! The committed SDL files and expected answers are what this crate produces now, and
//! `_service { sdl }` serves exactly those files.

use crate::common;

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
        // A deferred query's expected answer is the same query's without @defer.
        let query = read(scenarios().join(format!("queries/federation/{op}.graphql")))
            .replace(" @defer", "");
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

const WIDE_REGENERATE: &str = "regenerate with `gqlbench subgraphs sdl --graph wide --subgraph NAME --federation V > scenarios/federation/wide/subgraphs/NAME.V.graphql`, then `node targets/_federation/compose.mjs --graph wide`";

#[test]
fn wide_sdl_files_are_current() {
    let graph = gqlbench_subgraphs::graph::Graph::Wide;
    for (i, name) in graph.names().iter().enumerate() {
        for f in [Federation::V1, Federation::V2] {
            let file = read(scenarios().join(format!(
                "federation/wide/subgraphs/{name}.{}.graphql",
                f.name()
            )));
            assert!(
                file == graph.sdl(i, f).unwrap(),
                "wide {name}.{}: stale; {WIDE_REGENERATE}",
                f.name()
            );
        }
    }
}

#[test]
fn the_wide_query_walks_the_current_graph() {
    let file = read(scenarios().join("queries/federation-wide/all12.graphql"));
    assert!(
        file == gqlbench_subgraphs::wide::spec::walk_query(),
        "stale; regenerate with `gqlbench subgraphs walk-query > scenarios/queries/federation-wide/all12.graphql`"
    );
}

#[tokio::test]
async fn wide_expected_answers_are_current_and_name_all_twelve_types() {
    let graph = gqlbench_subgraphs::graph::Graph::Wide;
    let query = read(scenarios().join("queries/federation-wide/all12.graphql"));
    let file = read(scenarios().join("expected/federation-wide/all12.json"));
    let cases: serde_json::Value = serde_json::from_str(&file).unwrap();
    for case in cases.as_array().unwrap() {
        let data = graph
            .expected(&query, case["variables"].clone())
            .await
            .unwrap();
        assert!(
            serde_json::to_value(&data).unwrap() == case["data"],
            "stale; regenerate with `gqlbench subgraphs expected --graph wide --query scenarios/queries/federation-wide/all12.graphql --variables '{{\"first\": 5}}'` (as a case of the file)"
        );
    }
    // Every entity type's key prefix appears: the answer reaches all twelve subgraphs.
    for prefix in [
        "met-", "inv-", "ite-", "cus-", "sto-", "ima-", "ord-", "pri-", "rat-", "lis-", "par-",
        "acc-",
    ] {
        assert!(file.contains(&format!("\"{prefix}")), "{prefix}");
    }
}

/// The wide graph's subgraphs served and federated for real: the root's list, then an
/// entity of another subgraph fetched by key as a gateway would.
#[tokio::test]
async fn wide_subgraphs_serve_their_list_and_entities_by_key() {
    use gqlbench_subgraphs::graph::Graph;
    use gqlbench_subgraphs::wide::spec::{key_value, spec};
    let running = gqlbench_subgraphs::server::start(&gqlbench_subgraphs::server::ServeConfig {
        graph: Graph::Wide,
        ports: vec![0; 12],
        federation: Federation::V2,
        delays: vec![],
        seed: 1,
        response_cache: false,
    })
    .await
    .unwrap();
    let s = spec();
    let root = &s.entities[s.root];
    let at = |name: &str| running.addrs[Graph::Wide.index_of(name).unwrap()];
    let reply = common::graphql(
        at(root.subgraph),
        &format!("{{ items(first: 2) {{ {} }} }}", root.key),
        json!(null),
    )
    .await;
    assert_eq!(
        reply.json()["data"]["items"][1][root.key],
        json!(key_value(s.root, 2))
    );
    // A child of the root extends the root's type: resolve it there by key.
    let child = s.children(s.root).next().unwrap();
    let c = &s.entities[child];
    let query = format!(
        "query($r: [_Any!]!) {{ _entities(representations: $r) {{ ... on {} {{ {} {{ {} }} }} }} }}",
        root.type_name, c.link, c.key
    );
    let reply = common::graphql(
        at(c.subgraph),
        &query,
        json!({"r": [{"__typename": root.type_name, root.key: key_value(s.root, 1)}]}),
    )
    .await;
    let v = reply.json();
    assert!(v["errors"].is_null(), "{v}");
    let first = &v["data"]["_entities"][0][c.link.as_str()][c.key];
    assert!(
        first
            .as_str()
            .unwrap()
            .starts_with(&key_value(child, 1)[..4]),
        "{v}"
    );
    assert!(
        v["data"]["_entities"][1].is_null(),
        "an unknown key resolves to null: {v}"
    );
    // Counted per subgraph by name, all twelve listed.
    let counters = common::request(running.addrs[0], "GET", "/counters", "")
        .await
        .json();
    assert_eq!(counters.as_object().unwrap().len(), 12, "{counters}");
    assert_eq!(counters[root.subgraph], 1);
}
