//! `init graph`'s operations: copied from a folder of `.graphql` files or written out of a
//! persisted-operations manifest (one file per document, named by its operation), and the
//! commented graph.toml that lists them, with sample values for the variables they need.
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use async_graphql_parser::types::{BaseType, DocumentOperations};

use crate::catalog::documents::read_manifest;
use crate::error::PlanError;

/// The operations of `from` (a folder of `.graphql` files, or a manifest) as (file stem,
/// document), read and checked before `init graph` writes anything.
pub(super) fn read(from: &Path) -> Result<Vec<(String, String)>> {
    let files: Vec<(String, String)> = if from.is_dir() {
        let files = crate::catalog::own_graph::graphql_files(from)
            .with_context(|| format!("reading {}", from.display()))?;
        let mut out = Vec::new();
        for (stem, f) in files {
            let text =
                std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?;
            out.push((stem, text));
        }
        out
    } else if from.is_file() {
        let entries = read_manifest(from)?;
        // Every document is read before anything is written: a manifest refused halfway
        // would leave files that every later `init graph` of the folder trips on.
        for e in &entries {
            if let Err(err) = async_graphql_parser::parse_query(&e.body) {
                return Err(PlanError::Flag {
                    flag: "--operations",
                    message: format!(
                        "{}: entry {:?} is not a GraphQL document ({err}); fix it or leave it out of the manifest",
                        from.display(),
                        e.name.as_deref().unwrap_or(&e.id)
                    ),
                }
                .into());
            }
        }
        entries
            .into_iter()
            .map(|e| {
                let stem = file_stem(e.name.as_deref().unwrap_or(&e.id));
                (stem, e.body)
            })
            .collect()
    } else {
        return Err(PlanError::Flag {
            flag: "--operations",
            message: format!(
                "{} is neither a folder of .graphql files nor a persisted-operations manifest",
                from.display()
            ),
        }
        .into());
    };
    if files.is_empty() {
        return Err(PlanError::Flag {
            flag: "--operations",
            message: format!("{} holds no .graphql file", from.display()),
        }
        .into());
    }
    Ok(files)
}

/// Writes the operations `read` gave into `dest`.
pub(super) fn write(files: Vec<(String, String)>, dest: &Path, force: bool) -> Result<()> {
    if force {
        // Replaced whole: operations of an earlier init that this set lacks would be
        // measured along with it.
        for p in super::init::graphql_files(dest)? {
            std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
        }
    }
    let mut written: Vec<PathBuf> = Vec::new();
    for (stem, text) in files {
        let mut path = dest.join(format!("{stem}.graphql"));
        // Two manifest documents with one operation name: the second gets a number.
        let mut n = 2;
        while written.contains(&path) {
            path = dest.join(format!("{stem}-{n}.graphql"));
            n += 1;
        }
        if path.exists() && !force {
            return Err(PlanError::Flag {
                flag: "--operations",
                message: format!("{} exists; add --force to replace it", path.display()),
            }
            .into());
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    Ok(())
}

/// A name fit for a file: letters, digits, `-` and `_`, the rest made `-`.
fn file_stem(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(80)
        .collect();
    if s.is_empty() {
        "operation".into()
    } else {
        s
    }
}

/// graph.toml as `init graph` first writes it: commented, with an `[operations.X]` section
/// for each operation of `ops` that declares variables (sample values to edit).
pub(super) fn graph_toml(source: Option<&str>, ops: &Path) -> String {
    let mut t = String::from(
        "# A graph of your own for gqlbench (docs/own-graph.md): `gqlbench run federation --graph DIR`.\n",
    );
    if let Some(s) = source {
        t.push_str(&format!(
            "source = {}\n",
            toml_string(&format!("gqlbench init graph --from {s}"))
        ));
    }
    t.push_str(
        "\n# One value in N of a nullable field below the root is null (default 10; 0: never):\n# nulls = 10\n\n# List lengths by Type.field (default 3, at most 1000; a field's Int argument\n# first/last/limit/take/... asks its own):\n# [lists]\n# \"Query.products\" = 10\n\n# The delays scenario's subgraph delays (default: every subgraph 20..150ms):\n# [delays]\n# \"*\" = \"20..150ms\"\n\n# A CPU cost the mocks burn each time they resolve a field (default none):\n# [costs]\n# \"Product.price\" = \"50us\"\n\n# Per operation (file stem): weight (default 1), variables (one set, or a list rotated per\n# request), or values generated per case: [operations.NAME.generate] id = { from = 1, to = 100, format = \"Product-{}\" }\n",
    );
    for f in super::init::graphql_files(ops).unwrap_or_default() {
        let Some(stem) = f.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let vars = sample_variables(&text);
        if vars.is_empty() {
            continue;
        }
        t.push_str(&format!(
            "\n[operations.{}]\nweight = 1\nvariables = {{ {} }}   # sample values: edit them\n",
            toml_key(stem),
            vars.join(", ")
        ));
    }
    t
}

/// `name = value` for each variable of the document's operation, a sample value by type.
fn sample_variables(document: &str) -> Vec<String> {
    let Ok(doc) = async_graphql_parser::parse_query(document) else {
        return Vec::new();
    };
    let op = match &doc.operations {
        DocumentOperations::Single(op) => &op.node,
        DocumentOperations::Multiple(m) => match m.values().next() {
            Some(op) => &op.node,
            None => return Vec::new(),
        },
    };
    op.variable_definitions
        .iter()
        .filter(|v| v.node.default_value.is_none())
        .map(|v| {
            let ty = &v.node.var_type.node;
            let sample = sample(&ty.base);
            format!("{} = {sample}", toml_key(v.node.name.node.as_str()))
        })
        .collect()
}

fn sample(base: &BaseType) -> String {
    match base {
        BaseType::List(inner) => format!("[{}]", sample(&inner.base)),
        BaseType::Named(n) => match n.as_str() {
            "Int" => "1".into(),
            "Float" => "1.5".into(),
            "Boolean" => "true".into(),
            "ID" | "String" => "\"1\"".into(),
            // An enum or input object: its members are in the schema, not here.
            other => format!("\"<a {other}>\""),
        },
    }
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn toml_key(k: &str) -> String {
    if k.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !k.is_empty()
    {
        k.to_string()
    } else {
        toml_string(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_variables_by_type_and_names_made_fit_for_files() {
        let vars = sample_variables(
            "query Q($id: ID!, $n: Int = 3, $tags: [String!]!, $order: Order) { a }",
        );
        assert_eq!(
            vars,
            vec!["id = \"1\"", "tags = [\"1\"]", "order = \"<a Order>\""]
        );
        assert_eq!(file_stem("GetUser"), "GetUser");
        assert_eq!(file_stem("a b/c"), "a-b-c");
        assert_eq!(file_stem(""), "operation");
    }
}
