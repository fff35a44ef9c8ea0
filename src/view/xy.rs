//! An x-y chart as data: axes, series of points (lines, dots, rings) and notes. The
//! report draws it (`report::html::xy`).

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum XAxis {
    Linear {
        from_zero: bool,
    },
    /// Quantiles placed by [`super::scale::nines`]: points' x are nines positions.
    Percentile,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum YAxis {
    Linear {
        from_zero: bool,
    },
    /// Whole decades ([`super::scale::log_range`]); points at or below zero are left out.
    Log,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Marker {
    None,
    Dot,
    Ring,
}

#[derive(Debug, Clone)]
pub struct Series {
    /// Palette index: the target's place in its scenario.
    pub color: usize,
    pub points: Vec<(f64, f64)>,
    pub line: bool,
    pub dashed: bool,
    pub marker: Marker,
}

impl Series {
    pub fn line(color: usize, points: Vec<(f64, f64)>) -> Series {
        Series {
            color,
            points,
            line: true,
            dashed: false,
            marker: Marker::None,
        }
    }

    pub fn marked(mut self, marker: Marker) -> Series {
        self.marker = marker;
        self
    }

    pub fn dots(color: usize, points: Vec<(f64, f64)>, marker: Marker) -> Series {
        Series {
            color,
            points,
            line: false,
            dashed: false,
            marker,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Xy {
    pub x_desc: String,
    pub y_desc: String,
    pub x: XAxis,
    pub y: YAxis,
    pub series: Vec<Series>,
    /// Text drawn just above and right of a point.
    pub notes: Vec<((f64, f64), String)>,
}

impl Xy {
    pub fn new(x_desc: &str, y_desc: &str, x: XAxis, y: YAxis) -> Xy {
        Xy {
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
            x,
            y,
            series: Vec::new(),
            notes: Vec::new(),
        }
    }
}
