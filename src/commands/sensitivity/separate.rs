//! `calibrate --sensitivity` in separate runs, as a CI job would make them (a fresh
//! gqlbench and target each): per repetition the baseline A, A' for A/A and one B per
//! slowdown, in an order rotated from repetition to repetition, each later run judged
//! against that repetition's A.
use std::path::Path;
use std::sync::atomic::Ordering;

use anyhow::Result;

use super::cases::judge_rep;
use super::child::Child;
use super::Case;
use crate::cli::CalibrateArgs;
use crate::results::RunResults;

/// Runs the repetitions into `cases`; true when interrupted.
pub fn reps(
    a: &CalibrateArgs,
    child: &Child<'_>,
    out: &Path,
    cases: &mut [Case],
    note: &mut dyn FnMut(&Path, i32),
) -> Result<bool> {
    let profile = ["--profile", a.profile.as_str()];
    for rep in 1..=a.repetitions {
        let dir = out.join(format!("rep-{rep:02}"));
        std::fs::create_dir_all(&dir)?;
        // Runs: the baseline A, then one per case (A' for A/A); order rotated per rep.
        let mut names: Vec<(usize, String, u64)> = vec![(usize::MAX, "A".into(), a.work)];
        for (i, c) in cases.iter().enumerate() {
            let name = if i == 0 {
                "A2".into()
            } else {
                format!("B{}", c.slowdown_pct)
            };
            names.push((i, name, c.work));
        }
        let k = (rep as usize - 1) % names.len();
        names.rotate_left(k);
        let mut results: Vec<(usize, RunResults)> = Vec::new();
        for (i, name, work) in &names {
            if child.cancel.load(Ordering::Relaxed) {
                return Ok(true);
            }
            eprintln!(
                "sensitivity: repetition {rep}/{}: run {name}",
                a.repetitions
            );
            let run_dir = dir.join(name);
            let ran = child.run(&profile, *work, &run_dir)?;
            note(&run_dir, ran.code);
            if ran.interrupted() {
                return Ok(true);
            }
            if let Some(r) = ran.results {
                results.push((*i, r));
            }
        }
        let Some(base) = results.iter().find(|(i, _)| *i == usize::MAX).map(|x| &x.1) else {
            continue;
        };
        judge_rep(a, cases, rep, base, &results);
    }
    Ok(false)
}
