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

    /// Bytes held (an estimate from capacities).
    pub fn bytes(&self) -> u64 {
        let entry = std::mem::size_of::<K>() as u64;
        match self {
            LevelSet::Sharded { sets, .. } => sets.iter().map(|s| s.capacity() as u64 * (entry + 1)).sum(),
            LevelSet::Dash(map) => map.capacity() as u64 * (entry + 9),
        }
    }
}
