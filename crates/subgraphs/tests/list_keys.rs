//! A key through a list (`@key(fields: "books { isbn }")`, issue 37): one entity and the
//! same items in every subgraph that keys on it, whatever the list's items carry, so a
//! gateway fetching the owner by that key gets the fields every other subgraph agrees
//! with, and the computed answer follows it instead of leaving the operation out.

use crate::common;

use std::collections::BTreeSet;

use common::mocks::{entities, folder, run};
use gqlbench_subgraphs::mock::answer::Graph;
use gqlbench_subgraphs::mock::{MockConfig, MockSubgraph};
use serde_json::{json, Map, Value};

const SHELF: &str = r#"type Query { topShelf: Shelf! }
type Shelf @key(fields: "books { isbn }") { books: [Book!]! }
type Book @key(fields: "isbn") { isbn: String! title: String! }"#;
const CODES: &str = r#"type Book @key(fields: "isbn") { isbn: String! code: String! @shareable }"#;
/// Keys the shelf by its books' compound key, and has a field of its own (`pick`).
const PICKS: &str = r#"type Shelf @key(fields: "books { isbn code }") { books: [Book!]! pick: Book! }
type Book @key(fields: "isbn code") { isbn: String! code: String! }"#;

fn book_rep(b: &Value) -> Value {
    json!({"__typename": "Book", "isbn": b["isbn"]})
}

#[tokio::test]
async fn a_key_through_a_list_names_the_same_entity_and_items_everywhere() {
    let dir = folder(
        "list-keys",
        &[("codes", CODES), ("picks", PICKS), ("shelf", SHELF)],
    );
    let config = MockConfig::default();
    let subs = MockSubgraph::load_dir(&dir, &config).unwrap();
    let (codes, picks, shelf) = (&subs[0], &subs[1], &subs[2]);

    let top = run(shelf, "{ topShelf { books { isbn title } } }", json!(null)).await;
    let books = top["topShelf"]["books"].as_array().unwrap().clone();
    assert_eq!(books.len(), config.default_list, "{top}");
    let isbns: BTreeSet<String> = books.iter().map(|b| b["isbn"].to_string()).collect();
    assert_eq!(isbns.len(), books.len(), "distinct items: {top}");

    // What a gateway sends picks: the books' isbn (shelf) and code (codes).
    let with_codes = entities(
        codes,
        "Book",
        "isbn code",
        books.iter().map(book_rep).collect(),
    )
    .await;
    let rep = |items: &[Value]| json!({"__typename": "Shelf", "books": items});
    let got = entities(
        picks,
        "Shelf",
        "books { isbn code } pick { isbn code }",
        vec![rep(&with_codes)],
    )
    .await;
    assert_eq!(got[0]["books"], json!(with_codes), "the items as given");
    // Reached twice by the same key, the same shelf; by other items, another one.
    let again = entities(picks, "Shelf", "pick { isbn }", vec![rep(&with_codes)]).await;
    assert_eq!(again[0]["pick"]["isbn"], got[0]["pick"]["isbn"]);
    let mut other = with_codes.clone();
    other.rotate_left(1);
    let moved = entities(
        picks,
        "Shelf",
        "books { isbn } pick { isbn }",
        vec![rep(&other)],
    )
    .await;
    assert_eq!(moved[0]["books"][0]["isbn"], other[0]["isbn"]);
    assert_ne!(
        moved[0]["pick"]["isbn"], got[0]["pick"]["isbn"],
        "{moved:?} {got:?}"
    );
    // A list given shorter or longer than the graph's is served as given.
    let mut longer = with_codes.clone();
    longer.push(with_codes[0].clone());
    for given in [&with_codes[..2], &longer[..]] {
        let served = entities(picks, "Shelf", "books { isbn code }", vec![rep(given)]).await;
        assert_eq!(served[0]["books"], json!(given));
    }

    // The computed answer walks the same key and agrees with every served value.
    let graph = Graph::load_dir(&dir, &config).unwrap();
    let q = "{ topShelf { books { isbn title code } pick { isbn code title } } }";
    let computed = graph.expected(q, None, &Map::new()).unwrap();
    for (i, b) in books.iter().enumerate() {
        let c = &computed["topShelf"]["books"][i];
        assert_eq!(
            (&c["isbn"], &c["title"]),
            (&b["isbn"], &b["title"]),
            "{computed}"
        );
        assert_eq!(c["code"], with_codes[i]["code"], "{computed}");
    }
    let pick = &computed["topShelf"]["pick"];
    assert_eq!(
        (&pick["isbn"], &pick["code"]),
        (&got[0]["pick"]["isbn"], &got[0]["pick"]["code"])
    );
    let title = entities(shelf, "Book", "title", vec![book_rep(pick)]).await;
    assert_eq!(pick["title"], title[0]["title"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_key_list_is_as_long_as_the_graph_says_in_every_subgraph() {
    let dir = folder(
        "list-keys-len",
        &[("codes", CODES), ("picks", PICKS), ("shelf", SHELF)],
    );
    let mut config = MockConfig::default();
    config.lists.insert("Shelf.books".into(), 5);
    let graph = Graph::load_dir(&dir, &config).unwrap();
    let computed = graph
        .expected(
            "{ topShelf { books { code } pick { isbn } } }",
            None,
            &Map::new(),
        )
        .unwrap();
    let books = computed["topShelf"]["books"].as_array().unwrap();
    assert_eq!(books.len(), 5, "{computed}");
    let subs = MockSubgraph::load_dir(&dir, &config).unwrap();
    let top = run(&subs[2], "{ topShelf { books { isbn } } }", json!(null)).await;
    assert_eq!(
        top["topShelf"]["books"].as_array().unwrap().len(),
        5,
        "{top}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
