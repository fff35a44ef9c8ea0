//! The page of report.html as a maud template: every string spliced in (target names,
//! descriptions, problems, table cells) is escaped by maud; only the charts' SVG, which
//! plotters wrote and escaped itself, and the page's own style are inserted as they are.
//! Its sections follow report.md: provenance, then per scenario the facts, the main table
//! and its verdict, the notes, the charts, the kinds' tables and the targets' versions; the
//! efficiency and cost section after the scenarios; the run's verdict last. A run that did not complete says so at the top.
use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::{figures, svg::css_color, Figure};
use crate::cost::Pricing;
use crate::report::cost::Section;
use crate::report::{self as rep, ExtraTable};
use crate::results::{RunResults, RunStatus, ScenarioResult};

/// No script may run and nothing may be fetched: the page is whole in itself, and a string
/// that escaped escaping still could not execute.
const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const STYLE: &str = include_str!("style.css");

pub fn render(r: &RunResults, pricing: &Pricing) -> String {
    page(r, pricing).into_string()
}

/// What the top of the page says when the run did not complete.
pub fn partial_notice(status: RunStatus) -> Option<&'static str> {
    match status {
        RunStatus::Complete => None,
        RunStatus::Interrupted => Some(
            "This run was interrupted before it finished. The page shows what was measured until then: scenarios and trials after the interruption are missing, and a row with fewer trials than planned says so.",
        ),
        RunStatus::Running => Some(
            "This run never finished (it is still running, or gqlbench was killed). The page shows the last checkpoint of its results.json: what was measured until then.",
        ),
        RunStatus::Failed => Some(
            "gqlbench hit an error during this run (see its output). The page shows what was measured before it.",
        ),
    }
}

fn page(r: &RunResults, pricing: &Pricing) -> Markup {
    let notice = partial_notice(r.status);
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                meta name="viewport" content="width=device-width, initial-scale=1";
                title {
                    "gqlbench report: " (r.suite) " (" (r.profile) ")"
                    @if notice.is_some() { " — partial" }
                }
                style { (PreEscaped(STYLE)) }
            }
            body {
                header {
                    h1 { "gqlbench report: suite " code { (r.suite) } ", profile " code { (r.profile) } }
                    @if let Some(n) = notice {
                        p.banner role="alert" data-status=(rep::snake_name(&r.status)) {
                            strong { "Partial results. " } (n)
                        }
                    }
                    ul.provenance {
                        @for l in rep::provenance_lines(r) { li { (l) } }
                        @for l in rep::not_installed_lines(r) { li { (l) } }
                    }
                    p.guide { (rep::READING_GUIDE) }
                    @if r.scenarios.len() > 1 {
                        nav.toc {
                            "Scenarios: "
                            @for (i, s) in r.scenarios.iter().enumerate() {
                                a href=(format!("#s{i}")) { (s.suite) "/" (s.name) }
                                " "
                            }
                        }
                    }
                }
                main {
                    @if r.scenarios.is_empty() {
                        p.empty { "No scenario was measured." }
                    }
                    @for (i, s) in r.scenarios.iter().enumerate() {
                        (scenario(i, s))
                    }
                    @if let Some(c) = rep::cost::section(r, pricing) { (cost(&c)) }
                }
                @if let Some(v) = &r.verdict {
                    section.verdict {
                        h2 { "Verdict" }
                        pre { (v.lines_brief().join("\n")) }
                    }
                }
                footer {
                    "gqlbench " (r.tool.version) ", from the run's results.json (schema "
                    (r.schema_version) "). Field meanings: docs/results.md; the charts: docs/html-report.md."
                }
            }
        }
    }
}

fn scenario(i: usize, s: &ScenarioResult) -> Markup {
    let limits =
        s.limits.cpus.is_some() || s.limits.memory_bytes.is_some() || !s.limits.applied.is_empty();
    let notes = rep::notes(s);
    let figs = figures(s);
    html! {
        section.scenario id=(format!("s{i}")) {
            h2 { (s.suite) "/" (s.name) }
            p.description { (s.description) }
            ul.facts {
                li { "operations: " (rep::ops_line(s)) }
                li { "load: " (rep::load_line(s)) }
                @if limits { li { "limits: " (s.limits.applied) } }
            }
            @if rep::has_main_table(s) {
                div.table-wrap {
                    table.main {
                        thead { tr { @for h in rep::HEADERS { th { (h) } } } }
                        tbody {
                            @for row in rep::rows(s) {
                                tr class=(if row.validity.starts_with("valid") { "ok" } else { "bad" }) {
                                    @for c in row.cells() { td { (c) } }
                                }
                            }
                        }
                    }
                }
                p.scenario-verdict { strong { (rep::verdict(s)) } }
            }
            @if let Some(l) = rep::not_run_line(s) { p { (l) } }
            @if !notes.is_empty() {
                ul.notes { @for n in &notes { li { "⚠ " (n) } } }
            }
            @if !figs.is_empty() {
                div.charts { @for (j, f) in figs.iter().enumerate() { (figure(i, j, f)) } }
            }
            @for x in rep::extra_tables(s) { (extra(&x)) }
            details.versions {
                summary { "target versions and settings" }
                div.table-wrap {
                    table {
                        thead { tr { @for h in rep::VERSIONS_HEADERS { th { (h) } } } }
                        tbody { @for row in rep::versions_rows(s) { tr { @for c in &row { td { (c) } } } } }
                    }
                }
            }
        }
    }
}

fn figure(i: usize, j: usize, f: &Figure) -> Markup {
    html! {
        figure.chart-figure id=(format!("s{i}-c{j}")) data-chart=(f.kind) {
            figcaption {
                h3 { (f.title) }
                p.about { (f.about) }
            }
            @match &f.svg {
                Ok(svg) => (PreEscaped(svg)),
                Err(e) => p.chart-error { "This chart could not be drawn: " (e) },
            }
            @if !f.legend.is_empty() {
                ul.legend {
                    @for (name, c) in &f.legend {
                        li { span.swatch style=(format!("background:{}", css_color(*c))) {} (name) }
                    }
                }
            }
        }
    }
}

fn extra(x: &ExtraTable) -> Markup {
    html! {
        h3.table-title { (x.title) }
        div.table-wrap {
            table {
                thead { tr { @for h in &x.headers { th { (h) } } } }
                tbody { @for row in &x.rows { tr { @for c in row { td { (c) } } } } }
            }
        }
    }
}

/// The efficiency and cost section (`report::cost`), as in report.md.
fn cost(c: &Section) -> Markup {
    html! {
        section.cost id="cost" {
            h2 { (rep::cost::TITLE) }
            ul.provenance { @for l in &c.provenance { li { (l) } } }
            p.guide { (c.assumptions) }
            @for s in &c.scenarios {
                (extra(&s.summary))
                @if !s.notes.is_empty() {
                    ul.notes { @for n in &s.notes { li { "⚠ " (n) } } }
                }
                details.versions {
                    summary { (s.detail.title) }
                    (extra(&s.detail))
                }
            }
            details.versions {
                summary { (c.instances.title) }
                (extra(&c.instances))
            }
            div.published {
                (extra(&c.seed))
                ul.notes { @for l in &c.seed_remarks { li { (l) } } }
            }
        }
    }
}
