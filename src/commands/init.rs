//! `gqlbench init graph DIR`: a folder for benchmarking the gateways on a user's own graph
//! (docs/own-graph.md). Its subgraphs' SDL is extracted from a supergraph or copied from a
//! folder, composed with the federation suite's composition library
//! (targets/_federation), the operations are copied or taken from a persisted-operations
//! manifest, a commented graph.toml is written, and the folder is loaded as a run would
//! load it (every operation validated and answered), so what `run` would refuse is said
//! here.
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};

use crate::catalog::own_graph::{self, OwnGraph};
use crate::cli::InitGraphArgs;
use crate::error::{CatalogError, PlanError};

pub fn graph(root: &Path, a: &InitGraphArgs) -> Result<ExitCode> {
    let dir = std::path::absolute(&a.dir).unwrap_or_else(|_| a.dir.clone());
    let subgraphs = dir.join("subgraphs");
    if a.from.is_none() && !subgraphs.is_dir() {
        return Err(PlanError::Flag {
            flag: "--from",
            message: format!(
                "{} has no subgraphs/ yet: give --from SUPERGRAPH (a supergraph SDL file) or --from DIR (a folder of subgraph SDL files)",
                dir.display()
            ),
        }
        .into());
    }
    let tools = federation_tools(root)?;
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    if let Some(from) = &a.from {
        take_subgraphs(&tools, from, &subgraphs, a.force)?;
    }
    compose(&tools, &dir)?;
    let ops = dir.join("operations");
    std::fs::create_dir_all(&ops).with_context(|| format!("creating {}", ops.display()))?;
    if let Some(from) = &a.operations {
        super::init_operations::take(from, &ops, a.force)?;
    }
    let toml_path = dir.join("graph.toml");
    if !toml_path.exists() {
        let source = a.from.as_ref().map(|f| f.display().to_string());
        std::fs::write(
            &toml_path,
            super::init_operations::graph_toml(source.as_deref(), &ops),
        )
        .with_context(|| format!("writing {}", toml_path.display()))?;
    }
    let graph = OwnGraph::load(&dir)?;
    eprintln!(
        "{}: {} subgraphs ({}), {} operations:",
        dir.display(),
        graph.subgraphs.len(),
        graph.subgraphs.join(", "),
        graph.operations.len()
    );
    for (op, weight) in &graph.operations {
        eprintln!(
            "  {} (weight {weight}, {} variable set{}, answers computed)",
            op.name,
            op.cases.len(),
            if op.cases.len() == 1 { "" } else { "s" }
        );
    }
    if !graph.warnings.is_empty() {
        eprintln!(
            "the mock subgraphs do not honour (the rest is served):\n  {}",
            graph.warnings.join("\n  ")
        );
    }
    eprintln!(
        "next: gqlbench run federation --graph {} (edit graph.toml for list lengths, weights and variables)",
        a.dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// targets/_federation with its npm packages installed.
fn federation_tools(root: &Path) -> Result<PathBuf> {
    let tools = root.join("targets/_federation");
    if tools
        .join("node_modules/@theguild/federation-composition")
        .is_dir()
    {
        return Ok(tools);
    }
    eprintln!(
        "installing the composition library (npm ci in {}) ...",
        tools.display()
    );
    let st = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&tools)
        .status()
        .context("running npm (install Node.js 20+ and npm: https://nodejs.org)")?;
    if !st.success() {
        bail!("npm ci in {} failed ({st})", tools.display());
    }
    Ok(tools)
}

/// Runs `node <script> args` in `cwd`; Err(stderr) when it exits 1 (bad input).
fn node(tools: &Path, cwd: &Path, script: &str, args: &[&str]) -> Result<Result<(), String>> {
    let out = Command::new("node")
        .arg(tools.join(script))
        .args(args)
        .current_dir(cwd)
        .output()
        .context("running node (install Node.js 20+: https://nodejs.org)")?;
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    match out.status.code() {
        Some(0) => Ok(Ok(())),
        Some(1) => Ok(Err(stderr)),
        _ => bail!("node {script} failed ({}): {stderr}", out.status),
    }
}

/// The subgraphs' SDL into `dest`: extracted from a supergraph file, or copied from a
/// folder of SDL files.
fn take_subgraphs(tools: &Path, from: &Path, dest: &Path, force: bool) -> Result<()> {
    if dest.is_dir() && has_graphql(dest) && !force {
        return Err(PlanError::Flag {
            flag: "--from",
            message: format!(
                "{} already holds subgraphs; add --force to replace them, or leave --from out to compose them again",
                dest.display()
            ),
        }
        .into());
    }
    if dest.is_dir() {
        for p in graphql_files(dest)? {
            std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
        }
    }
    std::fs::create_dir_all(dest).with_context(|| format!("creating {}", dest.display()))?;
    if from.is_dir() {
        let files = graphql_files(from)?;
        if files.is_empty() {
            return Err(CatalogError::File {
                file: from.to_path_buf(),
                message: "has no *.graphql file; give one Federation v2 SDL file per subgraph, or a supergraph file".into(),
            }
            .into());
        }
        for f in files {
            let name = f.file_name().context("a file without a name")?;
            std::fs::copy(&f, dest.join(name))
                .with_context(|| format!("copying {}", f.display()))?;
        }
        return Ok(());
    }
    if !from.is_file() {
        return Err(PlanError::Flag {
            flag: "--from",
            message: format!(
                "{} is neither a supergraph file nor a folder of subgraph SDL",
                from.display()
            ),
        }
        .into());
    }
    let (f, d) = (from.display().to_string(), dest.display().to_string());
    node(
        tools,
        dest,
        "extract.mjs",
        &["--supergraph", &f, "--out", &d],
    )?
    .map_err(|e| CatalogError::File {
        file: from.to_path_buf(),
        message: format!("its subgraphs cannot be extracted:\n{e}"),
    })?;
    Ok(())
}

/// Composes `dir/subgraphs` into `dir/supergraph.graphql`, headed by the digest of the
/// SDL it was composed from (a run refuses a supergraph its subgraphs have moved on
/// from). Composition errors are bad input naming the subgraphs.
fn compose(tools: &Path, dir: &Path) -> Result<()> {
    let subgraphs = dir.join("subgraphs");
    let tmp = dir.join("supergraph.graphql.tmp");
    let t = tmp.display().to_string();
    // From the folder, so the supergraph's header names subgraphs/, not a path of this machine.
    if let Err(e) = node(
        tools,
        dir,
        "compose.mjs",
        &["--dir", "subgraphs", "--out", &t],
    )? {
        let _ = std::fs::remove_file(&tmp);
        return Err(CatalogError::File {
            file: subgraphs,
            message: format!("the subgraphs do not compose:\n{e}"),
        }
        .into());
    }
    let text = std::fs::read_to_string(&tmp).with_context(|| format!("reading {t}"))?;
    let digest = own_graph::subgraphs_digest(&subgraphs)?;
    let out = dir.join("supergraph.graphql");
    std::fs::write(
        &out,
        format!("{}{digest}\n{text}", own_graph::DIGEST_PREFIX),
    )
    .with_context(|| format!("writing {}", out.display()))?;
    let _ = std::fs::remove_file(&tmp);
    Ok(())
}

/// The paths of `dir/*.graphql`, sorted.
pub(super) fn graphql_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let files =
        own_graph::graphql_files(dir).with_context(|| format!("reading {}", dir.display()))?;
    Ok(files.into_iter().map(|(_, p)| p).collect())
}

fn has_graphql(dir: &Path) -> bool {
    graphql_files(dir).is_ok_and(|f| !f.is_empty())
}
