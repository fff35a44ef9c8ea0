//! `gqlbench check`: every operation of a suite against every target once; which answers
//! are right, and the first difference of each wrong one.
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::Table;

use crate::catalog::graph::GraphPlan;
use crate::catalog::{Catalog, OperationDef, TargetDef};
use crate::cli::CheckArgs;
use crate::error::PlanError;
use crate::measure::session::{Session, StartOptions};
use crate::plan::resolve_isolation;
use crate::progress::Progress;
use crate::results::CheckOutcome;
use crate::sys::cgroup::Limits;
use gqlbench_subgraphs::graph::Graph;

/// Which operations each target must answer, by the graph a gateway fronts; and the
/// operations themselves.
type PerTarget = BTreeMap<(String, Graph), (TargetDef, Vec<String>)>;

/// Every scenario of the suite that runs a chosen target (all when none is chosen) adds
/// its operations to that target's list (see [`PerTarget`]).
fn what_to_check(
    cat: &Catalog,
    a: &CheckArgs,
) -> Result<(PerTarget, BTreeMap<String, OperationDef>)> {
    // Which operations each target must answer: those of every scenario that runs it, by
    // the graph a gateway fronts there (each graph is a start of its own).
    let mut per_target: PerTarget = BTreeMap::new();
    let mut ops: BTreeMap<String, OperationDef> = BTreeMap::new();
    for name in cat.scenario_names(&a.suite)? {
        let d = cat.scenario(&a.suite, &name)?;
        // Subscriptions have no expected answers, and a depth scenario's operation may be
        // refused by design: their runs check them (depth limit, every message). Database
        // scenarios answer the same operations as the in-memory ones checked here.
        if crate::kinds::skip_in_check(&d.file, cat) {
            continue;
        }
        let targets: Vec<TargetDef> = match &d.file.targets {
            Some(v) => v
                .iter()
                .map(|n| cat.target(n).cloned())
                .collect::<Result<_>>()?,
            None => cat
                .targets
                .iter()
                .filter(|t| t.workloads.contains(&d.file.workload))
                .cloned()
                .collect(),
        };
        for o in &d.file.operations {
            if !ops.contains_key(&o.name) {
                ops.insert(o.name.clone(), cat.operation(&o.name)?);
            }
        }
        let graph = d.graph()?;
        for t in targets {
            if !a.targets.is_empty() && !a.targets.contains(&t.name) {
                continue;
            }
            let gateway = t.kind == crate::catalog::TargetKind::Gateway;
            if gateway && t.serves_graph(&GraphPlan::Builtin(graph)).is_err() {
                continue;
            }
            let e = per_target
                .entry((t.name.clone(), graph))
                .or_insert_with(|| (t.clone(), Vec::new()));
            for o in &d.file.operations {
                if !e.1.contains(&o.name) {
                    e.1.push(o.name.clone());
                }
            }
        }
    }
    if per_target.is_empty() {
        return Err(PlanError::Flag {
            flag: "--targets",
            message: format!("no scenario of suite '{}' runs these targets", a.suite),
        }
        .into());
    }
    Ok((per_target, ops))
}

/// The table of targets by operation on stdout, then each problem; the problems.
fn print_table(
    table: &[(String, Result<Vec<CheckOutcome>, String>)],
    ops: &BTreeMap<String, OperationDef>,
) -> Vec<String> {
    let op_list: Vec<&String> = ops.keys().collect();
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(
        std::iter::once("target".to_string()).chain(op_list.iter().map(|s| s.to_string())),
    );
    let mut bad = Vec::new();
    for (name, r) in table {
        let mut row = vec![name.clone()];
        match r {
            Err(e) => {
                row.extend(op_list.iter().map(|_| "not run".to_string()));
                bad.push(format!("{name}: {e}"));
            }
            Ok(outs) => {
                for o in &op_list {
                    row.push(match outs.iter().find(|c| &&c.operation == o) {
                        None => "-".into(),
                        Some(c) if c.ok => format!(
                            "ok ({} case{})",
                            c.cases,
                            if c.cases == 1 { "" } else { "s" }
                        ),
                        Some(c) => {
                            bad.push(format!(
                                "{name} / {}: {}",
                                c.operation,
                                c.detail.clone().unwrap_or_default()
                            ));
                            "WRONG".into()
                        }
                    });
                }
            }
        }
        t.add_row(row);
    }
    println!("{t}");
    for b in &bad {
        println!("! {b}");
    }
    println!(
        "{} target(s) checked, {} problem(s)",
        table.len(),
        bad.len()
    );
    bad
}

pub fn run(root: &Path, a: &CheckArgs) -> Result<ExitCode> {
    let cat = Catalog::load(root)?;
    for t in &a.targets {
        cat.target(t)?;
    }
    let (per_target, ops) = what_to_check(&cat, a)?;
    let iso = resolve_isolation(&super::run::isolation_options(&a.isolation), false)?;
    let _locks = crate::sys::lock::lock_cpus(&iso, a.isolation.force_concurrent)?;
    crate::measure::leftovers::sweep_and_report(&crate::db::DbOptions::default().base_dir());
    let progress = Progress::new(0.0, true);
    let defs: Vec<&TargetDef> = per_target.values().map(|(t, _)| t).collect();
    let cancel = super::cancel_flag();
    let install_failed = crate::runner::install_all(&defs, &progress, &|| {
        cancel.load(std::sync::atomic::Ordering::Relaxed)
    });
    let cancelled = || cancel.load(std::sync::atomic::Ordering::Relaxed);
    // Removed when dropped, however the check ends.
    let scratch_dir = tempfile::Builder::new()
        .prefix("gqlbench-check-")
        .tempdir()
        .context("creating a temporary folder")?;
    let scratch = scratch_dir.path().to_path_buf();
    let no_delays = BTreeMap::new();
    let mut table: Vec<(String, Result<Vec<CheckOutcome>, String>)> = Vec::new();
    for ((name, graph), (t, op_names)) in &per_target {
        let label = match graph {
            Graph::Demo => name.clone(),
            g => format!("{name} ({g} graph)"),
        };
        let name = &label;
        let graph_plan = GraphPlan::Builtin(*graph);
        if let Some(u) = crate::results::Unavailable::find(&install_failed, &t.name) {
            table.push((
                name.clone(),
                Err(format!("{}: {}", u.status.label(), u.message)),
            ));
            continue;
        }
        eprintln!("checking {name} ({} operations) ...", op_names.len());
        let limits = Limits::default();
        let started = Session::start(
            t,
            StartOptions {
                cpus: iso.target.as_ref(),
                use_cgroups: false,
                limits: &limits,
                log: scratch.join(format!("{name}.log")),
                scratch: scratch.clone(),
                node_probe: None,
                cancelled: &cancelled,
                // Gateways get their subgraphs, without delays, away from the gateway.
                env: Default::default(),
                cold: false,
                headers: Vec::new(),
                helper_cpus: iso.generator.as_ref(),
                trace_collector: None,
                counters: false,
                federation: (t.kind == crate::catalog::TargetKind::Gateway).then_some(
                    crate::measure::session::FederationStart {
                        root,
                        graph: &graph_plan,
                        delays: &no_delays,
                        cpus: iso.generator.as_ref(),
                    },
                ),
            },
        );
        match started {
            Err(f) => table.push((
                name.clone(),
                Err(format!(
                    "{}: {}{}",
                    f.status.label(),
                    f.problem,
                    f.log_tail
                        .map(|t| format!("\n{}", crate::measure::install::indent(&t)))
                        .unwrap_or_default()
                )),
            )),
            Ok((mut s, _)) => {
                let list: Vec<(OperationDef, u32)> =
                    op_names.iter().map(|n| (ops[n].clone(), 1)).collect();
                let outcomes = crate::measure::ready::check_operations(
                    &s.endpoint,
                    &list,
                    &[],
                    std::time::Duration::from_secs(10),
                );
                s.stop();
                table.push((name.clone(), Ok(outcomes)));
            }
        }
        if cancelled() {
            break;
        }
    }
    let bad = print_table(&table, &ops);
    Ok(if bad.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
