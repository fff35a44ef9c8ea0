//! One value per shared field: a field several subgraphs serve (`@shareable`) must return
//! the same value in each, whichever a gateway asks (Federation's precondition for sharing).
//! Where its type is a union, an interface or an enum whose members differ between the
//! subgraphs (`Media = Book | Song` in one, `Book | Movie` in the other), every subgraph
//! picks from the members all of them have, in one order (by name), with the same seed.
//! A field whose subgraphs have no member in common cannot be served consistently
//! (`answer::limits` leaves it out).
use std::collections::{BTreeMap, BTreeSet};

use super::model::{base_name, Kind, Model};

/// The members every subgraph serving a field can return, by type then field: looked up
/// per union, interface or enum value a mock serves, so without building a key.
#[derive(Debug, Clone, Default)]
pub struct Shared {
    by_field: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

/// The fields (type, field) some subgraph of `models` declares non-null, `@external` ones
/// too (a subgraph serves those it provides): such a field is never null anywhere.
pub fn non_null<'a>(models: impl IntoIterator<Item = &'a Model>) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for m in models {
        for t in m.types.values() {
            for f in t.fields.iter().filter(|f| !f.ty.nullable) {
                out.insert((t.name.clone(), f.name.clone()));
            }
        }
    }
    out
}

/// Which fields of `model` may be null: nullable in every subgraph (`non_null` of the
/// graph), so every subgraph serving one gives the same value, and not a root field, so
/// an operation's top-level values (and the work below them) are always there.
pub fn settle_nulls(model: &mut Model, non_null: &BTreeSet<(String, String)>) {
    let mutation = model.mutation.clone();
    for t in model.types.values_mut() {
        let root =
            t.name == "Query" || t.name == "Subscription" || Some(&t.name) == mutation.as_ref();
        for f in &mut t.fields {
            f.nulls =
                f.ty.nullable && !root && !non_null.contains(&(t.name.clone(), f.name.clone()));
        }
    }
}

/// What a value of type `name` can be in `model`: a union's members, an interface's
/// object implementations, an enum's members; sorted. None for any other type.
pub fn members(model: &Model, name: &str) -> Option<Vec<String>> {
    let t = model.types.get(name)?;
    let mut m: Vec<String> = match &t.kind {
        Kind::Union(members) => members.clone(),
        Kind::Enum(members) => members.clone(),
        Kind::Interface => model.implementers(name).map(|o| o.name.clone()).collect(),
        _ => return None,
    };
    m.sort();
    m.dedup();
    Some(m)
}

impl Shared {
    /// The shared fields of `models` (one per subgraph) whose type has members, each with
    /// the members all its subgraphs have (possibly none).
    pub fn of<'a>(models: impl IntoIterator<Item = &'a Model>) -> Shared {
        let mut seen: BTreeMap<(String, String), (usize, Vec<String>)> = BTreeMap::new();
        for m in models {
            for t in m.types.values() {
                if !matches!(t.kind, Kind::Object | Kind::Interface) {
                    continue;
                }
                for f in t.fields.iter().filter(|f| !f.external) {
                    let Some(these) = members(m, base_name(&f.ty)) else {
                        continue;
                    };
                    let e = seen
                        .entry((t.name.clone(), f.name.clone()))
                        .or_insert_with(|| (0, these.clone()));
                    e.0 += 1;
                    e.1.retain(|x| these.contains(x));
                }
            }
        }
        let mut by_field: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
        for ((ty, field), (n, common)) in seen {
            if n > 1 {
                by_field.entry(ty).or_default().insert(field, common);
            }
        }
        Shared { by_field }
    }

    /// The members `owner.field` picks from when several subgraphs serve it.
    pub fn common(&self, owner: &str, field: &str) -> Option<&[String]> {
        self.by_field.get(owner)?.get(field).map(Vec::as_slice)
    }
}
