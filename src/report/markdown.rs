//! The markdown exporter (report.md): provenance and the targets not installed (once), then
//! per scenario the table, the verdict, the notes, and the fairness-relevant settings of
//! each target.
use anyhow::Result;

use super::cost::Priced;
use super::export::{Exporter, Output};
use super::ExtraTable;
use super::{load_line, notes, ops_line, provenance_lines, rows, verdict, HEADERS};
use crate::cost::Pricing;
use crate::results::RunResults;

/// A run as report.md.
pub struct Markdown;

impl Exporter<RunResults> for Markdown {
    fn export(&self, r: &RunResults) -> Result<Vec<Output>> {
        Priced::new(Markdown, Pricing::shipped()?).export(r)
    }
}

impl Exporter<RunResults> for Priced<Markdown> {
    fn export(&self, r: &RunResults) -> Result<Vec<Output>> {
        Ok(vec![Output {
            file: "report.md".into(),
            text: render(r, &self.pricing),
        }])
    }
}

/// Text from a run (a target's name, a problem, a note) made safe for one markdown line or
/// table cell: `|` escaped so it cannot end the cell, line breaks flattened so it cannot end
/// the line or the table, and `<` written as `&lt;` so a name like `<b>x</b>` shows as text
/// instead of being rendered as HTML. Inside a code span (a pair of backticks) `<` is already
/// text, and stays as written.
pub fn esc(s: &str) -> String {
    let flat = s
        .replace('|', "\\|")
        .replace("\r\n", " ")
        .replace(['\n', '\r'], " ");
    let parts: Vec<&str> = flat.split('`').collect();
    // Only backticks that pair up open and close code spans; an odd last one is text.
    let paired = (parts.len() - 1) / 2 * 2;
    let mut out = String::with_capacity(flat.len());
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 && i < paired {
            out.push_str(part);
        } else {
            out.push_str(&part.replace('<', "&lt;"));
        }
    }
    out
}

fn render(r: &RunResults, pricing: &Pricing) -> String {
    let mut out = format!(
        "# gqlbench report: suite `{}`, profile `{}`\n\n",
        r.suite, r.profile
    );
    for l in provenance_lines(r) {
        out.push_str(&format!("- {}\n", esc(&l)));
    }
    for l in super::not_installed_lines(r) {
        out.push_str(&format!("- {}\n", esc(&l)));
    }
    out.push_str(&format!("\n{}\n", super::READING_GUIDE));
    for s in &r.scenarios {
        out.push_str(&format!(
            "\n## {}/{}\n\n{}\n\n",
            s.suite,
            s.name,
            esc(&s.description)
        ));
        out.push_str(&format!(
            "- operations: {}\n- load: {}\n",
            esc(&ops_line(s)),
            esc(&load_line(s))
        ));
        if s.limits.cpus.is_some()
            || s.limits.memory_bytes.is_some()
            || !s.limits.applied.is_empty()
        {
            out.push_str(&format!("- limits: {}\n", esc(&s.limits.applied)));
        }
        if super::has_main_table(s) {
            out.push('\n');
            out.push_str(&format!("| {} |\n", HEADERS.join(" | ")));
            out.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
            for row in rows(s) {
                out.push_str(&format!(
                    "| {} |\n",
                    row.cells()
                        .iter()
                        .map(|c| esc(c))
                        .collect::<Vec<_>>()
                        .join(" | ")
                ));
            }
            out.push_str(&format!("\n**{}**\n", esc(&verdict(s))));
        }
        if let Some(l) = super::not_run_line(s) {
            out.push_str(&format!("\n{}\n", esc(&l)));
        }
        let n = notes(s);
        if !n.is_empty() {
            out.push('\n');
            for l in n {
                out.push_str(&format!("- ⚠ {}\n", esc(&l)));
            }
        }
        for x in super::extra_tables(s) {
            out.push_str(&format!(
                "\n{}\n\n| {} |\n|{}\n",
                esc(&x.title),
                x.headers.join(" | "),
                "---|".repeat(x.headers.len())
            ));
            for r in x.rows {
                out.push_str(&format!(
                    "| {} |\n",
                    r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")
                ));
            }
        }
        out.push_str(&format!(
            "\n<details><summary>target versions and settings</summary>\n\n| {} |\n|{}\n",
            super::VERSIONS_HEADERS.join(" | "),
            "---|".repeat(super::VERSIONS_HEADERS.len())
        ));
        for row in super::versions_rows(s) {
            out.push_str(&format!(
                "| {} |\n",
                row.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")
            ));
        }
        out.push_str("\n</details>\n");
    }
    if let Some(c) = super::cost::section(r, pricing) {
        out.push_str(&cost_section(&c));
    }
    if let Some(v) = &r.verdict {
        out.push_str("\n## Verdict\n\n```\n");
        for l in v.lines_brief() {
            // In a fenced block HTML is text; only a line break could end the block.
            out.push_str(&l.replace(['\n', '\r'], " "));
            out.push('\n');
        }
        out.push_str("```\n");
    }
    out
}

/// A table as Markdown, every cell escaped (its title is the caller's to print).
pub fn table(x: &ExtraTable) -> String {
    let mut out = format!(
        "| {} |\n|{}\n",
        x.headers
            .iter()
            .map(|c| esc(c))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(x.headers.len())
    );
    for r in &x.rows {
        out.push_str(&format!(
            "| {} |\n",
            r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")
        ));
    }
    out
}

/// The efficiency and cost section (`report::cost`).
fn cost_section(c: &super::cost::Section) -> String {
    let mut out = format!("\n## {}\n\n", super::cost::TITLE);
    for l in &c.provenance {
        out.push_str(&format!("- {}\n", esc(l)));
    }
    out.push_str(&format!("\n{}\n", c.assumptions));
    for s in &c.scenarios {
        out.push_str(&format!("\n### {}\n\n{}", esc(&s.title), table(&s.summary)));
        for n in &s.notes {
            out.push_str(&format!("\n- ⚠ {}\n", esc(n)));
        }
        out.push_str(&format!(
            "\n<details><summary>{}</summary>\n\n{}\n</details>\n",
            esc(&s.detail.title),
            table(&s.detail)
        ));
    }
    out.push_str(&format!(
        "\n<details><summary>{}</summary>\n\n{}\n</details>\n",
        esc(&c.instances.title),
        table(&c.instances)
    ));
    out.push_str(&format!(
        "\n### {}\n\n{}\n",
        esc(&c.seed.title),
        table(&c.seed)
    ));
    for l in &c.seed_remarks {
        out.push_str(&format!("- {}\n", esc(l)));
    }
    out
}
