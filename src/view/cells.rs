//! Cells shared by the report tables of several kinds: a dash for a missing figure, an
//! estimate with its interval, or in milliseconds with its spread, a row's validity, a
//! target not installed.
use crate::results::{Estimate, TargetResult};

pub fn dash() -> String {
    "-".into()
}

/// Seconds shown as "median [min – max]" milliseconds.
pub fn est_ms(e: &Estimate) -> String {
    if e.n == 0 {
        return dash();
    }
    format!(
        "{:.1} [{:.1} – {:.1}]",
        e.median * 1000.0,
        e.min * 1000.0,
        e.max * 1000.0
    )
}

/// An estimate as "c [lo – hi]" (its center and interval), "c (1 trial)", or a dash
/// without trials; `f` writes each figure.
pub fn est(e: &Estimate, f: impl Fn(f64) -> String) -> String {
    match e.n {
        0 => dash(),
        1 => format!("{} (1 trial)", f(e.center_or_median())),
        _ => format!(
            "{} [{} – {}]",
            f(e.center_or_median()),
            f(e.ci_low),
            f(e.ci_high)
        ),
    }
}

/// A target that did not run because its native build is not installed. Reports say so
/// once (`not_installed_lines`) and name it in one line per scenario (`not_run_line`)
/// instead of giving it an empty, failed-looking row in every table: it is not a failure
/// (the verdict lists it as skipped) and its reason is the same in every scenario.
pub fn not_installed(t: &TargetResult) -> bool {
    t.status == crate::results::TargetStatus::NotInstalled
}

/// The validity cell of a row: "valid (n/n trials)" with its caveats, or why not.
pub fn validity(t: &TargetResult) -> String {
    match (&t.summary, t.status) {
        (Some(s), crate::results::TargetStatus::Ok) if s.valid && !s.saturated => {
            if t.kind == crate::catalog::TargetKind::Baseline {
                format!(
                    "valid ({}/{} trials), baseline: not ranked",
                    s.valid_trials, s.trials
                )
            } else if s.caveats.is_empty() {
                format!("valid ({}/{} trials)", s.valid_trials, s.trials)
            } else {
                format!(
                    "valid ({}/{} trials), {}",
                    s.valid_trials,
                    s.trials,
                    s.caveats.join(", ")
                )
            }
        }
        (Some(s), crate::results::TargetStatus::Ok) if s.valid => "SATURATED (not ranked)".into(),
        (Some(s), st) if st != crate::results::TargetStatus::Ok => {
            format!(
                "{} ({}/{} trials valid)",
                st.label().to_uppercase(),
                s.valid_trials,
                s.trials
            )
        }
        (Some(s), _) => format!("INVALID ({}/{} trials valid)", s.valid_trials, s.trials),
        (None, st) => st.label().to_uppercase(),
    }
}
