//! A fast, non-optimal constructive solver for sliding-tile puzzles of any size (m, n ≥ 2).
//!
//! The method people use by hand: fix the top row or the left column of the unsolved rectangle
//! (whichever dimension is larger), shrink the rectangle, repeat; the last two tiles of each line
//! go in with the classic trick (park them beside their cells, then rotate them in); the final
//! 2×2 is solved by rotating the blank. Any goal layout is handled by relabelling tiles so the
//! goal becomes the standard one with the blank in the bottom-right corner. Finally, pairs of
//! moves that cancel are removed. The result is a list of blank steps.

use crate::puzzle::Dir;
use crate::search::LimitHit;
use std::collections::VecDeque;
use std::time::Instant;

/// How far the solver may go: the most blank steps it may record (what its solution holds grows
/// with them) and the instant to stop at.
#[derive(Clone, Copy, Debug)]
pub struct StepLimits {
    /// The most blank steps recorded.
    pub most_steps: usize,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
}

/// Steps between two looks at the clock.
const CLOCK_EVERY: u64 = 1 << 16;

/// A tile board being solved: the tile in every cell (0 = blank) and the blank's cell.
struct Board {
    rows: usize,
    cols: usize,
    cells: Vec<u32>,
    /// `position[tile]`: the cell holding `tile`.
    position: Vec<usize>,
    blank: usize,
    /// Blank steps taken so far.
    steps: Vec<Dir>,
    /// Cells that may not be disturbed (placed tiles, parked tiles).
    locked: Vec<bool>,
    /// The active rectangle: rows `top..rows`, cols `left..cols`.
    top: usize,
    left: usize,
    limits: StepLimits,
    /// Steps taken, recorded or not.
    taken: u64,
    /// The limit that stopped the recording, if one did (the board still moves, and the solver
    /// gives up at the end of the line it is solving).
    hit: Option<LimitHit>,
}

impl Board {
    fn new(rows: usize, cols: usize, cells: Vec<u32>, limits: StepLimits) -> Option<Board> {
        let mut position = vec![0; cells.len()];
        for (i, &t) in cells.iter().enumerate() {
            position[t as usize] = i;
        }
        let blank = cells.iter().position(|&t| t == 0)?;
        let locked = vec![false; cells.len()];
        let steps = Vec::new();
        Some(Board { rows, cols, cells, position, blank, steps, locked, top: 0, left: 0, limits, taken: 0, hit: None })
    }

    /// Bytes held: the steps recorded and, per cell, its tile, its tile's position and its lock.
    fn bytes(&self) -> u64 {
        (self.steps.capacity() + self.cells.len() * (4 + std::mem::size_of::<usize>() + 1)) as u64
    }

    fn at(&self, r: usize, c: usize) -> usize {
        r * self.cols + c
    }

    fn inside(&self, cell: usize) -> bool {
        cell / self.cols >= self.top && cell % self.cols >= self.left
    }

    /// The neighbour of `cell` in direction `d`, if on the board.
    fn neighbour(&self, cell: usize, d: Dir) -> Option<usize> {
        let (r, c) = (cell / self.cols, cell % self.cols);
        match d {
            Dir::Up => (r > 0).then(|| cell - self.cols),
            Dir::Down => (r + 1 < self.rows).then(|| cell + self.cols),
            Dir::Left => (c > 0).then(|| cell - 1),
            Dir::Right => (c + 1 < self.cols).then(|| cell + 1),
        }
    }

    /// Moves the blank one step in direction `d` (the tile there slides the other way).
    fn step(&mut self, d: Dir) {
        let to = self.neighbour(self.blank, d).expect("a legal blank step");
        self.cells.swap(self.blank, to);
        self.position[self.cells[self.blank] as usize] = self.blank;
        self.blank = to;
        self.taken += 1;
        if self.hit.is_none() && self.taken.is_multiple_of(CLOCK_EVERY) && crate::search::past(self.limits.deadline) {
            self.hit = Some(LimitHit::Time);
        }
        if self.hit.is_none() && self.steps.len() == self.limits.most_steps {
            self.hit = Some(LimitHit::Memory);
        }
        if self.hit.is_none() {
            self.steps.push(d);
        }
    }

    fn free(&self, cell: usize, avoid: usize) -> bool {
        cell != avoid && self.inside(cell) && !self.locked[cell]
    }

    /// The direction from `a` to the adjacent cell `b`.
    fn direction(&self, a: usize, b: usize) -> Dir {
        if b + self.cols == a {
            Dir::Up
        } else if a + self.cols == b {
            Dir::Down
        } else if b + 1 == a {
            Dir::Left
        } else {
            Dir::Right
        }
    }

    /// Routes the blank to `target` without touching locked cells or `avoid`: an L-shaped path if
    /// one is clear, else a breadth-first search in a window that grows to the whole rectangle.
    /// Returns false (having moved nothing) when `avoid` and locked cells wall the blank off.
    fn route_blank(&mut self, target: usize, avoid: usize) -> bool {
        if self.blank == target {
            return true;
        }
        for vertical_first in [true, false] {
            if let Some(path) = self.l_path(target, avoid, vertical_first) {
                path.into_iter().for_each(|d| self.step(d));
                return true;
            }
        }
        let mut margin = 1;
        while margin <= 2 * (self.rows + self.cols) {
            if let Some(path) = self.window_path(target, avoid, margin) {
                path.into_iter().for_each(|d| self.step(d));
                return true;
            }
            margin *= 2;
        }
        false
    }

    /// Brings each `(tile, cell)` of `goals` to its cell and the blank to `blank_target` (if
    /// given) by a breadth-first search over the positions of those tiles and the blank, inside a
    /// window around them that grows until the search succeeds. Other unlocked tiles may move.
    fn arrange(&mut self, goals: &[(u32, usize)], blank_target: Option<usize>) {
        let mut margin = 1;
        loop {
            if let Some(path) = self.arrange_in_window(goals, blank_target, margin) {
                path.into_iter().for_each(|d| self.step(d));
                return;
            }
            assert!(margin <= 2 * (self.rows + self.cols), "a solvable arrangement exists in the active rectangle");
            margin *= 2;
        }
    }

    fn arrange_in_window(
        &self,
        goals: &[(u32, usize)],
        blank_target: Option<usize>,
        margin: usize,
    ) -> Option<Vec<Dir>> {
        let mut tracked: Vec<usize> = goals.iter().map(|&(t, _)| self.position[t as usize]).collect();
        let mut interesting: Vec<usize> = tracked.clone();
        interesting.extend(goals.iter().map(|&(_, c)| c));
        interesting.push(self.blank);
        interesting.extend(blank_target);
        let rs = interesting.iter().map(|&c| c / self.cols);
        let cs = interesting.iter().map(|&c| c % self.cols);
        let r0 = rs.clone().min()?.saturating_sub(margin).max(self.top);
        let r1 = (rs.max()? + margin).min(self.rows - 1);
        let c0 = cs.clone().min()?.saturating_sub(margin).max(self.left);
        let c1 = (cs.max()? + margin).min(self.cols - 1);
        let usable = |cell: usize| {
            (r0..=r1).contains(&(cell / self.cols))
                && (c0..=c1).contains(&(cell % self.cols))
                && self.free(cell, usize::MAX)
        };
        tracked.push(self.blank);
        let done = |state: &[usize]| {
            goals.iter().zip(state).all(|(&(_, cell), &at)| at == cell)
                && blank_target.is_none_or(|b| state[goals.len()] == b)
        };
        let mut came: std::collections::HashMap<Vec<usize>, (Vec<usize>, Dir)> = std::collections::HashMap::new();
        let mut queue = VecDeque::from([tracked.clone()]);
        came.insert(tracked.clone(), (Vec::new(), Dir::Up));
        while let Some(state) = queue.pop_front() {
            if done(&state) {
                let mut path = Vec::new();
                let mut at = state;
                while at != tracked {
                    let (prev, d) = came[&at].clone();
                    path.push(d);
                    at = prev;
                }
                path.reverse();
                return Some(path);
            }
            let blank = state[goals.len()];
            for d in Dir::ALL {
                let Some(next) = self.neighbour(blank, d).filter(|&c| usable(c)) else { continue };
                let mut moved = state.clone();
                if let Some(i) = moved[..goals.len()].iter().position(|&c| c == next) {
                    moved[i] = blank;
                }
                moved[goals.len()] = next;
                if !came.contains_key(&moved) {
                    came.insert(moved.clone(), (state.clone(), d));
                    queue.push_back(moved);
                }
            }
        }
        None
    }

    fn l_path(&self, target: usize, avoid: usize, vertical_first: bool) -> Option<Vec<Dir>> {
        let (br, bc) = (self.blank / self.cols, self.blank % self.cols);
        let (tr, tc) = (target / self.cols, target % self.cols);
        let vertical = if tr > br { (Dir::Down, tr - br) } else { (Dir::Up, br - tr) };
        let horizontal = if tc > bc { (Dir::Right, tc - bc) } else { (Dir::Left, bc - tc) };
        let legs = if vertical_first { [vertical, horizontal] } else { [horizontal, vertical] };
        let mut path = Vec::new();
        let mut at = self.blank;
        for (d, n) in legs {
            for _ in 0..n {
                at = self.neighbour(at, d)?;
                if !self.free(at, avoid) {
                    return None;
                }
                path.push(d);
            }
        }
        Some(path)
    }

    fn window_path(&self, target: usize, avoid: usize, margin: usize) -> Option<Vec<Dir>> {
        let (br, bc) = (self.blank / self.cols, self.blank % self.cols);
        let (tr, tc) = (target / self.cols, target % self.cols);
        let r0 = br.min(tr).saturating_sub(margin).max(self.top);
        let r1 = (br.max(tr) + margin).min(self.rows - 1);
        let c0 = bc.min(tc).saturating_sub(margin).max(self.left);
        let c1 = (bc.max(tc) + margin).min(self.cols - 1);
        let width = c1 - c0 + 1;
        let local = |cell: usize| (cell / self.cols - r0) * width + (cell % self.cols - c0);
        let in_window =
            |cell: usize| (r0..=r1).contains(&(cell / self.cols)) && (c0..=c1).contains(&(cell % self.cols));
        // came[local cell] = the direction that reached it (+1), 0 = unvisited.
        let mut came = vec![0u8; (r1 - r0 + 1) * width];
        came[local(self.blank)] = 5;
        let mut queue = VecDeque::from([self.blank]);
        while let Some(cell) = queue.pop_front() {
            if cell == target {
                let mut path = Vec::new();
                let mut at = cell;
                while at != self.blank {
                    let d = Dir::ALL[came[local(at)] as usize - 1];
                    path.push(d);
                    at = self.neighbour(at, d.opposite()).expect("came from a neighbour");
                }
                path.reverse();
                return Some(path);
            }
            for (k, d) in Dir::ALL.into_iter().enumerate() {
                if let Some(next) = self.neighbour(cell, d)
                    && in_window(next)
                    && came[local(next)] == 0
                    && self.free(next, avoid)
                {
                    came[local(next)] = k as u8 + 1;
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// Moves `tile` to `target` along a shortest free path, one cell at a time.
    fn place(&mut self, tile: u32, target: usize) {
        let mut at = self.position[tile as usize];
        while at != target {
            let next = self.tile_step(at, target);
            if !self.route_blank(next, at) {
                self.arrange(&[(tile, target)], None);
                return;
            }
            let d = self.direction(self.blank, at);
            self.step(d);
            at = next;
        }
    }

    /// The next cell for a tile at `from` heading to `target`: a free neighbour that brings it
    /// closer, else the first cell of a shortest free path.
    fn tile_step(&self, from: usize, target: usize) -> usize {
        let (fr, fc) = (from / self.cols, from % self.cols);
        let (tr, tc) = (target / self.cols, target % self.cols);
        let closer = [
            (tr < fr).then_some(Dir::Up),
            (tc < fc).then_some(Dir::Left),
            (tr > fr).then_some(Dir::Down),
            (tc > fc).then_some(Dir::Right),
        ];
        for d in closer.into_iter().flatten() {
            if let Some(next) = self.neighbour(from, d)
                && self.inside(next)
                && !self.locked[next]
            {
                return next;
            }
        }
        self.shortest_step(from, target)
    }

    /// The first cell of a shortest path for a tile from `from` to `target` through free cells.
    fn shortest_step(&self, from: usize, target: usize) -> usize {
        let mut came: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        let mut queue = VecDeque::from([target]);
        came.insert(target, target);
        while let Some(cell) = queue.pop_front() {
            for d in Dir::ALL {
                if let Some(next) = self.neighbour(cell, d) {
                    if next == from {
                        return cell;
                    }
                    if self.inside(next) && !self.locked[next] && !came.contains_key(&next) {
                        came.insert(next, cell);
                        queue.push_back(next);
                    }
                }
            }
        }
        panic!("a free path exists inside the active rectangle")
    }

    /// Places the tiles of line `cells` (the top row or the left column of the active rectangle,
    /// in order); `off` maps a line cell to its neighbour one step into the rectangle.
    fn solve_line(&mut self, cells: &[usize], off: impl Fn(usize) -> usize, goal: impl Fn(usize) -> u32) {
        let k = cells.len();
        for &cell in &cells[..k - 2] {
            self.place(goal(cell), cell);
            self.locked[cell] = true;
        }
        let (a_cell, b_cell) = (cells[k - 2], cells[k - 1]);
        let (a, b) = (goal(a_cell), goal(b_cell));
        if self.cells[a_cell] == a && self.cells[b_cell] == b {
            self.locked[a_cell] = true;
            self.locked[b_cell] = true;
            return;
        }
        // Park B in A's cell and A just inside it with the blank in B's cell, then rotate both in.
        // Ordinary placement gets them close; a small joint search finishes the arrangement, which
        // also covers A stuck in B's corner and the blank trapped beside it.
        self.place(b, a_cell);
        self.place(a, off(a_cell));
        self.arrange(&[(b, a_cell), (a, off(a_cell))], Some(b_cell));
        let d = self.direction(b_cell, a_cell);
        self.step(d);
        let d = self.direction(a_cell, off(a_cell));
        self.step(d);
        self.locked[a_cell] = true;
        self.locked[b_cell] = true;
    }
}

/// Blank steps taking `start` to `goal` (tile per cell, 0 = blank, same shape `rows × cols`,
/// both at least 2), or `None` when the layouts are not in the same parity class; `Err` with the
/// limit and the bytes held when one stopped it (checked as it steps, given up at the end of the
/// line being solved).
pub fn constructive(
    rows: usize,
    cols: usize,
    start: &[u32],
    goal: &[u32],
    limits: StepLimits,
) -> Result<Option<Vec<Dir>>, (LimitHit, u64)> {
    assert!(rows >= 2 && cols >= 2, "the constructive solver needs at least a 2x2 board");
    let n = rows * cols;
    // Route the goal's blank to the bottom-right corner; those steps, reversed, end the solution.
    let Some(mut shifted) = Board::new(rows, cols, goal.to_vec(), limits) else { return Ok(None) };
    shifted.arrange(&[], Some(n - 1));
    if let Some(hit) = shifted.hit {
        return Err((hit, shifted.bytes()));
    }
    let tail: Vec<Dir> = shifted.steps.iter().rev().map(|d| d.opposite()).collect();
    // Relabel: the tile that the shifted goal has in cell i becomes tile i + 1.
    let mut label = vec![0u32; n];
    for (i, &t) in shifted.cells.iter().enumerate() {
        label[t as usize] = if t == 0 { 0 } else { i as u32 + 1 };
    }
    let cells: Vec<u32> = start.iter().map(|&t| label[t as usize]).collect();
    let limits = StepLimits { most_steps: limits.most_steps.saturating_sub(tail.len()), ..limits };
    let Some(mut board) = Board::new(rows, cols, cells, limits) else { return Ok(None) };
    while rows - board.top > 2 || cols - board.left > 2 {
        if let Some(hit) = board.hit {
            return Err((hit, board.bytes() + tail.len() as u64));
        }
        let (height, width) = (rows - board.top, cols - board.left);
        if height >= width && height > 2 || width == 2 {
            let r = board.top;
            let line: Vec<usize> = (board.left..cols).map(|c| board.at(r, c)).collect();
            board.solve_line(&line, |cell| cell + cols, |cell| cell as u32 + 1);
            board.top += 1;
        } else {
            let c = board.left;
            let line: Vec<usize> = (board.top..rows).map(|r| board.at(r, c)).collect();
            board.solve_line(&line, |cell| cell + 1, |cell| cell as u32 + 1);
            board.left += 1;
        }
    }
    board.arrange(&[], Some(n - 1));
    let cycle = [Dir::Up, Dir::Left, Dir::Down, Dir::Right];
    let solved = |b: &Board| b.cells.iter().enumerate().all(|(i, &t)| t == if i == n - 1 { 0 } else { i as u32 + 1 });
    for _ in 0..3 {
        if solved(&board) {
            break;
        }
        cycle.iter().for_each(|&d| board.step(d));
    }
    if let Some(hit) = board.hit {
        return Err((hit, board.bytes() + tail.len() as u64));
    }
    if !solved(&board) {
        return Ok(None);
    }
    let mut steps = board.steps;
    steps.extend(tail);
    Ok(Some(cancel_pairs(steps)))
}

/// Removes adjacent steps that undo each other, repeatedly (a stack does it in one pass).
pub fn cancel_pairs(steps: Vec<Dir>) -> Vec<Dir> {
    let mut out: Vec<Dir> = Vec::with_capacity(steps.len());
    for d in steps {
        if out.last() == Some(&d.opposite()) {
            out.pop();
        } else {
            out.push(d);
        }
    }
    out
}
