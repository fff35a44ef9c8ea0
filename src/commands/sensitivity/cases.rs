//! The comparisons a calibration makes (A/A and one per slowdown) and how each
//! repetition's runs are judged against its baseline, through `compare`'s own code.
use anyhow::Result;

use super::{work_for, Case, RepResult};
use crate::cli::CalibrateArgs;
use crate::error::PlanError;
use crate::results::RunResults;

/// The comparisons calibrated: A/A, then one per slowdown with the work that costs it,
/// from the probes' req/s without and with the reference work.
pub(super) fn cases(a: &CalibrateArgs, rps0: f64, rps_w: f64) -> Result<Vec<Case>> {
    let mut cases = vec![Case {
        name: "A/A".into(),
        slowdown_pct: 0.0,
        work: a.work,
        flagged: 0,
        compared: 0,
        median_change_pct: None,
        median_seconds: None,
        reps: Vec::new(),
    }];
    for s in &a.slowdowns {
        let Some(w) = work_for(a.work, rps0, rps_w, *s) else {
            return Err(PlanError::Flag {
                flag: "--work",
                message: format!(
                    "{} rounds did not measurably slow the reference ({rps0:.0} req/s without, {rps_w:.0} with); raise it",
                    a.work
                ),
            }
            .into());
        };
        cases.push(Case {
            name: format!("+{s}% cost"),
            slowdown_pct: *s,
            work: w,
            flagged: 0,
            compared: 0,
            median_change_pct: None,
            median_seconds: None,
            reps: Vec::new(),
        });
    }
    Ok(cases)
}

/// Repetition `rep`'s runs compared with its baseline A through `compare`'s own code, gate
/// included: each case's tally and its line on stderr.
pub(super) fn judge_rep(
    a: &CalibrateArgs,
    cases: &mut [Case],
    rep: u32,
    base: &RunResults,
    results: &[(usize, RunResults)],
) {
    for (i, r) in results.iter().filter(|(i, _)| *i != usize::MAX) {
        let cmp = crate::compare::compare(base, r, "A", "B", Some(a.fail_if_slower));
        let row = cmp.rows.first();
        let ch = row.and_then(|x| x.rps_change.as_ref());
        let compared = row.is_some_and(|x| x.verdict.compared());
        let flagged = cmp.gate_passed == Some(false);
        let case = &mut cases[*i];
        case.compared += u32::from(compared);
        case.flagged += u32::from(flagged && compared);
        case.reps.push(RepResult {
            repetition: rep,
            change_pct: ch.map(|c| c.pct),
            ci_low_pct: ch.map(|c| c.ci_low_pct),
            ci_high_pct: ch.map(|c| c.ci_high_pct),
            verdict: row.map(|x| x.reason.clone()).unwrap_or_default(),
            flagged,
            machine_speed_change_pct: row.and_then(|x| x.machine_speed_change_pct),
            seconds: None,
            pairs: None,
        });
        eprintln!(
            "sensitivity: repetition {rep}: {}: {} ({})",
            case.name,
            ch.map_or("-".into(), |c| format!(
                "{:+.1}% [{:+.1}, {:+.1}]",
                c.pct, c.ci_low_pct, c.ci_high_pct
            )),
            if flagged { "FLAGGED" } else { "passed" }
        );
    }
}

impl Case {
    /// The median change and the median time to decide over its repetitions.
    pub(super) fn medians(&mut self) {
        let mut v: Vec<f64> = self.reps.iter().filter_map(|r| r.change_pct).collect();
        v.sort_by(f64::total_cmp);
        self.median_change_pct = (!v.is_empty()).then(|| v[v.len() / 2]);
        let mut t: Vec<f64> = self.reps.iter().filter_map(|r| r.seconds).collect();
        t.sort_by(f64::total_cmp);
        self.median_seconds = (!t.is_empty()).then(|| t[t.len() / 2]);
    }
}
