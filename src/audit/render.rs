//! The correctness matrix as report.md and report.html (a maud template: every string is
//! escaped), both from `Matrix` alone: a table of suites by gateway, then per suite what
//! was left out or dropped and each cell's detail.
use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::matrix::{Matrix, SuiteRow, Verdict};
use crate::report::markdown::esc;

const GUIDE: &str = "Each suite of the federation gateway audit was set up with `gqlbench init graph` (its subgraphs' SDL and its test operations; mock subgraphs serve gqlbench's own data, not the audit's) and run once through every gateway; every answer was checked against the answer computed from the mocks. correct: every operation equal; wrong: the first operation and path that differed; refused by the gateway: it would not start on the graph; the mocks' fault: every gateway agreed on another answer than the computed one (a fault of gqlbench, not of the gateways); not run: why is given. Operations the mocks cannot serve consistently are left out and named, never blamed on a gateway.";

fn cell_text(row: &SuiteRow, gateway: &str) -> String {
    if row.not_run.is_some() {
        return "not run (below)".into();
    }
    match row.cells.get(gateway) {
        Some(c) => c.verdict.label().to_string(),
        None => "-".into(),
    }
}

/// The counts of each verdict per gateway: the matrix's last line.
fn totals(m: &Matrix, gateway: &str) -> String {
    let count = |v: Verdict| {
        m.suites
            .iter()
            .filter(|s| s.not_run.is_none())
            .filter(|s| s.cells.get(gateway).is_some_and(|c| c.verdict == v))
            .count()
    };
    format!(
        "{} correct, {} wrong, {} refused",
        count(Verdict::Correct),
        count(Verdict::Wrong),
        count(Verdict::Refused)
    )
}

pub fn markdown(m: &Matrix) -> String {
    let mut out = String::new();
    out.push_str("# gqlbench correctness matrix: federation gateway audit\n\n");
    out.push_str(&format!("- source: {}\n", esc(&m.source)));
    out.push_str(&format!("- command: {}\n", esc(&m.command)));
    out.push_str(&format!(
        "- started {}, {}\n",
        m.started_at,
        m.finished_at
            .as_deref()
            .map_or("not finished (interrupted)".to_string(), |f| format!(
                "finished {f}"
            ))
    ));
    out.push_str(&format!("- each suite: {}\n\n", esc(&m.settings)));
    out.push_str(GUIDE);
    // Built as a table of cells, so a matrix with no gateway column (none ran) stays one.
    let lead = |a: String, b: String| [a, b].into_iter();
    let mut rows: Vec<Vec<String>> = m
        .suites
        .iter()
        .map(|s| {
            let cells = m.gateways.iter().map(|g| cell_text(s, g));
            lead(s.suite.clone(), ops_text(s)).chain(cells).collect()
        })
        .collect();
    let totals = m.gateways.iter().map(|g| totals(m, g));
    rows.push(lead("all".into(), String::new()).chain(totals).collect());
    out.push_str("\n\n");
    out.push_str(&crate::report::markdown::table(&crate::view::Table {
        title: String::new(),
        headers: lead("suite".into(), "ops".into())
            .chain(m.gateways.iter().cloned())
            .collect(),
        rows,
    }));
    out.push_str("\n## Details\n");
    for s in &m.suites {
        let lines = details(s);
        if lines.is_empty() {
            continue;
        }
        out.push_str(&format!("\n### {}\n\n", esc(&s.suite)));
        for l in lines {
            out.push_str(&format!("- {}\n", esc(&l)));
        }
    }
    out
}

/// "3 (1 left out)": the operations checked, and those not.
fn ops_text(s: &SuiteRow) -> String {
    let mut t = s.operations.len().to_string();
    let mut not = Vec::new();
    if !s.left_out.is_empty() {
        not.push(format!("{} left out", s.left_out.len()));
    }
    if !s.dropped.is_empty() {
        not.push(format!("{} not taken", s.dropped.len()));
    }
    if !s.set_aside.is_empty() {
        not.push(format!("{} set aside: the mocks' fault", s.set_aside.len()));
    }
    if !s.erred_as_expected.is_empty() {
        not.push(format!(
            "{} answered with an error by every gateway, as the audit expects",
            s.erred_as_expected.len()
        ));
    }
    if !not.is_empty() {
        t.push_str(&format!(" ({})", not.join(", ")));
    }
    t
}

/// A suite's notes: operations left out or dropped, and every cell's detail.
fn details(s: &SuiteRow) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(why) = &s.not_run {
        lines.push(format!("not run: {why}"));
    }
    for (op, why) in &s.left_out {
        lines.push(format!("{op}: left out, not checked (the mocks): {why}"));
    }
    for (op, why) in &s.dropped {
        lines.push(format!("{op}: not taken from the suite: {why}"));
    }
    for (op, why) in &s.set_aside {
        lines.push(format!(
            "{op}: set aside (the mocks' fault, not the gateways'): {why}"
        ));
    }
    for (op, what) in &s.erred_as_expected {
        lines.push(format!(
            "{op}: every gateway answered with an error, as the audit's test.ts expects (errors: true); the mocks never err, so it is not checked further: {what}"
        ));
    }
    for (g, c) in &s.cells {
        if let Some(d) = &c.detail {
            lines.push(format!("{g}: {}: {d}", c.verdict.label()));
        }
    }
    if let (Some(g), Some(r)) = (&s.graph_dir, &s.run_dir) {
        lines.push(format!("graph folder {g}, run {r}"));
    }
    lines
}

pub fn html(m: &Matrix) -> String {
    page(m).into_string()
}

fn page(m: &Matrix) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'";
                title { "gqlbench correctness matrix" }
                style { (PreEscaped("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px}td.correct{background:#e6f4e6}td.wrong,td.refused{background:#fbe3e3}td.mocks_fault{background:#fff4d6}")) }
            }
            body {
                h1 { "gqlbench correctness matrix: federation gateway audit" }
                ul {
                    li { "source: " (m.source) }
                    li { "command: " code { (m.command) } }
                    li { "started " (m.started_at) ", " (m.finished_at.as_deref().map_or("not finished (interrupted)".to_string(), |f| format!("finished {f}"))) }
                    li { "each suite: " (m.settings) }
                }
                p { (GUIDE) }
                table {
                    tr { th { "suite" } th { "ops" } @for g in &m.gateways { th { (g) } } }
                    @for s in &m.suites {
                        tr {
                            td { (s.suite) } td { (ops_text(s)) }
                            @for g in &m.gateways {
                                @let class = if s.not_run.is_some() { "not_run".to_string() } else { s.cells.get(g).map_or("none".to_string(), |c| crate::units::snake_name(&c.verdict)) };
                                td class=(class) { (cell_text(s, g)) }
                            }
                        }
                    }
                    tr { td { "all" } td {} @for g in &m.gateways { td { (totals(m, g)) } } }
                }
                h2 { "Details" }
                @for s in &m.suites {
                    @let lines = details(s);
                    @if !lines.is_empty() {
                        h3 { (s.suite) }
                        ul { @for l in lines { li { (l) } } }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::matrix::SuiteRow;

    fn matrix(gateways: &[&str]) -> Matrix {
        Matrix {
            schema_version: 1,
            command: "gqlbench audit x".into(),
            source: "x".into(),
            started_at: "t0".into(),
            finished_at: None,
            settings: "s".into(),
            gateways: gateways.iter().map(|g| g.to_string()).collect(),
            suites: vec![SuiteRow {
                suite: "a-suite".into(),
                not_run: Some("init graph exited 2".into()),
                ..Default::default()
            }],
        }
    }

    /// Every row of the matrix's table has as many cells as its header.
    #[test]
    fn the_table_keeps_its_columns_with_and_without_gateways() {
        for gateways in [&[][..], &["g1", "g2"][..]] {
            let md = markdown(&matrix(gateways));
            let rows: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
            assert_eq!(rows.len(), 4, "{md}");
            let columns = rows[0].matches(" | ").count();
            assert_eq!(columns, 1 + gateways.len(), "{md}");
            assert_eq!(rows[1].matches("---").count(), 2 + gateways.len(), "{md}");
            for r in &rows[2..] {
                assert_eq!(r.matches(" | ").count(), columns, "{r} in {md}");
            }
        }
    }
}
