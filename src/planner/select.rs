//! Which scenarios a run plans: those named (else the suite's, an optional one only when
//! named or with --all; on a user's graph only those that run on one), each resolved. A
//! run where none keeps a target is refused, blamed on the flag that chose them, and so are
//! a target named in --targets that no chosen scenario runs and a user's graph that no
//! chosen gateway can front.
use anyhow::Result;

use super::scenario;
use crate::catalog::own_graph::OwnGraph;
use crate::catalog::{Catalog, Profile};
use crate::error::PlanError;
use crate::kind::{KindDef, ScenarioPlan};
use crate::plan::RunOptions;

/// The run's scenarios, resolved.
pub fn scenarios(
    cat: &Catalog,
    args: &RunOptions,
    registry: &[&KindDef],
    base: Profile,
) -> Result<Vec<ScenarioPlan>> {
    let names = cat.scenario_names(&args.suite)?;
    let own = own_graph(args)?;
    let mut scenarios = Vec::new();
    // Why each scenario kept no target, for the refusal when none kept any.
    let mut targetless = Vec::new();
    for n in &names {
        if !args.scenarios.is_empty() && !args.scenarios.contains(n) {
            continue;
        }
        let def = cat.scenario(&args.suite, n)?;
        if def.file.optional && !args.all && !args.scenarios.contains(n) {
            continue;
        }
        if own.is_some() && !def.file.own_graph {
            if args.scenarios.contains(n) {
                return Err(PlanError::Flag {
                    flag: "--scenarios",
                    message: format!(
                        "scenario '{n}' does not run on a graph of your own (--graph); those that do: {}",
                        own_graph_scenarios(cat, &args.suite, &names).join(", ")
                    ),
                }
                .into());
            }
            continue;
        }
        let sp = scenario::resolve(cat, &def, base, &args.profile, args, registry, own.as_ref())?;
        if !sp.targets.is_empty() {
            scenarios.push(sp);
        } else {
            targetless.push(no_target(&sp, args));
        }
    }
    if scenarios.is_empty() {
        // Blamed on the flag that chose: the targets when given, else the scenarios.
        let (flag, chosen) = if args.targets.is_empty() {
            ("--scenarios", "has a target to run")
        } else {
            ("--targets", "runs any of the chosen targets")
        };
        return Err(PlanError::Flag {
            flag,
            message: format!(
                "no scenario of suite '{}' {chosen}: {}",
                args.suite,
                targetless.join("; ")
            ),
        }
        .into());
    }
    every_target_runs(args, &scenarios)?;
    if let Some(g) = &own {
        some_target_serves(cat, &scenarios, g)?;
    }
    Ok(scenarios)
}

/// A target named in `--targets` that no chosen scenario runs is refused: left out in
/// silence, a comparison the user asked for would quietly not happen.
fn every_target_runs(args: &RunOptions, scenarios: &[ScenarioPlan]) -> Result<()> {
    let runs = |t: &String| {
        scenarios
            .iter()
            .any(|sp| sp.targets.iter().any(|x| &x.name == t))
    };
    let missing: Vec<&String> = args.targets.iter().filter(|t| !runs(t)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let lists: Vec<String> = scenarios
        .iter()
        .map(|sp| {
            let not: Vec<String> = sp
                .not_supported
                .iter()
                .filter(|(t, _)| missing.contains(&t))
                .map(|(t, why)| format!("{t} does not serve it: {why}"))
                .collect();
            let names: Vec<&str> = sp.targets.iter().map(|t| t.name.as_str()).collect();
            let mut line = format!("{} runs {}", sp.name, names.join(", "));
            if !not.is_empty() {
                line.push_str(&format!(" ({})", not.join("; ")));
            }
            line
        })
        .collect();
    Err(PlanError::Flag {
        flag: "--targets",
        message: format!(
            "{} {} in no chosen scenario ({}): choose a scenario that runs it (`gqlbench list {}` shows each scenario's targets) or leave it out",
            missing
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            if missing.len() == 1 { "is" } else { "are" },
            lists.join("; "),
            args.suite
        ),
    }
    .into())
}

/// Why scenario `sp` kept no target: what the chosen targets' target.toml say of its
/// workload, else that none serves it.
fn no_target(sp: &crate::kind::ScenarioPlan, args: &RunOptions) -> String {
    if !sp.not_supported.is_empty() {
        let why: Vec<String> = sp
            .not_supported
            .iter()
            .map(|(t, why)| format!("{t} does not serve it ({why})"))
            .collect();
        return format!("{}: {}", sp.name, why.join(", "));
    }
    if args.targets.is_empty() {
        format!(
            "{}: no target serves its workload '{}'",
            sp.name, sp.workload
        )
    } else {
        format!(
            "{}: {} not among the targets serving its workload '{}'",
            sp.name,
            args.targets.join(", "),
            sp.workload
        )
    }
}

/// The user's graph of `--graph DIR`, loaded and checked (its operations answered); only
/// with the federation suite.
fn own_graph(args: &RunOptions) -> Result<Option<std::sync::Arc<OwnGraph>>> {
    let Some(dir) = &args.graph else {
        return Ok(None);
    };
    if args.suite != "federation" {
        return Err(PlanError::Flag {
            flag: "--graph",
            message: format!(
                "a graph of your own is for gateways: run `gqlbench run federation --graph {}` (not suite '{}')",
                dir.display(),
                args.suite
            ),
        }
        .into());
    }
    Ok(Some(std::sync::Arc::new(OwnGraph::load(dir)?)))
}

/// A run on a user's graph whose chosen gateways all cannot front it (each reads Federation
/// v1 SDL, or is configured for the built-in graphs' subgraphs, as its target.toml says)
/// would install them, skip every one and measure nothing: refused before anything is
/// installed, naming each with its target.toml's reason and the gateways that can.
fn some_target_serves<K: ?Sized>(
    cat: &Catalog,
    scenarios: &[crate::plan::ScenarioPlan<K>],
    own: &std::sync::Arc<OwnGraph>,
) -> Result<()> {
    let mut cannot: Vec<String> = Vec::new();
    for s in scenarios {
        for t in &s.targets {
            match t.serves_graph(&s.graph) {
                Ok(()) => return Ok(()),
                Err(why) => {
                    let line = format!("{}: {why}", t.name);
                    if !cannot.contains(&line) {
                        cannot.push(line);
                    }
                }
            }
        }
    }
    let graph = crate::catalog::graph::GraphPlan::Own(own.clone());
    let can: Vec<&str> = cat
        .targets
        .iter()
        .filter(|t| t.base.is_none() && t.workloads.iter().any(|w| w == "federation"))
        .filter(|t| t.serves_graph(&graph).is_ok())
        .map(|t| t.name.as_str())
        .collect();
    Err(PlanError::Flag {
        flag: "--targets",
        message: format!(
            "no chosen target can run on a graph of your own ({}): {}. Choose gateways that read its Federation v2 SDL: {}",
            own.dir.display(),
            cannot.join("; "),
            if can.is_empty() { "(none in the catalogue)".to_string() } else { can.join(", ") }
        ),
    }
    .into())
}

/// The scenarios of `suite` that run on a user's own graph.
fn own_graph_scenarios(cat: &Catalog, suite: &str, names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|n| cat.scenario(suite, n).is_ok_and(|d| d.file.own_graph))
        .cloned()
        .collect()
}
