//! What counts as solved.

use super::{Cell, Puzzle};
use std::fmt;

/// One side of the board's bounding rectangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edge {
    /// Row 0.
    Top,
    /// The last row.
    Bottom,
    /// Column 0.
    Left,
    /// The last column.
    Right,
}

impl Edge {
    /// The edge named `top`, `bottom`, `left` or `right`.
    pub fn from_name(s: &str) -> Option<Edge> {
        match s.to_ascii_lowercase().as_str() {
            "top" => Some(Edge::Top),
            "bottom" => Some(Edge::Bottom),
            "left" => Some(Edge::Left),
            "right" => Some(Edge::Right),
            _ => None,
        }
    }

    /// Whether `cell` lies on this edge of a `rows` x `cols` rectangle.
    pub fn holds(self, (row, col): Cell, rows: usize, cols: usize) -> bool {
        match self {
            Edge::Top => row == 0,
            Edge::Bottom => row + 1 == rows,
            Edge::Left => col == 0,
            Edge::Right => col + 1 == cols,
        }
    }
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Edge::Top => "top",
            Edge::Bottom => "bottom",
            Edge::Left => "left",
            Edge::Right => "right",
        })
    }
}

/// The condition a final position must meet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Each listed piece has its anchor at the given cell.
    PiecesAt(Vec<(usize, Cell)>),
    /// The piece touches the given edge of the board's bounding rectangle.
    Reaches(usize, Edge),
    /// Every piece is at the given anchor (identical pieces may trade places).
    Layout(Vec<Cell>),
}

impl Goal {
    /// `named[i]` is true when the goal names piece `i` individually (such pieces stay distinct).
    pub fn named_pieces(&self, piece_count: usize) -> Vec<bool> {
        let mut named = vec![false; piece_count];
        match self {
            Goal::PiecesAt(list) => list.iter().for_each(|&(p, _)| named[p] = true),
            Goal::Reaches(p, _) => named[*p] = true,
            Goal::Layout(_) => {}
        }
        named
    }

    /// The same goal with every piece index `p` replaced by `to(p)` (kinds of a family to the
    /// pieces of one of its puzzles, say).
    pub fn renumbered(&self, to: impl Fn(usize) -> usize) -> Goal {
        match self {
            Goal::PiecesAt(list) => Goal::PiecesAt(list.iter().map(|&(p, cell)| (to(p), cell)).collect()),
            Goal::Reaches(p, edge) => Goal::Reaches(to(*p), *edge),
            Goal::Layout(target) => Goal::Layout(target.clone()),
        }
    }

    /// Checks that the goal can be met on `puzzle`'s board: every piece it places exists and fits
    /// on open cells there, and a full layout places every piece.
    pub fn check(&self, puzzle: &Puzzle) -> Result<(), String> {
        let pieces = &puzzle.pieces;
        let piece = |p: usize| pieces.get(p).ok_or_else(|| format!("the goal names piece {p}, which does not exist"));
        let fits = |p: usize, anchor: Cell| -> Result<(), String> {
            let piece = piece(p)?;
            if puzzle.board.fits(&piece.shape, anchor) {
                return Ok(());
            }
            let (rows, cols) = (puzzle.board.rows, puzzle.board.cols);
            Err(format!(
                "the goal puts piece '{}' at {},{}, where it does not fit on the {rows}x{cols} board",
                piece.name, anchor.0, anchor.1
            ))
        };
        match self {
            Goal::PiecesAt(list) => list.iter().try_for_each(|&(p, anchor)| fits(p, anchor)),
            Goal::Reaches(p, _) => piece(*p).map(drop),
            Goal::Layout(target) if target.len() != pieces.len() => {
                Err(format!("the goal layout places {} pieces, the puzzle has {}", target.len(), pieces.len()))
            }
            Goal::Layout(target) => target.iter().enumerate().try_for_each(|(p, &anchor)| fits(p, anchor)),
        }
    }

    /// Whether `anchors` (one per piece of `puzzle`) satisfies this goal.
    pub fn is_met(&self, puzzle: &Puzzle, anchors: &[Cell]) -> bool {
        match self {
            Goal::PiecesAt(list) => list.iter().all(|&(p, cell)| anchors[p] == cell),
            Goal::Reaches(p, edge) => {
                let mut cells = puzzle.pieces[*p].shape.cells_at(anchors[*p]).flatten();
                cells.any(|cell| edge.holds(cell, puzzle.board.rows, puzzle.board.cols))
            }
            Goal::Layout(target) => {
                let class = puzzle.identity_classes();
                let mut have: Vec<(usize, Cell)> = anchors.iter().enumerate().map(|(i, &a)| (class[i], a)).collect();
                let mut want: Vec<(usize, Cell)> = target.iter().enumerate().map(|(i, &a)| (class[i], a)).collect();
                have.sort_unstable();
                want.sort_unstable();
                have == want
            }
        }
    }
}
