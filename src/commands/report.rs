//! `gqlbench report RUN [--format md|terminal|json|csv|html]`: renders a saved run again
//! with this version's rules, on stdout (`--format html > report.html` is the page a run
//! writes); CSV, being one file per chart, is written into the run folder instead and the
//! files written are named on stderr. `--prices`, `--traffic` and `--utilization` price the
//! saved run again (docs/cost.md).
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{ReportArgs, ReportFormat};
use crate::report::cost::Priced;
use crate::report::{Csv, Dest, ExportManager, Html, Json, Markdown, Terminal};
use crate::results::RunResults;

pub fn run(a: &ReportArgs) -> Result<ExitCode> {
    // The price table first: a bad one is refused before anything is read or written.
    let pricing = a.cost.pricing()?;
    let mut r = RunResults::load(&a.run)?;
    // The ranking is derived from the stored summaries; derive it again so a saved
    // run is judged by this version's rules, after the rows' own checks (a closed-model
    // row's interval at least its count's step, its req/s against Little's law). An
    // imported run is not checked: its script's connections and pauses are not known.
    let own = r.engine == crate::results::GQLBENCH_ENGINE;
    for s in &mut r.scenarios {
        if own && s.kind.measures_throughput() {
            for t in &mut s.targets {
                crate::summary::checks::apply(&s.load, t);
            }
        }
        // An A/B run's sides are decided by its own sequential rule (`summary::ab`), never
        // ranked as a race: the report says what `ab` said.
        if !s.by_kind.has(&crate::kinds::ab::AB) {
            s.ranking = crate::summary::rank(s);
        }
    }
    let exports = ExportManager::new();
    let exports = match a.format {
        ReportFormat::Md => exports.add(Priced::new(Markdown, pricing), Dest::Stdout),
        ReportFormat::Terminal => exports.add(Priced::new(Terminal, pricing), Dest::Stdout),
        ReportFormat::Json => exports.add(Json, Dest::Stdout),
        ReportFormat::Csv => exports.add(Csv, Dest::Dir(folder(&a.run))),
        ReportFormat::Html => exports.add(Priced::new(Html, pricing), Dest::Stdout),
    };
    let written = exports.write(&r)?;
    if a.format == ReportFormat::Csv && written.is_empty() {
        eprintln!("no chart data in this run: CSV files come from connection sweeps and long runs");
    }
    for p in written {
        eprintln!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The run folder of `run`: itself, or the folder of the results.json named.
fn folder(run: &Path) -> PathBuf {
    if run.is_dir() {
        return run.to_path_buf();
    }
    match run.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
