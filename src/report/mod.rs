//! Reports: what gqlbench writes about a run or a comparison. `export` is the seam (the
//! `Exporter` trait and the `ExportManager` that writes each output where it goes); each
//! format is one file beside it: `terminal`, `markdown`, `json`, `csv`, `comparison` (the
//! text of a comparison), and `html` (a folder: the page, its charts and their geometry).
//! The table data every format draws on is in files of its own: `table` (the main table's
//! headers and rows), `notes` (the verdict and notes under it), `extras` (the extra tables of
//! the scenarios that measure more), `versions` (the target versions and settings table);
//! `provenance` and `skipped` hold the lines around them, `precision` how precise the
//! figures are, in words, `rates` how a closed model's req/s were taken (the count or the
//! requests' timing, its step, Little's law), and `cost` the efficiency and cost section. This file declares
//! them, re-exports what the exporters and callers use, and holds the reading guide. None
//! of it measures anything: every cell comes from the one result model (`results/`).
pub mod comparison;
pub mod cost;
pub mod csv;
pub mod export;
mod extras;
mod forecast;
pub mod html;
pub mod json;
pub mod languages;
pub mod markdown;
mod notes;
pub mod precision;
pub mod provenance;
mod rates;
pub mod skipped;
mod table;
pub mod terminal;
#[cfg(test)]
mod tests;
mod versions;

pub use crate::units::{fmt_bytes, fmt_cpus, fmt_ms, fmt_rps, snake_name, UNMEASURED};
pub use crate::view::cells::{not_installed, validity};
pub use crate::view::Table as ExtraTable;
pub use csv::{chart_files, Csv};
pub use export::{Dest, Document, ExportManager, Exporter, Output};
pub use extras::extra_tables;
pub use html::Html;
pub use json::Json;
pub use markdown::Markdown;
pub use notes::{notes, verdict};
pub use provenance::{load_line, ops_line, provenance_lines};
pub use skipped::{not_installed_lines, not_run_line};
pub use table::{has_main_table, rows, Row, HEADERS};
pub use terminal::Terminal;
pub use versions::{versions_rows, VERSIONS_HEADERS};

/// How to read a report's figures, said once under its provenance (report.md, report.html).
pub const READING_GUIDE: &str =
    "req/s is the center (geometric mean) of the counted trials with its 95% t interval, never \
narrower than the count's step (one request per connection at each edge of the window; a \
coarse count gives way to the requests' own timing); \
\"± of 95% CI\" is the interval's half-width against the precision asked for, and why the rounds \
stopped when it is wider; CV is the coefficient of variation of req/s across trials. A fastest \
target is named only when the interval of its margin over the runner-up, paired round by round, \
excludes 0. Latency percentiles come from all valid trials' histograms merged. CPU is the \
target's process tree in % of one core over the measured window (in a round whose targets \
alternated, over its own share of it). A row with any failed \
response, a crash or a saturated generator is never ranked; caveats (unsteady, interference, \
littles_law: req/s far from connections / mean latency) are named but do not unrank it. How a verdict is reached: docs/method.md; field meanings: \
docs/results.md.";
