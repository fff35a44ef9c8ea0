//! What the mocks cannot serve as every correct gateway would see it, found before any
//! operation is walked: types whose construct the mock does not serve (an entity
//! interface, `@interfaceObject`: recorded by the model), fields several subgraphs serve
//! whose values would differ with the subgraph a gateway asks (a union with other members,
//! an interface with other implementations, an enum with other members), and keys that
//! cannot carry an entity's identity beside others (`identity`). An operation whose answer
//! goes through one is not checked (the walk says which and why), so no gateway is blamed
//! for the mock.
use std::collections::BTreeMap;

use super::Subgraph;
use crate::mock::model::{base_name, Key, Kind, Model};

#[derive(Default)]
pub(super) struct Limits {
    /// Type → the construct and the subgraph it is in.
    types: BTreeMap<String, String>,
    /// `Type.field` → why its value depends on the subgraph.
    fields: BTreeMap<String, String>,
    /// `Type raw` → why a representation by that key finds another entity.
    keys: BTreeMap<String, String>,
}

impl Limits {
    pub fn of(subgraphs: &[Subgraph]) -> Limits {
        let mut limits = Limits::default();
        for s in subgraphs {
            for (ty, construct) in &s.mock.model.unserved {
                limits
                    .types
                    .entry(ty.clone())
                    .or_insert_with(|| format!("{ty} uses {construct} in `{}`", s.name));
            }
        }
        // Every field served (not `@external`) by more than one subgraph, with what each
        // gives for its type.
        let mut served: BTreeMap<String, Vec<(&str, String)>> = BTreeMap::new();
        for s in subgraphs {
            for t in s.mock.model.types.values() {
                if !matches!(t.kind, Kind::Object | Kind::Interface) {
                    continue;
                }
                for f in t.fields.iter().filter(|f| !f.external) {
                    served
                        .entry(format!("{}.{}", t.name, f.name))
                        .or_default()
                        .push((&s.name, shape(&s.mock.model, base_name(&f.ty))));
                }
            }
        }
        limits.keys = blind_keys(subgraphs);
        for (field, by) in served {
            if by.iter().all(|(_, shape)| *shape == by[0].1) {
                continue;
            }
            let each: Vec<String> = by
                .iter()
                .map(|(sub, shape)| format!("{shape} in `{sub}`"))
                .collect();
            limits.fields.insert(
                field.clone(),
                format!(
                    "{field} is served by several subgraphs whose types differ ({}): its value would depend on the subgraph a gateway asks",
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

/// What a subgraph's mock makes of a value of type `name`, as far as it can differ between
/// subgraphs: the members a union or interface picks from, an enum's members (picked by
/// index), an entity's identity key (whose values it derives).
fn shape(model: &Model, name: &str) -> String {
    let Some(t) = model.types.get(name) else {
        return name.to_string();
    };
    match &t.kind {
        Kind::Union(members) => {
            let mut m = members.clone();
            m.sort();
            format!("{name} = {}", m.join(" | "))
        }
        Kind::Interface => {
            let mut m: Vec<&str> = model
                .types
                .values()
                .filter(|o| matches!(o.kind, Kind::Object) && o.implements.contains(&t.name))
                .map(|o| o.name.as_str())
                .collect();
            m.sort();
            format!("{name} implemented by {}", m.join(", "))
        }
        Kind::Enum(members) => format!("{name} {{ {} }}", members.join(" ")),
        _ => name.to_string(),
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
/// Boolean): a path this subgraph cannot follow counts as one that can.
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
