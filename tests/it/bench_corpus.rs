//! The state counts of the benchmark corpus (`corpora/bench/`): the reference BFS and the frontier
//! engine (1 and 2 threads) both count every state reachable from the start.

use crate::common::load;
use slidesolve::domain::{Domain, DomainTask, with_domain};
use slidesolve::enumerate::enumerate;
use slidesolve::puzzle::Cell;
use slidesolve::search::frontier::EngineOptions;
use slidesolve::search::reference::reference_bfs;
use slidesolve::search::{Limits, Outcome, with_threads};

/// A domain with its goal taken away, so that a search runs until the space is exhausted.
struct NoGoal<'d, D>(&'d D);

impl<D: Domain> Domain for NoGoal<'_, D> {
    type Key = D::Key;
    type Scratch = D::Scratch;
    fn scratch(&self) -> D::Scratch {
        self.0.scratch()
    }
    fn start(&self) -> D::Key {
        self.0.start()
    }
    fn is_goal(&self, _: &D::Key) -> bool {
        false
    }
    fn goal_key(&self) -> Option<D::Key> {
        None
    }
    fn for_each_successor<F: FnMut(D::Key)>(&self, key: &D::Key, scratch: &mut D::Scratch, f: F) {
        self.0.for_each_successor(key, scratch, f)
    }
    fn moved_anchor(&self, from: &D::Key, to: &D::Key) -> Option<(Cell, Cell)> {
        self.0.moved_anchor(from, to)
    }
    fn anchors(&self, key: &D::Key) -> Vec<Cell> {
        self.0.anchors(key)
    }
    fn bipartite(&self) -> bool {
        self.0.bipartite()
    }
}

/// The number of reachable states by the reference BFS, then by the frontier engine on 1 and 2
/// threads.
struct Counts;

impl DomainTask for Counts {
    type Output = (u64, u64, u64);
    fn run<D: Domain>(self, domain: &D) -> Self::Output {
        let reference = reference_bfs(&NoGoal(domain), &Limits::default());
        assert_eq!(reference.outcome, Outcome::Exhausted);
        let frontier = |threads| {
            with_threads(threads, || enumerate(domain, &Limits::default(), EngineOptions::default(), &mut |_, _| {}))
                .layers
                .iter()
                .sum::<u64>()
        };
        (reference.stats.stored, frontier(1), frontier(2))
    }
}

fn assert_states(path: &str, states: u64) {
    let parsed = load(path);
    let counts = with_domain(&parsed.puzzle, u64::MAX, Counts).unwrap();
    assert_eq!(counts, (states, states, states), "{path}");
}

#[test]
fn the_crowded_rush_hour_board_has_885601_states() {
    assert_states("corpora/bench/rush-7x7.rush", 885_601);
}

#[test]
fn the_unit_rush_hour_board_has_2130243_states() {
    assert_states("corpora/bench/unit-rush-5x5.grid", 2_130_243);
}

#[test]
fn the_big_cs351_board_has_1722240_states() {
    assert_states("corpora/bench/cs351-10x12.data", 1_722_240);
}

#[test]
#[ignore = "about 5 million states: run with --ignored"]
fn klotski_on_4x6_has_5487140_states() {
    assert_states("corpora/bench/klotski-4x6.grid", 5_487_140);
}

#[test]
#[ignore = "about 12 million states: run with --ignored"]
fn klotski_like_on_5x5_has_11978880_states() {
    assert_states("corpora/bench/klotski-5x5.grid", 11_978_880);
}
