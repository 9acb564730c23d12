//! `slidesolve solve`: one puzzle, one optimal (or best-effort) solution.

use super::args::{PuzzleArgs, SearchArgs, load, report_load_error};
use super::output;
use super::stdio::{out, outln};
use super::{EXIT_OK, EXIT_OTHER, EXIT_UNSOLVABLE, bad_input};
use anyhow::Result;
use clap::Args;
use slidesolve::search::with_threads;
use slidesolve::solve::{Status, solve};
use std::time::Instant;

/// Arguments of `solve`.
#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    #[command(flatten)]
    search: SearchArgs,
    /// Print the board after every move.
    #[arg(long)]
    show: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `solve` and returns the exit code.
pub fn run(args: SolveArgs) -> Result<i32> {
    let parsed = match load(&args.puzzle, args.search.max_memory) {
        Ok(p) => p,
        Err(e) => return report_load_error(e),
    };
    let mut options = args.search.options();
    options.limits.deadline = args.search.timeout.map(|t| Instant::now() + t);
    let report = match with_threads(args.search.engine.threads, || solve(&parsed.puzzle, &options)) {
        Ok(r) => r,
        Err(e) => return Ok(bad_input(format!("{}: {e}", args.puzzle.file.display()))),
    };
    let file = args.puzzle.file.display().to_string();
    let view = output::SolveView { file: &file, parsed: &parsed, report: &report, algo: args.search.algo };
    if args.json {
        outln!("{}", view.json())?;
    } else {
        out!("{}", view.text(args.show))?;
    }
    Ok(match report.status {
        Status::Solved => EXIT_OK,
        Status::Unsolvable => EXIT_UNSOLVABLE,
        Status::Timeout | Status::Limit | Status::Error => EXIT_OTHER,
    })
}
