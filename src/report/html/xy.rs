//! The report's one x–y chart, drawn with plotters: series of points, joined by lines or
//! not, marked by dots (a step that held, a sample) or rings (a step that did not), on a
//! linear or log y axis and a linear or percentile ("nines") x axis; short notes beside
//! points (a sweep's connection counts). Every time series, distribution and sweep curve in
//! the report is one of these; the series' names live in the page's legend, not here.
use std::ops::Range;

use anyhow::Result;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;
use plotters::style::colors::TRANSPARENT;

use super::svg::{self, color, err, FONT, HEIGHT, WIDTH};
use crate::view::scale;
use crate::view::xy::{Marker, XAxis, Xy, YAxis};

impl Xy {
    fn drawable(&self, p: &(f64, f64)) -> bool {
        p.0.is_finite() && p.1.is_finite() && (self.y != YAxis::Log || p.1 > 0.0)
    }

    /// The chart as SVG; None when no series has a point to draw.
    pub fn svg(&self) -> Result<Option<String>> {
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .filter(|p| self.drawable(p))
            .collect();
        if pts.is_empty() {
            return Ok(None);
        }
        let fold = |f: fn(&(f64, f64)) -> f64| {
            pts.iter()
                .map(f)
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(v), hi.max(v))
                })
        };
        let (x0, x1) = fold(|p| p.0);
        let (y0, y1) = fold(|p| p.1);
        let xr = match self.x {
            XAxis::Linear { from_zero } => scale::linear_range(x0, x1, from_zero),
            // On to the next whole nine, so the axis ends on a label.
            XAxis::Percentile => Some((0.0, x1.max(1.0).ceil())),
        };
        let Some((xa, xb)) = xr else { return Ok(None) };
        let x = xa..xb;
        let svg = match self.y {
            YAxis::Linear { from_zero } => {
                let Some((ya, yb)) = scale::linear_range(y0, y1, from_zero) else {
                    return Ok(None);
                };
                svg::render((WIDTH, HEIGHT), |root| self.plot(root, x, ya..yb))?
            }
            YAxis::Log => {
                let Some((ya, yb)) = scale::log_range(y0, y1) else {
                    return Ok(None);
                };
                svg::render((WIDTH, HEIGHT), |root| {
                    self.plot(root, x, (ya..yb).log_scale())
                })?
            }
        };
        Ok(Some(svg))
    }

    fn plot<Y>(&self, root: &svg::Area<'_>, x: Range<f64>, y: Y) -> Result<()>
    where
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let nines = (x.end - x.start).round().max(1.0) as usize;
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .margin_right(24)
            .x_label_area_size(48)
            .y_label_area_size(70)
            .build_cartesian_2d(x, y)
            .map_err(err)?;
        let percentile = self.x == XAxis::Percentile;
        // A percentile axis is labelled at whole nines only: a tick between them would read
        // as an odd percentile (68%, 99.7%).
        let x_fmt = |v: &f64| {
            if !percentile {
                scale::tick_label(*v)
            } else if (v - v.round()).abs() < 1e-6 {
                scale::percentile_label(*v)
            } else {
                String::new()
            }
        };
        let y_fmt = |v: &f64| scale::tick_label(*v);
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(BLACK.mix(0.08))
            .axis_style(BLACK.mix(0.45))
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 15))
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .x_labels(if percentile { nines + 1 } else { 10 })
            .y_labels(8)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .draw()
            .map_err(err)?;
        for s in &self.series {
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|p| self.drawable(p))
                .collect();
            let c = color(s.color);
            if s.line && pts.len() > 1 {
                let style = c.mix(0.9).stroke_width(2);
                if s.dashed {
                    chart
                        .draw_series(DashedLineSeries::new(pts.clone(), 6, 4, style))
                        .map_err(err)?;
                } else {
                    chart
                        .draw_series(LineSeries::new(pts.clone(), style))
                        .map_err(err)?;
                }
            }
            match s.marker {
                Marker::None => {}
                Marker::Dot => {
                    chart
                        .draw_series(pts.iter().map(|p| Circle::new(*p, 3, c.filled())))
                        .map_err(err)?;
                }
                Marker::Ring => {
                    chart
                        .draw_series(pts.iter().map(|p| Circle::new(*p, 4, c.stroke_width(2))))
                        .map_err(err)?;
                }
            }
        }
        let notes = self.notes.iter().filter(|(p, _)| self.drawable(p));
        chart
            .draw_series(notes.map(|(p, text)| {
                EmptyElement::at(*p)
                    + Text::new(
                        svg::clip(text, 24),
                        (5, -15),
                        (FONT, 13).into_font().color(&BLACK.mix(0.7)),
                    )
            }))
            .map_err(err)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::svg::circles;
    use crate::view::xy::Series;

    fn dots(y: YAxis, values: &[f64]) -> Vec<(f64, f64)> {
        let mut c = Xy::new("x", "y", XAxis::Linear { from_zero: false }, y);
        let pts = values
            .iter()
            .enumerate()
            .map(|(i, v)| (i as f64, *v))
            .collect();
        c.series.push(Series::dots(0, pts, Marker::Dot));
        circles(&c.svg().unwrap().unwrap())
    }

    #[test]
    fn a_log_axis_gives_each_decade_the_same_height_and_puts_larger_values_higher() {
        let c = dots(YAxis::Log, &[1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(c.len(), 4, "{c:?}");
        let gaps: Vec<f64> = c.windows(2).map(|w| w[0].1 - w[1].1).collect();
        for g in &gaps {
            assert!(*g > 20.0, "larger values are drawn higher: {c:?}");
            assert!((g - gaps[0]).abs() <= 1.0, "equal decades: {gaps:?}");
        }
        // On a linear axis the same values are not evenly spaced: the test above can fail.
        let c = dots(
            YAxis::Linear { from_zero: true },
            &[1.0, 10.0, 100.0, 1000.0],
        );
        let gaps: Vec<f64> = c.windows(2).map(|w| w[0].1 - w[1].1).collect();
        assert!(gaps[2] > 10.0 * gaps[0].max(1.0), "{gaps:?}");
    }

    #[test]
    fn a_log_axis_leaves_out_zero_and_an_empty_chart_is_none() {
        let c = dots(YAxis::Log, &[0.0, 5.0, 50.0]);
        assert_eq!(c.len(), 2, "{c:?}");
        let mut empty = Xy::new("x", "y", XAxis::Percentile, YAxis::Log);
        empty
            .series
            .push(Series::line(0, vec![(0.0, 0.0), (1.0, -2.0)]));
        assert!(empty.svg().unwrap().is_none());
    }

    #[test]
    fn the_percentile_axis_is_labelled_in_percentiles() {
        let mut c = Xy::new("percentile", "ms", XAxis::Percentile, YAxis::Log);
        let pts: Vec<(f64, f64)> = scale::nines_points(3.0)
            .into_iter()
            .map(|x| (x, 1.0 + x * x))
            .collect();
        c.series.push(Series::line(1, pts));
        let svg = c.svg().unwrap().unwrap();
        for label in ["90%", "99%", "99.9%"] {
            assert!(svg.contains(&format!("\n{label}\n")), "{label} in {svg}");
        }
        assert!(svg.contains("<polyline"), "{svg}");
    }

    #[test]
    fn notes_are_escaped() {
        let mut c = Xy::new("x", "y", XAxis::Linear { from_zero: true }, YAxis::Log);
        c.series
            .push(Series::line(0, vec![(1.0, 1.0), (2.0, 3.0)]).marked(Marker::Ring));
        c.notes.push(((1.0, 1.0), "<b>8</b>".into()));
        let svg = c.svg().unwrap().unwrap();
        assert!(
            svg.contains("&lt;b&gt;8&lt;/b&gt;") && !svg.contains("<b>"),
            "{svg}"
        );
    }
}
