//! What the mocks cannot serve as every correct gateway would see it is found, and an
//! operation whose answer goes through it is "unsupported" (not checked), naming the
//! construct and the response path, while operations clear of it are answered: a type of
//! two entity interfaces, an `@interfaceObject` no subgraph keys, and a shared field whose union has no member in common
//! with another subgraph's (while one with some in common returns one of those, and an enum
//! likewise). Keys: tests/identity.rs.

use gqlbench_subgraphs::mock::answer::{AnswerError, Graph};
use gqlbench_subgraphs::mock::MockConfig;
use serde_json::Map;

const LINK: &str = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable", "@interfaceObject"])"#;

fn graph(subgraphs: &[(&str, &str)]) -> Graph {
    let list = subgraphs
        .iter()
        .map(|(n, sdl)| {
            (
                n.to_string(),
                format!("{n}.graphql"),
                format!("{LINK}\n{sdl}"),
            )
        })
        .collect();
    Graph::new(list, &MockConfig::default()).unwrap()
}

fn answer(g: &Graph, query: &str) -> Result<serde_json::Value, AnswerError> {
    g.answer(query, None, &Map::new())
}

/// The operation is unsupported, and the reason names each of `names`.
fn unsupported(g: &Graph, query: &str, names: &[&str]) {
    match answer(g, query) {
        Err(AnswerError::Unsupported(why)) => {
            for n in names {
                assert!(why.contains(n), "{query}: {why} should name {n}");
            }
        }
        other => panic!("{query}: expected unsupported, got {other:?}"),
    }
}

#[test]
fn an_entity_interface_without_one_identity_space_is_unsupported_and_the_rest_answered() {
    let g = graph(&[
        (
            "a",
            r#"type Query { media: Media  tag: String  node: Node }
               interface Media @key(fields: "id") { id: ID! title: String }
               interface Node @key(fields: "id") { id: ID! }
               type Book implements Media & Node @key(fields: "id") { id: ID! title: String }"#,
        ),
        (
            "b",
            r#"type Query { rated: Rated }
               type Rated @key(fields: "id") @interfaceObject { id: ID! rating: Int }"#,
        ),
    ]);
    // Book implements two entity interfaces: which one's identity names its type?
    unsupported(
        &g,
        "{ media { id } }",
        &["media", "Book", "several entity interfaces", "`a`"],
    );
    // An interface object whose interface no subgraph keys: nothing names its type.
    unsupported(
        &g,
        "{ rated { rating } }",
        &["rated", "Rated", "@interfaceObject"],
    );
    let tag = answer(&g, "{ tag }").unwrap();
    assert!(tag["tag"].is_string(), "{tag}");
    // `expected` says it in its message.
    let e = g
        .expected("{ node { id } }", None, &Map::new())
        .unwrap_err();
    assert!(e.contains("cannot serve it consistently"), "{e}");
}

#[test]
fn a_shared_field_whose_union_differs_between_subgraphs_returns_a_common_member() {
    let differ = graph(&[
        (
            "a",
            r#"type Query { media: [Media] @shareable  book: Book @shareable }
               union Media = Song | Book
               type Book @shareable { title: String! }
               type Song @shareable { title: String! }"#,
        ),
        (
            "b",
            r#"type Query { media: [Media] @shareable }
               union Media = Book | Movie
               type Book @shareable { title: String! }
               type Movie @shareable { title: String! }"#,
        ),
    ]);
    // Only Book is in both: every item is a Book, whichever subgraph a gateway asks.
    let got = answer(&differ, "{ media { __typename ... on Book { title } } }").unwrap();
    let items = got["media"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    for i in items {
        assert_eq!(i["__typename"], "Book", "{got}");
        assert!(i["title"].is_string(), "{got}");
    }

    // No member in common: no value both could return.
    let apart = graph(&[
        (
            "a",
            r#"type Query { media: Media @shareable  book: Book }
               union Media = Song
               type Book { title: String! }
               type Song @shareable { title: String! }"#,
        ),
        (
            "b",
            r#"type Query { media: Media @shareable }
               union Media = Movie
               type Movie @shareable { title: String! }"#,
        ),
    ]);
    unsupported(
        &apart,
        "{ media { ... on Song { title } } }",
        &[
            "Query.media",
            "Media = Song",
            "Media = Movie",
            "`a`",
            "`b`",
            "no member in common",
        ],
    );
    assert!(answer(&apart, "{ book { title } }").is_ok());
}

#[test]
fn a_shared_enum_field_picks_from_the_members_all_subgraphs_have() {
    let g = graph(&[
        (
            "a",
            r#"type Query { moods: [Mood] @shareable }
               enum Mood { SAD HAPPY }"#,
        ),
        (
            "b",
            r#"type Query { moods: [Mood] @shareable }
               enum Mood { HAPPY SAD ANGRY }"#,
        ),
    ]);
    let got = answer(&g, "{ moods }").unwrap();
    let moods = got["moods"].as_array().unwrap();
    assert_eq!(moods.len(), 3);
    for m in moods {
        assert!(m == "HAPPY" || m == "SAD", "{got}");
    }
}

#[test]
fn introspection_is_unsupported_and_typename_answered() {
    let g = graph(&[("a", "type Query { tag: String }")]);
    unsupported(
        &g,
        "{ __type(name: \"Query\") { name } }",
        &["__type", "introspection"],
    );
    let got = answer(&g, "{ __typename tag }").unwrap();
    assert_eq!(got["__typename"], "Query", "{got}");
}

#[test]
fn an_operation_that_fails_for_another_reason_is_a_failure_not_unsupported() {
    let g = graph(&[("a", "type Query { tag: String }")]);
    match answer(&g, "{ nope }") {
        Err(AnswerError::Failed(e)) => assert!(e.contains("nope"), "{e}"),
        other => panic!("expected a failure, got {other:?}"),
    }
}
