//! Sets of board cells, one bit a cell: the occupancy of a block state and the cells of one
//! placement or one step.
//!
//! The representation is chosen once per puzzle from its board's size ([`BoardSize::of`]): one,
//! two or four machine words held by value ([`Dense`]), so a board is an OR of masks and a step
//! test is one AND; or, for boards of 256 cells or more, masks as short lists of (word, bits)
//! pairs over an occupancy vector ([`Sparse`]), which cost bytes per cell of a piece, not per cell
//! of the board.
//!
//! Every occupancy also holds one cell past the board, always occupied: the mask of a step off the
//! board or against a piece's movement is that cell ([`CellSets::blocked`]), so a step test needs
//! no separate "is there a step" branch.

use super::key::Wide;
use std::borrow::Cow;
use std::fmt::Debug;

/// How a compiled block puzzle stores cell sets.
pub trait CellSets: Debug + Send + Sync + Sized + 'static {
    /// The cells one state occupies.
    type Occupancy: Clone + Send + Debug;
    /// The cells of one placement, or the cells one step enters.
    type Mask: Copy + Debug + Send + Sync;
    /// A store for masks of a board of `cells` cells, if this representation can hold such a board
    /// (and the one cell past it).
    fn new(cells: usize) -> Option<Self>;
    /// An occupancy holding only the cell past the board.
    fn occupancy(&self) -> Self::Occupancy;
    /// The mask of `cells` (cell numbers, each below the board's cell count), kept in this store.
    fn mask(&mut self, cells: &[u32]) -> Self::Mask;
    /// The mask of the cell past the board: never disjoint from an occupancy.
    fn blocked(&mut self) -> Self::Mask;
    /// Makes room for more masks of at most `pairs` word pairs in all ([`word_pairs`]), so that
    /// building them allocates once instead of growing a store by doubling (which holds both
    /// copies while it moves); nothing for representations that keep masks by value.
    fn reserve(&mut self, _pairs: usize) {}
    /// Empties `occ` but for the cell past the board.
    fn clear(&self, occ: &mut Self::Occupancy);
    /// Flips the cells of `m` in `occ` (adds a placement absent from it, removes one present).
    fn toggle(&self, occ: &mut Self::Occupancy, m: Self::Mask);
    /// Whether no cell of `m` is in `occ`.
    fn disjoint(&self, occ: &Self::Occupancy, m: Self::Mask) -> bool;
    /// Adds the cells of `m` to `occ` (those already there stay).
    fn cover(&self, occ: &mut Self::Occupancy, m: Self::Mask);
    /// The board cells in `occ` (the cell past the board not counted).
    fn count(&self, occ: &Self::Occupancy) -> u32;
    /// Sets `occ` to the cell past the board and the cells of `first` and of every mask of `masks`
    /// (all disjoint).
    #[inline]
    fn fill(&self, occ: &mut Self::Occupancy, first: Self::Mask, masks: impl Iterator<Item = Self::Mask>) {
        self.clear(occ);
        self.toggle(occ, first);
        masks.for_each(|m| self.toggle(occ, m));
    }
}

/// A fixed number of 64-bit words used as a bit set.
pub trait Bits: Copy + Eq + Debug + Send + Sync + 'static {
    /// Number of bits.
    const BITS: usize;
    /// The empty set.
    const ZERO: Self;
    /// The set holding only `bit` (`bit < BITS`).
    fn bit(bit: u32) -> Self;
    /// The symmetric difference.
    fn xor(self, other: Self) -> Self;
    /// Whether the two sets share no bit.
    fn disjoint(self, other: Self) -> bool;
    /// The union.
    fn or(self, other: Self) -> Self;
    /// The number of bits set.
    fn count(self) -> u32;
}

/// `Bits` for a primitive unsigned integer: one machine operation each.
macro_rules! primitive_bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            const BITS: usize = <$t>::BITS as usize;
            const ZERO: Self = 0;
            #[inline]
            fn bit(bit: u32) -> Self {
                1 << bit
            }
            #[inline]
            fn xor(self, other: Self) -> Self {
                self ^ other
            }
            #[inline]
            fn disjoint(self, other: Self) -> bool {
                self & other == 0
            }
            #[inline]
            fn or(self, other: Self) -> Self {
                self | other
            }
            #[inline]
            fn count(self) -> u32 {
                self.count_ones()
            }
        }
    )*};
}

primitive_bits!(u64, u128);

impl<const N: usize> Bits for Wide<N> {
    const BITS: usize = 64 * N;
    const ZERO: Self = Wide([0; N]);
    #[inline]
    fn bit(bit: u32) -> Self {
        let mut w = [0; N];
        w[(bit / 64) as usize] = 1 << (bit % 64);
        Wide(w)
    }
    #[inline]
    fn xor(self, other: Self) -> Self {
        Wide(std::array::from_fn(|i| self.0[i] ^ other.0[i]))
    }
    #[inline]
    fn disjoint(self, other: Self) -> bool {
        self.0.iter().zip(other.0.iter()).fold(0, |acc, (a, b)| acc | (a & b)) == 0
    }
    #[inline]
    fn or(self, other: Self) -> Self {
        Wide(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }
    #[inline]
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
}

/// Cell sets held by value in `B`: for boards of fewer than `B::BITS` cells.
#[derive(Debug)]
pub struct Dense<B> {
    /// The cell past the board.
    past: B,
}

impl<B: Bits> CellSets for Dense<B> {
    type Occupancy = B;
    type Mask = B;
    fn new(cells: usize) -> Option<Self> {
        (cells < B::BITS).then(|| Dense { past: B::bit(cells as u32) })
    }
    fn occupancy(&self) -> B {
        self.past
    }
    fn mask(&mut self, cells: &[u32]) -> B {
        cells.iter().fold(B::ZERO, |m, &c| m.xor(B::bit(c)))
    }
    fn blocked(&mut self) -> B {
        self.past
    }
    #[inline]
    fn clear(&self, occ: &mut B) {
        *occ = self.past;
    }
    #[inline]
    fn toggle(&self, occ: &mut B, m: B) {
        *occ = occ.xor(m);
    }
    #[inline]
    fn disjoint(&self, occ: &B, m: B) -> bool {
        occ.disjoint(m)
    }
    #[inline]
    fn cover(&self, occ: &mut B, m: B) {
        *occ = occ.or(m);
    }
    #[inline]
    fn count(&self, occ: &B) -> u32 {
        occ.xor(self.past).count()
    }
    /// Folds the masks in a register, not through `occ` in memory.
    #[inline]
    fn fill(&self, occ: &mut B, first: B, masks: impl Iterator<Item = B>) {
        *occ = masks.fold(self.past.xor(first), B::xor);
    }
}

/// Cell sets of any board: an occupancy vector of words, masks as runs of (word, bits) pairs in
/// one shared list.
#[derive(Debug)]
pub struct Sparse {
    /// The board's cell count: the cell past the board.
    cells: usize,
    pairs: Vec<(u32, u64)>,
}

/// A [`Sparse`] mask: the run `start..start + len` of its pair list.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    start: u32,
    len: u32,
}

impl Sparse {
    #[inline]
    fn pairs(&self, m: Run) -> &[(u32, u64)] {
        &self.pairs[m.start as usize..(m.start + m.len) as usize]
    }
}

#[cfg(test)]
impl Sparse {
    /// The word pairs of every mask made so far.
    pub(crate) fn pairs_held(&self) -> usize {
        self.pairs.len()
    }
}

impl CellSets for Sparse {
    type Occupancy = Vec<u64>;
    type Mask = Run;
    fn new(cells: usize) -> Option<Self> {
        Some(Sparse { cells, pairs: Vec::new() })
    }
    fn occupancy(&self) -> Vec<u64> {
        let mut occ = vec![0; (self.cells + 1).div_ceil(64)];
        self.clear(&mut occ);
        occ
    }
    /// One pair per word, in ascending word order: the cells are taken in ascending order (a
    /// copy sorted when they are not), so each cell's word is the last pair's or a new one.
    fn mask(&mut self, cells: &[u32]) -> Run {
        let start = self.pairs.len();
        let cells: Cow<[u32]> = match cells.is_sorted() {
            true => Cow::Borrowed(cells),
            false => Cow::Owned({
                let mut sorted = cells.to_vec();
                sorted.sort_unstable();
                sorted
            }),
        };
        for &c in cells.iter() {
            let (word, bit) = (c / 64, 1u64 << (c % 64));
            match self.pairs[start..].last_mut() {
                Some((w, bits)) if *w == word => *bits |= bit,
                _ => self.pairs.push((word, bit)),
            }
        }
        let start = u32::try_from(start).expect("pair lists are sized within the memory budget");
        Run { start, len: (self.pairs.len() as u32) - start }
    }
    fn blocked(&mut self) -> Run {
        self.mask(&[self.cells as u32])
    }
    /// The compile's estimate counted 16 bytes for each of these pairs
    /// ([`BoardSize::placement_mask_bytes`]), so this stays within the budget it was checked
    /// against; where even that cannot be had, the list grows as it goes.
    fn reserve(&mut self, pairs: usize) {
        let _ = self.pairs.try_reserve_exact(pairs);
    }
    #[inline]
    fn clear(&self, occ: &mut Vec<u64>) {
        occ.iter_mut().for_each(|w| *w = 0);
        occ[self.cells / 64] = 1 << (self.cells % 64);
    }
    #[inline]
    fn toggle(&self, occ: &mut Vec<u64>, m: Run) {
        for &(w, bits) in self.pairs(m) {
            occ[w as usize] ^= bits;
        }
    }
    #[inline]
    fn disjoint(&self, occ: &Vec<u64>, m: Run) -> bool {
        self.pairs(m).iter().all(|&(w, bits)| occ[w as usize] & bits == 0)
    }
    #[inline]
    fn cover(&self, occ: &mut Vec<u64>, m: Run) {
        for &(w, bits) in self.pairs(m) {
            occ[w as usize] |= bits;
        }
    }
    #[inline]
    fn count(&self, occ: &Vec<u64>) -> u32 {
        occ.iter().map(|w| w.count_ones()).sum::<u32>() - 1
    }
}

/// The cell-set representation a board gets, decided once from its cell count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardSize {
    /// Fewer than 64 cells: [`Dense<u64>`].
    Word,
    /// Fewer than 128 cells: [`Dense<u128>`].
    TwoWords,
    /// Fewer than 256 cells: [`Dense<Wide<4>>`].
    FourWords,
    /// Any size: [`Sparse`].
    Large,
}

impl BoardSize {
    /// The representation of a board of `cells` cells.
    pub fn of(cells: usize) -> BoardSize {
        match cells {
            0..64 => BoardSize::Word,
            64..128 => BoardSize::TwoWords,
            128..256 => BoardSize::FourWords,
            _ => BoardSize::Large,
        }
    }

    /// Bytes of the five masks of one placement (its cells and the cells each of its four steps
    /// enters), an upper bound; on a large board the five hold at most `pairs` word pairs in all.
    pub fn placement_mask_bytes(self, pairs: usize) -> u64 {
        match self {
            BoardSize::Word => 5 * 8,
            BoardSize::TwoWords => 5 * 16,
            BoardSize::FourWords => 5 * 32,
            BoardSize::Large => 5 * 8 + 16 * pairs as u64,
        }
    }
}

/// The most (word, bits) pairs a [`Sparse`] mask of these cells (offsets from an anchor) holds
/// wherever they are placed: in each run of cells of one row, its cells, or the words its span
/// can touch. Cells in reading order make a run of each row; in any other order a row may make
/// several runs, and the bound is only looser.
pub fn word_pairs(cells: impl Iterator<Item = (isize, isize)>) -> usize {
    // The run so far: its row, first and last column, and cells.
    let mut run: Option<(isize, isize, isize, usize)> = None;
    let mut pairs = 0;
    let bound = |(_, first, last, count): (isize, isize, isize, usize)| count.min((last - first) as usize / 64 + 2);
    for (r, c) in cells {
        run = match run {
            Some((row, first, last, count)) if row == r => Some((row, first.min(c), last.max(c), count + 1)),
            done => {
                pairs += done.map_or(0, bound);
                Some((r, c, c, 1))
            }
        };
    }
    pairs + run.map_or(0, bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mask touches at most its cells, and at most the words of each row's span.
    #[test]
    fn word_pairs_bound_each_row_by_its_cells_and_its_span() {
        let block = |h: isize, w: isize| word_pairs((0..h).flat_map(|r| (0..w).map(move |c| (r, c))));
        assert_eq!(block(1, 1), 1);
        assert_eq!(block(3, 3), 6);
        assert_eq!(block(1, 64), 2);
        assert_eq!(block(2, 130), 8);
        assert_eq!(word_pairs([(0, 0), (0, 200), (1, -3)].into_iter()), 3);
    }

    /// A sparse mask holds one pair per word its cells touch, whatever their order.
    #[test]
    fn a_sparse_mask_has_one_pair_per_word_in_word_order() {
        let mut store = Sparse::new(1000).unwrap();
        let many: Vec<u32> = (0..900).collect();
        let m = store.mask(&many);
        assert_eq!(store.pairs(m).len(), 15);
        let m = store.mask(&[700, 3, 64, 5, 130]);
        assert_eq!(store.pairs(m), [(0, (1 << 3) | (1 << 5)), (1, 1), (2, 1 << 2), (10, 1 << 60)]);
    }

    /// Every representation agrees with a plain set of cells on toggles, disjointness, unions and counts.
    #[test]
    fn every_representation_agrees_with_a_cell_list() {
        fn check<C: CellSets>(cells: usize) {
            let mut store = C::new(cells).unwrap();
            let sets: Vec<Vec<u32>> =
                (0..12u32).map(|i| (0..4).map(|j| (i * 37 + j * 61) % cells as u32).collect()).collect();
            let sets: Vec<Vec<u32>> = sets
                .into_iter()
                .map(|mut s| {
                    s.sort_unstable();
                    s.dedup();
                    s
                })
                .collect();
            let masks: Vec<C::Mask> = sets.iter().map(|s| store.mask(s)).collect();
            let mut occ = store.occupancy();
            let mut plain = vec![false; cells];
            let mut covered = store.occupancy();
            let mut union = vec![false; cells];
            for (i, (set, &m)) in sets.iter().zip(&masks).enumerate() {
                let expect = set.iter().all(|&c| !plain[c as usize]);
                assert_eq!(store.disjoint(&occ, m), expect, "set {i} on {cells} cells");
                if expect && i % 3 != 2 {
                    store.toggle(&mut occ, m);
                    set.iter().for_each(|&c| plain[c as usize] = true);
                }
                store.cover(&mut covered, m);
                set.iter().for_each(|&c| union[c as usize] = true);
                assert_eq!(store.count(&covered), union.iter().filter(|&&u| u).count() as u32);
            }
            assert_eq!(store.count(&occ), plain.iter().filter(|&&u| u).count() as u32);
            store.clear(&mut occ);
            assert!(masks.iter().all(|&m| store.disjoint(&occ, m)));
            let blocked = store.blocked();
            assert!(!store.disjoint(&occ, blocked));
            assert!(!store.disjoint(&store.occupancy(), blocked));
        }
        check::<Dense<u64>>(63);
        check::<Dense<u128>>(100);
        check::<Dense<Wide<4>>>(255);
        check::<Sparse>(1000);
        check::<Sparse>(1023);
        assert!(Dense::<u64>::new(64).is_none());
    }
}
