//! Solvability of sliding-tile puzzles by permutation parity, decided before any search.
//!
//! On an m×n board (m, n ≥ 2) with one blank, a layout can reach another exactly when the parity
//! of the permutation between them equals the parity of the blank's Manhattan distance. On a
//! 1×n or m×1 board tiles cannot pass each other, so their order must already agree.

use crate::puzzle::{Goal, Puzzle};

/// `Some(solvable)` when `puzzle` is a sliding-tile puzzle (open rectangle, distinct 1×1 movable
/// pieces, exactly one empty cell, full-layout goal); `None` for any other puzzle.
pub fn tile_solvability(puzzle: &Puzzle) -> Option<bool> {
    let Goal::Layout(target) = &puzzle.goal else {
        return None;
    };
    let board = &puzzle.board;
    let n = board.cell_count();
    let classes = puzzle.identity_classes();
    let tile_shaped = board.open.iter().all(|&o| o)
        && puzzle.pieces.len() + 1 == n
        && puzzle.pieces.iter().all(|p| p.shape.offsets().len() == 1 && p.movement == crate::puzzle::Movement::Both)
        && classes.iter().enumerate().all(|(i, &c)| c == i);
    if !tile_shaped {
        return None;
    }
    let layout = |anchors: &[(usize, usize)]| {
        let mut cells = vec![0u32; n];
        for (i, &(r, c)) in anchors.iter().enumerate() {
            cells[r * board.cols + c] = i as u32 + 1;
        }
        cells
    };
    let (start, goal) = (layout(&puzzle.start), layout(target));
    Some(layouts_connected(&start, &goal, board.rows, board.cols))
}

/// Whether tile layout `start` can reach `goal` (tile per cell, 0 the blank, same `rows × cols`
/// board, every tile once).
pub fn layouts_connected<T: Copy + Into<u64>>(start: &[T], goal: &[T], rows: usize, cols: usize) -> bool {
    let n = start.len();
    let tile = |t: T| t.into() as usize;
    if rows == 1 || cols == 1 {
        let order = |cells: &[T]| cells.iter().map(|&t| tile(t)).filter(|&t| t != 0).collect::<Vec<_>>();
        return order(start) == order(goal);
    }
    let mut goal_pos = vec![0usize; n];
    for (i, &t) in goal.iter().enumerate() {
        goal_pos[tile(t)] = i;
    }
    let mut perm: Vec<usize> = start.iter().map(|&t| goal_pos[tile(t)]).collect();
    let mut swaps = 0;
    for i in 0..n {
        while perm[i] != i {
            let j = perm[i];
            perm.swap(i, j);
            swaps += 1;
        }
    }
    let blank = |cells: &[T]| cells.iter().position(|&t| tile(t) == 0).expect("one blank");
    let (a, b) = (blank(start), blank(goal));
    let distance = (a / cols).abs_diff(b / cols) + (a % cols).abs_diff(b % cols);
    swaps % 2 == distance % 2
}
