//! Planning an A/B run: each side's catalogue (its own root, or the project's), the one
//! scenario resolved from each as a run would resolve it, and the checks that make the two
//! sides comparable (same operations, same expected answers, same load) before anything
//! starts. Anything that cannot work is bad input, naming the flag.
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::catalog::Catalog;
use crate::error::{CatalogError, PlanError};
use crate::kind::{Kind, KindDef, RunPlan, ScenarioPlan};
use crate::plan::ab::{defaults, pair_secs, planned_pairs, AbOptions, AbPlan, Arm, SideOptions};
use crate::plan::RunOptions;

/// The most a side may be allowed to lose: beyond half its throughput, "within the
/// allowance" says nothing.
const MAX_ALLOWANCE: f64 = 0.5;
/// Most looks the sequential rule plans for (its boundaries are worked out per look).
const MAX_LOOKS: u32 = 200;

/// A refusal of `flag`, saying why and what to give instead.
fn flag(flag: &'static str, message: String) -> PlanError {
    PlanError::Flag { flag, message }
}

pub fn resolve_ab(root: &Path, o: &AbOptions, registry: &[&KindDef]) -> Result<AbPlan<dyn Kind>> {
    check_shape(o)?;
    let (suite, name) = o.scenario.split_once('/').ok_or_else(|| {
        flag(
            "SCENARIO",
            format!(
                "'{}' is not suite/name, e.g. {}",
                o.scenario,
                defaults::SCENARIO
            ),
        )
    })?;
    let a_root = side_root(root, &o.a, "--a-root")?;
    let b_root = match &o.b.root {
        Some(_) => side_root(root, &o.b, "--b-root")?,
        None => a_root.clone(),
    };
    let a_target = side_target(o, &o.a, "--a-target")?;
    let b_target = side_target(o, &o.b, "--b-target")?;
    let side = |root: &Path, target: &str, target_flag: &'static str| -> Result<RunPlan> {
        let cat = Catalog::load(root)?;
        let def = cat.scenario(suite, name)?;
        if let Some(section) = def.file.sections.keys().next() {
            return Err(flag(
                "SCENARIO",
                format!(
                    "{suite}/{name} is a [{section}] scenario; ab compares plain-load scenarios of the closed model (a constant number of connections), e.g. {}",
                    defaults::SCENARIO
                ),
            )
            .into());
        }
        let opts = RunOptions {
            suite: suite.into(),
            scenarios: vec![name.into()],
            targets: vec![target.into()],
            profile: o.profile.clone(),
            trials: Some(1),
            duration: Some(o.pair_time),
            warmup: Some(o.warmup),
            connections: o.connections,
            target_env: o.target_env.clone(),
            out: o.out.clone(),
            json: o.json,
            isolation: o.isolation.clone(),
            ..RunOptions::default()
        };
        super::resolve_run(&cat, &opts, registry).map_err(|e| {
            // ab has no --targets: a side's target is its own flag's.
            match e.downcast::<PlanError>() {
                Ok(PlanError::Flag {
                    flag: "--targets",
                    message,
                }) => PlanError::Flag {
                    flag: target_flag,
                    message: message.replace("any of the chosen targets", "the side's target"),
                }
                .into(),
                Ok(other) => other.into(),
                Err(e) => e,
            }
        })
    };
    let mut run = side(&a_root, &a_target, "--a-target")?;
    let b_run = side(&b_root, &b_target, "--b-target")?;
    let (Some(sa), Some(sb)) = (run.scenarios.first(), b_run.scenarios.first()) else {
        return Err(flag("SCENARIO", format!("{} runs no target", o.scenario)).into());
    };
    if sa.load.is_open() {
        return Err(flag(
            "SCENARIO",
            format!(
                "{suite}/{name} is an open-model scenario; ab decides on throughput, so it needs a closed model (connections); its latency phase compares p50/p99 at a fixed rate by itself"
            ),
        )
        .into());
    }
    same_scenario(sa, sb)?;
    let b_def = sb.targets[0].clone();
    run.scenarios[0].targets.push(b_def);
    let (a_label, b_label) = labels(o)?;
    if o.out.is_none() {
        run.out_dir = root.join("results").join(format!(
            "{}-ab-{}",
            chrono::Local::now().format("%Y%m%d-%H%M%S"),
            name
        ));
    }
    let arms = [
        Arm {
            label: a_label,
            target: a_target,
            root: a_root,
            env: super::parse_env("--a-env", &o.a.env)?,
        },
        Arm {
            label: b_label,
            target: b_target,
            root: b_root,
            env: super::parse_env("--b-env", &o.b.env)?,
        },
    ];
    let (min_pairs, max_pairs) = pairs(o)?;
    Ok(AbPlan {
        run,
        arms,
        allowance: o.allowance,
        budget: o.budget,
        pair_time: o.pair_time,
        warmup: o.warmup,
        slice: o.slice,
        guard: o.guard,
        form: o.form,
        min_pairs,
        max_pairs,
        alpha: defaults::ALPHA,
        latency_time: o.latency_time,
    })
}

/// The allowance, the slice and its guard, and the pair time each hold what ab needs.
fn check_shape(o: &AbOptions) -> Result<()> {
    if !(o.allowance > 0.0 && o.allowance <= MAX_ALLOWANCE) {
        return Err(flag(
            "--allowance",
            format!(
                "{}% is outside (0, 50%]: give the change you accept as equivalent, e.g. 2%",
                o.allowance * 100.0
            ),
        )
        .into());
    }
    if let Some(message) = crate::plan::alternation::slice_problem(o.slice) {
        return Err(flag("--slice", message).into());
    }
    if let Some(g) = o.guard {
        if g >= o.slice {
            return Err(flag(
                "--guard",
                "the guard must be shorter than the slice (it is the part of each slice not counted)"
                    .into(),
            )
            .into());
        }
    }
    if o.pair_time.as_secs_f64() < 4.0 * 4.0 * o.slice.as_secs_f64() {
        return Err(flag(
            "--pair-time",
            format!(
                "{} holds fewer than 4 blocks of 4 slices of {}; give a longer pair time or a shorter slice",
                humantime::format_duration(o.pair_time),
                humantime::format_duration(o.slice)
            ),
        )
        .into());
    }
    Ok(())
}

/// The sides' labels (a and b unless named): distinct, and fit to name log files.
fn labels(o: &AbOptions) -> Result<(String, String)> {
    let a_label = o.a.label.clone().unwrap_or_else(|| "a".into());
    let b_label = o.b.label.clone().unwrap_or_else(|| "b".into());
    if a_label == b_label {
        return Err(flag("--b-label", format!("both sides are named '{a_label}'")).into());
    }
    for (label, f) in [(&a_label, "--a-label"), (&b_label, "--b-label")] {
        // Labels name the sides' log files too.
        let ok = !label.is_empty()
            && label.len() <= 40
            && label
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !ok {
            return Err(flag(
                f,
                format!("'{label}' is not a name of 1 to 40 letters, digits, '.', '_' or '-' (e.g. main, pr-123)"),
            )
            .into());
        }
    }
    Ok((a_label, b_label))
}

/// The fewest and the most pairs the run plans: the most from --max-pairs or the budget,
/// within what the sequential rule is worked out for and what the budget can hold.
fn pairs(o: &AbOptions) -> Result<(u32, u32)> {
    let pair_secs = pair_secs(o.warmup, o.pair_time, o.latency_time);
    let min_pairs = defaults::MIN_PAIRS;
    let max_pairs = o
        .max_pairs
        .unwrap_or_else(|| planned_pairs(o.budget, pair_secs, min_pairs, defaults::MAX_PAIRS));
    if max_pairs > MAX_LOOKS {
        return Err(flag(
            "--max-pairs",
            format!("{max_pairs} is above {MAX_LOOKS}: give fewer pairs and a longer --pair-time"),
        )
        .into());
    }
    if max_pairs < min_pairs {
        return Err(flag(
            "--max-pairs",
            format!("{max_pairs} is below {min_pairs}, the fewest pairs an interval needs"),
        )
        .into());
    }
    if o.budget.as_secs_f64() < pair_secs * min_pairs as f64 {
        return Err(flag(
            "--budget",
            format!(
                "{} cannot hold {min_pairs} pairs of about {pair_secs:.0} s each (starts, warm-up, load); give at least {}s",
                humantime::format_duration(o.budget),
                (pair_secs * min_pairs as f64).ceil()
            ),
        )
        .into());
    }
    Ok((min_pairs, max_pairs))
}

/// A side's root: its own folder (which must hold a catalogue), or the project's.
fn side_root(root: &Path, s: &SideOptions, flag: &'static str) -> Result<PathBuf> {
    let Some(r) = &s.root else {
        return Ok(root.to_path_buf());
    };
    if !r.join("targets").is_dir() || !r.join("scenarios").is_dir() {
        return Err(PlanError::Flag {
            flag,
            message: format!(
                "{} holds no targets/ and scenarios/: give the root of a checkout (the folder with targets/ and scenarios/)",
                r.display()
            ),
        }
        .into());
    }
    std::path::absolute(r).map_err(|e| {
        PlanError::Flag {
            flag,
            message: format!("{}: {e}", r.display()),
        }
        .into()
    })
}

/// A side's target: its own (`--a-target`), or the one of both (`--target`).
fn side_target(o: &AbOptions, s: &SideOptions, flag: &'static str) -> Result<String> {
    s.target.clone().or_else(|| o.target.clone()).ok_or_else(|| {
        PlanError::Flag {
            flag,
            message: "no target: name the target of both sides with --target, or each side's with --a-target and --b-target".into(),
        }
        .into()
    })
}

/// Two sides are comparable only when they send the same requests, expect the same
/// answers and apply the same load.
/// An operation as sent and checked: its name, weight, and each variant's body and
/// expected data.
type SentOperation = (String, u32, Vec<(Vec<u8>, Option<serde_json::Value>)>);

fn same_scenario(a: &ScenarioPlan, b: &ScenarioPlan) -> Result<()> {
    let refuse = |what: &str| -> anyhow::Error {
        CatalogError::File {
            file: PathBuf::from(format!("scenarios/{}/{}.toml", b.suite, b.name)),
            message: format!(
                "side B's {what} differ from side A's: an A/B compares one scenario on two builds (check both checkouts' scenarios/ folders)"
            ),
        }
        .into()
    };
    let ops = |s: &ScenarioPlan| -> Vec<SentOperation> {
        s.operations
            .iter()
            .map(|(o, w)| {
                let e = o.to_engine(*w);
                let v = e
                    .variants
                    .iter()
                    .map(|v| (v.body.to_vec(), v.expected_data.clone()))
                    .collect();
                (e.name, e.weight, v)
            })
            .collect()
    };
    let (oa, ob) = (ops(a), ops(b));
    let bodies = |o: &[SentOperation]| -> Vec<(String, Vec<Vec<u8>>)> {
        o.iter()
            .map(|(n, _, v)| (n.clone(), v.iter().map(|x| x.0.clone()).collect()))
            .collect()
    };
    if bodies(&oa) != bodies(&ob) {
        return Err(refuse("operations"));
    }
    if oa != ob {
        return Err(refuse("expected answers or operation weights"));
    }
    if a.load != b.load || a.warmup != b.warmup || a.duration != b.duration {
        return Err(refuse("load settings"));
    }
    Ok(())
}
