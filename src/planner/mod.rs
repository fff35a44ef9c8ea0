//! Planning a run: the suite's scenarios resolved from their files, the profile and the
//! run's options into a [`RunPlan`] that the runner carries out. Every check that can be
//! made before anything starts is made here (unknown names, a scale or budget that cannot
//! work, a load the engine refuses). The kinds are handed in (`kinds::REGISTRY`), so this
//! floor sits below them.
mod ab;
mod operations;
mod scenario;
mod select;

use std::collections::BTreeMap;

use anyhow::Result;

use crate::catalog::Catalog;
use crate::error::{CatalogError, PlanError};
use crate::kind::{KindDef, RunPlan};
use crate::plan::{resolve_isolation, DatabasePlan, RunOptions, FOREIGN_LIMIT_PCT, MIN_SCALE};
pub use ab::resolve_ab;

pub fn resolve_run(cat: &Catalog, args: &RunOptions, registry: &[&KindDef]) -> Result<RunPlan> {
    let names = cat.scenario_names(&args.suite)?;
    for s in &args.scenarios {
        if !names.contains(s) {
            return Err(CatalogError::unknown("scenario", s, &names).into());
        }
    }
    for t in &args.targets {
        cat.target(t)?;
    }
    let profiles = cat.profiles()?;
    let base = profiles.get(&args.profile).map_err(|e| PlanError::Flag {
        flag: "--profile",
        message: e.to_string(),
    })?;
    let scenarios = select::scenarios(cat, args, registry, base)?;
    let rate_driven = ignoring_connections(&scenarios);
    if args.connections.is_some() && rate_driven.len() == scenarios.len() {
        return Err(PlanError::Flag {
            flag: "--connections",
            message: format!(
                "sets a closed model's connections, and {} take their load from a rate (open model); leave -c out",
                rate_driven.join(", ")
            ),
        }
        .into());
    }
    if args.scale < MIN_SCALE {
        return Err(PlanError::Flag {
            flag: "--scale",
            message: format!(
                "{} users is below the minimum {MIN_SCALE}: the expected answers need the first 10,000 users and their 100,000 posts",
                args.scale
            ),
        }
        .into());
    }
    if let Some(c) = &args.connection_sweep {
        if c.is_empty() || c.contains(&0) {
            return Err(PlanError::Flag {
                flag: "--connection-sweep",
                message: "give connection counts above zero, e.g. 50,100,250,500".into(),
            }
            .into());
        }
        // A level twice would measure it twice as two steps of one curve.
        if let Some(d) = c.iter().find(|x| c.iter().filter(|y| y == x).count() > 1) {
            return Err(PlanError::Flag {
                flag: "--connection-sweep",
                message: format!(
                    "{d} is given twice; give each connection count once, e.g. 50,100,250,500"
                ),
            }
            .into());
        }
    }
    let database = database(&scenarios, args)?;
    let budget = budget(cat, args, base.max_time, &scenarios)?;
    let out_dir = match &args.out {
        Some(d) => d.clone(),
        None => cat.root.join("results").join(format!(
            "{}-{}",
            chrono::Local::now().format("%Y%m%d-%H%M%S"),
            args.suite
        )),
    };
    // Absolute, because targets run in their own folders and get paths inside the run
    // folder (a gateway's supergraph, a log): a relative --out would name nothing there.
    let out_dir = std::path::absolute(&out_dir).map_err(|e| PlanError::Flag {
        flag: "--out",
        message: format!("{}: {e}", out_dir.display()),
    })?;
    let isolation = resolve_isolation(&args.isolation, fronts_gateways(&scenarios))?;
    Ok(RunPlan {
        suite: args.suite.clone(),
        profile: args.profile.clone(),
        scenarios,
        out_dir,
        isolation,
        json: args.json,
        database,
        budget,
        interference_limit_pct: args.interference_limit.unwrap_or(FOREIGN_LIMIT_PCT),
        steal_limit_pct: args
            .steal_limit
            .unwrap_or(crate::measure::noise::STEAL_LIMIT_PCT),
        target_env: parse_target_env(&args.target_env)?,
        alternation: alternation(args)?,
        scenarios_named: !args.scenarios.is_empty(),
    })
}

/// The run's database, when a scenario needs one: its scale checked against the disk
/// before anything starts.
/// Whether the run fronts gateways: their subgraphs run on the generator's CPUs, which
/// decides the default CPU split (`plan::resolve_isolation`).
fn fronts_gateways(scenarios: &[crate::kind::ScenarioPlan]) -> bool {
    scenarios.iter().any(|s| {
        s.targets
            .iter()
            .any(|t| t.kind == crate::catalog::TargetKind::Gateway)
    })
}

fn database(
    scenarios: &[crate::kind::ScenarioPlan],
    args: &RunOptions,
) -> Result<Option<DatabasePlan>> {
    let database = scenarios
        .iter()
        .any(|s| s.kind.database().is_some())
        .then(|| DatabasePlan {
            scale: args.scale,
            dir: args.db_dir.clone(),
        });
    if let Some(dp) = &database {
        // Refuse a scale the disk cannot hold before anything starts.
        let dir = crate::db::DbOptions {
            dir: dp.dir.clone(),
            ..Default::default()
        }
        .base_dir();
        crate::db::check_scale_and_disk(dp.scale, &dir).map_err(|e| PlanError::Flag {
            flag: "--scale",
            message: format!("{e:#}"),
        })?;
    }
    Ok(database)
}

/// The run's time budget (--max-time, else the profile's): refused when shorter than one
/// round of the shortest scenario that adds rounds, which it could then never add.
fn budget(
    cat: &Catalog,
    args: &RunOptions,
    profile_max: Option<std::time::Duration>,
    scenarios: &[crate::kind::ScenarioPlan],
) -> Result<Option<std::time::Duration>> {
    let budget = args.max_time.or(profile_max);
    // A budget shorter than one round of the shortest scenario that adds rounds could never
    // let one be added: it is refused rather than silently meaning "the minimum only".
    let shortest_round = scenarios
        .iter()
        .filter(|s| s.precision.target.is_some() && s.precision.max_rounds > s.precision.min_rounds)
        .map(|s| s.per_target_trial_secs() * s.targets.len() as f64)
        .min_by(f64::total_cmp);
    if let (Some(b), Some(round)) = (budget, shortest_round) {
        if b.as_secs_f64() < round {
            let message = format!(
                "{} is shorter than one round ({round:.1} s: a trial of every target of the shortest scenario that adds rounds); give at least {}s",
                humantime::format_duration(b),
                round.ceil()
            );
            return Err(match args.max_time {
                Some(_) => PlanError::Flag {
                    flag: "--max-time",
                    message,
                }
                .into(),
                None => CatalogError::File {
                    file: cat.root.join("scenarios/profiles.toml"),
                    message: format!("profile '{}': max_time {message}", args.profile),
                }
                .into(),
            });
        }
    }
    Ok(budget)
}

/// The scenarios `-c` does not change: their load is a rate (open model), the pool of
/// connections only its limit.
pub fn ignoring_connections<K: ?Sized>(scenarios: &[crate::plan::ScenarioPlan<K>]) -> Vec<String> {
    scenarios
        .iter()
        .filter(|s| s.load.is_open())
        .map(|s| s.name.clone())
        .collect()
}

/// How rounds measure their targets: alternating in `--slice` slices unless
/// `--one-at-a-time`.
fn alternation(args: &RunOptions) -> Result<Option<crate::plan::alternation::Alternation>> {
    use crate::plan::alternation::{slice_problem, Alternation, DEFAULT_SLICE};
    if args.one_at_a_time {
        return Ok(None);
    }
    let slice = args.slice.unwrap_or(DEFAULT_SLICE);
    if let Some(message) = slice_problem(slice) {
        return Err(PlanError::Flag {
            flag: "--slice",
            message,
        }
        .into());
    }
    Ok(Some(Alternation::with_slice(slice)))
}

/// Variables gqlbench sets itself on a target: overriding them would break the run
/// (NODE_OPTIONS is not among them: the runner adds its GC probe to the user's).
const RESERVED_ENV: [&str; 3] = ["PORT", "HOST", "GQLBENCH_GC_FILE"];

/// `--target-env NAME=VALUE` flags as a map, checked: a shell-style name, not one of the
/// variables the runner sets, each name once.
pub fn parse_target_env(flags: &[String]) -> Result<BTreeMap<String, String>> {
    parse_env("--target-env", flags)
}

/// `NAME=VALUE` flags of `flag` as a map, checked as `--target-env`'s are.
pub fn parse_env(flag: &'static str, flags: &[String]) -> Result<BTreeMap<String, String>> {
    let mut env = BTreeMap::new();
    for f in flags {
        let bad = |message: String| PlanError::Flag { flag, message };
        let Some((name, value)) = f.split_once('=') else {
            return Err(bad(format!(
                "'{f}' is not NAME=VALUE, e.g. GQLBENCH_WORK=200000"
            ))
            .into());
        };
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(bad(format!(
                "'{name}' is not a variable name (letters, digits and _, not starting with a digit)"
            ))
            .into());
        }
        if RESERVED_ENV.contains(&name) {
            return Err(bad(format!(
                "{name} is set by gqlbench itself for every target; choose another variable"
            ))
            .into());
        }
        if env.insert(name.to_string(), value.to_string()).is_some() {
            return Err(bad(format!("{name} is given twice")).into());
        }
    }
    Ok(env)
}

#[cfg(test)]
mod target_env_tests {
    use super::parse_target_env;

    #[test]
    fn target_env_is_name_value_once_and_never_a_reserved_name() {
        let ok = parse_target_env(&["GQLBENCH_WORK=200".into(), "A_B=x=y".into()]).unwrap();
        assert_eq!(ok["GQLBENCH_WORK"], "200");
        assert_eq!(
            ok["A_B"], "x=y",
            "the value is everything after the first ="
        );
        for (bad, says) in [
            ("GQLBENCH_WORK", "NAME=VALUE"),
            ("1X=2", "not a variable name"),
            ("A-B=2", "not a variable name"),
            ("PORT=80", "set by gqlbench"),
            ("HOST=0.0.0.0", "set by gqlbench"),
        ] {
            let e = parse_target_env(&[bad.into()]).unwrap_err().to_string();
            assert!(e.contains(says) && e.contains("--target-env"), "{bad}: {e}");
        }
        let twice = parse_target_env(&["A=1".into(), "A=2".into()]).unwrap_err();
        assert!(twice.to_string().contains("given twice"));
    }
}
