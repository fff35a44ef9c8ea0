//! The walk of one operation over the graph, as a gateway's query plan runs it: each field
//! is resolved in the subgraph that produced its parent when that subgraph serves it, else
//! fetched with `_entities` from a subgraph that owns it, by a representation built as a
//! gateway builds one (`__typename`, a resolvable key, the `@requires` values). A value
//! type (no `@key`) whose field another subgraph serves is reached there as a gateway
//! reaches it: from its nearest entity (or root) ancestor, down the same fields.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use async_graphql::parser::types::{Field, SelectionSet};
use serde_json::{Map, Value as Json};

use super::operation::Op;
use super::Graph;
use crate::mock::model::{base_name, FieldDef};
use crate::mock::resolve::{Mock, Node, Plain};

mod elsewhere;
mod representation;

/// Representations built inside one another (a key or required field that itself needs a
/// fetch): more than this means the fields lead back to themselves.
const MAX_DEPTH: usize = 16;

/// Leaf values an answer may hold: each takes at least 4 bytes of JSON, so more than this
/// is over the 64 MiB an answer may be; counting stops the walk before memory runs out.
pub const MAX_VALUES: usize = 16 << 20;

pub(super) struct Walk<'a> {
    graph: &'a Graph,
    op: &'a Op<'a>,
    depth: Cell<usize>,
    values: Cell<usize>,
    /// Set when the walk reached what the mocks cannot serve consistently (`limits`):
    /// the error it returns then means "not checkable", not "wrong".
    unsupported: RefCell<Option<String>>,
}

/// A parent object where the walk stands: the subgraph that produced it and its value
/// there.
#[derive(Clone)]
struct At {
    sub: usize,
    node: Node,
    /// `@provides` of the field that returned it: fields served here although external.
    provided: Vec<String>,
    /// How it was reached from its nearest entity or root ancestor (none for a root or an
    /// object fetched by `_entities`).
    lineage: Option<Rc<Lineage>>,
}

/// The way down from an entity (or root) object to a value-type object.
struct Lineage {
    base: At,
    steps: Vec<Step>,
}

/// One field of a lineage: its name, its arguments, and the list indices taken in its
/// value (none for a field returning one object).
#[derive(Clone)]
struct Step {
    field: String,
    args: Map<String, Json>,
    indices: Vec<usize>,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl<'a> Walk<'a> {
    pub fn new(graph: &'a Graph, op: &'a Op<'a>) -> Walk<'a> {
        Walk {
            graph,
            op,
            depth: Cell::new(0),
            values: Cell::new(0),
            unsupported: RefCell::new(None),
        }
    }

    /// Why the walk stopped at something the mocks cannot serve consistently, if it did.
    pub fn unsupported(&self) -> Option<String> {
        self.unsupported.borrow().clone()
    }

    /// Stops the walk at `path` for `why` (from `limits`): the error to return.
    fn cannot(&self, path: &str, why: &str) -> String {
        let msg = if path.is_empty() {
            why.to_string()
        } else {
            format!("at {path}: {why}")
        };
        self.unsupported.borrow_mut().get_or_insert(msg.clone());
        msg
    }

    /// The operation's `data`. The root value is the same in every subgraph; each root
    /// field then goes to a subgraph that defines it.
    pub fn run(&self) -> Result<Json, String> {
        let at = At {
            sub: 0,
            node: Mock::root(self.op.root()?),
            provided: Vec::new(),
            lineage: None,
        };
        self.selections(&at, &[&self.op.op.selection_set.node], "")
    }

    fn selections(&self, at: &At, sets: &[&'a SelectionSet], path: &str) -> Result<Json, String> {
        if let Some(why) = self.graph.limits.of_type(&at.node.type_name) {
            return Err(self.cannot(path, why));
        }
        let concretized;
        let at = if self.graph.is_interface_object(at.sub, &at.node.type_name) {
            concretized = self.concretize(at, path)?;
            &concretized
        } else {
            at
        };
        let concrete = at.node.type_name.as_str();
        if let Some(why) = self.graph.limits.of_type(concrete) {
            return Err(self.cannot(path, why));
        }
        let applies = |condition: &str| self.graph.applies(condition, concrete);
        let groups = self.op.collect(sets, &applies).map_err(|e| match path {
            "" => e,
            _ => format!("{path}: {e}"),
        })?;
        let mut out = Map::new();
        for (key, fields) in groups {
            let p = join(path, &key);
            let f = &fields[0].node;
            let v = if f.name.node == "__typename" {
                Json::String(concrete.to_string())
            } else if f.name.node.starts_with("__") {
                // `__schema`, `__type`: the gateway's API schema, not data the mocks hold.
                return Err(self.cannot(
                    &p,
                    &format!(
                        "{} is introspection, which is not computed from the mocks",
                        f.name.node
                    ),
                ));
            } else {
                // Repeated response keys: one field, the selections of all merged.
                let sets: Vec<&'a SelectionSet> =
                    fields.iter().map(|f| &f.node.selection_set.node).collect();
                self.resolve(at, &f.name.node, Some(f), &sets, &p)?
            };
            out.insert(key, v);
        }
        Ok(Json::Object(out))
    }

    /// Field `name` of the object `at`, with the arguments of the client's `given` field.
    fn resolve(
        &self,
        at: &At,
        name: &str,
        given: Option<&Field>,
        sets: &[&'a SelectionSet],
        path: &str,
    ) -> Result<Json, String> {
        let limits = &self.graph.limits;
        if let Some(why) = limits.of_field(&at.node.type_name, name) {
            return Err(self.cannot(path, why));
        }
        let here = self.locate(at, name, path)?;
        let ty = here.node.type_name.as_str();
        let def = self
            .graph
            .def(here.sub, ty, name)
            .ok_or_else(|| format!("{path}: internal: {ty}.{name} located where undefined"))?;
        if let Some(why) = limits.of_type(base_name(&def.ty)) {
            return Err(self.cannot(path, why));
        }
        // The serving subgraph's SDL defaults fill the arguments not written, as there.
        let args = self
            .op
            .arguments(given, &def.args)
            .map_err(|e| format!("{path}: {ty}.{name}: {e}"))?;
        let mock = &self.graph.subgraphs[here.sub].mock;
        let plain = mock
            .plain(ty, def, &here.node, &args)
            .map_err(|e| format!("{path}: {}", e.message))?;
        let step = Step {
            field: name.to_string(),
            args,
            indices: Vec::new(),
        };
        self.complete(&here, def, plain, sets, path, step)
    }

    /// The value of field `def` of `parent`, reached by `step` (its indices filled in as
    /// lists are walked).
    fn complete(
        &self,
        parent: &At,
        def: &FieldDef,
        plain: Plain,
        sets: &[&'a SelectionSet],
        path: &str,
        step: Step,
    ) -> Result<Json, String> {
        let sub = parent.sub;
        let selected = sets.iter().any(|s| !s.items.is_empty());
        match plain {
            // A nullable field's null: nothing below it is fetched.
            Plain::Leaf(Json::Null) => Ok(Json::Null),
            Plain::Leaf(_) if selected => Err(format!(
                "{path}: {} is a leaf and takes no selection",
                def.name
            )),
            Plain::Leaf(v) => {
                self.values.set(self.values.get() + 1);
                if self.values.get() > MAX_VALUES {
                    return Err(format!(
                        "{path}: the answer would hold more than {MAX_VALUES} values, over 64 MiB; shorten the lists it reaches"
                    ));
                }
                Ok(v)
            }
            Plain::List(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, item)| {
                    let mut step = step.clone();
                    step.indices.push(i);
                    self.complete(parent, def, item, sets, &join(path, &i.to_string()), step)
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Json::Array),
            Plain::Object { node, .. } if !selected => Err(format!(
                "{path}: {} returns the object type {}, which needs a selection",
                def.name, node.type_name
            )),
            Plain::Object { node, .. } => {
                // From the nearest entity or root ancestor. An entity's own is kept too: a
                // gateway reaches a field no subgraph resolves it by a key for through
                // that ancestor (a parent entity call).
                let parent_is_base =
                    parent.lineage.is_none() || self.graph.is_entity(&parent.node.type_name);
                let lineage = Some(Rc::new(match &parent.lineage {
                    Some(l) if !parent_is_base => Lineage {
                        base: l.base.clone(),
                        steps: l.steps.iter().cloned().chain([step.clone()]).collect(),
                    },
                    _ => Lineage {
                        base: parent.clone(),
                        steps: vec![step.clone()],
                    },
                }));
                let at = At {
                    sub,
                    node,
                    provided: def.provides.clone(),
                    lineage,
                };
                self.selections(&at, sets, path)
            }
        }
    }

    /// Whether the subgraph that produced `at` serves its field `name` itself: it defines
    /// it, not as `@external` (unless the value was given to it: a key, a required value,
    /// a provided field), and needs no `@requires` values the gateway must fetch first.
    fn serves_here(&self, at: &At, name: &str) -> bool {
        self.graph
            .def(at.sub, &at.node.type_name, name)
            .is_some_and(|def| {
                let given =
                    at.node.known.contains_key(name) || at.provided.iter().any(|p| p == name);
                def.requires.is_empty() && (!def.external || given)
            })
    }

    /// Where field `name` of `at` is resolved: `at` itself, a root value in another
    /// subgraph, or the entity `_entities` returns in a subgraph that owns the field.
    fn locate(&self, at: &At, name: &str, path: &str) -> Result<At, String> {
        if self.serves_here(at, name) {
            return Ok(at.clone());
        }
        let g = self.graph;
        let n = g.subgraphs.len();
        let ty = at.node.type_name.as_str();
        let owns = |s: usize| g.def(s, ty, name).is_some_and(|d| !d.external);
        if ty == "Query" || ty == "Mutation" {
            let sub = (0..n)
                .find(|&s| owns(s))
                .ok_or_else(|| format!("{path}: no subgraph defines {ty}.{name}"))?;
            return Ok(At {
                sub,
                node: Mock::root(ty),
                provided: Vec::new(),
                lineage: None,
            });
        }
        // A field of an entity interface's implementation that only the `@interfaceObject`s
        // standing for the interface serve: asked of them as the interface, by its key.
        let id_ty = g.identity_type(ty);
        if id_ty != ty
            && !(0..n).any(|s| g.def(s, ty, name).is_some())
            && (0..n).any(|s| g.def(s, id_ty, name).is_some())
        {
            let mut view = at.clone();
            view.node.type_name = id_ty.to_string();
            return self.locate(&view, name, path);
        }
        let entity = self.graph.is_entity(ty);
        let via_ancestor = || {
            let l = at.lineage.as_ref()?;
            let s = (0..n).find(|&s| s != at.sub && owns(s))?;
            Some(self.relocate(at, l, s, path))
        };
        if !entity {
            if let Some(r) = via_ancestor() {
                return r;
            }
        }
        let resolvable = |s: usize| {
            g.subgraphs[s]
                .mock
                .model
                .types
                .get(ty)
                .is_some_and(|t| t.keys.iter().any(|k| k.resolvable))
        };
        // The current subgraph first: it owns a `@requires` field whose values the gateway
        // fetches elsewhere, then calls `_entities` on it again.
        let Some(t) = std::iter::once(at.sub)
            .chain(0..n)
            .find(|&s| owns(s) && resolvable(s))
        else {
            if let Some(r) = via_ancestor() {
                return r;
            }
            let here = &g.subgraphs[at.sub].name;
            return Err(if !(0..n).any(|s| g.def(s, ty, name).is_some()) {
                format!("{path}: no subgraph defines {ty}.{name}")
            } else if !(0..n).any(resolvable) {
                format!(
                    "{path}: subgraph `{here}` returned this {ty} and does not serve {ty}.{name}; \
                     {ty} has no resolvable @key to fetch it elsewhere"
                )
            } else {
                format!("{path}: no subgraph both serves {ty}.{name} and resolves {ty} by a key")
            });
        };
        // A key field itself, missing here: every key `t` resolves by holds it, so its
        // representation would need the very value asked for. A gateway takes it from a
        // subgraph where the type is a value type, through the parent.
        let keyed_by_it = g.subgraphs[t].mock.model.types.get(ty).is_some_and(|d| {
            d.keys
                .iter()
                .filter(|k| k.resolvable)
                .all(|k| k.fields.iter().any(|f| f == name))
        });
        if keyed_by_it {
            if let Some(r) = via_ancestor() {
                return r;
            }
        }
        self.fetch(at, t, name, path, "")
    }
}
