//! A comparison of two runs as text cells and lines, shared by its formats: the terminal
//! table (`terminal.rs`) and the markdown of a CI comment (`Markdown`, here). What each line
//! says is decided once, here; the formats only lay it out.
use anyhow::Result;

use super::export::{Exporter, Output};
use super::Markdown;
use crate::compare::{Comparison, Verdict};
use crate::stats::{Change, MIN_TRIALS};

pub const HEADERS: [&str; 7] = [
    "scenario",
    "target",
    "req/s baseline → candidate",
    "change [95% CI]",
    "p99 ms baseline → candidate",
    "p99 change",
    "verdict",
];

/// The change with its interval; from a single trial on a side there is no interval to
/// give (a t interval of one value is zero wide), so the change alone, saying why.
fn fmt_change(c: &Option<Change>, trials: [Option<usize>; 2]) -> String {
    let fewest = trials.iter().flatten().copied().min().unwrap_or(0);
    match c {
        Some(c) if fewest < 2 => format!("{:+.1}% (no interval: 1 trial)", c.pct),
        Some(c) => crate::units::fmt_change(c.pct, c.ci_low_pct, c.ci_high_pct),
        None => "-".into(),
    }
}

/// One row's cells, in the order of `HEADERS`.
pub fn cells(c: &Comparison) -> Vec<[String; 7]> {
    let num = |x: Option<f64>, f: fn(f64) -> String| x.map(f).unwrap_or_else(|| "-".into());
    c.rows
        .iter()
        .map(|r| {
            [
                r.scenario.clone(),
                r.target.clone(),
                format!(
                    "{} → {}",
                    num(r.baseline_rps, crate::units::fmt_rps),
                    num(r.candidate_rps, crate::units::fmt_rps)
                ),
                fmt_change(&r.rps_change, [r.baseline_trials, r.candidate_trials]),
                format!(
                    "{} → {}",
                    num(r.baseline_p99_us, crate::units::fmt_ms),
                    num(r.candidate_p99_us, crate::units::fmt_ms)
                ),
                fmt_change(&r.p99_change, [r.baseline_trials, r.candidate_trials]),
                if r.regression {
                    format!("REGRESSION: {}", r.reason)
                } else {
                    r.reason.clone()
                },
            ]
        })
        .collect()
}

/// "baseline: X" and "candidate: Y", with a status when not complete.
pub fn sides(c: &Comparison) -> [String; 2] {
    let status = |s| match s {
        crate::results::RunStatus::Complete => String::new(),
        s => format!(" (status: {})", crate::compare::status_name(s)),
    };
    [
        format!("baseline: {}{}", c.baseline, status(c.baseline_status)),
        format!("candidate: {}{}", c.candidate, status(c.candidate_status)),
    ]
}

/// The gate's outcome with every reason it tripped, then the notes: (headline, items).
pub fn outcome(c: &Comparison) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    match (c.fail_if_slower_pct, c.gate_passed) {
        (Some(p), Some(false)) => out.push((
            format!(
                "gate --fail-if-slower {p}%: FAILED, {} reason(s):",
                c.gate_failures.len()
            ),
            c.gate_failures
                .iter()
                .map(|f| match (&f.scenario, &f.target) {
                    (Some(s), Some(t)) => format!("{s} × {t}: {}", f.reason),
                    _ => f.reason.clone(),
                })
                .collect(),
        )),
        (Some(p), _) => out.push((
            format!(
                "gate --fail-if-slower {p}%: passed ({} row(s) compared)",
                c.compared
            ),
            Vec::new(),
        )),
        (None, _) => {
            for p in &c.problems {
                out.push((format!("note: {}", p.reason), Vec::new()));
            }
        }
    }
    for n in &c.notes {
        out.push((format!("note: {n}"), Vec::new()));
    }
    // A passing gate must not read as "no slowdown" when some rows could not show one.
    let few = c
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::TooFewTrials)
        .count();
    if few > 0 {
        out.push((
            format!(
                "note: {few} row(s) have too few trials to call any change significant (need {MIN_TRIALS} a side); use --trials {MIN_TRIALS} or more"
            ),
            Vec::new(),
        ));
    }
    out
}

use super::markdown::esc;

impl Exporter<Comparison> for Markdown {
    fn export(&self, c: &Comparison) -> Result<Vec<Output>> {
        let [base, cand] = sides(c);
        let mut md = format!(
            "### gqlbench comparison\n\n- {}\n- {}\n\n",
            esc(&base),
            esc(&cand)
        );
        md.push_str(&format!("| {} |\n", HEADERS.join(" | ")));
        md.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
        for row in cells(c) {
            let row: Vec<String> = row.iter().map(|s| esc(s)).collect();
            md.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        md.push('\n');
        for (head, items) in outcome(c) {
            let head = esc(&head);
            // The gate's verdict in bold: the line a reviewer looks for.
            if head.starts_with("gate") {
                md.push_str(&format!("**{head}**\n\n"));
            } else {
                md.push_str(&format!("{head}\n\n"));
            }
            for i in items {
                md.push_str(&format!("- {}\n", esc(&i)));
            }
            if !md.ends_with("\n\n") {
                md.push('\n');
            }
        }
        Ok(vec![Output {
            file: "comparison.md".into(),
            text: md,
        }])
    }
}
