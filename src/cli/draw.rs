//! `slidesolve draw`: a picture (SVG) of a puzzle's start position.

use super::args::{Purpose, PuzzleArgs, load, report_load_error};
use super::stdio::errln;
use super::{EXIT_OK, bad_input, write_file};
use anyhow::Result;
use clap::Args;
use slidesolve::{memory, render};
use std::path::PathBuf;

/// Arguments of `draw`.
#[derive(Args)]
pub struct DrawArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Where to write the SVG.
    #[arg(long)]
    out: PathBuf,
    /// Draw the goal layout beside the start (when the goal is a full layout).
    #[arg(long)]
    goal_beside: bool,
}

/// Runs `draw` and returns the exit code.
pub fn run(args: DrawArgs) -> Result<i32> {
    let parsed = match load(&args.puzzle, None, Purpose::Check) {
        Ok(p) => p,
        Err(e) => return report_load_error(e),
    };
    let puzzle = &parsed.puzzle;
    let (svg, beside) = match render::start_still(puzzle, args.goal_beside, memory::limit(None)) {
        Ok(drawn) => drawn,
        Err(e) => return Ok(bad_input(format!("{}: {e}", args.puzzle.file.display()))),
    };
    if args.goal_beside && !beside {
        errln!("note: the goal is not a full layout, so only the start is drawn");
    }
    write_file(&args.out, &svg)?;
    Ok(EXIT_OK)
}
