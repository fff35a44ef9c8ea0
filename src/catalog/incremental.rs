//! Incremental delivery in the catalogue: whether an operation's document asks for it
//! (`@defer` or `@stream` anywhere in it), and the `Accept` header such requests carry.
//! The engine then reads the answer's `multipart/mixed` parts, checks them in order, and
//! judges their merged `data` against the operation's expected answer, which is that of
//! the same query without the directives.
use async_graphql_parser::types::{Directive, Selection, SelectionSet};
use async_graphql_parser::Positioned;

/// What an incremental request accepts: each multipart format the engine reads, as a
/// client that reads them all would say.
/// - `incrementalSpec=v0.2`, graphql 17.0.0-alpha.9's format: Apollo Server serves @defer
///   only in it (it refuses the 2022 format with 406 when running on graphql 17).
/// - `deferSpec=20220824`: Apollo Router needs it (it refuses a bare `multipart/mixed`).
/// - a bare `multipart/mixed`: GraphQL Yoga and Hive Gateway accept any of these.
/// - `application/json`, last and least preferred: Apollo Server refuses a request whose
///   Accept could not take a single JSON result, before it knows whether the operation
///   is incremental. A deferred query is still answered in parts by every server here.
pub const ACCEPT: &str = "multipart/mixed;incrementalSpec=v0.2, multipart/mixed;deferSpec=20220824, multipart/mixed, application/json;q=0.5";

/// Whether `document` uses `@defer` or `@stream` (a document that does not parse is not:
/// its check refuses it elsewhere).
pub fn asks_incremental(document: &str) -> bool {
    let Ok(doc) = async_graphql_parser::parse_query(document) else {
        return false;
    };
    doc.operations
        .iter()
        .any(|(_, op)| in_set(&op.node.selection_set.node))
        || doc
            .fragments
            .values()
            .any(|f| in_set(&f.node.selection_set.node))
}

fn incremental(directives: &[Positioned<Directive>]) -> bool {
    directives
        .iter()
        .any(|d| matches!(d.node.name.node.as_str(), "defer" | "stream"))
}

fn in_set(set: &SelectionSet) -> bool {
    set.items.iter().any(|s| match &s.node {
        Selection::Field(f) => {
            incremental(&f.node.directives) || in_set(&f.node.selection_set.node)
        }
        Selection::FragmentSpread(f) => incremental(&f.node.directives),
        Selection::InlineFragment(f) => {
            incremental(&f.node.directives) || in_set(&f.node.selection_set.node)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defer_and_stream_are_found_anywhere() {
        assert!(!asks_incremental("{ user(id: \"1\") { id } }"));
        assert!(!asks_incremental("# @defer in a comment\n{ a }"));
        assert!(asks_incremental(
            "{ user(id: \"1\") { id ... @defer { posts { id } } } }"
        ));
        assert!(asks_incremental(
            "{ user(id: \"1\") { posts @stream(initialCount: 1) { id } } }"
        ));
        assert!(asks_incremental(
            "query { me { ...F @defer } } fragment F on User { id }"
        ));
        assert!(asks_incremental(
            "query { me { ...F } } fragment F on User { posts { ... @defer { id } } }"
        ));
        assert!(!asks_incremental("{ user(id: "));
    }
}
