//! `slidesolve plot`: SVG charts of a results CSV.

use super::stdio::outln;
use super::{EXIT_OK, bad_input};
use anyhow::{Context, Result};
use clap::Args;
use slidesolve::batch::record::read_rows;
use std::path::PathBuf;

/// Arguments of `plot`.
#[derive(Args)]
pub struct PlotArgs {
    /// A results CSV.
    csv: PathBuf,
    /// Directory for the SVG files (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// Runs `plot` and returns the exit code; a CSV that is missing, unreadable or without rows is bad
/// input, and nothing is written for it.
pub fn run(args: PlotArgs) -> Result<i32> {
    let csv = args.csv.display();
    // read_rows takes a missing file as an empty one (a run not started yet); here it is an error.
    if let Err(e) = std::fs::File::open(&args.csv) {
        return Ok(bad_input(format!("cannot read {csv}: {e}")));
    }
    let rows = match read_rows(&args.csv) {
        Ok(rows) if rows.is_empty() => return Ok(bad_input(format!("{csv}: no result rows in it"))),
        Ok(rows) => rows,
        Err(e) => return Ok(bad_input(e)),
    };
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let written = slidesolve::plot::results_charts(&rows, &args.out)?;
    for path in written {
        outln!("{}", path.display())?;
    }
    Ok(EXIT_OK)
}
