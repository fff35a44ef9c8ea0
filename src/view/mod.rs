//! What a report shows, as plain data: a kind's tables ([`Table`]) and charts
//! ([`Figure`] of an x-y chart or an interval chart), the shared cells, the axes' scales.
//! The kinds make these from a saved result; `report` renders them (text, Markdown, HTML
//! with the charts drawn as SVG). Nothing here draws or writes.
pub mod cells;
pub mod curve;
pub mod intervals;
pub mod scale;
pub mod xy;

use crate::results::{ScenarioResult, TargetResult};

/// A table a kind adds to its scenario's report.
/// A table beside the main one, for what only some suites have (federation upstream
/// figures, rate-sweep curves).
pub struct Table {
    pub title: String,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// A chart's data.
#[derive(Debug, Clone)]
pub enum Chart {
    Xy(xy::Xy),
    Intervals(intervals::Intervals),
}

impl From<xy::Xy> for Chart {
    fn from(c: xy::Xy) -> Chart {
        Chart::Xy(c)
    }
}

impl From<intervals::Intervals> for Chart {
    fn from(c: intervals::Intervals) -> Chart {
        Chart::Intervals(c)
    }
}

/// One chart of a scenario, as data: what the report draws.
#[derive(Debug, Clone)]
pub struct Figure {
    /// What the chart is, the same in every report (`data-chart` on the page): e.g.
    /// `throughput`, `latency`, `rate-sweep`.
    pub kind: &'static str,
    pub title: String,
    /// What it shows and where its numbers come from, in a sentence or two.
    pub about: String,
    /// The series' names and palette indexes, shown under the chart.
    pub legend: Vec<(String, usize)>,
    pub chart: Chart,
}

impl Figure {
    /// A figure of a chart (the report leaves it out when there is nothing to draw).
    pub fn of(
        kind: &'static str,
        title: impl Into<String>,
        about: impl Into<String>,
        legend: Vec<(String, usize)>,
        chart: impl Into<Chart>,
    ) -> Figure {
        Figure {
            kind,
            title: title.into(),
            about: about.into(),
            legend,
            chart: chart.into(),
        }
    }
}

/// A target's color in every chart of its scenario: its place in the scenario.
pub fn color_of(s: &ScenarioResult, t: &TargetResult) -> usize {
    s.targets
        .iter()
        .position(|x| std::ptr::eq(x, t))
        .unwrap_or(0)
}

/// The legend of the targets that `keep` selects, each in its color.
pub fn legend(s: &ScenarioResult, keep: impl Fn(&TargetResult) -> bool) -> Vec<(String, usize)> {
    s.targets
        .iter()
        .enumerate()
        .filter(|(_, t)| keep(t))
        .map(|(i, t)| (t.name.clone(), i))
        .collect()
}
