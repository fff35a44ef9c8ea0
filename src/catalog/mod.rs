//! The catalogue: targets (`targets/<name>/target.toml`) and scenarios
//! (`scenarios/<suite>/<name>.toml`, operations under `scenarios/queries` and
//! `scenarios/expected`). Adding a target or a scenario is adding files; nothing here
//! lists them by name.
pub mod distinct;
pub mod documents;
pub mod forms;
pub mod graph;
pub mod graph_check;
pub mod humantime_serde_compat;
pub mod incremental;
pub mod operation;
pub mod own_graph;
pub mod persisted;
pub mod scenario;
pub mod target_def;
pub mod vars;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::error::CatalogError;
pub use operation::{load_operation, OperationCase, OperationDef};
pub use scenario::{LoadSpec, Profile, Profiles, ScenarioDef};
pub use target_def::{TargetDef, TargetKind};

pub struct Catalog {
    pub root: PathBuf,
    pub targets: Vec<TargetDef>,
}

impl Catalog {
    /// Find the project root: `--root`, else the nearest ancestor of the current directory
    /// holding both `targets/` and `scenarios/`.
    pub fn locate(root: Option<&Path>) -> Result<PathBuf> {
        if let Some(r) = root {
            if r.join("targets").is_dir() && r.join("scenarios").is_dir() {
                return Ok(r.to_path_buf());
            }
            return Err(CatalogError::NoRoot {
                start: r.to_path_buf(),
            }
            .into());
        }
        let start = std::env::current_dir().context("reading the current directory")?;
        let mut dir = start.as_path();
        loop {
            if dir.join("targets").is_dir() && dir.join("scenarios").is_dir() {
                return Ok(dir.to_path_buf());
            }
            match dir.parent() {
                Some(p) => dir = p,
                None => return Err(CatalogError::NoRoot { start }.into()),
            }
        }
    }

    pub fn load(root: &Path) -> Result<Catalog> {
        let mut targets = Vec::new();
        let dir = root.join("targets");
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.join("target.toml").is_file())
            .collect();
        entries.sort();
        for path in entries {
            targets.push(TargetDef::load(&path.join("target.toml"))?);
        }
        resolve_coprocessors(&mut targets)?;
        Ok(Catalog {
            root: root.to_path_buf(),
            targets,
        })
    }

    pub fn target(&self, name: &str) -> Result<&TargetDef> {
        self.targets.iter().find(|t| t.name == name).ok_or_else(|| {
            CatalogError::unknown("target", name, self.targets.iter().map(|t| &t.name)).into()
        })
    }

    pub fn suites(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.root.join("scenarios"))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter(|e| e.path().is_dir())
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|n| n != "queries" && n != "expected")
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }

    /// Scenario names of a suite, sorted.
    pub fn scenario_names(&self, suite: &str) -> Result<Vec<String>> {
        let dir = self.root.join("scenarios").join(suite);
        if !dir.is_dir() {
            return Err(CatalogError::unknown("suite", suite, self.suites()).into());
        }
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let p = e.path();
                (p.extension().and_then(|x| x.to_str()) == Some("toml"))
                    .then(|| p.file_stem()?.to_str().map(String::from))
                    .flatten()
            })
            .collect();
        names.sort();
        Ok(names)
    }

    pub fn scenario(&self, suite: &str, name: &str) -> Result<ScenarioDef> {
        let names = self.scenario_names(suite)?;
        if !names.iter().any(|n| n == name) {
            return Err(CatalogError::unknown("scenario", name, names).into());
        }
        ScenarioDef::load(
            &self
                .root
                .join("scenarios")
                .join(suite)
                .join(format!("{name}.toml")),
            suite,
        )
    }

    pub fn profiles(&self) -> Result<Profiles> {
        Profiles::load(&self.root.join("scenarios").join("profiles.toml"))
    }

    pub fn operation(&self, name: &str) -> Result<OperationDef> {
        load_operation(&self.root.join("scenarios"), name)
    }

    /// A document without expected answers (a query that must be refused, a subscription).
    pub fn document(&self, name: &str) -> Result<String> {
        operation::load_document(&self.root.join("scenarios"), name).map(|(d, _)| d)
    }
}

/// Each `coprocessor = "<name>"` names a target of kind coprocessor; keep a copy beside
/// the gateway that starts it.
fn resolve_coprocessors(targets: &mut [TargetDef]) -> Result<()> {
    let found: Vec<Option<TargetDef>> = targets
        .iter()
        .map(|t| {
            let Some(name) = &t.coprocessor else {
                return Ok(None);
            };
            let bad = |message: String| CatalogError::File {
                file: t.manifest.clone(),
                message,
            };
            match targets.iter().find(|c| &c.name == name) {
                Some(c) if c.kind == TargetKind::Coprocessor => Ok(Some(c.clone())),
                Some(c) => Err(bad(format!(
                    "field `coprocessor` names '{name}', a {} target; name one of kind \"coprocessor\"",
                    c.kind.label()
                ))),
                None => Err(bad(format!(
                    "field `coprocessor` names '{name}', but there is no targets/{name}/target.toml; coprocessors: {}",
                    targets
                        .iter()
                        .filter(|c| c.kind == TargetKind::Coprocessor)
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            }
        })
        .collect::<Result<_, CatalogError>>()?;
    for (t, c) in targets.iter_mut().zip(found) {
        t.coprocessor_def = c.map(Box::new);
    }
    Ok(())
}

/// Parse a TOML file into `T`, turning serde's message (which carries line, column and the
/// offending field) into an error that names the file.
pub fn parse_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    toml::from_str(&text).map_err(|e| {
        CatalogError::File {
            file: path.to_path_buf(),
            message: e.to_string().trim_end().replace('\n', "\n  "),
        }
        .into()
    })
}
