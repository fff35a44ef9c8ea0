//! The payload sequence of an incremental delivery response (`@defer` / `@stream`),
//! checked against the protocol and merged into the one `data` a non-incremental response
//! to the same query would carry, for the caller to compare with the expected answer.
//!
//! Two payload formats exist and both are read, item by item:
//! - graphql-js 17 alpha 2 (Apollo Router `deferSpec=20220824`, Yoga's defer-stream
//!   plugin): an incremental item names its target by `path`; `data` is merged there,
//!   `items` are appended to the list whose path is `path` minus its last element (the
//!   index of the first item);
//! - graphql-js 17 alpha 9 (`incrementalSpec=v0.2`): parts announce `pending` entries
//!   `{id, path}`, items name one by `id` (plus `subPath` for `data`), `items` are
//!   appended to the list at the pending path, and `completed` retires the entry.

use serde_json::Value;

use crate::failure::{FailureKind, BODY_EXCERPT};

type Failure = (FailureKind, String);

/// The merged answer of an incremental response.
#[derive(Debug, Clone, PartialEq)]
pub struct Assembled {
    pub data: Value,
    /// Payload parts counted; heartbeats (`{}`) are not.
    pub parts: usize,
}

/// Returns a failure of the kind named, its detail formatted and clipped.
macro_rules! fail {
    ($kind:ident, $($fmt:tt)*) => {
        return Err((FailureKind::$kind, clip(format!($($fmt)*))))
    };
}

/// A detail string cut to the length failure details keep (on a char boundary).
fn clip(mut s: String) -> String {
    if s.len() > BODY_EXCERPT {
        let mut cut = BODY_EXCERPT;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

fn show(path: &[Value]) -> String {
    serde_json::to_string(path).unwrap_or_default()
}

/// `errors` present and non-empty: the first one's message, as `validate::judge` words it.
fn graphql_errors(errors: Option<&Value>) -> Result<(), Failure> {
    match crate::failure::errors_detail(errors) {
        None => Ok(()),
        Some(detail) => Err((FailureKind::GraphqlError, detail)),
    }
}

/// Pending entries of the alpha 9 format: id and path.
type Pending = Vec<(Value, Vec<Value>)>;

/// Checks the parts in order and merges them. `parts` are the payloads as
/// [`super::parts`] returns them.
pub fn assemble(parts: &[&[u8]]) -> Result<Assembled, Failure> {
    let mut data: Option<Value> = None;
    let mut pending: Pending = Vec::new();
    let mut counted = 0;
    let mut has_next = true;
    for (n, raw) in parts.iter().enumerate() {
        let mut part = match serde_json::from_slice::<Value>(raw) {
            Ok(Value::Object(o)) => o,
            Ok(_) => fail!(Protocol, "part {n} is JSON but not an object"),
            Err(e) => {
                let head = String::from_utf8_lossy(&raw[..raw.len().min(120)]).into_owned();
                fail!(Protocol, "part {n} is not JSON ({e}): {head}")
            }
        };
        // Apollo Router keeps a connection alive with empty objects.
        if part.is_empty() {
            continue;
        }
        if !has_next {
            fail!(Protocol, "part {n} follows the part with hasNext false");
        }
        graphql_errors(part.get("errors"))?;
        has_next = match part.get("hasNext") {
            Some(Value::Bool(b)) => *b,
            _ => fail!(Protocol, "part {n} has no boolean hasNext"),
        };
        if let Some(p) = part.remove("pending") {
            announce(&mut pending, p)?;
        }
        if data.is_none() {
            data = Some(match part.remove("data") {
                Some(d @ Value::Object(_)) => d,
                None | Some(Value::Null) => fail!(WrongData, "data is missing or null"),
                Some(_) => fail!(Protocol, "data is not an object"),
            });
        } else if part.contains_key("data") || part.contains_key("path") {
            fail!(Protocol, "part {n} carries data outside incremental");
        }
        // Set just above; the first part may carry incremental items too.
        let merged = data.get_or_insert(Value::Null);
        match part.remove("incremental") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for item in items {
                    apply(merged, item, &pending)?;
                }
            }
            Some(_) => fail!(Protocol, "part {n}: incremental is not a list"),
        }
        if let Some(c) = part.remove("completed") {
            complete(&mut pending, c)?;
        }
        counted += 1;
    }
    let Some(data) = data else {
        fail!(Protocol, "no payload part");
    };
    if has_next {
        fail!(
            Protocol,
            "the stream ended with hasNext true after {counted} parts"
        );
    }
    if let Some((id, _)) = pending.first() {
        fail!(Protocol, "pending {id} was never completed");
    }
    Ok(Assembled {
        data,
        parts: counted,
    })
}

/// Registers `pending` entries `{id, path}`.
fn announce(pending: &mut Pending, entries: Value) -> Result<(), Failure> {
    let Value::Array(entries) = entries else {
        fail!(Protocol, "pending is not a list");
    };
    for mut e in entries {
        let id = e.get("id").cloned();
        let (Some(id), Some(Value::Array(path))) = (id, e.get_mut("path").map(Value::take)) else {
            fail!(Protocol, "a pending entry lacks id or path");
        };
        if pending.iter().any(|(known, _)| *known == id) {
            fail!(Protocol, "pending {id} announced twice");
        }
        pending.push((id, path));
    }
    Ok(())
}

/// Retires `completed` entries `{id, errors?}`.
fn complete(pending: &mut Pending, entries: Value) -> Result<(), Failure> {
    let Value::Array(entries) = entries else {
        fail!(Protocol, "completed is not a list");
    };
    for e in entries {
        graphql_errors(e.get("errors"))?;
        let id = e.get("id").unwrap_or(&Value::Null);
        let Some(i) = pending.iter().position(|(known, _)| known == id) else {
            fail!(Protocol, "completed {id} was not pending");
        };
        pending.remove(i);
    }
    Ok(())
}

/// Applies one incremental item to `data`.
fn apply(data: &mut Value, item: Value, pending: &Pending) -> Result<(), Failure> {
    let Value::Object(mut item) = item else {
        fail!(Protocol, "an incremental item is not an object");
    };
    graphql_errors(item.get("errors"))?;
    let (mut path, by_path) = if let Some(id) = item.get("id") {
        match pending.iter().find(|(known, _)| known == id) {
            Some((_, p)) => (p.clone(), false),
            None => fail!(Protocol, "incremental item for unknown id {id}"),
        }
    } else if let Some(Value::Array(p)) = item.remove("path") {
        (p, true)
    } else {
        fail!(Protocol, "an incremental item has neither id nor path");
    };
    if let Some(items) = item.remove("items") {
        let Value::Array(items) = items else {
            fail!(WrongData, "stream items at {} are not a list", show(&path));
        };
        // Alpha 2 names the index of the first item; alpha 9 the list itself.
        let first = match by_path.then(|| path.pop()) {
            None => None,
            Some(Some(Value::Number(i))) if i.is_u64() => i.as_u64(),
            Some(_) => fail!(Protocol, "a stream path does not end with an index"),
        };
        let shown = show(&path);
        let Value::Array(list) = locate(data, &path)? else {
            fail!(Protocol, "stream target {shown} is not a list");
        };
        if let Some(first) = first.filter(|&i| i != list.len() as u64) {
            fail!(
                Protocol,
                "stream items at {shown} start at {first}, not {}",
                list.len()
            );
        }
        list.extend(items);
    } else if let Some(d) = item.remove("data") {
        if let Some(Value::Array(sub)) = item.remove("subPath") {
            path.extend(sub);
        }
        match d {
            Value::Object(_) => {}
            Value::Null => fail!(WrongData, "deferred data at {} is null", show(&path)),
            _ => fail!(
                Protocol,
                "deferred data at {} is not an object",
                show(&path)
            ),
        }
        let target = locate(data, &path)?;
        if !target.is_object() {
            fail!(Protocol, "defer target {} is not an object", show(&path));
        }
        merge(target, d);
    } else {
        fail!(
            Protocol,
            "incremental item at {} has neither data nor items",
            show(&path)
        );
    }
    Ok(())
}

/// The value at `path` in `data`.
fn locate<'a>(data: &'a mut Value, path: &[Value]) -> Result<&'a mut Value, Failure> {
    let mut cur = data;
    for seg in path {
        let next = match (cur, seg) {
            (Value::Object(m), Value::String(k)) => m.get_mut(k),
            (Value::Array(a), Value::Number(i)) => {
                i.as_u64().and_then(|i| a.get_mut(usize::try_from(i).ok()?))
            }
            _ => None,
        };
        let Some(next) = next else {
            fail!(Protocol, "incremental path {} is not in data", show(path));
        };
        cur = next;
    }
    Ok(cur)
}

/// Deep merge: objects key by key, lists of equal length element by element (a deferred
/// fragment may select more fields of objects inside a list already delivered); anything
/// else is replaced, and the comparison with the expected answer judges it.
fn merge(target: &mut Value, src: Value) {
    match (target, src) {
        (Value::Object(t), Value::Object(s)) => {
            for (k, v) in s {
                match t.get_mut(&k) {
                    Some(tv) => merge(tv, v),
                    None => {
                        t.insert(k, v);
                    }
                }
            }
        }
        (Value::Array(t), Value::Array(s)) if t.len() == s.len() => {
            for (tv, v) in t.iter_mut().zip(s) {
                merge(tv, v);
            }
        }
        (t, s) => *t = s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use FailureKind::{GraphqlError, Protocol, WrongData};

    fn run(parts: &[Value]) -> Result<Assembled, Failure> {
        let raw: Vec<Vec<u8>> = parts.iter().map(|p| p.to_string().into_bytes()).collect();
        let slices: Vec<&[u8]> = raw.iter().map(Vec::as_slice).collect();
        assemble(&slices)
    }

    /// Asserts the parts fail with `kind` and a detail containing `needle`.
    fn fails(parts: &[Value], kind: FailureKind, needle: &str) {
        let (k, d) = run(parts).expect_err("should fail");
        assert_eq!(k, kind, "{d}");
        assert!(d.contains(needle), "{d:?} lacks {needle:?}");
    }

    #[test]
    fn two_deferred_fragments_and_a_nested_one() {
        let a = run(&[
            json!({"data": {"hero": {"id": "1"}}, "hasNext": true}),
            json!({"incremental": [{"data": {"name": "Luke", "friends": [{}, {}]},
                "path": ["hero"], "label": "A"}], "hasNext": true}),
            json!({}),
            json!({"incremental": [
                {"data": {"name": "Han"}, "path": ["hero", "friends", 0]},
                {"data": {"name": "Leia"}, "path": ["hero", "friends", 1], "extensions": {}},
                {"data": {"ship": {"name": "Falcon"}}, "path": ["hero"]}
            ], "hasNext": false}),
        ])
        .expect("assembled");
        let want = json!({"hero": {"id": "1", "name": "Luke", "ship": {"name": "Falcon"},
            "friends": [{"name": "Han"}, {"name": "Leia"}]}});
        assert_eq!((a.data, a.parts), (want, 3));
    }

    #[test]
    fn stream_of_a_list_alpha2() {
        let a = run(&[
            json!({"data": {"list": [{"id": 1}]}, "hasNext": true}),
            json!({"incremental": [{"items": [{"id": 2}], "path": ["list", 1]}], "hasNext": true}),
            json!({"incremental": [{"items": [{"id": 3}, {"id": 4}], "path": ["list", 2]}],
                "hasNext": true}),
            json!({"hasNext": false}),
        ])
        .expect("assembled");
        let want = json!({"list": [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}]});
        assert_eq!((a.data, a.parts), (want, 4));
        let first = json!({"data": {"list": [1]}, "hasNext": true});
        let gap = json!({"incremental": [{"items": [3], "path": ["list", 2]}], "hasNext": false});
        fails(&[first, gap], Protocol, "start at 2, not 1");
    }

    #[test]
    fn alpha9_pending_ids_subpath_and_stream() {
        let a = run(&[
            json!({"data": {"hero": {"id": "1", "nested": {"deep": {"a": 1}}}, "list": []},
                "pending": [{"id": "0", "path": ["hero"], "label": "D"},
                            {"id": "1", "path": ["list"]}], "hasNext": true}),
            json!({"incremental": [
                {"id": "0", "data": {"name": "Luke"}},
                {"id": "0", "subPath": ["nested", "deep"], "data": {"b": 2}},
                {"id": "1", "items": ["x", "y"]}
            ], "completed": [{"id": "0"}], "hasNext": true}),
            json!({"incremental": [{"id": "1", "items": ["z"]}], "completed": [{"id": "1"}],
                "hasNext": false}),
        ])
        .expect("assembled");
        let want = json!({"hero": {"id": "1", "name": "Luke", "nested": {"deep": {"a": 1, "b": 2}}},
            "list": ["x", "y", "z"]});
        assert_eq!(a.data, want);
        let first = json!({"data": {}, "pending": [{"id": "0", "path": []}], "hasNext": true});
        let errs = json!({"completed": [{"id": "0", "errors": [{"message": "boom"}]}],
            "hasNext": false});
        fails(&[first.clone(), errs], GraphqlError, "errors: boom");
        let unknown = json!({"incremental": [{"id": "7", "data": {}}], "hasNext": false});
        fails(&[first.clone(), unknown], Protocol, "unknown id");
        let last = json!({"hasNext": false});
        fails(&[first, last], Protocol, "never completed");
    }

    #[test]
    fn heartbeats_are_skipped_and_a_single_part_is_complete() {
        let only = json!({"data": {"a": 1}, "hasNext": false});
        let a = run(&[json!({}), only, json!({})]).expect("assembled");
        assert_eq!((a.data, a.parts), (json!({"a": 1}), 1));
        fails(&[json!({})], Protocol, "no payload part");
        fails(&[], Protocol, "no payload part");
    }

    #[test]
    fn broken_sequences() {
        let (k, d) = assemble(&[br#"{"data":{},"hasNext":true}"#, b"{\"incr"]).expect_err("bad");
        assert_eq!((k, d.starts_with("part 1 is not JSON")), (Protocol, true));
        assert_eq!(assemble(&[b"[1]"]).expect_err("bad").0, Protocol);
        let first = json!({"data": {"user": {"id": "1"}}, "hasNext": true});
        let open = json!({"incremental": [], "hasNext": true});
        fails(&[first.clone(), open], Protocol, "ended with hasNext true");
        let done = json!({"data": {"a": 1}, "hasNext": false});
        let after = json!({"incremental": [], "hasNext": false});
        fails(&[done, after], Protocol, "follows the part");
        let missing = json!({"incremental": [{"data": {"x": 1}, "path": ["user", "friends", 0]}],
            "hasNext": false});
        let needle = r#"path ["user","friends",0] is not in data"#;
        fails(&[first.clone(), missing], Protocol, needle);
        let errs = json!({"incremental": [{"data": null, "path": ["user"],
            "errors": [{"message": "Cannot return null", "path": ["user", "name"]}]}],
            "hasNext": false});
        let needle = "errors: Cannot return null";
        fails(&[first.clone(), errs], GraphqlError, needle);
        let null = json!({"incremental": [{"data": null, "path": ["user"]}], "hasNext": false});
        let needle = r#"deferred data at ["user"] is null"#;
        fails(&[first, null], WrongData, needle);
        fails(
            &[json!({"data": null, "hasNext": false})],
            WrongData,
            "null",
        );
        fails(&[json!({"hasNext": true})], WrongData, "missing");
        fails(&[json!({"data": {}})], Protocol, "no boolean hasNext");
        let long = json!({"data": null, "errors": [{"message": "é".repeat(400)}]});
        let (k, d) = run(&[long]).expect_err("errors");
        assert_eq!(k, GraphqlError);
        assert!(d.len() <= BODY_EXCERPT && d.len() > BODY_EXCERPT - 2);
    }
}
