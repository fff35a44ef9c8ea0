//! Which graph a federation scenario's gateways front: one of the built-in graphs (the
//! demo's four hand-written subgraphs, the twelve generated ones), served by `gqlbench
//! subgraphs serve`, or a user's own graph (`run federation --graph DIR`), served by
//! mock subgraphs from its SDL. Everything per subgraph (ports, the supergraph's
//! placeholder URLs, delays) goes by the names and their order given here.
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gqlbench_subgraphs::graph::Graph;

use super::own_graph::{self, OwnGraph};

#[derive(Debug, Clone)]
pub enum GraphPlan {
    Builtin(Graph),
    Own(Arc<OwnGraph>),
}

impl Default for GraphPlan {
    fn default() -> Self {
        GraphPlan::Builtin(Graph::default())
    }
}

impl GraphPlan {
    /// As reports and messages name it: "demo graph", "wide graph", "own graph 'shop'".
    pub fn label(&self) -> String {
        match self {
            GraphPlan::Builtin(g) => format!("{} graph", g.name()),
            GraphPlan::Own(o) => format!("own graph '{}'", o.name),
        }
    }

    /// The subgraph names, in the order of their placeholder ports.
    pub fn names(&self) -> Vec<String> {
        match self {
            GraphPlan::Builtin(g) => g.names().iter().map(|n| n.to_string()).collect(),
            GraphPlan::Own(o) => o.subgraphs.clone(),
        }
    }

    /// The supergraph routes subgraph i (in [`GraphPlan::names`] order) to this port + i;
    /// the runner rewrites it (targets/_federation/compose.mjs uses the same).
    pub fn placeholder_base_port(&self) -> u16 {
        match self {
            GraphPlan::Builtin(Graph::Demo) => 4201,
            GraphPlan::Builtin(Graph::Wide) => 4301,
            GraphPlan::Own(_) => own_graph::FIRST_PORT,
        }
    }

    /// The graph's supergraph, with placeholder URLs.
    pub fn supergraph(&self, root: &Path) -> PathBuf {
        match self {
            GraphPlan::Builtin(g) => root.join(supergraph_file(*g)),
            GraphPlan::Own(o) => o.supergraph(),
        }
    }

    pub fn own(&self) -> Option<&OwnGraph> {
        match self {
            GraphPlan::Own(o) => Some(o),
            GraphPlan::Builtin(_) => None,
        }
    }
}

/// The committed supergraph of a built-in graph, relative to the project root.
pub fn supergraph_file(graph: Graph) -> &'static str {
    match graph {
        Graph::Demo => "scenarios/federation/supergraph.graphql",
        Graph::Wide => "scenarios/federation/wide/supergraph.graphql",
    }
}
