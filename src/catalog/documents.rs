//! Persisted documents by id (trusted documents, an operation allow-list): the server holds
//! a manifest of documents by id, written before it starts, and clients send an id with
//! the variables instead of the document (`{"documentId": ..., "variables": ...}`, the
//! form GraphQL over HTTP's persisted-documents draft, Hive Router and Hive Gateway read).
//! Unlike APQ nothing is registered at run time: an id the server does not know is an
//! error, never answered by sending the document.
//!
//! A scenario's manifest is either the user's (`[persisted] manifest`: Apollo's persisted
//! query manifest, or Hive's key-value map of id to document), from which each operation's
//! id is looked up by its text, or, without one, made by gqlbench with each document's
//! SHA-256 as its id. Either way the run writes the documents it sends as one Apollo
//! manifest beside its results and gives targets its path (`ENV`).
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::error::CatalogError;

/// The environment variable naming the manifest file a target loads its documents from.
pub const ENV: &str = "GQLBENCH_PERSISTED_DOCUMENTS";

/// The file the run writes beside its results, `<scenario>` replaced.
pub fn file_name(scenario: &str) -> String {
    format!("{scenario}.persisted-documents.json")
}

/// A user's manifest: documents by id, looked up by their text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub path: PathBuf,
    /// Whitespace-collapsed document -> id (a manifest's bodies are often printed
    /// differently from the file the operation came from).
    ids: HashMap<String, String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Format {
    Apollo {
        format: String,
        version: u64,
        operations: Vec<ApolloOperation>,
    },
    KeyValue(HashMap<String, String>),
}

#[derive(Deserialize)]
struct ApolloOperation {
    id: String,
    #[serde(default)]
    name: Option<String>,
    body: String,
}

/// One document of a manifest: its id, its operation's name when the manifest gives it
/// (Apollo's does), and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    pub id: String,
    pub name: Option<String>,
    pub body: String,
}

/// The documents of the manifest at `path` (Apollo's format or a JSON object of id ->
/// document); what is wrong with it names the file.
pub fn read_manifest(path: &Path) -> Result<Vec<ManifestEntry>, CatalogError> {
    let bad = |message: String| CatalogError::File {
        file: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| bad(format!("cannot read the persisted-documents manifest: {e}")))?;
    let parsed: Format = serde_json::from_str(&text).map_err(|e| {
        bad(format!(
            "not a persisted-documents manifest ({e}); expected Apollo's {{\"format\": \"apollo-persisted-query-manifest\", \"version\": 1, \"operations\": [{{\"id\", \"body\", ...}}]}} or a JSON object of id -> document"
        ))
    })?;
    let entries: Vec<ManifestEntry> = match parsed {
        Format::Apollo {
            format,
            version,
            operations,
        } => {
            if format != "apollo-persisted-query-manifest" || version != 1 {
                return Err(bad(format!(
                    "manifest format '{format}' version {version}; only 'apollo-persisted-query-manifest' version 1 (or a JSON object of id -> document) is read"
                )));
            }
            operations
                .into_iter()
                .map(|o| ManifestEntry {
                    id: o.id,
                    name: o.name,
                    body: o.body,
                })
                .collect()
        }
        Format::KeyValue(map) => {
            let mut e: Vec<ManifestEntry> = map
                .into_iter()
                .map(|(id, body)| ManifestEntry {
                    id,
                    name: None,
                    body,
                })
                .collect();
            e.sort_by(|a, b| a.id.cmp(&b.id));
            e
        }
    };
    if entries.is_empty() {
        return Err(bad("the manifest holds no documents".into()));
    }
    if entries.iter().any(|e| e.id.is_empty()) {
        return Err(bad("a document with an empty id".into()));
    }
    Ok(entries)
}

/// The text with every run of whitespace made one space, and commas (insignificant in
/// GraphQL) dropped.
fn collapsed(document: &str) -> String {
    document
        .replace(',', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

impl Manifest {
    /// Reads and parses `path`; what is wrong with it names the file.
    pub fn load(path: &Path) -> Result<Manifest, CatalogError> {
        let mut ids = HashMap::new();
        for e in read_manifest(path)? {
            ids.insert(collapsed(&e.body), e.id);
        }
        Ok(Manifest {
            path: path.to_path_buf(),
            ids,
        })
    }

    /// The id the manifest gives `document`, if it holds it.
    pub fn id_of(&self, document: &str) -> Option<&str> {
        self.ids.get(&collapsed(document)).map(String::as_str)
    }
}

/// What a scenario's documents are named by: the user's manifest, else their SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ids {
    pub manifest: Option<Manifest>,
}

impl Ids {
    /// The id of `document`; None when the user's manifest does not hold it.
    pub fn of(&self, document: &str) -> Option<String> {
        match &self.manifest {
            Some(m) => m.id_of(document).map(str::to_string),
            None => Some(super::persisted::hash(document)),
        }
    }
}

/// The request of the document `id` with `variables`.
pub fn request_body(id: &str, variables: Option<&Value>) -> Vec<u8> {
    let mut m = Map::new();
    m.insert("documentId".into(), Value::String(id.to_string()));
    if let Some(v) = variables.filter(|v| !v.is_null()) {
        m.insert("variables".into(), v.clone());
    }
    serde_json::to_vec(&Value::Object(m)).unwrap_or_default()
}

/// One document of a manifest the run writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub name: String,
    pub body: String,
}

/// `entries` as Apollo's persisted query manifest (read by Hive Router's file storage, and
/// by the Node targets), one entry per id.
pub fn apollo_manifest(entries: &[Entry]) -> Vec<u8> {
    let mut seen = std::collections::HashSet::new();
    let operations: Vec<Value> = entries
        .iter()
        .filter(|e| seen.insert(e.id.clone()))
        .map(|e| json!({"id": e.id, "name": e.name, "type": "query", "body": e.body}))
        .collect();
    let m = json!({
        "format": "apollo-persisted-query-manifest",
        "version": 1,
        "operations": operations,
    });
    serde_json::to_vec_pretty(&m).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) -> PathBuf {
        let p = dir.join("m.json");
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn both_formats_give_ids_by_document_text() {
        let dir = tempfile::tempdir().unwrap();
        let apollo = r#"{"format":"apollo-persisted-query-manifest","version":1,
            "operations":[{"id":"a1","name":"Q","type":"query","body":"query Q { user(id: 1) { id, name } }"}]}"#;
        let m = Manifest::load(&write(dir.path(), apollo)).unwrap();
        assert_eq!(
            m.id_of("query Q {\n  user(id: 1) {\n    id\n    name\n  }\n}\n"),
            Some("a1")
        );
        assert_eq!(m.id_of("query Q { user(id: 2) { id } }"), None);
        let kv = r#"{"app~1~abc":"{ hello }"}"#;
        let m = Manifest::load(&write(dir.path(), kv)).unwrap();
        assert_eq!(m.id_of("{hello}"), None, "tokens apart are kept apart");
        assert_eq!(m.id_of(" { hello } "), Some("app~1~abc"));
    }

    #[test]
    fn what_does_not_parse_names_the_file_and_the_formats() {
        let dir = tempfile::tempdir().unwrap();
        for bad in [
            "not json",
            "[1,2]",
            "{}",
            r#"{"format":"other","version":1,"operations":[]}"#,
            r#"{"":"{ hello }"}"#,
        ] {
            let p = write(dir.path(), bad);
            let e = Manifest::load(&p).unwrap_err().to_string();
            assert!(e.contains("m.json"), "{bad}: {e}");
        }
        let e = Manifest::load(&dir.path().join("missing.json"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("missing.json") && e.contains("cannot read"),
            "{e}"
        );
    }

    #[test]
    fn requests_carry_the_id_not_the_document_and_manifests_hold_each_id_once() {
        let body: Value =
            serde_json::from_slice(&request_body("x1", Some(&json!({"id": 3})))).unwrap();
        assert_eq!(body, json!({"documentId": "x1", "variables": {"id": 3}}));
        let e = |id: &str| Entry {
            id: id.into(),
            name: "Q".into(),
            body: "{ a }".into(),
        };
        let m: Value = serde_json::from_slice(&apollo_manifest(&[e("1"), e("2"), e("1")])).unwrap();
        assert_eq!(m["operations"].as_array().unwrap().len(), 2);
        assert_eq!(m["format"], "apollo-persisted-query-manifest");
        assert_eq!(
            Ids::default().of("{ a }"),
            Some(super::super::persisted::hash("{ a }"))
        );
    }
}
