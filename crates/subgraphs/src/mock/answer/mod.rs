//! Expected answers computed from the mocks: the `data` a correct gateway returns for an
//! operation on a graph of mock subgraphs, computed in-process without a gateway, so that
//! every gateway's answer can be checked against it. The walk does what a gateway's query
//! plan does (root fields on a subgraph that defines them, `_entities` with a key and the
//! `@requires` values on the subgraph that owns a field) and asks each subgraph's `Mock`
//! for the values, the same derivation the served mocks run (docs/own-graph.md).

mod limits;
mod operation;
mod walk;

use std::collections::HashMap;
use std::path::Path;

use async_graphql::parser::parse_query;
use async_graphql::parser::types::SelectionSet;
use serde_json::{Map, Value as Json};

use super::model::{FieldDef, Kind};
use super::resolve::Mock;
use super::subgraph::{ensure_lists_served, graph_mocks, sdl_files};
use super::MockConfig;

/// All the subgraphs of one graph, as the mocks serve them.
pub struct Graph {
    subgraphs: Vec<Subgraph>,
    limits: limits::Limits,
}

/// Why an operation's answer was not computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerError {
    /// It goes through something the mocks cannot serve as every correct gateway would
    /// see it (`limits`): the operation cannot be checked, which is no fault of it.
    Unsupported(String),
    /// Anything else (a field the graph lacks, a list too long, ...).
    Failed(String),
}

impl std::fmt::Display for AnswerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnswerError::Unsupported(m) => {
                write!(f, "the mock subgraphs cannot serve it consistently: {m}")
            }
            AnswerError::Failed(m) => f.write_str(m),
        }
    }
}

struct Subgraph {
    name: String,
    mock: Mock,
    /// Each `@requires` field set parsed as a selection, by `Type.field`: what a gateway
    /// fetches for the representation.
    requires: HashMap<String, SelectionSet>,
    /// Each nested `@key` field set parsed as a selection, by `Type raw`.
    keys: HashMap<String, SelectionSet>,
}

impl Graph {
    /// The graph of `subgraphs`, each (name, file for errors, SDL), in the order given: a
    /// root field several define is taken from the first (shareable: the values agree).
    /// `config`'s list lengths apply as `MockSubgraph::new` applies them.
    pub fn new(
        subgraphs: Vec<(String, String, String)>,
        config: &MockConfig,
    ) -> anyhow::Result<Graph> {
        Graph::build(subgraphs, config, "given")
    }

    /// Every `*.graphql` file of `dir`, by name, each a subgraph named by its file stem:
    /// the files `MockSubgraph::load_dir` serves.
    pub fn load_dir(dir: &Path, config: &MockConfig) -> anyhow::Result<Graph> {
        Graph::build(sdl_files(dir)?, config, &format!("in {}", dir.display()))
    }

    fn build(
        subgraphs: Vec<(String, String, String)>,
        config: &MockConfig,
        place: &str,
    ) -> anyhow::Result<Graph> {
        anyhow::ensure!(!subgraphs.is_empty(), "a graph needs at least one subgraph");
        let mut out = Vec::new();
        let mocks = graph_mocks(&subgraphs, config)?;
        for ((name, file, _), mock) in subgraphs.into_iter().zip(mocks) {
            let mut requires = HashMap::new();
            let mut keys = HashMap::new();
            for t in mock.model.types.values() {
                for k in t.keys.iter().filter(|k| k.raw.contains('{')) {
                    let set = field_set(&k.raw).map_err(|e| {
                        anyhow::anyhow!("{file}: @key(fields: \"{}\") of {}: {e}", k.raw, t.name)
                    })?;
                    keys.insert(format!("{} {}", t.name, k.raw), set);
                }
                for f in t.fields.iter().filter(|f| !f.requires_set.is_empty()) {
                    let set = field_set(&f.requires_set).map_err(|e| {
                        anyhow::anyhow!(
                            "{file}: @requires(fields: \"{}\") of {}.{}: {e}",
                            f.requires_set,
                            t.name,
                            f.name
                        )
                    })?;
                    requires.insert(format!("{}.{}", t.name, f.name), set);
                }
            }
            out.push(Subgraph {
                name,
                mock,
                requires,
                keys,
            });
        }
        ensure_lists_served(config, out.iter().map(|s| &s.mock), place)?;
        for path in config.costs.keys() {
            let known = path.split_once('.').is_some_and(|(t, f)| {
                out.iter().any(|s| {
                    s.mock
                        .model
                        .types
                        .get(t)
                        .is_some_and(|t| t.field(f).is_some())
                })
            });
            anyhow::ensure!(
                known,
                "the cost for {path} names no field of an object type of the SDL files {place}"
            );
        }
        let limits = limits::Limits::of(&out);
        Ok(Graph {
            subgraphs: out,
            limits,
        })
    }

    /// What the mocks do not honour, one line per field, each naming its subgraph.
    pub fn warnings(&self) -> Vec<String> {
        self.subgraphs
            .iter()
            .flat_map(|s| {
                s.mock
                    .model
                    .warnings
                    .iter()
                    .map(move |w| format!("{}: {w}", s.name))
            })
            .collect()
    }

    /// The subgraphs' names, in the order the graph consults them.
    pub fn subgraph_names(&self) -> Vec<&str> {
        self.subgraphs.iter().map(|s| s.name.as_str()).collect()
    }

    /// The `data` a correct gateway returns for `document` (operation `operation_name`
    /// when it has several) with `variables`; Err names what cannot be computed, with the
    /// response path where there is one (`topProducts.0.reviews: ...`).
    pub fn expected(
        &self,
        document: &str,
        operation_name: Option<&str>,
        variables: &Map<String, Json>,
    ) -> Result<Json, String> {
        self.answer(document, operation_name, variables)
            .map_err(|e| e.to_string())
    }

    /// [`Graph::expected`], telling an operation the mocks cannot serve consistently
    /// (`AnswerError::Unsupported`, naming the construct and the response path) from one
    /// that fails.
    pub fn answer(
        &self,
        document: &str,
        operation_name: Option<&str>,
        variables: &Map<String, Json>,
    ) -> Result<Json, AnswerError> {
        let doc = parse_query(document).map_err(|e| {
            let at = e
                .positions()
                .next()
                .map(|p| format!("{}:{}: ", p.line, p.column))
                .unwrap_or_default();
            AnswerError::Failed(format!("the operation does not parse: {at}{e}"))
        })?;
        let op =
            operation::Op::new(&doc, operation_name, variables).map_err(AnswerError::Failed)?;
        let walk = walk::Walk::new(self, &op);
        let data = walk.run();
        match walk.unsupported() {
            Some(why) => Err(AnswerError::Unsupported(why)),
            None => data.map_err(AnswerError::Failed),
        }
    }

    /// `Type.field` as subgraph `sub` defines it.
    /// Whether any subgraph gives `type_name` a `@key`: an entity, fetched by its key,
    /// rather than a value type reached from its parent.
    fn is_entity(&self, type_name: &str) -> bool {
        self.subgraphs.iter().any(|s| {
            s.mock
                .model
                .types
                .get(type_name)
                .is_some_and(|t| !t.keys.is_empty())
        })
    }

    /// Whether `type_name` is an `@interfaceObject` in subgraph `sub`.
    fn is_interface_object(&self, sub: usize, type_name: &str) -> bool {
        let types = &self.subgraphs[sub].mock.model.types;
        types.get(type_name).is_some_and(|t| t.interface_object)
    }

    /// Whether subgraph `sub` resolves entity interface `type_name` by a key.
    fn keys_interface(&self, sub: usize, type_name: &str) -> bool {
        let types = &self.subgraphs[sub].mock.model.types;
        types.get(type_name).is_some_and(|t| {
            matches!(t.kind, Kind::Interface) && t.keys.iter().any(|k| k.resolvable)
        })
    }

    /// The type whose identities `type_name`'s are (`identity::Keys::identity_type`): the
    /// keys are the graph's, the same in every subgraph's mock.
    fn identity_type<'t>(&'t self, type_name: &'t str) -> &'t str {
        self.subgraphs[0].mock.keys.identity_type(type_name)
    }

    fn def(&self, sub: usize, type_name: &str, field: &str) -> Option<&FieldDef> {
        self.subgraphs[sub]
            .mock
            .model
            .types
            .get(type_name)?
            .field(field)
    }

    /// Whether a fragment on `condition` applies to an object of type `concrete`: the
    /// same type, an interface it implements or a union it is a member of, in any subgraph
    /// (the supergraph's view).
    fn applies(&self, condition: &str, concrete: &str) -> Result<bool, String> {
        if condition == concrete {
            return Ok(true);
        }
        let mut known = false;
        for s in &self.subgraphs {
            let types = &s.mock.model.types;
            if let Some(c) = types.get(condition) {
                known = true;
                if let Kind::Union(members) = &c.kind {
                    if members.iter().any(|m| m == concrete) {
                        return Ok(true);
                    }
                }
            }
            if types
                .get(concrete)
                .is_some_and(|t| t.implements.iter().any(|i| i == condition))
            {
                return Ok(true);
            }
        }
        if known {
            Ok(false)
        } else {
            Err(format!("unknown type `{condition}` in a type condition"))
        }
    }
}

/// A federation field set (`"price dimensions { weight }"`) as a selection set.
fn field_set(set: &str) -> Result<SelectionSet, String> {
    let doc = parse_query(format!("{{ {set} }}")).map_err(|e| e.to_string())?;
    let op = doc.operations.iter().next().ok_or("no selection")?.1;
    Ok(op.node.selection_set.node.clone())
}
