//! The playing area: a rectangle of cells, some of them open.

use crate::memory::{self, TooLarge};

/// A cell position `(row, col)`, 0-based.
pub type Cell = (usize, usize);

/// A rectangular grid in which only the open cells can hold pieces; the rest are walls or holes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// Number of rows of the bounding rectangle.
    pub rows: usize,
    /// Number of columns of the bounding rectangle.
    pub cols: usize,
    /// `open[row * cols + col]` is true when that cell is part of the playing area.
    pub open: Vec<bool>,
}

impl Board {
    /// Bytes the program may hold per board cell across parsing, compiling and printing one
    /// position (open flags, occupancy grids, drawn text, move-table bitboards), an upper bound.
    pub const BYTES_PER_CELL: u64 = 32;

    /// The cell count of a `rows × cols` board, checked for overflow and against the memory
    /// `limit` (see [`Board::BYTES_PER_CELL`]) before anything of that size is allocated.
    pub fn checked_cells(rows: usize, cols: usize, limit: u64) -> Result<usize, TooLarge> {
        let what = || format!("a board of {rows} x {cols} cells");
        let bytes = rows.checked_mul(cols).and_then(|n| memory::product(&[n], Self::BYTES_PER_CELL));
        memory::check(what, bytes, limit)?;
        Ok(rows * cols)
    }

    /// A fully open `rows × cols` board.
    pub fn rectangle(rows: usize, cols: usize) -> Self {
        Board { rows, cols, open: vec![true; rows * cols] }
    }

    /// Whether `(row, col)` lies on the board and is open.
    pub fn is_open(&self, row: usize, col: usize) -> bool {
        row < self.rows && col < self.cols && self.open[row * self.cols + col]
    }

    /// Whether `shape` with its anchor at `anchor` covers open cells only.
    pub fn fits(&self, shape: &super::Shape, anchor: Cell) -> bool {
        shape.cells_at(anchor).all(|c| c.is_some_and(|(r, c)| self.is_open(r, c)))
    }

    /// Number of cells in the bounding rectangle.
    pub fn cell_count(&self) -> usize {
        self.rows * self.cols
    }
}
