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
use crate::compare::Comparison;
use crate::cost::Pricing;
use crate::results::{RunResults, ScenarioResult};

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
    use super::comparison::{cells, outcome, sides, HEADERS};
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED).set_header(HEADERS);
    for row in cells(c) {
        t.add_row(row);
    }
    let [base, cand] = sides(c);
    let mut out = format!("{base}\n{cand}\n{t}\n");
    for (head, items) in outcome(c) {
        out.push_str(&head);
        out.push('\n');
        for i in items {
            out.push_str(&format!("  - {i}\n"));
        }
    }
    out
}
