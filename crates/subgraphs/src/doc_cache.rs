//! Parsed documents by query text.
//!
//! A gateway sends the same few operations (one per query plan node) over and over;
//! parsing them again on every request would cost more than resolving this tiny data set.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use async_graphql::parser::parse_query;
use async_graphql::parser::types::{DocumentOperations, ExecutableDocument, Selection};

/// Beyond this many distinct queries new ones are parsed per request and not kept, so that a
/// client sending unique queries cannot grow memory without bound.
const CAPACITY: usize = 1024;

pub struct Parsed {
    pub doc: ExecutableDocument,
    /// Some operation selects `_service` at its root (see `service`).
    pub asks_service: bool,
    /// The rewrite added fields whose keys the answer must lose (`mock::conform`).
    pub marked: bool,
    /// The variables' defaults, by operation (None: the only one): async-graphql 7.2 does
    /// not apply a default to `@skip`/`@include(if: $v)` when the request leaves `$v` out
    /// (Apollo's gateway does), so the executor fills them into the request.
    pub defaults: Vec<(Option<String>, async_graphql::Name, async_graphql::Value)>,
}

/// Every operation variable of `doc` with a default: (operation name when the document
/// has several, variable, default).
fn defaults(
    doc: &ExecutableDocument,
) -> Vec<(Option<String>, async_graphql::Name, async_graphql::Value)> {
    let several = matches!(doc.operations, DocumentOperations::Multiple(_));
    let mut out = Vec::new();
    for (name, op) in doc.operations.iter() {
        for v in &op.node.variable_definitions {
            if let Some(d) = &v.node.default_value {
                let op_name = several.then(|| name.map(|n| n.to_string())).flatten();
                out.push((op_name, v.node.name.node.clone(), d.node.clone()));
            }
        }
    }
    out
}

/// A rewrite of each document before it is kept (a mock subgraph's, `mock::conform`):
/// `document` returns true when the answers to it need `answer` run over them.
pub struct Rewrite {
    pub document: Box<dyn Fn(&mut ExecutableDocument) -> bool + Send + Sync>,
    pub answer: fn(&mut async_graphql::Value),
}

#[derive(Default)]
pub struct DocCache {
    docs: RwLock<HashMap<String, Arc<Parsed>>>,
    rewrite: Option<Rewrite>,
}

impl DocCache {
    pub fn with_rewrite(rewrite: Rewrite) -> DocCache {
        DocCache {
            docs: RwLock::default(),
            rewrite: Some(rewrite),
        }
    }

    /// An answer to a document whose rewrite marked it, cleaned as the rewrite asks.
    pub fn clean(&self, answer: &mut async_graphql::Value) {
        if let Some(r) = &self.rewrite {
            (r.answer)(answer);
        }
    }

    /// The parsed document, or None when it does not parse (the schema then reports the
    /// syntax error itself).
    pub fn get(&self, query: &str) -> Option<Arc<Parsed>> {
        // A poisoned lock only means another request panicked mid-insert of a whole entry;
        // the map itself is still sound.
        if let Some(hit) = self
            .docs
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(query)
        {
            return Some(hit.clone());
        }
        let mut doc = parse_query(query).ok()?;
        let marked = self
            .rewrite
            .as_ref()
            .is_some_and(|r| (r.document)(&mut doc));
        let asks_service =
            doc.operations.iter().any(|(_, op)| {
                op.node.selection_set.node.items.iter().any(
                    |s| matches!(&s.node, Selection::Field(f) if f.node.name.node == "_service"),
                )
            });
        let parsed = Arc::new(Parsed {
            defaults: defaults(&doc),
            doc,
            asks_service,
            marked,
        });
        let mut docs = self.docs.write().unwrap_or_else(|e| e.into_inner());
        if docs.len() < CAPACITY {
            docs.insert(query.to_string(), parsed.clone());
        }
        Some(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_and_spots_service_queries() {
        let cache = DocCache::default();
        let a = cache.get("{ _service { sdl } }").unwrap();
        assert!(a.asks_service);
        let b = cache.get("{ _service { sdl } }").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!cache.get("query Q { me { id } }").unwrap().asks_service);
        assert!(cache.get("{ me { ").is_none());
        let d = cache.get("query($a: Boolean = true, $b: Int) { me { id @include(if: $a) } }");
        let d = d.unwrap();
        assert_eq!(d.defaults.len(), 1);
        assert_eq!(
            (d.defaults[0].1.as_str(), &d.defaults[0].2),
            ("a", &async_graphql::Value::Boolean(true))
        );
    }
}
