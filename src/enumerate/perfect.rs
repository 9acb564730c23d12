//! The perfect-hash enumerator for sliding tiles: a state is an index, every state has 2 bits,
//! layers are expanded in parallel.
//!
//! A state is the order of the `m = n - 1` tiles in reading order, ranked by its Lehmer code, and
//! the blank's cell: word `rank` (a `u32`) holds the 2-bit fields of all `n` blank cells, so the
//! order is decoded once for all its blank positions. The puzzle's structure makes moves cheap: a
//! horizontal move keeps the tile order, so its child is another field of the same word (no
//! ranking, no cache miss); a vertical move rotates a run of `cols` consecutive tiles of the
//! order, which changes only that run's Lehmer digits, so the child's rank is updated in
//! `O(cols)`. In the straight metric (`k` tiles of a row or column slid at once) a move is `k`
//! such steps. Field values: 0 unseen, 1 and 2 the frontier codes of even and odd layers, 3
//! expanded (Korf's 2-bit breadth-first search), so the graph need not be bipartite.

use crate::puzzle::Metric;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

/// Most cells the perfect-hash enumerator takes (13 cells: 12! words of 4 bytes, 1.9 GB).
pub const MAX_CELLS: usize = 13;

/// The board geometry and the factorials of the ranking.
struct Space {
    rows: usize,
    cols: usize,
    /// Tiles: `n - 1`.
    m: usize,
    /// `weight[j] = (m - 1 - j)!`, the weight of Lehmer digit `j`.
    weight: Vec<u64>,
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
    /// Digits of `rank` (mixed radix `m - j`).
    fn digits_of(&self, mut rank: u64) -> [u8; MAX_CELLS] {
        let mut d = [0u8; MAX_CELLS];
        for (digit, &w) in d.iter_mut().zip(&self.weight) {
            *digit = (rank / w) as u8;
            rank %= w;
        }
        d
    }

    /// Adds `delta` to the digits (a small step to the next frontier word); returns the first
    /// digit that changed (`m` when none did).
    #[inline]
    fn advance(&self, d: &mut [u8; MAX_CELLS], mut delta: u64) -> usize {
        let mut j = self.m;
        while delta > 0 && j > 0 {
            j -= 1;
            let radix = (self.m - j) as u64;
            let v = d[j] as u64 + delta;
            // Small steps need no division: most carries are 0 or 1.
            (d[j], delta) = if v < radix {
                (v as u8, 0)
            } else if v < 2 * radix {
                ((v - radix) as u8, 1)
            } else {
                ((v % radix) as u8, v / radix)
            };
        }
        j
    }

    /// The tile order with these Lehmer digits.
    #[inline]
    fn order_of(&self, d: &[u8; MAX_CELLS]) -> [u8; MAX_CELLS] {
        let mut order = [0u8; MAX_CELLS];
        self.reorder(d, &mut order, 0);
        order
    }

    /// Recomputes `order[from..]` from the digits (`order[..from]` is already right).
    #[inline]
    fn reorder(&self, d: &[u8; MAX_CELLS], order: &mut [u8; MAX_CELLS], from: usize) {
        let mut unused: u32 = (1u32 << self.m) - 1;
        for &v in &order[..from] {
            unused &= !(1 << v);
        }
        for j in from..self.m {
            let mut mask = unused;
            for _ in 0..d[j] {
                mask &= mask - 1;
            }
            let v = mask.trailing_zeros();
            order[j] = v as u8;
            unused &= !(1 << v);
        }
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

    /// Calls `f(rank, blank)` for every child of `s` reached by a vertical move (one per move
    /// of the metric); horizontal children keep `s.rank` and are handled by the caller.
    #[inline]
    fn vertical_children(&self, s: &State, mut f: impl FnMut(u64, usize)) {
        let row = s.blank / self.cols;
        let mut c = *s;
        for _ in 0..self.reach(self.rows - 1 - row) {
            self.down(&mut c);
            f(c.rank, c.blank);
        }
        let mut c = *s;
        for _ in 0..self.reach(row) {
            self.up(&mut c);
            f(c.rank, c.blank);
        }
    }

    /// Of `available` cells in a direction, how many one move may cross.
    #[inline]
    fn reach(&self, available: usize) -> usize {
        if self.metric == Metric::Unit { available.min(1) } else { available }
    }

    /// Bit mask (low bit of each field) of the blank cells reached by horizontal moves from `blank`.
    #[inline]
    fn horizontal_children(&self, blank: usize) -> u32 {
        let col = blank % self.cols;
        let mut mask = 0u32;
        for k in 1..=self.reach(col) {
            mask |= 1 << (2 * (blank - k));
        }
        for k in 1..=self.reach(self.cols - 1 - col) {
            mask |= 1 << (2 * (blank + k));
        }
        mask
    }
}

/// Asks the CPU to start loading `word`'s cache line.
#[inline]
fn prefetch(word: &AtomicU32) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it reads nothing and the address is a valid reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(word.as_ptr() as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}

/// Field value of an expanded state.
const DONE: u32 = 3;

/// Frontier code of layer `d`.
fn code(d: usize) -> u32 {
    1 + (d % 2) as u32
}

/// Low bit of every field with value `value` in `word` (fields `0..n`).
#[inline]
fn fields_equal(word: u32, value: u32, low: u32) -> u32 {
    let x = word ^ (value * low);
    !(x | (x >> 1)) & low
}

/// The layer table of a tile puzzle computed with 2 bits a state.
#[derive(Clone, Debug)]
pub struct PerfectTable {
    /// `layers[d]`: states at distance `d` from the start.
    pub layers: Vec<u64>,
    /// Up to the requested number of farthest layouts (tile in every cell, 0 the blank).
    pub farthest: Vec<Vec<u32>>,
    /// Number of states in the last layer.
    pub farthest_count: u64,
    /// Bytes of the state array.
    pub peak_bytes: u64,
    /// Wall-clock seconds.
    pub wall_s: f64,
}

/// Bytes the enumerator needs for an `n`-cell board (one `u32` per tile order: `(n - 1)!` words).
pub fn bytes_needed(cells: usize) -> u64 {
    4 * (1..cells as u64).product::<u64>()
}

/// What one chunk of a layer produced: new states and the first frontier states it expanded.
struct ChunkResult {
    found: u64,
    expanded: Vec<(u64, usize)>,
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
    let space = Space { rows, cols, m, weight, metric };
    let low: u32 = (0..n).fold(0, |acc, b| acc | 1 << (2 * b));
    let words: Vec<AtomicU32> = (0..per_blank).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    let first = space.state_of(start);
    words[first.rank as usize].store(code(0) << (2 * first.blank), Ordering::Relaxed);
    let mut layers = vec![1u64];
    let last_expanded: Vec<(u64, usize)>;
    const CHUNK: usize = 1 << 12;
    loop {
        let d = layers.len() - 1;
        let (frontier, next) = (code(d), code(d + 1));
        let results: Vec<ChunkResult> = words
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(chunk, slice)| {
                let (frontier, next, low) = (frontier, next, low);
                let mut out = ChunkResult { found: 0, expanded: Vec::new() };
                let mut children: Vec<(u64, usize)> = Vec::with_capacity(4 * MAX_CELLS * MAX_CELLS);
                let mut decoded: Option<(u64, [u8; MAX_CELLS], [u8; MAX_CELLS])> = None;
                for (i, word) in slice.iter().enumerate() {
                    let value = word.load(Ordering::Relaxed);
                    let mut todo = fields_equal(value, frontier, low);
                    if todo == 0 {
                        continue;
                    }
                    let rank = (chunk * CHUNK + i) as u64;
                    let (digits, order) = match decoded {
                        Some((r, mut d, mut o)) => {
                            let changed = space.advance(&mut d, rank - r);
                            space.reorder(&d, &mut o, changed);
                            (d, o)
                        }
                        None => {
                            let d = space.digits_of(rank);
                            (d, space.order_of(&d))
                        }
                    };
                    decoded = Some((rank, digits, order));
                    let unseen = fields_equal(value, 0, low);
                    let mut own = 0u32;
                    let mut own_new = 0u32;
                    while todo != 0 {
                        let bit = todo.trailing_zeros() as usize;
                        todo &= todo - 1;
                        let blank = bit / 2;
                        if out.expanded.len() < farthest {
                            out.expanded.push((rank, blank));
                        }
                        own |= DONE << bit;
                        own_new |= space.horizontal_children(blank) & unseen;
                        let s = State { blank, order, digits, rank };
                        space.vertical_children(&s, |r, b| {
                            prefetch(&words[r as usize]);
                            children.push((r, b));
                        });
                    }
                    // The vertical children are scattered over the array: their cache lines were
                    // requested together above, so the misses overlap.
                    for (r, b) in children.drain(..) {
                        let target = &words[r as usize];
                        let shift = 2 * b;
                        if (target.load(Ordering::Relaxed) >> shift) & 3 == 0
                            && (target.fetch_or(next << shift, Ordering::Relaxed) >> shift) & 3 == 0
                        {
                            out.found += 1;
                        }
                    }
                    let before = word.fetch_or(own | (own_new * next), Ordering::Relaxed);
                    out.found += (own_new & fields_equal(before, 0, low)).count_ones() as u64;
                }
                out
            })
            .collect();
        let found: u64 = results.iter().map(|r| r.found).sum();
        if trace {
            eprintln!("depth {:>4}: {found:>14} states ({:.2} s)", d + 1, clock.elapsed().as_secs_f64());
        }
        if found == 0 {
            last_expanded = results.into_iter().flat_map(|r| r.expanded).take(farthest).collect();
            break;
        }
        layers.push(found);
    }
    let far = last_expanded
        .into_iter()
        .map(|(rank, blank)| {
            let digits = space.digits_of(rank);
            space.cells_of(&State { blank, order: space.order_of(&digits), digits, rank })
        })
        .collect();
    PerfectTable {
        farthest_count: *layers.last().expect("the start layer"),
        layers,
        farthest: far,
        peak_bytes: words.len() as u64 * 4,
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
        let space = Space { rows, cols, m, weight, metric: Metric::Unit };
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
