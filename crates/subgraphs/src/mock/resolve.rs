//! How each value of a mock subgraph is derived from its parent's seed (see
//! docs/own-graph.md): an entity's fields from its type and identity key values, a plain
//! object's from its parent's seed, the field name, the arguments and the list index; a
//! nullable value null by its seed (one in `null_every`), a list as long as `[lists]` or a
//! page argument says.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_graphql::dynamic::FieldValue;
use async_graphql::parser::types::{BaseType, Type};
use async_graphql::Value;
use serde_json::{Map, Value as Json};

use super::arguments::{as_typed, page_of, seeded_args, PAGED};
use super::model::{base_name, FieldDef, Key, Kind, Model, TypeDef};
use super::{identity, seed, shared, values};

/// The parent value every field resolver reads.
#[derive(Debug, Clone)]
pub struct Node {
    pub type_name: String,
    pub seed: u64,
    /// Values given rather than derived: an entity's key fields and, from a representation,
    /// its `@requires` fields. Served as they are, so a key round-trips unchanged.
    pub known: Map<String, Json>,
    /// The page size its field's arguments asked for (`products(first: 5)` returning a
    /// connection): the length of its `edges`, `nodes` or `items`.
    pub page: Option<usize>,
}

/// The parsed subgraph and its list lengths: everything a resolver needs.
#[derive(Debug)]
pub struct Mock {
    pub model: Model,
    /// The key fields of the whole graph, each an encoding of its entity's identity (one
    /// copy for all the graph's mocks).
    pub keys: Arc<identity::Keys>,
    /// The members shared fields of the whole graph pick from.
    pub shared: Arc<shared::Shared>,
    pub default_list: usize,
    /// By `Type.field`.
    pub lists: BTreeMap<String, usize>,
    /// One nullable value in this many is null (0: none); `FieldDef::nulls` says which
    /// fields may be.
    pub null_every: u64,
}

/// Salts the seed of a value that may be null, so whether it is does not follow the value.
const NULL_SALT: u64 = 0x6e75_6c6c_6e75_6c6c;

type Res<T> = async_graphql::Result<T>;

/// A field's value before async-graphql sees it: plain data, since a `FieldValue` given a
/// type (an interface's or union's object) cannot be read back outside async-graphql.
#[derive(Debug, Clone)]
pub enum Plain {
    Leaf(Json),
    /// `typed` when the field returns an interface or union: async-graphql then wants the
    /// object type named; for an object type it wants the bare value.
    Object {
        node: Node,
        typed: bool,
    },
    List(Vec<Plain>),
}

impl Plain {
    fn into_field_value(self) -> Res<FieldValue<'static>> {
        Ok(match self {
            Plain::Leaf(v) => FieldValue::value(Value::from_json(v)?),
            Plain::Object { node, typed: false } => FieldValue::owned_any(node),
            Plain::Object { node, typed: true } => {
                let name = node.type_name.clone();
                FieldValue::owned_any(node).with_type(name)
            }
            Plain::List(items) => FieldValue::list(
                items
                    .into_iter()
                    .map(Plain::into_field_value)
                    .collect::<Res<Vec<_>>>()?,
            ),
        })
    }
}

impl Mock {
    /// The root object of type `name` (Query, Mutation): one fixed seed per root type.
    pub fn root(name: &str) -> Node {
        Node {
            type_name: name.to_string(),
            seed: seed::mix(0, name),
            known: Map::new(),
            page: None,
        }
    }

    /// What the resolver of `owner.field` returns: None for a null (async-graphql's null
    /// for any type; a null *value* would be taken for an object's parent).
    pub fn field(
        &self,
        owner: &str,
        field: &FieldDef,
        node: &Node,
        args: &Map<String, Json>,
    ) -> Res<Option<FieldValue<'static>>> {
        match self.plain(owner, field, node, args)? {
            Plain::Leaf(Json::Null) => Ok(None),
            plain => plain.into_field_value().map(Some),
        }
    }

    /// The value `field` serves, as plain data: what `answer` walks to compute a gateway's
    /// expected answer in-process, from this one derivation.
    pub fn plain(
        &self,
        owner: &str,
        field: &FieldDef,
        node: &Node,
        args: &Map<String, Json>,
    ) -> Res<Plain> {
        let given = node.known.get(&field.name);
        if let Some(v) = given {
            let named = base_name(&field.ty);
            if self.is_leaf(named) {
                return Ok(Plain::Leaf(as_typed(named, v)));
            }
        }
        let args = &seeded_args(field, args);
        let mut s = seed::mix(node.seed, &field.name);
        if !args.is_empty() {
            s = seed::mix(s, &seed::canonical_map(args));
        }
        if !field.requires.is_empty() {
            // The required (external) values come from the owner through the gateway, so a
            // different value there gives a different value here, as a real computation would.
            // Only what the field set selects: a gateway may add `__typename` or keys
            // inside a nested selection (`lead { isAvailable }`), which must not count.
            let required = seed::project(&field.requires_set, &node.known);
            s = seed::mix(s, &seed::canonical_map(&required));
        }
        // Not a value given (a nested key's object): a key is never null.
        if field.nulls && self.is_null(s) && given.is_none() {
            return Ok(Plain::Leaf(Json::Null));
        }
        if let Some(node) = self.by_arguments(&field.ty, args) {
            return Ok(Plain::Object { node, typed: false });
        }
        // What a page argument asks (as given, or its SDL default), here or on the
        // connection above; a length set for the field (`[lists]`) is the user's word.
        // (`configured` formats a key: asked only when there is a page.)
        let page = page_of(field, args)
            .or_else(|| {
                node.page.filter(|_| {
                    PAGED.contains(&field.name.as_str()) && identity::is_list(&field.ty)
                })
            })
            .filter(|_| !self.configured(owner, &field.name));
        // A key list given (`products { id }`) is as long as given.
        let page = match given {
            Some(Json::Array(given)) if identity::is_list(&field.ty) => Some(given.len()),
            _ => page,
        };
        let mut value = self.value(owner, &field.name, &field.ty, s, page)?;
        // A page asked of a field returning one object (a connection) sizes its lists.
        if let (Some(_), Plain::Object { node: child, .. }) = (page, &mut value) {
            child.page = page;
        }
        Ok(match given {
            Some(g) => self.given_over(g, value),
            None => value,
        })
    }

    /// A value given with its entity laid over the derived one: a nested key's object
    /// (`variation { id }`) serves its values as given and is that entity when it is one;
    /// a key list's items (`products { id }`) each the entity its values name, as many as
    /// were given (the list's length, above).
    fn given_over(&self, given: &Json, value: Plain) -> Plain {
        match (given, value) {
            (Json::Object(g), Plain::Object { node, typed }) => Plain::Object {
                node: self.with_given(node, g),
                typed,
            },
            (Json::Array(g), Plain::List(items)) => Plain::List(
                g.iter()
                    .zip(items)
                    .map(|(g, item)| self.given_over(g, item))
                    .collect(),
            ),
            (_, value) => value,
        }
    }

    fn with_given(&self, mut child: Node, given: &Map<String, Json>) -> Node {
        let key = self
            .model
            .types
            .get(&child.type_name)
            .and_then(|t| t.keys.first());
        match key {
            Some(k) if identity::find(given, self.keys.paths(&child.type_name)).is_some() => {
                self.identified(&child.type_name, given.clone(), k)
            }
            _ => {
                child.known.extend(given.clone());
                child
            }
        }
    }

    /// `product(upc: "1")`: a field returning one entity whose arguments carry one of its
    /// keys returns that very entity, the one `_entities` gives for the same key.
    fn by_arguments(&self, ty: &Type, args: &Map<String, Json>) -> Option<Node> {
        let BaseType::Named(name) = &ty.base else {
            return None;
        };
        let t = self.model.types.get(name.as_str())?;
        let carried = |k: &&Key| {
            k.paths.iter().all(|p| p.len() == 1)
                && k.fields
                    .iter()
                    .all(|f| args.get(f).is_some_and(|v| !v.is_null()))
        };
        let key = t.keys.iter().find(carried)?;
        let given: Map<String, Json> = key
            .fields
            .iter()
            .filter_map(|f| args.get(f).map(|v| (f.clone(), v.clone())))
            .collect();
        Some(self.identified(&t.name, given, key))
    }

    /// The entity of type `ty` whose values `given` (a representation, arguments) carry
    /// `key`: its identity decoded from them (`identity`), its key fields derived from it
    /// and the given values served as given. A key that carries no identity (only enums
    /// or Booleans) seeds the entity by its values.
    pub(super) fn identified(&self, ty: &str, given: Map<String, Json>, key: &Key) -> Node {
        let found = identity::find(&given, key.paths.iter().chain(self.keys.paths(ty)));
        let Some(n) = found else {
            let values: Map<String, Json> = key
                .fields
                .iter()
                .filter_map(|f| given.get(f).map(|v| (f.clone(), v.clone())))
                .collect();
            return Node {
                type_name: ty.to_string(),
                seed: seed::entity(ty, &Json::Object(values)),
                known: given,
                page: None,
            };
        };
        let mut known = self
            .keys
            .values(&self.model, ty, n, &|o, f| self.list_len(o, f));
        known.extend(given);
        Node {
            type_name: ty.to_string(),
            seed: identity::seed_of(self.keys.identity_type(ty), n),
            known,
            page: None,
        }
    }

    /// Whether `owner.field` has a length of its own (`--list Type.field=n`).
    fn configured(&self, owner: &str, field: &str) -> bool {
        !self.lists.is_empty() && self.lists.contains_key(&format!("{owner}.{field}"))
    }

    /// A list field's length: its own (`--list Type.field=n`) or the default. The key is
    /// only formatted when some length is set: this runs for every list of every request.
    fn list_len(&self, owner: &str, field: &str) -> usize {
        if self.lists.is_empty() {
            return self.default_list;
        }
        let path = format!("{owner}.{field}");
        self.lists.get(&path).copied().unwrap_or(self.default_list)
    }

    /// Whether a value that may be null is, by its seed.
    fn is_null(&self, s: u64) -> bool {
        self.null_every > 0 && seed::salted(s, NULL_SALT).is_multiple_of(self.null_every)
    }

    /// The value of type `ty`; `page`: the length its arguments ask of the list it is.
    fn value(
        &self,
        owner: &str,
        field: &str,
        ty: &Type,
        s: u64,
        page: Option<usize>,
    ) -> Res<Plain> {
        match &ty.base {
            BaseType::List(inner) => {
                let n = page.unwrap_or_else(|| self.list_len(owner, field));
                let items: Res<Vec<_>> = (0..n)
                    .map(|i| self.value(owner, field, inner, seed::mix_index(s, i), None))
                    .collect();
                Ok(Plain::List(items?))
            }
            BaseType::Named(name) => self.named(name, owner, field, s),
        }
    }

    fn named(&self, name: &str, owner: &str, field: &str, s: u64) -> Res<Plain> {
        let Some(t) = self.model.types.get(name) else {
            return Ok(Plain::Leaf(values::scalar(name, owner, field, s)));
        };
        match &t.kind {
            Kind::Object => Ok(Plain::Object {
                node: self.object(t, s),
                typed: false,
            }),
            Kind::Interface | Kind::Union(_) => {
                // In name order, and only the members every subgraph serving the field
                // has (`shared`): each picks the same one with the same seed.
                let options: Vec<&TypeDef> = match self.shared.common(owner, field) {
                    Some(common) => common
                        .iter()
                        .filter_map(|m| self.model.types.get(m))
                        .collect(),
                    None => match &t.kind {
                        Kind::Union(members) => {
                            let mut m: Vec<&TypeDef> = members
                                .iter()
                                .filter_map(|m| self.model.types.get(m))
                                .collect();
                            m.sort_by(|a, b| a.name.cmp(&b.name));
                            m
                        }
                        _ => self.model.implementers(&t.name).collect(),
                    },
                };
                if options.is_empty() {
                    return Err(format!("{name} has no object type to return").into());
                }
                // An entity interface's value is an identity first, and its concrete type
                // the one every subgraph names for it (`identity::Keys::concrete`).
                // (Only a member the field may return here: another would be refused.)
                // (Hashed only for an entity interface: this runs per abstract value.)
                let by_identity = self
                    .keys
                    .is_entity_interface(name)
                    .then(|| self.keys.concrete(name, identity::from_parent(s)))
                    .flatten()
                    .and_then(|c| options.iter().copied().find(|o| o.name == c));
                let chosen = match by_identity {
                    Some(t) => t,
                    None => options[(s % options.len() as u64) as usize],
                };
                Ok(Plain::Object {
                    node: self.object(chosen, s),
                    typed: true,
                })
            }
            Kind::Enum(_) => match self.shared.common(owner, field) {
                Some(common) if !common.is_empty() => Ok(Plain::Leaf(Json::String(
                    common[(s % common.len() as u64) as usize].clone(),
                ))),
                _ => Ok(Plain::Leaf(self.leaf(t, field, s))),
            },
            _ => Ok(Plain::Leaf(self.leaf(t, field, s))),
        }
    }

    /// An object reached from a parent: an entity gets its identity from the parent's seed
    /// `s` and everything else from its own seed; a plain object is seeded by `s`.
    fn object(&self, t: &TypeDef, s: u64) -> Node {
        if !self.keys.is_entity(&t.name) {
            return Node {
                type_name: t.name.clone(),
                seed: s,
                known: Map::new(),
                page: None,
            };
        }
        let n = self.keys.fit(&t.name, identity::from_parent(s));
        Node {
            type_name: t.name.clone(),
            seed: identity::seed_of(self.keys.identity_type(&t.name), n),
            known: self
                .keys
                .values(&self.model, &t.name, n, &|o, f| self.list_len(o, f)),
            page: None,
        }
    }

    /// An enum member or a custom scalar's value.
    fn leaf(&self, t: &TypeDef, field: &str, s: u64) -> Json {
        match &t.kind {
            Kind::Enum(members) if !members.is_empty() => {
                Json::String(members[(s % members.len() as u64) as usize].clone())
            }
            _ => values::scalar(&t.name, &t.name, field, s),
        }
    }

    fn is_leaf(&self, name: &str) -> bool {
        self.model
            .types
            .get(name)
            .is_none_or(|t| matches!(t.kind, Kind::Enum(_) | Kind::Scalar))
    }
}
