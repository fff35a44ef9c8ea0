//! Response delays and request counters of a running server.

use crate::common;

use std::time::Duration;

use gqlbench_subgraphs::subgraph::{Federation, Subgraph};
use serde_json::json;

#[tokio::test]
async fn a_delayed_subgraph_answers_no_sooner_than_its_lower_bound() {
    let running = common::start(Federation::V2, &["reviews=50..60ms"]).await;
    for _ in 0..3 {
        let reply = common::graphql(
            running.addrs[Subgraph::Reviews.index()],
            "{ _entities(representations: [{__typename: \"Review\", id: \"1\"}]) { ... on Review { id } } }",
            json!(null),
        )
        .await;
        assert_eq!(reply.status, 200);
        assert!(
            reply.elapsed >= Duration::from_millis(50),
            "{:?}",
            reply.elapsed
        );
        assert_eq!(reply.json()["data"]["_entities"][0]["id"], "1");
    }
}

#[tokio::test]
async fn health_is_never_delayed_and_says_ok() {
    let running = common::start(Federation::V2, &["accounts=1..2s"]).await;
    let reply = common::request(
        running.addrs[Subgraph::Accounts.index()],
        "GET",
        "/health",
        "",
    )
    .await;
    assert_eq!((reply.status, reply.body.as_str()), (200, "ok"));
    assert!(
        reply.elapsed < Duration::from_secs(1),
        "{:?}",
        reply.elapsed
    );
}

#[tokio::test]
async fn counters_count_graphql_requests_per_subgraph_only() {
    let running = common::start(Federation::V2, &[]).await;
    let products = running.addrs[Subgraph::Products.index()];
    for _ in 0..7 {
        common::graphql(products, "{ topProducts { upc } }", json!(null)).await;
    }
    common::graphql(
        running.addrs[Subgraph::Inventory.index()],
        "{ __typename }",
        json!(null),
    )
    .await;
    // Health and counter reads are not GraphQL requests.
    common::request(products, "GET", "/health", "").await;
    // Every port serves the same process-wide counters.
    let reply = common::request(
        running.addrs[Subgraph::Reviews.index()],
        "GET",
        "/counters",
        "",
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.json(),
        json!({"accounts": 0, "products": 7, "reviews": 0, "inventory": 1})
    );
}

#[tokio::test]
async fn malformed_bodies_get_a_400_with_a_graphql_error() {
    let running = common::start(Federation::V2, &[]).await;
    let reply = common::request(
        running.addrs[Subgraph::Accounts.index()],
        "POST",
        "/graphql",
        "{not json",
    )
    .await;
    assert_eq!(reply.status, 400);
    assert!(reply.json()["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("not a GraphQL JSON request"));
}
