//! `slidesolve solve`: one puzzle, one optimal (or best-effort) solution.

use super::args::{Purpose, PuzzleArgs, SearchArgs, bytes_of, load, memory_budget, report_load_error};
use super::output;
use super::stdio::errln;
use super::stdio::{out, outln};
use super::{EXIT_OK, EXIT_OTHER, EXIT_UNSOLVABLE, bad_input, write_file};
use anyhow::{Context, Result};
use clap::Args;
use slidesolve::memory::{self, TooLarge};
use slidesolve::puzzle::Puzzle;
use slidesolve::render;
use slidesolve::search::with_threads;
use slidesolve::solution::Move;
use slidesolve::solve::{Status, solve};
use std::path::PathBuf;
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
    /// Write the solution as a looping SVG animation to this file.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Write one SVG still per step (step-000.svg, ...) into this directory.
    #[arg(long)]
    frames: Option<PathBuf>,
}

/// Runs `solve` and returns the exit code.
pub fn run(args: SolveArgs) -> Result<i32> {
    let parsed = match load(&args.puzzle, memory_budget(args.search.limits.max_memory.as_ref(), 1), Purpose::Solve) {
        Ok(p) => p,
        Err(e) => return report_load_error(e),
    };
    let mut options = args.search.options();
    options.limits = args.search.limits.limits(Some(Instant::now()));
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
    if (args.svg.is_some() || args.frames.is_some())
        && let Err(e) = draw(&parsed.puzzle, report.moves.as_deref(), &args)?
    {
        return Ok(bad_input(format!("{}: {e}", args.puzzle.file.display())));
    }
    Ok(match report.status {
        Status::Solved => EXIT_OK,
        Status::Unsolvable => EXIT_UNSOLVABLE,
        Status::Timeout | Status::Limit | Status::Error => EXIT_OTHER,
    })
}

/// Writes the pictures `--svg` and `--frames` ask for, or says why there are none; those that would
/// not fit in the memory budget are checked before any is drawn, and refused (the inner error).
fn draw(puzzle: &Puzzle, moves: Option<&[Move]>, args: &SolveArgs) -> Result<Result<(), TooLarge>> {
    let Some(moves) = moves else {
        errln!("note: no solution, so no pictures were written");
        return Ok(Ok(()));
    };
    let limit = memory::limit(bytes_of(&args.search.limits.max_memory));
    let pictures = [
        (
            args.svg.is_some(),
            format!("an animation of a {}-move solution", moves.len()),
            render::animation_bytes(puzzle, moves),
        ),
        (
            args.frames.is_some(),
            format!("{} frames of a {}-move solution", moves.len() + 1, moves.len()),
            render::frames_bytes(puzzle, moves),
        ),
    ];
    for (wanted, what, bytes) in pictures {
        if wanted && let Err(e) = memory::check(|| what, bytes, limit) {
            return Ok(Err(e));
        }
    }
    if let Some(path) = &args.svg {
        write_file(path, &render::animation(puzzle, moves)?)?;
    }
    if let Some(dir) = &args.frames {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let frames = render::frames(puzzle, moves)?;
        for (k, svg) in frames.iter().enumerate() {
            write_file(&dir.join(format!("step-{k:03}.svg")), svg)?;
        }
        remove_stale_frames(dir, frames.len())?;
    }
    Ok(Ok(()))
}

/// Removes the frames `step-K.svg` with `K >= count` that an earlier, longer solution left in `dir`
/// (other files stay), so that the directory holds this solution's frames alone.
fn remove_stale_frames(dir: &std::path::Path, count: usize) -> Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for entry in entries {
        let path = entry.with_context(|| format!("cannot read {}", dir.display()))?.path();
        let step =
            path.file_name().and_then(|n| n.to_str()?.strip_prefix("step-")?.strip_suffix(".svg").map(str::to_string));
        let stale = step.is_some_and(|k| {
            k.len() >= 3 && k.bytes().all(|b| b.is_ascii_digit()) && k.parse::<usize>().map_or(true, |k| k >= count)
        });
        if stale {
            std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok(())
}
