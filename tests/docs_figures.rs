//! The figures that README.md and docs/ quote from committed runs are those runs' own
//! output. A quote is a block
//!
//! ```text
//! <!-- excerpt: docs/runs/<run>/report.md -->
//! ...lines...
//! <!-- /excerpt -->
//! ```
//!
//! whose every non-empty line is a line of that file, in the file's order. A quoted
//! report.md must itself be what `gqlbench report <run> --format md` renders from the
//! results.json beside it, so the README's sample table is generated from a committed run.
//! After a change to the report's rendering, `GQLBENCH_UPDATE_DOCS=1 cargo test --test
//! docs_figures` writes the quoted report.md files again (the README's blocks still have
//! to be brought up to date by hand, since they choose which lines to quote).
mod common;
use std::path::{Path, PathBuf};

use common::*;

const OPEN: &str = "<!-- excerpt: ";
const CLOSE: &str = "<!-- /excerpt -->";

/// An excerpt block: where it is, the file it quotes and its lines.
struct Excerpt {
    doc: PathBuf,
    line: usize,
    source: PathBuf,
    lines: Vec<String>,
}

/// Every excerpt block of `doc`.
fn excerpts(doc: &Path) -> Vec<Excerpt> {
    let text = std::fs::read_to_string(doc).unwrap();
    let mut out = Vec::new();
    let mut open: Option<Excerpt> = None;
    for (i, l) in text.lines().enumerate() {
        if let Some(rest) = l.trim().strip_prefix(OPEN) {
            assert!(
                open.is_none(),
                "{}:{}: excerpt inside an excerpt",
                doc.display(),
                i + 1
            );
            let path = rest.trim_end_matches("-->").trim();
            open = Some(Excerpt {
                doc: doc.to_path_buf(),
                line: i + 1,
                source: repo().join(path),
                lines: Vec::new(),
            });
        } else if l.trim() == CLOSE {
            out.push(open.take().unwrap_or_else(|| {
                panic!("{}:{}: {CLOSE} without an opening", doc.display(), i + 1)
            }));
        } else if let Some(e) = open.as_mut() {
            if !l.trim().is_empty() {
                e.lines.push(l.to_string());
            }
        }
    }
    assert!(
        open.is_none(),
        "{}: an excerpt is not closed",
        doc.display()
    );
    out
}

/// The documents that may quote runs: README.md and docs/*.md.
fn documents() -> Vec<PathBuf> {
    let mut v = vec![repo().join("README.md")];
    for e in std::fs::read_dir(repo().join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            v.push(p);
        }
    }
    v.sort();
    v
}

/// Where the lines of `quoted` stop following `source` in order: None when every one is a
/// line of it, after the one before.
fn first_unmatched<'a>(quoted: &'a [String], source: &str) -> Option<&'a str> {
    let mut rest = source.lines();
    quoted
        .iter()
        .find(|q| !rest.any(|l| l == q.as_str()))
        .map(|q| q.as_str())
}

#[test]
fn every_excerpt_in_the_docs_is_a_committed_runs_own_output_in_order() {
    let all: Vec<Excerpt> = documents().iter().flat_map(|d| excerpts(d)).collect();
    // The README's sample report is one of them.
    assert!(
        all.iter()
            .any(|e| e.doc.ends_with("README.md") && e.source.ends_with("report.md")),
        "the README's sample report is not an excerpt of a committed run's report.md"
    );
    for e in &all {
        let source = std::fs::read_to_string(&e.source).unwrap_or_else(|err| {
            panic!(
                "{}:{}: cannot read {}: {err}",
                e.doc.display(),
                e.line,
                e.source.display()
            )
        });
        assert!(
            !e.lines.is_empty(),
            "{}:{}: empty excerpt",
            e.doc.display(),
            e.line
        );
        if let Some(bad) = first_unmatched(&e.lines, &source) {
            panic!(
                "{}:{}: this line is not in {} (or not in its order):\n{bad}",
                e.doc.display(),
                e.line,
                e.source.display()
            );
        }
    }
}

#[test]
fn a_quoted_report_is_what_its_results_render_today() {
    let mut reports: Vec<PathBuf> = documents()
        .iter()
        .flat_map(|d| excerpts(d))
        .map(|e| e.source)
        .filter(|s| s.ends_with("report.md"))
        .collect();
    reports.sort();
    reports.dedup();
    for report in reports {
        let run = report.parent().unwrap();
        let out = Gqlbench::report(run).args(["--format", "md"]).go();
        out.assert_exit(0);
        if std::env::var("GQLBENCH_UPDATE_DOCS").as_deref() == Ok("1") {
            std::fs::write(&report, &out.stdout).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&report).unwrap();
        if committed != out.stdout {
            let diff = committed
                .lines()
                .zip(out.stdout.lines())
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("committed: {a}\nrendered:  {b}"))
                .unwrap_or_else(|| "one is longer".into());
            panic!(
                "{} is not what `gqlbench report {} --format md` renders from its results.json \
                 (GQLBENCH_UPDATE_DOCS=1 cargo test --test docs_figures writes it again):\n{diff}",
                report.display(),
                run.display()
            );
        }
    }
}

#[test]
fn a_line_out_of_order_or_not_in_the_source_is_found() {
    let source = "a\nb\nc\n";
    let q = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(first_unmatched(&q(&["a", "c"]), source), None);
    assert_eq!(first_unmatched(&q(&["c", "a"]), source), Some("a"));
    assert_eq!(first_unmatched(&q(&["a", "d"]), source), Some("d"));
}
