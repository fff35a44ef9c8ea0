//! Incremental delivery in the catalogue: whether an operation's document asks for it
//! (`@defer` or `@stream` anywhere in it), and the `Accept` header such requests carry
//! (by transport: multipart or SSE). The engine then reads the answer's `multipart/mixed`
//! parts or `text/event-stream` events, checks them in order, and
//! judges their merged `data` against the operation's expected answer, which is that of
//! the same query without the directives.
use async_graphql_parser::types::{Directive, Selection, SelectionSet};
use async_graphql_parser::Positioned;

/// What an incremental request accepts over multipart: each multipart format the engine
/// reads, as a client that reads them all would say.
/// - `incrementalSpec=v0.2`, graphql 17.0.0-alpha.9's format: Apollo Server serves @defer
///   only in it (it refuses the 2022 format with 406 when running on graphql 17).
/// - `deferSpec=20220824`: Apollo Router needs it (it refuses a bare `multipart/mixed`).
/// - a bare `multipart/mixed`: GraphQL Yoga and Hive Gateway accept any of these.
/// - `application/json`, last and least preferred: Apollo Server refuses a request whose
///   Accept could not take a single JSON result, before it knows whether the operation
///   is incremental. A deferred query is still answered in parts by every server here.
pub const ACCEPT: &str = "multipart/mixed;incrementalSpec=v0.2, multipart/mixed;deferSpec=20220824, multipart/mixed, application/json;q=0.5";

/// What an incremental request accepts over SSE (GraphQL over SSE, distinct connections
/// mode, as Yoga and Hive Gateway serve it): the event stream alone, so that a server that
/// cannot stream events refuses it rather than answering in parts.
pub const ACCEPT_SSE: &str = "text/event-stream";

/// How incremental answers are asked for: `[incremental] transport`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Transport {
    #[default]
    Multipart,
    Sse,
}

impl Transport {
    /// The names a scenario file may give.
    pub const NAMES: &'static str = "\"multipart\" or \"sse\"";

    pub fn parse(name: &str) -> Option<Transport> {
        match name {
            "multipart" => Some(Transport::Multipart),
            "sse" => Some(Transport::Sse),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Transport::Multipart => "multipart",
            Transport::Sse => "sse",
        }
    }

    /// The `Accept` header of an incremental request.
    pub fn accept(self) -> &'static str {
        match self {
            Transport::Multipart => ACCEPT,
            Transport::Sse => ACCEPT_SSE,
        }
    }
}

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

    #[test]
    fn the_transport_names_the_accept_header_of_deferred_operations_only() {
        use super::super::operation::{OperationCase, OperationDef};
        let op = |document: &str, transport: Transport| OperationDef {
            name: "x/op".into(),
            document: document.into(),
            document_path: Default::default(),
            expected_path: Default::default(),
            cases: vec![OperationCase {
                variables: None,
                data: serde_json::json!({"a": 1}),
                unique: None,
            }],
            incremental: asks_incremental(document),
            form: super::super::forms::OperationForm {
                incremental: transport,
                ..Default::default()
            },
        };
        let accept = |document: &str, transport: Transport| {
            op(document, transport).to_engine(1).variants[0]
                .incremental
                .clone()
        };
        let deferred = "{ a ... @defer { b } }";
        assert_eq!(
            accept(deferred, Transport::default()).as_deref(),
            Some(ACCEPT)
        );
        assert_eq!(
            accept(deferred, Transport::Sse).as_deref(),
            Some("text/event-stream")
        );
        assert_eq!(accept("{ a }", Transport::Sse), None);
        for t in [Transport::Multipart, Transport::Sse] {
            assert_eq!(Transport::parse(t.name()), Some(t));
        }
        assert_eq!(Transport::parse("SSE"), None);
    }
}
