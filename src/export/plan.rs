//! What a k6 export holds: the scenario resolved as `run` resolves it (profile, overrides,
//! operations with every case's variables and expected answer), its load as a k6 executor,
//! and the metadata `gqlbench import k6` reads back. Scenario kinds that k6 cannot
//! reproduce are refused here, naming the kind and why.
use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog::scenario::Model;
use crate::catalog::Catalog;
use crate::error::{CatalogError, PlanError};
use crate::kind::{KindDef, ScenarioPlan};
use crate::plan::load::Arrival;

/// One k6 executor and its settings, from the scenario's load.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "executor", rename_all = "kebab-case")]
pub enum Executor {
    ConstantVus {
        vus: u32,
    },
    RampingVus {
        start_vus: u32,
        stages: Vec<(Duration, u32)>,
    },
    ConstantArrivalRate {
        rate: f64,
        max_vus: u32,
    },
    RampingArrivalRate {
        start_rate: f64,
        stages: Vec<(Duration, f64)>,
        max_vus: u32,
    },
}

/// One request a case sends, and the answer it must get.
#[derive(Serialize, Debug, Clone)]
pub struct Case {
    /// "<operation>#<case index>", the `case` tag of its requests.
    pub name: String,
    /// The request body as gqlbench sends it (`{"query", "variables"}`).
    pub body: String,
    /// The expected `data`.
    pub data: Value,
    /// A number the script makes unique per request, as gqlbench does (the case's
    /// `unique` variable): the body around it and the value it counts up from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unique: Option<UniqueBody>,
}

/// A case body whose number changes per request: `before` + (from + n) + `after`.
#[derive(Serialize, Debug, Clone)]
pub struct UniqueBody {
    pub before: String,
    pub after: String,
    pub from: u64,
}

/// One operation with its weight and cases.
#[derive(Serialize, Debug, Clone)]
pub struct Operation {
    pub name: String,
    pub weight: u32,
    pub cases: Vec<Case>,
}

#[derive(Debug, Clone)]
pub struct ExportPlan {
    pub suite: String,
    pub scenario: String,
    pub description: String,
    pub profile: String,
    pub url: String,
    pub executor: Executor,
    pub warmup: Duration,
    pub duration: Duration,
    pub think_time: Duration,
    pub timeout: Duration,
    pub headers: Vec<(String, String)>,
    /// The name of the header that carries a unique value per request, if the scenario asks.
    pub unique_header: Option<String>,
    pub operations: Vec<Operation>,
    pub parallelism: u32,
    /// What the export cannot reproduce (pipelining, CPU limits), said in its README.
    pub caveats: Vec<String>,
}

/// `gqlbench-export.json`: what was exported, for `gqlbench import k6`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ExportMetadata {
    pub suite: String,
    pub scenario: String,
    pub url: String,
    pub profile: String,
    /// The arrival model ("closed" or "open" in the file).
    pub model: Model,
    pub executor: Executor,
    pub warmup_s: f64,
    pub duration_s: f64,
    pub parallelism: u32,
    pub gqlbench_version: String,
    pub k6_version: String,
    pub warmup_scenario: String,
    pub measured_scenario: String,
}

impl ExportPlan {
    /// Checks that the scenario's kind can be exported, then builds the plan from the
    /// scenario resolved as `run` resolves it. `connections` is `-c`, given or not: with
    /// it, a connection sweep exports as the one level it names. `registry` is the kinds'
    /// (`kinds::REGISTRY`, handed in by the command).
    pub fn new(
        cat: &Catalog,
        sp: &ScenarioPlan,
        url: &str,
        parallelism: u32,
        connections: Option<u32>,
        registry: &[&KindDef],
    ) -> Result<Self> {
        let def = cat.scenario(&sp.suite, &sp.name)?;
        let mut caveats = kind_caveats(&def, connections, registry)?;
        let (executor, think_time) = executor(sp, &mut caveats);
        if sp.limits.cpus.is_some() || sp.limits.memory_bytes.is_some() {
            caveats.push("the scenario limits the target's CPU or memory (cgroups) when gqlbench runs it; give the target the same limits where k6 runs against it".into());
        }
        if def.file.sections.contains_key("response_cache") {
            caveats.push("the hit ratio (from executions the server counts on a port gqlbench gives it) and the staleness check (writes between reads) are gqlbench's: k6 sends the same mix, unique numbers included, and checks every answer, but measures neither".into());
        }
        if def.file.sections.contains_key("database") {
            caveats.push("the expected answers need the database gqlbench seeds (scenarios/db): seed the target's PostgreSQL the same way".into());
        }
        let operations = operations(sp);
        Ok(ExportPlan {
            suite: sp.suite.clone(),
            scenario: sp.name.clone(),
            description: sp.description.clone(),
            profile: String::new(),
            url: url.to_string(),
            executor,
            warmup: sp.warmup,
            duration: sp.duration,
            think_time,
            timeout: sp.load.timeout,
            headers: sp.load.headers.clone(),
            unique_header: sp
                .load
                .unique_request_header
                .then(|| crate::plan::load::UNIQUE_HEADER.to_string()),
            operations,
            parallelism,
            caveats,
        })
    }

    /// The most VUs the load runs at once (a ramp's highest stage; an open model's cap).
    pub fn max_vus(&self) -> u32 {
        match &self.executor {
            Executor::ConstantVus { vus } => *vus,
            Executor::RampingVus { start_vus, stages } => stages
                .iter()
                .map(|s| s.1)
                .chain([*start_vus])
                .max()
                .unwrap_or(0),
            Executor::ConstantArrivalRate { max_vus, .. }
            | Executor::RampingArrivalRate { max_vus, .. } => *max_vus,
        }
    }

    pub fn model(&self) -> Model {
        match self.executor {
            Executor::ConstantVus { .. } | Executor::RampingVus { .. } => Model::Closed,
            _ => Model::Open,
        }
    }

    pub fn metadata(&self) -> ExportMetadata {
        ExportMetadata {
            suite: self.suite.clone(),
            scenario: self.scenario.clone(),
            url: self.url.clone(),
            profile: self.profile.clone(),
            model: self.model(),
            executor: self.executor.clone(),
            warmup_s: self.warmup.as_secs_f64(),
            duration_s: self.duration.as_secs_f64(),
            parallelism: self.parallelism,
            gqlbench_version: env!("CARGO_PKG_VERSION").into(),
            k6_version: super::K6_VERSION.into(),
            warmup_scenario: super::WARMUP_SCENARIO.into(),
            measured_scenario: super::MEASURED_SCENARIO.into(),
        }
    }
}

/// Stages that cover the measured window: gqlbench holds the last stage's target until
/// the window ends, so the export adds that hold as a stage of its own.
fn fill(stages: &[(Duration, f64)], window: Duration) -> Vec<(Duration, f64)> {
    let mut out = stages.to_vec();
    let total: Duration = stages.iter().map(|(d, _)| *d).sum();
    if let (Some((_, last)), true) = (stages.last(), total < window) {
        out.push((window - total, *last));
    }
    out
}

/// Caveats of the scenario's kind sections, or the refusal of a kind k6 cannot run (a
/// connection sweep exports as the one level `-c` names).
fn kind_caveats(
    def: &crate::catalog::scenario::ScenarioDef,
    connections: Option<u32>,
    registry: &[&KindDef],
) -> Result<Vec<String>> {
    let mut caveats = Vec::new();
    for kind in registry {
        let Some(why) = kind.not_in_k6 else { continue };
        let Some(section) = def.file.sections.get(kind.section) else {
            continue;
        };
        // A sweep over connections is one plain load per level: `-c N` picks one
        // (the refusal says so).
        if let (true, Some(n)) = (kind.levels_by_connections, connections) {
            caveats.push(format!(
                "the scenario sweeps connections ({}); this export is one level of it, {n} connections: export each level with -c",
                section
            ));
            continue;
        }
        let exportable: Vec<&str> = registry
            .iter()
            .filter(|k| k.not_in_k6.is_none())
            .map(|k| k.section)
            .collect();
        return Err(CatalogError::File {
            file: def.path.clone(),
            message: format!(
                "a `{}` scenario cannot be exported to k6: {why}. Exportable: plain load scenarios (also {} ones)",
                kind.section,
                exportable.join(", ")
            ),
        }
        .into());
    }
    Ok(caveats)
}

/// The k6 executor of the scenario's load, and its think time; what k6 cannot do (a VU
/// sends one request at a time) is a caveat.
fn executor(sp: &ScenarioPlan, caveats: &mut Vec<String>) -> (Executor, Duration) {
    match &sp.load.arrival {
        Arrival::Closed {
            connections,
            pipelining,
            think_time,
        } => {
            if *pipelining > 1 {
                caveats.push(format!(
                    "the scenario pipelines {pipelining} requests per connection; a k6 VU sends one at a time, so the export runs without pipelining"
                ));
            }
            let ex = if sp.load.stages.is_empty() {
                Executor::ConstantVus { vus: *connections }
            } else {
                Executor::RampingVus {
                    start_vus: *connections,
                    stages: fill(&sp.load.stages, sp.duration)
                        .into_iter()
                        .map(|(d, t)| (d, t.round().max(0.0) as u32))
                        .collect(),
                }
            };
            (ex, *think_time)
        }
        Arrival::Open {
            rate,
            max_connections,
        } => {
            let ex = if sp.load.stages.is_empty() {
                Executor::ConstantArrivalRate {
                    rate: *rate,
                    max_vus: *max_connections,
                }
            } else {
                Executor::RampingArrivalRate {
                    start_rate: *rate,
                    stages: fill(&sp.load.stages, sp.duration),
                    max_vus: *max_connections,
                }
            };
            (ex, Duration::ZERO)
        }
    }
}

/// The operations with a weight, each case's body as k6 sends it.
fn operations(sp: &ScenarioPlan) -> Vec<Operation> {
    sp.operations
        .iter()
        .map(|(op, weight)| Operation {
            name: op.name.clone(),
            weight: *weight,
            cases: op
                .cases
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let (body, unique) = c.body(&op.document);
                    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                    Case {
                        name: format!("{}#{i}", op.name),
                        unique: unique.map(|u| UniqueBody {
                            before: text(&body[..u.at]),
                            after: text(&body[u.at + u.len..]),
                            from: u.from,
                        }),
                        body: text(&body),
                        data: c.data.clone(),
                    }
                })
                .collect(),
        })
        .filter(|o| o.weight > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_shorter_than_the_window_hold_their_last_target() {
        let s = [(Duration::from_secs(5), 100.0)];
        assert_eq!(
            fill(&s, Duration::from_secs(8)),
            vec![
                (Duration::from_secs(5), 100.0),
                (Duration::from_secs(3), 100.0)
            ]
        );
        assert_eq!(fill(&s, Duration::from_secs(5)), s.to_vec());
    }
}

/// An http(s) URL checked for what k6 needs: a scheme it sends with and a
/// host (resolved where k6 runs, so not here: it may be a cluster service name).
pub fn check_url(url: &str) -> Result<(), PlanError> {
    let bad = |why: &str| {
        PlanError::Flag {
        flag: "--url",
        message: format!(
            "'{url}' {why}; write the GraphQL endpoint as k6 will reach it, e.g. http://127.0.0.1:4000/graphql"
        ),
    }
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(bad("is not an http:// or https:// URL"));
    }
    if crate::urls::host(url).is_empty() {
        return Err(bad("has no host"));
    }
    if let Some(p) = crate::urls::port(url) {
        if !p.parse::<u16>().is_ok_and(|n| n > 0) {
            return Err(bad(&format!("has port '{p}', not one of 1 to 65535")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod url_tests {
    use super::*;

    #[test]
    fn urls_are_checked() {
        assert!(check_url("http://127.0.0.1:4000/graphql").is_ok());
        assert!(check_url("https://api.example.com/graphql").is_ok());
        assert!(check_url("ftp://x/graphql").is_err());
        assert!(check_url("http:///graphql").is_err());
        assert!(check_url("http://:4000/graphql").is_err());
        assert!(check_url("http://127.0.0.1:99999/graphql").is_err());
        assert!(check_url("http://127.0.0.1:0/graphql").is_err());
        assert!(check_url("http://127.0.0.1:/graphql").is_err());
        assert!(check_url("http://[::1]:4000/graphql").is_ok());
    }
}
