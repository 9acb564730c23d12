//! `slidesolve verify`: replays a solution on the puzzle model.

use super::args::{PuzzleArgs, load, report_load_error};
use super::stdio::outln;
use super::{EXIT_OK, EXIT_OTHER, bad_input};
use anyhow::{Context, Result};
use clap::Args;
use slidesolve::solution::parse_solution;
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
    let parsed = match load(&args.puzzle, None) {
        Ok(p) => p,
        Err(e) => return report_load_error(e),
    };
    let solution = &args.solution;
    let text = if solution == "-" {
        std::io::read_to_string(std::io::stdin()).context("cannot read the solution from standard input")?
    } else if Path::new(solution).exists() || looks_like_path(solution) {
        match std::fs::read_to_string(solution) {
            Ok(text) => text,
            Err(e) => return Ok(bad_input(format!("cannot read {solution}: {e}"))),
        }
    } else {
        solution.clone()
    };
    let moves = match parse_solution(&parsed.puzzle, &text) {
        Ok(m) => m,
        Err(e) => {
            return Ok(bad_input(format!("solution: {e}")));
        }
    };
    match verify(&parsed.puzzle, &moves) {
        Ok(_) => {
            outln!("valid: {} moves reach the goal ({} metric)", moves.len(), parsed.puzzle.metric)?;
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
