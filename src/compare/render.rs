//! The text of a comparison: one table row per scenario × target with its verdict and
//! reason, then the gate's outcome with every reason it tripped (or, without a gate, the
//! problems of the runs as notes).
use comfy_table::presets::UTF8_FULL_CONDENSED;

use super::{Comparison, Verdict};
use crate::stats::{Change, MIN_TRIALS};

pub fn render(c: &Comparison) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(UTF8_FULL_CONDENSED).set_header([
        "scenario",
        "target",
        "req/s baseline → candidate",
        "change [95% CI]",
        "p99 ms baseline → candidate",
        "p99 change",
        "verdict",
    ]);
    let fmt_change = |c: &Option<Change>| match c {
        Some(c) => format!(
            "{:+.1}% [{:+.1}, {:+.1}]",
            c.pct, c.ci_low_pct, c.ci_high_pct
        ),
        None => "-".into(),
    };
    let num = |x: Option<f64>, f: fn(f64) -> String| x.map(f).unwrap_or_else(|| "-".into());
    for r in &c.rows {
        t.add_row([
            r.scenario.clone(),
            r.target.clone(),
            format!(
                "{} → {}",
                num(r.baseline_rps, crate::units::fmt_rps),
                num(r.candidate_rps, crate::units::fmt_rps)
            ),
            fmt_change(&r.rps_change),
            format!(
                "{} → {}",
                num(r.baseline_p99_us, crate::units::fmt_ms),
                num(r.candidate_p99_us, crate::units::fmt_ms)
            ),
            fmt_change(&r.p99_change),
            if r.regression {
                format!("REGRESSION: {}", r.reason)
            } else {
                r.reason.clone()
            },
        ]);
    }
    let status = |s| match s {
        crate::results::RunStatus::Complete => String::new(),
        s => format!(" (status: {})", super::status_name(s)),
    };
    let mut out = format!(
        "baseline: {}{}\ncandidate: {}{}\n{t}\n",
        c.baseline,
        status(c.baseline_status),
        c.candidate,
        status(c.candidate_status)
    );
    let few = c
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::TooFewTrials)
        .count();
    match (c.fail_if_slower_pct, c.gate_passed) {
        (Some(p), Some(false)) => {
            out.push_str(&format!(
                "gate --fail-if-slower {p}%: FAILED, {} reason(s):\n",
                c.gate_failures.len()
            ));
            for f in &c.gate_failures {
                match (&f.scenario, &f.target) {
                    (Some(s), Some(t)) => out.push_str(&format!("  - {s} × {t}: {}\n", f.reason)),
                    _ => out.push_str(&format!("  - {}\n", f.reason)),
                }
            }
        }
        (Some(p), _) => {
            out.push_str(&format!(
                "gate --fail-if-slower {p}%: passed ({} row(s) compared)\n",
                c.compared
            ));
        }
        (None, _) => {
            for p in &c.problems {
                out.push_str(&format!("note: {}\n", p.reason));
            }
        }
    }
    // A passing gate must not read as "no slowdown" when some rows could not show one.
    if few > 0 {
        out.push_str(&format!(
            "note: {few} row(s) have too few trials to call any change significant (need {MIN_TRIALS} a side); use --trials {MIN_TRIALS} or more\n"
        ));
    }
    out
}
