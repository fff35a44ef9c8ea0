//! Seeds: every mock value is a pure function of one. A stable hash (FNV-1a, then a
//! SplitMix64 finalizer so every bit depends on every input byte) instead of std's
//! `RandomState`, whose keys change per process: the same request must give the same answer
//! on every run and machine, and two subgraphs must agree on an entity's fields.

use serde_json::{Map, Value};

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

fn finish(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d1_049b_b133_111e);
    z ^ (z >> 31)
}

/// A seed and a part: each part is length-prefixed, so ("ab", "c") and ("a", "bc") differ.
pub fn mix(seed: u64, part: &str) -> u64 {
    let h = fnv(FNV_OFFSET, &seed.to_le_bytes());
    let h = fnv(h, &(part.len() as u64).to_le_bytes());
    finish(fnv(h, part.as_bytes()))
}

/// A seed re-hashed with a constant: a draw independent of what the seed itself gave.
pub fn salted(seed: u64, salt: u64) -> u64 {
    finish(seed ^ salt)
}

pub fn mix_index(seed: u64, index: usize) -> u64 {
    mix(seed, &format!("#{index}"))
}

/// An entity's seed: its type and its identity key's values, so that every subgraph
/// serving fields of it, and every path reaching it, computes the same seed.
pub fn entity(type_name: &str, key: &Value) -> u64 {
    mix(mix(0, type_name), &canonical(key))
}

/// JSON with object members sorted by name at every depth: the same values give the same
/// text whatever order a gateway wrote them in.
pub fn canonical(v: &Value) -> String {
    let mut out = String::new();
    write(v, &mut out);
    out
}

/// [`canonical`] of an object given as its members (no copy into a `Value` first).
pub fn canonical_map(map: &Map<String, Value>) -> String {
    let mut out = String::new();
    write_map(map, &mut out);
    out
}

fn write_map(map: &Map<String, Value>, out: &mut String) {
    let mut members: Vec<_> = map.iter().collect();
    members.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (i, (k, v)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(k.clone()).to_string());
        out.push(':');
        write(v, out);
    }
    out.push('}');
}

fn write(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => write_map(map, out),
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(v, out);
            }
            out.push(']');
        }
        // A whole number is written as an integer: a JavaScript gateway sends 1 for the
        // 1.0 a subgraph printed, and the two must give one seed.
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => {
                out.push_str(&(f as i64).to_string())
            }
            _ => out.push_str(&n.to_string()),
        },
        other => out.push_str(&other.to_string()),
    }
}

/// The members of `known` a field set (`"price dimensions { weight }"`) selects, nested
/// selections applied to objects and to each item of lists; anything else is dropped.
pub fn project(set: &str, known: &Map<String, Value>) -> Map<String, Value> {
    let spaced = set.replace('{', " { ").replace('}', " } ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut at = 0;
    project_tokens(&tokens, &mut at, known)
}

fn project_tokens(
    tokens: &[&str],
    at: &mut usize,
    known: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    while *at < tokens.len() {
        let name = tokens[*at];
        *at += 1;
        if name == "}" {
            break;
        }
        if name == "..." {
            // `... on T { sel }`: `sel` of this same object when it is a T. A gateway may
            // name the type (`__typename`) or leave it out, and leaves out what a fragment
            // of another type selects: only what it sent counts, so that both give one
            // value, and the answer computed from the mocks gives it too.
            let condition = (tokens.get(*at) == Some(&"on")).then(|| tokens.get(*at + 1));
            if let Some(t) = condition {
                *at += 2;
                let applies = match (known.get("__typename"), t) {
                    (Some(Value::String(actual)), Some(t)) => actual == t,
                    _ => true,
                };
                *at += 1; // "{"
                let inner = project_tokens(tokens, at, known);
                if applies {
                    out.extend(inner.into_iter().filter(|(k, _)| known.contains_key(k)));
                }
            } else {
                *at += 1; // "{"
                let inner = project_tokens(tokens, at, known);
                out.extend(inner.into_iter().filter(|(k, _)| known.contains_key(k)));
            }
            continue;
        }
        let nested = tokens.get(*at) == Some(&"{");
        let start = *at + 1;
        let v = known.get(name).cloned().unwrap_or(Value::Null);
        if !nested {
            out.insert(name.to_string(), v);
            continue;
        }
        // Each use of the nested selection reads it from its start.
        let mut end = start;
        let inner = |v: &Value, end: &mut usize| -> Value {
            let mut i = start;
            let r = match v {
                Value::Object(m) => Value::Object(project_tokens(tokens, &mut i, m)),
                other => {
                    project_tokens(tokens, &mut i, &Map::new());
                    other.clone()
                }
            };
            *end = i;
            r
        };
        // An object none of whose selected fields was sent counts as null: gateways send
        // `{}`, `null` or nothing for a value a type condition left empty.
        let empty_is_null = |v: Value| match v {
            Value::Object(m) if m.is_empty() => Value::Null,
            v => v,
        };
        let projected = match &v {
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|x| empty_is_null(inner(x, &mut end)))
                    .collect(),
            ),
            other => empty_is_null(inner(other, &mut end)),
        };
        if let Value::Array(items) = &v {
            if items.is_empty() {
                inner(&Value::Null, &mut end);
            }
        }
        *at = end;
        out.insert(name.to_string(), projected);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_keeps_what_a_field_set_selects_and_whole_floats_are_integers() {
        let known = serde_json::json!({
            "upc": "1",
            "weight": 2,
            "lead": {"__typename": "Employee", "id": 3, "isAvailable": true},
            "tags": [{"a": 1, "b": 2}, {"a": 3}]
        });
        let Value::Object(known) = known else {
            unreachable!()
        };
        let p = project("weight lead { isAvailable } tags { a } missing", &known);
        assert_eq!(
            Value::Object(p),
            serde_json::json!({"weight": 2, "lead": {"isAvailable": true}, "tags": [{"a": 1}, {"a": 3}], "missing": null})
        );
        assert_eq!(canonical(&serde_json::json!([1.0, 2.5, 3])), "[1,2.5,3]");
    }

    #[test]
    fn an_inline_fragment_counts_what_was_sent_for_its_type_only() {
        let sel = "address { ... on WorkAddress { id } } name";
        let known = |v: serde_json::Value| match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        // Another type, named or not, or the fragment's fields left out: one value.
        let home_named = project(
            sel,
            &known(serde_json::json!({"address": {"__typename": "HomeAddress"}, "name": "a"})),
        );
        let home_bare = project(sel, &known(serde_json::json!({"address": {}, "name": "a"})));
        let home_none = project(sel, &known(serde_json::json!({"name": "a"})));
        assert_eq!(home_named, home_bare);
        assert_eq!(home_none, home_bare);
        assert_eq!(
            Value::Object(home_bare),
            serde_json::json!({"address": null, "name": "a"})
        );
        // The type it names: its fields.
        let work = project(
            sel,
            &known(
                serde_json::json!({"address": {"__typename": "WorkAddress", "id": "W-1"}, "name": "a"}),
            ),
        );
        assert_eq!(
            Value::Object(work),
            serde_json::json!({"address": {"id": "W-1"}, "name": "a"})
        );
        // A type that does not match, although it sent fields: not counted.
        let other = project(
            sel,
            &known(
                serde_json::json!({"address": {"__typename": "HomeAddress", "id": "H-1"}, "name": "a"}),
            ),
        );
        assert_eq!(
            Value::Object(other),
            serde_json::json!({"address": null, "name": "a"})
        );
    }

    #[test]
    fn canonical_sorts_members_and_hash_is_fixed() {
        let a = serde_json::json!({"b": 1, "a": {"d": [1, 2], "c": "x"}});
        assert_eq!(canonical(&a), r#"{"a":{"c":"x","d":[1,2]},"b":1}"#);
        // Fixed across runs and machines: a changed constant or algorithm shows here.
        assert_eq!(mix(0, "Product"), mix(0, "Product"));
        assert_ne!(mix(0, "ab"), mix(0, "ba"));
        assert_eq!(fnv(FNV_OFFSET, b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
