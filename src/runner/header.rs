//! The line a run prints before each scenario: how many targets, how many rounds or
//! trials, and each target's warm-up and measured time (whole alternation blocks when the
//! targets alternate, so the line says what the table will say was measured).

use crate::kind::{RunPlan, ScenarioPlan};
use crate::results::{TargetStatus, Unavailable};

/// The scenario's opening line; targets not installed (said once at the run's start) are
/// not counted.
pub fn scenario_line(plan: &RunPlan, sp: &ScenarioPlan, install_failed: &[Unavailable]) -> String {
    // Targets skipped for the whole run (not installed) were said once at its start.
    let runnable = sp
        .targets
        .iter()
        .filter(|t| {
            !install_failed
                .iter()
                .any(|u| u.name == t.name && u.status == TargetStatus::NotInstalled)
        })
        .count();
    let p = &sp.precision;
    let rounds = match p.target {
        Some(t) if p.max_rounds > p.min_rounds => format!(
            "{} to {} rounds (until ±{}%)",
            p.min_rounds,
            p.max_rounds,
            crate::units::pct(t * 100.0)
        ),
        _ => format!("{} trials", sp.trials),
    };
    let warm = if sp.warmup_max > sp.warmup {
        format!(
            "{}–{} warm-up until steady",
            humantime::format_duration(sp.warmup),
            humantime::format_duration(sp.warmup_max)
        )
    } else {
        format!("{} warm-up", humantime::format_duration(sp.warmup))
    };
    let targets = if runnable == 1 {
        "1 target".to_string()
    } else {
        format!("{runnable} targets")
    };
    // One target has nothing to alternate with.
    match super::alternating::planned(plan, sp).filter(|_| runnable >= 2) {
        Some(alt) => {
            // Whole blocks: each target's own time, what the table will say it measured.
            let warm_own = alt.whole_blocks(sp.warmup.max(sp.warmup_max));
            let window_own = alt.whole_blocks(sp.duration);
            format!(
                "scenario {}/{}: {targets} alternating in {} slices x {rounds} x ({} warm-up in the first round + {} measured, each){}",
                sp.suite,
                sp.name,
                humantime::format_duration(alt.slice),
                humantime::format_duration(warm_own),
                humantime::format_duration(window_own),
                if window_own > sp.duration {
                    format!(
                        " — {} measured asked, rounded up to whole blocks (a slice of each target and back: {} of each target's own time)",
                        humantime::format_duration(sp.duration),
                        humantime::format_duration(alt.block_own())
                    )
                } else {
                    String::new()
                }
            )
        }
        None => format!(
            "scenario {}/{}: {targets} x {rounds} x ({warm} + {} measured)",
            sp.suite,
            sp.name,
            humantime::format_duration(sp.duration)
        ),
    }
}
