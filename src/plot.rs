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

fn canvas(path: &Path) -> Result<DrawingArea<SVGBackend<'_>, Shift>, io::Error> {
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    Ok(root)
}

/// A bar chart of `counts[i]` for `i = 0, 1, …` (log scale when the counts span many orders).
pub fn bar_chart(path: &Path, title: &str, x_label: &str, y_label: &str, counts: &[u64]) -> io::Result<()> {
    let root = canvas(path)?;
    let max = counts.iter().copied().max().unwrap_or(1).max(1);
    let n = counts.len().max(1) as u32;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(90)
        .build_cartesian_2d((0u32..n).into_segmented(), 0u64..max + max / 20 + 1)
        .map_err(err)?;
    chart.configure_mesh().x_desc(x_label).y_desc(y_label).disable_x_mesh().draw().map_err(err)?;
    chart
        .draw_series(
            Histogram::vertical(&chart)
                .style(RGBColor(52, 101, 164).filled())
                .margin(1)
                .data(counts.iter().enumerate().map(|(i, &c)| (i as u32, c))),
        )
        .map_err(err)?;
    root.present().map_err(err)
}

/// A scatter plot of `(x, y)` points with a logarithmic y axis.
pub fn scatter_log_y(path: &Path, title: &str, x_label: &str, y_label: &str, points: &[(f64, f64)]) -> io::Result<()> {
    let root = canvas(path)?;
    let positive: Vec<(f64, f64)> = points.iter().copied().filter(|&(_, y)| y > 0.0).collect();
    let x_max = positive.iter().map(|p| p.0).fold(1.0, f64::max);
    let y_min = positive.iter().map(|p| p.1).fold(f64::INFINITY, f64::min).min(1.0);
    let y_max = positive.iter().map(|p| p.1).fold(0.0, f64::max).max(y_min * 10.0);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(90)
        .build_cartesian_2d(0.0..x_max * 1.05, (y_min / 2.0..y_max * 2.0).log_scale())
        .map_err(err)?;
    chart.configure_mesh().x_desc(x_label).y_desc(y_label).draw().map_err(err)?;
    chart
        .draw_series(positive.iter().map(|&(x, y)| Circle::new((x, y), 3, RGBColor(204, 0, 0).mix(0.6).filled())))
        .map_err(err)?;
    root.present().map_err(err)
}

/// The charts of a results file, written into `dir`: `moves_histogram.svg` (solved puzzles per
/// solution length), `time_vs_moves.svg` and `nodes_vs_moves.svg`. Returns the paths written.
pub fn results_charts(rows: &[Row], dir: &Path) -> io::Result<Vec<PathBuf>> {
    let solved: Vec<&Row> = rows.iter().filter(|r| r.status == "solved").collect();
    let longest = solved.iter().filter_map(|r| r.moves).max().unwrap_or(0) as usize;
    let mut histogram = vec![0u64; longest + 1];
    for m in solved.iter().filter_map(|r| r.moves) {
        histogram[m as usize] += 1;
    }
    let paths = [dir.join("moves_histogram.svg"), dir.join("time_vs_moves.svg"), dir.join("nodes_vs_moves.svg")];
    let title = |what: &str| format!("{what} ({} solved puzzles)", solved.len());
    bar_chart(&paths[0], &title("solution lengths"), "moves", "puzzles", &histogram)?;
    let points = |f: &dyn Fn(&Row) -> f64| -> Vec<(f64, f64)> {
        solved.iter().filter_map(|r| r.moves.map(|m| (m as f64, f(r)))).collect()
    };
    scatter_log_y(&paths[1], &title("time vs moves"), "moves", "seconds", &points(&|r| r.wall_s))?;
    scatter_log_y(
        &paths[2],
        &title("nodes expanded vs moves"),
        "moves",
        "nodes expanded",
        &points(&|r| r.nodes_expanded as f64),
    )?;
    Ok(paths.to_vec())
}
