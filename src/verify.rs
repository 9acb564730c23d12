//! The independent replay verifier: plays a move list on the [`Puzzle`] model itself (a grid of
//! piece ids), never on a search domain's packed encoding, so a bug there cannot hide.

use crate::puzzle::{Cell, Dir, Metric, Puzzle};
use crate::solution::Move;
use std::borrow::Borrow;
use thiserror::Error;

/// Why a move list is not a valid solution.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum VerifyError {
    /// A move has no steps.
    #[error("move {number} ({piece}): empty path")]
    EmptyMove {
        /// 1-based move number.
        number: usize,
        /// Piece name.
        piece: String,
    },
    /// The move's shape is not allowed by the metric.
    #[error("move {number} ({piece}): a {metric} move cannot take the path {path}")]
    WrongMetric {
        /// 1-based move number.
        number: usize,
        /// Piece name.
        piece: String,
        /// The puzzle's metric.
        metric: Metric,
        /// The path in compact form.
        path: String,
    },
    /// The piece may not move in that direction.
    #[error("move {number} ({piece}): the piece cannot move {dir}")]
    Forbidden {
        /// 1-based move number.
        number: usize,
        /// Piece name.
        piece: String,
        /// The refused direction.
        dir: Dir,
    },
    /// A step would leave the board or hit a wall.
    #[error("move {number} ({piece}): step {step} ({dir}) leaves the board or hits a wall")]
    OffBoard {
        /// 1-based move number.
        number: usize,
        /// Piece name.
        piece: String,
        /// 1-based step within the move.
        step: usize,
        /// The step's direction.
        dir: Dir,
    },
    /// A step would overlap another piece.
    #[error("move {number} ({piece}): step {step} ({dir}) runs into piece {other}")]
    Blocked {
        /// 1-based move number.
        number: usize,
        /// Piece name.
        piece: String,
        /// 1-based step within the move.
        step: usize,
        /// The step's direction.
        dir: Dir,
        /// The piece in the way.
        other: String,
    },
    /// Every move is legal but the final position does not meet the goal.
    #[error("every move is legal but the goal is not reached after {}", crate::plural::Count(*moves, "move"))]
    GoalNotReached {
        /// Number of moves replayed.
        moves: usize,
    },
}

/// Plays `moves` from the start and returns the anchors after each move (the first entry is the
/// start), or the first illegal move.
pub fn replay(puzzle: &Puzzle, moves: &[Move]) -> Result<Vec<Vec<Cell>>, VerifyError> {
    let mut states = vec![puzzle.start.clone()];
    replay_with(puzzle, moves, |anchors| states.push(anchors.to_vec()))?;
    Ok(states)
}

/// Plays `moves` (a list, or moves read one at a time and not held) from the start, calling
/// `after_move` with the anchors after each move; returns the final anchors and the number of
/// moves played, or the first illegal move.
pub fn replay_with(
    puzzle: &Puzzle,
    moves: impl IntoIterator<Item = impl Borrow<Move>>,
    mut after_move: impl FnMut(&[Cell]),
) -> Result<(Vec<Cell>, usize), VerifyError> {
    let cols = puzzle.board.cols;
    let mut anchors = puzzle.start.clone();
    let mut grid = puzzle.occupancy(&anchors);
    let mut played = 0;
    for (i, mv) in moves.into_iter().enumerate() {
        let mv = mv.borrow();
        let number = i + 1;
        let piece = &puzzle.pieces[mv.piece];
        let name = piece.name.clone();
        if mv.path.is_empty() {
            return Err(VerifyError::EmptyMove { number, piece: name });
        }
        let straight = mv.path.iter().all(|&d| d == mv.path[0]);
        let metric_ok = match puzzle.metric {
            Metric::Unit => mv.path.len() == 1,
            Metric::Straight => straight,
            Metric::Free => true,
        };
        if !metric_ok {
            let path = mv.compact(puzzle);
            return Err(VerifyError::WrongMetric { number, piece: name, metric: puzzle.metric, path });
        }
        for (s, &dir) in mv.path.iter().enumerate() {
            let step = s + 1;
            if !piece.movement.allows(dir) {
                return Err(VerifyError::Forbidden { number, piece: name, dir });
            }
            let anchor = anchors[mv.piece];
            let off_board = || VerifyError::OffBoard { number, piece: name.clone(), step, dir };
            let next = dir.step(anchor).ok_or_else(off_board)?;
            let mut target = Vec::with_capacity(piece.shape.offsets().len());
            for cell in piece.shape.cells_at(next) {
                let (r, c) = cell.filter(|&(r, c)| puzzle.board.is_open(r, c)).ok_or_else(off_board)?;
                match grid[r * cols + c] {
                    Some(other) if other != mv.piece => {
                        let other = puzzle.pieces[other].name.clone();
                        return Err(VerifyError::Blocked { number, piece: name, step, dir, other });
                    }
                    _ => target.push(r * cols + c),
                }
            }
            for (r, c) in piece.shape.cells_at(anchor).flatten() {
                grid[r * cols + c] = None;
            }
            for idx in target {
                grid[idx] = Some(mv.piece);
            }
            anchors[mv.piece] = next;
        }
        after_move(&anchors);
        played = number;
    }
    Ok((anchors, played))
}

/// Checks that `moves` (a list, or moves read one at a time and not held) is legal from the start
/// and ends at the goal; returns the final anchors and the number of moves.
pub fn verify(
    puzzle: &Puzzle,
    moves: impl IntoIterator<Item = impl Borrow<Move>>,
) -> Result<(Vec<Cell>, usize), VerifyError> {
    let (last, played) = replay_with(puzzle, moves, |_| {})?;
    if puzzle.is_goal(&last) { Ok((last, played)) } else { Err(VerifyError::GoalNotReached { moves: played }) }
}
