//! `Domain::goal_bound` on whole reachable spaces: never above a state's true distance to the
//! nearest goal, zero exactly on goal states, and changed by at most one by any move (what lets a
//! breadth-first search drop states whose depth plus bound reaches a limit).

use slidesolve::domain::{Domain, DomainTask, with_block_domain};
use slidesolve::puzzle::{Metric, Puzzle};
use std::collections::{HashMap, VecDeque};

/// Over the reachable space: (states, goal states, the sum of bounds, the start's bound and
/// distance); panics where the bound is above the distance or jumps by more than one on an edge.
struct CheckBound;

impl DomainTask for CheckBound {
    type Output = (usize, usize, u64, u32, u32);
    fn run<D: Domain>(self, domain: &D) -> Self::Output {
        let mut scratch = domain.scratch();
        let mut index = HashMap::from([(domain.start(), 0usize)]);
        let (mut keys, mut edges) = (vec![domain.start()], Vec::new());
        let mut head = 0;
        while let Some(&key) = keys.get(head) {
            let mut near = Vec::new();
            domain.for_each_successor(&key, &mut scratch, |c| near.push(c));
            let near = near
                .into_iter()
                .map(|c| {
                    *index.entry(c).or_insert_with(|| {
                        keys.push(c);
                        keys.len() - 1
                    })
                })
                .collect::<Vec<_>>();
            edges.push(near);
            head += 1;
        }
        // Distances to the nearest goal: breadth-first from every goal state at once.
        let mut dist = vec![u32::MAX; keys.len()];
        let mut queue: VecDeque<usize> = (0..keys.len()).filter(|&i| domain.is_goal(&keys[i])).collect();
        queue.iter().for_each(|&i| dist[i] = 0);
        let goals = queue.len();
        while let Some(i) = queue.pop_front() {
            for &j in &edges[i] {
                if dist[j] == u32::MAX {
                    dist[j] = dist[i] + 1;
                    queue.push_back(j);
                }
            }
        }
        let bound: Vec<u32> = keys.iter().map(|k| domain.goal_bound(k, &mut scratch)).collect();
        for (i, near) in edges.iter().enumerate() {
            assert!(bound[i] <= dist[i], "state {i}: bound {} above distance {}", bound[i], dist[i]);
            assert_eq!(bound[i] == 0, dist[i] == 0, "state {i}: bound 0 exactly on goals");
            for &j in near {
                assert!(bound[i].abs_diff(bound[j]) <= 1, "edge {i}-{j}: bound {} then {}", bound[i], bound[j]);
            }
        }
        (keys.len(), goals, bound.iter().map(|&b| b as u64).sum(), bound[0], dist[0])
    }
}

#[test]
fn goal_bound_is_a_consistent_lower_bound_on_whole_rush_hour_and_klotski_spaces() {
    // The 51-move card: one truck stands between the primary and the exit, so the start's bound
    // is 2 of 51 moves (81 in the unit metric, which counts the same pieces). Klotski's goal puts
    // the 2x2 block on one cell, not at an edge: every state but the goals is bounded by one move.
    let cases = [
        ("corpora/rush/hardest51.rush", Metric::Straight, (4_780, 199, 12_002, 2, 51)),
        ("corpora/rush/hardest51.rush", Metric::Unit, (4_780, 199, 12_002, 2, 81)),
        ("corpora/klotski/classic.grid", Metric::Free, (25_955, 964, 24_991, 1, 81)),
    ];
    let got: Vec<_> = cases
        .iter()
        .map(|&(path, metric, _)| {
            let puzzle = Puzzle { metric, ..crate::common::load(path).puzzle };
            with_block_domain(&puzzle, u64::MAX, CheckBound).unwrap()
        })
        .collect();
    assert_eq!(got, cases.map(|c| c.2));
}

#[test]
fn goal_bound_is_a_consistent_lower_bound_on_every_state_of_246_database_clusters() {
    // Fogleman's lines (the 200 levels hold walls): each card's whole cluster, every state's bound
    // against its distance, and the cluster's size against the line's (and, for the 46 lines of
    // the public database, the start's distance against its move count).
    let mut totals = (0, 0, 0);
    for path in ["corpora/rush/tuler_rush_sample46.txt", "corpora/rush/tuler_levels200.txt"] {
        for (n, line) in std::fs::read_to_string(path).unwrap().lines().enumerate() {
            let puzzle = slidesolve::format::rush::parse_line(line, n + 1).unwrap().puzzle;
            let (states, _, sum, start, dist) = with_block_domain(&puzzle, u64::MAX, CheckBound).unwrap();
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(states.to_string(), fields[2], "{path}:{}", n + 1);
            if path.ends_with("sample46.txt") {
                assert_eq!(format!("{dist:02}"), fields[0], "{path}:{}", n + 1);
            }
            totals = (totals.0 + states, totals.1 + sum, totals.2 + start as u64);
        }
    }
    assert_eq!(totals, (868_051, 2_158_670, 713));
}

#[test]
fn a_long_board_gets_the_one_move_bound_without_walking_its_runs() {
    // 400x400: the primary has 399 placements with runs of up to 398 steps to the exit, more than
    // the runs are built for (2^16 steps in all), so the bound is one move, at once; 9x9 with the
    // same truck in the way counts it.
    let card = |n: usize| {
        let mut cells = vec!['o'; n * n];
        cells[..2].fill('A');
        (0..3).for_each(|r| cells[r * n + 5] = 'B');
        cells.into_iter().collect::<String>()
    };
    let bound = |n: usize| {
        let puzzle = slidesolve::format::rush::parse_line(&card(n), 1).unwrap().puzzle;
        with_block_domain(&puzzle, u64::MAX, StartBound).unwrap()
    };
    assert_eq!((bound(9), bound(400)), (2, 1));
}

/// The bound of the start state.
struct StartBound;

impl DomainTask for StartBound {
    type Output = u32;
    fn run<D: Domain>(self, domain: &D) -> u32 {
        domain.goal_bound(&domain.start(), &mut domain.scratch())
    }
}
