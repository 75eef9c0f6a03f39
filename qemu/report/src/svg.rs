//! Draws a [`Chart`] as SVG with `plotters` (SVG backend only: text
//! stays text, so the tests and a reader's search find the labels).
//! Values spanning more than [`LOG_SPAN`] are drawn on a log scale (ls
//! -l's cold and warm runs differ by a factor of 1,000); the axis label
//! says so.

use crate::chart::{Bar, Chart};
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Largest / smallest value above which the y axis is logarithmic.
const LOG_SPAN: f64 = 50.0;
const WIDTH: u32 = 900;
/// The whiskers' stroke width: wider than the axes' ticks, so a reader
/// (and the tests) can tell a spread from the frame.
pub const WHISKER: u32 = 2;
const HEIGHT: u32 = 420;
/// Series colours: Conflux's configurations first (blues, greens),
/// Linux's last in the table order, so they get the warm ones.
const COLOURS: [RGBColor; 8] = [
    RGBColor(120, 144, 176),
    RGBColor(46, 94, 170),
    RGBColor(20, 150, 110),
    RGBColor(224, 122, 40),
    RGBColor(196, 60, 60),
    RGBColor(140, 90, 170),
    RGBColor(90, 90, 90),
    RGBColor(180, 160, 40),
];

/// A number in a few characters: 474, 13.3k, 2.4M, 175G.
pub fn compact(v: f64) -> String {
    let a = v.abs();
    let (div, suffix) = match a {
        _ if a >= 1e9 => (1e9, "G"),
        _ if a >= 1e6 => (1e6, "M"),
        _ if a >= 1e4 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let x = v / div;
    let text = if suffix.is_empty() && a < 100.0 && x.fract() != 0.0 {
        format!("{x:.2}")
    } else if x.abs() >= 100.0 || suffix.is_empty() {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    };
    // 1.0G reads better as 1G.
    format!("{}{suffix}", text.strip_suffix(".0").unwrap_or(&text))
}

/// The y axis' top: the tallest bar plus room for the legend in the
/// upper right, which is about 20 pixels per series (as a share `f` of
/// the plot's height, on a linear or a log axis starting at `bottom`).
fn top(bottom: f64, hi: f64, series: usize, log: bool) -> f64 {
    let plot_px = f64::from(HEIGHT) - 80.0;
    let f = ((20.0 * series as f64 + 24.0) / plot_px).min(0.6);
    if log {
        ((hi.ln() - f * bottom.ln()) / (1.0 - f)).exp()
    } else {
        bottom + (hi - bottom) / (1.0 - f)
    }
}

/// The SVG text of `chart`.
pub fn render(chart: &Chart) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let Some((lo, hi)) = chart.extent() else {
            return Err(format!("chart `{}` has no values to draw", chart.title));
        };
        let n = chart.categories.len().max(1) as f64;
        let mut builder = ChartBuilder::on(&root);
        builder
            .caption(&chart.title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(72);
        if lo > 0.0 && hi / lo > LOG_SPAN {
            let bottom = lo / 2.0;
            let y = (bottom..top(bottom, hi, chart.series.len(), true)).log_scale();
            let mut c = builder
                .build_cartesian_2d(0f64..n, y)
                .map_err(|e| e.to_string())?;
            draw(
                &root,
                &mut c,
                chart,
                lo / 2.0,
                &format!("{} (log scale)", chart.y_label),
            )
        } else {
            let base = lo.min(0.0);
            let mut c = builder
                .build_cartesian_2d(0f64..n, base..top(base, hi, chart.series.len(), false))
                .map_err(|e| e.to_string())?;
            draw(&root, &mut c, chart, base, &chart.y_label)
        }?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Mesh, bars, whiskers, category labels and legend on a built chart
/// whose y axis starts at `base`.
fn draw<'a, Y>(
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    c: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, Y>>,
    chart: &Chart,
    base: f64,
    y_label: &str,
) -> Result<(), String>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    c.configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(y_label)
        .y_label_formatter(&|v| compact(*v))
        .draw()
        .map_err(|e| e.to_string())?;
    let count = chart.series.len().max(1) as f64;
    let width = 0.8 / count;
    for (s, series) in chart.series.iter().enumerate() {
        let colour = COLOURS[s % COLOURS.len()];
        let left = |i: usize| i as f64 + 0.1 + s as f64 * width;
        let bars = series
            .bars
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.map(|b| (i, b)));
        c.draw_series(bars.clone().map(|(i, b): (usize, Bar)| {
            Rectangle::new(
                [(left(i), base), (left(i) + width, b.value)],
                colour.filled(),
            )
        }))
        .map_err(|e| e.to_string())?
        .label(series.name.as_str())
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
        let whiskers = bars.filter_map(|(i, b)| b.spread.map(|s| (i, s)));
        c.draw_series(whiskers.map(|(i, (lo, hi))| {
            let mid = left(i) + width / 2.0;
            PathElement::new(vec![(mid, lo), (mid, hi)], BLACK.stroke_width(WHISKER))
        }))
        .map_err(|e| e.to_string())?;
    }
    let style =
        TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, name) in chart.categories.iter().enumerate() {
        let (x, y) = c.backend_coord(&(i as f64 + 0.5, base));
        root.draw(&Text::new(name.as_str(), (x, y + 6), style.clone()))
            .map_err(|e| e.to_string())?;
    }
    c.configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_gets_room_above_the_bars() {
        // Five series take (124 / 340) of the height above the bars.
        let linear = top(0.0, 100.0, 5, false);
        assert!(
            (linear - 100.0 / (1.0 - 124.0 / 340.0)).abs() < 1e-9,
            "{linear}"
        );
        let log = top(10.0, 1000.0, 5, true);
        let share = (log / 1000.0).ln() / (log / 10.0).ln();
        assert!((share - 124.0 / 340.0).abs() < 1e-9, "{share}");
    }

    #[test]
    fn numbers_are_compact() {
        assert_eq!(compact(474.0), "474");
        assert_eq!(compact(13_307.0), "13.3k");
        assert_eq!(compact(175_146_756_235.0), "175G");
        assert_eq!(compact(2_386_268.0), "2.4M");
        assert_eq!(compact(1.48), "1.48");
        assert_eq!(compact(1e9), "1G");
        assert_eq!(compact(10e9), "10G");
    }
}
