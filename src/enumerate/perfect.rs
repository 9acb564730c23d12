//! The perfect-hash enumerator for sliding tiles: a state is an index, every state has 2 bits,
//! layers are expanded in parallel.
//!
//! A state is the order of the `m = n - 1` tiles in reading order, ranked by its Lehmer code, and
//! the blank's cell. Only half the orders can occur: a vertical move rotates a run of `cols` tiles
//! (`cols - 1` transpositions) and a horizontal move keeps the order, so the order's parity, plus
//! the blank's row when `cols` is even, never changes. Ranks `2w` and `2w + 1` differ only in the
//! last two tiles, i.e. in parity, so word `w` (a `u32`) holds the 2-bit fields of all `n` blank
//! cells, each field belonging to whichever of the two orders its blank cell allows: `m!/2` words.
//! The puzzle's structure makes moves cheap: a horizontal move keeps the tile order, so its child
//! is another field of the same word (no ranking, no cache miss); a vertical move rotates a run
//! of `cols` consecutive tiles of the order, which changes only that run's Lehmer digits, so the
//! child's rank is updated in `O(cols)`. In the straight metric (`k` tiles of a row or column slid
//! at once) a move is `k` such steps. Field values: 0 unseen, 1 and 2 the frontier codes of even
//! and odd layers, 3 expanded (Korf's 2-bit breadth-first search), so the graph need not be
//! bipartite. A layer's size is counted when it is expanded, so the racing writers of a pass never
//! need the old value of a word (a plain atomic OR).
//!
//! Over several ranks ([`crate::distributed`]) each rank holds one contiguous slice of the words
//! and expands the frontier in it in rounds of [`round_words`] words; horizontal children stay in
//! their word, vertical children in another rank's slice are sent to it at the end of the round
//! (an all-to-all) and marked there. Layer sizes are summed over the ranks, so the table does not
//! depend on their number; memory per rank is the slice plus the round's buffers.
//!
//! A state limit or a deadline stops a layer's pass at the first chunk that crosses it (the chunks
//! not yet started are skipped) and drops that layer: the table keeps the layers before it. The
//! states counted are those of the layers expanded, the layer in progress included (the memory is
//! fixed before the first layer); the start layer is always counted. Over several ranks the limits
//! are decided together after every round, from the summed counts, so every rank stops at the same
//! round, and the table is the one a single process keeps. The array is allocated zeroed and its
//! pages set up between looks at the clock ([`crate::memory::try_zeroed`]; in one process: a
//! deadline that passes first leaves the start layer alone), and the start layer's pass reads
//! only the start's chunk, so a deadline is looked at within moments of the start, however large
//! the array.

use crate::distributed::{Slices, exchange};
use crate::memory;
use crate::puzzle::Metric;
use crate::search::{LimitHit, Limits};
use rayon::prelude::*;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

/// Fewest cells the perfect-hash enumerator takes (two tiles, so that an order has a parity).
pub const MIN_CELLS: usize = 3;
/// Most cells the perfect-hash enumerator takes (14 cells: 13!/2 words of 4 bytes, 12.5 GB).
pub const MAX_CELLS: usize = 14;

/// The moves of the blank from one cell.
#[derive(Clone, Copy, Default)]
struct CellMoves {
    /// Low bit of each field the blank reaches by a horizontal move.
    horizontal: u32,
    /// Vertical moves downwards and upwards (at most 1 each in the unit metric).
    down: u8,
    up: u8,
    /// 1 when the order's parity flips with the blank here (odd rows of an even-width board).
    row_parity: u8,
}

/// The board geometry and the factorials of the ranking.
struct Space {
    cols: usize,
    /// Tiles: `n - 1`.
    m: usize,
    /// `weight[j] = (m - 1 - j)!`, the weight of Lehmer digit `j`.
    weight: Vec<u64>,
    /// The moves from every blank cell.
    moves: Vec<CellMoves>,
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
    fn new(rows: usize, cols: usize, metric: Metric) -> Space {
        let n = rows * cols;
        let m = n - 1;
        let weight = (0..m).map(|j| (1..=(m - 1 - j) as u64).product()).collect();
        let reach = |available: usize| if metric == Metric::Unit { available.min(1) } else { available };
        let moves = (0..n)
            .map(|blank| {
                let (row, col) = (blank / cols, blank % cols);
                let mut horizontal = 0u32;
                for k in 1..=reach(col) {
                    horizontal |= 1 << (2 * (blank - k));
                }
                for k in 1..=reach(cols - 1 - col) {
                    horizontal |= 1 << (2 * (blank + k));
                }
                CellMoves {
                    horizontal,
                    down: reach(rows - 1 - row) as u8,
                    up: reach(row) as u8,
                    row_parity: (cols.is_multiple_of(2) && row % 2 == 1) as u8,
                }
            })
            .collect();
        Space { cols, m, weight, moves }
    }

    /// Digits of word `w`: the Lehmer digits of rank `2w` (the last two are 0).
    fn word_digits(&self, mut w: u64) -> [u8; MAX_CELLS] {
        let mut d = [0u8; MAX_CELLS];
        for (digit, &weight) in d.iter_mut().zip(&self.weight[..self.m - 2]) {
            let half = weight / 2;
            *digit = (w / half) as u8;
            w %= half;
        }
        d
    }

    /// Adds `delta` words to the digits (a small step to the next frontier word); returns the
    /// first digit that changed (`m` when none did).
    #[inline]
    fn advance(&self, d: &mut [u8; MAX_CELLS], mut delta: u64) -> usize {
        let mut j = self.m - 2;
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

    /// The state of a layout: cells hold tile numbers, 0 the blank.
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

    /// The state with full rank `rank` and the blank at `blank`.
    fn state_at(&self, rank: u64, blank: usize) -> State {
        let mut digits = self.word_digits(rank / 2);
        digits[self.m - 2] = (rank % 2) as u8;
        let mut order = [0u8; MAX_CELLS];
        self.reorder(&digits, &mut order, 0);
        State { blank, order, digits, rank }
    }

    /// The layout (tile in every cell, 0 the blank) of a state.
    fn cells_of(&self, s: &State) -> Vec<u32> {
        let mut tiles = s.order[..self.m].iter().map(|&v| v as u32 + 1);
        (0..self.m + 1).map(|c| if c == s.blank { 0 } else { tiles.next().expect("m tiles") }).collect()
    }

    /// Rank change when the blank at `blank` moves down one row: the tile below jumps over the
    /// `cols - 1` tiles between, i.e. the run `order[b..=b + cols - 1]` rotates right by one.
    #[inline]
    fn down_delta(&self, order: &[u8; MAX_CELLS], digits: &[u8; MAX_CELLS], blank: usize) -> i64 {
        let (first, last) = (blank, blank + self.cols - 1);
        let x = order[last];
        let mut smaller = 0i64;
        let mut delta = -(digits[last] as i64 * self.weight[last] as i64);
        for j in first..last {
            let y = order[j];
            smaller += (y < x) as i64;
            let nd = digits[j] as i64 - (x < y) as i64;
            delta += nd * self.weight[j + 1] as i64 - digits[j] as i64 * self.weight[j] as i64;
        }
        delta + (digits[last] as i64 + smaller) * self.weight[first] as i64
    }

    /// Rank change when the blank at `blank` moves up one row: the run `order[b - cols..=b - 1]`
    /// rotates left by one.
    #[inline]
    fn up_delta(&self, order: &[u8; MAX_CELLS], digits: &[u8; MAX_CELLS], blank: usize) -> i64 {
        let (first, last) = (blank - self.cols, blank - 1);
        let x = order[first];
        let mut smaller = 0i64;
        let mut delta = -(digits[first] as i64 * self.weight[first] as i64);
        for j in first + 1..=last {
            let y = order[j];
            smaller += (y < x) as i64;
            let nd = digits[j] as i64 + (x < y) as i64;
            delta += nd * self.weight[j - 1] as i64 - digits[j] as i64 * self.weight[j] as i64;
        }
        delta + (digits[first] as i64 - smaller) * self.weight[last] as i64
    }

    /// Moves the blank of `s` down one row (the rank by [`Space::down_delta`]).
    fn down(&self, s: &mut State) {
        s.rank = (s.rank as i64 + self.down_delta(&s.order, &s.digits, s.blank)) as u64;
        let (first, last) = (s.blank, s.blank + self.cols - 1);
        let (x, x_digit) = (s.order[last], s.digits[last]);
        let mut smaller = 0;
        for j in (first..last).rev() {
            let y = s.order[j];
            smaller += (y < x) as u8;
            s.digits[j + 1] = s.digits[j] - (x < y) as u8;
            s.order[j + 1] = y;
        }
        s.order[first] = x;
        s.digits[first] = x_digit + smaller;
        s.blank += self.cols;
    }

    /// Moves the blank of `s` up one row (the rank by [`Space::up_delta`]).
    fn up(&self, s: &mut State) {
        s.rank = (s.rank as i64 + self.up_delta(&s.order, &s.digits, s.blank)) as u64;
        let (first, last) = (s.blank - self.cols, s.blank - 1);
        let (x, x_digit) = (s.order[first], s.digits[first]);
        let mut smaller = 0;
        for j in first + 1..=last {
            let y = s.order[j];
            smaller += (y < x) as u8;
            s.digits[j - 1] = s.digits[j] + (x < y) as u8;
            s.order[j - 1] = y;
        }
        s.order[last] = x;
        s.digits[last] = x_digit - smaller;
        s.blank -= self.cols;
    }

    /// Calls `f(rank, blank)` for every child of `s` reached by a vertical move (one per move
    /// of the metric); horizontal children keep the order and are handled by the caller. In the
    /// unit metric (`UNIT`) only the children's ranks are computed, the state is not copied.
    #[inline]
    fn vertical_children<const UNIT: bool>(&self, s: StateRef, mut f: impl FnMut(u64, usize)) {
        let moves = self.moves[s.blank];
        if UNIT {
            if moves.down > 0 {
                f((s.rank as i64 + self.down_delta(s.order, s.digits, s.blank)) as u64, s.blank + self.cols);
            }
            if moves.up > 0 {
                f((s.rank as i64 + self.up_delta(s.order, s.digits, s.blank)) as u64, s.blank - self.cols);
            }
            return;
        }
        let owned = State { blank: s.blank, order: *s.order, digits: *s.digits, rank: s.rank };
        let mut c = owned;
        for _ in 0..moves.down {
            self.down(&mut c);
            f(c.rank, c.blank);
        }
        let mut c = owned;
        for _ in 0..moves.up {
            self.up(&mut c);
            f(c.rank, c.blank);
        }
    }
}

/// A state borrowed from a [`Cursor`].
#[derive(Clone, Copy)]
struct StateRef<'a> {
    blank: usize,
    order: &'a [u8; MAX_CELLS],
    digits: &'a [u8; MAX_CELLS],
    rank: u64,
}

/// The decoded word of a scan: the two tile orders of ranks `2w` and `2w + 1` (the last two
/// tiles swapped), moved forward word by word.
struct Cursor {
    index: u64,
    orders: [[u8; MAX_CELLS]; 2],
    digits: [[u8; MAX_CELLS]; 2],
    /// Which variant a blank in an even row (of an even-width board: any row otherwise) takes.
    flip: u8,
    /// `class`: the parity of the order plus the blank's row parity, the same for every state.
    class: u8,
}

impl Cursor {
    /// A cursor on word 0 (all digits 0).
    fn new(space: &Space, class: u8) -> Cursor {
        let mut cursor = Cursor { index: 0, orders: [[0; MAX_CELLS]; 2], digits: [[0; MAX_CELLS]; 2], flip: 0, class };
        cursor.decode(space, 0);
        cursor
    }

    /// Moves to word `index` (at or after the current one).
    #[inline]
    fn seek(&mut self, space: &Space, index: u64) {
        let from = space.advance(&mut self.digits[0], index - self.index);
        self.index = index;
        self.decode(space, from);
    }

    /// Derives both orders and the flip from `digits[0]`; `orders[0][..from]` is already right.
    #[inline]
    fn decode(&mut self, space: &Space, from: usize) {
        let m = space.m;
        let [even, odd] = &mut self.orders;
        space.reorder(&self.digits[0], even, from);
        *odd = *even;
        odd.swap(m - 2, m - 1);
        self.digits[1] = self.digits[0];
        self.digits[1][m - 2] = 1;
        let parity = self.digits[0][..m - 2].iter().map(|&d| d as u32).sum::<u32>() % 2;
        self.flip = parity as u8 ^ self.class;
    }

    /// The state of the current word's field with the blank at `blank`.
    #[inline]
    fn state(&self, space: &Space, blank: usize) -> StateRef<'_> {
        let v = (space.moves[blank].row_parity ^ self.flip) as usize;
        StateRef { blank, order: &self.orders[v], digits: &self.digits[v], rank: 2 * self.index + v as u64 }
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

/// How many vertical children are in flight: their cache lines are requested when a child is
/// found and the field is written this many children later, so the misses overlap.
const IN_FLIGHT: usize = 16;

/// The vertical children of one chunk on their way to the state array: marks unseen children in
/// this rank's slice with the next layer's code, keeps the others for their owners.
struct Children<'a> {
    /// This rank's slice of the state array.
    words: &'a [AtomicU32],
    /// Global index of `words[0]`.
    base: usize,
    next: u32,
    ring: [(usize, u32); IN_FLIGHT],
    pushed: usize,
    /// Whether any child was new.
    wrote: bool,
    /// Children in other ranks' slices, as `word << 5 | shift`.
    remote: Vec<u64>,
}

impl Children<'_> {
    fn new(words: &[AtomicU32], base: usize, next: u32) -> Children<'_> {
        Children { words, base, next, ring: [(0, 0); IN_FLIGHT], pushed: 0, wrote: false, remote: Vec::new() }
    }

    #[inline]
    fn push(&mut self, rank: u64, blank: usize) {
        let (index, shift) = ((rank / 2) as usize, 2 * blank as u32);
        let local = index.wrapping_sub(self.base);
        if local >= self.words.len() {
            self.remote.push((index as u64) << 5 | shift as u64);
            return;
        }
        self.push_local(local, shift);
    }

    /// A child sent here by another rank (`word << 5 | shift`, the word in this rank's slice).
    #[inline]
    fn push_received(&mut self, code: u64) {
        self.push_local((code >> 5) as usize - self.base, (code & 31) as u32);
    }

    #[inline]
    fn push_local(&mut self, local: usize, shift: u32) {
        let child = (local, shift);
        prefetch(&self.words[local]);
        let slot = self.pushed % IN_FLIGHT;
        if self.pushed >= IN_FLIGHT {
            self.mark(self.ring[slot]);
        }
        self.ring[slot] = child;
        self.pushed += 1;
    }

    #[inline]
    fn mark(&mut self, (index, shift): (usize, u32)) {
        let target = &self.words[index];
        // Only an unseen field may be written: a frontier field OR the next code would read as
        // expanded. Racing writers of the same field all write the same code.
        if (target.load(Ordering::Relaxed) >> shift) & 3 == 0 {
            target.fetch_or(self.next << shift, Ordering::Relaxed);
            self.wrote = true;
        }
    }

    fn drain(&mut self) {
        for i in self.pushed.saturating_sub(IN_FLIGHT)..self.pushed {
            self.mark(self.ring[i % IN_FLIGHT]);
        }
        self.pushed = 0;
    }
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
    /// Bytes of this rank's slice of the state array plus its largest exchange buffers.
    pub peak_bytes: u64,
    /// Words (8 bytes each) sent from one rank to another while expanding each layer, all ranks
    /// together (all 0 in one process).
    pub exchanged: Vec<u64>,
    /// Wall-clock seconds.
    pub wall_s: f64,
    /// The limit that stopped the enumeration inside a layer (that layer and those after it are
    /// not in `layers`).
    pub stopped: Option<LimitHit>,
}

/// Bytes the enumerator needs for an `n`-cell board (one `u32` per pair of tile orders:
/// `(n - 1)!/2` words); `u64::MAX` where that overflows (boards of 22 cells and more).
pub fn bytes_needed(cells: usize) -> u64 {
    (3..cells as u64).try_fold(4u64, u64::checked_mul).unwrap_or(u64::MAX)
}

/// Bytes one rank of `ranks` needs for its slice of the state array of a `rows × cols` board in
/// `metric` and, with more than one rank, its exchange buffers (the children of one round of
/// [`round_words`] words, sent, and one exchange round received), which [`round_words`] keeps
/// within the slice's bytes.
pub fn bytes_per_rank(rows: usize, cols: usize, metric: Metric, ranks: usize) -> u64 {
    let cells = rows * cols;
    let words = Slices::new(bytes_needed(cells) / 4, ranks).per_rank;
    let round = round_words(rows, cols, metric, ranks);
    words.saturating_mul(4).saturating_add(buffer_bytes(cells, vertical_moves(rows, metric), ranks, round))
}

/// The most vertical moves one state has on a board of `rows` rows: two in the unit metric (one up,
/// one down), every other cell of the blank's column in the straight metric.
fn vertical_moves(rows: usize, metric: Metric) -> u64 {
    let others = rows.saturating_sub(1) as u64;
    if metric == Metric::Unit { others.min(2) } else { others }
}

/// The most words of a rank's slice expanded between two exchanges when several ranks share the
/// array.
pub const ROUND_WORDS: u64 = 1 << 18;

/// Words of a rank's slice expanded between two exchanges (the same on every rank): the whole
/// slice in one process; over several ranks at most [`ROUND_WORDS`], and few enough that the
/// round's exchange buffers (sent and received) take no more bytes than the slice, so a small table
/// is not refused, nor handed to another engine, for buffers far larger than itself (at least one
/// word, which a slice of fewer than `2 × cells × ranks × vertical moves` words may exceed).
pub fn round_words(rows: usize, cols: usize, metric: Metric, ranks: usize) -> u64 {
    let cells = rows * cols;
    let per_rank = Slices::new(bytes_needed(cells) / 4, ranks).per_rank;
    if ranks <= 1 {
        return per_rank;
    }
    // Children sent take 8 × cells × vertical moves bytes a word (8-byte codes, `cells` states a
    // word), and as many arrive from each other rank, or the exchange's cap a round: either bound
    // on what arrives gives a round whose buffers fit in the slice's `4 × per_rank` bytes.
    let per_word = (cells as u64).saturating_mul(vertical_moves(rows, metric)).max(1);
    let arriving_from_all = per_rank / (2 * ranks as u64) / per_word;
    let arrival_cap = (ranks as u64 - 1).saturating_mul(crate::distributed::max_round_from_each(ranks) as u64);
    let arriving_capped = (per_rank / 2).saturating_sub(arrival_cap) / per_word;
    arriving_from_all.max(arriving_capped).clamp(1, ROUND_WORDS)
}

/// Bytes of one round's exchange buffers for `round` words of a rank's slice among `ranks` ranks:
/// the most vertical children the round can send (every state of every word in the frontier with
/// `vertical` vertical moves), and the most one exchange round can bring from the other ranks; none
/// in one process.
fn buffer_bytes(cells: usize, vertical: u64, ranks: usize, round: u64) -> u64 {
    if ranks <= 1 {
        return 0;
    }
    let sent = round.saturating_mul(cells as u64).saturating_mul(vertical);
    let received = (ranks as u64 - 1).saturating_mul(sent.min(crate::distributed::max_round_from_each(ranks) as u64));
    sent.saturating_add(received).saturating_mul(8)
}

/// What one chunk of a pass saw: the frontier states it expanded, whether it wrote a new state,
/// the first frontier states (full rank and blank), and the children for other ranks.
#[derive(Default)]
struct ChunkResult {
    expanded: u64,
    wrote: bool,
    first: Vec<(u64, usize)>,
    remote: Vec<u64>,
}

/// The state array could not be allocated.
#[derive(Debug, thiserror::Error)]
#[error("the perfect-hash enumerator needs {bytes} bytes for its state array and could not allocate them")]
pub struct OutOfMemory {
    /// Bytes requested.
    pub bytes: u64,
}

/// Enumerates everything reachable from `start` (tile in every cell, 0 the blank) on a
/// `rows × cols` board in the unit or straight (multi-tile) metric, within the state limit and the
/// deadline of `limits` (its memory limit is the caller's to check, see [`bytes_per_rank`]);
/// `on_layer(depth, states)` is called as each layer is counted.
pub fn enumerate_tiles(
    rows: usize,
    cols: usize,
    start: &[u32],
    metric: Metric,
    farthest: usize,
    limits: &Limits,
    on_layer: &mut dyn FnMut(usize, u64),
) -> Result<PerfectTable, OutOfMemory> {
    let clock = Instant::now();
    let n = rows * cols;
    assert!((MIN_CELLS..=MAX_CELLS).contains(&n), "the perfect-hash enumerator takes {MIN_CELLS} to {MAX_CELLS} cells");
    let space = Space::new(rows, cols, metric);
    let low: u32 = (0..n).fold(0, |acc, b| acc | 1 << (2 * b));
    let comm = crate::distributed::world();
    let slices = Slices::new(bytes_needed(n) / 4, comm.size());
    let own = slices.range(comm.rank());
    let base = own.start as usize;
    let count = (own.end - own.start) as usize;
    let first = space.state_of(start);
    let rank_parity = first.digits[..space.m].iter().map(|&d| d as u32).sum::<u32>() % 2;
    let class = rank_parity as u8 ^ space.moves[first.blank].row_parity;
    // The array is set up between looks at the clock (writing gigabytes of zeros first once
    // overran a deadline by seconds); a deadline that passes first leaves the start layer alone.
    // Over several ranks the clock is first looked at together, after the first round.
    let setup_deadline = if comm.size() > 1 { None } else { limits.deadline };
    let words: Vec<AtomicU32> = match memory::try_zeroed(count, setup_deadline) {
        Ok(words) => words,
        Err(LimitHit::Time) => {
            on_layer(0, 1);
            return Ok(PerfectTable {
                layers: vec![1],
                farthest: std::iter::once(start.to_vec()).take(farthest).collect(),
                farthest_count: 1,
                peak_bytes: 4 * count as u64,
                exchanged: vec![0],
                wall_s: clock.elapsed().as_secs_f64(),
                stopped: Some(LimitHit::Time),
            });
        }
        Err(_) => return Err(OutOfMemory { bytes: bytes_per_rank(rows, cols, metric, comm.size()) }),
    };
    let start_word = own.contains(&(first.rank / 2)).then(|| (first.rank / 2) as usize - base);
    if let Some(w) = start_word {
        words[w].store(code(0) << (2 * first.blank), Ordering::Relaxed);
    }
    // One round over the whole slice in one process; bounded rounds (the same number on every
    // rank) when children must be exchanged.
    let round = (round_words(rows, cols, metric, comm.size()) as usize).max(1);
    let rounds = (slices.per_rank as usize).div_ceil(round);
    let mut layers = Vec::new();
    let mut exchanged = Vec::new();
    let mut buffer_bytes = 0u64;
    let mut last_expanded: Vec<(u64, usize)> = Vec::new();
    let mut stopped = None;
    // The start layer is always counted: its pass runs without limits (the memory limit is not
    // checked here at all).
    let start_limits = Limits::default();
    const CHUNK: usize = 1 << 12;
    'layers: loop {
        let d = layers.len();
        let (frontier, next) = (code(d), code(d + 1));
        // [expanded, wrote, words sent to other ranks]
        let mut totals = [0u64; 3];
        let mut first_states = Vec::new();
        // The states counted before this layer, those of its pass so far, and the limit a chunk
        // crossed.
        let counted: u64 = layers.iter().sum();
        let layer_so_far = AtomicU64::new(0);
        let hit = OnceLock::new();
        let limits = if d == 0 { &start_limits } else { limits };
        for r in 0..rounds {
            let part = &words[(r * round).min(count)..((r + 1) * round).min(count)];
            let part_base = base + (r * round).min(count);
            let expand = |(chunk, slice): (usize, &[AtomicU32])| {
                let at = chunk * CHUNK;
                // The start layer is the start's word alone: the other chunks of its pass hold no
                // frontier, and reading them would bring in every page of the array before the
                // first look at the clock.
                let local = (r * round).min(count) + at;
                let idle = d == 0 && !start_word.is_some_and(|w| (local..local + slice.len()).contains(&w));
                if idle || hit.get().is_some() {
                    return ChunkResult::default();
                }
                let pass =
                    Pass { words: &words, base, offset: part_base + at, codes: (frontier, next, low), class, farthest };
                let result = if metric == Metric::Unit {
                    expand_chunk::<true>(&space, &pass, slice)
                } else {
                    expand_chunk::<false>(&space, &pass, slice)
                };
                let so_far = layer_so_far.fetch_add(result.expanded, Ordering::Relaxed) + result.expanded;
                if let Some(h) = limits.exceeded(counted + so_far, 0) {
                    let _ = hit.set(h);
                }
                result
            };
            let results: Vec<ChunkResult> = part.par_chunks(CHUNK).enumerate().map(expand).collect();
            totals[0] += results.iter().map(|r| r.expanded).sum::<u64>();
            totals[1] += results.iter().any(|r| r.wrote) as u64;
            if first_states.len() < farthest {
                first_states.extend(results.iter().flat_map(|r| r.first.iter().copied()));
                first_states.truncate(farthest);
            }
            if comm.size() > 1 {
                let mut outgoing = vec![Vec::new(); comm.size()];
                for code in results.into_iter().flat_map(|r| r.remote) {
                    outgoing[slices.owner(code >> 5)].push(code);
                }
                let held = outgoing.iter().map(|v| v.len() as u64).sum::<u64>();
                let mut largest = 0;
                let mut new_children = 0;
                let sent = exchange(comm, &outgoing, |received| {
                    largest = largest.max(received.len() as u64);
                    // Not `any`: it would stop marking at the first new child.
                    let wrote = received.par_chunks(CHUNK).map(|codes| {
                        let mut children = Children::new(&words, base, next);
                        for &code in codes {
                            children.push_received(code);
                        }
                        children.drain();
                        children.wrote
                    });
                    new_children += wrote.filter(|&w| w).count() as u64;
                });
                totals[1] += new_children;
                totals[2] += sent;
                buffer_bytes = buffer_bytes.max(8 * (held + largest));
            }
            // Decided together: the states of every rank's pass so far, and whether any rank's
            // clock ran out.
            let mut check = [totals[0], (hit.get() == Some(&LimitHit::Time)) as u64];
            comm.sum(&mut check);
            stopped = limits.over(counted + check[0], 0).or((check[1] > 0).then_some(LimitHit::Time));
            if stopped.is_some() {
                break 'layers;
            }
        }
        comm.sum(&mut totals);
        layers.push(totals[0]);
        exchanged.push(totals[2]);
        on_layer(d, totals[0]);
        last_expanded = first_states;
        if totals[1] == 0 {
            break;
        }
    }
    // The first farthest states of every rank, in rank order: the order of one process's scan.
    let local: Vec<u64> = last_expanded.iter().map(|&(rank, blank)| rank << 4 | blank as u64).collect();
    let gathered = if comm.size() > 1 { comm.all_gather(&local) } else { local };
    let far = gathered
        .into_iter()
        .take(farthest)
        .map(|code| space.cells_of(&space.state_at(code >> 4, (code & 15) as usize)))
        .collect();
    Ok(PerfectTable {
        farthest_count: *layers.last().expect("the start layer"),
        layers,
        farthest: far,
        peak_bytes: 4 * count as u64 + buffer_bytes,
        exchanged,
        wall_s: clock.elapsed().as_secs_f64(),
        stopped,
    })
}

/// What a chunk of one pass works on: this rank's slice (`words`, word `base` first), the global
/// index of the chunk's first word, the frontier and next codes and the field mask, the
/// reachable class, and how many farthest states to keep.
struct Pass<'a> {
    words: &'a [AtomicU32],
    base: usize,
    offset: usize,
    codes: (u32, u32, u32),
    class: u8,
    farthest: usize,
}

/// Expands the frontier fields (code `pass.codes.0`) of the words `slice` (starting at global word
/// `pass.offset`): each becomes expanded, its unseen children get code `pass.codes.1` (children in
/// other ranks' slices are returned for their owners).
fn expand_chunk<const UNIT: bool>(space: &Space, pass: &Pass, slice: &[AtomicU32]) -> ChunkResult {
    let (frontier, next, low) = pass.codes;
    let mut out = ChunkResult { expanded: 0, wrote: false, first: Vec::new(), remote: Vec::new() };
    let mut children = Children::new(pass.words, pass.base, next);
    let mut cursor = Cursor::new(space, pass.class);
    for (i, word) in slice.iter().enumerate() {
        let value = word.load(Ordering::Relaxed);
        let mut todo = fields_equal(value, frontier, low);
        if todo == 0 {
            continue;
        }
        out.expanded += todo.count_ones() as u64;
        cursor.seek(space, (pass.offset + i) as u64);
        let unseen = fields_equal(value, 0, low);
        let mut own = 0u32;
        let mut own_new = 0u32;
        while todo != 0 {
            let bit = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            let blank = bit / 2;
            own |= DONE << bit;
            own_new |= space.moves[blank].horizontal & unseen;
            let s = cursor.state(space, blank);
            if out.first.len() < pass.farthest {
                out.first.push((s.rank, blank));
            }
            space.vertical_children::<UNIT>(s, |rank, blank| children.push(rank, blank));
        }
        word.fetch_or(own | (own_new * next), Ordering::Relaxed);
        out.wrote |= own_new != 0;
    }
    children.drain();
    out.wrote |= children.wrote;
    out.remote = children.remote;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bytes_of_a_board_too_large_for_the_engine_saturate_instead_of_overflowing() {
        // 4 x 11!/2 x 2 bytes for 12 cells; 24!/2 words overflow u64 (the engine is then refused
        // by its memory check, as `enumerate` asks for every block board of 25 cells).
        assert_eq!(bytes_needed(12), 4 * 19_958_400);
        assert_eq!(bytes_needed(21), 4 * (3..21u64).product::<u64>());
        assert_eq!(bytes_needed(25), u64::MAX);
        assert_eq!(bytes_per_rank(5, 5, Metric::Unit, 1), u64::MAX - 3);
        assert!(bytes_per_rank(8, 8, Metric::Unit, 4) > 1 << 62);
    }

    #[test]
    fn over_ranks_a_table_needs_no_more_than_in_one_process() {
        // The exchange buffers used to be planned at 172 MB on any board (one round of 2^18 words
        // and 2^24 words received), so 3x3 on 2 ranks needed 172,006,784 bytes where one process
        // needs 80,640.
        assert_eq!(bytes_per_rank(3, 3, Metric::Unit, 1), 80_640);
        assert_eq!(bytes_per_rank(3, 3, Metric::Unit, 2), 80_640);
        assert_eq!(round_words(3, 3, Metric::Unit, 2), 140);
        for cells in 3..=MAX_CELLS {
            let words = bytes_needed(cells) / 4;
            for (rows, cols) in (1..=cells).filter(|r| cells % r == 0).map(|r| (r, cells / r)) {
                for metric in [Metric::Unit, Metric::Straight] {
                    let vertical = vertical_moves(rows, metric).max(1);
                    for ranks in 2..=64usize {
                        let slice = 4 * Slices::new(words, ranks).per_rank;
                        let round = round_words(rows, cols, metric, ranks);
                        assert!((1..=ROUND_WORDS).contains(&round), "{rows}x{cols}, {ranks} ranks");
                        if slice >= 8 * (cells * ranks) as u64 * vertical {
                            let bytes = bytes_per_rank(rows, cols, metric, ranks);
                            assert!(bytes <= 2 * slice, "{rows}x{cols} {metric:?}, {ranks} ranks");
                        }
                    }
                }
            }
        }
        // Large slices keep the full rounds: 14 cells over 64 ranks.
        assert_eq!(round_words(2, 7, Metric::Unit, 64), ROUND_WORDS);
    }

    #[test]
    fn in_the_straight_metric_every_other_cell_of_a_column_is_a_vertical_child() {
        // A 5x2 board in the straight metric: a blank has 4 vertical moves (it had been planned at
        // 2), so a round sends up to 4 x 10 children a word and the round is half as long.
        assert_eq!(vertical_moves(5, Metric::Straight), 4);
        assert_eq!(vertical_moves(5, Metric::Unit), 2);
        assert_eq!(vertical_moves(1, Metric::Straight), 0);
        let (unit, straight) = (round_words(5, 2, Metric::Unit, 2), round_words(5, 2, Metric::Straight, 2));
        assert_eq!((unit, straight), (1134, 567));
        let space = Space::new(5, 2, Metric::Straight);
        let most = space.moves.iter().map(|m| (m.up + m.down) as u64).max();
        assert_eq!(most, Some(vertical_moves(5, Metric::Straight)));
    }

    #[test]
    fn vertical_moves_update_the_rank_like_a_full_re_rank() {
        let (rows, cols) = (3, 4);
        let space = Space::new(rows, cols, Metric::Unit);
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
        let mut d = space.word_digits(12345);
        space.advance(&mut d, 777);
        assert_eq!(d, space.word_digits(12345 + 777));
    }

    #[test]
    fn a_word_holds_the_order_each_blank_cell_allows() {
        // 3x4 (even width): the blank's row decides the parity; every field of a word decodes to
        // a state whose full rank lies in that word and whose layout ranks back to itself.
        let space = Space::new(3, 4, Metric::Unit);
        let start = space.state_of(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0]);
        let class = (start.digits.iter().map(|&d| d as u32).sum::<u32>() % 2) as u8 ^ space.moves[11].row_parity;
        let mut cursor = Cursor::new(&space, class);
        for index in [0u64, 1, 2, 7, 100, 101, 5000, 19_958_399] {
            cursor.seek(&space, index);
            let mut fresh = Cursor::new(&space, class);
            fresh.seek(&space, index);
            assert_eq!(cursor.orders, fresh.orders);
            let mut ranks = std::collections::HashSet::new();
            for blank in 0..12 {
                let s = cursor.state(&space, blank);
                assert_eq!(s.rank / 2, index);
                let owned = State { blank, order: *s.order, digits: *s.digits, rank: s.rank };
                let again = space.state_of(&space.cells_of(&owned));
                assert_eq!((again.rank, again.blank, again.digits), (s.rank, blank, *s.digits));
                let parity = again.digits.iter().map(|&d| d as u32).sum::<u32>() % 2;
                assert_eq!(parity as u8 ^ space.moves[blank].row_parity, class);
                ranks.insert(s.rank);
            }
            assert_eq!(ranks.len(), 2, "rows 0 and 2 take one order, row 1 the other");
        }
    }

    #[test]
    fn small_tables_match_the_known_counts() {
        // 3x3 from the goal: 181,440 states, 31 the largest depth with 2 states (OEIS A089473).
        let mut seen = Vec::new();
        let t =
            enumerate_tiles(3, 3, &[1, 2, 3, 4, 5, 6, 7, 8, 0], Metric::Unit, 2, &Limits::default(), &mut |d, n| {
                seen.push((d, n))
            });
        let t = t.unwrap();
        assert_eq!((t.layers.iter().sum::<u64>(), t.layers.len() - 1, t.farthest_count), (181_440, 31, 2));
        assert_eq!(seen, t.layers.iter().copied().enumerate().collect::<Vec<_>>(), "one call per layer, in order");
        assert_eq!(&t.layers[..6], &[1, 2, 4, 8, 16, 20]);
        assert_eq!(t.farthest.len(), 2);
        // 2x5: 1,814,400 states, diameter 55 (OEIS A090036).
        let t =
            enumerate_tiles(2, 5, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 0], Metric::Unit, 0, &Limits::default(), &mut |_, _| {})
                .unwrap();
        assert_eq!((t.layers.iter().sum::<u64>(), t.layers.len() - 1), (1_814_400, 55));
        // The smallest board: 1x3, two tiles that only slide sideways (3 states).
        let t = enumerate_tiles(1, 3, &[1, 2, 0], Metric::Unit, 0, &Limits::default(), &mut |_, _| {}).unwrap();
        assert_eq!(t.layers, vec![1, 1, 1]);
    }
}
