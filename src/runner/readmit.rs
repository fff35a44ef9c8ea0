//! Scenarios the start's estimates left out of the default scope, measured after all once
//! the run's own pace shows they fit (`readmit`), and left out again at their turn when the
//! run has since spent what they needed (`recheck`), so bringing one back never costs the
//! budget; and the record of what stayed out, with the command that runs it (`left_out`).
use crate::kind::RunPlan;
use crate::measure::budget;
use crate::progress::Progress;
use crate::results::{LeftOut, RunResults};

pub type Scenarios<'p> = Vec<&'p crate::kind::ScenarioPlan>;

/// Before scenario `kept[k]`: the scenarios the start's estimates left out that fit after
/// all, at the pace the run has measured, join the end of the run (first in `left`'s order,
/// as long as each fits after the ones still to run). The start's guesses are cautious (a
/// target's start and check, the wall time of a round), so on a machine faster than they
/// assume the default scope is measured whole instead of spending the time on rounds added
/// for precision.
pub fn readmit<'p>(
    plan: &'p RunPlan,
    budget: &budget::Budget,
    kept: &mut Scenarios<'p>,
    k: usize,
    left: &mut Scenarios<'p>,
    results: &mut RunResults,
    progress: &mut Progress,
) {
    let mut added = Vec::new();
    while let Some(next) = left.first().copied() {
        if !budget.fits_after_all(next, &kept[k..]) {
            break;
        }
        left.remove(0);
        kept.push(next);
        progress.extend(next.planned_load_secs());
        added.push(next.name.clone());
    }
    if added.is_empty() {
        return;
    }
    progress.line(&format!(
        "the run's pace so far leaves room for what the start's estimates left out: {} measured after the others",
        added.join(", ")
    ));
    if let Some(lo) = results.left_out.as_mut() {
        lo.added_back.extend(added);
        refresh(plan, budget, left, lo);
    }
}

/// Before scenario `kept[k]`, when it is one `readmit` brought back: whether it still fits
/// at its turn (its minimum with the margin, and the minimums of those after it, at the
/// pace and overrun measured by now). The estimates it was brought back on were made
/// scenarios earlier, and what those took beyond them (a database's start among it) is
/// known only now. If it no longer fits it goes back to the left-out ones, named so, and
/// the caller moves on to the next; true when it was sent back.
pub fn recheck<'p>(
    plan: &'p RunPlan,
    budget: &budget::Budget,
    kept: &mut Scenarios<'p>,
    k: usize,
    left: &mut Scenarios<'p>,
    results: &mut RunResults,
    progress: &mut Progress,
) -> bool {
    let sp = kept[k];
    let Some(lo) = results.left_out.as_mut() else {
        return false;
    };
    if !lo.added_back.contains(&sp.name) || budget.fits_after_all(sp, &kept[k + 1..]) {
        return false;
    }
    kept.remove(k);
    left.insert(0, sp);
    progress.skip(sp.planned_load_secs());
    progress.line(&format!(
        "{}: brought back earlier, it no longer fits what is left of the budget: left out after all",
        sp.name
    ));
    lo.added_back.retain(|n| n != &sp.name);
    refresh(plan, budget, left, lo);
    true
}

/// The left-out record after `left` changed: its scenarios, their minimum and command
/// made again, what was brought back kept.
fn refresh(plan: &RunPlan, budget: &budget::Budget, left: &Scenarios<'_>, lo: &mut LeftOut) {
    let added_back = std::mem::take(&mut lo.added_back);
    *lo = LeftOut {
        added_back,
        ..left_out(plan, left, budget.minimum_of(left), lo.kept_minimum_s)
    };
}

/// What the run left out of the default scope, and the command that runs it.
pub fn left_out<K: ?Sized>(
    plan: &crate::plan::RunPlan<K>,
    left: &[&crate::plan::ScenarioPlan<K>],
    minimum_s: f64,
    kept_minimum_s: f64,
) -> LeftOut {
    let names: Vec<String> = left.iter().map(|s| s.name.clone()).collect();
    let profile = if plan.profile == crate::plan::DEFAULT_PROFILE {
        String::new()
    } else {
        format!(" --profile {}", plan.profile)
    };
    LeftOut {
        command: format!(
            "gqlbench run {} --scenarios {}{profile}",
            plan.suite,
            names.join(",")
        ),
        scenarios: names,
        minimum_s,
        kept_minimum_s,
        added_back: Vec::new(),
    }
}
