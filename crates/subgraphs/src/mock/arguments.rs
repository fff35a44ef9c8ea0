//! A field's arguments as the mocks read them: as they seed a value (SDL defaults filled
//! in, an `ID` given as a number taken as its string) and the page they ask of a list.

use serde_json::{Map, Value as Json};

use super::model::{base_name, FieldDef};

/// Arguments that ask for a page of a list (an `Int`): `first: 5` returns 5 items.
const PAGE_ARGS: &[&str] = &[
    "first",
    "last",
    "limit",
    "take",
    "top",
    "count",
    "size",
    "pageSize",
    "perPage",
    "page_size",
    "per_page",
];
/// The list fields of an object returned for a page (a connection) that hold the page.
pub(super) const PAGED: &[&str] = &["edges", "nodes", "items"];
/// The page an `Int` argument of `field` asks for (`PAGE_ARGS`), at most `MAX_LIST`: a
/// negative one is an empty page.
pub(super) fn page_of(field: &FieldDef, args: &Map<String, Json>) -> Option<usize> {
    field
        .args
        .iter()
        .filter(|a| base_name(&a.ty) == "Int" && PAGE_ARGS.contains(&a.name.as_str()))
        .find_map(|a| args.get(&a.name)?.as_i64())
        .map(|n| n.clamp(0, super::MAX_LIST as i64) as usize)
}

/// The arguments as they seed a value: a null or absent one takes its SDL default, and one
/// with none is left out. Gateways differ here (an unset nullable variable is sent as null
/// by some and left out by others, as the spec allows), and all must get the same answer.
pub(super) fn seeded_args(field: &FieldDef, args: &Map<String, Json>) -> Map<String, Json> {
    let mut out: Map<String, Json> = args
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| {
            let ty = field.args.iter().find(|a| &a.name == k);
            let v = ty.map_or_else(|| v.clone(), |a| as_typed(base_name(&a.ty), v));
            (k.clone(), v)
        })
        .collect();
    for a in &field.args {
        if out.contains_key(&a.name) {
            continue;
        }
        let default = a.default.clone().and_then(|d| d.into_json().ok());
        if let Some(d) = default.filter(|d| !d.is_null()) {
            out.insert(a.name.clone(), d);
        }
    }
    out
}

/// A given value as its GraphQL type serializes it: an `ID` is a string, though it may
/// arrive as a number (a gateway may write `product(id: 1)` for the client's `id: "1"`,
/// which ID input coercion allows, and send the key back as 1 in a representation). Served
/// or seeded as given, gateways inlining differently would get different answers.
pub(super) fn as_typed(named: &str, v: &Json) -> Json {
    match v {
        Json::Number(n) if named == "ID" => Json::String(n.to_string()),
        Json::Array(items) => Json::Array(items.iter().map(|i| as_typed(named, i)).collect()),
        _ => v.clone(),
    }
}
