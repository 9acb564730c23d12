//! The answer and every count are independent of threads and visited backend, and equal to the
//! sequential reference BFS; bidirectional search finds the same optimal length.

use crate::common::{SINGLE_PUZZLES, load, solve_with};
use slidesolve::format::rush::parse_line;
use slidesolve::format::{self, ParseOptions, Parsed};
use slidesolve::search::visited::Backend;
use slidesolve::solution::to_compact;
use slidesolve::solve::{Algo, Report};

fn fingerprint(parsed: &Parsed, r: &Report) -> (String, Option<String>, (u32, u64, u64, u64)) {
    let solution = r.moves.as_ref().map(|m| to_compact(&parsed.puzzle, m));
    (r.status.to_string(), solution, r.stats.counts())
}

fn assert_deterministic(name: &str, parsed: &Parsed) {
    let reference = fingerprint(parsed, &solve_with(parsed, Algo::Reference, Backend::Sharded, 1));
    for backend in [Backend::Sharded, Backend::DashMap] {
        for threads in [1, 2, 8] {
            let got = fingerprint(parsed, &solve_with(parsed, Algo::Bfs, backend, threads));
            assert_eq!(got, reference, "{name}: {backend} backend, {threads} threads");
        }
    }
}

#[test]
fn every_corpus_puzzle_matches_the_reference_on_1_2_and_8_threads() {
    for path in SINGLE_PUZZLES {
        assert_deterministic(path, &load(path));
    }
}

#[test]
fn rush_hour_cards_match_the_reference_on_1_2_and_8_threads() {
    let text = std::fs::read_to_string("corpora/rush/tuler_rush_sample46.txt").unwrap();
    for (i, line) in text.lines().enumerate().step_by(5) {
        assert_deterministic(&format!("sample46:{}", i + 1), &parse_line(line, i + 1).unwrap());
    }
}

#[test]
fn bidirectional_search_is_optimal_and_deterministic() {
    for path in ["corpora/tiles/8puzzle_863.tiles", "corpora/tiles/8puzzle_283.tiles", "corpora/blocks/irregular.grid"]
    {
        let parsed = load(path);
        let bfs = solve_with(&parsed, Algo::Bfs, Backend::Sharded, 2).moves.unwrap().len();
        let runs: Vec<_> = [1, 2, 8]
            .iter()
            .flat_map(|&t| {
                [Backend::Sharded, Backend::DashMap]
                    .map(|b| fingerprint(&parsed, &solve_with(&parsed, Algo::Bidir, b, t)))
            })
            .collect();
        assert!(runs.iter().all(|r| *r == runs[0]), "{path}");
        assert_eq!(runs[0].2.0 as usize, bfs, "{path}");
    }
}

#[test]
fn a_search_that_outgrows_its_closed_set_matches_the_reference() {
    // 42,474 states stored in the free metric (not bipartite, so the closed set is used): one
    // thread leaves it once its next growth would pass 1 MiB, two and eight threads at the first
    // level of 2,048 states.
    let path = "corpora/klotski/group81340.grid";
    let parsed = load(path);
    assert_eq!(solve_with(&parsed, Algo::Bfs, Backend::Sharded, 1).stats.stored, 42_474);
    assert_deterministic(path, &parsed);
}

#[test]
fn a_level_that_overflows_the_closed_set_is_built_again_alike() {
    // Two 1x1 pieces in opposite corners of an open 16x16 board, free metric: the second level
    // holds 64,770 of the 65,280 layouts, more than the closed set may grow to (1 MiB), so one
    // thread builds it again on the level sets.
    let mut text = String::from("metric: free\ngoal: A at 15,15\nboard:\nA...............\n");
    text.push_str(&"................\n".repeat(14));
    text.push_str("...............B\n");
    let parsed = format::parse(format::Format::Grid, &text, &ParseOptions::default()).unwrap();
    let report = solve_with(&parsed, Algo::Bfs, Backend::Sharded, 1);
    assert_eq!((report.moves.map(|m| m.len()), report.stats.stored), (Some(2), 65_026));
    assert_deterministic("open 16x16", &parsed);
}
