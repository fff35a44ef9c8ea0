//! The HTML exporter (report.html): one self-contained page per run that works offline from
//! `file://` (no script, no fetch: its Content-Security-Policy forbids both), with the same
//! provenance, tables, verdicts and notes as report.md and the charts report.md cannot
//! hold. The page is a maud template (`page`), which escapes every string it is given; the
//! charts are SVG drawn in Rust with plotters (`svg`, `xy`, `intervals`), laid on axes
//! whose geometry is `view::scale`. The charts of every throughput scenario are `load`'s; a
//! kind that measures more gives its own as data through its `html` hook
//! (`kind::KindDef::html`: `view::Figure`), drawn here by `Figure::drawn`; the req/s per
//! core of a throughput scenario is `efficiency`'s.
pub mod efficiency;
pub mod intervals;
pub mod load;
mod page;
pub mod svg;
pub mod xy;

use anyhow::Result;

use super::cost::Priced;
use super::export::{Exporter, Output};
use crate::cost::Pricing;
use crate::results::{RunResults, ScenarioResult};

/// A run as report.html.
pub struct Html;

impl Exporter<RunResults> for Html {
    fn export(&self, r: &RunResults) -> Result<Vec<Output>> {
        Priced::new(Html, Pricing::shipped()?).export(r)
    }
}

impl Exporter<RunResults> for Priced<Html> {
    fn export(&self, r: &RunResults) -> Result<Vec<Output>> {
        Ok(vec![Output {
            file: "report.html".into(),
            text: page::render(r, &self.pricing),
        }])
    }
}

/// A figure drawn for the page: its data (`view::Figure`, whose fields it shows through
/// `Deref`) and its SVG, or why it could not be drawn.
#[derive(Debug, Clone)]
pub struct Figure {
    pub data: crate::view::Figure,
    pub svg: std::result::Result<String, String>,
}

impl std::ops::Deref for Figure {
    type Target = crate::view::Figure;
    fn deref(&self) -> &crate::view::Figure {
        &self.data
    }
}

impl Figure {
    /// A figure drawn: none when there was nothing to draw; a drawing that failed is kept
    /// with its error, so the page says so instead of leaving the chart out.
    pub fn drawn(f: crate::view::Figure) -> Option<Figure> {
        let drawn = match &f.chart {
            crate::view::Chart::Xy(c) => c.svg(),
            crate::view::Chart::Intervals(c) => c.svg(),
        };
        Figure::of_drawing(f, drawn)
    }

    /// A figure from what drawing its chart gave.
    fn of_drawing(data: crate::view::Figure, drawn: Result<Option<String>>) -> Option<Figure> {
        let svg = match drawn {
            Ok(None) => return None,
            Ok(Some(svg)) => Ok(svg),
            Err(e) => Err(format!("{e:#}")),
        };
        Some(Figure { data, svg })
    }
}

pub use crate::view::{color_of, legend};

/// Every chart of a scenario: the throughput scenario's, then its kinds'.
pub fn figures(s: &ScenarioResult) -> Vec<Figure> {
    let mut out = load::figures(s);
    out.extend(efficiency::figure(s));
    out.extend(crate::kinds::html(s).into_iter().filter_map(Figure::drawn));
    out
}

#[cfg(test)]
mod tests;
