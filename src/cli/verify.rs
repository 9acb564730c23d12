//! `slidesolve verify`: replays a solution on the puzzle model.

use super::args::{PuzzleArgs, load, report_load_error};
use super::{EXIT_BAD_INPUT, EXIT_OK, EXIT_OTHER};
use anyhow::{Context, Result};
use clap::Args;
use slidesolve::solution::parse_solution;
use slidesolve::verify::verify;

/// Arguments of `verify`.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// The solution: a file, `-` for standard input, or the moves themselves ('A:R2 B:DL').
    solution: String,
}

/// Runs `verify` and returns the exit code.
pub fn run(args: VerifyArgs) -> Result<i32> {
    let parsed = match load(&args.puzzle, None) {
        Ok(p) => p,
        Err(e) => return Ok(report_load_error(e)),
    };
    let text = if args.solution == "-" {
        std::io::read_to_string(std::io::stdin()).context("cannot read the solution from standard input")?
    } else if std::path::Path::new(&args.solution).is_file() {
        std::fs::read_to_string(&args.solution).with_context(|| format!("cannot read {}", args.solution))?
    } else {
        args.solution.clone()
    };
    let moves = match parse_solution(&parsed.puzzle, &text) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: solution: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    match verify(&parsed.puzzle, &moves) {
        Ok(_) => {
            println!("valid: {} moves reach the goal ({} metric)", moves.len(), parsed.puzzle.metric);
            Ok(EXIT_OK)
        }
        Err(e) => {
            println!("invalid: {e}");
            Ok(EXIT_OTHER)
        }
    }
}
