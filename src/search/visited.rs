//! Visited sets for the frontier engine: one set per BFS level, and two ways to build the next.
//!
//! Sliding moves are reversible, so a child of level `d` can only be in level `d-1`, `d` or `d+1`:
//! the engine keeps just those three sets. Levels `d-1` and `d` are read-only while level `d` is
//! expanded (lock-free lookups from every thread); only level `d+1` is being built, by one of two
//! [`Backend`]s:
//! - [`Backend::Sharded`]: every thread routes new candidates to per-shard buckets by hash; each
//!   shard is then deduplicated by the one thread that owns it, in chunk order (no locks).
//! - [`Backend::DashMap`]: every thread inserts into one concurrent `DashMap`, keeping the smallest
//!   generation sequence number per state; the level is then sorted by that number.
//!
//! Both produce the next level in exactly the order a sequential queue would.

use crate::domain::Key;
use dashmap::DashMap;
use hashbrown::HashSet;
use std::fmt;
use std::str::FromStr;

/// How the next level's visited set is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// Hash-partitioned per-owner hashbrown sets (the default; measured faster).
    #[default]
    Sharded,
    /// One concurrent dashmap.
    DashMap,
}

impl FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "sharded" => Ok(Backend::Sharded),
            "dashmap" => Ok(Backend::DashMap),
            other => Err(format!("unknown visited backend '{other}' (expected sharded or dashmap)")),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Sharded => "sharded",
            Backend::DashMap => "dashmap",
        })
    }
}

/// log2 of the number of shards of a large level (64 shards).
pub const SHARD_BITS: u32 = 6;

/// The shard a key belongs to among `2^bits` (the top bits of its mix, independent of the set's
/// own hash); always 0 for an unsharded set.
#[inline]
pub fn shard_of<K: Key>(key: &K, bits: u32) -> usize {
    if bits == 0 { 0 } else { (key.mix() >> (64 - bits)) as usize }
}

/// The set of one BFS level, for membership tests.
pub enum LevelSet<K: Key> {
    /// `2^bits` hashbrown sets, one per shard (one set for small levels).
    Sharded {
        /// log2 of the number of shards.
        bits: u32,
        /// The shards.
        sets: Vec<HashSet<K>>,
    },
    /// One concurrent map from state to generation sequence number.
    Dash(DashMap<K, u64>),
}

impl<K: Key> LevelSet<K> {
    /// An empty set.
    pub fn empty() -> Self {
        LevelSet::Sharded { bits: 0, sets: vec![HashSet::new()] }
    }

    /// An unsharded set holding exactly `keys`.
    pub fn from_keys(keys: &[K]) -> Self {
        LevelSet::Sharded { bits: 0, sets: vec![keys.iter().copied().collect()] }
    }

    /// Whether `key` is in the set.
    #[inline]
    pub fn contains(&self, key: &K) -> bool {
        match self {
            LevelSet::Sharded { bits, sets } => sets[shard_of(key, *bits)].contains(key),
            LevelSet::Dash(map) => map.contains_key(key),
        }
    }

    /// Bytes held, from the capacities.
    pub fn bytes(&self) -> u64 {
        match self {
            LevelSet::Sharded { sets, .. } => sets.iter().map(|s| set_bytes::<K>(held_buckets(s.capacity()))).sum(),
            LevelSet::Dash(map) => {
                let entry = std::mem::size_of::<(K, u64)>() as u64 + 1;
                map.capacity() as u64 * 8 / 7 * entry
            }
        }
    }
}

/// Bytes of a hashbrown set of `K` with `buckets` buckets (a slot and a control byte each, plus
/// one group of trailing control bytes).
pub fn set_bytes<K>(buckets: usize) -> u64 {
    if buckets == 0 { 0 } else { buckets as u64 * (std::mem::size_of::<K>() as u64 + 1) + 16 }
}

/// The buckets hashbrown allocates for `HashSet::with_capacity(capacity)`.
pub fn planned_buckets(capacity: usize) -> usize {
    match capacity {
        0 => 0,
        1..4 => 4,
        4..8 => 8,
        _ => (capacity.saturating_mul(8) / 7).next_power_of_two(),
    }
}

/// The buckets behind a hashbrown set whose `capacity()` is `capacity`.
fn held_buckets(capacity: usize) -> usize {
    if capacity < 8 { if capacity == 0 { 0 } else { capacity + 1 } } else { capacity / 7 * 8 }
}
