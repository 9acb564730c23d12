//! `slidesolve plot`: SVG charts of a results CSV.

use super::EXIT_OK;
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

/// Runs `plot` and returns the exit code.
pub fn run(args: PlotArgs) -> Result<i32> {
    let rows = read_rows(&args.csv)?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let written = slidesolve::plot::results_charts(&rows, &args.out)?;
    for path in written {
        println!("{}", path.display());
    }
    Ok(EXIT_OK)
}
