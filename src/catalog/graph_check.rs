//! Operations checked against the graph a federation scenario sends them to, before
//! anything starts: each document is validated (apollo-compiler: the GraphQL spec's
//! validation rules) against the supergraph the gateways are given, so an operation that
//! names a field, argument or type the graph does not have is bad input naming its file,
//! line and column, not a run in which every gateway answers with errors.
//!
//! A supergraph declares its own federation directives, not the ones gateways add to the
//! API schema they serve: `@defer` and `@stream` are declared here when it lacks them; and
//! it keeps what is `@inaccessible`, which the API schema drops (so is it here).
use std::path::{Path, PathBuf};

use apollo_compiler::schema::ExtendedType;
use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Schema};

use crate::error::CatalogError;

/// Incremental delivery's directives as gateways serve them (Apollo Router, Hive Gateway).
const INCREMENTAL: &str = "
directive @defer(label: String, if: Boolean! = true) on FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @stream(label: String, if: Boolean! = true, initialCount: Int = 0) on FIELD
";

/// A supergraph, ready to check operations against.
pub struct GraphSchema {
    schema: Valid<Schema>,
    pub path: PathBuf,
}

impl GraphSchema {
    /// Reads the supergraph at `path`; one that cannot be read or parsed is named.
    pub fn load(path: &Path) -> Result<GraphSchema, CatalogError> {
        let bad = |message: String| CatalogError::File {
            file: path.to_path_buf(),
            message,
        };
        let mut text = std::fs::read_to_string(path)
            .map_err(|e| bad(format!("cannot read the supergraph: {e}")))?;
        if !text.contains("directive @defer") {
            text.push_str(INCREMENTAL);
        }
        let mut schema = match Schema::parse(text.as_str(), path) {
            Ok(s) => s,
            Err(e) => {
                let first = e.errors.iter().next().map(|d| location(&d.to_json()));
                return Err(bad(format!(
                    "not a GraphQL schema: {}",
                    first.unwrap_or_else(|| "a parse error".into())
                )));
            }
        };
        api_schema(&mut schema);
        let schema = match schema.validate() {
            Ok(s) => s,
            // A supergraph's federation metadata need not pass a plain schema's rules (its
            // `@link` imports); what operations are checked against is its types, which
            // parsed.
            Err(e) => Valid::assume_valid(e.partial),
        };
        Ok(GraphSchema {
            schema,
            path: path.to_path_buf(),
        })
    }

    /// The first problem of `document` (read from `file`) against the graph, as
    /// `file:line:column: message`.
    pub fn check(&self, document: &str, file: &Path) -> Result<(), String> {
        match ExecutableDocument::parse_and_validate(&self.schema, document, file) {
            Ok(_) => Ok(()),
            Err(e) => {
                let first = e
                    .errors
                    .iter()
                    .next()
                    .map(|d| location(&d.to_json()))
                    .unwrap_or_else(|| "invalid".into());
                Err(format!("{}:{first}", file.display()))
            }
        }
    }
}

/// The API schema's view of the supergraph's types: what is `@inaccessible` (a type, a
/// field, an argument, an enum value) is not there, as gateways serve it, so an operation
/// using it is refused here rather than by every gateway (and counted against them).
fn api_schema(schema: &mut Schema) {
    const HIDDEN: &str = "inaccessible";
    schema.types.retain(|_, t| !t.directives().has(HIDDEN));
    for t in schema.types.values_mut() {
        match t {
            ExtendedType::Object(o) => {
                let o = o.make_mut();
                o.fields.retain(|_, f| !f.directives.has(HIDDEN));
                for f in o.fields.values_mut() {
                    f.make_mut().arguments.retain(|a| !a.directives.has(HIDDEN));
                }
            }
            ExtendedType::Interface(i) => {
                let i = i.make_mut();
                i.fields.retain(|_, f| !f.directives.has(HIDDEN));
                for f in i.fields.values_mut() {
                    f.make_mut().arguments.retain(|a| !a.directives.has(HIDDEN));
                }
            }
            ExtendedType::Enum(e) => e.make_mut().values.retain(|_, v| !v.directives.has(HIDDEN)),
            ExtendedType::InputObject(i) => {
                i.make_mut().fields.retain(|_, f| !f.directives.has(HIDDEN))
            }
            _ => {}
        }
    }
}

/// `line:column: message` of an error (without a place: the message alone).
fn location(e: &apollo_compiler::response::GraphQLError) -> String {
    match e.locations.first() {
        Some(l) => format!("{}:{}: {}", l.line, l.column, e.message),
        None => format!(" {}", e.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> GraphSchema {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        GraphSchema::load(&root.join("scenarios/federation/supergraph.graphql")).unwrap()
    }

    #[test]
    fn the_suites_operations_pass_and_a_misspelled_field_is_placed() {
        let g = demo();
        let f = Path::new("q.graphql");
        assert_eq!(g.check("{ topProducts { upc name } }", f), Ok(()));
        // Deferred parts validate: the directive is declared for the check.
        assert_eq!(
            g.check("{ topProducts { upc ... @defer { name } } }", f),
            Ok(())
        );
        let e = g
            .check("query Q {\n  topProducts {\n    upc\n    nmae\n  }\n}", f)
            .unwrap_err();
        assert!(e.starts_with("q.graphql:4:5:"), "{e}");
        assert!(e.contains("nmae"), "{e}");
        let e = g.check("{ topProducts(frist: 2) { upc } }", f).unwrap_err();
        assert!(e.contains("frist"), "{e}");
        assert!(g.check("{ topProducts { upc ", f).is_err());
    }

    #[test]
    fn every_committed_federation_operation_fits_its_graph() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let wide =
            GraphSchema::load(&root.join("scenarios/federation/wide/supergraph.graphql")).unwrap();
        let mut checked = 0;
        for (dir, graph) in [("federation", demo()), ("federation-wide", wide)] {
            for entry in std::fs::read_dir(root.join("scenarios/queries").join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let doc = std::fs::read_to_string(&path).unwrap();
                assert_eq!(graph.check(&doc, &path), Ok(()), "{}", path.display());
                checked += 1;
            }
        }
        assert!(checked >= 7, "{checked}");
    }

    #[test]
    fn a_supergraph_that_cannot_be_read_or_parsed_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sg.graphql");
        std::fs::write(&p, "type Query {").unwrap();
        let e = GraphSchema::load(&p).err().unwrap().to_string();
        assert!(
            e.contains("sg.graphql") && e.contains("not a GraphQL schema"),
            "{e}"
        );
        let e = GraphSchema::load(&dir.path().join("none.graphql"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("cannot read"), "{e}");
    }
}
