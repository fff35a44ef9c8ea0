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
    check_folder(&dir)?;
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
    // Everything given is read and checked before anything is written: a refusal halfway
    // would leave a folder that every later `init graph` of it trips on.
    if a.from.is_some() && has_graphql(&subgraphs) && !a.force {
        return Err(PlanError::Flag {
            flag: "--from",
            message: format!(
                "{} already holds subgraphs; add --force to replace them, or leave --from out to compose them again",
                subgraphs.display()
            ),
        }
        .into());
    }
    if let Some(from) = a.from.as_ref().filter(|f| f.is_dir()) {
        check_sdl_parses(&graphql_files(from)?)?;
    }
    let operations = a
        .operations
        .as_deref()
        .map(super::init_operations::read)
        .transpose()?;
    let tools = federation_tools(root)?;
    let supergraph = match &a.from {
        // Extracted or copied into a folder of their own and composed there: SDL that does
        // not compose leaves the graph's folder as it was (or unmade).
        Some(from) => {
            let stage = tempfile::Builder::new()
                .prefix("gqlbench-init-")
                .tempdir()
                .context("creating a temporary folder")?;
            // As node's working directory reports it (symlinks resolved), so the paths in
            // its messages can be told back to the user's own.
            let at = std::fs::canonicalize(stage.path()).unwrap_or_else(|_| stage.path().into());
            let staged = at.join("subgraphs");
            take_subgraphs(&tools, from, &staged)?;
            let supergraph = compose(&tools, &at, from.is_dir().then_some(from.as_path()))?;
            std::fs::create_dir_all(&subgraphs)
                .with_context(|| format!("creating {}", subgraphs.display()))?;
            for p in graphql_files(&subgraphs)? {
                std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
            }
            for f in graphql_files(&staged)? {
                let name = f.file_name().context("a file without a name")?;
                std::fs::copy(&f, subgraphs.join(name))
                    .with_context(|| format!("writing {}", subgraphs.join(name).display()))?;
            }
            supergraph
        }
        None => compose(&tools, &dir, None)?,
    };
    let out = dir.join("supergraph.graphql");
    std::fs::write(&out, supergraph).with_context(|| format!("writing {}", out.display()))?;
    let ops = dir.join("operations");
    std::fs::create_dir_all(&ops).with_context(|| format!("creating {}", ops.display()))?;
    if let Some(files) = operations {
        super::init_operations::write(files, &ops, a.force)?;
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
    let fed1 = graph.federation1_subgraphs();
    if !fed1.is_empty() {
        eprintln!(
            "Federation 1 SDL (no @link to Federation 2) in {}: read by Federation 1's rules and upgraded to Federation 2 by the composition; the mocks serve it as written",
            fed1.join(", ")
        );
    }
    for (stem, why) in &graph.left_out {
        eprintln!("  {}/{stem}: LEFT OUT, not checked: {why}", graph.name);
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

/// `DIR` of `init graph DIR`: missing (it is made), empty, or a graph folder (one `init
/// graph` made, or laid out as one: `subgraphs/` or `graph.toml`). A file, or a folder of
/// other files, is refused before anything is written: init would write its subgraphs,
/// operations and graph.toml among them.
fn check_folder(dir: &Path) -> Result<()> {
    let not_a_folder = |at: &Path| CatalogError::File {
        file: at.to_path_buf(),
        message:
            "is a file, not a folder; give a new or empty folder for the graph (a new one is made)"
                .into(),
    };
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => return Err(not_a_folder(dir).into()),
        Ok(_) => {}
        Err(e) => {
            // Made with its parents: the first one that exists must be a folder.
            if let Some(up) = dir.ancestors().skip(1).find(|p| p.exists()) {
                if !up.is_dir() {
                    return Err(not_a_folder(up).into());
                }
            }
            if e.kind() == std::io::ErrorKind::NotFound {
                return Ok(());
            }
            return Err(e).with_context(|| format!("reading {}", dir.display()));
        }
    }
    if dir.join("subgraphs").is_dir() || dir.join("graph.toml").is_file() {
        return Ok(());
    }
    let mut held: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| format!("'{}'", e.file_name().to_string_lossy()))
        .collect();
    if held.is_empty() {
        return Ok(());
    }
    held.sort();
    let more = held.len().saturating_sub(5);
    held.truncate(5);
    Err(CatalogError::File {
        file: dir.to_path_buf(),
        message: format!(
            "already holds files ({}{}) and is not a graph folder (no subgraphs/ or graph.toml); give a new or empty folder, e.g. {}/graph (--force does not apply: it replaces a graph folder's subgraphs and operations)",
            held.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() },
            dir.display()
        ),
    }
    .into())
}

/// Each SDL file parses (with the parser the mock subgraphs use): one that does not is
/// refused naming its file, line and column, before anything is written.
fn check_sdl_parses(files: &[PathBuf]) -> Result<()> {
    for f in files {
        let text =
            std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
        if let Err(e) = async_graphql_parser::parse_schema(&text) {
            let pos = e.positions().next();
            let at = pos
                .map(|p| format!("{}:{}:{}", f.display(), p.line, p.column))
                .unwrap_or_else(|| f.display().to_string());
            // The parser's message draws the line with a caret over several lines; the
            // line itself and what was expected say the same on one.
            let text_line = pos
                .and_then(|p| text.lines().nth(p.line.saturating_sub(1)))
                .map(|l| format!(" in `{}`", l.trim()))
                .unwrap_or_default();
            let message = e.to_string();
            let expected = message
                .lines()
                .find_map(|l| l.trim().strip_prefix("= "))
                .unwrap_or(message.trim());
            return Err(CatalogError::File {
                file: at.into(),
                message: format!(
                    "the subgraph SDL does not parse ({expected}){text_line}; fix it and run init again (nothing was written)"
                ),
            }
            .into());
        }
    }
    Ok(())
}

/// The subgraphs' SDL into `dest` (made here): extracted from a supergraph file, or copied
/// from a folder of SDL files.
fn take_subgraphs(tools: &Path, from: &Path, dest: &Path) -> Result<()> {
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
    // The extraction runs in `dest`: a relative path given here would name nothing there.
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (f, d) = (
        absolute(from).display().to_string(),
        absolute(dest).display().to_string(),
    );
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
    // Written by the extraction, but served by the mocks' parser: checked as a folder's
    // files are before they are copied.
    check_sdl_parses(&graphql_files(dest)?)
}

/// The supergraph composed from `dir/subgraphs`, headed by the digest of the SDL it was
/// composed from (a run refuses a supergraph its subgraphs have moved on from). Errors
/// are bad input naming the subgraphs; `source` is the folder the SDL was copied from,
/// named in them instead of `dir/subgraphs`.
fn compose(tools: &Path, dir: &Path, source: Option<&Path>) -> Result<String> {
    let subgraphs = dir.join("subgraphs");
    let tmp = dir.join("supergraph.graphql.tmp");
    let t = tmp.display().to_string();
    // From the folder, so the supergraph's header names subgraphs/, not a path of this machine.
    let composed = node(
        tools,
        dir,
        "compose.mjs",
        &["--dir", "subgraphs", "--out", &t],
    );
    let text = match composed {
        Ok(Ok(())) => std::fs::read_to_string(&tmp).with_context(|| format!("reading {t}")),
        Ok(Err(e)) => Err(compose_refusal(&e, &subgraphs, source).into()),
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_file(&tmp);
    let text = text?;
    let digest = own_graph::subgraphs_digest(&subgraphs)?;
    Ok(format!("{}{digest}\n{text}", own_graph::DIGEST_PREFIX))
}

/// compose.mjs's refusal (`stderr`) of the SDL in `subgraphs`, copied from `source`: the
/// user's own files named, and a syntax error said to be one, not a composition's.
fn compose_refusal(stderr: &str, subgraphs: &Path, source: Option<&Path>) -> CatalogError {
    let e = match source {
        Some(s) => stderr.replace(&subgraphs.display().to_string(), &s.display().to_string()),
        None => stderr.to_string(),
    };
    // graphql-js may refuse what the mocks' parser took: that is no composition.
    let what = if e.contains("): syntax error: ") {
        "a subgraph's SDL does not parse (fix it at the line and column given)"
    } else {
        "the subgraphs do not compose"
    };
    CatalogError::File {
        file: source.map_or_else(|| subgraphs.to_path_buf(), Path::to_path_buf),
        message: format!("{what}:\n{e}"),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_from_composition_names_the_users_file_and_says_it_does_not_parse() {
        let staged = Path::new("/tmp/gqlbench-init-1-2/subgraphs");
        let stderr = "compose: subgraph beta (/tmp/gqlbench-init-1-2/subgraphs/beta.graphql:2:1): syntax error: Syntax Error: Expected Name, found <EOF>.";
        let e = compose_refusal(stderr, staged, Some(Path::new("my-sdl"))).to_string();
        assert!(
            e.starts_with("my-sdl: a subgraph's SDL does not parse")
                && e.contains("(my-sdl/beta.graphql:2:1)")
                && !e.contains("do not compose"),
            "{e}"
        );
        assert!(!e.contains("/tmp/gqlbench-init"), "{e}");
        let e = compose_refusal(
            "compose: composition failed with 1 error(s):\n  - [FIELD_TYPE_MISMATCH] ...",
            staged,
            Some(Path::new("my-sdl")),
        )
        .to_string();
        assert!(
            e.starts_with("my-sdl: the subgraphs do not compose:"),
            "{e}"
        );
    }
}
