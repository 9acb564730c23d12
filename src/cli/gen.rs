//! `slidesolve gen`: seeded random puzzles.

use super::args::parse_board;
use super::stdio::{outln, stdout_closed};
use super::{EXIT_OK, bad_input};
use anyhow::Result;
use clap::{Args, Subcommand};
use slidesolve::format;
use slidesolve::generate::{TileSampling, random_tile_stream};
use slidesolve::memory;

/// The largest board `gen tiles` draws (e.g. 1024x1024): `solve --algo constructive` takes any
/// size, and this keeps one puzzle's line under about 8 MB.
const GEN_MAX_CELLS: usize = 1 << 20;

/// Bytes per cell while one layout is drawn and written: the layout and the goal (4 bytes a
/// cell each), the parity check's two index arrays (8 each) and the text (at most 8).
const GEN_BYTES_PER_CELL: u64 = 32;

/// The kinds of puzzle `gen` makes.
#[derive(Subcommand)]
pub enum GenCommand {
    /// Random sliding-tile puzzles, one per line (after a `size: RxC` line).
    Tiles(GenTilesArgs),
}

/// Arguments of `gen tiles`.
#[derive(Args)]
pub struct GenTilesArgs {
    /// Board size, R rows by C columns, each at least 2, at most 1048576 cells (e.g. 3x3, 4x4, 2x5;
    /// big boards such as 1000x1000 are for --algo constructive).
    #[arg(value_parser = |s: &str| parse_board(s, (2, GEN_MAX_CELLS), "gen tiles"))]
    size: (usize, usize),
    /// Number of puzzles.
    #[arg(long, default_value_t = 1)]
    count: usize,
    /// Random seed (the same seed gives the same puzzles on every machine).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Draw by a random walk of this many moves from the goal instead of uniformly (at most
    /// 1000000000: about 10-25 s a puzzle).
    #[arg(long, value_name = "MOVES", value_parser = parse_walk)]
    walk: Option<usize>,
    /// Goal layout (default: 1…N-1 then the blank; or blank-first).
    #[arg(long)]
    goal: Option<String>,
}

/// The longest `--walk`: a walk takes about 10-25 ns a move, so a puzzle ends within half a minute.
const MAX_WALK: usize = 1_000_000_000;

/// Parses `--walk`: a number of moves from 0 to [`MAX_WALK`].
fn parse_walk(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(moves) if moves <= MAX_WALK => Ok(moves),
        _ => Err(format!("a walk is a number of moves from 0 to {MAX_WALK}")),
    }
}

/// Runs `gen` and returns the exit code.
pub fn run(command: GenCommand) -> Result<i32> {
    match command {
        GenCommand::Tiles(args) => run_tiles(args),
    }
}

/// Runs `gen tiles` and returns the exit code; the puzzles are written one by one as they are
/// drawn, and drawing stops when standard output's reader goes away.
fn run_tiles(args: GenTilesArgs) -> Result<i32> {
    let (rows, cols) = args.size;
    let bytes = memory::product(&[rows, cols], GEN_BYTES_PER_CELL);
    if let Err(e) = memory::check(|| format!("a {rows}x{cols} tile layout"), bytes, memory::limit(None)) {
        return Ok(bad_input(format!("gen tiles: {e}")));
    }
    let standard = format::tiles::TileLayout::blank_last(rows, cols);
    let goal = match &args.goal {
        Some(g) => match format::tiles::parse_goal(g, &standard, 0) {
            Ok(g) => g,
            Err(e) => return Ok(bad_input(format!("--goal: {e}"))),
        },
        None => standard,
    };
    let sampling = args.walk.map_or(TileSampling::Uniform, TileSampling::Walk);
    let how = match sampling {
        TileSampling::Uniform => "uniform over solvable layouts".to_string(),
        TileSampling::Walk(k) => format!("random walk of {k} moves from the goal"),
    };
    let line = |cells: &[u32]| cells.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
    outln!("; slidesolve gen tiles {rows}x{cols} --count {} --seed {} ({how})", args.count, args.seed)?;
    outln!("size: {rows}x{cols}")?;
    if args.goal.is_some() {
        outln!("goal: {}", line(&goal.cells))?;
    }
    for layout in random_tile_stream(&goal, args.seed, sampling).take(args.count) {
        if stdout_closed() {
            break;
        }
        outln!("{}", line(&layout.cells))?;
    }
    Ok(EXIT_OK)
}
