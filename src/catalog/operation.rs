//! Operations: a GraphQL document (`scenarios/queries/<name>.graphql`) and its expected
//! answers (`scenarios/expected/<name>.json`, an array of `{variables, data}` cases).
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;
use serde_json::Value;

use crate::error::{CatalogError, PlanError};

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct OperationCase {
    #[serde(default)]
    pub variables: Option<Value>,
    pub data: Value,
    /// A variable (an integer) that takes a value no other request has sent on every
    /// request of a load, counting up from the case's own value: a response cache sees a
    /// new request each time. The answer must not depend on it (checks send the case's
    /// own value; the load checks every answer against `data` all the same).
    #[serde(default)]
    pub unique: Option<String>,
}

/// The largest value a unique variable may start from: GraphQL's Int is 32-bit, and a long
/// run counts up by millions.
pub const UNIQUE_MAX_START: u64 = 1 << 30;

/// Stands for a unique variable's value while its body is serialized, to find its place.
const UNIQUE_MARK: &str = "\u{1}gqlbench-unique\u{1}";

impl OperationCase {
    /// The request body, and where its unique number is when it has one.
    pub fn body(&self, document: &str) -> (Vec<u8>, Option<gqlbench_engine::UniqueNumber>) {
        numbered_body(document, self.variables.as_ref(), self.unique.as_deref())
    }

    /// Refuses a `unique` that does not name an integer variable of the case (case `i` of
    /// the file `path`).
    pub fn check_unique(&self, i: usize, path: &Path) -> Result<(), CatalogError> {
        let Some(name) = &self.unique else {
            return Ok(());
        };
        match unique_start(self.variables.as_ref(), name) {
            Some(v) if v <= UNIQUE_MAX_START => Ok(()),
            _ => Err(CatalogError::File {
                file: path.to_path_buf(),
                message: format!(
                    "case {i}: \"unique\": \"{name}\" must name one of the case's variables whose value is an integer from 0 to {UNIQUE_MAX_START} (the value the requests count up from)"
                ),
            }),
        }
    }
}

#[derive(Debug, Clone)]
pub struct OperationDef {
    pub name: String,
    pub document: String,
    pub document_path: PathBuf,
    /// `scenarios/expected/<name>.json`, where `cases` came from.
    pub expected_path: PathBuf,
    pub cases: Vec<OperationCase>,
    /// The document asks for incremental delivery (`@defer`/`@stream`): its answer comes
    /// in parts (`super::incremental`).
    pub incremental: bool,
    /// How the scenario's kinds have it sent: in batches, as persisted queries, as
    /// distinct copies (`super::forms`).
    pub form: super::forms::OperationForm,
}

impl OperationDef {
    /// Whether its expected answers were computed from mock subgraphs (a user's graph: its
    /// cases come from graph.toml, its answers from `mock::answer`), not read from a file.
    pub fn answers_computed(&self) -> bool {
        self.expected_path
            .file_name()
            .is_some_and(|f| f == crate::catalog::own_graph::GRAPH_TOML)
    }

    /// The engine's form: one pre-serialized request body per case; in batches, one body
    /// per case holding it and the cases after it (wrapping around), so variables vary
    /// within and between batches.
    pub fn to_engine(&self, weight: u32) -> gqlbench_engine::Operation {
        if let Some(n) = self.form.batch {
            return self.batched(weight, n);
        }
        if let Some(op) = self.form.distinct.and_then(|n| self.copied(weight, n)) {
            return op;
        }
        gqlbench_engine::Operation {
            name: self.name.clone(),
            weight,
            variants: self
                .cases
                .iter()
                .map(|c| {
                    if self.form.persisted.is_some() || self.form.documents.is_some() {
                        return self.request(&self.document, c.variables.as_ref(), c.data.clone());
                    }
                    let (body, unique) = c.body(&self.document);
                    gqlbench_engine::Variant {
                        body: body.into(),
                        expected_data: Some(c.data.clone()),
                        unique,
                        batch: None,
                        incremental: self.accept(),
                        persisted: None,
                    }
                })
                .collect(),
        }
    }
}

impl OperationDef {
    /// The `Accept` header of its requests when it asks for incremental delivery (in the
    /// transport the scenario's form names).
    pub(super) fn accept(&self) -> Option<String> {
        self.incremental
            .then(|| self.form.incremental.accept().to_string())
    }
}

/// The value of the variable `name` when it is an integer.
fn unique_start(variables: Option<&Value>, name: &str) -> Option<u64> {
    variables?.get(name)?.as_u64()
}

/// The request body of `document` with `variables`, and, when `unique` names one of them
/// (an integer), where its value is in the body: the engine writes a new number there for
/// every request.
pub fn numbered_body(
    document: &str,
    variables: Option<&Value>,
    unique: Option<&str>,
) -> (Vec<u8>, Option<gqlbench_engine::UniqueNumber>) {
    let (Some(name), Some(from)) = (unique, unique.and_then(|n| unique_start(variables, n))) else {
        return (request_body(document, variables), None);
    };
    let mut vars = variables.cloned().unwrap_or(Value::Null);
    vars[name] = Value::String(UNIQUE_MARK.into());
    let marked = request_body(document, Some(&vars));
    let mark = serde_json::to_vec(&Value::String(UNIQUE_MARK.into())).unwrap_or_default();
    let Some(at) = marked.windows(mark.len()).position(|w| w == mark) else {
        return (request_body(document, variables), None);
    };
    let digits = from.to_string();
    let mut body = marked[..at].to_vec();
    body.extend_from_slice(digits.as_bytes());
    body.extend_from_slice(&marked[at + mark.len()..]);
    let unique = gqlbench_engine::UniqueNumber {
        at,
        len: digits.len(),
        from,
    };
    (body, Some(unique))
}

/// `{"query": ..., "variables": ...}` as sent on the wire.
pub fn request_body(document: &str, variables: Option<&Value>) -> Vec<u8> {
    let mut obj = serde_json::Map::new();
    obj.insert("query".into(), Value::String(document.to_string()));
    if let Some(v) = variables {
        if !v.is_null() {
            obj.insert("variables".into(), v.clone());
        }
    }
    serde_json::to_vec(&Value::Object(obj)).unwrap_or_default()
}

/// Refuses a document that cannot be an operation: empty, not GraphQL, or with no
/// operation in it. Sending it would only measure a server's error path, so it is a fault
/// of the file, caught before anything starts. `file` names it in the message.
pub fn check_document(document: &str, file: &Path) -> Result<(), CatalogError> {
    let bad = |message: String| CatalogError::File {
        file: file.to_path_buf(),
        message,
    };
    if document.trim().is_empty() {
        return Err(bad(
            "is empty; write a GraphQL operation, e.g. `{ __typename }`".into(),
        ));
    }
    // The parser also refuses a document without an operation (fragments only).
    async_graphql_parser::parse_query(document)
        .map(|_| ())
        .map_err(|e| bad(format!("is not a GraphQL document: {e}")))
}

/// A document alone, for operations that have no expected answer: one a server must refuse
/// (a depth-limit probe) or a subscription.
pub fn load_document(scenarios: &Path, name: &str) -> Result<(String, PathBuf)> {
    if name
        .split('/')
        .any(|p| p.is_empty() || p == "." || p == "..")
    {
        return Err(PlanError::Flag {
            flag: "operation",
            message: format!("'{name}' is not an operation name; write e.g. \"social/simple\""),
        }
        .into());
    }
    let doc_path = scenarios.join("queries").join(format!("{name}.graphql"));
    if !doc_path.is_file() {
        let valid = list_operations(scenarios);
        return Err(CatalogError::unknown("operation", name, valid).into());
    }
    let document = std::fs::read_to_string(&doc_path)
        .with_context(|| format!("reading {}", doc_path.display()))?;
    check_document(&document, &doc_path)?;
    Ok((document, doc_path))
}

pub fn load_operation(scenarios: &Path, name: &str) -> Result<OperationDef> {
    let (document, doc_path) = load_document(scenarios, name)?;
    let exp_path = scenarios.join("expected").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&exp_path).with_context(|| {
        format!(
            "reading the expected answers {} of operation '{name}'",
            exp_path.display()
        )
    })?;
    let cases: Vec<OperationCase> = serde_json::from_str(&text).map_err(|e| CatalogError::File {
        file: exp_path.clone(),
        message: format!(
            "{e}; expected a JSON array of cases [{{\"variables\": {{...}} or null, \"data\": {{...}}}}]"
        ),
    })?;
    if cases.is_empty() {
        return Err(CatalogError::File {
            file: exp_path,
            message: "no cases; give at least one {\"variables\": null, \"data\": {...}}".into(),
        }
        .into());
    }
    for (i, c) in cases.iter().enumerate() {
        c.check_unique(i, &exp_path)?;
    }
    Ok(OperationDef {
        name: name.to_string(),
        incremental: super::incremental::asks_incremental(&document),
        document,
        document_path: doc_path,
        expected_path: exp_path,
        cases,
        form: Default::default(),
    })
}

/// Every operation name under `scenarios/queries`, e.g. `social/simple`.
pub fn list_operations(scenarios: &Path) -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.filter_map(|e| e.ok()) {
            let p = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if p.is_dir() {
                walk(&p, &format!("{prefix}{name}/"), out);
            } else if let Some(stem) = name.strip_suffix(".graphql") {
                out.push(format!("{prefix}{stem}"));
            }
        }
    }
    let mut out = Vec::new();
    walk(&scenarios.join("queries"), "", &mut out);
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_has_query_and_variables() {
        let b = request_body("{ a }", Some(&serde_json::json!({"id": "1"})));
        let v: Value = serde_json::from_slice(&b).unwrap();
        assert_eq!(v["query"], "{ a }");
        assert_eq!(v["variables"]["id"], "1");
        let b = request_body("{ a }", None);
        let v: Value = serde_json::from_slice(&b).unwrap();
        assert!(v.get("variables").is_none());
    }

    #[test]
    fn documents_that_cannot_be_operations_are_refused() {
        let f = Path::new("q.graphql");
        assert!(check_document("{ user(id: \"1\") { id } }", f).is_ok());
        assert!(check_document("subscription { ticks { n } }", f).is_ok());
        for (doc, why) in [
            ("", "empty"),
            ("  \n", "empty"),
            ("{ user(id: ", "not a GraphQL document"),
            ("<html>oops</html>", "not a GraphQL document"),
            ("fragment F on User { id }", "does not contain an operation"),
        ] {
            let e = check_document(doc, f).unwrap_err().to_string();
            assert!(e.contains(why) && e.contains("q.graphql"), "{doc:?}: {e}");
        }
    }

    #[test]
    fn batches_hold_consecutive_cases_and_their_answers() {
        let op = OperationDef {
            name: "x/op".into(),
            document: "query Q($id: ID!) { user(id: $id) { id } }".into(),
            document_path: PathBuf::new(),
            expected_path: PathBuf::new(),
            cases: (0..3)
                .map(|i| OperationCase {
                    variables: Some(serde_json::json!({ "id": i.to_string() })),
                    data: serde_json::json!({"user": {"id": i.to_string()}}),
                    unique: None,
                })
                .collect(),
            incremental: false,
            form: super::super::forms::OperationForm {
                batch: Some(4),
                ..Default::default()
            },
        };
        let e = op.to_engine(2);
        assert_eq!((e.weight, e.variants.len()), (2, 3));
        let v = &e.variants[2];
        assert_eq!(v.batch, Some(4));
        let sent: Value = serde_json::from_slice(&v.body).unwrap();
        let ids: Vec<&str> = sent
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["variables"]["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["2", "0", "1", "2"]);
        let want = v.expected_data.as_ref().unwrap().as_array().unwrap();
        assert_eq!(want.len(), 4);
        assert_eq!(want[1], serde_json::json!({"user": {"id": "0"}}));
    }

    #[test]
    fn bad_expected_file_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("queries/x")).unwrap();
        std::fs::create_dir_all(dir.path().join("expected/x")).unwrap();
        std::fs::write(dir.path().join("queries/x/op.graphql"), "{ a }").unwrap();
        std::fs::write(dir.path().join("expected/x/op.json"), "{\"data\": 1}").unwrap();
        let err = load_operation(dir.path(), "x/op").unwrap_err().to_string();
        assert!(err.contains("expected/x/op.json"), "{err}");
        assert!(err.contains("array of cases"), "{err}");
        let err = load_operation(dir.path(), "x/nope")
            .unwrap_err()
            .to_string();
        assert!(err.contains("x/op"), "lists valid names: {err}");
    }

    #[test]
    fn a_unique_variable_is_found_in_the_body_and_bad_ones_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("queries/x")).unwrap();
        std::fs::create_dir_all(dir.path().join("expected/x")).unwrap();
        let doc = "query Q($id: ID!, $n: Int) { user(id: $id) { posts(limit: $n) { id } } }";
        std::fs::write(dir.path().join("queries/x/op.graphql"), doc).unwrap();
        let write = |cases: &str| {
            std::fs::write(dir.path().join("expected/x/op.json"), cases).unwrap();
        };
        write(r#"[{"variables": {"id": "7", "n": 10}, "unique": "n", "data": {}}]"#);
        let op = load_operation(dir.path(), "x/op").unwrap().to_engine(1);
        let v = &op.variants[0];
        let u = v.unique.expect("a unique number");
        assert_eq!((u.len, u.from), (2, 10));
        assert_eq!(&v.body[u.at..u.at + u.len], b"10");
        // The body as written is the case's own request.
        let sent: Value = serde_json::from_slice(&v.body).unwrap();
        assert_eq!(sent["variables"], serde_json::json!({"id": "7", "n": 10}));
        for bad in [
            r#"[{"variables": {"id": "7", "n": 10}, "unique": "m", "data": {}}]"#,
            r#"[{"variables": {"id": "7", "n": "10"}, "unique": "n", "data": {}}]"#,
            r#"[{"variables": {"id": "7", "n": -1}, "unique": "n", "data": {}}]"#,
            r#"[{"variables": null, "unique": "n", "data": {}}]"#,
        ] {
            write(bad);
            let err = load_operation(dir.path(), "x/op").unwrap_err().to_string();
            assert!(
                err.contains("expected/x/op.json")
                    && err.contains("case 0")
                    && err.contains("unique"),
                "{bad}: {err}"
            );
        }
    }
}
