//! The playing area: a rectangle of cells, some of them open.

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
    /// A fully open `rows × cols` board.
    pub fn rectangle(rows: usize, cols: usize) -> Self {
        Board { rows, cols, open: vec![true; rows * cols] }
    }

    /// Whether `(row, col)` lies on the board and is open.
    pub fn is_open(&self, row: usize, col: usize) -> bool {
        row < self.rows && col < self.cols && self.open[row * self.cols + col]
    }

    /// Number of cells in the bounding rectangle.
    pub fn cell_count(&self) -> usize {
        self.rows * self.cols
    }
}
