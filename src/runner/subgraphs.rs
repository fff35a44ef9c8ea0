//! The federation subgraphs a gateway talks to: one `gqlbench subgraphs serve` process per
//! gateway, pinned away from the gateway, with the scenario's delays and the Federation
//! version the gateway needs; its request counters give upstream calls per client request.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use gqlbench_engine::Endpoint;

use super::ready::{wait_ready, Readiness};
use crate::sys::cpus::CpuSet;
use crate::sys::process::{free_port, SpawnSpec, TargetProcess};

/// Subgraph names, in the order of their placeholder ports in the committed supergraph.
pub const NAMES: [&str; 4] = ["accounts", "products", "reviews", "inventory"];
/// The committed supergraph routes subgraph i to this port + i; the runner rewrites it.
pub const PLACEHOLDER_BASE_PORT: u16 = 4201;

pub struct Subgraphs {
    pub process: TargetProcess,
    pub ports: BTreeMap<String, u16>,
    pub supergraph: PathBuf,
}

pub fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/graphql")
}

/// Replace each subgraph's placeholder URL with its real one.
pub fn rewrite_supergraph(text: &str, ports: &BTreeMap<String, u16>) -> Result<String> {
    let mut out = text.to_string();
    for (i, name) in NAMES.iter().enumerate() {
        let from = url(PLACEHOLDER_BASE_PORT + i as u16);
        if !out.contains(&from) {
            bail!("the supergraph has no URL {from} for subgraph '{name}': recompose it (see docs/federation.md)");
        }
        out = out.replace(&from, &url(ports[*name]));
    }
    Ok(out)
}

pub struct Start<'a> {
    pub root: &'a Path,
    pub version: &'a str,
    pub delays: &'a BTreeMap<String, String>,
    pub cpus: Option<&'a CpuSet>,
    pub log: PathBuf,
    pub supergraph_out: PathBuf,
    pub cancelled: &'a dyn Fn() -> bool,
}

impl Subgraphs {
    pub fn start(o: Start<'_>) -> Result<Subgraphs> {
        let mut ports = BTreeMap::new();
        for n in NAMES {
            ports.insert(n.to_string(), free_port()?);
        }
        let source = o.root.join("scenarios/federation/supergraph.graphql");
        let text = std::fs::read_to_string(&source)
            .with_context(|| format!("reading {}", source.display()))?;
        std::fs::write(&o.supergraph_out, rewrite_supergraph(&text, &ports)?)
            .with_context(|| format!("writing {}", o.supergraph_out.display()))?;
        let exe = crate::sys::process::own_exe().context("locating the gqlbench binary")?;
        let mut argv = vec![
            exe.display().to_string(),
            "subgraphs".into(),
            "serve".into(),
            "--ports".into(),
            NAMES
                .iter()
                .map(|n| format!("{n}={}", ports[*n]))
                .collect::<Vec<_>>()
                .join(","),
            "--federation".into(),
            o.version.to_string(),
            "--threads".into(),
            o.cpus.map(|c| c.0.len()).unwrap_or(1).to_string(),
        ];
        for (name, spec) in o.delays {
            argv.push("--delay".into());
            argv.push(format!("{name}={spec}"));
        }
        let mut process = TargetProcess::spawn(SpawnSpec {
            program: &argv,
            cwd: o.root,
            env: BTreeMap::new(),
            log: o.log,
            cpus: o.cpus.cloned(),
            cgroup_procs: vec![],
        })?;
        for n in NAMES {
            let ep = Endpoint::from_url(&url(ports[n])).map_err(|e| anyhow::anyhow!("{e}"))?;
            match wait_ready(
                &mut process,
                &ep,
                &[],
                Duration::from_secs(15),
                super::ready::READY_POLL,
                o.cancelled,
            ) {
                Readiness::Ready { .. } => {}
                Readiness::Exited { status } => bail!(
                    "the subgraphs exited during start-up ({status}):\n{}",
                    super::install::indent(&process.log_tail(15))
                ),
                Readiness::TimedOut { last_problem } => bail!(
                    "subgraph '{n}' not ready after 15 s: {last_problem}\n{}",
                    super::install::indent(&process.log_tail(15))
                ),
                Readiness::Interrupted => bail!("interrupted"),
            }
        }
        Ok(Subgraphs {
            process,
            ports,
            supergraph: o.supergraph_out,
        })
    }

    /// Environment a gateway gets: where the supergraph is and each subgraph's URL.
    pub fn env(&self) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        env.insert(
            "GQLBENCH_SUPERGRAPH".into(),
            self.supergraph.display().to_string(),
        );
        for (n, p) in &self.ports {
            env.insert(
                format!("GQLBENCH_SUBGRAPH_{}_URL", n.to_uppercase()),
                url(*p),
            );
        }
        env
    }

    /// Requests served per subgraph since start.
    pub fn counters(&self) -> Option<BTreeMap<String, u64>> {
        let port = *self.ports.values().next()?;
        super::loopback::get_json(port, "/counters")
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
    }

    pub fn stop(&mut self) {
        self.process.stop(Duration::from_secs(2));
    }

    /// The watched request headers the subgraphs saw since start (see the subgraphs'
    /// `header_tally`).
    pub fn headers(&self) -> Option<SeenHeaders> {
        let port = *self.ports.values().next()?;
        super::loopback::get_json(port, "/headers")
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
    }
}

/// What `GET /headers` answers: GraphQL requests served, and per watched header the count
/// of each value.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
pub struct SeenHeaders {
    pub requests: u64,
    #[serde(default)]
    pub headers: BTreeMap<String, BTreeMap<String, u64>>,
}

impl SeenHeaders {
    /// What arrived between `self` (before) and `after`.
    pub fn delta(&self, after: &SeenHeaders) -> SeenHeaders {
        let mut headers = BTreeMap::new();
        for (name, values) in &after.headers {
            let mut d = BTreeMap::new();
            for (v, n) in values {
                let was = self
                    .headers
                    .get(name)
                    .and_then(|m| m.get(v))
                    .copied()
                    .unwrap_or(0);
                if *n > was {
                    d.insert(v.clone(), n - was);
                }
            }
            if !d.is_empty() {
                headers.insert(name.clone(), d);
            }
        }
        SeenHeaders {
            requests: after.requests.saturating_sub(self.requests),
            headers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supergraph_urls_are_rewritten_per_subgraph() {
        let text = "accounts: url: \"http://127.0.0.1:4201/graphql\"\nproducts: \"http://127.0.0.1:4202/graphql\"\nreviews: \"http://127.0.0.1:4203/graphql\"\ninventory: \"http://127.0.0.1:4204/graphql\"";
        let ports: BTreeMap<String, u16> = NAMES
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), 5000 + i as u16))
            .collect();
        let out = rewrite_supergraph(text, &ports).unwrap();
        assert!(
            out.contains("http://127.0.0.1:5000/graphql")
                && out.contains("http://127.0.0.1:5003/graphql")
        );
        assert!(!out.contains(":4201/"));
        let err = rewrite_supergraph("nothing", &ports)
            .unwrap_err()
            .to_string();
        assert!(err.contains("accounts"), "{err}");
    }
}
