//! Visited sets for the frontier engine: one set per BFS level, and two ways to build the next.
//!
//! Sliding moves are reversible, so a child of level `d` can only be in level `d-1`, `d` or `d+1`:
//! the engine keeps just those three sets (a small search keeps one [`ClosedSet`] of all its
//! states instead, and a domain with dense indices may switch to a [`DenseSet`]). Levels `d-1` and `d` are read-only while level `d` is
//! expanded (lock-free lookups from every thread); only level `d+1` is being built, by one of two
//! [`Backend`]s:
//! - [`Backend::Sharded`]: every thread routes new candidates to per-shard buckets by hash; each
//!   shard is then deduplicated by the one thread that owns it, in chunk order (no locks). Its
//!   sets ([`IndexSet`]) hold `u32` positions into the level's key array, not keys.
//! - [`Backend::DashMap`]: every thread inserts into one concurrent `DashMap`, keeping the smallest
//!   generation sequence number per state; the level is then sorted by that number.
//!
//! Both produce the next level in exactly the order a sequential queue would.

use crate::domain::Key;
use dashmap::DashMap;
use hashbrown::HashTable;
use hashbrown::hash_table::Entry;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// log2 of the number of shards a level is split into on `threads` threads: about 8 a thread
/// (enough to balance the deduplication), at most 64.
pub fn shard_bits(threads: usize) -> u32 {
    (threads.max(1).next_power_of_two().trailing_zeros() + 3).min(6)
}

/// Which of `2^bits` shards a candidate goes to: bits `shift..shift + bits` of its hash (or of its
/// dense index, [`DenseSet::route`]).
#[derive(Clone, Copy, Debug)]
pub struct Route {
    shift: u32,
    bits: u32,
}

impl Route {
    /// The route of hashed keys: bits 51-56 of the hash (hashbrown takes its control tag from the
    /// top 7 bits and the bucket from the low ones, so a shard's table still sees well-mixed
    /// bits); always shard 0 for an unsharded set.
    pub fn hashed(bits: u32) -> Route {
        Route { shift: 57 - bits, bits }
    }

    /// The shard of a candidate with this hash (or dense index).
    #[inline]
    pub fn of(&self, hash: u64) -> usize {
        ((hash >> self.shift) & ((1 << self.bits) - 1)) as usize
    }

    /// log2 of the number of shards.
    pub fn bits(&self) -> u32 {
        self.bits
    }
}

/// A set of the states of one level, holding `u32` positions into the level's key array (4 bytes
/// a slot instead of a key); every lookup takes that array. One hashbrown table per shard, each
/// filled by one thread.
pub struct IndexSet {
    /// Which shard's table holds a hash (fixed when the set is made).
    route: Route,
    /// The shards' tables of positions.
    pub tables: Vec<HashTable<u32>>,
}

impl IndexSet {
    /// One empty table (no shards).
    pub fn new() -> Self {
        IndexSet { route: Route::hashed(0), tables: vec![HashTable::new()] }
    }

    /// Whether `key`, whose [`Key::mix`] is `hash`, is in the set whose positions point into `keys`.
    #[inline]
    pub fn contains<K: Key>(&self, keys: &[K], key: &K, hash: u64) -> bool {
        self.tables[self.route.of(hash)].find(hash, |&i| keys[i as usize] == *key).is_some()
    }

    /// One table with room for `capacity` positions.
    pub fn with_capacity(capacity: usize) -> Self {
        IndexSet { route: Route::hashed(0), tables: vec![HashTable::with_capacity(capacity)] }
    }

    /// [`IndexSet::with_capacity`], or an empty table where the memory for `capacity` positions
    /// could not be had (the set then grows as it fills, each growth checked).
    pub fn try_with_capacity(capacity: usize) -> Self {
        let mut table = HashTable::new();
        // An empty table rehashes nothing, so its hasher is never called.
        if table.try_reserve(capacity, |_: &u32| 0).is_err() {
            table = HashTable::new();
        }
        IndexSet { route: Route::hashed(0), tables: vec![table] }
    }

    /// One table of the positions of `keys`, which are distinct.
    pub fn of<K: Key>(keys: &[K]) -> Self {
        let mut set = IndexSet::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            set.insert(keys, key, key.mix(), i as u32);
        }
        set
    }

    /// The sharded set whose shard `s` is `shards[s]` (each built with one table).
    pub fn from_shards(bits: u32, shards: Vec<IndexSet>) -> Self {
        IndexSet { route: Route::hashed(bits), tables: shards.into_iter().flat_map(|s| s.tables).collect() }
    }

    /// Adds the position `index` of `key` (in `keys`; its [`Key::mix`] is `hash`) unless an equal
    /// key is already there; whether it was added.
    #[inline]
    pub fn insert<K: Key>(&mut self, keys: &[K], key: &K, hash: u64, index: u32) -> bool {
        self.insert_with(key, hash, index, |i| keys[i as usize])
    }

    /// [`IndexSet::insert`], or `None` (and nothing added) when the set is full and the memory to
    /// grow it could not be had.
    #[inline(always)]
    pub fn try_insert<K: Key>(&mut self, keys: &[K], key: &K, hash: u64, index: u32) -> Option<bool> {
        let table = &mut self.tables[self.route.of(hash)];
        table.try_reserve(1, |&i| keys[i as usize].mix()).ok()?;
        Some(self.insert(keys, key, hash, index))
    }

    /// Room for `additional` more positions in each table without growing, grown now if needed
    /// (`key_at` gives the key at a position); false, and nothing changed, when the memory could
    /// not be had.
    pub fn try_reserve_with<K: Key>(&mut self, additional: usize, key_at: impl Fn(u32) -> K) -> bool {
        self.tables.iter_mut().all(|t| t.try_reserve(additional, |&i| key_at(i).mix()).is_ok())
    }

    /// Removes the position `index` of a key whose [`Key::mix`] is `hash`, if the set holds it
    /// (reading no key: `index` may lie past the level's keys).
    pub fn forget(&mut self, hash: u64, index: u32) {
        if let Ok(entry) = self.tables[self.route.of(hash)].find_entry(hash, |&i| i == index) {
            entry.remove();
        }
    }

    /// [`IndexSet::insert`] where `key_at` gives the key at a position.
    #[inline]
    pub fn insert_with<K: Key>(&mut self, key: &K, hash: u64, index: u32, key_at: impl Fn(u32) -> K) -> bool {
        let table = &mut self.tables[self.route.of(hash)];
        match table.entry(hash, |&i| key_at(i) == *key, |&i| key_at(i).mix()) {
            Entry::Occupied(_) => false,
            Entry::Vacant(slot) => {
                slot.insert(index);
                true
            }
        }
    }

    /// Replaces every position `p` by `f(p)` (which must name an equal key).
    pub fn remap(&mut self, f: impl Fn(u32) -> u32) {
        for table in &mut self.tables {
            table.iter_mut().for_each(|p| *p = f(*p));
        }
    }

    /// Bytes held, from the capacities.
    pub fn bytes(&self) -> u64 {
        self.tables.iter().map(|t| set_bytes(held_buckets(t.capacity()))).sum()
    }

    /// Positions the tables hold without growing.
    pub fn capacity(&self) -> usize {
        self.tables.iter().map(|t| t.capacity()).sum()
    }
}

impl Default for IndexSet {
    fn default() -> Self {
        IndexSet::new()
    }
}

/// The set of one BFS level, for membership tests.
pub enum LevelSet<K: Key> {
    /// Positions into the level's keys, in hashbrown tables.
    Sharded(IndexSet),
    /// One concurrent map from state to generation sequence number.
    Dash(DashMap<K, u64>),
}

impl<K: Key> LevelSet<K> {
    /// An empty set.
    pub fn empty() -> Self {
        LevelSet::Sharded(IndexSet::new())
    }

    /// Whether `key`, whose [`Key::mix`] is `hash`, is in the set of the level whose keys are `keys`.
    #[inline]
    pub fn contains(&self, keys: &[K], key: &K, hash: u64) -> bool {
        match self {
            LevelSet::Sharded(set) => set.contains(keys, key, hash),
            LevelSet::Dash(map) => map.contains_key(key),
        }
    }

    /// States the set holds without growing (none for the DashMap backend, which is not reused).
    pub fn capacity(&self) -> usize {
        match self {
            LevelSet::Sharded(set) => set.capacity(),
            LevelSet::Dash(_) => 0,
        }
    }

    /// Bytes held, from the capacities.
    pub fn bytes(&self) -> u64 {
        match self {
            LevelSet::Sharded(set) => set.bytes(),
            LevelSet::Dash(map) => {
                let entry = std::mem::size_of::<(K, u64)>() as u64 + 1;
                map.capacity() as u64 * 8 / 7 * entry
            }
        }
    }
}

/// Bytes of a hashbrown table of `u32` positions with `buckets` buckets (a slot and a control
/// byte each, plus one group of trailing control bytes).
pub fn set_bytes(buckets: usize) -> u64 {
    if buckets == 0 { 0 } else { buckets as u64 * 5 + 16 }
}

/// The buckets hashbrown allocates for `with_capacity(capacity)`.
pub fn planned_buckets(capacity: usize) -> usize {
    match capacity {
        0 => 0,
        1..4 => 4,
        4..8 => 8,
        _ => (capacity.saturating_mul(8) / 7).next_power_of_two(),
    }
}

/// The buckets behind a hashbrown table whose `capacity()` is `capacity`.
fn held_buckets(capacity: usize) -> usize {
    if capacity < 8 { if capacity == 0 { 0 } else { capacity + 1 } } else { capacity / 7 * 8 }
}

/// Every state a small search has visited: one lookup answers whether a child is known, whatever
/// its level, where the level sets take up to three. It holds its keys itself (levels give theirs
/// up as they leave the window), so the engine keeps it only while it is small
/// ([`CLOSED_BYTES`](super::frontier::CLOSED_BYTES)).
pub struct ClosedSet<K> {
    table: HashTable<K>,
}

impl<K: Key> ClosedSet<K> {
    /// An empty set.
    pub fn new() -> Self {
        ClosedSet { table: HashTable::new() }
    }

    /// Adds `key` (whose [`Key::mix`] is `hash`) unless it is already there; whether it was added,
    /// or `None` when it is new but the set is full and growing it would take more than `most`
    /// bytes, or more memory than could be had.
    #[inline]
    pub fn insert(&mut self, key: K, hash: u64, most: u64) -> Option<bool> {
        let table = &mut self.table;
        if table.len() == table.capacity() {
            if table.find(hash, |k| *k == key).is_some() {
                return Some(false);
            }
            // Four-fold: half as many rebuilds as doubling, which searches of a few thousand
            // states pay for in time (3 % on the Rush Hour corpus).
            let grown = Self::bytes_for(table.capacity().max(1) * 4);
            if grown > most {
                return None;
            }
            table.try_reserve(3 * table.len(), Key::mix).ok()?;
        }
        Some(match table.entry(hash, |k| *k == key, Key::mix) {
            Entry::Occupied(_) => false,
            Entry::Vacant(slot) => {
                slot.insert(key);
                true
            }
        })
    }

    /// Bytes held, from the capacity: a key and one control byte per bucket.
    pub fn bytes(&self) -> u64 {
        Self::bytes_for(self.table.capacity())
    }

    /// Bytes of a set with room for `capacity` keys (at most: the table rounds up).
    fn bytes_for(capacity: usize) -> u64 {
        let buckets = held_buckets(capacity) as u64;
        if buckets == 0 { 0 } else { buckets * (std::mem::size_of::<K>() as u64 + 1) + 16 }
    }
}

impl<K: Key> Default for ClosedSet<K> {
    fn default() -> Self {
        ClosedSet::new()
    }
}

/// The states visited since a search switched to it, as one bit per dense index of the domain
/// ([`Domain::dense_states`](crate::domain::Domain::dense_states)): a membership test is one bit
/// read, whatever the level. Lookups and inserts from several threads are safe as long as no two
/// threads insert into the same 64-bit word at once; the parallel deduplication gives each shard
/// whole words ([`DenseSet::route`]).
pub struct DenseSet {
    words: Vec<AtomicU64>,
    /// Bits of the largest index (`indices - 1`).
    index_bits: u32,
}

impl DenseSet {
    /// Bytes a set of `indices` bits takes.
    pub fn bytes_for(indices: u64) -> u64 {
        indices.div_ceil(64).saturating_mul(8)
    }

    /// An empty set of `indices` bits, or `None` when the memory for it could not be had.
    pub fn try_new(indices: u64) -> Option<Self> {
        let words = usize::try_from(indices.div_ceil(64)).ok()?;
        let mut array = Vec::new();
        array.try_reserve_exact(words).ok()?;
        array.resize_with(words, || AtomicU64::new(0));
        Some(DenseSet { words: array, index_bits: u64::BITS - indices.saturating_sub(1).leading_zeros() })
    }

    /// Whether index `i` is in the set.
    #[inline]
    pub fn contains(&self, i: u64) -> bool {
        self.words[(i >> 6) as usize].load(Ordering::Relaxed) & (1 << (i & 63)) != 0
    }

    /// Adds index `i`; whether it was new. Not atomic: the caller owns `i`'s word (see the type).
    #[inline]
    pub fn insert(&self, i: u64) -> bool {
        let word = &self.words[(i >> 6) as usize];
        let (old, bit) = (word.load(Ordering::Relaxed), 1 << (i & 63));
        word.store(old | bit, Ordering::Relaxed);
        old & bit == 0
    }

    /// The route of dense indices among at most `2^bits` shards: the indices are cut into blocks
    /// of at least one 64-bit word, dealt to the shards in turn, about 64 blocks a shard, so that
    /// every shard owns whole words and a level whose states crowd one part of the index range
    /// (tiles: the top bits are the blank's cell) still spreads evenly.
    pub fn route(&self, bits: u32) -> Route {
        let bits = bits.min(self.index_bits.saturating_sub(6));
        Route { shift: self.index_bits.saturating_sub(bits + 6).max(6), bits }
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }
}
