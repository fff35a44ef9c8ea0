//! A scenario's operations and the graph they run on: the file's operations read in the
//! kind's form, the built-in graph (its delays and operations checked against its
//! supergraph) or a user's graph with its own operations, and the description that says
//! which ran.
use anyhow::Result;

use crate::catalog::graph::GraphPlan;
use crate::catalog::scenario::ScenarioDef;
use crate::catalog::Catalog;
use crate::error::CatalogError;

/// The operations the scenario's file names, read from the catalogue in the kind's form
/// (none for a kind that reads its document itself, such as subscriptions, or when a
/// user's graph brings its own).
pub fn from_file(
    cat: &Catalog,
    def: &ScenarioDef,
    kind: &dyn crate::kind::Kind,
    own_graph: bool,
) -> Result<Vec<(crate::catalog::OperationDef, u32)>> {
    let mut operations = Vec::new();
    if !kind.reads_operations() || own_graph {
        return Ok(operations);
    }
    for o in &def.file.operations {
        let mut op = cat.operation(&o.name).map_err(|e| CatalogError::File {
            file: def.path.clone(),
            message: format!("operation '{}': {e:#}", o.name),
        })?;
        op.form = kind.form();
        op.documents_checked()
            .map_err(|message| CatalogError::File {
                file: def.path.clone(),
                message,
            })?;
        operations.push((op, o.weight));
    }
    Ok(operations)
}

pub type Operations = Vec<(crate::catalog::OperationDef, u32)>;

/// The graph a scenario runs on, its subgraphs' delays and the operations it sends.
pub struct OnGraph {
    pub graph: GraphPlan,
    pub delays: Option<std::collections::BTreeMap<String, String>>,
    pub operations: Operations,
}

/// The subgraphs a gateway is put in front of and their delays: the file's built-in graph
/// (its operations checked against it), or a user's graph, whose operations (checked and
/// answered when it was loaded) replace the file's and whose delays serve where the
/// scenario has some.
pub fn graph(
    cat: &Catalog,
    def: &ScenarioDef,
    kind: &dyn crate::kind::Kind,
    own: Option<&std::sync::Arc<crate::catalog::own_graph::OwnGraph>>,
    mut operations: Operations,
) -> Result<OnGraph> {
    let f = &def.file;
    let bad = |message: String| CatalogError::File {
        file: def.path.clone(),
        message,
    };
    let builtin = def.graph()?;
    if let Some(sg) = &f.subgraphs {
        for (name, spec) in &sg.delays {
            gqlbench_subgraphs::delay::DelaySpec::parse_for(&format!("{name}={spec}"), builtin)
                .map_err(|e| bad(format!("[subgraphs] delays: {e}")))?;
        }
    }
    let mut delays = f
        .subgraphs
        .as_ref()
        .map(|s| s.delays.clone())
        .or_else(|| (f.workload == "federation").then(Default::default));
    let graph = match own {
        Some(g) => {
            if kind.reads_operations() {
                operations = g
                    .operations
                    .iter()
                    .map(|(o, w)| {
                        let mut o = o.clone();
                        o.form = kind.form();
                        (o, *w)
                    })
                    .collect();
            }
            if delays.as_ref().is_some_and(|d| !d.is_empty()) {
                delays = Some(g.delays());
            }
            GraphPlan::Own(g.clone())
        }
        None => {
            if f.subgraphs.is_some() || f.workload == "federation" {
                check_against_graph(cat, builtin, &operations).map_err(bad)?;
            }
            GraphPlan::Builtin(builtin)
        }
    };
    Ok(OnGraph {
        graph,
        delays,
        operations,
    })
}

/// The scenario's description; on a user's graph the file's names the demo's operations,
/// so it says what runs instead.
pub fn description(file: &str, graph: &GraphPlan, operations: &Operations) -> String {
    match graph.own() {
        Some(g) => format!(
            "{file} [here on the graph {} ({} mock subgraphs from its SDL: {}), with its operations: {}{}]",
            g.dir.display(),
            g.subgraphs.len(),
            g.subgraphs.join(", "),
            operations
                .iter()
                .map(|(o, w)| format!("{} x{w}", o.name))
                .collect::<Vec<_>>()
                .join(", "),
            left_out(g)
        ),
        None => file.to_string(),
    }
}

/// Every operation of a federation scenario is one its graph can answer: validated against
/// the supergraph the gateways are given (`catalog::graph_check`). A catalogue without the
/// graph's supergraph (a test's) has nothing to check against; starting a gateway then
/// says what is missing.
fn check_against_graph(
    cat: &Catalog,
    graph: gqlbench_subgraphs::graph::Graph,
    operations: &[(crate::catalog::operation::OperationDef, u32)],
) -> Result<(), String> {
    let path = GraphPlan::Builtin(graph).supergraph(&cat.root);
    if operations.is_empty() || !path.exists() {
        return Ok(());
    }
    let schema =
        crate::catalog::graph_check::GraphSchema::load(&path).map_err(|e| e.to_string())?;
    for (op, _) in operations {
        schema.check(&op.document, &op.document_path).map_err(|e| {
            format!(
                "operation '{}' does not fit the graph's supergraph {}: {e}",
                op.name,
                schema.path.display()
            )
        })?;
    }
    Ok(())
}

/// The user's operations a run leaves out because the mocks cannot serve them
/// consistently, with why: said beside those that run.
fn left_out(g: &crate::catalog::own_graph::OwnGraph) -> String {
    if g.left_out.is_empty() {
        return String::new();
    }
    let each: Vec<String> = g
        .left_out
        .iter()
        .map(|(stem, why)| format!("{}/{stem} ({why})", g.name))
        .collect();
    format!("; left out, not checked: {}", each.join("; "))
}
