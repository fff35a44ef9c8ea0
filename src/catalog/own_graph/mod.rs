//! A user's own graph (docs/own-graph.md): a folder made by `gqlbench init graph` holding
//! its subgraphs' SDL (`subgraphs/*.graphql`), the supergraph composed from them with
//! placeholder URLs (`supergraph.graphql`), its operations (`operations/*.graphql`) and
//! `graph.toml` (list lengths, delays, weights and variables). Loaded and checked before
//! anything starts: each operation is validated against the supergraph and its expected
//! answers are computed from the mock subgraphs' deterministic data. Every fault is bad
//! input naming the file (and field, line and column).
pub mod file;
mod operations;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::CatalogError;
pub use file::GraphFile;
use gqlbench_subgraphs::mock::MockConfig;

use super::OperationDef;

/// Where a user's graph's placeholder ports start, one per subgraph in alphabetical order
/// of the names (targets/_federation/compose.mjs --dir writes the same).
pub const FIRST_PORT: u16 = 4401;

/// The delay every subgraph gets in the delays scenario when graph.toml gives none.
pub const DEFAULT_DELAY: &str = "20..150ms";

/// The graph folder's settings file: list lengths, weights, variables, costs, delays.
pub const GRAPH_TOML: &str = "graph.toml";

#[derive(Debug)]
pub struct OwnGraph {
    /// The folder, absolute.
    pub dir: PathBuf,
    /// The folder's name: operations are named `<name>/<file stem>`.
    pub name: String,
    /// Subgraph names (file stems of `subgraphs/*.graphql`), in alphabetical order: the
    /// order of the supergraph's placeholder ports.
    pub subgraphs: Vec<String>,
    pub file: GraphFile,
    /// Operations with weights above zero, with their computed expected answers.
    pub operations: Vec<(OperationDef, u32)>,
    /// What the mocks do not honour, one line per field (the rest is served).
    pub warnings: Vec<String>,
    /// Operations left out, unchecked: the mocks cannot serve them consistently (file
    /// stem, why, naming the construct and the response path).
    pub left_out: Vec<(String, String)>,
}

impl OwnGraph {
    pub fn subgraph_dir(&self) -> PathBuf {
        self.dir.join("subgraphs")
    }

    pub fn supergraph(&self) -> PathBuf {
        self.dir.join("supergraph.graphql")
    }

    /// The mocks' list lengths, costs and nulls (checked when the graph was loaded).
    pub fn mock_config(&self) -> MockConfig {
        let base = MockConfig::default();
        MockConfig {
            lists: self.file.lists.clone(),
            costs: self.costs().unwrap_or_default(),
            null_every: self.file.nulls.unwrap_or(base.null_every),
            ..base
        }
    }

    /// The subgraphs written in Federation 1 style: no `@link` to the Federation 2
    /// specification. Composition reads them by Federation 1's rules and upgrades them for
    /// the supergraph; `init` says so.
    pub fn federation1_subgraphs(&self) -> Vec<String> {
        graphql_files(&self.subgraph_dir())
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, path)| {
                std::fs::read_to_string(path)
                    .is_ok_and(|sdl| !sdl.contains("specs.apollo.dev/federation/v2"))
            })
            .map(|(name, _)| name)
            .collect()
    }

    /// graph.toml's `[costs]`, as the mocks' `--cost` flags.
    pub fn cost_flags(&self) -> Vec<String> {
        self.file
            .costs
            .iter()
            .map(|(path, d)| format!("{path}={d}"))
            .collect()
    }

    fn costs(&self) -> anyhow::Result<BTreeMap<String, std::time::Duration>> {
        gqlbench_subgraphs::mock::cost::parse_costs(&self.cost_flags())
    }

    /// The delays scenario's delays: graph.toml's `[delays]`, else every subgraph
    /// [`DEFAULT_DELAY`]; `*` stands for every subgraph not named.
    pub fn delays(&self) -> BTreeMap<String, String> {
        if self.file.delays.is_empty() {
            return BTreeMap::from([("*".to_string(), DEFAULT_DELAY.to_string())]);
        }
        self.file.delays.clone()
    }

    /// Reads and checks the folder `dir`.
    pub fn load(dir: &Path) -> Result<OwnGraph, CatalogError> {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let bad = |file: PathBuf, message: String| CatalogError::File { file, message };
        if !dir.is_dir() {
            return Err(bad(
                dir,
                "is not a folder; make one with `gqlbench init graph DIR --from SUPERGRAPH` (docs/own-graph.md)".into(),
            ));
        }
        let subgraphs = subgraph_names(&dir.join("subgraphs"))?;
        let supergraph = dir.join("supergraph.graphql");
        if !supergraph.is_file() {
            return Err(bad(
                supergraph,
                format!(
                    "missing: compose the subgraphs with `gqlbench init graph {}`",
                    dir.display()
                ),
            ));
        }
        if let Some(composed_from) = recorded_digest(&supergraph) {
            let now = subgraphs_digest(&dir.join("subgraphs"))
                .map_err(|e| bad(dir.join("subgraphs"), format!("{e:#}")))?;
            if now != composed_from {
                return Err(bad(
                    supergraph,
                    format!(
                        "was composed from other subgraph SDL than subgraphs/ holds now: compose again with `gqlbench init graph {}`",
                        dir.display()
                    ),
                ));
            }
        }
        let toml_path = dir.join(GRAPH_TOML);
        let file: GraphFile = if toml_path.is_file() {
            let text = std::fs::read_to_string(&toml_path)
                .map_err(|e| bad(toml_path.clone(), format!("cannot read: {e}")))?;
            toml::from_str(&text).map_err(|e| bad(toml_path.clone(), e.to_string()))?
        } else {
            GraphFile::default()
        };
        for (name, spec) in &file.delays {
            if name != "*" && !subgraphs.contains(name) {
                return Err(bad(
                    toml_path.clone(),
                    format!(
                        "[delays] names no subgraph '{name}'; valid: {} or \"*\" (every subgraph)",
                        subgraphs.join(", ")
                    ),
                ));
            }
            gqlbench_subgraphs::delay::DelaySpec::parse_with(&format!("{name}={spec}"), |_| Ok(0))
                .map_err(|e| bad(toml_path.clone(), format!("[delays] {name}: {e}")))?;
        }
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("graph")
            .to_string();
        let graph = OwnGraph {
            dir,
            name,
            subgraphs,
            file,
            operations: Vec::new(),
            warnings: Vec::new(),
            left_out: Vec::new(),
        };
        graph
            .costs()
            .map_err(|e| bad(toml_path.clone(), format!("[costs]: {e:#}")))?;
        let loaded = operations::load(&graph)?;
        Ok(OwnGraph {
            operations: loaded.operations,
            warnings: loaded.warnings,
            left_out: loaded.left_out,
            ..graph
        })
    }
}

/// The subgraph names of `dir/*.graphql`, sorted; none is an error.
pub fn subgraph_names(dir: &Path) -> Result<Vec<String>, CatalogError> {
    let bad = |message: String| CatalogError::File {
        file: dir.to_path_buf(),
        message,
    };
    let names: Vec<String> = graphql_files(dir)
        .map_err(|e| {
            bad(format!(
                "cannot read the subgraphs folder ({e}); it holds one SDL file per subgraph, e.g. subgraphs/products.graphql"
            ))
        })?
        .into_iter()
        .map(|(stem, _)| stem)
        .collect();
    if names.is_empty() {
        return Err(bad(
            "has no *.graphql file; give one Federation v2 SDL file per subgraph".into(),
        ));
    }
    Ok(names)
}

/// `(file stem, path)` of every `dir/*.graphql` file, sorted: a graph folder's subgraphs
/// and operations, and what `init graph` copies.
pub fn graphql_files(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "graphql"))
        .filter_map(|p| Some((p.file_stem()?.to_str()?.to_string(), p.clone())))
        .collect();
    files.sort();
    Ok(files)
}

/// The first line of a supergraph `init graph` composed: the digest of the SDL it was
/// composed from. (Not file times: a fresh clone gives every file the same.)
pub const DIGEST_PREFIX: &str = "# gqlbench: composed from subgraphs/ with SHA-256 ";

/// SHA-256 over each `dir/*.graphql`'s name and text, in name order.
pub fn subgraphs_digest(dir: &Path) -> anyhow::Result<String> {
    use anyhow::Context as _;
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for name in subgraph_names(dir)? {
        let path = dir.join(format!("{name}.graphql"));
        let text = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update((text.len() as u64).to_le_bytes());
        h.update(&text);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The digest a supergraph records, if it records one.
fn recorded_digest(supergraph: &Path) -> Option<String> {
    let text = std::fs::read_to_string(supergraph).ok()?;
    let line = text.lines().next()?;
    line.strip_prefix(DIGEST_PREFIX)
        .map(|d| d.trim().to_string())
}
