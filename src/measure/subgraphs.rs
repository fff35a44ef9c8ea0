//! The federation subgraphs a gateway talks to: one `gqlbench subgraphs serve` process per
//! gateway, pinned away from the gateway, serving the scenario's graph (the demo's four or
//! the twelve generated ones) with its delays and the Federation version the gateway needs;
//! its request counters give upstream calls per client request.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use gqlbench_engine::Endpoint;
use gqlbench_subgraphs::graph::Graph;

use super::ready::{wait_ready, Readiness};
use crate::sys::cpus::CpuSet;
use crate::sys::process::{free_port, SpawnSpec, TargetProcess};

/// The committed supergraph of a graph routes its subgraph i (in `Graph::names` order) to
/// this port + i; the runner rewrites it (targets/_federation/compose.mjs uses the same).
pub fn placeholder_base_port(graph: Graph) -> u16 {
    match graph {
        Graph::Demo => 4201,
        Graph::Wide => 4301,
    }
}

/// The committed supergraph of a graph, relative to the project root.
pub fn supergraph_file(graph: Graph) -> &'static str {
    match graph {
        Graph::Demo => "scenarios/federation/supergraph.graphql",
        Graph::Wide => "scenarios/federation/wide/supergraph.graphql",
    }
}

pub struct Subgraphs {
    pub process: TargetProcess,
    pub graph: Graph,
    pub ports: BTreeMap<String, u16>,
    pub supergraph: PathBuf,
}

pub fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/graphql")
}

/// Replace each subgraph's placeholder URL with its real one. Through markers first, so
/// that a real port equal to another subgraph's placeholder is not rewritten twice.
pub fn rewrite_supergraph(
    text: &str,
    graph: Graph,
    ports: &BTreeMap<String, u16>,
) -> Result<String> {
    let mut out = text.to_string();
    let marker = |i: usize| format!("\u{0}subgraph-{i}\u{0}");
    for (i, name) in graph.names().iter().enumerate() {
        let from = url(placeholder_base_port(graph) + i as u16);
        if !out.contains(&from) {
            bail!("the supergraph has no URL {from} for subgraph '{name}': recompose it (see docs/federation.md)");
        }
        out = out.replace(&from, &marker(i));
    }
    for (i, name) in graph.names().iter().enumerate() {
        let port = ports
            .get(*name)
            .with_context(|| format!("no port for subgraph '{name}'"))?;
        out = out.replace(&marker(i), &url(*port));
    }
    Ok(out)
}

pub struct Start<'a> {
    pub root: &'a Path,
    pub graph: Graph,
    pub version: &'a str,
    pub delays: &'a BTreeMap<String, String>,
    pub cpus: Option<&'a CpuSet>,
    pub log: PathBuf,
    pub supergraph_out: PathBuf,
    pub cancelled: &'a dyn Fn() -> bool,
}

impl Subgraphs {
    pub fn start(o: Start<'_>) -> Result<Subgraphs> {
        let names = o.graph.names();
        let mut ports = BTreeMap::new();
        for n in names {
            ports.insert(n.to_string(), free_port()?);
        }
        let source = o.root.join(supergraph_file(o.graph));
        let text = std::fs::read_to_string(&source)
            .with_context(|| format!("reading {}", source.display()))?;
        std::fs::write(
            &o.supergraph_out,
            rewrite_supergraph(&text, o.graph, &ports)?,
        )
        .with_context(|| format!("writing {}", o.supergraph_out.display()))?;
        let exe = crate::sys::process::own_exe().context("locating the gqlbench binary")?;
        let mut argv = vec![
            exe.display().to_string(),
            "subgraphs".into(),
            "serve".into(),
            "--graph".into(),
            o.graph.name().into(),
            "--ports".into(),
            names
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
        for n in names {
            let ep = Endpoint::from_url(&url(ports[*n])).map_err(|e| anyhow::anyhow!("{e}"))?;
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
                Readiness::TimedOut { last_problem, .. } => bail!(
                    "subgraph '{n}' not ready after 15 s: {last_problem}\n{}",
                    super::install::indent(&process.log_tail(15))
                ),
                Readiness::Interrupted => bail!("interrupted"),
            }
        }
        Ok(Subgraphs {
            process,
            graph: o.graph,
            ports,
            supergraph: o.supergraph_out,
        })
    }

    /// Environment a gateway gets: where the supergraph is, each subgraph's URL, and all
    /// of them in order as `GQLBENCH_SUBGRAPHS=name=url,...` (for gateways that compose
    /// themselves and must know which subgraphs there are).
    pub fn env(&self) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        env.insert(
            "GQLBENCH_SUPERGRAPH".into(),
            self.supergraph.display().to_string(),
        );
        let list: Vec<String> = self
            .graph
            .names()
            .iter()
            .filter_map(|n| Some(format!("{n}={}", url(*self.ports.get(*n)?))))
            .collect();
        env.insert("GQLBENCH_SUBGRAPHS".into(), list.join(","));
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
        let ports: BTreeMap<String, u16> = Graph::Demo
            .names()
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), 5000 + i as u16))
            .collect();
        let out = rewrite_supergraph(text, Graph::Demo, &ports).unwrap();
        assert!(
            out.contains("http://127.0.0.1:5000/graphql")
                && out.contains("http://127.0.0.1:5003/graphql")
        );
        assert!(!out.contains(":4201/"));
        let err = rewrite_supergraph("nothing", Graph::Demo, &ports)
            .unwrap_err()
            .to_string();
        assert!(err.contains("accounts"), "{err}");
    }

    #[test]
    fn a_real_port_equal_to_another_placeholder_is_rewritten_once() {
        let text = "a \"http://127.0.0.1:4201/graphql\" b \"http://127.0.0.1:4202/graphql\" c \"http://127.0.0.1:4203/graphql\" d \"http://127.0.0.1:4204/graphql\"";
        // accounts gets products' placeholder as its real port.
        let ports: BTreeMap<String, u16> = [
            ("accounts", 4202),
            ("products", 6001),
            ("reviews", 6002),
            ("inventory", 6003),
        ]
        .iter()
        .map(|(n, p)| (n.to_string(), *p))
        .collect();
        let out = rewrite_supergraph(text, Graph::Demo, &ports).unwrap();
        assert!(
            out.starts_with("a \"http://127.0.0.1:4202/graphql\" b \"http://127.0.0.1:6001/"),
            "{out}"
        );
    }

    #[test]
    fn the_committed_wide_supergraph_names_all_twelve_placeholders() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(root.join(supergraph_file(Graph::Wide))).unwrap();
        let ports: BTreeMap<String, u16> = Graph::Wide
            .names()
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), 7000 + i as u16))
            .collect();
        let out = rewrite_supergraph(&text, Graph::Wide, &ports).unwrap();
        assert!(out.contains("http://127.0.0.1:7011/graphql"));
        for i in 0..12 {
            let placeholder = url(placeholder_base_port(Graph::Wide) + i);
            assert!(!out.contains(&placeholder), "{placeholder} is left");
        }
    }
}
