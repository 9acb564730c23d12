//! Sliding-tile algorithms cross-checked: on seeded random 8-puzzles and easy 15-puzzles, BFS,
//! bidirectional BFS, A*, IDA* and IDDFS agree on the optimal length for every heuristic; greedy
//! and depth-limited DFS return valid (possibly longer) solutions; the constructive solver solves
//! boards up to 100×100. Every solution passes the verifier.

use rayon::prelude::*;
use slidesolve::format::tiles::{TileLayout, puzzle_from};
use slidesolve::generate::{TileSampling, random_tiles};
use slidesolve::heuristic::pdb::PdbOptions;
use slidesolve::heuristic::{HeuristicKind, TileHeuristic};
use slidesolve::puzzle::Puzzle;
use slidesolve::search::Limits;
use slidesolve::solve::{Algo, Report, SolveOptions, Status, solve};
use slidesolve::verify::verify;

const HEURISTICS: [HeuristicKind; 5] = [
    HeuristicKind::Zero,
    HeuristicKind::Misplaced,
    HeuristicKind::Manhattan,
    HeuristicKind::LinearConflict,
    HeuristicKind::Pdb,
];

fn pdb_options() -> PdbOptions {
    let dir = std::env::temp_dir().join(format!("slidesolve-test-pdb-{}", std::process::id()));
    PdbOptions { cache_dir: Some(dir), ..PdbOptions::default() }
}

fn run(puzzle: &Puzzle, algo: Algo, heuristic: Option<HeuristicKind>) -> Report {
    let options = SolveOptions { algo, heuristic, depth: 40, pdb: pdb_options(), ..SolveOptions::default() };
    let report = solve(puzzle, &options).unwrap();
    if let Some(moves) = &report.moves {
        verify(puzzle, moves).unwrap();
    }
    report
}

fn length(report: &Report) -> usize {
    assert_eq!(report.status, Status::Solved, "{:?}", report.message);
    report.moves.as_ref().unwrap().len()
}

/// Checks every algorithm against BFS; `with_blind` adds the slow uninformed depth-first ones
/// (IDDFS, IDA* with the zero and misplaced-tiles heuristics).
fn check_all_agree(puzzle: &Puzzle, with_blind: bool) -> usize {
    let optimum = length(&run(puzzle, Algo::Bfs, None));
    assert_eq!(length(&run(puzzle, Algo::Bidir, None)), optimum);
    if with_blind {
        assert_eq!(length(&run(puzzle, Algo::Iddfs, None)), optimum);
    }
    for h in HEURISTICS {
        assert_eq!(length(&run(puzzle, Algo::Astar, Some(h))), optimum, "astar {h}");
        if with_blind || !matches!(h, HeuristicKind::Zero | HeuristicKind::Misplaced) {
            assert_eq!(length(&run(puzzle, Algo::Idastar, Some(h))), optimum, "idastar {h}");
        }
        assert!(length(&run(puzzle, Algo::Greedy, Some(h))) >= optimum);
    }
    optimum
}

#[test]
fn random_8_puzzles_agree_on_the_optimum_for_every_algorithm_and_heuristic() {
    let goal = TileLayout::blank_last(3, 3);
    // The puzzles are independent: checked in parallel (each search is itself deterministic).
    let layouts = random_tiles(&goal, 200, 7, TileSampling::Uniform);
    let total: usize =
        layouts.par_iter().enumerate().map(|(i, layout)| check_all_agree(&puzzle_from(layout, &goal), i < 6)).sum();
    // Uniform random 8-puzzles average about 22 moves.
    assert!((20 * 200..24 * 200).contains(&total), "{total}");
}

#[test]
fn blank_first_and_non_square_goals_work_too() {
    let goal = TileLayout::blank_first(3, 3);
    for layout in random_tiles(&goal, 30, 11, TileSampling::Uniform) {
        check_all_agree(&puzzle_from(&layout, &goal), false);
    }
    let goal = TileLayout::blank_last(3, 4);
    for layout in random_tiles(&goal, 5, 3, TileSampling::Walk(16)) {
        check_all_agree(&puzzle_from(&layout, &goal), false);
    }
}

#[test]
fn easy_15_puzzles_agree_on_the_optimum() {
    let goal = TileLayout::blank_last(4, 4);
    for layout in random_tiles(&goal, 12, 5, TileSampling::Walk(30)) {
        let puzzle = puzzle_from(&layout, &goal);
        let optimum = length(&run(&puzzle, Algo::Bidir, None));
        assert!(optimum <= 30);
        for h in [HeuristicKind::Manhattan, HeuristicKind::LinearConflict] {
            assert_eq!(length(&run(&puzzle, Algo::Astar, Some(h))), optimum);
            assert_eq!(length(&run(&puzzle, Algo::Idastar, Some(h))), optimum);
        }
    }
}

#[test]
fn depth_limited_dfs_finds_a_valid_solution_within_its_limit_or_says_so() {
    let goal = TileLayout::blank_last(3, 3);
    let puzzle = puzzle_from(&TileLayout { rows: 3, cols: 3, cells: vec![1, 2, 3, 4, 5, 6, 0, 7, 8] }, &goal);
    let found = run(&puzzle, Algo::Dfs, None);
    assert!(length(&found) <= 40 && length(&found).is_multiple_of(2));
    let options = SolveOptions { algo: Algo::Dfs, depth: 1, ..SolveOptions::default() };
    assert_eq!(solve(&puzzle, &options).unwrap().status, Status::Limit);
}

#[test]
fn unsolvable_tiles_are_rejected_by_parity_for_every_algorithm() {
    let goal = TileLayout::blank_last(4, 4);
    let mut cells = goal.cells.clone();
    cells.swap(0, 1);
    let puzzle = puzzle_from(&TileLayout { rows: 4, cols: 4, cells }, &goal);
    for algo in [Algo::Bfs, Algo::Idastar, Algo::Astar, Algo::Constructive] {
        assert_eq!(run(&puzzle, algo, None).status, Status::Unsolvable);
    }
}

#[test]
fn constructive_solver_handles_any_size_and_goal() {
    for (rows, cols, seed) in
        [(2, 2, 1), (2, 3, 2), (3, 2, 3), (3, 3, 4), (2, 7, 5), (7, 2, 6), (4, 4, 7), (5, 8, 8), (9, 4, 9)]
    {
        for goal in [TileLayout::blank_last(rows, cols), TileLayout::blank_first(rows, cols)] {
            for layout in random_tiles(&goal, 20, seed, TileSampling::Uniform) {
                let report = run(&puzzle_from(&layout, &goal), Algo::Constructive, None);
                assert_eq!(report.status, Status::Solved);
            }
        }
    }
}

#[test]
fn constructive_solver_solves_100x100() {
    let goal = TileLayout::blank_last(100, 100);
    let layout = &random_tiles(&goal, 1, 42, TileSampling::Uniform)[0];
    let report = run(&puzzle_from(layout, &goal), Algo::Constructive, None);
    assert_eq!(report.status, Status::Solved);
    assert!(length(&report) > 100_000);
}

/// The constructive solver stores no states, but its solution grows with every step: the memory
/// limit bounds its steps (160 bytes a move until printed) and the deadline is checked as it
/// steps, so a board whose solution would not fit, or not in time, stops within a line.
#[test]
fn constructive_solver_stops_at_the_memory_limit_and_the_deadline() {
    let goal = TileLayout::blank_last(100, 100);
    let puzzle = puzzle_from(&random_tiles(&goal, 1, 42, TileSampling::Uniform)[0], &goal);
    let solve_within = |limits: slidesolve::search::Limits| {
        solve(&puzzle, &SolveOptions { algo: Algo::Constructive, limits, ..SolveOptions::default() }).unwrap()
    };
    let budget = 1 << 20;
    let report = solve_within(slidesolve::search::Limits { max_memory: Some(budget), ..Default::default() });
    assert_eq!(report.status, Status::Limit);
    assert_eq!(report.message.as_deref(), Some("memory limit reached in the constructive solver"));
    // The steps recorded (a byte each, up to the budget's 6,553 moves) and the board's tables.
    assert!(report.stats.peak_bytes >= budget / 160 && report.stats.peak_bytes < budget, "{:?}", report.stats);
    let past = std::time::Instant::now();
    let report = solve_within(slidesolve::search::Limits { deadline: Some(past), ..Default::default() });
    assert_eq!(report.status, Status::Timeout);
    assert_eq!(report.message.as_deref(), Some("time limit reached in the constructive solver"));
    assert!(report.stats.wall_s < 1.0, "{:?}", report.stats);
}

#[test]
fn korf_instances_parse_with_their_published_optima() {
    let text = std::fs::read_to_string("corpora/tiles/korf100.txt").unwrap();
    let items = slidesolve::format::parse_many(slidesolve::format::Format::Tiles, &text, &Default::default())
        .expect("a multi-puzzle file");
    assert_eq!(items.len(), 100);
    let parsed: Vec<_> = items.into_iter().map(|(_, p)| p.unwrap()).collect();
    assert_eq!(parsed.iter().map(|p| p.expected.unwrap()).sum::<u64>(), 5305);
    let blank_first = puzzle_from(&TileLayout::blank_first(4, 4), &TileLayout::blank_first(4, 4));
    assert!(parsed.iter().all(|p| p.puzzle.goal == blank_first.goal), "the file's goal: line says blank-first");
}

/// A pattern database asked for by every thread of the global pool while a thread outside the
/// pool builds it: the build runs on a pool of its own, so the askers wait without holding it up,
/// and everyone gets the one database built (the cache was once locked for the whole build, run
/// on the global pool, and this test suite hung when the pool's threads waited for that lock).
#[test]
fn threads_waiting_for_a_pattern_database_being_built_get_the_one_built() {
    let dir = std::env::temp_dir().join(format!("slidesolve-test-pdb-wait-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = PdbOptions { cache_dir: Some(dir.clone()), ..PdbOptions::default() };
    let goal: Vec<u8> = (1..16).chain([0]).collect();
    let ask = move || TileHeuristic::shared(HeuristicKind::Pdb, 4, 4, &goal, &options, &Limits::default()).unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let builder = std::thread::spawn({
            let ask = ask.clone();
            move || ask()
        });
        std::thread::sleep(std::time::Duration::from_millis(20));
        let askers: Vec<_> =
            (0..4 * rayon::current_num_threads()).into_par_iter().with_max_len(1).map(|_| ask()).collect();
        sender.send((builder.join().unwrap(), askers)).unwrap();
    });
    let (built, askers) = receiver
        .recv_timeout(std::time::Duration::from_secs(600))
        .expect("the threads asking for a pattern database being built never got it");
    assert!(askers.iter().all(|h| std::sync::Arc::ptr_eq(h, &built)));
    let _ = std::fs::remove_dir_all(&dir);
}
