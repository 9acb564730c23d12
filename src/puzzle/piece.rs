//! Pieces: a shape (cell offsets from the anchor), a name and a movement limit.

use super::Cell;
use std::fmt;

/// One of the four unit directions, in the order moves are tried: up, down, left, right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    /// Towards row 0.
    Up,
    /// Towards the last row.
    Down,
    /// Towards column 0.
    Left,
    /// Towards the last column.
    Right,
}

impl Dir {
    /// All directions in move-generation order.
    pub const ALL: [Dir; 4] = [Dir::Up, Dir::Down, Dir::Left, Dir::Right];

    /// The `(drow, dcol)` of one step.
    pub fn delta(self) -> (isize, isize) {
        match self {
            Dir::Up => (-1, 0),
            Dir::Down => (1, 0),
            Dir::Left => (0, -1),
            Dir::Right => (0, 1),
        }
    }

    /// The direction that undoes this one.
    pub fn opposite(self) -> Dir {
        match self {
            Dir::Up => Dir::Down,
            Dir::Down => Dir::Up,
            Dir::Left => Dir::Right,
            Dir::Right => Dir::Left,
        }
    }

    /// The one-letter code used in compact solutions: `U`, `D`, `L`, `R`.
    pub fn letter(self) -> char {
        match self {
            Dir::Up => 'U',
            Dir::Down => 'D',
            Dir::Left => 'L',
            Dir::Right => 'R',
        }
    }

    /// The direction for a one-letter code (either case).
    pub fn from_letter(c: char) -> Option<Dir> {
        match c.to_ascii_uppercase() {
            'U' => Some(Dir::Up),
            'D' => Some(Dir::Down),
            'L' => Some(Dir::Left),
            'R' => Some(Dir::Right),
            _ => None,
        }
    }

    /// The cell one step away from `cell` in this direction, if it has no negative coordinate.
    pub fn step(self, (r, c): Cell) -> Option<Cell> {
        let (dr, dc) = self.delta();
        Some((r.checked_add_signed(dr)?, c.checked_add_signed(dc)?))
    }

    /// Whether the direction is horizontal.
    pub fn is_horizontal(self) -> bool {
        matches!(self, Dir::Left | Dir::Right)
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dir::Up => "up",
            Dir::Down => "down",
            Dir::Left => "left",
            Dir::Right => "right",
        })
    }
}

/// Which directions a piece may move in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Movement {
    /// Left and right only.
    Horizontal,
    /// Up and down only.
    Vertical,
    /// Any direction.
    Both,
    /// The piece never moves.
    None,
}

impl Movement {
    /// Whether a step in `dir` is allowed.
    pub fn allows(self, dir: Dir) -> bool {
        match self {
            Movement::Horizontal => dir.is_horizontal(),
            Movement::Vertical => !dir.is_horizontal(),
            Movement::Both => true,
            Movement::None => false,
        }
    }

    /// The movement for a code `h`, `v`, `b` or `n` (either case).
    pub fn from_code(c: char) -> Option<Movement> {
        match c.to_ascii_lowercase() {
            'h' => Some(Movement::Horizontal),
            'v' => Some(Movement::Vertical),
            'b' => Some(Movement::Both),
            'n' => Some(Movement::None),
            _ => None,
        }
    }
}

/// A piece's cells as `(drow, dcol)` offsets from its anchor, in reading order; the first is `(0, 0)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    offsets: Vec<(isize, isize)>,
}

impl Shape {
    /// The shape covering these absolute cells (any order, at least one); returns it with its anchor.
    pub fn from_cells(cells: &[Cell]) -> Option<(Shape, Cell)> {
        let mut sorted = cells.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let anchor = *sorted.first()?;
        let offsets =
            sorted.iter().map(|&(r, c)| (r as isize - anchor.0 as isize, c as isize - anchor.1 as isize)).collect();
        Some((Shape { offsets }, anchor))
    }

    /// A solid `height × width` rectangle.
    pub fn rectangle(height: usize, width: usize) -> Shape {
        let offsets = (0..height as isize).flat_map(|r| (0..width as isize).map(move |c| (r, c))).collect();
        Shape { offsets }
    }

    /// The offsets from the anchor, in reading order.
    pub fn offsets(&self) -> &[(isize, isize)] {
        &self.offsets
    }

    /// The cells covered with the anchor at `anchor` (`None` for a cell off the top or left).
    pub fn cells_at(&self, anchor: Cell) -> impl Iterator<Item = Option<Cell>> + '_ {
        self.offsets
            .iter()
            .map(move |&(dr, dc)| Some((anchor.0.checked_add_signed(dr)?, anchor.1.checked_add_signed(dc)?)))
    }
}

/// One piece of a puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The name shown in output and used in solutions.
    pub name: String,
    /// The cells it covers relative to its anchor.
    pub shape: Shape,
    /// The directions it may move in.
    pub movement: Movement,
}
