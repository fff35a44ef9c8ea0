//! A target of the catalogue (`targets/<name>/target.toml`): how to install, start and
//! recognise one server or gateway, and the settings that matter for a fair comparison.
//! Here: the target as loaded and checked, and what is asked of it; the manifest's parts
//! are in the files beside.
mod base;
mod customization;
mod install;
mod manifest;
mod settings;
mod start;

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::parse_toml;
use crate::error::CatalogError;
use crate::sys::runtime::Runtime;
use base::merged_with_base;
pub use customization::{Customization, Customizes};
pub use install::{lock_version, InstallSpec, Requirement};
pub use manifest::{FederationSpec, TargetFile, TargetKind};
pub use settings::Settings;
pub use start::{Refusal, StartSpec};

/// A target's manifest, read over its base's and checked, with where it lives.
#[derive(Debug, Clone)]
pub struct TargetDef {
    pub name: String,
    pub dir: PathBuf,
    pub manifest: PathBuf,
    pub file: TargetFile,
    /// `runtime`, read once when the manifest is checked (an unknown name is refused there).
    pub runtime: Option<Runtime>,
    /// The target named by `coprocessor`, resolved by the catalogue.
    pub coprocessor_def: Option<Box<TargetDef>>,
    /// The folder of the target named by `base`: a variant's install is its base's, made
    /// there (its lockfile, its node_modules, its build in the cache).
    pub base_dir: Option<PathBuf>,
}

impl std::ops::Deref for TargetDef {
    type Target = TargetFile;
    fn deref(&self) -> &TargetFile {
        &self.file
    }
}

impl TargetDef {
    pub fn load(manifest: &Path) -> Result<TargetDef> {
        let mut own_install = false;
        let file: TargetFile = match merged_with_base(manifest)? {
            None => parse_toml(manifest)?,
            Some((table, own)) => {
                own_install = own;
                table
                    .try_into()
                    .map_err(|e: toml::de::Error| CatalogError::File {
                        file: manifest.to_path_buf(),
                        message: format!("with its base: {}", e.to_string().trim_end()),
                    })?
            }
        };
        let bad = |message: String| CatalogError::File {
            file: manifest.to_path_buf(),
            message,
        };
        let dir = manifest.parent().unwrap_or(Path::new(".")).to_path_buf();
        let folder = dir.file_name().and_then(|s| s.to_str()).unwrap_or("");
        if file.name != folder {
            return Err(bad(format!(
                "field `name` is '{}' but the folder is '{folder}'; make them equal",
                file.name
            ))
            .into());
        }
        if file.start.command.is_empty() {
            return Err(bad("field `start.command` is empty; give the program and its arguments, e.g. [\"node\", \"server.mjs\"]".into()).into());
        }
        if !file.start.path.starts_with('/') {
            return Err(bad(format!(
                "field `start.path` is '{}'; it must start with '/', e.g. \"/graphql\"",
                file.start.path
            ))
            .into());
        }
        if let Some(w) = file
            .workloads
            .iter()
            .find(|w| file.unsupported.contains_key(*w))
        {
            return Err(bad(format!(
                "workload '{w}' is both in `workloads` and in `[unsupported]`; keep one"
            ))
            .into());
        }
        if let Some((w, _)) = file
            .unsupported
            .iter()
            .find(|(_, why)| why.trim().is_empty())
        {
            return Err(bad(format!(
                "`[unsupported]` {w}: say why the target cannot serve it"
            ))
            .into());
        }
        if let Some(f) = &file.federation {
            if f.version != "v1" && f.version != "v2" {
                return Err(bad(format!(
                    "field `federation.version` is '{}'; write \"v1\" or \"v2\"",
                    f.version
                ))
                .into());
            }
        }
        let runtime = match file.runtime.as_deref() {
            None => None,
            Some(named) => Some(Runtime::from_name(named).ok_or_else(|| {
                let known: Vec<&str> = Runtime::ALL.iter().map(|r| r.name()).collect();
                bad(format!(
                    "field `runtime` is '{named}'; write one of {} (or leave it out)",
                    known.join(", ")
                ))
            })?),
        };
        for (field, values) in [
            ("start.command", file.start.command.clone()),
            ("start.env", file.start.env.values().cloned().collect()),
            (
                "install.command",
                file.install
                    .as_ref()
                    .map(|i| i.command.clone())
                    .unwrap_or_default(),
            ),
        ] {
            for v in &values {
                if let Err(e) = crate::catalog::vars::check(v) {
                    return Err(bad(format!("field `{field}`: {e}")).into());
                }
            }
        }
        if let Some(i) = &file.install {
            if i.command.is_empty() {
                return Err(bad("field `install.command` is empty; remove [install] or give a command such as [\"npm\", \"ci\"]".into()).into());
            }
            if let Some(c) = &i.check {
                if let Err(e) = crate::catalog::vars::check(c) {
                    return Err(bad(format!("field `install.check`: {e}")).into());
                }
                // A build in the shared cache keeps its install record beside it, so it
                // needs a folder of its own there.
                if c.starts_with("{cache}") && crate::catalog::vars::cache_folder(c).is_none() {
                    return Err(bad(format!(
                        "field `install.check` is '{c}'; a build in the cache needs a folder of its own there, e.g. \"{{cache}}/{}-<version>/bin/<program>\"",
                        file.name
                    ))
                    .into());
                }
            }
            for (k, r) in i.requires.iter().enumerate() {
                if r.program.trim().is_empty() || r.hint.trim().is_empty() {
                    return Err(bad(format!(
                        "field `install.requires[{k}]` needs a `program` and a `hint`, e.g. {{ program = \"protoc\", hint = \"apt-get install protobuf-compiler\" }}"
                    ))
                    .into());
                }
            }
        }
        Ok(TargetDef {
            name: file.name.clone(),
            manifest: manifest.to_path_buf(),
            // A variant that gives its own [install] (another dependency set, e.g. Express 4
            // beside its base's Express 5) installs in its own folder.
            base_dir: file
                .base
                .as_ref()
                .filter(|_| !own_install)
                .map(|b| dir.parent().unwrap_or(Path::new(".")).join(b)),
            dir,
            file,
            runtime,
            coprocessor_def: None,
        })
    }

    /// The `{config}` of the start command: `start.config` in the target's folder.
    pub fn config_file(&self) -> Option<PathBuf> {
        self.start.config.as_ref().map(|c| self.dir.join(c))
    }

    /// Whether it can front `graph` (see [`FederationSpec::graphs`]); Err says why not.
    pub fn serves_graph(&self, graph: &crate::catalog::graph::GraphPlan) -> Result<(), String> {
        use crate::catalog::graph::GraphPlan;
        let listed = self
            .file
            .federation
            .as_ref()
            .and_then(|f| f.graphs.as_ref());
        let file = self.dir.join("target.toml");
        match (graph, listed) {
            (GraphPlan::Builtin(g), Some(list)) if !list.iter().any(|n| n == g.name()) => Err(format!(
                "its configuration names the subgraphs of the {} graph only ([federation] graphs in {})",
                list.join(", "),
                file.display()
            )),
            (GraphPlan::Own(_), Some(list)) => Err(format!(
                "its configuration names the subgraphs of the {} graph, not yours ([federation] graphs in {})",
                list.join(", "),
                file.display()
            )),
            (GraphPlan::Own(_), None) if self.federation_version() != "v2" => Err(format!(
                "it reads Federation {} subgraph SDL, and a graph of your own is served as its Federation v2 SDL ([federation] version in {})",
                self.federation_version(),
                file.display()
            )),
            _ => Ok(()),
        }
    }

    pub fn federation_version(&self) -> &str {
        self.file
            .federation
            .as_ref()
            .map(|f| f.version.as_str())
            .unwrap_or("v2")
    }

    pub fn is_node(&self) -> bool {
        self.runtime == Some(Runtime::Node)
    }
}
