//! The perfect-hash enumerator for sliding tiles: a state is an index, the visited set and the
//! frontiers are bit arrays (3 bits a state in all), layers are expanded in parallel.
//!
//! A state is the blank's cell `b` and the order of the `m = n - 1` tiles in reading order,
//! ranked by its Lehmer code: `index = b * m! + rank(order)`. The puzzle's structure makes the
//! moves cheap: a horizontal move keeps the tile order (only `b` changes, no ranking at all), and a
//! vertical move rotates a run of `cols` consecutive tiles of the order, which changes only the
//! Lehmer digits of that run, so the child's rank is updated in `O(cols)`. In the straight metric
//! (`k` tiles of a row or column slid at once) a move is `k` such steps.

use crate::puzzle::Metric;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Most cells the perfect-hash enumerator takes (13 cells: three 778 MB bit arrays).
pub const MAX_CELLS: usize = 13;

/// A bit array shared by the worker threads.
struct Bits(Vec<AtomicU64>);

impl Bits {
    fn new(bits: u64) -> Bits {
        Bits((0..bits.div_ceil(64)).into_par_iter().map(|_| AtomicU64::new(0)).collect())
    }
    #[inline]
    fn set(&self, i: u64) -> bool {
        let mask = 1u64 << (i % 64);
        self.0[(i / 64) as usize].fetch_or(mask, Ordering::Relaxed) & mask == 0
    }
    fn clear(&self) {
        self.0.par_iter().for_each(|w| w.store(0, Ordering::Relaxed));
    }
    fn bytes(&self) -> u64 {
        self.0.len() as u64 * 8
    }
}

/// The board geometry and the factorials of the ranking.
struct Space {
    rows: usize,
    cols: usize,
    /// Tiles: `n - 1`.
    m: usize,
    /// `weight[j] = (m - 1 - j)!`, the weight of Lehmer digit `j`.
    weight: Vec<u64>,
    /// `m!`: states per blank cell.
    per_blank: u64,
    metric: Metric,
}

/// One decoded state: blank cell, tile order (values `0..m`) and its Lehmer digits.
#[derive(Clone, Copy)]
struct State {
    blank: usize,
    order: [u8; MAX_CELLS],
    digits: [u8; MAX_CELLS],
    rank: u64,
}

impl Space {
    fn index(&self, s: &State) -> u64 {
        s.blank as u64 * self.per_blank + s.rank
    }

    /// Digits of `rank` (mixed radix `m - j`).
    fn digits_of(&self, mut rank: u64) -> [u8; MAX_CELLS] {
        let mut d = [0u8; MAX_CELLS];
        for (digit, &w) in d.iter_mut().zip(&self.weight) {
            *digit = (rank / w) as u8;
            rank %= w;
        }
        d
    }

    /// Adds `delta` to the digits (a small step to the next set bit).
    #[inline]
    fn advance(&self, d: &mut [u8; MAX_CELLS], mut delta: u64) {
        let mut j = self.m;
        while delta > 0 && j > 0 {
            j -= 1;
            let radix = (self.m - j) as u64;
            let v = d[j] as u64 + delta;
            d[j] = (v % radix) as u8;
            delta = v / radix;
        }
    }

    /// The tile order with these Lehmer digits.
    #[inline]
    fn order_of(&self, d: &[u8; MAX_CELLS]) -> [u8; MAX_CELLS] {
        let mut unused: u32 = (1u32 << self.m) - 1;
        let mut order = [0u8; MAX_CELLS];
        for j in 0..self.m {
            let mut mask = unused;
            for _ in 0..d[j] {
                mask &= mask - 1;
            }
            let v = mask.trailing_zeros();
            order[j] = v as u8;
            unused &= !(1 << v);
        }
        order
    }

    /// The order of the first state of a layout: cells hold tile numbers, 0 the blank.
    fn state_of(&self, cells: &[u32]) -> State {
        let blank = cells.iter().position(|&t| t == 0).expect("one blank");
        let mut order = [0u8; MAX_CELLS];
        for (j, &t) in cells.iter().filter(|&&t| t != 0).enumerate() {
            order[j] = (t - 1) as u8;
        }
        let mut digits = [0u8; MAX_CELLS];
        let mut rank = 0;
        for j in 0..self.m {
            digits[j] = order[j + 1..self.m].iter().filter(|&&y| y < order[j]).count() as u8;
            rank += digits[j] as u64 * self.weight[j];
        }
        State { blank, order, digits, rank }
    }

    /// The layout (tile in every cell, 0 the blank) of a state.
    fn cells_of(&self, s: &State) -> Vec<u32> {
        let mut tiles = s.order[..self.m].iter().map(|&v| v as u32 + 1);
        (0..self.m + 1).map(|c| if c == s.blank { 0 } else { tiles.next().expect("m tiles") }).collect()
    }

    /// The blank moves down one row: the tile below jumps over the `cols - 1` tiles between, i.e.
    /// the run `order[b..=b + cols - 1]` rotates right by one.
    #[inline]
    fn down(&self, s: &mut State) {
        let (first, last) = (s.blank, s.blank + self.cols - 1);
        let x = s.order[last];
        let old_x_digit = s.digits[last];
        let mut smaller = 0u8;
        let mut delta: i64 = -(old_x_digit as i64 * self.weight[last] as i64);
        for j in (first..last).rev() {
            let y = s.order[j];
            smaller += (y < x) as u8;
            let nd = s.digits[j] - (x < y) as u8;
            delta += nd as i64 * self.weight[j + 1] as i64 - s.digits[j] as i64 * self.weight[j] as i64;
            s.order[j + 1] = y;
            s.digits[j + 1] = nd;
        }
        s.order[first] = x;
        s.digits[first] = old_x_digit + smaller;
        delta += s.digits[first] as i64 * self.weight[first] as i64;
        s.rank = (s.rank as i64 + delta) as u64;
        s.blank += self.cols;
    }

    /// The blank moves up one row: the run `order[b - cols..=b - 1]` rotates left by one.
    #[inline]
    fn up(&self, s: &mut State) {
        let (first, last) = (s.blank - self.cols, s.blank - 1);
        let x = s.order[first];
        let old_x_digit = s.digits[first];
        let mut smaller = 0u8;
        let mut delta: i64 = -(old_x_digit as i64 * self.weight[first] as i64);
        for j in first + 1..=last {
            let y = s.order[j];
            smaller += (y < x) as u8;
            let nd = s.digits[j] + (x < y) as u8;
            delta += nd as i64 * self.weight[j - 1] as i64 - s.digits[j] as i64 * self.weight[j] as i64;
            s.order[j - 1] = y;
            s.digits[j - 1] = nd;
        }
        s.order[last] = x;
        s.digits[last] = old_x_digit - smaller;
        delta += s.digits[last] as i64 * self.weight[last] as i64;
        s.rank = (s.rank as i64 + delta) as u64;
        s.blank -= self.cols;
    }

    /// Calls `f` with the index of every child of `s` (one per move of the metric).
    #[inline]
    fn children(&self, s: &State, mut f: impl FnMut(u64)) {
        let (row, col) = (s.blank / self.cols, s.blank % self.cols);
        let reach = |available: usize| if self.metric == Metric::Unit { available.min(1) } else { available };
        let index = |blank: usize| blank as u64 * self.per_blank + s.rank;
        for k in 1..=reach(col) {
            f(index(s.blank - k));
        }
        for k in 1..=reach(self.cols - 1 - col) {
            f(index(s.blank + k));
        }
        let mut c = *s;
        for _ in 0..reach(self.rows - 1 - row) {
            self.down(&mut c);
            f(self.index(&c));
        }
        let mut c = *s;
        for _ in 0..reach(row) {
            self.up(&mut c);
            f(self.index(&c));
        }
    }
}

/// The layer table of a tile puzzle computed with bit arrays.
#[derive(Clone, Debug)]
pub struct PerfectTable {
    /// `layers[d]`: states at distance `d` from the start.
    pub layers: Vec<u64>,
    /// Up to the requested number of farthest layouts (tile in every cell, 0 the blank).
    pub farthest: Vec<Vec<u32>>,
    /// Number of states in the last layer.
    pub farthest_count: u64,
    /// Bytes of the three bit arrays.
    pub peak_bytes: u64,
    /// Wall-clock seconds.
    pub wall_s: f64,
}

/// Bytes the enumerator needs for an `n`-cell board (three arrays of `n!` bits).
pub fn bytes_needed(cells: usize) -> u64 {
    let states: u64 = (1..=cells as u64).product();
    3 * states.div_ceil(64) * 8
}

/// Enumerates everything reachable from `start` (tile in every cell, 0 the blank) on a
/// `rows × cols` board in the unit or straight (multi-tile) metric; `trace` prints a line per layer.
pub fn enumerate_tiles(
    rows: usize,
    cols: usize,
    start: &[u32],
    metric: Metric,
    farthest: usize,
    trace: bool,
) -> PerfectTable {
    let clock = Instant::now();
    let n = rows * cols;
    assert!((2..=MAX_CELLS).contains(&n), "the perfect-hash enumerator takes 2 to {MAX_CELLS} cells");
    let m = n - 1;
    let weight: Vec<u64> = (0..m).map(|j| (1..=(m - 1 - j) as u64).product()).collect();
    let per_blank: u64 = (1..=m as u64).product();
    let metric = if metric == Metric::Unit { Metric::Unit } else { Metric::Straight };
    let space = Space { rows, cols, m, weight, per_blank, metric };
    let total = n as u64 * per_blank;
    let (visited, mut current, mut next) = (Bits::new(total), Bits::new(total), Bits::new(total));
    let first = space.state_of(start);
    visited.set(space.index(&first));
    current.set(space.index(&first));
    let mut layers = vec![1u64];
    const WORDS_PER_TASK: usize = 256;
    loop {
        let found: u64 = current
            .0
            .par_chunks(WORDS_PER_TASK)
            .enumerate()
            .map(|(chunk, words)| {
                let mut found = 0u64;
                for (w, word) in words.iter().enumerate() {
                    let mut bits = word.load(Ordering::Relaxed);
                    if bits == 0 {
                        continue;
                    }
                    let mut index = ((chunk * WORDS_PER_TASK + w) * 64) as u64 + bits.trailing_zeros() as u64;
                    let mut blank = (index / per_blank) as usize;
                    let mut rank = index % per_blank;
                    let mut digits = space.digits_of(rank);
                    loop {
                        let order = space.order_of(&digits);
                        let s = State { blank, order, digits, rank };
                        space.children(&s, |child| {
                            if visited.set(child) {
                                next.set(child);
                                found += 1;
                            }
                        });
                        bits &= bits - 1;
                        if bits == 0 {
                            break;
                        }
                        let target = ((chunk * WORDS_PER_TASK + w) * 64) as u64 + bits.trailing_zeros() as u64;
                        let step = target - index;
                        index = target;
                        if (target / per_blank) as usize != blank {
                            blank = (target / per_blank) as usize;
                            rank = target % per_blank;
                            digits = space.digits_of(rank);
                        } else {
                            rank += step;
                            space.advance(&mut digits, step);
                        }
                    }
                }
                found
            })
            .sum();
        if trace {
            eprintln!("depth {:>4}: {found:>14} states ({:.2} s)", layers.len(), clock.elapsed().as_secs_f64());
        }
        if found == 0 {
            break;
        }
        layers.push(found);
        current.clear();
        std::mem::swap(&mut current, &mut next);
    }
    let mut far = Vec::new();
    'scan: for (w, word) in current.0.iter().enumerate() {
        let mut bits = word.load(Ordering::Relaxed);
        while bits != 0 {
            if far.len() == farthest {
                break 'scan;
            }
            let index = w as u64 * 64 + bits.trailing_zeros() as u64;
            let (blank, rank) = ((index / per_blank) as usize, index % per_blank);
            let digits = space.digits_of(rank);
            far.push(space.cells_of(&State { blank, order: space.order_of(&digits), digits, rank }));
            bits &= bits - 1;
        }
    }
    PerfectTable {
        farthest_count: *layers.last().expect("the start layer"),
        layers,
        farthest: far,
        peak_bytes: visited.bytes() * 3,
        wall_s: clock.elapsed().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertical_moves_update_the_rank_like_a_full_re_rank() {
        let (rows, cols) = (3, 4);
        let m = rows * cols - 1;
        let weight: Vec<u64> = (0..m).map(|j| (1..=(m - 1 - j) as u64).product()).collect();
        let space = Space { rows, cols, m, weight, per_blank: (1..=m as u64).product(), metric: Metric::Unit };
        let mut cells: Vec<u32> = vec![5, 11, 2, 0, 7, 1, 9, 3, 10, 4, 8, 6];
        for _ in 0..2 {
            let mut s = space.state_of(&cells);
            space.down(&mut s);
            let b = cells.iter().position(|&t| t == 0).unwrap();
            cells.swap(b, b + cols);
            let fresh = space.state_of(&cells);
            assert_eq!((s.rank, s.digits, s.order), (fresh.rank, fresh.digits, fresh.order));
            assert_eq!(space.cells_of(&s), cells);
        }
        for _ in 0..2 {
            let mut s = space.state_of(&cells);
            space.up(&mut s);
            let b = cells.iter().position(|&t| t == 0).unwrap();
            cells.swap(b, b - cols);
            let fresh = space.state_of(&cells);
            assert_eq!((s.rank, s.digits, s.order), (fresh.rank, fresh.digits, fresh.order));
        }
        let mut d = space.digits_of(12345);
        space.advance(&mut d, 777);
        assert_eq!(d, space.digits_of(12345 + 777));
    }

    #[test]
    fn small_tables_match_the_known_counts() {
        // 3x3 from the goal: 181,440 states, 31 the largest depth with 2 states (OEIS A089473).
        let t = enumerate_tiles(3, 3, &[1, 2, 3, 4, 5, 6, 7, 8, 0], Metric::Unit, 2, false);
        assert_eq!((t.layers.iter().sum::<u64>(), t.layers.len() - 1, t.farthest_count), (181_440, 31, 2));
        assert_eq!(&t.layers[..6], &[1, 2, 4, 8, 16, 20]);
        assert_eq!(t.farthest.len(), 2);
        // 2x5: 1,814,400 states, diameter 55 (OEIS A090036).
        let t = enumerate_tiles(2, 5, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 0], Metric::Unit, 0, false);
        assert_eq!((t.layers.iter().sum::<u64>(), t.layers.len() - 1), (1_814_400, 55));
    }
}
