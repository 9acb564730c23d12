//! The user-level model of a sliding puzzle: what the user described, with no search code.
//!
//! A [`Puzzle`] is a [`Board`] (open cells; walls and holes anywhere), a list of [`Piece`]s with
//! their start anchors, a [`Goal`] and a [`Metric`]. Coordinates are `(row, col)`, 0-based; a
//! piece's anchor is its first cell in reading order.

mod board;
mod goal;
mod piece;

pub use board::{Board, Cell};
pub use goal::{Edge, Goal};
pub use piece::{Dir, Movement, Piece, Shape};

use std::fmt;
use std::str::FromStr;

/// How far one move may take one piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// One piece moves one cell.
    Unit,
    /// One piece moves one or more cells in one direction.
    Straight,
    /// One piece moves along any path of unit steps while the others stay put.
    Free,
}

impl FromStr for Metric {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "unit" => Ok(Metric::Unit),
            "straight" => Ok(Metric::Straight),
            "free" => Ok(Metric::Free),
            other => Err(format!("unknown metric '{other}' (expected unit, straight or free)")),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Metric::Unit => "unit",
            Metric::Straight => "straight",
            Metric::Free => "free",
        })
    }
}

/// The puzzle family a description came from; decides how states are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// The native drawn-grid format (Klotski and any block puzzle).
    Grid,
    /// The CS 351 course format.
    Cs351,
    /// An m×n sliding-tile puzzle.
    Tiles,
    /// A Rush Hour card.
    Rush,
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Family::Grid => "grid",
            Family::Cs351 => "cs351",
            Family::Tiles => "tiles",
            Family::Rush => "rush",
        })
    }
}

/// A complete puzzle: board, pieces with start positions, goal and metric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// The playing area.
    pub board: Board,
    /// The pieces, in input order.
    pub pieces: Vec<Piece>,
    /// The start anchor of every piece, parallel to `pieces`.
    pub start: Vec<Cell>,
    /// What counts as solved.
    pub goal: Goal,
    /// What counts as one move.
    pub metric: Metric,
    /// Whether pieces with the same shape and movement are interchangeable (goal pieces never are).
    pub merge_identical: bool,
    /// Where the description came from.
    pub family: Family,
}

impl Puzzle {
    /// The index of the piece with this name.
    pub fn piece_index(&self, name: &str) -> Option<usize> {
        self.pieces.iter().position(|p| p.name == name)
    }

    /// The cells every piece covers at the given anchors, as `grid[row*cols+col] = Some(piece)`.
    pub fn occupancy(&self, anchors: &[Cell]) -> Vec<Option<usize>> {
        let mut grid = vec![None; self.board.rows * self.board.cols];
        for (i, (piece, &anchor)) in self.pieces.iter().zip(anchors).enumerate() {
            for (r, c) in piece.shape.cells_at(anchor).flatten() {
                grid[r * self.board.cols + c] = Some(i);
            }
        }
        grid
    }

    /// Piece number plus one in every cell, 0 where empty: for a tile puzzle, the tile layout
    /// (piece `i` is tile `i + 1`).
    pub fn numbered_cells(&self, anchors: &[Cell]) -> Vec<u32> {
        self.occupancy(anchors).into_iter().map(|p| p.map_or(0, |i| i as u32 + 1)).collect()
    }

    /// Whether the pieces at these anchors satisfy the goal.
    pub fn is_goal(&self, anchors: &[Cell]) -> bool {
        self.goal.is_met(self, anchors)
    }

    /// Pieces grouped into interchangeable classes: `class[i]` is the smallest index of a piece
    /// identical to piece `i` (same shape and movement, neither named by the goal), honouring
    /// `merge_identical`.
    pub fn identity_classes(&self) -> Vec<usize> {
        let named = self.goal.named_pieces(self.pieces.len());
        let mut first_of_kind: std::collections::HashMap<(&Shape, Movement), usize> = Default::default();
        (0..self.pieces.len())
            .map(|i| {
                if !self.merge_identical || named[i] {
                    return i;
                }
                let piece = &self.pieces[i];
                *first_of_kind.entry((&piece.shape, piece.movement)).or_insert(i)
            })
            .collect()
    }
}

impl Puzzle {
    /// A shortest path of unit steps (tried up, down, left, right) taking `piece` from its anchor in
    /// `anchors` to `target` while every other piece stays put; `None` if there is none.
    pub fn path_alone(&self, anchors: &[Cell], piece: usize, target: Cell) -> Option<Vec<Dir>> {
        let occupancy = self.occupancy(anchors);
        let cols = self.board.cols;
        let p = &self.pieces[piece];
        let fits = |a: Cell| {
            p.shape.cells_at(a).all(|c| {
                c.is_some_and(|(r, c)| self.board.is_open(r, c) && occupancy[r * cols + c].is_none_or(|o| o == piece))
            })
        };
        let from = anchors[piece];
        let mut came: std::collections::HashMap<Cell, (Cell, Dir)> = std::collections::HashMap::new();
        let mut queue = std::collections::VecDeque::from([from]);
        while let Some(a) = queue.pop_front() {
            if a == target {
                let mut path = Vec::new();
                let mut at = a;
                while at != from {
                    let (prev, d) = came[&at];
                    path.push(d);
                    at = prev;
                }
                path.reverse();
                return Some(path);
            }
            for d in Dir::ALL.into_iter().filter(|&d| p.movement.allows(d)) {
                if let Some(b) = d.step(a)
                    && b != from
                    && !came.contains_key(&b)
                    && fits(b)
                {
                    came.insert(b, (a, d));
                    queue.push_back(b);
                }
            }
        }
        None
    }
}
