//! Persisted queries in the catalogue: an operation's requests as Automatic Persisted
//! Queries send them (Apollo's APQ, served by Apollo Server and Router, Mercurius, Yoga's
//! and Hive Gateway's APQ plugin, Cosmo, Grafbase). The short form carries the document's
//! SHA-256 in `extensions.persistedQuery` without the document, as a POST body or as a GET
//! query string; the full form adds the document, and is what a client sends after the
//! server answered `PersistedQueryNotFound` (the engine does so on the same connection).
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// How the short form is sent.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// A POST body, as Apollo Client's persisted-queries link sends by default.
    #[default]
    Post,
    /// A GET request (`useGETForHashedQueries`): cacheable by a CDN.
    Get,
}

/// The SHA-256 of `document` in lower-case hex, as APQ names it.
pub fn hash(document: &str) -> String {
    Sha256::digest(document.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `{"version":1,"sha256Hash":...}` under `persistedQuery`.
fn extensions(document: &str) -> Value {
    json!({ "persistedQuery": { "version": 1, "sha256Hash": hash(document) } })
}

/// The full request (the document with its hash) and the short form of `document` with
/// `variables`, sent by `method`.
pub fn forms(
    document: &str,
    variables: Option<&Value>,
    method: Method,
) -> (Vec<u8>, gqlbench_engine::Persisted) {
    let vars = variables.filter(|v| !v.is_null());
    let mut full = Map::new();
    full.insert("query".into(), Value::String(document.to_string()));
    if let Some(v) = vars {
        full.insert("variables".into(), v.clone());
    }
    full.insert("extensions".into(), extensions(document));
    let full = serde_json::to_vec(&Value::Object(full)).unwrap_or_default();
    let short = match method {
        Method::Post => {
            let mut short = Map::new();
            if let Some(v) = vars {
                short.insert("variables".into(), v.clone());
            }
            short.insert("extensions".into(), extensions(document));
            serde_json::to_vec(&Value::Object(short)).unwrap_or_default()
        }
        Method::Get => {
            let mut q = form_urlencoded::Serializer::new(String::new());
            if let Some(v) = vars {
                q.append_pair("variables", &v.to_string());
            }
            q.append_pair("extensions", &extensions(document).to_string());
            q.finish().into_bytes()
        }
    };
    let persisted = gqlbench_engine::Persisted {
        short: short.into(),
        get: method == Method::Get,
    };
    (full, persisted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_the_documents_sha256() {
        // sha256("{ __typename }"), as `printf '%s' '{ __typename }' | sha256sum` gives.
        assert_eq!(
            hash("{ __typename }"),
            "7f56e67dd21ab3f30d1ff8b7bed08893f0a0db86449836189b361dd1e56ddb4b"
        );
    }

    #[test]
    fn short_forms_carry_the_hash_and_not_the_document() {
        let doc = "query Q($id: ID!) { user(id: $id) { id } }";
        let vars = json!({"id": "7"});
        let (full, post) = forms(doc, Some(&vars), Method::Post);
        let full: Value = serde_json::from_slice(&full).unwrap();
        assert_eq!(full["query"], doc);
        assert_eq!(
            full["extensions"]["persistedQuery"]["sha256Hash"],
            hash(doc)
        );
        assert!(!post.get);
        let short: Value = serde_json::from_slice(&post.short).unwrap();
        assert!(short.get("query").is_none());
        assert_eq!(short["variables"], vars);
        assert_eq!(short["extensions"], full["extensions"]);
        let (_, get) = forms(doc, Some(&vars), Method::Get);
        assert!(get.get);
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(&get.short).into_owned().collect();
        assert_eq!(pairs[0], ("variables".into(), vars.to_string()));
        let ext: Value = serde_json::from_str(&pairs[1].1).unwrap();
        assert_eq!(ext, full["extensions"]);
        assert!(
            !get.short.contains(&b' ') && !get.short.contains(&b'{'),
            "URL-encoded"
        );
    }
}
