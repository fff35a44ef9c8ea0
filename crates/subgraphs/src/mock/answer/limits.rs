//! What the mocks cannot serve as every correct gateway would see it, found before any
//! operation is walked: types whose construct the mock does not serve (an entity
//! interface, `@interfaceObject`, a nested `@key`: recorded by the model), and fields
//! several subgraphs serve whose values would differ with the subgraph a gateway asks (a
//! union with other members, an interface with other implementations, an enum with other
//! members, an entity identified by another key). An operation whose answer goes through
//! one is not checked (the walk says which and why), so no gateway is blamed for the mock.
use std::collections::BTreeMap;

use super::Subgraph;
use crate::mock::model::{base_name, Key, Kind, Model};

#[derive(Default)]
pub(super) struct Limits {
    /// Type → the construct and the subgraph it is in.
    types: BTreeMap<String, String>,
    /// `Type.field` → why its value depends on the subgraph.
    fields: BTreeMap<String, String>,
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
        Kind::Object => match t.identity() {
            Some(k) => format!("{name} @key(fields: \"{}\")", k.raw),
            None => name.to_string(),
        },
        _ => name.to_string(),
    }
}

/// Why fetching `ty` from subgraph `target` by one of its resolvable `keys`, `ready` of
/// which the subgraph `from` gives without a further fetch, has no one answer: the mock
/// seeds an entity by the key it is sent, so with several to choose from (or none ready,
/// each fetched some way) a gateway's choice would change the answer.
pub(super) fn key_choice(
    ty: &str,
    target: &str,
    keys: &[&Key],
    ready: usize,
    from: &str,
) -> Option<String> {
    if keys.len() < 2 || ready == 1 {
        return None;
    }
    let raws: Vec<String> = keys.iter().map(|k| format!("\"{}\"", k.raw)).collect();
    Some(format!(
        "`{target}` resolves {ty} by several keys ({}) and {} can be sent from `{from}`: the mocks derive {ty}'s values from the key a gateway picks",
        raws.join(", "),
        if ready == 0 { "none" } else { "more than one" },
    ))
}
