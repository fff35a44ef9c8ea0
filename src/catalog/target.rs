//! A target manifest: how to install, start and recognise one server or gateway, and the
//! settings that matter for a fair comparison.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::parse_toml;
use crate::error::UserError;

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Server,
    Gateway,
    Subgraph,
    Baseline,
    /// A process a gateway calls per request (an Apollo Router coprocessor); started with
    /// the gateway variant that names it, never measured on its own.
    Coprocessor,
    /// A trace collector (a real OpenTelemetry Collector) that an overhead scenario puts
    /// between its tracing variants and gqlbench's span counter; started with each tracing
    /// variant, never measured on its own.
    Collector,
}

impl TargetKind {
    /// The name used in target.toml and reports.
    pub fn label(self) -> &'static str {
        match self {
            TargetKind::Server => "server",
            TargetKind::Gateway => "gateway",
            TargetKind::Subgraph => "subgraph",
            TargetKind::Baseline => "baseline",
            TargetKind::Coprocessor => "coprocessor",
            TargetKind::Collector => "collector",
        }
    }
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct TargetFile {
    pub name: String,
    /// A variant of another target (a gateway with a customization): every field not
    /// given here is the base's (tables merged field by field), and it starts in its own
    /// folder, so a relative config file there is its own.
    pub base: Option<String>,
    pub kind: TargetKind,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub workloads: Vec<String>,
    /// The package whose version reports show, read from the lockfile.
    pub package: Option<String>,
    /// The version, for targets without an npm lockfile (native builds).
    pub version: Option<String>,
    /// `node` makes gqlbench preload its GC probe.
    pub runtime: Option<String>,
    pub install: Option<InstallSpec>,
    pub start: StartSpec,
    #[serde(default)]
    pub settings: Settings,
    /// Gateways: which subgraph SDL flavour they need.
    pub federation: Option<FederationSpec>,
    /// A coprocessor target started beside this one (see [`TargetKind::Coprocessor`]); its
    /// URL reaches the gateway as GQLBENCH_COPROCESSOR_URL.
    pub coprocessor: Option<String>,
    /// What this variant adds to each request, and how the run proves it happened.
    pub customization: Option<Customization>,
}

/// A gateway customization under test (the extensibility suite). Each kind has a proof
/// that it ran, checked on every measured request; a variant that skips its work is
/// invalid, never measured as a bare round trip.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Customization {
    pub does: Customizes,
    /// How: "config", "rhai", "vrl", "coprocessor", "plugin".
    pub by: String,
    /// Client awareness: the status a bad token must get. 401 (the original's contract)
    /// unless the gateway's own mechanism answers otherwise (Hive Router's JWT
    /// authentication: 403), which the variant says here and the report shows.
    #[serde(default = "unauthorized")]
    pub rejects_with: u16,
}

fn unauthorized() -> u16 {
    401
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Customizes {
    /// A static header `source` on every subgraph request: every request the subgraphs
    /// see must carry it.
    SubgraphHeader,
    /// Ten response headers `guid-1`..`guid-10` of fresh UUIDs: every response must carry
    /// ten distinct values.
    GuidHeaders,
    /// Client name and version from an HS256 JWT in `authentication` reach every subgraph
    /// request, and a request with a bad token is answered 401.
    ClientAwareness,
    /// Traces exported over OTLP/HTTP to the run's collector (GQLBENCH_OTLP_URL): every
    /// trial must deliver spans.
    Tracing,
}

impl Customizes {
    pub fn label(self) -> &'static str {
        match self {
            Customizes::SubgraphHeader => "subgraph-header",
            Customizes::GuidHeaders => "guid-headers",
            Customizes::ClientAwareness => "client-awareness",
            Customizes::Tracing => "tracing",
        }
    }
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct FederationSpec {
    /// "v1" or "v2" (default).
    #[serde(default = "default_fed")]
    pub version: String,
    /// The graphs it can be put in front of ("demo", "wide"); omitted means all. A gateway
    /// whose own configuration lists the demo's four subgraphs says ["demo"].
    pub graphs: Option<Vec<String>>,
}

fn default_fed() -> String {
    "v2".into()
}

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

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct StartSpec {
    pub command: Vec<String>,
    #[serde(default = "default_port_env")]
    pub port_env: String,
    #[serde(default = "default_path")]
    pub path: String,
    #[serde(default = "default_ready", with = "humantime_serde_compat")]
    pub ready_timeout: Duration,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// A config file the command names as `{config}` (relative to the target's folder), so
    /// a variant can point the base's command at another file.
    pub config: Option<String>,
    /// Render `config` at start: `${env.NAME}` in it replaced by what the run gives the
    /// target (port, coprocessor and collector URLs), for gateways that do not expand
    /// environment references in their config files themselves (Hive Router).
    #[serde(default)]
    pub render_config: bool,
    /// Start-up refusals that are this machine's lot, not the target's fault (a feature
    /// behind a licence the run cannot have): the target is skipped with `why`.
    #[serde(default)]
    pub refusals: Vec<Refusal>,
}

/// `{ log = "license violation", why = "..." }`: when a target exits during start-up and its
/// output holds `log`, it is skipped (not failed) with `why` and the line that matched.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Refusal {
    pub log: String,
    pub why: String,
}

fn default_port_env() -> String {
    "PORT".into()
}
fn default_path() -> String {
    "/graphql".into()
}
fn default_ready() -> Duration {
    Duration::from_secs(30)
}

/// Fairness-relevant settings, shown side by side in reports.
#[derive(Deserialize, Serialize, Debug, Clone, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub jit: bool,
    #[serde(default)]
    pub parse_cache: bool,
    #[serde(default)]
    pub response_cache: bool,
    #[serde(default)]
    pub dedup: bool,
    #[serde(default)]
    pub batching: bool,
    /// Gateways: query plans cached between requests.
    #[serde(default)]
    pub query_plan_cache: bool,
    /// Maximum query depth the server enforces (None: no limit configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_limit: Option<u32>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
}

impl Settings {
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for (on, name) in [
            (self.jit, "jit"),
            (self.parse_cache, "parse-cache"),
            (self.response_cache, "response-cache"),
            (self.dedup, "dedup"),
            (self.batching, "batching"),
            (self.query_plan_cache, "plan-cache"),
        ] {
            if on {
                parts.push(name);
            }
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    }
}

#[derive(Debug, Clone)]
pub struct TargetDef {
    pub name: String,
    pub dir: PathBuf,
    pub manifest: PathBuf,
    pub file: TargetFile,
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
                    .map_err(|e: toml::de::Error| UserError::Manifest {
                        file: manifest.to_path_buf(),
                        message: format!("with its base: {}", e.to_string().trim_end()),
                    })?
            }
        };
        let bad = |message: String| UserError::Manifest {
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
        if let Some(f) = &file.federation {
            if f.version != "v1" && f.version != "v2" {
                return Err(bad(format!(
                    "field `federation.version` is '{}'; write \"v1\" or \"v2\"",
                    f.version
                ))
                .into());
            }
        }
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
            coprocessor_def: None,
        })
    }

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

    /// The `{config}` of the start command: `start.config` in the target's folder.
    pub fn config_file(&self) -> Option<PathBuf> {
        self.start.config.as_ref().map(|c| self.dir.join(c))
    }

    /// Whether it can front `graph` (see [`FederationSpec::graphs`]).
    pub fn serves_graph(&self, graph: gqlbench_subgraphs::graph::Graph) -> bool {
        match self
            .file
            .federation
            .as_ref()
            .and_then(|f| f.graphs.as_ref())
        {
            None => true,
            Some(list) => list.iter().any(|g| g == graph.name()),
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
        self.file.runtime.as_deref() == Some("node")
    }

    /// Version of the target's main package, from its npm lockfile (what was installed).
    pub fn package_version(&self) -> Option<String> {
        if let Some(v) = &self.file.version {
            return Some(v.clone());
        }
        let pkg = self.file.package.as_ref()?;
        lock_version(&self.install_dir().join("package-lock.json"), pkg)
    }
}

/// A manifest with `base = "<target>"`: the base's table with this one's fields laid over
/// it (a table field merged key by key, one level deep). None when there is no base.
/// A variant's manifest merged over its base's, and whether it gives its own `[install]`.
fn merged_with_base(manifest: &Path) -> Result<Option<(toml::Table, bool)>> {
    let own: toml::Table = parse_toml(manifest)?;
    let own_install = own.contains_key("install");
    let Some(base) = own.get("base") else {
        return Ok(None);
    };
    let bad = |message: String| UserError::Manifest {
        file: manifest.to_path_buf(),
        message,
    };
    let Some(base) = base.as_str() else {
        return Err(
            bad("field `base` must be a target's name, e.g. \"apollo-router\"".into()).into(),
        );
    };
    let dir = manifest
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    let base_manifest = dir.join(base).join("target.toml");
    if !base_manifest.is_file() {
        return Err(bad(format!(
            "field `base` names '{base}', but there is no {}; name a target folder",
            base_manifest.display()
        ))
        .into());
    }
    // The base is read as a manifest of its own first, so that a fault in it is reported
    // in its file, with its line, rather than as one of every variant built on it.
    let _: TargetFile = parse_toml(&base_manifest)?;
    let mut merged: toml::Table = parse_toml(&base_manifest)?;
    if merged.contains_key("base") {
        return Err(bad(format!(
            "field `base` names '{base}', which has a base itself; name the target it is a variant of"
        ))
        .into());
    }
    for (k, v) in own {
        match (merged.get_mut(&k), v) {
            (Some(toml::Value::Table(into)), toml::Value::Table(from)) => into.extend(from),
            (_, v) => {
                merged.insert(k, v);
            }
        }
    }
    Ok(Some((merged, own_install)))
}

impl TargetDef {
    /// "node v20.20.2" (the `node` on PATH, which starts it), or "bun 1.4.4" / "deno 2.9.6"
    /// (the runtime's npm package as its lockfile pins it); None for other targets.
    pub fn runtime_version(&self) -> Option<String> {
        match self.file.runtime.as_deref()? {
            "node" => crate::sys::machine::node_version().map(|v| format!("node {v}")),
            r @ ("bun" | "deno") => lock_version(&self.install_dir().join("package-lock.json"), r)
                .map(|v| format!("{r} {v}")),
            other => Some(other.to_string()),
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

/// Durations in manifests are written as "30s", "500ms".
pub mod humantime_serde_compat {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let s = String::deserialize(d)?;
        humantime::parse_duration(&s).map_err(|e| {
            serde::de::Error::custom(format!(
                "'{s}' is not a duration ({e}); write e.g. \"500ms\", \"30s\""
            ))
        })
    }

    pub mod option {
        use super::*;
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
            super::deserialize(d).map(Some)
        }
    }
}
