//! `calibrate --sensitivity --ab`: each repetition runs one `gqlbench ab` per comparison
//! (A/A: both sides with the reference's work; +N%: side B with the work that costs N% more
//! per request), in an order rotated from repetition to repetition. A comparison is flagged
//! when ab's gate trips (its exit 1 for a slowdown): for A/A a false alarm, for a slowdown
//! a detection. The time each decision took is kept.
use std::path::Path;

use anyhow::Result;

use super::child::Child;
use super::{Case, RepResult};
use crate::cli::CalibrateArgs;
use crate::kinds::ab::AB;

/// Runs the repetitions into `cases`; true when interrupted.
pub fn reps(
    a: &CalibrateArgs,
    child: &Child<'_>,
    out: &Path,
    cases: &mut [Case],
    note: &mut dyn FnMut(&Path, i32),
) -> Result<bool> {
    for rep in 1..=a.repetitions {
        let dir = out.join(format!("rep-{rep:02}"));
        std::fs::create_dir_all(&dir)?;
        let mut order: Vec<usize> = (0..cases.len()).collect();
        order.rotate_left((rep as usize - 1) % cases.len());
        for i in order {
            if child.cancel.load(std::sync::atomic::Ordering::Relaxed) {
                return Ok(true);
            }
            let case = &mut cases[i];
            let name = if i == 0 {
                "AA".to_string()
            } else {
                format!("AB{}", case.slowdown_pct)
            };
            eprintln!("sensitivity: repetition {rep}/{}: ab {name}", a.repetitions);
            let run_dir = dir.join(&name);
            let ran = child.ab(a.work, case.work, a.fail_if_slower, &a.profile, &run_dir)?;
            // Exit 1 is the gate doing its job here, not a failed run.
            let failed = ran.code != 0 && !(ran.code == 1 && tripped(ran.results.as_ref()));
            if failed {
                note(&run_dir, ran.code);
            }
            if ran.interrupted() {
                return Ok(true);
            }
            let rec = ran
                .results
                .as_ref()
                .and_then(|r| r.scenarios.first())
                .and_then(|s| s.by_kind.get(&AB));
            let decision = rec.as_ref().and_then(|r| r.decision);
            let compared = decision.is_some() && rec.as_ref().is_some_and(|r| r.failure.is_none());
            let flagged = compared && decision.as_ref().is_some_and(|d| d.trips);
            case.compared += u32::from(compared);
            case.flagged += u32::from(flagged);
            case.reps.push(RepResult {
                repetition: rep,
                change_pct: decision.as_ref().map(|d| d.pct),
                ci_low_pct: decision.as_ref().map(|d| d.low_pct),
                ci_high_pct: decision.as_ref().map(|d| d.high_pct),
                verdict: decision
                    .as_ref()
                    .map_or_else(|| "no decision".into(), |d| d.verdict.to_string()),
                flagged,
                machine_speed_change_pct: None,
                seconds: rec.as_ref().map(|r| r.elapsed_s),
                pairs: rec.as_ref().map(|r| r.pairs.len()),
            });
            eprintln!(
                "sensitivity: repetition {rep}: {}: {} {} in {} ({})",
                case.name,
                decision.as_ref().map_or("-".into(), |d| {
                    crate::units::fmt_change(d.pct, d.low_pct, d.high_pct)
                }),
                decision
                    .as_ref()
                    .map_or(String::new(), |d| d.verdict.to_string()),
                rec.as_ref()
                    .map_or("-".into(), |r| format!("{:.0} s", r.elapsed_s)),
                if flagged { "FLAGGED" } else { "passed" }
            );
        }
    }
    Ok(false)
}

/// Whether an ab run's exit 1 was its gate (a decision that trips).
fn tripped(r: Option<&crate::results::RunResults>) -> bool {
    r.and_then(|r| r.scenarios.first())
        .and_then(|s| s.by_kind.get(&AB))
        .is_some_and(|rec| rec.failure.is_none() && rec.decision.is_some_and(|d| d.trips))
}
