//! What the mocks cannot serve as every correct gateway would see it, found before any
//! operation is walked: types with no one identity space (an implementation of two entity
//! interfaces, an `@interfaceObject` whose interface no subgraph keys), fields several subgraphs serve
//! whose types have no member in common (unions, interfaces, enums: `shared`), and keys that
//! cannot carry an entity's identity beside others (`identity`). An operation whose answer
//! goes through one is not checked (the walk says which and why), so no gateway is blamed
//! for the mock.
use std::collections::BTreeMap;

use super::Subgraph;
use crate::mock::model::{base_name, Key, Kind, Model};
use crate::mock::shared::members;

#[derive(Default)]
pub(super) struct Limits {
    /// Type → the construct and the subgraph it is in.
    types: BTreeMap<String, String>,
    /// `Type.field` → why its value depends on the subgraph.
    fields: BTreeMap<String, String>,
    /// `Type raw` → why a representation by that key finds another entity.
    keys: BTreeMap<String, String>,
}

/// What one subgraph serves for a shared field: (subgraph, its type, the type's members).
type Served<'a> = (&'a str, String, Vec<String>);

impl Limits {
    pub fn of(subgraphs: &[Subgraph]) -> Limits {
        let mut limits = Limits::default();
        for s in subgraphs {
            let keys = &s.mock.keys;
            for t in s.mock.model.types.values() {
                let interfaces: Vec<&str> = keys.interfaces_of(&t.name).collect();
                let why = if interfaces.len() > 1 {
                    format!(
                        "{} implements several entity interfaces ({}) in `{}`: no one identity names its concrete type in all of them",
                        t.name,
                        interfaces.join(", "),
                        s.name
                    )
                } else if t.interface_object && !keys.is_entity_interface(&t.name) {
                    format!(
                        "{} is an @interfaceObject in `{}`, but no subgraph defines the interface {} with a @key: nothing names its concrete type",
                        t.name, s.name, t.name
                    )
                } else {
                    continue;
                };
                limits.types.entry(t.name.clone()).or_insert(why);
            }
        }
        // Every field served (not `@external`) by more than one subgraph whose type has
        // members (a union, an interface, an enum), with what each gives.
        let mut served: BTreeMap<String, Vec<Served>> = BTreeMap::new();
        for s in subgraphs {
            for t in s.mock.model.types.values() {
                if !matches!(t.kind, Kind::Object | Kind::Interface) {
                    continue;
                }
                for f in t.fields.iter().filter(|f| !f.external) {
                    let name = base_name(&f.ty);
                    if let Some(m) = members(&s.mock.model, name) {
                        served
                            .entry(format!("{}.{}", t.name, f.name))
                            .or_default()
                            .push((&s.name, name.to_string(), m));
                    }
                }
            }
        }
        limits.keys = blind_keys(subgraphs);
        for (field, by) in served {
            // The mocks pick from the members all have (`shared`): none in common, no value.
            let common = by[0]
                .2
                .iter()
                .any(|x| by.iter().all(|(_, _, o)| o.contains(x)));
            if by.len() < 2 || common {
                continue;
            }
            let each: Vec<String> = by
                .iter()
                .map(|(sub, name, m)| format!("{name} = {} in `{sub}`", m.join(" | ")))
                .collect();
            limits.fields.insert(
                field.clone(),
                format!(
                    "{field} is served by several subgraphs whose types have no member in common ({}): no value is one all of them can return",
                    each.join("; ")
                ),
            );
        }
        limits
    }

    /// Why an answer cannot go through type `name`, if it cannot.
    pub fn of_type(&self, name: &str) -> Option<&str> {
        self.types.get(name).map(String::as_str)
    }

    /// Why an answer cannot fetch `ty` by its key `raw`, if it cannot.
    pub fn of_key(&self, ty: &str, raw: &str) -> Option<&str> {
        if self.keys.is_empty() {
            return None;
        }
        self.keys.get(&format!("{ty} {raw}")).map(String::as_str)
    }

    /// Why an answer cannot go through field `ty.name`, if it cannot.
    pub fn of_field(&self, ty: &str, name: &str) -> Option<&str> {
        if self.fields.is_empty() {
            return None;
        }
        self.fields.get(&format!("{ty}.{name}")).map(String::as_str)
    }
}

/// Keys that cannot carry an entity's identity (every field an enum or a Boolean) of types
/// with other keys: the mocks seed an entity reached by one by its values, so a gateway's
/// choice between it and another key would change the answer (`identity`).
fn blind_keys(subgraphs: &[Subgraph]) -> BTreeMap<String, String> {
    let mut raws: BTreeMap<&str, std::collections::BTreeSet<&str>> = BTreeMap::new();
    for s in subgraphs {
        for t in s.mock.model.types.values() {
            raws.entry(&t.name)
                .or_default()
                .extend(t.keys.iter().map(|k| k.raw.as_str()));
        }
    }
    let mut out = BTreeMap::new();
    for s in subgraphs {
        let m = &s.mock.model;
        for t in m.types.values() {
            if raws.get(t.name.as_str()).is_none_or(|r| r.len() < 2) {
                continue;
            }
            for k in t.keys.iter().filter(|k| !carries_identity(m, &t.name, k)) {
                out.entry(format!("{} {}", t.name, k.raw)).or_insert_with(|| {
                    format!(
                        "{}'s @key(fields: \"{}\") in `{}` holds only enums or Booleans, which cannot carry the entity's identity, and {} has other keys: the mocks would find another entity by it than by the others",
                        t.name, k.raw, s.name, t.name
                    )
                });
            }
        }
    }
    out
}

/// Whether some leaf of `key` has a type that can hold the identity (not an enum, not a
/// Boolean; through a list too, `identity::item`): a path this subgraph cannot follow
/// counts as one that can.
fn carries_identity(m: &Model, ty: &str, key: &Key) -> bool {
    key.paths.iter().any(|path| {
        let mut owner = ty;
        for f in path {
            let Some(def) = m.types.get(owner).and_then(|t| t.field(f)) else {
                return true;
            };
            owner = base_name(&def.ty);
        }
        owner != "Boolean" && !matches!(m.types.get(owner).map(|t| &t.kind), Some(Kind::Enum(_)))
    })
}
