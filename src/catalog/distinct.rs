//! Distinct operations made from one: copy `i` of a document gives each of its root
//! fields the alias `d<i>_<key>` (its response key, prefixed), so every copy is a document
//! no other copy is: a parse or validation cache, a gateway's query-plan cache, an APQ
//! store each hold one entry per copy, and a set of copies larger than a cache misses it.
//! The answer of copy `i` is the operation's own with its root keys renamed alike, so
//! every copy's answers are checked as exactly as the operation's.
use async_graphql_parser::types::Selection;
use serde_json::{Map, Value};

/// The most copies a scenario may ask for: beyond every cache documented by the targets
/// (Apollo Router 512, Cosmo 1,024, Hive Router and Grafbase 1,000 entries), far below
/// what would make the validator's memory of answers large.
pub const MAX_COPIES: usize = 20_000;

/// Where a root field's response key starts, and the key (alias, else the name).
struct RootField {
    at: usize,
    key: String,
    aliased: bool,
}

/// The root fields of the document's one operation; refused (with why) when its root
/// holds fragments, whose keys could not be renamed here.
fn root_fields(document: &str) -> Result<Vec<RootField>, String> {
    let doc = async_graphql_parser::parse_query(document).map_err(|e| e.to_string())?;
    let mut ops = doc.operations.iter();
    let (Some((_, op)), None) = (ops.next(), ops.next()) else {
        return Err("distinct copies need a document with exactly one operation".into());
    };
    let starts: Vec<usize> = std::iter::once(0)
        .chain(document.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    // Columns count characters from 1; the byte where column `c` of line `l` starts.
    let byte_at = |line: usize, column: usize| -> Option<usize> {
        let start = *starts.get(line.checked_sub(1)?)?;
        let rest = &document[start..];
        rest.char_indices()
            .nth(column.checked_sub(1)?)
            .map(|(i, _)| start + i)
    };
    op.node
        .selection_set
        .node
        .items
        .iter()
        .map(|s| match &s.node {
            Selection::Field(f) => {
                let f = &f.node;
                let (pos, key, aliased) = match &f.alias {
                    Some(a) => (a.pos, a.node.to_string(), true),
                    None => (f.name.pos, f.name.node.to_string(), false),
                };
                let at = byte_at(pos.line, pos.column)
                    .ok_or_else(|| format!("no byte at line {} column {}", pos.line, pos.column))?;
                Ok(RootField { at, key, aliased })
            }
            _ => Err("distinct copies rename root fields; this root holds a fragment".into()),
        })
        .collect()
}

/// Copy `i` of `document`: each root field under the key `d<i>_<key>`.
fn copy(document: &str, roots: &[RootField], i: usize) -> String {
    let mut out = document.to_string();
    // From the last so that earlier offsets stay right.
    for r in roots.iter().rev() {
        let insert = if r.aliased {
            format!("d{i}_")
        } else {
            format!("d{i}_{}: ", r.key)
        };
        out.insert_str(r.at, &insert);
    }
    out
}

/// `data` with its root keys renamed as copy `i` renames them.
fn renamed(data: &Value, i: usize) -> Value {
    match data {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (format!("d{i}_{k}"), v.clone()))
                .collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}

/// `n` distinct copies of `document`, each with the answer `answer(i)` renamed.
pub fn copies(
    document: &str,
    n: usize,
    answer: impl Fn(usize) -> Value,
) -> Result<Vec<(String, Value)>, String> {
    let roots = root_fields(document)?;
    Ok((0..n)
        .map(|i| (copy(document, &roots, i), renamed(&answer(i), i)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn copies_rename_root_keys_alike_in_the_document_and_the_answer() {
        let doc = "query Q($id: ID!) {\n  user(id: $id) { id }\n  me: user(id: \"1\") { id }\n}";
        let c = copies(doc, 3, |_| json!({"user": {"id": "7"}, "me": {"id": "1"}})).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(
            c[2].0,
            "query Q($id: ID!) {\n  d2_user: user(id: $id) { id }\n  d2_me: user(id: \"1\") { id }\n}"
        );
        assert_eq!(
            c[2].1,
            json!({"d2_user": {"id": "7"}, "d2_me": {"id": "1"}})
        );
        // Every copy parses and differs from the others.
        for (d, _) in &c {
            assert!(async_graphql_parser::parse_query(d).is_ok(), "{d}");
        }
        assert!(c[0].0 != c[1].0);
        // A non-ASCII character before a field does not shift the insertion.
        let doc = "# é\n{ hello }";
        assert_eq!(
            copies(doc, 1, |_| json!({"hello": 1})).unwrap()[0].0,
            "# é\n{ d0_hello: hello }"
        );
    }

    #[test]
    fn documents_that_cannot_be_copied_say_why() {
        let e = copies("{ ...F } fragment F on Query { a }", 2, |_| json!({})).unwrap_err();
        assert!(e.contains("fragment"), "{e}");
        let e = copies("query A { a } query B { b }", 2, |_| json!({})).unwrap_err();
        assert!(e.contains("exactly one operation"), "{e}");
    }
}
