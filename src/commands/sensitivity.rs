//! `gqlbench calibrate --sensitivity`: what `compare --fail-if-slower` detects on this
//! machine. The reference is node-baseline with a fixed CPU work per request
//! (`GQLBENCH_WORK`). Two short probe runs (no work, the chosen work) give the cost of one
//! work round, from which the work that costs +5% (+10%, ...) per request is set. Then each
//! repetition makes separate runs, as a CI job would (a fresh gqlbench and target each):
//! two of the reference (A, A') and one per slowdown (B), in an order that rotates from
//! repetition to repetition. A' and each B are compared with A by the same code as
//! `compare`, gate included: A/A flags are false alarms, A/B flags are detections. Every run
//! is kept under the output folder; the summary is `sensitivity.json` and `sensitivity.md`.
//!
//! Ctrl-C stops everything at once and exits 130: a Ctrl-C at the terminal reaches the run
//! too (same process group), and a SIGINT or SIGTERM to this process alone is passed on to
//! the run; either way no further run starts (probes included).
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::catalog::Catalog;
use crate::cli::CalibrateArgs;
use crate::error::{CatalogError, PlanError};
use crate::results::RunResults;

mod ab_mode;
mod cases;
mod child;
mod flags;
mod markdown;
mod separate;
use cases::cases;
use child::{reference, Child, REFERENCE};
use flags::run_flags;
pub use markdown::markdown;

/// A slowdown flagged in at least this share of repetitions counts as detected.
const DETECTED: f64 = 0.8;

#[derive(Serialize, Debug, Clone)]
pub struct RepResult {
    pub repetition: u32,
    /// The candidate's change of req/s against A (speed-adjusted when both had canaries).
    pub change_pct: Option<f64>,
    pub ci_low_pct: Option<f64>,
    pub ci_high_pct: Option<f64>,
    pub verdict: String,
    pub flagged: bool,
    pub machine_speed_change_pct: Option<f64>,
    /// `--ab`: seconds to the decision, and the process pairs it took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pairs: Option<usize>,
}

#[derive(Serialize, Debug, Clone)]
pub struct Case {
    /// "A/A" or "+5% cost": the work raised so each request costs 5% more CPU time (req/s
    /// then drops by 1 − 1/1.05 = 4.8%).
    pub name: String,
    /// The added cost per request the work was set for, % (0 for A/A).
    pub slowdown_pct: f64,
    pub work: u64,
    /// Repetitions whose comparison trips the gate / that were compared at all.
    pub flagged: u32,
    pub compared: u32,
    pub median_change_pct: Option<f64>,
    /// `--ab`: the median seconds to a decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_seconds: Option<f64>,
    pub reps: Vec<RepResult>,
}

#[derive(Serialize, Debug)]
pub struct Sensitivity {
    /// "separate runs" (compare's gate) or "ab" (one `gqlbench ab` per comparison).
    pub mode: String,
    /// The reference target and the variable that sets its work.
    pub target: String,
    pub work_var: String,
    pub profile: String,
    pub fail_if_slower_pct: f64,
    pub repetitions: u32,
    pub work: u64,
    /// Probe runs: median req/s without work and with `work`.
    pub probe_rps_no_work: f64,
    pub probe_rps_work: f64,
    /// The reference's cost per request, µs, and the share of it that is the work.
    pub reference_us: f64,
    pub work_share: f64,
    pub cases: Vec<Case>,
    /// A/A flags over A/A comparisons.
    pub false_alarm_rate: Option<f64>,
    /// The smallest slowdown flagged in at least 80% of its repetitions.
    pub smallest_detected_pct: Option<f64>,
    /// Runs that did not end with exit 0 (folder, exit code).
    pub failed_runs: Vec<(String, i32)>,
    pub interrupted: bool,
    pub command: Vec<String>,
}

fn check(a: &CalibrateArgs, cat: &Catalog) -> Result<()> {
    let bad = |flag, message: String| PlanError::Flag { flag, message };
    if a.repetitions == 0 || a.repetitions > 1000 {
        return Err(bad("--repetitions", "give 1 to 1000, e.g. 10".into()).into());
    }
    let mut sorted = a.slowdowns.clone();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    if a.slowdowns.is_empty()
        || sorted.len() != a.slowdowns.len()
        || a.slowdowns
            .iter()
            .any(|s| !s.is_finite() || *s <= 0.0 || *s > 100.0)
    {
        return Err(bad(
            "--slowdowns",
            "give distinct percentages above 0 and at most 100, e.g. 5,10".into(),
        )
        .into());
    }
    if !(1_000..=10_000_000_000).contains(&a.work) {
        return Err(bad(
            "--work",
            "give 1000 to 10000000000 work rounds (100000 is about 0.2 ms)".into(),
        )
        .into());
    }
    let profiles = cat.profiles().map_err(|e| CatalogError::File {
        file: cat.root.join("scenarios/profiles.toml"),
        message: format!("{e:#}"),
    })?;
    if !profiles.0.contains_key(&a.profile) {
        return Err(CatalogError::unknown("profile", &a.profile, profiles.0.keys()).into());
    }
    run_flags(a)?;
    if a.ab && !(a.fail_if_slower > 0.0 && a.fail_if_slower <= 50.0) {
        return Err(bad(
            "--fail-if-slower",
            "with --ab it is ab's allowance: give a percentage in (0, 50%], e.g. 2%".into(),
        )
        .into());
    }
    let t = cat.target(&a.target)?;
    if a.target != REFERENCE && !t.is_node() {
        return Err(bad(
            "--target",
            format!(
                "{} is not a Node server: the work is injected by targets/_node/inject-work.mjs, which only Node loads; use {REFERENCE} or a Node server",
                a.target
            ),
        )
        .into());
    }
    Ok(())
}

fn median_rps(r: &RunResults) -> Option<f64> {
    let t = r.scenarios.first()?.targets.first()?;
    t.summary
        .as_ref()
        .filter(|s| s.valid)
        .map(|s| s.rps.center_or_median())
}

/// The work that makes a request cost `slowdown_pct` more than with `work`, from the probe
/// throughputs without work (`rps0`) and with it (`rps_w`): the cost is linear in the work.
pub fn work_for(work: u64, rps0: f64, rps_w: f64, slowdown_pct: f64) -> Option<u64> {
    let (t0, tw) = (1.0 / rps0, 1.0 / rps_w);
    (tw > t0 && rps0.is_finite() && rps_w.is_finite())
        .then(|| (work as f64 * (1.0 + slowdown_pct / 100.0 * tw / (tw - t0))).round() as u64)
}

/// The calibration's folder: `--out`, which must be empty, or a new dated one under
/// results/.
fn out_folder(a: &CalibrateArgs, cat_root: &Catalog) -> Result<std::path::PathBuf> {
    let out = a.out.clone().unwrap_or_else(|| {
        cat_root.root.join("results").join(format!(
            "sensitivity-{}",
            chrono::Local::now().format("%Y%m%d-%H%M%S")
        ))
    });
    if out.exists() && std::fs::read_dir(&out)?.next().is_some() {
        return Err(PlanError::Flag {
            flag: "--out",
            message: format!("{} is not empty; choose a new folder", out.display()),
        }
        .into());
    }
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    Ok(out)
}

pub fn run(root: &Path, root_flag: Option<&Path>, a: &CalibrateArgs) -> Result<ExitCode> {
    let cat_root = &Catalog::load(root)?;
    check(a, cat_root)?;
    let cancel = super::cancel_flag();
    let exe = crate::sys::process::own_exe().context("locating the gqlbench binary")?;
    let out = out_folder(a, cat_root)?;
    let extra: Vec<String> = a
        .run_flags
        .as_deref()
        .unwrap_or("")
        .split_whitespace()
        .map(String::from)
        .collect();
    let reference = reference(a, cat_root);
    let child = Child {
        exe: &exe,
        root: root_flag,
        extra: &extra,
        cancel: &cancel,
        reference: &reference,
    };
    // The probes are runs: `ab`'s flags are not theirs.
    let probe_child = Child {
        exe: &exe,
        root: root_flag,
        extra: if a.ab { &[] } else { &extra },
        cancel: &cancel,
        reference: &reference,
    };
    let mut failed_runs = Vec::new();
    let mut note = |dir: &Path, code: i32| {
        if code != 0 {
            failed_runs.push((dir.display().to_string(), code));
        }
    };
    // Probes: 3 trials each of the quick profile.
    let probe = ["--profile", "quick", "--trials", "3"];
    eprintln!(
        "sensitivity: probing the cost of the work ({} rounds)",
        a.work
    );
    // An interrupted probe ends the calibration: without both there is no work to set.
    let interrupted_probes = || {
        eprintln!(
            "sensitivity: interrupted during the probes; what ran is in {}",
            out.display()
        );
        Ok(ExitCode::from(130))
    };
    let mut probes = Vec::new();
    for (name, work) in [("probe-no-work", 0), ("probe-work", a.work)] {
        if cancel.load(Ordering::Relaxed) {
            return interrupted_probes();
        }
        let ran = probe_child.run(&probe, work, &out.join(name))?;
        note(&out.join(name), ran.code);
        if ran.interrupted() {
            return interrupted_probes();
        }
        probes.push(ran.results);
    }
    let rps = |i: usize| probes[i].as_ref().and_then(median_rps);
    let (Some(rps0), Some(rps_w)) = (rps(0), rps(1)) else {
        anyhow::bail!(
            "a probe run of {} was not valid; see {} and {}",
            a.target,
            out.join("probe-no-work.log").display(),
            out.join("probe-work.log").display()
        );
    };
    let mut cases = cases(a, rps0, rps_w)?;
    for c in &cases {
        eprintln!("sensitivity: {} with {}={}", c.name, reference.var, c.work);
    }
    let interrupted = if a.ab {
        ab_mode::reps(a, &child, &out, &mut cases, &mut note)?
    } else {
        separate::reps(a, &child, &out, &mut cases, &mut note)?
    };
    for c in &mut cases {
        c.medians();
    }
    let aa = &cases[0];
    let s = Sensitivity {
        mode: if a.ab { "ab" } else { "separate runs" }.into(),
        target: a.target.clone(),
        work_var: reference.var.into(),
        profile: a.profile.clone(),
        fail_if_slower_pct: a.fail_if_slower,
        repetitions: a.repetitions,
        work: a.work,
        probe_rps_no_work: rps0,
        probe_rps_work: rps_w,
        reference_us: 1e6 / rps_w,
        work_share: 1.0 - rps_w / rps0,
        false_alarm_rate: (aa.compared > 0).then(|| aa.flagged as f64 / aa.compared as f64),
        smallest_detected_pct: cases[1..]
            .iter()
            .filter(|c| c.compared > 0 && c.flagged as f64 >= DETECTED * c.compared as f64)
            .map(|c| c.slowdown_pct)
            .min_by(f64::total_cmp),
        cases,
        failed_runs,
        interrupted,
        command: std::env::args().collect(),
    };
    write(a, &s, &out)?;
    Ok(ExitCode::from(if s.interrupted {
        130
    } else if s.failed_runs.is_empty() {
        0
    } else {
        1
    }))
}

/// Writes the summary (sensitivity.json and .md) and prints it.
fn write(a: &CalibrateArgs, s: &Sensitivity, out: &Path) -> Result<()> {
    let md = markdown(s);
    let json = serde_json::to_string_pretty(s)?;
    std::fs::write(out.join("sensitivity.json"), &json)?;
    std::fs::write(out.join("sensitivity.md"), &md)?;
    if a.json {
        println!("{json}");
    } else {
        print!("{md}");
        println!("\nruns and summary: {}", out.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::work_for;

    #[test]
    fn the_work_for_a_slowdown_follows_the_linear_cost() {
        // 25 µs without work, 200 µs with 100,000 rounds: 1.75 ns a round. +5% of 200 µs is
        // 10 µs more, 5,714 rounds.
        let w = work_for(100_000, 40_000.0, 5_000.0, 5.0).unwrap();
        assert_eq!(w, 105_714);
        // Work that costs nothing measurable cannot be scaled.
        assert_eq!(work_for(100_000, 5_000.0, 5_000.0, 5.0), None);
        assert_eq!(work_for(100_000, 4_000.0, 5_000.0, 5.0), None);
    }
}
