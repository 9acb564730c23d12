//! SVG charts (with the `plotters` crate): the charts of a batch results file and the layer
//! table of an enumeration.

use crate::batch::record::Row;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::io;
use std::path::{Path, PathBuf};

const SIZE: (u32, u32) = (900, 560);

fn err(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("cannot draw the chart: {e}"))
}

/// The chart `draw` draws on a white canvas, written as the whole SVG file at `path` (complete or
/// not at all: [`crate::format::write_whole`]).
fn chart_file(path: &Path, draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> io::Result<()>) -> io::Result<()> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(&root)?;
        root.present().map_err(err)?;
    }
    crate::format::write_whole(path, |out| out.write_all(svg.as_bytes()))
}

/// The most bars a bar chart draws: a longer range is drawn in bars of several values each.
const MOST_BARS: u64 = 200;

/// The values a bar covers when `values` values (0, 1, …) are drawn: 1, or more for a range
/// longer than 200 values (`MOST_BARS`).
pub fn bar_width(values: u64) -> u64 {
    values.div_ceil(MOST_BARS).max(1)
}

/// `counts` (of the values 0, 1, …) summed into bars of [`bar_width`] values each, and that width.
pub fn per_bar(counts: &[u64]) -> (Vec<u64>, u64) {
    let width = bar_width(counts.len() as u64);
    (counts.chunks(width as usize).map(|c| c.iter().sum()).collect(), width)
}

/// A bar chart: bar `i` is the count of the values `i * width .. (i + 1) * width` (log scale when
/// the counts span many orders), labelled by its first value.
pub fn bar_chart(
    path: &Path,
    title: &str,
    (x_label, y_label): (&str, &str),
    counts: &[u64],
    width: u64,
) -> io::Result<()> {
    chart_file(path, |root| {
        let max = counts.iter().copied().max().unwrap_or(1).max(1);
        let n = counts.len().max(1) as u32;
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(90)
            .build_cartesian_2d((0u32..n).into_segmented(), 0u64..max.saturating_add(max / 20 + 1))
            .map_err(err)?;
        let first_value = |v: &SegmentValue<u32>| match v {
            SegmentValue::Exact(i) | SegmentValue::CenterOf(i) => (*i as u64).saturating_mul(width).to_string(),
            SegmentValue::Last => String::new(),
        };
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .x_label_formatter(&first_value)
            .disable_x_mesh()
            .draw()
            .map_err(err)?;
        chart
            .draw_series(
                Histogram::vertical(&chart)
                    .style(RGBColor(52, 101, 164).filled())
                    .margin(1)
                    .data(counts.iter().enumerate().map(|(i, &c)| (i as u32, c))),
            )
            .map_err(err)?;
        Ok(())
    })
}

/// A tick label: at most six significant digits, without the float noise of a step that is not
/// exact in binary (`0.3`, not `0.30000000000000004`), in exponent form beyond 10^-3..10^7.
pub fn tick_label(v: &f64) -> String {
    let magnitude = v.abs();
    if magnitude != 0.0 && !(1e-3..1e7).contains(&magnitude) {
        return format!("{v:.2e}").replace(".00e", "e").replace("0e", "e");
    }
    let digits = (5 - magnitude.log10().floor().max(0.0) as i32).max(0) as usize;
    let text = format!("{v:.digits$}");
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    if text == "-0" { "0".into() } else { text.into() }
}

/// A scatter plot of `(x, y)` points with a logarithmic y axis; `title` is given the number of
/// points it cannot draw (a y of 0 or below, or a value beyond the axes).
pub fn scatter_log_y(
    path: &Path,
    title: impl Fn(usize) -> String,
    x_label: &str,
    y_label: &str,
    points: &[(f64, f64)],
) -> io::Result<()> {
    chart_file(path, |root| {
        // Points the axes can hold: positive, and finite with the axes' margins (an `inf` or a
        // `1e308` read from a results file would leave no range to draw).
        let drawable = |(x, y): (f64, f64)| (x * 1.05).is_finite() && y > 0.0 && (y * 2.0).is_finite() && y / 2.0 > 0.0;
        let positive: Vec<(f64, f64)> = points.iter().copied().filter(|&p| drawable(p)).collect();
        let x_max = positive.iter().map(|p| p.0).fold(1.0, f64::max);
        let y_min = positive.iter().map(|p| p.1).fold(f64::INFINITY, f64::min).min(1.0);
        let y_max = positive.iter().map(|p| p.1).fold(0.0, f64::max).max(y_min * 10.0);
        let mut chart = ChartBuilder::on(root)
            .caption(title(points.len() - positive.len()), ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(90)
            .build_cartesian_2d(0.0..x_max * 1.05, (y_min / 2.0..y_max * 2.0).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .x_label_formatter(&tick_label)
            .y_label_formatter(&tick_label)
            .draw()
            .map_err(err)?;
        chart
            .draw_series(positive.iter().map(|&(x, y)| Circle::new((x, y), 3, RGBColor(204, 0, 0).mix(0.6).filled())))
            .map_err(err)?;
        Ok(())
    })
}

/// The charts of a results file, written into `dir`: `moves_histogram.svg` (solved puzzles per
/// solution length), `time_vs_moves.svg` and `nodes_vs_moves.svg`. Returns the paths written.
pub fn results_charts(rows: &[Row], dir: &Path) -> io::Result<Vec<PathBuf>> {
    let solved: Vec<&Row> = rows.iter().filter(|r| r.status == "solved").collect();
    let longest = solved.iter().filter_map(|r| r.moves).max().unwrap_or(0);
    let width = bar_width(longest.saturating_add(1));
    let mut histogram = vec![0u64; (longest / width + 1) as usize];
    for m in solved.iter().filter_map(|r| r.moves) {
        histogram[(m / width) as usize] += 1;
    }
    let paths = [dir.join("moves_histogram.svg"), dir.join("time_vs_moves.svg"), dir.join("nodes_vs_moves.svg")];
    let count = solved.len();
    let title = |what: &'static str| {
        move |left_out: usize| match left_out {
            0 => format!("{what} ({count} solved puzzles)"),
            n => format!("{what} ({count} solved puzzles, {n} not drawn: 0 or beyond the log scale)"),
        }
    };
    bar_chart(&paths[0], &title("solution lengths")(0), ("moves", "puzzles"), &histogram, width)?;
    let points = |f: &dyn Fn(&Row) -> f64| -> Vec<(f64, f64)> {
        solved.iter().filter_map(|r| r.moves.map(|m| (m as f64, f(r)))).collect()
    };
    scatter_log_y(&paths[1], title("time vs moves"), "moves", "seconds", &points(&|r| r.wall_s))?;
    scatter_log_y(
        &paths[2],
        title("nodes expanded vs moves"),
        "moves",
        "nodes expanded",
        &points(&|r| r.nodes_expanded as f64),
    )?;
    Ok(paths.to_vec())
}

#[cfg(test)]
mod tests {
    use super::tick_label;

    #[test]
    fn tick_labels_are_short() {
        let cases = [
            (0.30000000000000004, "0.3"),
            (0.0, "0"),
            (-0.0, "0"),
            (1500.0, "1500"),
            (12345.6, "12345.6"),
            (0.00125, "0.00125"),
            (1e-5, "1e-5"),
            (2.5e8, "2.5e8"),
            (1.25e-7, "1.25e-7"),
        ];
        for (v, label) in cases {
            assert_eq!(tick_label(&v), label, "{v}");
        }
    }
}
