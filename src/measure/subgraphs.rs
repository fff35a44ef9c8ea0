//! The federation subgraphs a gateway talks to: one process per gateway, pinned away from
//! the gateway, serving the scenario's graph with its delays: `gqlbench subgraphs serve`
//! for a built-in graph (the demo's four or the twelve generated ones, in the Federation
//! version the gateway needs), `gqlbench subgraphs mock` for a user's own graph (mock
//! subgraphs from its SDL). Its request counters give upstream calls per client request.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use gqlbench_engine::Endpoint;

use super::ready::{wait_ready, Readiness};
use crate::catalog::graph::GraphPlan;
use crate::sys::cpus::CpuSet;
use crate::sys::process::{free_port, SpawnSpec, TargetProcess};

pub struct Subgraphs {
    pub process: TargetProcess,
    /// Subgraph names in the graph's order.
    pub names: Vec<String>,
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
    names: &[String],
    base_port: u16,
    ports: &BTreeMap<String, u16>,
) -> Result<String> {
    let mut out = text.to_string();
    let marker = |i: usize| format!("\u{0}subgraph-{i}\u{0}");
    for (i, name) in names.iter().enumerate() {
        let from = url(base_port + i as u16);
        if !out.contains(&from) {
            bail!("the supergraph has no URL {from} for subgraph '{name}': recompose it (see docs/federation.md)");
        }
        out = out.replace(&from, &marker(i));
    }
    for (i, name) in names.iter().enumerate() {
        let port = ports
            .get(name)
            .with_context(|| format!("no port for subgraph '{name}'"))?;
        out = out.replace(&marker(i), &url(*port));
    }
    Ok(out)
}

pub struct Start<'a> {
    pub root: &'a Path,
    pub graph: &'a GraphPlan,
    pub version: &'a str,
    pub delays: &'a BTreeMap<String, String>,
    pub cpus: Option<&'a CpuSet>,
    pub log: PathBuf,
    pub supergraph_out: PathBuf,
    pub cancelled: &'a dyn Fn() -> bool,
}

/// The command line of the subgraphs' process (after the gqlbench binary): `serve` for a
/// built-in graph, `mock` for a user's own.
fn arguments(o: &Start<'_>, ports: &str) -> Vec<String> {
    let threads = o.cpus.map(|c| c.0.len()).unwrap_or(1).to_string();
    let mut argv: Vec<String> = match o.graph {
        GraphPlan::Builtin(g) => vec![
            "serve".into(),
            "--graph".into(),
            g.name().into(),
            "--federation".into(),
            o.version.to_string(),
        ],
        GraphPlan::Own(own) => {
            let mut a = vec![
                "mock".into(),
                "--dir".into(),
                own.subgraph_dir().display().to_string(),
            ];
            for (path, n) in &own.file.lists {
                a.push("--list".into());
                a.push(format!("{path}={n}"));
            }
            for c in own.cost_flags() {
                a.push("--cost".into());
                a.push(c);
            }
            a.push("--nulls".into());
            a.push(own.mock_config().null_every.to_string());
            a
        }
    };
    argv.extend([
        "--ports".into(),
        ports.to_string(),
        "--threads".into(),
        threads,
    ]);
    for (name, spec) in o.delays {
        argv.push("--delay".into());
        argv.push(format!("{name}={spec}"));
    }
    argv
}

impl Subgraphs {
    pub fn start(o: Start<'_>) -> Result<Subgraphs> {
        let names = o.graph.names();
        let mut ports = BTreeMap::new();
        for n in &names {
            ports.insert(n.clone(), free_port()?);
        }
        let source = o.graph.supergraph(o.root);
        let text = std::fs::read_to_string(&source)
            .with_context(|| format!("reading {}", source.display()))?;
        let rewritten = rewrite_supergraph(&text, &names, o.graph.placeholder_base_port(), &ports)?;
        std::fs::write(&o.supergraph_out, rewritten)
            .with_context(|| format!("writing {}", o.supergraph_out.display()))?;
        let exe = crate::sys::process::own_exe().context("locating the gqlbench binary")?;
        let list = names
            .iter()
            .map(|n| format!("{n}={}", ports[n]))
            .collect::<Vec<_>>()
            .join(",");
        let mut argv = vec![exe.display().to_string(), "subgraphs".into()];
        argv.extend(arguments(&o, &list));
        let mut process = TargetProcess::spawn(SpawnSpec {
            program: &argv,
            cwd: o.root,
            env: BTreeMap::new(),
            log: o.log,
            cpus: o.cpus.cloned(),
            cgroup_procs: vec![],
        })?;
        for n in &names {
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
                Readiness::TimedOut { last_problem, .. } => bail!(
                    "subgraph '{n}' not ready after 15 s: {last_problem}\n{}",
                    super::install::indent(&process.log_tail(15))
                ),
                Readiness::Interrupted => bail!("interrupted"),
            }
        }
        Ok(Subgraphs {
            process,
            names,
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
            .names
            .iter()
            .filter_map(|n| Some(format!("{n}={}", url(*self.ports.get(n)?))))
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
    use gqlbench_subgraphs::graph::Graph;

    fn demo() -> Vec<String> {
        GraphPlan::Builtin(Graph::Demo).names()
    }

    #[test]
    fn supergraph_urls_are_rewritten_per_subgraph() {
        let text = "accounts: url: \"http://127.0.0.1:4201/graphql\"\nproducts: \"http://127.0.0.1:4202/graphql\"\nreviews: \"http://127.0.0.1:4203/graphql\"\ninventory: \"http://127.0.0.1:4204/graphql\"";
        let ports: BTreeMap<String, u16> = Graph::Demo
            .names()
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), 5000 + i as u16))
            .collect();
        let out = rewrite_supergraph(text, &demo(), 4201, &ports).unwrap();
        assert!(
            out.contains("http://127.0.0.1:5000/graphql")
                && out.contains("http://127.0.0.1:5003/graphql")
        );
        assert!(!out.contains(":4201/"));
        let err = rewrite_supergraph("nothing", &demo(), 4201, &ports)
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
        let out = rewrite_supergraph(text, &demo(), 4201, &ports).unwrap();
        assert!(
            out.starts_with("a \"http://127.0.0.1:4202/graphql\" b \"http://127.0.0.1:6001/"),
            "{out}"
        );
    }

    #[test]
    fn the_committed_wide_supergraph_names_all_twelve_placeholders() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let wide = GraphPlan::Builtin(Graph::Wide);
        let text = std::fs::read_to_string(wide.supergraph(root)).unwrap();
        let ports: BTreeMap<String, u16> = Graph::Wide
            .names()
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), 7000 + i as u16))
            .collect();
        let out =
            rewrite_supergraph(&text, &wide.names(), wide.placeholder_base_port(), &ports).unwrap();
        assert!(out.contains("http://127.0.0.1:7011/graphql"));
        for i in 0..12 {
            let placeholder = url(wide.placeholder_base_port() + i);
            assert!(!out.contains(&placeholder), "{placeholder} is left");
        }
    }
}
