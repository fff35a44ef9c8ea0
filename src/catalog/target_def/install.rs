//! How a target is installed (`[install]` of its manifest), where a variant's install is
//! made, and which versions the install pinned.
use std::path::Path;

use serde::Deserialize;

use super::TargetDef;

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct InstallSpec {
    pub command: Vec<String>,
    #[serde(default)]
    pub inputs: Vec<String>,
    pub check: Option<String>,
    /// false: `run` never starts this install by itself (a long native build); the target
    /// is skipped with the command that installs it.
    #[serde(default = "yes")]
    pub auto: bool,
    /// Rough duration shown when the install is not automatic, e.g. "~20 min".
    #[serde(default)]
    pub takes: Option<String>,
    /// Programs the install command needs, checked on PATH before it starts, so a missing
    /// one fails at once with how to get it instead of minutes into a build.
    #[serde(default)]
    pub requires: Vec<Requirement>,
}

/// A program an install needs: `{ program = "protoc", hint = "apt-get install protobuf-compiler" }`.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// Looked up on PATH (or, when it holds a '/', that file).
    pub program: String,
    /// How to get it, shown when it is missing.
    pub hint: String,
}

fn yes() -> bool {
    true
}

impl TargetDef {
    /// The target whose install this one is (a variant shares its base's build unless it
    /// gives its own `[install]`).
    pub fn install_owner(&self) -> &str {
        match (&self.base_dir, &self.file.base) {
            (Some(_), Some(b)) => b,
            _ => &self.name,
        }
    }

    /// Where the install runs and its inputs are: the base's folder for a variant.
    pub fn install_dir(&self) -> &Path {
        self.base_dir.as_deref().unwrap_or(&self.dir)
    }

    /// Version of the target's main package, from its npm lockfile (what was installed).
    pub fn package_version(&self) -> Option<String> {
        if let Some(v) = &self.file.version {
            return Some(v.clone());
        }
        let pkg = self.file.package.as_ref()?;
        lock_version(&self.install_dir().join("package-lock.json"), pkg)
    }

    /// "node v20.20.2" (the `node` on PATH, which starts it), "bun 1.4.4" / "deno 2.9.6"
    /// (the runtime's npm package as its lockfile pins it), or "python 3.11.7" (the
    /// interpreter of the target's own `.venv`, which starts it), "go 1.26.8" / "rust 1.95.0"
    /// / "java 17.0.15" (the toolchain that builds or starts it, as run in the target's
    /// folder; the bare name when it cannot say); None for other targets.
    pub fn runtime_version(&self) -> Option<String> {
        use crate::sys::runtime::Runtime;
        let runtime = self.runtime?;
        let r = runtime.name();
        match runtime {
            Runtime::Node => crate::sys::machine::node_version().map(|v| format!("{r} {v}")),
            Runtime::Python => {
                let python = self.install_dir().join(".venv/bin/python");
                crate::sys::machine::python_version(&python).map(|v| format!("{r} {v}"))
            }
            Runtime::Bun | Runtime::Deno => {
                lock_version(&self.install_dir().join("package-lock.json"), r)
                    .map(|v| format!("{r} {v}"))
            }
            Runtime::Go | Runtime::Rust | Runtime::Java => Some(
                crate::sys::machine::toolchain_version(runtime, self.install_dir())
                    .map_or_else(|| r.to_string(), |v| format!("{r} {v}")),
            ),
        }
    }
}

/// Version of `pkg` as pinned by an npm lockfile (v2/v3 `packages` map).
pub fn lock_version(lockfile: &Path, pkg: &str) -> Option<String> {
    let text = std::fs::read_to_string(lockfile).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("packages")?
        .get(format!("node_modules/{pkg}"))?
        .get("version")?
        .as_str()
        .map(String::from)
}
