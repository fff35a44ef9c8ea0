//! The terminal exporter: comfy-tables for people.
//! - A run: provenance and the targets not installed (once), then per scenario its table,
//!   verdict, notes and extra tables, then the run's verdict.
//! - A comparison: one row per scenario × target with its verdict and reason, then the
//!   gate's outcome with every reason it tripped (or, without a gate, the problems of the
//!   runs as notes).
use anyhow::Result;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

use super::cost::Priced;
use super::export::{Document, Exporter, Output};
use super::{load_line, notes, ops_line, provenance_lines, rows, verdict, HEADERS};
use crate::compare::{Comparison, Verdict};
use crate::cost::Pricing;
use crate::results::{RunResults, ScenarioResult};
use crate::stats::{Change, MIN_TRIALS};

pub struct Terminal;

impl Terminal {
    /// The one output of a document's terminal text (`<stem>.txt` if written to a folder).
    pub fn output<D: Document>(text: String) -> Vec<Output> {
        vec![Output {
            file: format!("{}.txt", D::STEM),
            text,
        }]
    }
}

impl Exporter<RunResults> for Terminal {
    fn export(&self, r: &RunResults) -> Result<Vec<Output>> {
        Priced::new(Terminal, Pricing::shipped()?).export(r)
    }
}

impl Exporter<RunResults> for Priced<Terminal> {
    fn export(&self, r: &RunResults) -> Result<Vec<Output>> {
        Ok(Terminal::output::<RunResults>(render_run(r, &self.pricing)))
    }
}

impl Exporter<Comparison> for Terminal {
    fn export(&self, c: &Comparison) -> Result<Vec<Output>> {
        Ok(Self::output::<Comparison>(render_comparison(c)))
    }
}

fn scenario_table(s: &ScenarioResult) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(HEADERS);
    for r in rows(s) {
        t.add_row(r.cells());
    }
    let mut out = format!(
        "\n{}/{} — {}\n  operations: {}\n  load: {}\n",
        s.suite,
        s.name,
        s.description,
        ops_line(s),
        load_line(s),
    );
    if super::has_main_table(s) {
        out.push_str(&format!("{t}\n  {}\n", verdict(s)));
    }
    if let Some(l) = super::not_run_line(s) {
        out.push_str(&format!("  {l}\n"));
    }
    for n in notes(s) {
        out.push_str(&format!("  ! {n}\n"));
    }
    for x in super::extra_tables(s) {
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_header(x.headers);
        for r in x.rows {
            t.add_row(r);
        }
        out.push_str(&format!("  {}\n{t}\n", x.title));
    }
    out
}

fn render_run(r: &RunResults, pricing: &Pricing) -> String {
    let mut out = String::new();
    for l in provenance_lines(r) {
        out.push_str(&l);
        out.push('\n');
    }
    for l in super::not_installed_lines(r) {
        out.push_str(&l);
        out.push('\n');
    }
    for s in &r.scenarios {
        out.push_str(&scenario_table(s));
    }
    if let Some(c) = super::cost::section(r, pricing) {
        out.push_str(&cost_brief(&c));
    }
    if let Some(v) = &r.verdict {
        out.push('\n');
        for l in v.lines() {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

/// The efficiency and cost section, briefly: where the prices come from and each priced
/// scenario's summary (every instance, the assumptions and seed 001's table: report.md).
fn cost_brief(c: &super::cost::Section) -> String {
    let mut out = format!("\n{}\n", super::cost::TITLE);
    for l in &c.provenance {
        out.push_str(&format!("  {l}\n"));
    }
    for s in &c.scenarios {
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_header(s.summary.headers.clone());
        for r in &s.summary.rows {
            t.add_row(r.clone());
        }
        out.push_str(&format!("  {}\n{t}\n", s.summary.title));
        for n in &s.notes {
            out.push_str(&format!("  ! {n}\n"));
        }
    }
    out.push_str("  assumptions, every instance and seed 001's published table (not measured): report.md / report.html\n");
    out
}

fn render_comparison(c: &Comparison) -> String {
    let mut t = Table::new();
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
        s => format!(" (status: {})", crate::compare::status_name(s)),
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
