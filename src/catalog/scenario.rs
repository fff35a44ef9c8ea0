//! Scenario files (`scenarios/<suite>/<name>.toml`) and the profiles that size them
//! (`scenarios/profiles.toml`).
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::humantime_serde_compat as hd;
use super::parse_toml;
use crate::error::CatalogError;

/// A scenario file. Its common fields are typed here; the sections that ask for a kind of
/// measurement (`[sweep]`, `[cold_start]`, ...) are kept as written and read by their kind
/// (`src/kinds/`), which also refuses sections no kind reads.
#[derive(Deserialize, Debug, Clone)]
pub struct ScenarioFile {
    #[serde(default)]
    pub description: String,
    /// Left out of a suite run unless named with --scenarios or --all (long or special runs).
    #[serde(default)]
    pub optional: bool,
    /// Federation: also run on a user's own graph (`run federation --graph DIR`), with the
    /// graph's operations and subgraphs in place of the file's.
    #[serde(default)]
    pub own_graph: bool,
    pub workload: String,
    /// Targets to run; omitted means every target implementing the workload.
    pub targets: Option<Vec<String>>,
    pub operations: Vec<OperationRef>,
    #[serde(default)]
    pub load: LoadSpec,
    #[serde(default)]
    pub limits: LimitsSpec,
    #[serde(default)]
    pub profiles: BTreeMap<String, ProfileOverride>,
    /// Federation: the subgraphs the runner starts for each gateway.
    pub subgraphs: Option<SubgraphsSpec>,
    /// The kinds' sections, by name (see `kinds::REGISTRY`).
    #[serde(flatten)]
    pub sections: BTreeMap<String, toml::Value>,
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct SubgraphsSpec {
    /// Which subgraphs: "demo" (the four of the Apollo demo, the default) or "wide" (twelve
    /// generated ones).
    pub graph: Option<String>,
    /// Per-subgraph response delay ranges, e.g. reviews = "20..150ms".
    #[serde(default)]
    pub delays: BTreeMap<String, String>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct OperationRef {
    pub name: String,
    #[serde(default = "one")]
    pub weight: u32,
}

fn one() -> u32 {
    1
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    #[default]
    Closed,
    Open,
}

impl Model {
    /// The name results.json and the reports use ("closed", "open").
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Closed => "closed",
            Model::Open => "open",
        }
    }
}

impl std::fmt::Display for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StageSpec {
    #[serde(deserialize_with = "hd::deserialize", serialize_with = "ser_dur")]
    pub duration: Duration,
    pub target: f64,
}

/// Load settings; every field optional so that profiles can override single fields.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct LoadSpec {
    pub model: Option<Model>,
    pub connections: Option<u32>,
    pub pipelining: Option<u32>,
    #[serde(default, with = "hd::option")]
    pub think_time: Option<Duration>,
    /// Open model: requests per second.
    pub rate: Option<f64>,
    /// Open model: connection pool limit.
    pub max_connections: Option<u32>,
    /// Ramp connections (closed) or rate (open) from the start value.
    pub stages: Option<Vec<StageSpec>>,
    #[serde(default, with = "hd::option")]
    pub timeout: Option<Duration>,
    /// Each request carries a unique header so gateways cannot merge identical requests.
    pub unique_request_header: Option<bool>,
    /// Headers every request carries (a token a gateway customization reads, say).
    pub headers: Option<BTreeMap<String, String>>,
}

impl LoadSpec {
    /// Fields set in `over` win.
    pub fn merged(&self, over: &LoadSpec) -> LoadSpec {
        LoadSpec {
            model: over.model.or(self.model),
            connections: over.connections.or(self.connections),
            pipelining: over.pipelining.or(self.pipelining),
            think_time: over.think_time.or(self.think_time),
            rate: over.rate.or(self.rate),
            max_connections: over.max_connections.or(self.max_connections),
            stages: over.stages.clone().or_else(|| self.stages.clone()),
            timeout: over.timeout.or(self.timeout),
            unique_request_header: over.unique_request_header.or(self.unique_request_header),
            headers: over.headers.clone().or_else(|| self.headers.clone()),
        }
    }
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    /// CPU quota in cores (e.g. 1.0), applied through cgroups where writable.
    pub cpus: Option<f64>,
    /// Memory cap, e.g. "1GiB".
    pub memory: Option<String>,
}

#[derive(Deserialize, Debug, Clone, Default)]
pub struct ProfileOverride {
    pub trials: Option<u32>,
    #[serde(default, with = "hd::option")]
    pub warmup: Option<Duration>,
    /// Warm-up until steady, at most this long; a scenario that sets its own `warmup`
    /// without this fixes it (a ramp whose warm-up is "0s" has none).
    #[serde(default, with = "hd::option")]
    pub warmup_max: Option<Duration>,
    #[serde(default, with = "hd::option")]
    pub duration: Option<Duration>,
    #[serde(default)]
    pub load: LoadSpec,
    /// Replaces the scenario's kind sections (e.g. [sweep]) for this profile.
    #[serde(flatten)]
    pub sections: BTreeMap<String, toml::Value>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Trials per target: the rounds always run.
    pub trials: u32,
    #[serde(deserialize_with = "hd::deserialize", serialize_with = "ser_dur")]
    pub warmup: Duration,
    #[serde(deserialize_with = "hd::deserialize", serialize_with = "ser_dur")]
    pub duration: Duration,
    /// Warm-up until steady, at most this long (closed model); unset: `warmup` is fixed.
    #[serde(default, with = "hd::option")]
    pub warmup_max: Option<Duration>,
    /// Add rounds until every row's interval is within ±this % of its center (or the
    /// ranking is decided), up to `max_trials` and the run's `max_time`.
    #[serde(default)]
    pub precision: Option<f64>,
    #[serde(default)]
    pub max_trials: Option<u32>,
    /// The run's one time budget, after the installs (`measure::budget`): every scenario
    /// does its minimum, and what they add beyond it stops when it is spent.
    #[serde(default, with = "hd::option")]
    pub max_time: Option<Duration>,
}

fn ser_dur<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&humantime::format_duration(*d).to_string())
}

pub struct Profiles(pub BTreeMap<String, Profile>);

impl Profiles {
    pub fn load(path: &Path) -> Result<Profiles> {
        let map: BTreeMap<String, Profile> = parse_toml(path)?;
        for (name, p) in &map {
            let bad = |message: String| -> anyhow::Error {
                CatalogError::File {
                    file: path.to_path_buf(),
                    message: format!("profile `{name}`: {message}"),
                }
                .into()
            };
            if p.trials == 0 || p.duration.is_zero() {
                return Err(bad("`trials` and `duration` must be above zero".into()));
            }
            if let Some(x) = p.precision.filter(|x| !(*x > 0.0 && *x <= 50.0)) {
                return Err(bad(format!(
                    "`precision` is a percentage in (0, 50], e.g. 5 (got {x})"
                )));
            }
            if p.max_trials.is_some_and(|m| m < p.trials) {
                return Err(bad("`max_trials` must be at least `trials`".into()));
            }
            if p.warmup_max.is_some_and(|m| m < p.warmup) {
                return Err(bad("`warmup_max` must be at least `warmup`".into()));
            }
        }
        Ok(Profiles(map))
    }

    pub fn get(&self, name: &str) -> Result<Profile> {
        self.0
            .get(name)
            .copied()
            .ok_or_else(|| CatalogError::unknown("profile", name, self.0.keys()).into())
    }
}

#[derive(Debug, Clone)]
pub struct ScenarioDef {
    pub suite: String,
    pub name: String,
    pub file: ScenarioFile,
    pub path: std::path::PathBuf,
}

impl ScenarioDef {
    pub fn load(path: &Path, suite: &str) -> Result<ScenarioDef> {
        let file: ScenarioFile = parse_toml(path)?;
        let bad = |message: String| CatalogError::File {
            file: path.to_path_buf(),
            message,
        };
        if file.operations.is_empty() {
            return Err(bad(
                "no [[operations]]; add at least one, e.g. [[operations]] name = \"social/simple\""
                    .into(),
            )
            .into());
        }
        if file.operations.iter().all(|o| o.weight == 0) {
            return Err(bad(
                "every operation has weight 0; give at least one a positive weight".into(),
            )
            .into());
        }
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        Ok(ScenarioDef {
            suite: suite.to_string(),
            name,
            file,
            path: path.to_path_buf(),
        })
    }

    fn bad(&self, message: String) -> CatalogError {
        CatalogError::File {
            file: self.path.clone(),
            message,
        }
    }

    /// The graph a federation scenario puts its gateways in front of (`[subgraphs] graph`,
    /// default demo); the error names the file, the field and the valid graphs.
    pub fn graph(&self) -> Result<gqlbench_subgraphs::graph::Graph, CatalogError> {
        match self
            .file
            .subgraphs
            .as_ref()
            .and_then(|s| s.graph.as_deref())
        {
            None => Ok(gqlbench_subgraphs::graph::Graph::Demo),
            Some(g) => g
                .parse()
                .map_err(|e| self.bad(format!("[subgraphs] graph: {e}"))),
        }
    }

    /// `[limits] memory` in bytes; the error names the file and the field.
    pub fn memory_bytes(&self) -> Result<Option<u64>, CatalogError> {
        let memory = self.file.limits.memory.as_deref();
        memory
            .map(parse_size)
            .transpose()
            .map_err(|e| self.bad(format!("[limits] memory: {e}")))
    }
}

/// "1GiB", "512MiB", "64KiB", "1G", "1000000" (bytes).
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a size; write e.g. \"512MiB\" or \"1GiB\""))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "kib" => 1024.0,
        "m" | "mb" => 1e6,
        "mib" => 1024.0 * 1024.0,
        "g" | "gb" => 1e9,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "'{s}': unknown unit '{other}'; use B, KiB, MiB, GiB (or KB, MB, GB)"
            ))
        }
    };
    Ok((n * mult) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("128 MiB").unwrap(), 128 << 20);
        assert_eq!(parse_size("2G").unwrap(), 2_000_000_000);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("1XB").unwrap_err().contains("unknown unit"));
    }

    #[test]
    fn load_spec_override_wins_field_by_field() {
        let base = LoadSpec {
            connections: Some(100),
            pipelining: Some(1),
            ..Default::default()
        };
        let over = LoadSpec {
            pipelining: Some(10),
            ..Default::default()
        };
        let m = base.merged(&over);
        assert_eq!(m.connections, Some(100));
        assert_eq!(m.pipelining, Some(10));
    }
}
