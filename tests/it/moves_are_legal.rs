//! Property tests on random puzzles (irregular boards, random polyominoes including disconnected
//! and identical ones, every movement limit and metric):
//! Both the general block domain and the tile domain are checked.
//! - every successor the domain generates is a legal move when replayed on the puzzle model;
//! - every move is reversible (the parent is a successor of the child);
//! - the successors of a child given its parent leave out only the parent and its other children;
//! - key packing round-trips (anchors → key → anchors);
//! - the successor set equals an independent naive generator built on the replay verifier.

use proptest::prelude::*;
use slidesolve::domain::{Domain, DomainTask, with_block_domain, with_domain};
use slidesolve::format::tiles::{TileLayout, puzzle_from};
use slidesolve::puzzle::{Board, Cell, Dir, Edge, Family, Goal, Metric, Movement, Piece, Puzzle, Shape};
use slidesolve::solution::Move;
use slidesolve::solve::moves_from_path;
use slidesolve::verify::replay;
use std::collections::{BTreeSet, HashSet, VecDeque};

/// A random puzzle: board size, wall mask, piece cell-masks within a 2×2 box, movements, metric.
fn arb_puzzle() -> impl Strategy<Value = Puzzle> {
    (
        2usize..=5,
        2usize..=5,
        any::<u32>(),
        prop::collection::vec((1u8..16, 0u8..4, any::<u16>(), any::<bool>()), 1..=5),
        0u8..3,
    )
        .prop_map(|(rows, cols, walls, specs, metric)| build(rows, cols, walls, &specs, metric))
        .prop_filter("at least one piece placed", |p| !p.pieces.is_empty())
}

fn build(rows: usize, cols: usize, walls: u32, specs: &[(u8, u8, u16, bool)], metric: u8) -> Puzzle {
    let open: Vec<bool> = (0..rows * cols).map(|i| walls >> (i % 32) & 7 != 0).collect();
    let board = Board { rows, cols, open };
    let mut used = vec![false; rows * cols];
    let (mut pieces, mut start): (Vec<Piece>, Vec<Cell>) = (Vec::new(), Vec::new());
    for (i, &(mask, movement, pos, copy_previous)) in specs.iter().enumerate() {
        let shape_mask = if copy_previous && i > 0 { specs[i - 1].0 } else { mask };
        let offsets: Vec<Cell> = (0..4).filter(|b| shape_mask >> b & 1 == 1).map(|b| (b / 2, b % 2)).collect();
        let origin = (pos as usize / cols % rows, pos as usize % cols);
        let cells: Option<Vec<Cell>> = offsets.iter().map(|&(r, c)| Some((origin.0 + r, origin.1 + c))).collect();
        let Some(cells) = cells else { continue };
        if cells.iter().any(|&(r, c)| !board.is_open(r, c) || used[r * cols + c]) {
            continue;
        }
        cells.iter().for_each(|&(r, c)| used[r * cols + c] = true);
        let (shape, anchor) = Shape::from_cells(&cells).unwrap();
        let movement = [Movement::Both, Movement::Horizontal, Movement::Vertical, Movement::None][movement as usize];
        let movement = if copy_previous && i > 0 && !pieces.is_empty() {
            pieces.last().map_or(movement, |p: &Piece| p.movement)
        } else {
            movement
        };
        pieces.push(Piece { name: ((b'A' + pieces.len() as u8) as char).to_string(), shape, movement });
        start.push(anchor);
    }
    let metric = [Metric::Unit, Metric::Straight, Metric::Free][metric as usize];
    Puzzle {
        board,
        pieces,
        start,
        goal: Goal::Reaches(0, Edge::Right),
        metric,
        merge_identical: true,
        family: Family::Grid,
    }
}

/// Anchors with identical pieces put in a canonical order, so states compare as sets.
fn canonical(puzzle: &Puzzle, anchors: &[Cell]) -> Vec<(usize, Cell)> {
    let class = puzzle.identity_classes();
    let mut v: Vec<(usize, Cell)> = anchors.iter().enumerate().map(|(i, &a)| (class[i], a)).collect();
    v.sort_unstable();
    v
}

/// Successors computed on the puzzle model alone: every legal move of every piece, via `replay`.
fn naive_successors(puzzle: &Puzzle) -> BTreeSet<Vec<(usize, Cell)>> {
    let mut out = BTreeSet::new();
    for piece in 0..puzzle.pieces.len() {
        let legal = |path: Vec<Dir>| replay(puzzle, &[Move { piece, path }]).ok().map(|s| s[1].clone());
        match puzzle.metric {
            Metric::Unit | Metric::Straight => {
                for d in Dir::ALL {
                    for n in 1..=puzzle.board.rows.max(puzzle.board.cols) {
                        if puzzle.metric == Metric::Unit && n > 1 {
                            break;
                        }
                        match legal(vec![d; n]) {
                            Some(s) => out.insert(canonical(puzzle, &s)),
                            None => break,
                        };
                    }
                }
            }
            Metric::Free => {
                let mut seen: HashSet<Cell> = HashSet::from([puzzle.start[piece]]);
                let mut queue = VecDeque::from([(puzzle.start[piece], Vec::new())]);
                while let Some((_, path)) = queue.pop_front() {
                    for d in Dir::ALL {
                        let mut next = path.clone();
                        next.push(d);
                        if let Some(s) = legal(next.clone())
                            && seen.insert(s[piece])
                        {
                            out.insert(canonical(puzzle, &s));
                            queue.push_back((s[piece], next));
                        }
                    }
                }
            }
        }
    }
    out
}

struct CheckMoves<'a>(&'a Puzzle);

impl DomainTask for CheckMoves<'_> {
    type Output = Result<(), TestCaseError>;
    fn run<D: Domain>(self, domain: &D) -> Self::Output {
        let puzzle = self.0;
        let mut scratch = domain.scratch();
        let mut seen = HashSet::from([domain.start()]);
        let mut queue = VecDeque::from([domain.start()]);
        while let Some(state) = queue.pop_front() {
            let at_state = Puzzle { start: domain.anchors(&state), ..puzzle.clone() };
            let mut children = Vec::new();
            domain.for_each_successor(&state, &mut scratch, |c| children.push(c));
            let got: BTreeSet<_> = children.iter().map(|c| canonical(puzzle, &domain.anchors(c))).collect();
            prop_assert_eq!(got.len(), children.len(), "duplicate successors");
            prop_assert_eq!(&got, &naive_successors(&at_state));
            for child in &children {
                let moves = moves_from_path(&at_state, domain, &[state, *child]);
                let replayed = replay(&at_state, &moves).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(canonical(puzzle, &replayed[1]), canonical(puzzle, &domain.anchors(child)));
                let mut back = Vec::new();
                domain.for_each_successor(child, &mut scratch, |g| back.push(g));
                prop_assert!(back.contains(&state), "move not reversible");
                let mut after = Vec::new();
                domain.for_each_successor_from(child, Some(&state), &mut scratch, |g| after.push(g));
                only_the_parents_successors_left_out(&back, &after, &state, &children).map_err(TestCaseError::fail)?;
                let repacked = Puzzle { start: domain.anchors(child), ..puzzle.clone() };
                let round = with_domain(&repacked, u64::MAX, StartAnchors).unwrap();
                prop_assert_eq!(round, domain.anchors(child));
                if seen.len() < 60 && seen.insert(*child) {
                    queue.push_back(*child);
                }
            }
        }
        Ok(())
    }
}

struct StartAnchors;
impl DomainTask for StartAnchors {
    type Output = Vec<Cell>;
    fn run<D: Domain>(self, domain: &D) -> Vec<Cell> {
        domain.anchors(&domain.start())
    }
}

/// A random tile puzzle on a board from 2×2 to 3×4.
fn arb_tiles() -> impl Strategy<Value = Puzzle> {
    (2usize..=3, 2usize..=4).prop_flat_map(|(rows, cols)| {
        Just((0..(rows * cols) as u32).collect::<Vec<_>>())
            .prop_shuffle()
            .prop_map(move |cells| puzzle_from(&TileLayout { rows, cols, cells }, &TileLayout::blank_last(rows, cols)))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]
    #[test]
    fn generated_moves_are_legal_reversible_complete_and_round_trip(puzzle in arb_puzzle()) {
        with_block_domain(&puzzle, u64::MAX, CheckMoves(&puzzle)).unwrap()?;
    }

    #[test]
    fn tile_domain_moves_are_legal_reversible_complete_and_round_trip(puzzle in arb_tiles()) {
        with_domain(&puzzle, u64::MAX, CheckMoves(&puzzle)).unwrap()?;
    }
}

/// A 9×8 board holding 67 pieces (a horizontal domino, two vertical dominoes, one of which moves
/// only up and down, and 64 single cells) and two empty cells: more movable pieces than one
/// 64-piece pass of the expansion takes, so the pieces past the 64th are checked too, in every
/// metric.
#[test]
fn more_than_64_movable_pieces_move_as_the_model_says() {
    for metric in 0..3 {
        // Spec: (cell mask in a 2×2 box, movement, anchor cell, copy the previous piece); a piece
        // that would overlap an earlier one is left out, and cells 70 and 71 stay empty.
        let mut specs = vec![(0b0011u8, 1u8, 0u16, false)];
        for cell in 2..70u16 {
            let (mask, movement) = match cell {
                10 => (0b0101, 0),
                27 => (0b0101, 2),
                _ => (0b0001, 0),
            };
            specs.push((mask, movement, cell, false));
        }
        let puzzle = build(9, 8, u32::MAX, &specs, metric);
        let movable = puzzle.pieces.iter().filter(|p| p.movement != Movement::None).count();
        assert_eq!(movable, 67);
        let covered: usize = puzzle.pieces.iter().map(|p| p.shape.offsets().len()).sum();
        assert_eq!(covered, 70);
        with_block_domain(&puzzle, u64::MAX, CheckMoves(&puzzle)).unwrap().unwrap();
    }
}

/// Whether `from` (a child's successors given its parent) is `all` (its successors) in the same
/// order less some that are `parent` or among `siblings` (the parent's successors).
fn only_the_parents_successors_left_out<K: PartialEq>(
    all: &[K],
    from: &[K],
    parent: &K,
    siblings: &[K],
) -> Result<(), &'static str> {
    let mut rest = all.iter();
    if !from.iter().all(|g| rest.any(|a| a == g)) {
        return Err("not the successors in move order");
    }
    match all.iter().filter(|g| !from.contains(g)).all(|g| g == parent || siblings.contains(g)) {
        true => Ok(()),
        false => Err("left out a new state"),
    }
}

/// Over every edge of a whole state space: the successors of a child given its parent are its
/// successors in move order less some that are the parent or the parent's successors.
struct CheckSuccessorsFrom;

impl DomainTask for CheckSuccessorsFrom {
    type Output = (usize, u64, u64);
    fn run<D: Domain>(self, domain: &D) -> (usize, u64, u64) {
        let mut scratch = domain.scratch();
        let successors = |key: &D::Key, scratch: &mut D::Scratch| {
            let mut all = Vec::new();
            domain.for_each_successor(key, scratch, |c| all.push(c));
            all
        };
        let mut seen = HashSet::from([domain.start()]);
        let mut queue = VecDeque::from([domain.start()]);
        let (mut all_count, mut from_count) = (0, 0);
        while let Some(parent) = queue.pop_front() {
            let children = successors(&parent, &mut scratch);
            for child in &children {
                let all = successors(child, &mut scratch);
                let mut from = Vec::new();
                domain.for_each_successor_from(child, Some(&parent), &mut scratch, |g| from.push(g));
                only_the_parents_successors_left_out(&all, &from, &parent, &children).unwrap();
                (all_count, from_count) = (all_count + all.len() as u64, from_count + from.len() as u64);
                if seen.insert(*child) {
                    queue.push_back(*child);
                }
            }
        }
        (seen.len(), all_count, from_count)
    }
}

#[test]
fn successors_given_the_parent_leave_out_only_the_parents_successors_on_whole_klotski_and_rush_spaces() {
    // Klotski: four identical squares and four identical upright dominoes moving both ways; the Rush Hour
    // card: identical cars moving along one line. Every edge of the reachable space.
    // (file, metric, states, successors over all edges, those given the parent): the unit metric
    // leaves out the step back, one an edge (83,896 edges), the others about a third of Klotski's
    // and a fifth of the card's.
    let cases = [
        ("corpora/klotski/classic.grid", Metric::Unit, 25_955, 295_326, 211_430),
        ("corpora/klotski/classic.grid", Metric::Straight, 25_955, 329_514, 225_818),
        ("corpora/klotski/classic.grid", Metric::Free, 25_955, 377_934, 252_414),
        ("corpora/rush/hardest51.rush", Metric::Straight, 4_780, 308_066, 245_226),
    ];
    for (path, metric, states, all, from) in cases {
        let puzzle = Puzzle { metric, ..crate::common::load(path).puzzle };
        let counts = with_block_domain(&puzzle, u64::MAX, CheckSuccessorsFrom).unwrap();
        assert_eq!(counts, (states, all, from), "{path} {metric:?}");
    }
}
