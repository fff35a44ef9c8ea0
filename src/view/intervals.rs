//! An interval chart as data: one row per target (or target and measure), a center with
//! its interval and its samples, on one linear axis. The report draws it
//! (`report::html::intervals`).

#[derive(Debug, Clone)]
pub struct Row {
    /// Drawn left of the row (clipped; the tables give it whole).
    pub label: String,
    /// Palette index: the target's place in its scenario.
    pub color: usize,
    pub center: f64,
    /// The interval; None (or not finite) draws the center alone.
    pub interval: Option<(f64, f64)>,
    /// The values the center summarizes (trials, starts), drawn as rings.
    pub samples: Vec<f64>,
}

#[derive(Debug, Clone)]
pub struct Intervals {
    pub x_desc: String,
    /// The axis starts at 0 (a rate, a time) rather than at the smallest value.
    pub from_zero: bool,
    /// A vertical line at 0: the values are differences.
    pub zero_line: bool,
    pub rows: Vec<Row>,
}
