//! Canonical JSON: object key order is irrelevant and numbers compare by value (a server
//! may print `1.0` where the expected file says `1`). Gives a sorted-keys serialization,
//! an equality, and a short description of the first difference.

use serde_json::Value;
use std::fmt::Write;

/// Serializes with object keys sorted, no whitespace.
pub fn to_canonical_string(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*k).clone()).to_string());
                out.push(':');
                write_canonical(&map[k.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Equality of canonical forms.
pub fn canonical_eq(a: &Value, b: &Value) -> bool {
    first_difference(a, b).is_none()
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// `None` when equal; otherwise a short text naming the first differing path, e.g.
/// `data.user.posts[3].title: expected "a", got "b"`. `root` names the top value.
pub fn diff(root: &str, expected: &Value, got: &Value) -> Option<String> {
    first_difference(expected, got).map(|(path, what)| {
        let mut p = String::from(root);
        for seg in path.iter().rev() {
            p.push_str(seg);
        }
        format!("{p}: {what}")
    })
}

/// Path segments come back innermost first (cheap to build while unwinding).
fn first_difference(e: &Value, g: &Value) -> Option<(Vec<String>, String)> {
    match (e, g) {
        (Value::Object(em), Value::Object(gm)) => {
            let mut keys: Vec<&String> = em.keys().chain(gm.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                match (em.get(k.as_str()), gm.get(k.as_str())) {
                    (Some(ev), Some(gv)) => {
                        if let Some((mut path, what)) = first_difference(ev, gv) {
                            path.push(format!(".{k}"));
                            return Some((path, what));
                        }
                    }
                    (Some(ev), None) => {
                        return Some((
                            vec![format!(".{k}")],
                            format!("missing, expected {}", short(ev)),
                        ))
                    }
                    (None, Some(gv)) => {
                        return Some((
                            vec![format!(".{k}")],
                            format!("unexpected field, got {}", short(gv)),
                        ))
                    }
                    (None, None) => {}
                }
            }
            None
        }
        (Value::Array(ea), Value::Array(ga)) => {
            for (i, (ev, gv)) in ea.iter().zip(ga.iter()).enumerate() {
                if let Some((mut path, what)) = first_difference(ev, gv) {
                    path.push(format!("[{i}]"));
                    return Some((path, what));
                }
            }
            if ea.len() != ga.len() {
                return Some((
                    Vec::new(),
                    format!("expected {} items, got {}", ea.len(), ga.len()),
                ));
            }
            None
        }
        (Value::Number(a), Value::Number(b)) if numbers_equal(a, b) => None,
        _ if e == g => None,
        _ => Some((
            Vec::new(),
            format!("expected {}, got {}", short(e), short(g)),
        )),
    }
}

/// A value printed canonically and cut to about 80 characters.
fn short(v: &Value) -> String {
    let s = to_canonical_string(v);
    if s.len() <= 80 {
        return s;
    }
    let mut cut = 77;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut out = String::with_capacity(80);
    let _ = write!(out, "{}...", &s[..cut]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_is_irrelevant() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"y":[1,2],"x":null}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":{"x":null,"y":[1,2]},"b":1}"#).unwrap();
        assert!(canonical_eq(&a, &b));
        assert_eq!(
            to_canonical_string(&a),
            r#"{"a":{"x":null,"y":[1,2]},"b":1}"#
        );
        assert_eq!(to_canonical_string(&a), to_canonical_string(&b));
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(canonical_eq(&json!(1.0), &json!(1)));
        assert!(!canonical_eq(&json!(1.5), &json!(1)));
        assert!(!canonical_eq(&json!("1"), &json!(1)));
    }

    #[test]
    fn diff_names_first_differing_path() {
        let e = json!({"user": {"id": "1", "posts": [{"title": "a"}, {"title": "b"}]}});
        let g = json!({"user": {"id": "1", "posts": [{"title": "a"}, {"title": "c"}]}});
        assert_eq!(
            diff("data", &e, &g).unwrap(),
            r#"data.user.posts[1].title: expected "b", got "c""#
        );
        let g2 = json!({"user": {"id": "1", "posts": [{"title": "a"}]}});
        assert_eq!(
            diff("data", &e, &g2).unwrap(),
            "data.user.posts: expected 2 items, got 1"
        );
        let g3 = json!({"user": {"posts": [{"title": "a"}, {"title": "b"}]}});
        assert_eq!(
            diff("data", &e, &g3).unwrap(),
            r#"data.user.id: missing, expected "1""#
        );
        assert_eq!(diff("data", &e, &e), None);
    }

    #[test]
    fn long_values_are_cut() {
        let big = json!("x".repeat(500));
        let d = diff("data", &big, &json!(1)).unwrap();
        assert!(d.len() < 200, "{d}");
    }
}
