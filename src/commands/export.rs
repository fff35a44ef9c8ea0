//! `gqlbench export k6`: the scenario resolved as `run` would resolve it, written as a k6
//! script, a k6-operator TestRun manifest with the volume its pods write to, a README and
//! the metadata import reads back.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::catalog::Catalog;
use crate::cli::ExportK6Args;
use crate::error::PlanError;
use crate::export::{collect, k6, plan, readme, testrun, ExportPlan, METADATA_FILE};

/// The files an export writes: only these are replaced by --force.
const FILES: [&str; 5] = [
    "script.js",
    "testrun.yaml",
    "results.yaml",
    "README.md",
    METADATA_FILE,
];

pub fn k6(root: &Path, a: &ExportK6Args) -> Result<ExitCode> {
    let (suite, name) = a
        .scenario
        .split_once('/')
        .filter(|(s, n)| !s.is_empty() && !n.is_empty() && !n.contains('/'))
        .ok_or_else(|| PlanError::Flag {
            flag: "SUITE/SCENARIO",
            message: format!(
                "'{}' is not SUITE/SCENARIO; write e.g. servers/simple (`gqlbench list` shows the scenarios)",
                a.scenario
            ),
        })?;
    plan::check_url(&a.url)?;
    if a.parallelism == 0 {
        return Err(PlanError::Flag {
            flag: "--parallelism",
            message: "must be at least 1 (pods of the TestRun)".into(),
        }
        .into());
    }
    let cat = Catalog::load(root)?;
    // The same profiles, overrides and checks as a run of the scenario.
    let options = crate::plan::RunOptions {
        suite: suite.into(),
        scenarios: vec![name.into()],
        profile: a.profile.clone(),
        duration: a.duration,
        warmup: a.warmup,
        connections: a.connections,
        ..Default::default()
    };
    let run_plan = crate::planner::resolve_run(&cat, &options, crate::kinds::REGISTRY)?;
    let sp = run_plan
        .scenarios
        .first()
        .context("the scenario resolved to nothing")?;
    let mut p = ExportPlan::new(
        &cat,
        sp,
        &a.url,
        a.parallelism,
        a.connections,
        crate::kinds::REGISTRY,
    )?;
    p.profile = a.profile.clone();
    check_parallelism(&p)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("k6-{suite}-{name}")));
    prepare(&out, a.force)?;
    let write = |file: &str, text: String| -> Result<()> {
        let path = out.join(file);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
    };
    let script = k6::script(&p);
    let script_bytes = script.len();
    write("script.js", script)?;
    write("testrun.yaml", testrun::manifest(&p, script_bytes))?;
    write("results.yaml", collect::manifest(&testrun::k8s_name(&p)))?;
    write("README.md", readme::readme(&p))?;
    write(
        METADATA_FILE,
        serde_json::to_string_pretty(&p.metadata())? + "\n",
    )?;
    eprintln!(
        "wrote {}/{{{}}}: {suite}/{name}, {} model, {} s warm-up + {} s measured, {} pod(s)",
        out.display(),
        FILES.join(","),
        p.model(),
        p.warmup.as_secs_f64(),
        p.duration.as_secs_f64(),
        p.parallelism
    );
    for c in &p.caveats {
        eprintln!("note: {c}");
    }
    eprintln!(
        "run it: k6 run --out json={0}/points.json --summary-export={0}/summary.json {0}/script.js",
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Every pod of the TestRun needs at least one VU: fewer VUs than pods would leave pods
/// with nothing to do and the load split unevenly.
fn check_parallelism(p: &ExportPlan) -> Result<(), PlanError> {
    let vus = p.max_vus();
    if p.parallelism > vus {
        return Err(PlanError::Flag {
            flag: "--parallelism",
            message: format!(
                "{} pods for a load of at most {vus} VUs: give at most {vus} (or more connections with -c)",
                p.parallelism
            ),
        });
    }
    Ok(())
}

/// A missing or empty folder, or one holding an earlier export with --force.
fn prepare(out: &Path, force: bool) -> Result<()> {
    let names: Vec<String> = match std::fs::read_dir(out) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            return Err(PlanError::Flag {
                flag: "--out",
                message: format!("{} cannot be read as a folder: {e}", out.display()),
            }
            .into())
        }
    };
    let earlier = names.iter().any(|n| n == METADATA_FILE);
    let replaceable = names.is_empty() || (earlier && force);
    if !replaceable {
        return Err(PlanError::Flag {
            flag: "--out",
            message: if earlier {
                format!(
                    "{} holds an earlier export; pass --force to replace it (only {} are rewritten)",
                    out.display(),
                    FILES.join(", ")
                )
            } else {
                format!(
                    "{} already holds files and no export; give a new or empty folder",
                    out.display()
                )
            },
        }
        .into());
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))
}
