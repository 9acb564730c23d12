//! The bit array over a domain's dense indices: for sliding tiles the index is a perfect hash of
//! the states reachable from the start, and a search that switches to it gives the same answer,
//! counts and layers as one that keeps the level sets, on any number of threads.

use crate::common::load;
use slidesolve::domain::{Domain, DomainTask, with_domain};
use slidesolve::enumerate::enumerate;
use slidesolve::format::tiles::{TileLayout, puzzle_from};
use slidesolve::search::bfs::bfs;
use slidesolve::search::frontier::EngineOptions;
use slidesolve::search::{Limits, Outcome, with_threads};
use std::collections::{HashSet, VecDeque};

/// The dense index of every state reachable from the start (by a plain queue), and
/// `dense_states()`.
struct Indices;
impl DomainTask for Indices {
    type Output = (Vec<u64>, u64);
    fn run<D: Domain>(self, domain: &D) -> (Vec<u64>, u64) {
        let mut scratch = domain.scratch();
        let mut seen = HashSet::from([domain.start()]);
        let mut queue = VecDeque::from([domain.start()]);
        while let Some(key) = queue.pop_front() {
            domain.for_each_successor(&key, &mut scratch, |child| {
                if seen.insert(child) {
                    queue.push_back(child);
                }
            });
        }
        (seen.iter().map(|k| domain.dense_index(k)).collect(), domain.dense_states())
    }
}

#[test]
fn tile_dense_indices_are_a_perfect_hash_of_the_reachable_states() {
    for (rows, cols) in [(3, 3), (2, 4), (4, 2), (2, 5), (1, 4), (4, 1), (2, 2)] {
        let goal = TileLayout::blank_last(rows, cols);
        let puzzle = puzzle_from(&goal, &goal);
        let (indices, states) = with_domain(&puzzle, u64::MAX, Indices).unwrap();
        let n = (rows * cols) as u64;
        assert_eq!(states, (1..=n).product::<u64>() / 2, "{rows}x{cols}: n!/2 indices");
        assert!(indices.iter().all(|&i| i < states), "{rows}x{cols}: an index out of range");
        let distinct: HashSet<u64> = indices.iter().copied().collect();
        assert_eq!(distinct.len(), indices.len(), "{rows}x{cols}: two states share an index");
        if rows > 1 && cols > 1 {
            assert_eq!(indices.len() as u64, states, "{rows}x{cols}: half of all layouts are reachable");
        }
    }
}

/// The outcome (path), counts and layers of a BFS and of a whole enumeration.
struct Runs(EngineOptions);
impl DomainTask for Runs {
    type Output = (Option<Vec<String>>, (u32, u64, u64, u64), Vec<u64>);
    fn run<D: Domain>(self, domain: &D) -> Self::Output {
        let result = bfs(domain, &Limits::default(), self.0);
        let path = match result.outcome {
            Outcome::Found(path) => Some(path.iter().map(|k| format!("{k:?}")).collect()),
            _ => None,
        };
        let layers = enumerate(domain, &Limits::default(), self.0, &mut |_, _| {}).layers;
        (path, result.stats.counts(), layers)
    }
}

#[test]
fn the_bit_array_changes_no_answer_or_count_on_1_2_and_8_threads() {
    for path in ["corpora/tiles/8puzzle_863.tiles", "corpora/tiles/8puzzle_283.tiles"] {
        let puzzle = load(path).puzzle;
        let sets = EngineOptions { dense: false, ..EngineOptions::default() };
        let reference = with_threads(1, || with_domain(&puzzle, u64::MAX, Runs(sets)).unwrap());
        assert_eq!(reference.2.iter().sum::<u64>(), 181_440, "{path}");
        for threads in [1, 2, 8] {
            for options in [sets, EngineOptions::default()] {
                let got = with_threads(threads, || with_domain(&puzzle, u64::MAX, Runs(options)).unwrap());
                assert_eq!(got, reference, "{path}: {threads} threads, bit array {}", options.dense);
            }
        }
    }
}
