//! One identity per entity, whatever key reaches it. An entity is a number `n` (1..=1000)
//! and its type: every key field of every `@key` of the type, in every subgraph of the
//! graph (simple, compound, nested like `sku variation { id }`), is an invertible function
//! of `n` (`encode`), and a representation by any resolvable key gives `n` back (`decode`).
//! So a gateway may fetch an entity by any key it likes and gets the same entity with the
//! same fields, and two mock processes derive the same values (pure functions, no state).
//!
//! A key field whose type cannot carry `n` (a Boolean, an enum) is derived from it like any
//! other field; a key made only of such fields cannot identify the entity, and an answer
//! that a gateway could reach by it is left out (`answer::limits`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value as Json};

use super::model::{base_name, Kind, Model};
use super::{seed, values};

/// A key field's path from the entity: `["sku"]`, `["variation", "id"]`.
pub type Path = Vec<String>;

/// The key field paths of every entity type, over all the subgraphs of one graph (a
/// subgraph may serve a field that is a key only in another: its value must still carry
/// the identity, or the other subgraph would find another entity).
#[derive(Debug, Clone, Default)]
pub struct Keys {
    by_type: BTreeMap<String, BTreeSet<Path>>,
}

impl Keys {
    /// The key paths of the types of `models` (one per subgraph).
    pub fn of<'a>(models: impl IntoIterator<Item = &'a Model>) -> Keys {
        let mut by_type: BTreeMap<String, BTreeSet<Path>> = BTreeMap::new();
        for m in models {
            for t in m.types.values() {
                for k in &t.keys {
                    by_type
                        .entry(t.name.clone())
                        .or_default()
                        .extend(k.paths.iter().cloned());
                }
            }
        }
        Keys { by_type }
    }

    /// `ty`'s key field paths over the graph.
    pub fn paths(&self, ty: &str) -> impl Iterator<Item = &Path> {
        self.by_type.get(ty).into_iter().flatten()
    }

    /// Whether `ty` is an entity anywhere in the graph.
    pub fn is_entity(&self, ty: &str) -> bool {
        self.by_type.contains_key(ty)
    }

    /// The values of `ty`'s key fields for entity `n`, as `model` (one subgraph) types them:
    /// a path through a field this subgraph does not define is left out.
    pub fn values(&self, model: &Model, ty: &str, n: u64) -> Map<String, Json> {
        let mut out = Map::new();
        for path in self.by_type.get(ty).into_iter().flatten() {
            if let Some(v) = leaf(model, ty, path, n) {
                insert(&mut out, path, v);
            }
        }
        out
    }
}

/// Entity `n` of type `ty`: its seed.
pub fn seed_of(ty: &str, n: u64) -> u64 {
    seed::mix(seed::mix(0, ty), &format!("#{n}"))
}

/// The identity an entity reached from a parent seed `s` gets.
pub fn from_parent(s: u64) -> u64 {
    values::small(seed::mix(s, "@identity"))
}

/// The value of key field `path` of entity `n` of type `ty`, if `model` defines the way
/// and it holds one value (a path through a list, `products { id }`, holds several: each
/// item is its own object, and none carries the identity).
fn leaf(model: &Model, ty: &str, path: &[String], n: u64) -> Option<Json> {
    let (last, through) = path.split_last()?;
    let mut owner = ty;
    for f in through {
        let def = model.types.get(owner)?.field(f)?;
        if is_list(&def.ty) {
            return None;
        }
        owner = base_name(&def.ty);
    }
    let scalar = base_name(&model.types.get(owner)?.field(last)?.ty);
    Some(match model.types.get(scalar).map(|t| &t.kind) {
        Some(Kind::Enum(members)) if !members.is_empty() => {
            let i = seed::mix(seed_of(ty, n), &path.join(".")) % members.len() as u64;
            Json::String(members[i as usize].clone())
        }
        Some(Kind::Enum(_)) => Json::Null,
        _ => encode(scalar, owner, last, n, seed_of(ty, n)),
    })
}

/// Whether `ty` is a list under any non-null wrapper.
pub fn is_list(ty: &async_graphql::parser::types::Type) -> bool {
    matches!(ty.base, async_graphql::parser::types::BaseType::List(_))
}

/// `n` as a value of `scalar` in field `field` of `owner`: n itself, or a string ending in
/// n's digits. A Boolean cannot hold it and is derived from the entity's seed `s`.
pub fn encode(scalar: &str, owner: &str, field: &str, n: u64, s: u64) -> Json {
    let lower = field.to_ascii_lowercase();
    match scalar {
        "ID" => json!(format!("{owner}-{n}")),
        "Int" => json!(n),
        "Float" => json!(n as f64),
        "Boolean" => json!(seed::mix(s, field).is_multiple_of(2)),
        "String" if lower.contains("email") => json!(format!("user{n}@example.com")),
        "String" if lower.contains("url") || lower.contains("link") => {
            json!(format!("https://example.com/{lower}/{n}"))
        }
        "String" => json!(format!("{field}-{n}")),
        other => json!(format!("{other}-{n}")),
    }
}

/// The identity a key field's value carries: a whole number, or the last run of digits of
/// a string (every `encode` ends in n's). None for anything else.
pub fn decode(v: &Json) -> Option<u64> {
    match v {
        Json::Number(x) => x.as_u64().or_else(|| {
            x.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1e15)
                .map(|f| f as u64)
        }),
        Json::String(s) => {
            let end = s.rfind(|c: char| c.is_ascii_digit())? + 1;
            let start = s[..end]
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |i| i + 1);
            s[start..end].parse().ok()
        }
        _ => None,
    }
}

/// The identity the values of `paths` in `given` carry, the first that has one.
pub fn find<'a>(
    given: &Map<String, Json>,
    paths: impl IntoIterator<Item = &'a Path>,
) -> Option<u64> {
    paths.into_iter().find_map(|p| decode(at(given, p)?))
}

fn at<'a>(given: &'a Map<String, Json>, path: &[String]) -> Option<&'a Json> {
    let (first, rest) = path.split_first()?;
    let v = given.get(first)?;
    if rest.is_empty() {
        return Some(v);
    }
    match v {
        Json::Object(m) => at(m, rest),
        _ => None,
    }
}

fn insert(out: &mut Map<String, Json>, path: &[String], v: Json) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        out.insert(first.clone(), v);
        return;
    }
    let child = out
        .entry(first.clone())
        .or_insert_with(|| Json::Object(Map::new()));
    if let Json::Object(m) = child {
        insert(m, rest, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encoding_decodes_to_its_identity() {
        for n in [1, 7, 42, 1000] {
            for scalar in ["ID", "Int", "Float", "String", "Upc"] {
                for field in ["id", "sku", "email", "homeUrl", "package"] {
                    let v = encode(scalar, "Product", field, n, 3);
                    assert_eq!(decode(&v), Some(n), "{scalar} {field}: {v}");
                }
            }
        }
        assert_eq!(decode(&json!(true)), None);
        assert_eq!(decode(&json!("no digits")), None);
        assert_eq!(decode(&json!(5.0)), Some(5));
        assert_eq!(decode(&json!(-1)), None);
    }

    #[test]
    fn nested_key_paths_are_found_and_written() {
        let mut m = Map::new();
        insert(&mut m, &["variation".into(), "id".into()], json!("V-9"));
        insert(&mut m, &["sku".into()], json!("sku-9"));
        assert_eq!(
            Json::Object(m.clone()),
            json!({"variation": {"id": "V-9"}, "sku": "sku-9"})
        );
        let nested: Path = vec!["variation".into(), "id".into()];
        let missing: Path = vec!["upc".into()];
        assert_eq!(find(&m, [&missing, &nested]), Some(9));
        assert_eq!(find(&m, [&missing]), None);
    }
}
