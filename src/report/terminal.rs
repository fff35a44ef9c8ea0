//! The terminal exporter: provenance and the targets not installed (once), then one
//! comfy-table per scenario, with the verdict and notes.
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

use super::{load_line, notes, ops_line, provenance_lines, rows, verdict, HEADERS};
use crate::results::{RunResults, ScenarioResult};

pub fn scenario_table(s: &ScenarioResult) -> String {
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

pub fn render(r: &RunResults) -> String {
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
    if let Some(v) = &r.verdict {
        out.push('\n');
        for l in v.lines() {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}
