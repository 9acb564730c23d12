//! Packed state keys: one machine word (`u64`), two (`u128`), or a wider fixed array ([`Wide`]).
//!
//! A key is a sequence of bit fields laid out by [`layout`]; fields never straddle a 64-bit word,
//! so reading one is a shift and a mask on one word whatever the key type.

use std::fmt::Debug;
use std::hash::Hash;

/// A packed state: a fixed number of 64-bit words.
pub trait Key: Copy + Eq + Ord + Hash + Send + Sync + Debug + 'static {
    /// Number of 64-bit words.
    const WORDS: usize;
    /// The all-zero key.
    fn zero() -> Self;
    /// Word `i` (`i < WORDS`).
    fn word(&self, i: usize) -> u64;
    /// Replaces word `i`.
    fn set_word(&mut self, i: usize, value: u64);
    /// A well-mixed 64-bit hash (used to route keys to shards).
    #[inline]
    fn mix(&self) -> u64 {
        let mut h = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..Self::WORDS {
            h = splitmix(h ^ self.word(i));
        }
        h
    }
}

/// The splitmix64 finaliser: a fast bijective mix of 64 bits.
#[inline]
pub fn splitmix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl Key for u64 {
    const WORDS: usize = 1;
    #[inline]
    fn zero() -> Self {
        0
    }
    #[inline]
    fn word(&self, _: usize) -> u64 {
        *self
    }
    #[inline]
    fn set_word(&mut self, _: usize, value: u64) {
        *self = value;
    }
    #[inline]
    fn mix(&self) -> u64 {
        splitmix(*self)
    }
}

impl Key for u128 {
    const WORDS: usize = 2;
    #[inline]
    fn zero() -> Self {
        0
    }
    #[inline]
    fn word(&self, i: usize) -> u64 {
        (*self >> (64 * i)) as u64
    }
    #[inline]
    fn set_word(&mut self, i: usize, value: u64) {
        let shift = 64 * i;
        *self = (*self & !((u64::MAX as u128) << shift)) | ((value as u128) << shift);
    }
}

/// A key of `N` words, for puzzles whose state needs more than 128 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Wide<const N: usize>(pub [u64; N]);

impl<const N: usize> Key for Wide<N> {
    const WORDS: usize = N;
    #[inline]
    fn zero() -> Self {
        Wide([0; N])
    }
    #[inline]
    fn word(&self, i: usize) -> u64 {
        self.0[i]
    }
    #[inline]
    fn set_word(&mut self, i: usize, value: u64) {
        self.0[i] = value;
    }
}

/// Where one field lives in a key: a word, a shift and a width (0 bits for a constant field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    word: u32,
    shift: u32,
    mask: u64,
}

impl Field {
    /// Reads the field.
    #[inline]
    pub fn get<K: Key>(&self, key: &K) -> u32 {
        ((key.word(self.word as usize) >> self.shift) & self.mask) as u32
    }

    /// Writes the field (`value` must fit its width).
    #[inline]
    pub fn set<K: Key>(&self, key: &mut K, value: u32) {
        if self.mask == 0 {
            return;
        }
        let w = self.word as usize;
        let cleared = key.word(w) & !(self.mask << self.shift);
        key.set_word(w, cleared | ((value as u64 & self.mask) << self.shift));
    }

    /// The key bits the field occupies, numbered `64 * word + bit` (empty for a field of no bits).
    pub fn bits(&self) -> std::ops::Range<usize> {
        let first = 64 * self.word as usize + self.shift as usize;
        first..first + self.mask.count_ones() as usize
    }

    /// Changes the field from `old` (its current value) to `new` with one XOR.
    #[inline]
    pub fn replace<K: Key>(&self, key: &mut K, old: u32, new: u32) {
        let w = self.word as usize;
        key.set_word(w, key.word(w) ^ (((old ^ new) as u64 & self.mask) << self.shift));
    }
}

/// Bits needed to store values `0..count`.
pub fn bits_for(count: usize) -> u32 {
    if count <= 1 { 0 } else { usize::BITS - (count - 1).leading_zeros() }
}

/// Lays out fields of the given widths (each ≤ 32) without straddling words; returns the fields
/// and the number of words used.
pub fn layout(widths: &[u32]) -> (Vec<Field>, usize) {
    let mut fields = Vec::with_capacity(widths.len());
    let (mut word, mut used) = (0u32, 0u32);
    for &w in widths {
        if w == 0 {
            fields.push(Field { word: 0, shift: 0, mask: 0 });
            continue;
        }
        if used + w > 64 {
            word += 1;
            used = 0;
        }
        fields.push(Field { word, shift: used, mask: (1u64 << w) - 1 });
        used += w;
    }
    let words = if used == 0 { word as usize } else { word as usize + 1 };
    (fields, words.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_never_straddles_a_word() {
        let (fields, words) = layout(&[30, 30, 30, 0, 5]);
        assert_eq!(words, 2);
        assert_eq!(fields[2].word, 1);
        assert_eq!(fields[3].mask, 0);
    }

    #[test]
    fn fields_round_trip_in_every_key_type() {
        fn check<K: Key>() {
            let widths: Vec<u32> = (0..(K::WORDS * 64 / 7)).map(|i| (i % 7) as u32 + 1).collect();
            let (fields, words) = layout(&widths);
            assert!(words <= K::WORDS);
            let mut key = K::zero();
            for (i, f) in fields.iter().enumerate() {
                f.set(&mut key, (i as u32).wrapping_mul(2654435761) & ((1 << widths[i]) - 1));
            }
            for (i, f) in fields.iter().enumerate() {
                assert_eq!(f.get(&key), (i as u32).wrapping_mul(2654435761) & ((1 << widths[i]) - 1));
            }
            for (i, f) in fields.iter().enumerate().step_by(3) {
                let (old, new) = (f.get(&key), (i as u32).wrapping_mul(40503) & ((1 << widths[i]) - 1));
                let mut expect = key;
                f.set(&mut expect, new);
                f.replace(&mut key, old, new);
                assert_eq!(key, expect);
            }
        }
        check::<u64>();
        check::<u128>();
        check::<Wide<4>>();
    }
}
