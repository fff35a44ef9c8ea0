//! The load of a scenario, typed from the scenario file to the engine: the arrival model
//! (closed: connections; open: a rate), its stages, timeout and headers. The engine's plan
//! is built from it where trials run, and the results' `LoadInfo` is written from it;
//! nothing is turned into strings and parsed back.
use std::time::Duration;

use crate::catalog::scenario::{LoadSpec, Model};
use crate::results::LoadInfo;
use crate::sys::cpus::CpuSet;

/// The header that carries a unique value per request when a scenario asks for it.
pub const UNIQUE_HEADER: &str = "x-gqlbench-request";

/// How requests arrive.
#[derive(Debug, Clone, PartialEq)]
pub enum Arrival {
    /// N connections each sending, waiting for the answers, thinking, sending again.
    Closed {
        connections: u32,
        pipelining: u32,
        think_time: Duration,
    },
    /// Requests due at times fixed by a rate, on a pool of at most `max_connections`.
    Open { rate: f64, max_connections: u32 },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Load {
    pub arrival: Arrival,
    /// Ramps of the connections (closed) or the rate (open): (duration, target).
    pub stages: Vec<(Duration, f64)>,
    pub timeout: Duration,
    /// Each request carries a unique header (defeats request deduplication).
    pub unique_request_header: bool,
    /// Headers every request carries, readiness probes and checks included.
    pub headers: Vec<(String, String)>,
}

/// Why a load spec cannot be a load (the message names the field and the fix).
pub type SpecError = String;

impl Load {
    /// The load a spec describes; `connections` (the `-c` flag) overrides a closed model's.
    pub fn from_spec(spec: &LoadSpec, connections: Option<u32>) -> Result<Load, SpecError> {
        let model = spec.model.unwrap_or(Model::Closed);
        let conns = match (connections, model) {
            (Some(c), Model::Closed) => c,
            _ => spec.connections.unwrap_or(100),
        };
        let arrival = match model {
            Model::Closed => {
                if conns == 0 {
                    return Err("[load] `connections` must be at least 1".into());
                }
                let pipelining = spec.pipelining.unwrap_or(1);
                if pipelining == 0 {
                    return Err("[load] `pipelining` must be at least 1 (1 = no pipelining)".into());
                }
                let think_time = spec.think_time.unwrap_or_default();
                if think_time > gqlbench_engine::MAX_SPAN {
                    return Err(
                        "[load] `think_time` is longer than 30 days; write e.g. \"100ms\"".into(),
                    );
                }
                Arrival::Closed {
                    connections: conns,
                    pipelining,
                    think_time,
                }
            }
            Model::Open => {
                if spec.rate.is_none() && spec.stages.is_none() {
                    return Err(
                        "[load] model = \"open\" needs `rate` (requests per second) or `stages`"
                            .into(),
                    );
                }
                Arrival::Open {
                    rate: spec.rate.unwrap_or(0.0),
                    max_connections: spec.max_connections.unwrap_or(conns),
                }
            }
        };
        Ok(Load {
            arrival,
            stages: spec
                .stages
                .iter()
                .flatten()
                .map(|s| (s.duration, s.target))
                .collect(),
            timeout: spec.timeout.unwrap_or(Duration::from_secs(10)),
            unique_request_header: spec.unique_request_header.unwrap_or(false),
            headers: spec
                .headers
                .iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        })
    }

    pub fn is_open(&self) -> bool {
        matches!(self.arrival, Arrival::Open { .. })
    }

    /// Connections of a closed model, or the pool limit of an open one.
    pub fn connections(&self) -> u32 {
        match self.arrival {
            Arrival::Closed { connections, .. } => connections,
            Arrival::Open {
                max_connections, ..
            } => max_connections,
        }
    }

    /// Most connections open at once: a closed model's connections or the highest stage
    /// it ramps to; an open model's pool limit.
    pub fn peak_connections(&self) -> u32 {
        match self.arrival {
            Arrival::Closed { connections, .. } => self
                .stages
                .iter()
                .map(|(_, target)| target.ceil().clamp(0.0, u32::MAX as f64) as u32)
                .fold(connections, u32::max),
            Arrival::Open {
                max_connections, ..
            } => max_connections,
        }
    }

    /// The same load at another arrival rate (open model, no stages).
    pub fn at_rate(&self, rate: f64) -> Load {
        Load {
            arrival: Arrival::Open {
                rate,
                max_connections: self.connections(),
            },
            stages: Vec::new(),
            ..self.clone()
        }
    }

    /// The same closed load with other connections (no stages).
    pub fn with_connections(&self, connections: u32) -> Load {
        let mut l = self.clone();
        l.stages.clear();
        match &mut l.arrival {
            Arrival::Closed { connections: c, .. } => *c = connections,
            Arrival::Open { .. } => {
                l.arrival = Arrival::Closed {
                    connections,
                    pipelining: 1,
                    think_time: Duration::ZERO,
                }
            }
        }
        l
    }

    /// How results.json describes it.
    pub fn info(&self) -> LoadInfo {
        let (model, pipelining, think, rate) = match self.arrival {
            Arrival::Closed {
                pipelining,
                think_time,
                ..
            } => (Model::Closed, pipelining, think_time.as_secs_f64(), None),
            Arrival::Open { rate, .. } => (Model::Open, 1, 0.0, Some(rate)),
        };
        LoadInfo {
            model,
            connections: self.connections(),
            pipelining,
            think_time_s: think,
            rate,
            stages: self
                .stages
                .iter()
                .map(|(d, t)| (d.as_secs_f64(), *t))
                .collect(),
            timeout_s: self.timeout.as_secs_f64(),
            unique_request_header: self.unique_request_header,
        }
    }

    /// The engine's plan for this load against one endpoint.
    pub fn engine_plan(
        &self,
        endpoint: gqlbench_engine::Endpoint,
        operations: Vec<gqlbench_engine::Operation>,
        generator_cpus: Option<&CpuSet>,
        warmup: Duration,
        stop: gqlbench_engine::Stop,
    ) -> gqlbench_engine::LoadPlan {
        use gqlbench_engine::{Schedule, Stage, Stages};
        let stages = |start: f64| Stages {
            start,
            stages: self
                .stages
                .iter()
                .map(|(d, t)| Stage {
                    duration: *d,
                    target: *t,
                })
                .collect(),
        };
        let schedule = match self.arrival {
            Arrival::Open {
                rate,
                max_connections,
            } => Schedule::Open {
                rate: stages(rate),
                max_connections,
            },
            Arrival::Closed {
                connections,
                pipelining,
                think_time,
            } => Schedule::Closed {
                connections: stages(connections as f64),
                pipelining,
                think_time,
            },
        };
        // Without a CPU list, the CPUs this process may use (a `taskset` mask counts), not
        // every CPU of the machine.
        let threads = generator_cpus
            .map(|c| c.0.len())
            .unwrap_or_else(|| crate::sys::cpus::allowed_cpus().len())
            .max(1)
            // Never more threads than connections: an idle worker only costs.
            .min(self.connections().max(1) as usize);
        let mut p = gqlbench_engine::LoadPlan::new(endpoint, operations, schedule, stop);
        p.warmup = warmup;
        p.timeout = self.timeout;
        p.threads = threads;
        p.cpus = generator_cpus.map(|c| c.0.clone());
        if self.unique_request_header {
            p.unique_request_header = Some(UNIQUE_HEADER.into());
        }
        p.headers = self.headers.clone();
        p
    }
}

/// An address nothing is sent to: plans are checked against the engine before targets
/// (and their ports) exist.
pub fn placeholder_endpoint() -> gqlbench_engine::Endpoint {
    gqlbench_engine::Endpoint {
        addr: std::net::SocketAddr::from(([127, 0, 0, 1], 9)),
        host: "127.0.0.1:9".into(),
        path: "/graphql".into(),
    }
}

/// Stands in for the operations of a scenario that has none of its own (subscriptions).
pub fn placeholder_operation() -> gqlbench_engine::Operation {
    gqlbench_engine::Operation {
        name: "placeholder".into(),
        weight: 1,
        variants: vec![gqlbench_engine::Variant {
            body: bytes::Bytes::from_static(b"{}"),
            expected_data: None,
            unique: None,
            batch: None,
            incremental: None,
            persisted: None,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_becomes_a_typed_load_and_back_into_its_description() {
        let spec = LoadSpec {
            connections: Some(50),
            pipelining: Some(4),
            ..Default::default()
        };
        let l = Load::from_spec(&spec, Some(8)).unwrap();
        assert_eq!(
            l.arrival,
            Arrival::Closed {
                connections: 8,
                pipelining: 4,
                think_time: Duration::ZERO
            }
        );
        let i = l.info();
        assert_eq!(
            (i.model.as_str(), i.connections, i.pipelining),
            ("closed", 8, 4)
        );
        let open = l.at_rate(250.0);
        assert!(open.is_open());
        assert_eq!((open.info().rate, open.connections()), (Some(250.0), 8));
        let plan = open.engine_plan(
            placeholder_endpoint(),
            vec![placeholder_operation()],
            None,
            Duration::ZERO,
            gqlbench_engine::Stop::default(),
        );
        assert!(matches!(
            plan.schedule,
            gqlbench_engine::Schedule::Open {
                max_connections: 8,
                ..
            }
        ));
        let bad = LoadSpec {
            model: Some(Model::Open),
            ..Default::default()
        };
        assert!(Load::from_spec(&bad, None)
            .unwrap_err()
            .contains("needs `rate`"));
    }
}
