//! A user's graph's operations: `operations/*.graphql`, one operation per file, each
//! validated against the graph's supergraph (a field the graph lacks is bad input naming
//! file, line and column), with its variable cases from graph.toml and, for each case, the
//! expected answer computed from the mock subgraphs' deterministic data
//! (`gqlbench_subgraphs::mock::answer`): no answer is written by hand.
use std::path::{Path, PathBuf};

use gqlbench_subgraphs::mock::answer::{AnswerError, Graph};
use gqlbench_subgraphs::mock::MockConfig;
use serde_json::Value;

use super::OwnGraph;
use crate::catalog::graph_check::GraphSchema;
use crate::catalog::{OperationCase, OperationDef};
use crate::error::CatalogError;

/// The largest answer an operation may have: list lengths multiply, and a response this
/// big measures the network and JSON, not the gateway.
pub const MAX_ANSWER_BYTES: usize = 64 << 20;

/// The operations with their answers, what the mocks do not honour (per field), and the
/// operations left out because the mocks cannot serve them consistently (file stem, why).
pub(super) struct Loaded {
    pub operations: Vec<(OperationDef, u32)>,
    pub warnings: Vec<String>,
    pub left_out: Vec<(String, String)>,
}

pub(super) fn load(graph: &OwnGraph) -> Result<Loaded, CatalogError> {
    let dir = graph.dir.join("operations");
    let toml_path = graph.dir.join(super::GRAPH_TOML);
    let bad = |file: &Path, message: String| CatalogError::File {
        file: file.to_path_buf(),
        message,
    };
    let files = operation_files(&dir)?;
    for stem in graph.file.operations.keys() {
        if !files.iter().any(|(s, _)| s == stem) {
            return Err(bad(
                &toml_path,
                format!(
                    "[operations.{stem}] names no file operations/{stem}.graphql; valid: {}",
                    names(&files)
                ),
            ));
        }
    }
    let schema = GraphSchema::load(&graph.supergraph())?;
    // The SDL alone first, so that a fault of the lists is blamed on graph.toml.
    let mocks = |config: &MockConfig| Graph::load_dir(&graph.subgraph_dir(), config);
    mocks(&MockConfig::default()).map_err(|e| bad(&graph.subgraph_dir(), format!("{e:#}")))?;
    // The executable schemas the mock subgraphs serve, as `subgraphs mock` builds them: one
    // the mocks cannot build (e.g. a covariant interface field async-graphql refuses) would
    // fail every gateway at start, which is no fault of theirs.
    gqlbench_subgraphs::mock::MockSubgraph::load_dir(&graph.subgraph_dir(), &MockConfig::default())
        .map_err(|e| {
            bad(
                &graph.subgraph_dir(),
                format!("the mock subgraphs cannot serve it: {e:#}; see docs/own-graph.md (what the mocks serve)"),
            )
        })?;
    let mocks = mocks(&graph.mock_config())
        .map_err(|e| bad(&toml_path, format!("[lists] or [costs]: {e:#}")))?;
    let mut out = Vec::new();
    let mut left_out = Vec::new();
    'files: for (stem, path) in &files {
        let spec = graph.file.operations.get(stem).cloned().unwrap_or_default();
        let weight = spec.weight.unwrap_or(1);
        if weight == 0 {
            continue;
        }
        let document =
            std::fs::read_to_string(path).map_err(|e| bad(path, format!("cannot read: {e}")))?;
        crate::catalog::operation::check_document(&document, path)?;
        let parsed = async_graphql_parser::parse_query(&document).ok();
        let count = parsed.as_ref().map_or(0, |d| d.operations.iter().count());
        if count != 1 {
            return Err(bad(
                path,
                format!("holds {count} operations; put one operation in each file"),
            ));
        }
        schema.check(&document, path).map_err(|e| {
            bad(
                path,
                format!(
                    "does not fit the graph's supergraph {}: {e}",
                    schema.path.display()
                ),
            )
        })?;
        let variables = spec
            .cases()
            .map_err(|e| bad(&toml_path, format!("[operations.{stem}] {e}")))?;
        // The gateways run on a user's graph as their targets are set up for `federation`,
        // without incremental delivery (the federation-defer scenario measures it on the
        // built-in graph): an operation asking for it would be refused by every one.
        if crate::catalog::incremental::asks_incremental(&document) {
            left_out.push((
                stem.clone(),
                "it asks for incremental delivery (@defer/@stream), which the gateways of `run federation --graph` are not set up to serve (the federation-defer scenario measures it)".into(),
            ));
            continue;
        }
        let needed = parsed.as_ref().map(required_variables).unwrap_or_default();
        let mut cases = Vec::new();
        for vars in variables {
            if let Some(missing) = needed.iter().find(|v| !vars.contains_key(v.as_str())) {
                return Err(bad(
                    &toml_path,
                    format!(
                        "[operations.{stem}] variables: operations/{stem}.graphql needs ${missing} (non-null, no default); give it, e.g. variables = {{ {missing} = ... }}"
                    ),
                ));
            }
            match case(&mocks, stem, (path, &toml_path), &document, vars)? {
                Ok(c) => cases.push(c),
                // Not checkable, through no fault of the operation or of a gateway: left
                // out with why, the rest run.
                Err(why) => {
                    left_out.push((stem.clone(), why));
                    continue 'files;
                }
            }
        }
        out.push((
            OperationDef {
                name: format!("{}/{stem}", graph.name),
                incremental: false,
                document,
                document_path: path.clone(),
                expected_path: toml_path.clone(),
                cases,
                form: Default::default(),
            },
            weight,
        ));
    }
    if out.is_empty() && !left_out.is_empty() {
        let each: Vec<String> = left_out
            .iter()
            .map(|(stem, why)| format!("operations/{stem}.graphql: {why}"))
            .collect();
        return Err(bad(
            &dir,
            format!(
                "no operation can be checked: the mock subgraphs cannot serve any of them consistently, so a gateway's answer could not be judged ({}). Add an operation that stays clear of these, or see docs/own-graph.md (what the mocks serve)",
                each.join("; ")
            ),
        ));
    }
    if out.is_empty() {
        return Err(bad(
            &dir,
            "no operation with a weight above 0; add e.g. operations/products.graphql holding `{ products { id } }`".into(),
        ));
    }
    Ok(Loaded {
        operations: out,
        warnings: mocks.warnings(),
        left_out,
    })
}

/// One case of operation `stem` (its file and graph.toml): its expected answer computed
/// from the mocks, or (inner Err) why the mocks cannot serve it consistently.
fn case(
    mocks: &Graph,
    stem: &str,
    (path, toml_path): (&Path, &Path),
    document: &str,
    vars: serde_json::Map<String, Value>,
) -> Result<Result<OperationCase, String>, CatalogError> {
    let bad = |file: &Path, message: String| CatalogError::File {
        file: file.to_path_buf(),
        message,
    };
    let data = match mocks.answer(document, None, &vars) {
        Ok(data) => data,
        Err(AnswerError::Unsupported(why)) => return Ok(Err(why)),
        Err(AnswerError::Failed(e)) if e.contains("over 64 MiB") => {
            return Err(bad(toml_path, format!("[lists]: operation {stem}: {e}")));
        }
        Err(AnswerError::Failed(e)) => {
            return Err(bad(
                path,
                format!("cannot compute its expected answer: {e}"),
            ));
        }
    };
    let size = serde_json::to_vec(&data).map(|b| b.len()).unwrap_or(0);
    if size > MAX_ANSWER_BYTES {
        return Err(bad(
            toml_path,
            format!(
                "[lists]: operation {stem}'s answer would be {} MiB, over the {} MiB limit; shorten the lists it reaches",
                size >> 20,
                MAX_ANSWER_BYTES >> 20
            ),
        ));
    }
    Ok(Ok(OperationCase {
        variables: (!vars.is_empty()).then_some(Value::Object(vars)),
        data,
        unique: None,
    }))
}

/// The variables an operation cannot run without: non-null and with no default.
fn required_variables(doc: &async_graphql_parser::types::ExecutableDocument) -> Vec<String> {
    doc.operations
        .iter()
        .flat_map(|(_, op)| op.node.variable_definitions.clone())
        .filter(|v| !v.node.var_type.node.nullable && v.node.default_value.is_none())
        .map(|v| v.node.name.node.to_string())
        .collect()
}

/// `(stem, path)` of every `dir/*.graphql`, sorted.
fn operation_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, CatalogError> {
    super::graphql_files(dir).map_err(|e| CatalogError::File {
        file: dir.to_path_buf(),
        message: format!(
            "cannot read the operations folder ({e}); it holds one operation per .graphql file"
        ),
    })
}

fn names(files: &[(String, PathBuf)]) -> String {
    if files.is_empty() {
        return "(none)".into();
    }
    files
        .iter()
        .map(|(s, _)| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
