//! `slidesolve gen`: seeded random puzzles.

use super::args::parse_dims;
use super::{EXIT_BAD_INPUT, EXIT_OK};
use anyhow::Result;
use clap::{Args, Subcommand};
use slidesolve::format;
use slidesolve::generate::{TileSampling, random_tiles};

/// The kinds of puzzle `gen` makes.
#[derive(Subcommand)]
pub enum GenCommand {
    /// Random sliding-tile puzzles, one per line (after a `size: RxC` line).
    Tiles(GenTilesArgs),
}

/// Arguments of `gen tiles`.
#[derive(Args)]
pub struct GenTilesArgs {
    /// Board size, R rows by C columns (e.g. 3x3, 4x4, 2x5).
    #[arg(value_parser = parse_dims)]
    size: (usize, usize),
    /// Number of puzzles.
    #[arg(long, default_value_t = 1)]
    count: usize,
    /// Random seed (the same seed gives the same puzzles on every machine).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Draw by a random walk of this many moves from the goal instead of uniformly.
    #[arg(long, value_name = "MOVES")]
    walk: Option<usize>,
    /// Goal layout (default: 1…N-1 then the blank; or blank-first).
    #[arg(long)]
    goal: Option<String>,
}

/// Runs `gen` and returns the exit code.
pub fn run(command: GenCommand) -> Result<i32> {
    match command {
        GenCommand::Tiles(args) => run_tiles(args),
    }
}

/// Runs `gen tiles` and returns the exit code.
fn run_tiles(args: GenTilesArgs) -> Result<i32> {
    let (rows, cols) = args.size;
    if rows < 2 || cols < 2 {
        eprintln!("error: gen tiles needs a board of at least 2x2");
        return Ok(EXIT_BAD_INPUT);
    }
    let standard = format::tiles::TileLayout::blank_last(rows, cols);
    let goal = match &args.goal {
        Some(g) => match format::tiles::parse_goal(g, &standard, 0) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("error: --goal: {e}");
                return Ok(EXIT_BAD_INPUT);
            }
        },
        None => standard,
    };
    let sampling = args.walk.map_or(TileSampling::Uniform, TileSampling::Walk);
    let how = match sampling {
        TileSampling::Uniform => "uniform over solvable layouts".to_string(),
        TileSampling::Walk(k) => format!("random walk of {k} moves from the goal"),
    };
    let mut out = format!("; slidesolve gen tiles {rows}x{cols} --count {} --seed {} ({how})\n", args.count, args.seed);
    out.push_str(&format!("size: {rows}x{cols}\n"));
    if args.goal.is_some() {
        let cells: Vec<String> = goal.cells.iter().map(u32::to_string).collect();
        out.push_str(&format!("goal: {}\n", cells.join(" ")));
    }
    for layout in random_tiles(&goal, args.count, args.seed, sampling) {
        let cells: Vec<String> = layout.cells.iter().map(u32::to_string).collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
    }
    print!("{out}");
    Ok(EXIT_OK)
}
