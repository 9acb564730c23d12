//! The sliding-tile domain: a state is the tile in every cell, packed `b` bits a cell
//! (4 bits for up to 16 cells in a `u64`, 5 bits for up to 25 cells in a `u128`, wider keys
//! beyond). Only the blank's neighbours move, so a successor is two field writes.
//!
//! Move order: the tile below the blank moves up, the one above moves down, the one to the right
//! moves left, the one to the left moves right.

use super::key::{Field, Key, layout};
use super::{Domain, bits_for};
use crate::puzzle::{Cell, Goal, Puzzle};

/// A compiled sliding-tile puzzle over key type `K`.
#[derive(Debug)]
pub struct Tiles<K: Key> {
    cols: usize,
    /// Field of every cell, row-major.
    cells: Vec<Field>,
    /// `neighbours[c]`: the cells whose tile can slide into `c` when `c` is blank, in move order.
    neighbours: Vec<Vec<u32>>,
    start: K,
    goal: K,
    /// `weights[j]`: the weight `(m - 1 - j)!` of Lehmer digit `j` of the tile order (`m` tiles).
    weights: Vec<u64>,
    /// `m! / 2`, the dense indices per blank cell; 0 when `n * m! / 2` does not fit a `u64` or
    /// there are fewer than two tiles (no dense indices).
    half_orders: u64,
}

/// Per-thread working memory of [`Tiles`] (none needed).
#[derive(Debug, Default)]
pub struct TileScratch;

impl<K: Key> Tiles<K> {
    /// Words a tile puzzle of `cells` cells needs.
    pub fn words_for(cells: usize) -> usize {
        layout(&vec![bits_for(cells); cells]).1
    }

    /// Compiles a tile-shaped puzzle (see [`tile_solvability`](crate::parity::tile_solvability)).
    pub fn compile(puzzle: &Puzzle) -> Self {
        let (rows, cols) = (puzzle.board.rows, puzzle.board.cols);
        let n = rows * cols;
        let (cells, words) = layout(&vec![bits_for(n); n]);
        assert!(words <= K::WORDS, "key too narrow for {n} cells");
        let neighbours = (0..n)
            .map(|c| {
                let (r, col) = (c / cols, c % cols);
                let mut v = Vec::with_capacity(4);
                if r + 1 < rows {
                    v.push((c + cols) as u32);
                }
                if r > 0 {
                    v.push((c - cols) as u32);
                }
                if col + 1 < cols {
                    v.push((c + 1) as u32);
                }
                if col > 0 {
                    v.push((c - 1) as u32);
                }
                v
            })
            .collect();
        let m = n - 1;
        let factorial = |k: usize| (1..=k as u64).try_fold(1u64, u64::checked_mul);
        let half_orders = factorial(m)
            .filter(|_| m >= 2)
            .map(|orders| orders / 2)
            .filter(|half| half.checked_mul(n as u64).is_some());
        // Only needed (and then all fitting a u64) when there are dense indices.
        let weights = match half_orders {
            Some(_) => (0..m).filter_map(|j| factorial(m - 1 - j)).collect(),
            None => Vec::new(),
        };
        let mut domain = Tiles {
            cols,
            cells,
            neighbours,
            start: K::zero(),
            goal: K::zero(),
            weights,
            half_orders: half_orders.unwrap_or(0),
        };
        domain.start = domain.encode(&puzzle.start);
        let Goal::Layout(target) = &puzzle.goal else { panic!("a tile puzzle has a layout goal") };
        domain.goal = domain.encode(target);
        domain
    }

    fn encode(&self, anchors: &[Cell]) -> K {
        let mut key = K::zero();
        for (i, &(r, c)) in anchors.iter().enumerate() {
            self.cells[r * self.cols + c].set(&mut key, i as u32 + 1);
        }
        key
    }

    #[inline]
    fn blank(&self, key: &K) -> usize {
        self.cells.iter().position(|f| f.get(key) == 0).expect("one blank")
    }
}

impl<K: Key> Domain for Tiles<K> {
    type Key = K;
    type Scratch = TileScratch;

    fn scratch(&self) -> TileScratch {
        TileScratch
    }

    fn start(&self) -> K {
        self.start
    }

    #[inline]
    fn is_goal(&self, key: &K) -> bool {
        *key == self.goal
    }

    fn goal_key(&self) -> Option<K> {
        Some(self.goal)
    }

    #[inline]
    fn for_each_successor<F: FnMut(K)>(&self, key: &K, _: &mut TileScratch, mut f: F) {
        let blank = self.blank(key);
        for &from in &self.neighbours[blank] {
            let field = self.cells[from as usize];
            let tile = field.get(key);
            let mut child = *key;
            field.set(&mut child, 0);
            self.cells[blank].set(&mut child, tile);
            f(child);
        }
    }

    fn moved_anchor(&self, from: &K, to: &K) -> Option<(Cell, Cell)> {
        let (a, b) = (self.blank(from), self.blank(to));
        (a != b).then(|| ((b / self.cols, b % self.cols), (a / self.cols, a % self.cols)))
    }

    #[inline]
    fn tile_cells(&self, key: &K, out: &mut [u8]) -> bool {
        for (o, f) in out.iter_mut().zip(&self.cells) {
            *o = f.get(key) as u8;
        }
        true
    }

    /// Every reachable state keeps the parity of its tile order plus, on a board of even width,
    /// the blank's row (a horizontal move keeps the order; a vertical one passes a tile over
    /// `cols - 1` others), so the blank's cell fixes the order's parity.
    fn dense_states(&self) -> u64 {
        self.half_orders * self.cells.len() as u64
    }

    /// The blank's cell times `m!/2`, plus the tile order's Lehmer rank halved (ranks `2w` and
    /// `2w + 1` differ only in the order of the last two tiles, so in parity).
    #[inline]
    fn dense_index(&self, key: &K) -> u64 {
        let (mut unseen, mut rank, mut blank, mut j) = (u32::MAX, 0u64, 0, 0);
        for (c, field) in self.cells.iter().enumerate() {
            let tile = field.get(key);
            if tile == 0 {
                blank = c;
                continue;
            }
            let below = unseen & ((1 << (tile - 1)) - 1);
            unseen &= !(1 << (tile - 1));
            rank += below.count_ones() as u64 * self.weights[j];
            j += 1;
        }
        blank as u64 * self.half_orders + rank / 2
    }

    /// Every move is a transposition of the blank with a tile, so it flips permutation parity.
    fn bipartite(&self) -> bool {
        true
    }

    fn anchors(&self, key: &K) -> Vec<Cell> {
        let mut anchors = vec![(0, 0); self.cells.len() - 1];
        for (c, f) in self.cells.iter().enumerate() {
            let t = f.get(key) as usize;
            if t > 0 {
                anchors[t - 1] = (c / self.cols, c % self.cols);
            }
        }
        anchors
    }
}
