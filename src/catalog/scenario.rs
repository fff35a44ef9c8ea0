//! Scenario files (`scenarios/<suite>/<name>.toml`) and the profiles that size them
//! (`scenarios/profiles.toml`).
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::parse_toml;
use super::target::humantime_serde_compat as hd;
use crate::error::UserError;

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    #[serde(default)]
    pub description: String,
    /// Left out of a suite run unless named with --scenarios or --all (long or special runs).
    #[serde(default)]
    pub optional: bool,
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
    /// Open-model rate sweep: step the rate until p99 passes a limit.
    pub sweep: Option<SweepSpec>,
    /// Closed-model load sweep: the same scenario at each of these connection counts.
    pub connection_sweep: Option<Vec<u32>>,
    /// Serve the workload from a throwaway PostgreSQL instead of memory.
    pub database: Option<DatabaseSpec>,
    /// Measure fresh starts instead of throughput.
    pub cold_start: Option<ColdStartSpec>,
    /// A sustained run: memory and GC series and a leak verdict.
    pub long_run: Option<LongRunSpec>,
    /// Check the server's depth limit before measuring.
    pub depth: Option<DepthSpec>,
    /// Hold subscriptions instead of sending queries.
    pub subscriptions: Option<SubscriptionsSpec>,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Resolvers {
    /// One SQL query per resolved field (the N+1 pattern).
    Naive,
    /// Per-request DataLoader batching.
    Dataloader,
}

impl Resolvers {
    pub fn as_str(self) -> &'static str {
        match self {
            Resolvers::Naive => "naive",
            Resolvers::Dataloader => "dataloader",
        }
    }
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSpec {
    pub resolvers: Resolvers,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ColdStartSpec {
    /// Fresh starts per target (at least 5 for statistics).
    #[serde(default = "five")]
    pub starts: u32,
}

fn five() -> u32 {
    5
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LongRunSpec {
    /// A leak is suspected when the fitted memory growth over the window is at least this
    /// many MiB ...
    #[serde(default = "leak_mib")]
    pub leak_min_growth_mib: f64,
    /// ... and at least this share of the memory at the start of the window, in % ...
    #[serde(default = "leak_pct")]
    pub leak_min_growth_pct: f64,
    /// ... and the straight line explains the samples at least this well (R²).
    #[serde(default = "leak_r2")]
    pub leak_min_r2: f64,
}

fn leak_mib() -> f64 {
    8.0
}
fn leak_pct() -> f64 {
    5.0
}
fn leak_r2() -> f64 {
    0.6
}

impl Default for LongRunSpec {
    fn default() -> Self {
        LongRunSpec {
            leak_min_growth_mib: leak_mib(),
            leak_min_growth_pct: leak_pct(),
            leak_min_r2: leak_r2(),
        }
    }
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct DepthSpec {
    /// The depth limit every server is expected to enforce.
    pub limit: u32,
    /// An operation at the limit: must be answered correctly.
    pub allowed: String,
    /// An operation one level deeper: must be refused with a GraphQL error.
    pub rejected: String,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// graphql-ws (`graphql-transport-ws` subprotocol) over WebSocket.
    Ws,
    /// GraphQL over server-sent events.
    Sse,
}

impl Transport {
    /// The name used in scenario files and reports.
    pub fn label(self) -> &'static str {
        match self {
            Transport::Ws => "ws",
            Transport::Sse => "sse",
        }
    }
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SubscriptionsSpec {
    pub transport: Transport,
    /// Messages per second the server publishes (each subscriber receives every one).
    pub publish_rate: f64,
    /// Connections opened per second while connecting.
    #[serde(default = "connect_rate")]
    pub connect_rate: f64,
}

fn connect_rate() -> f64 {
    2000.0
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct SubgraphsSpec {
    /// Per-subgraph response delay ranges, e.g. reviews = "20..150ms".
    #[serde(default)]
    pub delays: BTreeMap<String, String>,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    pub start_rate: f64,
    /// Added to the rate after each step that held ...
    #[serde(default)]
    pub step: f64,
    /// ... or, when set, the rate is multiplied by this (e.g. 1.5): a few steps then cover
    /// gateways that differ by orders of magnitude.
    pub factor: Option<f64>,
    pub max_rate: f64,
    #[serde(deserialize_with = "hd::deserialize")]
    pub step_duration: Duration,
    #[serde(deserialize_with = "hd::deserialize")]
    pub p99_limit: Duration,
    /// Start from a short closed-loop probe of the target (half of what it serves), when
    /// that is above `start_rate`.
    #[serde(default)]
    pub probe: bool,
    /// After the first step the target loses, bisect between it and the highest rate held
    /// until they are within this fraction (e.g. 0.05).
    #[serde(default)]
    pub resolution: Option<f64>,
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

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    Closed,
    Open,
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
#[serde(deny_unknown_fields)]
pub struct ProfileOverride {
    pub trials: Option<u32>,
    #[serde(default, with = "hd::option")]
    pub warmup: Option<Duration>,
    #[serde(default, with = "hd::option")]
    pub duration: Option<Duration>,
    #[serde(default)]
    pub load: LoadSpec,
    /// Replaces the scenario's [sweep] for this profile.
    pub sweep: Option<SweepSpec>,
}

#[derive(Deserialize, Debug, Clone, Copy, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub trials: u32,
    #[serde(deserialize_with = "hd::deserialize", serialize_with = "ser_dur")]
    pub warmup: Duration,
    #[serde(deserialize_with = "hd::deserialize", serialize_with = "ser_dur")]
    pub duration: Duration,
}

fn ser_dur<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&humantime::format_duration(*d).to_string())
}

pub struct Profiles(pub BTreeMap<String, Profile>);

impl Profiles {
    pub fn load(path: &Path) -> Result<Profiles> {
        let map: BTreeMap<String, Profile> = parse_toml(path)?;
        for (name, p) in &map {
            if p.trials == 0 || p.duration.is_zero() {
                return Err(UserError::Manifest {
                    file: path.to_path_buf(),
                    message: format!(
                        "profile `{name}`: `trials` and `duration` must be above zero"
                    ),
                }
                .into());
            }
        }
        Ok(Profiles(map))
    }

    pub fn get(&self, name: &str) -> Result<Profile> {
        self.0
            .get(name)
            .copied()
            .ok_or_else(|| UserError::unknown("profile", name, self.0.keys()).into())
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
        let bad = |message: String| UserError::Manifest {
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
        if let Some(s) = &file.sweep {
            let grows = s.factor.map(|f| f > 1.0).unwrap_or(s.step > 0.0);
            if !(s.start_rate > 0.0 && grows && s.max_rate >= s.start_rate) {
                return Err(bad(format!(
                    "[sweep]: need start_rate > 0, step > 0 (or factor > 1) and max_rate >= start_rate (got start_rate {}, step {}, factor {}, max_rate {})",
                    s.start_rate,
                    s.step,
                    s.factor.map_or("none".into(), |f| f.to_string()),
                    s.max_rate
                ))
                .into());
            }
            if s.resolution.is_some_and(|r| !(r > 0.0 && r < 1.0)) {
                return Err(bad(format!(
                    "[sweep] resolution: a fraction between 0 and 1, e.g. 0.05 (got {})",
                    s.resolution.unwrap_or_default()
                ))
                .into());
            }
        }
        if let Some(c) = &file.connection_sweep {
            if c.is_empty() || c.contains(&0) {
                return Err(bad(format!(
                    "`connection_sweep` needs connection counts above zero, e.g. [50, 100, 250, 500] (got {c:?})"
                ))
                .into());
            }
        }
        if let Some(c) = &file.cold_start {
            if c.starts == 0 {
                return Err(bad(
                    "[cold_start] `starts` must be at least 1 (5 or more for statistics)".into(),
                )
                .into());
            }
        }
        if let Some(s) = &file.subscriptions {
            if !(s.publish_rate > 0.0 && s.connect_rate > 0.0) {
                return Err(bad(format!(
                    "[subscriptions] `publish_rate` and `connect_rate` must be above zero (got {} and {})",
                    s.publish_rate, s.connect_rate
                ))
                .into());
            }
        }
        let kinds = [
            file.cold_start.is_some(),
            file.subscriptions.is_some(),
            file.sweep.is_some() || file.connection_sweep.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() > 1 {
            return Err(bad(
                "a scenario is one of: [cold_start], [subscriptions], a sweep ([sweep] or connection_sweep); split it into several files".into(),
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
}

/// "1GiB", "512MiB", "64KiB", "1G", "1000000" (bytes).
pub fn parse_size(s: &str) -> Result<u64, String> {
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
