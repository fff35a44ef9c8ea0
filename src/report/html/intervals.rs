//! The report's interval chart, drawn with plotters: one row per target (or per target and
//! measure), each a center with its interval as a whisker and its samples as small rings,
//! on one linear x axis; a line at zero when the values are differences. req/s per target,
//! cold starts and the added latency of variants are drawn with it.
use anyhow::Result;
use plotters::prelude::*;
use plotters::style::colors::TRANSPARENT;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::svg::{self, color, err, FONT, WIDTH};
use crate::view::intervals::{Intervals, Row};
use crate::view::scale;

/// Height of one row and of what surrounds the rows (margins, the x axis).
const ROW_H: u32 = 36;
const FRAME_H: u32 = 80;
/// Width of the labels' column.
const LABEL_W: u32 = 200;
const LABEL_CHARS: usize = 26;

impl Intervals {
    fn interval(r: &Row) -> Option<(f64, f64)> {
        r.interval.filter(|(a, b)| a.is_finite() && b.is_finite())
    }

    /// The chart as SVG; None when no row has a finite center.
    pub fn svg(&self) -> Result<Option<String>> {
        let rows: Vec<&Row> = self.rows.iter().filter(|r| r.center.is_finite()).collect();
        if rows.is_empty() {
            return Ok(None);
        }
        let values = rows.iter().flat_map(|r| {
            let (a, b) = Self::interval(r).unwrap_or((r.center, r.center));
            [r.center, a, b]
                .into_iter()
                .chain(r.samples.iter().copied().filter(|v| v.is_finite()))
        });
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let from_zero = self.from_zero || self.zero_line;
        let Some((xa, xb)) = scale::linear_range(lo, hi, from_zero) else {
            return Ok(None);
        };
        let n = rows.len();
        let height = FRAME_H + ROW_H * n as u32;
        let svg = svg::render((WIDTH, height), |root| {
            let (left, right) = root.split_horizontally(LABEL_W);
            let mut chart = ChartBuilder::on(&right)
                .margin(10)
                .margin_right(24)
                .x_label_area_size(44)
                .build_cartesian_2d(xa..xb, -0.5..(n as f64 - 0.5))
                .map_err(err)?;
            let x_fmt = |v: &f64| scale::tick_label(*v);
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(0)
                .light_line_style(TRANSPARENT)
                .bold_line_style(BLACK.mix(0.08))
                .axis_style(BLACK.mix(0.45))
                .label_style((FONT, 14))
                .axis_desc_style((FONT, 15))
                .x_desc(self.x_desc.as_str())
                .x_labels(10)
                .x_label_formatter(&x_fmt)
                .draw()
                .map_err(err)?;
            if self.zero_line {
                chart
                    .draw_series(LineSeries::new(
                        [(0.0, -0.5), (0.0, n as f64 - 0.5)],
                        BLACK.mix(0.5).stroke_width(1),
                    ))
                    .map_err(err)?;
            }
            // The first row at the top.
            let y_of = |i: usize| (n - 1 - i) as f64;
            for (i, r) in rows.iter().enumerate() {
                let y = y_of(i);
                let c = color(r.color);
                chart
                    .draw_series(
                        r.samples
                            .iter()
                            .filter(|v| v.is_finite())
                            .map(|v| Circle::new((*v, y + 0.22), 3, c.mix(0.8).stroke_width(1))),
                    )
                    .map_err(err)?;
                match Self::interval(r) {
                    Some((a, b)) => {
                        chart
                            .draw_series([ErrorBar::new_horizontal(
                                y,
                                a,
                                r.center,
                                b,
                                c.filled().stroke_width(2),
                                10,
                            )])
                            .map_err(err)?;
                    }
                    None => {
                        chart
                            .draw_series([Circle::new((r.center, y), 5, c.filled())])
                            .map_err(err)?;
                    }
                }
                let (_, py) = chart.backend_coord(&(xa, y));
                let style = (FONT, 14)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Right, VPos::Center));
                left.draw(&Text::new(
                    svg::clip(&r.label, LABEL_CHARS),
                    (LABEL_W as i32 - 8, py),
                    style,
                ))
                .map_err(err)?;
            }
            Ok(())
        })?;
        Ok(Some(svg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::svg::circles;

    fn row(label: &str, center: f64, interval: Option<(f64, f64)>) -> Row {
        Row {
            label: label.into(),
            color: 0,
            center,
            interval,
            samples: Vec::new(),
        }
    }

    /// The `x1`/`x2` of every horizontal `<line>` of the chart's data color.
    fn whiskers(svg: &str) -> Vec<(f64, f64)> {
        svg.split("<line")
            .skip(1)
            .filter_map(|t| {
                let tag = t.split('>').next()?;
                if !tag.contains(&svg::css_color(0).to_uppercase()) {
                    return None;
                }
                let get = |n: &str| -> Option<f64> {
                    let at = tag.find(&format!(" {n}=\""))? + n.len() + 3;
                    tag[at..].split('"').next()?.parse().ok()
                };
                let (x1, y1, x2, y2) = (get("x1")?, get("y1")?, get("x2")?, get("y2")?);
                (y1 == y2 && x1 != x2).then_some((x1.min(x2), x1.max(x2)))
            })
            .collect()
    }

    #[test]
    fn the_whisker_spans_the_interval_around_its_center_and_rows_run_top_down() {
        let c = Intervals {
            x_desc: "req/s".into(),
            from_zero: true,
            zero_line: false,
            rows: vec![
                row("fast", 1000.0, Some((900.0, 1100.0))),
                row("slow", 500.0, Some((450.0, 560.0))),
            ],
        };
        let svg = c.svg().unwrap().unwrap();
        let centers = circles(&svg);
        assert_eq!(centers.len(), 2, "{svg}");
        let (fast, slow) = (centers[0], centers[1]);
        assert!(fast.1 < slow.1, "the first row is on top: {centers:?}");
        let w = whiskers(&svg);
        assert_eq!(w.len(), 2, "{w:?}");
        for ((lo, hi), (cx, _)) in w.iter().zip(&centers) {
            assert!(*lo < *cx && *cx < *hi, "{lo} < {cx} < {hi}");
        }
        // 900–1100 is 200 wide, 450–560 is 110: the widths keep their proportion.
        let ratio = (w[0].1 - w[0].0) / (w[1].1 - w[1].0);
        assert!((ratio - 200.0 / 110.0).abs() < 0.1, "{ratio}");
        // The axis starts at 0: where 1000 and 500 put the zero is the axis' left end.
        let zero = 2.0 * slow.0 - fast.0;
        let axis_left = svg
            .split("<polyline")
            .skip(1)
            .filter(|t| t.contains("stroke=\"#000000\""))
            .filter_map(|t| {
                let pts = t.split("points=\"").nth(1)?.split('"').next()?;
                let xy: Vec<(f64, f64)> = pts
                    .split_whitespace()
                    .filter_map(|p| {
                        let (x, y) = p.split_once(',')?;
                        Some((x.parse().ok()?, y.parse().ok()?))
                    })
                    .collect();
                // The x axis: the longest horizontal black line.
                (xy.len() == 2 && xy[0].1 == xy[1].1)
                    .then(|| (xy[0].0.min(xy[1].0), (xy[0].0 - xy[1].0).abs()))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(left, _)| left)
            .unwrap();
        assert!((zero - axis_left).abs() <= 2.0, "{zero} vs {axis_left}");
        assert!(
            zero > LABEL_W as f64,
            "the zero is right of the labels: {zero}"
        );
    }

    #[test]
    fn a_row_without_interval_is_a_dot_and_labels_are_escaped() {
        let c = Intervals {
            x_desc: "µs".into(),
            from_zero: false,
            zero_line: true,
            rows: vec![row("<i>x</i>", -20.0, Some((f64::NEG_INFINITY, 5.0)))],
        };
        let svg = c.svg().unwrap().unwrap();
        assert_eq!(circles(&svg).len(), 1);
        assert!(whiskers(&svg).is_empty(), "no whisker to infinity");
        assert!(svg.contains("&lt;i&gt;x&lt;/i&gt;") && !svg.contains("<i>"));
        assert!(Intervals { rows: vec![], ..c }.svg().unwrap().is_none());
    }
}
