//! Drawing with plotters' SVG backend: a chart's size, the palette (one color per target,
//! the same in every chart of a scenario), the fonts and grid every chart shares, and
//! `render`, which draws into a string and makes the `<svg>` fit the page. plotters escapes
//! the text it writes (`<`, `>`, `&`, quotes), so a target's name in an axis label cannot
//! become markup; `tests` below checks that it does.
use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The drawing size of a chart in SVG units; the page scales it to its width.
pub const WIDTH: u32 = 640;
pub const HEIGHT: u32 = 320;
pub const FONT: &str = "sans-serif";

/// Ten colors that stay distinguishable side by side (the Tableau 10 palette).
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

/// The color of series `i` (a target's place in its scenario).
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The same color for the page's legends.
pub fn css_color(i: usize) -> String {
    let c = color(i);
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A plotters error as the report's.
pub fn err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("drawing a chart: {e}")
}

/// Draws a chart of `size` into a string. The `<svg>` gets the class the page's style
/// scales to its width (its viewBox keeps the proportions).
pub fn render(size: (u32, u32), draw: impl FnOnce(&Area<'_>) -> Result<()>) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(&root)?;
        root.present().map_err(err)?;
    }
    match out.strip_prefix("<svg ") {
        Some(rest) => Ok(format!("<svg class=\"chart\" role=\"img\" {rest}")),
        None => Err(anyhow!(
            "drawing a chart: the SVG backend wrote no <svg> element"
        )),
    }
}

/// Text shortened to `max` characters with an ellipsis, for labels drawn in a chart (the
/// tables beside it give the whole name).
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The `(cx, cy)` of every `<circle>` in an SVG, in order: what the geometry tests read.
#[cfg(test)]
pub fn circles(svg: &str) -> Vec<(f64, f64)> {
    let attr = |tag: &str, name: &str| -> Option<f64> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next()?.parse().ok()
    };
    svg.split("<circle")
        .skip(1)
        .filter_map(|t| {
            let tag = t.split('>').next()?;
            Some((attr(tag, "cx")?, attr(tag, "cy")?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_drawn_into_a_chart_is_escaped() {
        let svg = render((200, 100), |root| {
            root.draw(&Text::new(
                "<script>alert(1)</script> & \"q\"",
                (10, 10),
                (FONT, 12),
            ))
            .map_err(err)
        })
        .unwrap();
        assert!(
            svg.starts_with("<svg class=\"chart\" role=\"img\" "),
            "{svg}"
        );
        assert!(!svg.contains("<script"), "{svg}");
        assert!(
            svg.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;"),
            "{svg}"
        );
    }

    #[test]
    fn labels_are_clipped_by_characters_not_bytes() {
        assert_eq!(clip("graphql-yoga", 20), "graphql-yoga");
        assert_eq!(clip("ééééé", 3), "éé…");
        assert_eq!(css_color(0), "#4e79a7");
        assert_eq!(color(10), color(0));
    }
}
