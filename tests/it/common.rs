//! Helpers shared by the integration tests.
#![allow(dead_code)]

use slidesolve::format::{self, ParseOptions, Parsed};
use slidesolve::search::frontier::EngineOptions;
use slidesolve::search::visited::Backend;
use slidesolve::solve::{Algo, Report, SolveOptions, Status, solve};
use slidesolve::verify::verify;
use std::path::Path;

/// Parses a corpus file with format detection.
pub fn load(path: &str) -> Parsed {
    let text = std::fs::read_to_string(path).unwrap();
    let fmt = format::detect(Some(Path::new(path)), &text);
    format::parse(fmt, &text, &ParseOptions::default()).unwrap()
}

/// Solves with the given algorithm, backend and thread count; asserts any solution verifies.
pub fn solve_with(parsed: &Parsed, algo: Algo, backend: Backend, threads: usize) -> Report {
    let options =
        SolveOptions { algo, engine: EngineOptions { backend, ..EngineOptions::default() }, ..SolveOptions::default() };
    let report = slidesolve::search::with_threads(threads, || solve(&parsed.puzzle, &options)).unwrap();
    if let Some(moves) = &report.moves {
        verify(&parsed.puzzle, moves).unwrap();
    }
    report
}

/// Solves with the default BFS and returns the move count (asserting it was solved).
pub fn optimum(parsed: &Parsed) -> usize {
    let r = solve_with(parsed, Algo::Bfs, Backend::Sharded, 0);
    assert_eq!(r.status, Status::Solved, "{:?}", r.message);
    r.moves.unwrap().len()
}

/// Every single-puzzle file of the bundled corpora.
pub const SINGLE_PUZZLES: &[&str] = &[
    "corpora/klotski/classic.grid",
    "corpora/blocks/dlaa.grid",
    "corpora/blocks/irregular.grid",
    "corpora/blocks/bickford131.grid",
    "corpora/cs351/proj3a.data",
    "corpora/cs351/proj3a_as_listed.data",
    "corpora/cs351/warnings.data",
    "corpora/cs351/nosolution.data",
    "corpora/cs351/too_many.data",
    "corpora/cs351/zero_steps.data",
    "corpora/tiles/8puzzle_863.tiles",
    "corpora/tiles/8puzzle_283.tiles",
    "corpora/tiles/8puzzle_123.tiles",
    "corpora/tiles/8puzzle_unsolvable.tiles",
    "corpora/rush/hardest51.rush",
];

/// The budget a `--max-memory` warning names (`... can have (23.5 GiB: ...`), in bytes as
/// `memory::human` rounded it.
pub fn warned_budget(stderr: &str) -> f64 {
    let (_, after) = stderr.split_once("more than this process can have (").expect("a --max-memory warning");
    let (figure, _) = after.split_once(':').unwrap();
    let (value, unit) = figure.split_once(' ').unwrap();
    let scale = ["B", "KiB", "MiB", "GiB", "TiB"].iter().position(|u| *u == unit).expect("a binary unit");
    value.parse::<f64>().unwrap() * 1024f64.powi(scale as i32)
}
