//! `slidesolve verify`: replays a solution on the puzzle model.

use super::args::{Purpose, PuzzleArgs, load, report_load_error};
use super::stdio::outln;
use super::{EXIT_OK, EXIT_OTHER, bad_input};
use anyhow::Result;
use clap::Args;
use slidesolve::format::{read_bounded, read_file};
use slidesolve::plural::Count;
use slidesolve::solution::moves;
use slidesolve::verify::verify;
use std::path::Path;

/// Arguments of `verify`.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// The solution: a file, `-` for standard input, or the moves themselves ('A:R2 B:DL'). An
    /// argument that names no file but looks like a path (it holds a `/` or ends in .txt, .sol,
    /// .out or .moves) is reported as a file that cannot be read, not parsed as moves.
    solution: String,
}

/// Runs `verify` and returns the exit code.
pub fn run(args: VerifyArgs) -> Result<i32> {
    let parsed = match load(&args.puzzle, None, Purpose::Check) {
        Ok(p) => p,
        Err(e) => return report_load_error(e),
    };
    let solution = &args.solution;
    // A solution file is read whole but within the memory budget; its moves are never all held
    // (each can be a path as long as the board has cells): they are read once to find any that
    // cannot be read, then read again and replayed one at a time.
    let read = if solution == "-" {
        read_bounded(std::io::stdin().lock(), None, None).map(|bytes| ("standard input", bytes))
    } else if Path::new(solution).exists() || looks_like_path(solution) {
        read_file(Path::new(solution), None).map(|bytes| (solution.as_str(), bytes))
    } else {
        // Moves given on the command line are named as such in errors; files by their path.
        Ok(("solution", solution.clone().into_bytes()))
    };
    let (name, bytes) = match read {
        Ok(read) => read,
        Err(e) if solution == "-" => {
            return Ok(bad_input(format!("cannot read the solution from standard input: {e}")));
        }
        Err(e) => return Ok(bad_input(format!("cannot read {solution}: {e}"))),
    };
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(e) => {
            return Ok(bad_input(format!(
                "cannot read {name}: not a text file (invalid UTF-8 at byte {})",
                e.valid_up_to()
            )));
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Err(e) = moves(&parsed.puzzle, text).try_for_each(|mv| mv.map(drop)) {
        return Ok(bad_input(format!("{name}: {e}")));
    }
    // Every move reads (checked above), so `flatten` drops nothing.
    match verify(&parsed.puzzle, moves(&parsed.puzzle, text).flatten()) {
        Ok((_, count)) => {
            outln!("valid: the goal is reached in {} ({} metric)", Count(count, "move"), parsed.puzzle.metric)?;
            Ok(EXIT_OK)
        }
        Err(e) => {
            outln!("invalid: {e}")?;
            Ok(EXIT_OTHER)
        }
    }
}

/// Whether a solution argument is meant as a file: moves never hold a `/` and never end in a
/// file extension.
fn looks_like_path(solution: &str) -> bool {
    let extension = Path::new(solution).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    solution.contains('/') || matches!(extension.as_deref(), Some("txt" | "sol" | "out" | "moves"))
}
