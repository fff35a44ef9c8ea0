//! One identity per entity, whatever key reaches it. An entity is a number `n` (1..=1000)
//! and its type: every key field of every `@key` of the type, in every subgraph of the
//! graph (simple, compound, nested like `sku variation { id }`), is an invertible function
//! of `n` (`encode`), and a representation by any resolvable key gives `n` back (`decode`).
//! So a gateway may fetch an entity by any key it likes and gets the same entity with the
//! same fields, and two mock processes derive the same values (pure functions, no state).
//!
//! An entity interface (`interface Media @key(fields: "id")`) is one identity space: its
//! implementations and the `@interfaceObject` types standing for it in other subgraphs
//! share its key values and seeds, and the concrete type of entity `n` is the `n mod k`-th
//! of its k implementations (`Keys::concrete`), so every subgraph, and a gateway asking the
//! interface's subgraph for `__typename`, names the same one.
//!
//! A key through a list (`@key(fields: "products { id }")`) carries the identities of its
//! items: item `i` of entity `n`'s list is entity `item(n, i)`, and item 0 is `n` itself,
//! so the first item's key value gives the list's owner back, and every subgraph serving
//! the list serves the same items (the list's length is the graph's, `[lists]`).
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
    /// An entity interface's implementations over the graph, in name order.
    implementations: BTreeMap<String, Vec<String>>,
    /// An implementation of an entity interface → the interface (its identity space).
    interface_of: BTreeMap<String, String>,
}

impl Keys {
    /// The key paths of the types of `models` (one per subgraph).
    pub fn of<'a>(models: impl IntoIterator<Item = &'a Model>) -> Keys {
        let mut by_type: BTreeMap<String, BTreeSet<Path>> = BTreeMap::new();
        let mut implementations: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for m in models {
            for t in m.types.values() {
                for k in &t.keys {
                    by_type
                        .entry(t.name.clone())
                        .or_default()
                        .extend(k.paths.iter().cloned());
                }
                if matches!(t.kind, Kind::Interface) && !t.keys.is_empty() {
                    implementations
                        .entry(t.name.clone())
                        .or_default()
                        .extend(m.implementers(&t.name).map(|o| o.name.clone()));
                }
            }
        }
        let mut interface_of = BTreeMap::new();
        for (i, impls) in &implementations {
            let paths = by_type.get(i).cloned().unwrap_or_default();
            for o in impls {
                // An implementation of two entity interfaces has no one identity space:
                // `answer::limits` leaves it out; the first (by name) serves it.
                interface_of.entry(o.clone()).or_insert_with(|| i.clone());
                by_type
                    .entry(o.clone())
                    .or_default()
                    .extend(paths.iter().cloned());
            }
        }
        Keys {
            by_type,
            implementations: implementations
                .into_iter()
                .map(|(i, s)| (i, s.into_iter().collect()))
                .collect(),
            interface_of,
        }
    }

    /// The type whose identities `ty`'s are: the entity interface it implements, or
    /// itself (an entity interface, an `@interfaceObject` named after one, any entity).
    pub fn identity_type<'a>(&'a self, ty: &'a str) -> &'a str {
        self.interface_of.get(ty).map_or(ty, String::as_str)
    }

    /// The entity interfaces `ty` implements (more than one: no one identity space).
    pub fn interfaces_of<'a>(&'a self, ty: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.implementations
            .iter()
            .filter(move |(_, o)| o.iter().any(|x| x == ty))
            .map(|(i, _)| i.as_str())
    }

    /// Whether `ty` is an entity interface (a `@key` on an interface) in some subgraph.
    pub fn is_entity_interface(&self, ty: &str) -> bool {
        self.implementations.contains_key(ty)
    }

    /// The concrete type of entity `n` of entity interface `iface`.
    pub fn concrete(&self, iface: &str, n: u64) -> Option<&str> {
        let impls = self.implementations.get(iface)?;
        (!impls.is_empty()).then(|| impls[(n % impls.len() as u64) as usize].as_str())
    }

    /// The identity nearest `n` whose concrete type is `ty` (`n` itself unless `ty`
    /// implements an entity interface): an implementation reached as itself must be the
    /// one its interface names for the same identity.
    pub fn fit(&self, ty: &str, n: u64) -> u64 {
        let Some(impls) = self
            .interface_of
            .get(ty)
            .and_then(|i| self.implementations.get(i))
        else {
            return n;
        };
        let k = impls.len() as u64;
        let j = impls.iter().position(|o| o == ty).unwrap_or(0) as u64;
        // Within 1..=1000: the next run of k up from 0, or the one below past 1000.
        match n - n % k + j {
            0 => k,
            f if f > 1000 => f - k,
            f => f,
        }
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
    /// a path through a field this subgraph does not define is left out; a list on the way
    /// is `len(owner, field)` long (the mock's list lengths).
    pub fn values(
        &self,
        model: &Model,
        ty: &str,
        n: u64,
        len: &dyn Fn(&str, &str) -> usize,
    ) -> Map<String, Json> {
        let mut out = Map::new();
        let id_ty = self.identity_type(ty);
        for path in self.by_type.get(ty).into_iter().flatten() {
            let at = KeyPath {
                model,
                id_ty,
                whole: path,
                len,
            };
            at.write(ty, path, n, true, &mut out);
        }
        out
    }
}

/// Item `i` of a key list of entity `n`: `n` itself first (so the list's first item names
/// its owner), then identities spread over 1..=1000 (397 is prime to 1000: the first 1000
/// items are distinct).
pub fn item(n: u64, i: usize) -> u64 {
    (n.saturating_sub(1) + i as u64 * 397) % 1000 + 1
}

/// One key field path being written for an entity: what every step of it needs.
struct KeyPath<'a> {
    model: &'a Model,
    /// The identity type of the entity the path starts from: its seed, and the name a
    /// top-level `ID` carries.
    id_ty: &'a str,
    /// The whole path (an enum leaf's value is seeded by it).
    whole: &'a [String],
    len: &'a dyn Fn(&str, &str) -> usize,
}

impl KeyPath<'_> {
    /// Writes `path`'s value, from an object of type `owner` that carries identity `n`, into
    /// `out`, merging with what other paths wrote (`variation { id size }`); nothing when
    /// `model` does not define the way.
    fn write(&self, owner: &str, path: &[String], n: u64, top: bool, out: &mut Map<String, Json>) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        let Some(def) = self.model.types.get(owner).and_then(|t| t.field(first)) else {
            return;
        };
        let named = base_name(&def.ty);
        let list = is_list(&def.ty);
        let k = if list { (self.len)(owner, first) } else { 1 };
        if rest.is_empty() {
            let name = if top { self.id_ty } else { owner };
            let one = |m: u64| self.leaf(named, name, first, m);
            let v = if list {
                Json::Array((0..k).map(|i| one(item(n, i))).collect())
            } else {
                one(n)
            };
            out.insert(first.clone(), v);
            return;
        }
        let slot = out.entry(first.clone()).or_insert_with(|| {
            if list {
                Json::Array(vec![Json::Object(Map::new()); k])
            } else {
                Json::Object(Map::new())
            }
        });
        match slot {
            Json::Array(items) => {
                for (i, it) in items.iter_mut().enumerate() {
                    if let Json::Object(m) = it {
                        self.write(named, rest, item(n, i), false, m);
                    }
                }
            }
            Json::Object(m) => self.write(named, rest, n, false, m),
            _ => {}
        }
        // A way this subgraph does not define to the end leaves nothing, not an empty
        // object (a value given is served as given and never null).
        let empty = |v: &Json| match v {
            Json::Object(m) => m.is_empty(),
            Json::Array(items) => items
                .iter()
                .all(|i| i.as_object().is_some_and(Map::is_empty)),
            _ => false,
        };
        if out.get(first.as_str()).is_some_and(empty) {
            out.remove(first.as_str());
        }
    }

    /// The value of a leaf of type `scalar`, field `field` of `owner`, for identity `n`.
    fn leaf(&self, scalar: &str, owner: &str, field: &str, n: u64) -> Json {
        match self.model.types.get(scalar).map(|t| &t.kind) {
            Some(Kind::Enum(members)) if !members.is_empty() => {
                let joined = self.whole.join(".");
                let i = seed::mix(seed_of(self.id_ty, n), &joined) % members.len() as u64;
                Json::String(members[i as usize].clone())
            }
            Some(Kind::Enum(_)) => Json::Null,
            _ => encode(scalar, owner, field, n, seed_of(self.id_ty, n)),
        }
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
        // A key list of scalars: its first item is the owner's identity (`item`).
        Json::Array(items) => decode(items.first()?),
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
        // A key through a list: its first item is the owner's identity (`item`).
        Json::Array(items) => match items.first()? {
            Json::Object(m) => at(m, rest),
            _ => None,
        },
        _ => None,
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
        // `other` keys Product through a field this subgraph lacks: nothing is written for
        // it (no empty object), and the list key holds one item per slot, the first `n`.
        let sdl = r#"type Variation { id: ID! }
type Book { isbn: String! }
type Product @key(fields: "sku variation { id }") @key(fields: "books { isbn }") {
  sku: String! variation: Variation! books: [Book!]!
}"#;
        let other = r#"type Product @key(fields: "other { id }") { other: Variation! }
type Variation { id: ID! }"#;
        let model = crate::mock::model::parse("a.graphql", sdl).unwrap();
        let lacking = crate::mock::model::parse("b.graphql", other).unwrap();
        let keys = Keys::of([&model, &lacking]);
        let m = keys.values(&model, "Product", 9, &|_, _| 2);
        assert_eq!(
            Json::Object(m.clone()),
            json!({"variation": {"id": "Variation-9"}, "sku": "sku-9",
                   "books": [{"isbn": "isbn-9"}, {"isbn": format!("isbn-{}", item(9, 1))}]})
        );
        let nested: Path = vec!["variation".into(), "id".into()];
        let listed: Path = vec!["books".into(), "isbn".into()];
        let missing: Path = vec!["upc".into()];
        assert_eq!(find(&m, [&missing, &nested]), Some(9));
        assert_eq!(find(&m, [&listed]), Some(9));
        assert_eq!(find(&m, [&missing]), None);
        assert_ne!(item(9, 1), 9);
    }
}
