//! `_entities` resolution in every subgraph, over HTTP as a gateway sends it.

use crate::common;

use gqlbench_subgraphs::subgraph::{Federation, Subgraph};
use serde_json::json;

const ENTITIES: &str = "query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on User { id name username birthday } ... on Product { upc name price weight } ... on Review { id body } } }";

#[tokio::test]
async fn accounts_resolves_users_by_id() {
    let running = common::start(Federation::V2, &[]).await;
    let reply = common::graphql(
        running.addrs[Subgraph::Accounts.index()],
        "query($r: [_Any!]!) { _entities(representations: $r) { ... on User { id name username } } }",
        json!({"r": [{"__typename": "User", "id": "3"}, {"__typename": "User", "id": "1"}]}),
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.json(),
        json!({"data": {"_entities": [
            {"id": "3", "name": "Grace Thompson", "username": "@grace3"},
            {"id": "1", "name": "Ada Dijkstra", "username": "@ada1"},
        ]}})
    );
}

#[tokio::test]
async fn products_resolves_products_by_upc() {
    let running = common::start(Federation::V2, &[]).await;
    let reply = common::graphql(
        running.addrs[Subgraph::Products.index()],
        "query($r: [_Any!]!) { _entities(representations: $r) { ... on Product { upc name price weight } } }",
        json!({"r": [{"__typename": "Product", "upc": "4"}]}),
    )
    .await;
    assert_eq!(
        reply.json(),
        json!({"data": {"_entities": [{"upc": "4", "name": "Lamp", "price": 1278, "weight": 112}]}})
    );
}

#[tokio::test]
async fn inventory_computes_shipping_from_the_passed_price_and_weight() {
    let running = common::start(Federation::V2, &[]).await;
    // Prices and weights differ from the real ones: the estimate must follow what the
    // gateway passed (@requires), not the shared data.
    let reply = common::graphql(
        running.addrs[Subgraph::Inventory.index()],
        "query($r: [_Any!]!) { _entities(representations: $r) { ... on Product { upc inStock shippingEstimate } } }",
        json!({"r": [
            {"__typename": "Product", "upc": "1", "price": 2000, "weight": 50},
            {"__typename": "Product", "upc": "3", "price": 10, "weight": 50},
            {"__typename": "Product", "upc": "2"},
        ]}),
    )
    .await;
    assert_eq!(
        reply.json(),
        json!({"data": {"_entities": [
            {"upc": "1", "inStock": true, "shippingEstimate": 0},
            {"upc": "3", "inStock": false, "shippingEstimate": 25},
            {"upc": "2", "inStock": true, "shippingEstimate": null},
        ]}})
    );
}

#[tokio::test]
async fn reviews_resolves_users_products_and_reviews() {
    let running = common::start(Federation::V2, &[]).await;
    let reply = common::graphql(
        running.addrs[Subgraph::Reviews.index()],
        "query($r: [_Any!]!) { _entities(representations: $r) {
            ... on User { id reviews { id author { id username } } }
            ... on Product { upc reviews { id product { upc } } }
            ... on Review { id body author { id } product { upc } } } }",
        json!({"r": [
            {"__typename": "User", "id": "2"},
            {"__typename": "Product", "upc": "3"},
            {"__typename": "Review", "id": "1"},
        ]}),
    )
    .await;
    let v = reply.json();
    let entities = &v["data"]["_entities"];
    assert_eq!(
        entities[0],
        json!({"id": "2", "reviews": [
            {"id": "4", "author": {"id": "2", "username": "@alan2"}},
            {"id": "5", "author": {"id": "2", "username": "@alan2"}},
        ]})
    );
    let product_reviews = entities[1]["reviews"].as_array().unwrap();
    assert!(!product_reviews.is_empty());
    assert!(product_reviews.iter().all(|r| r["product"]["upc"] == "3"));
    assert_eq!(
        entities[2],
        json!({"id": "1", "body": "Too expensive (@ada1 on the lamp, review 1)", "author": {"id": "1"}, "product": {"upc": "4"}})
    );
}

#[tokio::test]
async fn unknown_entities_and_types_are_errors_not_wrong_data() {
    let running = common::start(Federation::V2, &[]).await;
    let reply = common::graphql(
        running.addrs[Subgraph::Accounts.index()],
        ENTITIES,
        json!({"r": [{"__typename": "User", "id": "999"}]}),
    )
    .await;
    let v = reply.json();
    assert!(v["errors"].is_array(), "{v}");
    let reply = common::graphql(
        running.addrs[Subgraph::Accounts.index()],
        ENTITIES,
        json!({"r": [{"__typename": "Product", "upc": "1"}]}),
    )
    .await;
    assert!(reply.json()["errors"].is_array());
}

#[tokio::test]
async fn root_fields_answer_with_the_shared_data() {
    let running = common::start(Federation::V2, &[]).await;
    let reply = common::graphql(
        running.addrs[Subgraph::Products.index()],
        "{ topProducts { upc } all: topProducts(first: 20) { upc } }",
        json!(null),
    )
    .await;
    let v = reply.json();
    assert_eq!(v["data"]["topProducts"].as_array().unwrap().len(), 5);
    assert_eq!(v["data"]["all"].as_array().unwrap().len(), 9);
    let reply = common::graphql(
        running.addrs[Subgraph::Accounts.index()],
        "{ me { id } users { id } user(id: \"10\") { name } }",
        json!(null),
    )
    .await;
    let v = reply.json();
    assert_eq!(v["data"]["me"]["id"], "1");
    assert_eq!(v["data"]["users"].as_array().unwrap().len(), 10);
    assert_eq!(v["data"]["user"]["name"], "Ken Lovelace");
}

#[tokio::test]
async fn repeated_bodies_get_the_same_answer_with_or_without_the_response_cache() {
    let cached = common::start_with(Federation::V2, &[], true).await;
    let uncached = common::start_with(Federation::V2, &[], false).await;
    let query = "query($r: [_Any!]!) { _entities(representations: $r) { ... on User { id reviews { id body product { upc } } } } }";
    let vars = json!({"r": [{"__typename": "User", "id": "4"}, {"__typename": "User", "id": "5"}]});
    let reviews = Subgraph::Reviews.index();
    let first = common::graphql(cached.addrs[reviews], query, vars.clone()).await;
    let second = common::graphql(cached.addrs[reviews], query, vars.clone()).await;
    let fresh = common::graphql(uncached.addrs[reviews], query, vars).await;
    assert_eq!(first.json()["data"]["_entities"][1]["id"], "5");
    assert_eq!(first.body, second.body);
    assert_eq!(first.body, fresh.body);
}
