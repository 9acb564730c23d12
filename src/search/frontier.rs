//! The frontier-synchronous level engine shared by BFS, bidirectional BFS and enumeration.
//!
//! Level `d` is a vector of keys. [`Engine::step`] expands it: each child is looked up
//! (lock-free) in the read-only sets of levels `d-1` and `d`; the survivors are deduplicated into
//! level `d+1` and laid out in exactly the order a sequential queue would produce (by parent
//! position, then move number). Hence the first target found, the solution and every count are
//! the same for any number of threads, and equal to
//! [`reference_bfs`](super::reference::reference_bfs).
//!
//! A small level (or one thread) is expanded as one chunk straight into level `d+1`'s arrays and
//! set. A large one is expanded in parallel chunks whose candidates the chosen [`Backend`]
//! deduplicates afterwards.
//!
//! Only levels `d-1`, `d` and `d+1` keep their keys, and their sets hold `u32` positions into
//! those keys ([`IndexSet`]). A small search ([`CLOSED_BYTES`], every level expanded as one
//! chunk, a graph that is not bipartite) keeps one [`ClosedSet`] of every state instead: a child
//! is then looked up once, not in up to three sets, and no set is made per level; when the search
//! outgrows it, the sets of levels `d-1` and `d` are built from their keys. Older levels keep,
//! when paths are wanted, only the parent index and the move ordinal of each state (5 bytes); a
//! path is rebuilt by replaying the ordinals from the start. Cheap filters run before any lookup:
//! the domain is given each state's parent and leaves out the moves that only reach the parent's
//! other successors ([`Domain::for_each_successor_from`]), a child equal to its grandparent (the
//! undo move) is skipped, and in a bipartite state graph a child is never looked up in its
//! parent's own level. A chunk works in batches: it generates the children of parents until it
//! holds 512 (`BATCH_CHILDREN`), hashing each once, then looks them up and adds the new ones in
//! sequential order. Two tight loops, one over the successor generator and one over the sets, run
//! faster than one loop that alternates between them.

use super::visited::{Backend, ClosedSet, DenseSet, IndexSet, LevelSet, Route, planned_buckets, set_bytes, shard_bits};
use super::{LimitHit, Limits, Stats};
use crate::domain::{Domain, Key};
use dashmap::DashMap;
use rayon::prelude::*;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// Marks a bucket entry that turned out to be a duplicate (and the start's missing parent).
const DUPLICATE: u32 = u32::MAX;

/// How the engine runs.
#[derive(Clone, Copy, Debug)]
pub struct EngineOptions {
    /// How the next level's set is built.
    pub backend: Backend,
    /// Keep every level's parents and moves (for path reconstruction), not only the frontier.
    pub keep_paths: bool,
    /// Print one line per level to standard error.
    pub trace: bool,
    /// Replace the level sets by one bit array over the domain's dense indices
    /// ([`Domain::dense_states`]) once the sets would take as many bytes (sharded backend only;
    /// bidirectional search, which asks whether a state is in the frontier, leaves it off).
    pub dense: bool,
    /// Keep one [`ClosedSet`] of every state while the search is small ([`CLOSED_BYTES`];
    /// bidirectional search leaves it off, as it does `dense`).
    pub closed: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { backend: Backend::default(), keep_paths: false, trace: false, dense: true, closed: true }
    }
}

/// What one [`Engine::step`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A new, non-empty level was added and holds no target.
    Grew,
    /// A target was generated; it is the last state of the new level, at this index.
    Found(usize),
    /// The frontier produced no new state: the search space is exhausted.
    Exhausted,
    /// A limit stopped the expansion; the level was not added.
    Limit(LimitHit),
}

/// Where a chunk looks its children up: the level sets, the bit array, or nowhere (the sink holds
/// the [`ClosedSet`]).
const SETS: u8 = 0;
/// See [`SETS`].
const DENSE: u8 = 1;
/// See [`SETS`].
const CLOSED: u8 = 2;

/// Levels smaller than this are expanded as one chunk, straight into the next level's set.
const SMALL_LEVEL: usize = 2048;

/// A search keeps every state in one [`ClosedSet`] instead of the level sets while the set's next
/// growth (four-fold) stays within this many bytes and half the memory limit, and every level is
/// expanded as one chunk.
pub const CLOSED_BYTES: u64 = 1 << 20;

/// A chunk generates the children of parents until it holds this many, then looks them up.
const BATCH_CHILDREN: usize = 512;

/// The fewest parents in a chunk of a level expanded in parallel.
const MIN_CHUNK: usize = 1024;

/// The move ordinal of every state of a level: the position (from 1) of the state among its
/// parent's successors, one byte each; the rare ordinals of 255 and more are listed apart.
#[derive(Default)]
struct Moves {
    small: Vec<u8>,
    /// (index, ordinal) for every state whose byte is `u8::MAX`, by index.
    big: Vec<(u32, u32)>,
}

impl Moves {
    /// The byte stored for `ordinal` (whether it needs an entry in `big`: when it is `u8::MAX`).
    fn byte(ordinal: u32) -> u8 {
        ordinal.min(u8::MAX as u32) as u8
    }

    /// Appends the ordinal of the next state.
    fn push(&mut self, ordinal: u32) {
        let byte = Moves::byte(ordinal);
        if byte == u8::MAX {
            self.big.push((self.small.len() as u32, ordinal));
        }
        self.small.push(byte);
    }

    /// Whether the ordinal `ordinal` can be appended without growing.
    fn has_room(&self, ordinal: u32) -> bool {
        self.small.len() < self.small.capacity()
            && (Moves::byte(ordinal) < u8::MAX || self.big.len() < self.big.capacity())
    }

    /// Makes room for one more ordinal, `ordinal`; false when the memory could not be had.
    fn try_room(&mut self, ordinal: u32) -> bool {
        self.small.try_reserve(1).is_ok() && (Moves::byte(ordinal) < u8::MAX || self.big.try_reserve(1).is_ok())
    }

    /// The ordinal of state `index`.
    fn get(&self, index: usize) -> u32 {
        match self.small[index] {
            u8::MAX => {
                let at = self.big.binary_search_by_key(&(index as u32), |e| e.0).expect("a listed big ordinal");
                self.big[at].1
            }
            byte => byte as u32,
        }
    }

    fn bytes(&self) -> u64 {
        self.small.capacity() as u64 + self.big.capacity() as u64 * 8
    }
}

/// One BFS level: its keys (while it is one of the last three), and the parent index and move
/// ordinal of each state (moves only with `keep_paths`).
struct Level<K> {
    keys: Vec<K>,
    parents: Vec<u32>,
    moves: Moves,
}

impl<K> Default for Level<K> {
    fn default() -> Self {
        Level { keys: Vec::new(), parents: Vec::new(), moves: Moves::default() }
    }
}

impl<K> Level<K> {
    /// Bytes a level of `len` states takes (with `moves`: their move ordinals too).
    fn bytes_for(len: usize, moves: bool) -> u64 {
        len as u64 * (std::mem::size_of::<K>() as u64 + 4 + u64::from(moves))
    }

    fn bytes(&self) -> u64 {
        self.keys.capacity() as u64 * std::mem::size_of::<K>() as u64
            + self.parents.capacity() as u64 * 4
            + self.moves.bytes()
    }

    /// An empty level with room for `len` states, or with none where that memory could not be had
    /// (it then grows as it fills, each growth checked).
    fn try_with_capacity(len: usize, moves: bool) -> Self {
        let mut level = Level::default();
        let room = level.keys.try_reserve_exact(len).is_ok()
            && level.parents.try_reserve_exact(len).is_ok()
            && (!moves || level.moves.small.try_reserve_exact(len).is_ok());
        if room { level } else { Level::default() }
    }

    /// Makes room for one more state (with `moves`, its move `ordinal` too), so that pushing it
    /// cannot fail; false when the memory could not be had.
    #[inline(always)]
    fn room_for_one(&mut self, ordinal: u32, moves: bool) -> bool {
        let full = self.keys.len() == self.keys.capacity()
            || self.parents.len() == self.parents.capacity()
            || (moves && !self.moves.has_room(ordinal));
        !full || self.grow_for_one(ordinal, moves)
    }

    /// The growth of [`Level::room_for_one`], apart from its test so that the test stays small
    /// where it is inlined (once in a while a state finds an array full).
    #[cold]
    #[inline(never)]
    fn grow_for_one(&mut self, ordinal: u32, moves: bool) -> bool {
        self.keys.try_reserve(1).is_ok()
            && self.parents.try_reserve(1).is_ok()
            && (!moves || self.moves.try_room(ordinal))
    }

    /// Appends a state.
    #[inline(always)]
    fn push(&mut self, key: K, parent: u32, ordinal: u32, moves: bool) {
        if moves {
            self.moves.push(ordinal);
        }
        self.keys.push(key);
        self.parents.push(parent);
    }

    /// Frees the spare capacity of the arrays.
    fn shrink(&mut self) {
        self.keys.shrink_to_fit();
        self.parents.shrink_to_fit();
        self.moves.small.shrink_to_fit();
        self.moves.big.shrink_to_fit();
    }
}

/// Where a chunk puts the new candidates it generates.
trait Sink<K: Key> {
    /// Records `key` (whose [`Key::mix`] is `hash`), generated by `parent` as its successor number
    /// `ordinal`; whether it is new here (a sink that defers deduplication says yes).
    fn add(&mut self, key: K, hash: u64, parent: usize, ordinal: u32) -> bool;
    /// Bytes of the sink's buffers (capacities).
    fn bytes(&self) -> u64;
    /// Whether the sink ran out of room for a new candidate (the level must be built again).
    fn overflowed(&self) -> bool {
        false
    }
    /// Whether the memory to hold a new candidate could not be had (the level stops at the memory
    /// limit).
    fn starved(&self) -> bool {
        false
    }
}

/// The single-chunk sink: the next level's arrays and set themselves (or the engine's bit array,
/// where `hash` is the dense index).
struct Direct<'d, K> {
    level: Level<K>,
    set: IndexSet,
    dense: Option<&'d DenseSet>,
    /// The engine's closed set while it has one (then `set` stays empty), and the most bytes it
    /// may grow to.
    closed: Option<(ClosedSet<K>, u64)>,
    /// Whether a new candidate found the closed set full at its most bytes.
    overflow: bool,
    /// Whether the memory for a new candidate could not be had.
    starved: bool,
    moves: bool,
}

impl<K: Key> Sink<K> for Direct<'_, K> {
    #[inline(always)]
    fn add(&mut self, key: K, hash: u64, parent: usize, ordinal: u32) -> bool {
        let index = self.level.keys.len() as u32;
        let new = match (&mut self.closed, self.dense) {
            (Some((closed, most)), _) => match closed.insert(key, hash, *most) {
                Some(new) => new,
                None => {
                    self.overflow = true;
                    false
                }
            },
            (None, Some(bits)) => bits.insert(hash),
            (None, None) => self.set.try_insert(&self.level.keys, &key, hash, index).unwrap_or_else(|| {
                self.starved = true;
                false
            }),
        };
        if !new {
            return false;
        }
        if !self.level.room_for_one(ordinal, self.moves) {
            // The state is not stored, so the set must not point at it (beside the closed set or
            // the bit array the set stays empty, and forgetting finds nothing). The level stops here.
            self.set.forget(hash, index);
            self.starved = true;
            return false;
        }
        self.level.push(key, parent as u32, ordinal, self.moves);
        true
    }

    fn bytes(&self) -> u64 {
        self.level.bytes() + self.set.bytes() + self.closed.as_ref().map_or(0, |(c, _)| c.bytes())
    }

    fn overflowed(&self) -> bool {
        self.overflow
    }

    fn starved(&self) -> bool {
        self.starved
    }
}

/// New candidates of one shard from one chunk, in generation order, kept as a level keeps its
/// states: keys, parent indices (later the final index, or [`DUPLICATE`]) and, when paths are
/// kept, move ordinals.
type Bucket<K> = Level<K>;

/// A new level and its set, as a deduplication backend hands them over.
type Collected<K> = (Level<K>, LevelSet<K>);

/// The sharded backend's sink: per-shard buckets and the shard of every candidate in order.
struct Buckets<K> {
    route: Route,
    buckets: Vec<Bucket<K>>,
    log: Vec<u8>,
    /// Whether the candidates' move ordinals are kept (for paths).
    moves: bool,
    /// The chunk's latest candidates, one a slot of the low bits of their hash: siblings share
    /// children, so a candidate equal to its slot's repeats a state the chunk holds already and is
    /// dropped before it takes a place in the buckets (the first stays, as deduplicating keeps).
    recent: Vec<Option<K>>,
    /// Whether the memory for a new candidate could not be had.
    starved: bool,
}

/// Slots of [`Buckets::recent`].
const RECENT: usize = 1 << 12;

impl<K: Key> Buckets<K> {
    /// Empty buckets for `shards` shards of `route` (none, and no recent candidates, for the
    /// DashMap backend, which records into its map); starved when the memory for the recent
    /// candidates' slots could not be had.
    fn new(route: Route, shards: usize, moves: bool) -> Self {
        let buckets = (0..shards).map(|_| Bucket::default()).collect();
        let slots = if shards > 0 { RECENT } else { 0 };
        let mut recent = Vec::new();
        let starved = recent.try_reserve_exact(slots).is_err();
        if !starved {
            recent.resize(slots, None);
        }
        Buckets { route, buckets, log: Vec::new(), moves, recent, starved }
    }
}

impl<K: Key> Sink<K> for Buckets<K> {
    #[inline]
    fn add(&mut self, key: K, hash: u64, parent: usize, ordinal: u32) -> bool {
        let slot = &mut self.recent[hash as usize % RECENT];
        if *slot == Some(key) {
            return false;
        }
        *slot = Some(key);
        let s = self.route.of(hash);
        let bucket = &mut self.buckets[s];
        if !bucket.room_for_one(ordinal, self.moves) || self.log.try_reserve(1).is_err() {
            self.starved = true;
            return false;
        }
        bucket.push(key, parent as u32, ordinal, self.moves);
        self.log.push(s as u8);
        true
    }

    fn bytes(&self) -> u64 {
        let buckets: u64 = self.buckets.iter().map(Level::bytes).sum();
        buckets + self.log.capacity() as u64 + (self.recent.capacity() * std::mem::size_of::<Option<K>>()) as u64
    }

    fn starved(&self) -> bool {
        self.starved
    }
}

/// The DashMap backend's sink: the shared map, keeping each state's smallest sequence number.
struct Dash<'m, K: Key>(&'m DashMap<K, u64>);

impl<K: Key> Sink<K> for Dash<'_, K> {
    #[inline]
    fn add(&mut self, key: K, _hash: u64, parent: usize, ordinal: u32) -> bool {
        let seq = (parent as u64) << 32 | ordinal as u64;
        self.0.entry(key).and_modify(|s| *s = (*s).min(seq)).or_insert(seq);
        true
    }

    /// The map's bytes are read by the [`Watch`] itself.
    fn bytes(&self) -> u64 {
        0
    }
}

/// The buffers of a batch of parents ([`BATCH_CHILDREN`]), kept from one batch (and level) to
/// the next: the children with their hashes, and each parent's grandparent and where its children
/// end.
struct Batch<K> {
    children: Vec<(K, u64)>,
    ends: Vec<(Option<K>, usize)>,
    /// Bytes of these buffers already counted as held (by the engine that keeps them).
    counted: u64,
}

impl<K> Default for Batch<K> {
    fn default() -> Self {
        Batch { children: Vec::new(), ends: Vec::new(), counted: 0 }
    }
}

impl<K> Batch<K> {
    /// Bytes of the buffers (capacities).
    fn bytes(&self) -> u64 {
        (self.children.capacity() * std::mem::size_of::<(K, u64)>()
            + self.ends.capacity() * std::mem::size_of::<(Option<K>, usize)>()) as u64
    }

    /// Bytes of the buffers not yet counted as held.
    fn uncounted(&self) -> u64 {
        self.bytes().saturating_sub(self.counted)
    }
}

/// What one chunk of the frontier did.
#[derive(Default)]
struct Counters {
    /// Children generated (including duplicates), up to the first target if there is one.
    generated: u64,
    /// Parents expanded.
    expanded: u64,
    /// New candidates recorded (states not in the two previous levels).
    fresh: u64,
    /// The frontier index of the parent of the first target generated.
    hit: Option<usize>,
    /// Bytes of the chunk's batch buffers not counted elsewhere, at its end.
    batch_bytes: u64,
}

/// What one chunk of the frontier produced.
struct ChunkOut<S> {
    sink: S,
    counts: Counters,
}

/// What expanding a level reads: the frontier, the two sets, the grandparents and the limits.
struct Expand<'e, D: Domain, T> {
    domain: &'e D,
    frontier: &'e [D::Key],
    /// Level `d-1`'s keys and set.
    prev: (&'e [D::Key], &'e LevelSet<D::Key>),
    /// Level `d`'s set (looked up only in a non-bipartite graph).
    cur: &'e LevelSet<D::Key>,
    /// The bit array of every state visited, in place of the two sets.
    dense: Option<&'e DenseSet>,
    /// Whether the sink holds the engine's [`ClosedSet`], which alone tells the known children.
    closed: bool,
    /// The frontier's parent indices into level `d-1` (none at depth 0).
    grandparents: Option<&'e [u32]>,
    is_target: &'e T,
    watch: &'e Watch<'e, D::Key>,
    /// The lowest chunk that found a target so far.
    first_hit: &'e AtomicUsize,
}

impl<D: Domain, T: Fn(&D::Key) -> bool + Sync> Expand<'_, D, T> {
    /// Expands the parents `range` (chunk number `c`) into `sink`, stopping at the first target
    /// or when the [`Watch`] says so.
    fn chunk<S: Sink<D::Key>>(
        &self,
        c: usize,
        range: std::ops::Range<usize>,
        sink: S,
        buffers: (&mut D::Scratch, &mut Batch<D::Key>),
    ) -> ChunkOut<S> {
        if sink.starved() {
            // A sink that could not be made whole takes no candidates: the level stops.
            self.watch.starve();
            return ChunkOut { sink, counts: Counters::default() };
        }
        match (self.closed, self.dense) {
            (true, _) => self.chunk_with::<S, CLOSED>(c, range, sink, buffers),
            (false, Some(_)) => self.chunk_with::<S, DENSE>(c, range, sink, buffers),
            (false, None) => self.chunk_with::<S, SETS>(c, range, sink, buffers),
        }
    }

    /// [`Expand::chunk`] with the children looked up in the level sets ([`SETS`]), the bit array
    /// ([`DENSE`]) or by the sink alone ([`CLOSED`]), decided once per chunk so that the loops over
    /// children test none of them.
    fn chunk_with<S: Sink<D::Key>, const LOOKUP: u8>(
        &self,
        c: usize,
        range: std::ops::Range<usize>,
        sink: S,
        (scratch, batch): (&mut D::Scratch, &mut Batch<D::Key>),
    ) -> ChunkOut<S> {
        let mut out = ChunkOut { sink, counts: Counters::default() };
        let mut reported = (0, 0);
        if self.watch.report(&out, batch.uncounted(), &mut reported) {
            return out;
        }
        let bipartite = self.domain.bipartite();
        let (prev_keys, prev) = self.prev;
        let frontier = self.frontier;
        let mut next_parent = range.start;
        'batches: while next_parent < range.end {
            let first = next_parent;
            batch.children.clear();
            batch.ends.clear();
            while next_parent < range.end && batch.children.len() < BATCH_CHILDREN {
                let grandparent = self.grandparents.map(|parents| prev_keys[parents[next_parent] as usize]);
                self.domain.for_each_successor_from(&frontier[next_parent], grandparent.as_ref(), scratch, |child| {
                    let hash = if LOOKUP == DENSE { self.domain.dense_index(&child) } else { child.mix() };
                    batch.children.push((child, hash))
                });
                batch.ends.push((grandparent, batch.children.len()));
                next_parent += 1;
            }
            // The children looked up in sequential order, the new ones added, up to the first target.
            let mut from = 0;
            for (parent, &(grandparent, end)) in (first..).zip(batch.ends.iter()) {
                if self.first_hit.load(Ordering::Relaxed) < c || out.sink.overflowed() || out.sink.starved() {
                    break 'batches;
                }
                let counts = &mut out.counts;
                counts.expanded += 1;
                for (ordinal, &(child, hash)) in (1..).zip(batch.children[from..end].iter()) {
                    counts.generated += 1;
                    let known = Some(child) == grandparent
                        || match LOOKUP {
                            DENSE => self.dense.is_some_and(|bits| bits.contains(hash)),
                            SETS => {
                                (!bipartite && self.cur.contains(frontier, &child, hash))
                                    || prev.contains(prev_keys, &child, hash)
                            }
                            _ => false,
                        };
                    if known || !out.sink.add(child, hash, parent, ordinal) {
                        continue;
                    }
                    counts.fresh += 1;
                    if (self.is_target)(&child) {
                        counts.hit = Some(parent);
                        self.first_hit.fetch_min(c, Ordering::Relaxed);
                        break 'batches;
                    }
                }
                from = end;
                if (out.counts.fresh - reported.0 >= POLL_FRESH || out.counts.expanded.is_multiple_of(POLL_PARENTS))
                    && self.watch.report(&out, batch.uncounted(), &mut reported)
                {
                    break 'batches;
                }
            }
        }
        if out.sink.starved() {
            self.watch.starve();
        }
        out.counts.batch_bytes = batch.uncounted();
        self.watch.report(&out, out.counts.batch_bytes, &mut reported);
        out
    }
}

/// A frontier-synchronous BFS over one domain, level by level.
pub struct Engine<'a, D: Domain> {
    domain: &'a D,
    options: EngineOptions,
    /// Level 0's state (paths are replayed from it).
    start: D::Key,
    /// The kept levels; the last is the frontier.
    levels: Vec<Level<D::Key>>,
    /// Depth of the first kept level.
    first_depth: usize,
    prev: LevelSet<D::Key>,
    cur: LevelSet<D::Key>,
    /// Every state visited since the switch to a bit array ([`EngineOptions::dense`]); `prev`
    /// and `cur` are then empty.
    dense: Option<DenseSet>,
    /// Every state visited while the search is small ([`CLOSED_BYTES`]); `prev` and `cur` are
    /// then empty.
    closed: Option<ClosedSet<D::Key>>,
    layers: Vec<u64>,
    /// Whether levels are built in one chunk, whatever the threads: set once a parallel build (its
    /// buffers of candidates) went over the memory limit, where one chunk needs no buffers.
    one_chunk: bool,
    /// Whether the next level is built in one chunk: set when a parallel build was stopped by the
    /// state limit, which chunks check on their candidates, duplicates among chunks included; one
    /// chunk counts distinct states, so the stop (and what is reported) does not depend on threads.
    exact_level: bool,
    stats: Stats,
    /// The most bytes held during the last step.
    step_peak: u64,
    /// The direct expansion's batch buffers, kept between levels.
    batch: Batch<D::Key>,
    clock: Instant,
}

impl<'a, D: Domain> Engine<'a, D> {
    /// An engine whose level 0 is `start`.
    pub fn new(domain: &'a D, start: D::Key, options: EngineOptions) -> Self {
        let mut level = Level::default();
        level.push(start, DUPLICATE, 0, options.keep_paths);
        // The sharded backend starts with a closed set, unless the domain's bit array is meant to
        // take over (which replaces the level sets as soon as they are larger), or the graph is
        // bipartite: a child is then looked up in two small level sets only, which beat one
        // lookup in the larger closed set (Klotski and dlaa.me in the unit metric: 10 % slower
        // with it).
        let (mut set, mut closed) = (IndexSet::new(), None);
        let closed_pays = !(domain.bipartite() || (options.dense && domain.dense_states() > 0));
        if options.closed && options.backend == Backend::Sharded && closed_pays {
            let mut all = ClosedSet::new();
            all.insert(start, start.mix(), u64::MAX);
            closed = Some(all);
        } else {
            set.insert(&level.keys, &start, start.mix(), 0);
        }
        let mut engine = Engine {
            domain,
            options,
            start,
            levels: vec![level],
            first_depth: 0,
            prev: LevelSet::empty(),
            cur: LevelSet::Sharded(set),
            dense: None,
            closed,
            layers: vec![1],
            one_chunk: false,
            exact_level: false,
            stats: Stats { stored: 1, ..Stats::default() },
            step_peak: 0,
            batch: Batch::default(),
            clock: Instant::now(),
        };
        engine.step_peak = engine.bytes_held();
        engine.stats.peak_bytes = engine.step_peak;
        engine
    }

    /// The current frontier (the deepest level).
    pub fn frontier(&self) -> &[D::Key] {
        self.levels.last().map(|l| l.keys.as_slice()).unwrap_or(&[])
    }

    /// The current frontier, taken from the engine (no copy of a level that may be most of the
    /// memory the search held).
    pub fn into_frontier(mut self) -> Vec<D::Key> {
        self.levels.pop().map(|l| l.keys).unwrap_or_default()
    }

    /// Whether `key` is in the current frontier (not for an engine with [`EngineOptions::dense`] or
    /// [`EngineOptions::closed`]).
    pub fn frontier_contains(&self, key: &D::Key) -> bool {
        assert!(
            self.dense.is_none() && self.closed.is_none(),
            "one set of all levels does not tell the frontier apart"
        );
        self.cur.contains(self.frontier(), key, key.mix())
    }

    /// Depth of the current frontier.
    pub fn depth(&self) -> usize {
        self.layers.len() - 1
    }

    /// Number of states in each level so far.
    pub fn layers(&self) -> &[u64] {
        &self.layers
    }

    /// Counters so far (wall time measured from the engine's creation).
    pub fn stats(&self) -> Stats {
        Stats { depth: self.depth() as u32, wall_s: self.clock.elapsed().as_secs_f64(), ..self.stats.clone() }
    }

    /// The states from level 0 to entry `index` of the frontier (needs `keep_paths`): the parent
    /// indices lead back to level 0, then the move ordinals are replayed from the start.
    pub fn path_to(&self, index: usize) -> Vec<D::Key> {
        assert!(self.options.keep_paths && self.first_depth == 0, "path_to needs keep_paths");
        let mut chain = vec![0; self.levels.len()];
        let mut i = index;
        for d in (1..self.levels.len()).rev() {
            chain[d] = i;
            i = self.levels[d].parents[i] as usize;
        }
        let mut scratch = self.domain.scratch();
        let mut path = Vec::with_capacity(self.levels.len());
        path.push(self.start);
        for d in 1..self.levels.len() {
            let wanted = self.levels[d].moves.get(chain[d]);
            let (mut ordinal, mut next) = (0, None);
            let parent = d.checked_sub(2).map(|g| &path[g]);
            self.domain.for_each_successor_from(&path[d - 1], parent, &mut scratch, |child| {
                ordinal += 1;
                if ordinal == wanted {
                    next = Some(child);
                }
            });
            path.push(next.expect("a stored move ordinal names a successor"));
        }
        debug_assert_eq!(path.last(), Some(&self.frontier()[index]));
        path
    }

    /// The most bytes held during the last [`Engine::step`] (or at creation).
    pub fn step_peak(&self) -> u64 {
        self.step_peak
    }

    /// Bytes held between levels: the kept levels' arrays, both level sets (or the bit array) and
    /// the batch buffers.
    pub fn bytes_held(&self) -> u64 {
        self.levels.iter().map(Level::bytes).sum::<u64>()
            + self.prev.bytes()
            + self.cur.bytes()
            + self.dense.as_ref().map_or(0, DenseSet::bytes)
            + self.closed.as_ref().map_or(0, ClosedSet::bytes)
            + self.batch.bytes()
    }

    /// Replaces the closed set, if there is one, by the sets of levels `d-1` and `d` (whose keys
    /// are still held).
    fn leave_closed(&mut self) {
        if self.closed.take().is_some() {
            self.build_level_sets();
        }
    }

    /// Builds the sets of levels `d-1` and `d` from their keys.
    fn build_level_sets(&mut self) {
        let depth = self.levels.len() - 1;
        self.cur = LevelSet::Sharded(IndexSet::of(&self.levels[depth].keys));
        if depth > 0 {
            self.prev = LevelSet::Sharded(IndexSet::of(&self.levels[depth - 1].keys));
        }
    }

    /// With [`EngineOptions::dense`], replaces the level sets by a bit array of the domain's dense
    /// indices once the sets the next step would hold (levels `d-1`, `d` and the estimate of
    /// `d+1`) take at least its bytes, and it fits in the memory limit (and the process can have
    /// it: otherwise the sets stay). The kept levels' keys (levels `d-1` and `d`, all a child of
    /// level `d` can meet) are marked in it.
    fn switch_to_dense(&mut self, limits: &Limits) {
        let indices = self.domain.dense_states();
        if !self.options.dense || self.options.backend != Backend::Sharded || self.dense.is_some() || indices == 0 {
            return;
        }
        let array = DenseSet::bytes_for(indices);
        let sets = self.prev.bytes() + self.cur.bytes() + set_bytes(planned_buckets(self.next_estimate(u64::MAX)));
        if array > sets || self.bytes_held().saturating_add(array) > limits.memory() {
            return;
        }
        let Some(dense) = DenseSet::try_new(indices) else { return };
        for key in self.levels.iter().flat_map(|level| &level.keys) {
            dense.insert(self.domain.dense_index(key));
        }
        self.prev = LevelSet::empty();
        self.cur = LevelSet::empty();
        self.dense = Some(dense);
        if self.options.trace {
            crate::traceln!("level {:>4}: visited states now in a bit array of {array} bytes", self.depth());
        }
    }

    /// The size the next level is expected to reach: the frontier's size times its growth over
    /// the level before (levels of a BFS grow and shrink smoothly); 0 before two levels.
    fn next_len(&self) -> usize {
        let [.., before, now] = self.layers[..] else { return 0 };
        (now as u128 * now as u128 / before.max(1) as u128).min(u32::MAX as u128) as usize
    }

    /// The size the next level's set is made for before a direct expansion ([`Engine::next_len`]),
    /// so the table is not rehashed as it fills. At most the frontier's own set's capacity: a level that
    /// grows less than estimated, or a search that stops early in it, then holds at most one
    /// table of the frontier's size (the peak counts it) instead of one for the estimate; nothing
    /// when its table would take more than half of `room` bytes (the rest is for the level's
    /// arrays).
    fn next_estimate(&self, room: u64) -> usize {
        let estimate = self.next_len().min(self.cur.capacity());
        if set_bytes(planned_buckets(estimate)) > room / 2 { 0 } else { estimate }
    }

    /// Expands the frontier by one level. `is_target` is tested on every new state as it is
    /// generated; the first one (in sequential order) ends the level.
    ///
    /// The limits hold inside the level too: every chunk reports its new candidates and the bytes
    /// of its buffers every [`POLL_FRESH`] candidates (and checks the deadline every
    /// [`POLL_PARENTS`] parents); once the states held, or the bytes held plus what deduplicating
    /// the candidates would take, exceed a limit, every chunk stops and the level is dropped. Its
    /// candidates then count as stored (see [`Stats::stored`]). An engine is not stepped again
    /// after [`Step::Limit`] (a closed set holds part of the dropped level).
    pub fn step<T>(&mut self, is_target: &T, limits: &Limits) -> Step
    where
        T: Fn(&D::Key) -> bool + Sync,
    {
        let level_clock = Instant::now();
        let depth = self.levels.len() - 1;
        let n = self.levels[depth].keys.len();
        let threads = rayon::current_num_threads().max(1);
        // A level rebuilt at the state limit is direct with either backend, so the stop point is
        // the same for any number of threads and for both backends.
        let direct = (self.options.backend == Backend::Sharded && (n < SMALL_LEVEL || threads == 1 || self.one_chunk))
            || self.exact_level;
        // A tight memory limit leaves room for more levels in the level sets.
        let most = CLOSED_BYTES.min(limits.memory() / 2);
        let closed_fits = self.closed.as_ref().is_some_and(|c| c.bytes().saturating_mul(4) <= most);
        if !direct || !closed_fits {
            self.leave_closed();
        }
        self.switch_to_dense(limits);
        if n == 0 {
            return Step::Exhausted;
        }
        if n >= DUPLICATE as usize {
            return Step::Limit(LimitHit::Memory);
        }
        let first_hit = AtomicUsize::new(usize::MAX);
        // The sink holds the closed set while the level is built (and counts its bytes).
        let closed = self.closed.take();
        let dash: Option<DashMap<D::Key, u64>> = match self.options.backend {
            Backend::DashMap if !direct => Some(DashMap::new()),
            _ => None,
        };
        let watch = Watch {
            limits,
            stored: self.stats.stored,
            bytes: self.bytes_held(),
            finish_each: if direct { 0 } else { finish_bytes::<D::Key>(self.options.backend) },
            dash: dash.as_ref(),
            fresh: AtomicU64::new(0),
            buffers: AtomicU64::new(0),
            stop: OnceLock::new(),
        };
        let empty: &[D::Key] = &[];
        let expand = Expand {
            domain: self.domain,
            frontier: &self.levels[depth].keys,
            prev: (if depth > 0 { &self.levels[depth - 1].keys } else { empty }, &self.prev),
            cur: &self.cur,
            dense: self.dense.as_ref(),
            closed: closed.is_some(),
            grandparents: (depth > 0).then(|| self.levels[depth].parents.as_slice()),
            is_target,
            watch: &watch,
            first_hit: &first_hit,
        };
        let moves = self.options.keep_paths;
        let built = if direct {
            let room = limits.memory().saturating_sub(watch.bytes);
            let estimate = match self.dense {
                Some(_) => 0,
                None => self.next_estimate(room),
            };
            // The arrays are made for the expected level at once when that takes at most half of
            // `room`: grown by doubling they would be copied into fresh pages again and again,
            // and the kernel's zeroing of those pages was a quarter of a one-thread tile search's
            // time on the 2-core dev VM (results/blockspeed/2026-11-26-stop40-direct-reserve.md).
            let expected = self.next_len();
            let room_for = if Level::<D::Key>::bytes_for(expected, moves) <= room / 2 { expected } else { 0 };
            let sink = Direct {
                level: Level::try_with_capacity(room_for, moves),
                set: IndexSet::try_with_capacity(estimate),
                dense: self.dense.as_ref(),
                closed: closed.map(|c| (c, most)),
                overflow: false,
                starved: false,
                moves,
            };
            self.batch.counted = self.batch.bytes();
            let out = expand.chunk(0, 0..n, sink, (&mut self.domain.scratch(), &mut self.batch));
            Built::Direct(Box::new(out))
        } else {
            // Chunks of at least MIN_CHUNK parents, so that a small level does not pay for many
            // chunks' buckets; about 16 a thread on a large one.
            let chunk = (n / (threads * 16)).clamp(MIN_CHUNK, 1 << 15);
            let chunks = n.div_ceil(chunk);
            let route = match (&dash, &self.dense) {
                (Some(_), _) => Route::hashed(0),
                (None, Some(dense)) => dense.route(shard_bits(threads)),
                (None, None) => Route::hashed(shard_bits(threads)),
            };
            let bits = route.bits();
            let outs: Vec<ChunkOut<Buckets<D::Key>>> = (0..chunks)
                .into_par_iter()
                .map_init(
                    || (self.domain.scratch(), Batch::default()),
                    |(scratch, batch), c| {
                        let sink = Buckets::new(route, if dash.is_some() { 0 } else { 1 << bits }, moves);
                        match &dash {
                            // The DashMap backend records into the map; its (empty) buckets stay.
                            Some(map) => {
                                let out =
                                    expand.chunk(c, c * chunk..((c + 1) * chunk).min(n), Dash(map), (scratch, batch));
                                ChunkOut { sink, counts: out.counts }
                            }
                            None => expand.chunk(c, c * chunk..((c + 1) * chunk).min(n), sink, (scratch, batch)),
                        }
                    },
                )
                .collect();
            Built::Chunks { outs, bits }
        };
        if built.overflowed() {
            // The closed set filled up within the level: the level is built again on the level
            // sets. Its work so far is not counted, but the bytes it held are.
            self.stats.peak_bytes = self.stats.peak_bytes.max(watch.bytes + built.bytes());
            drop(built);
            self.build_level_sets();
            return self.step(is_target, limits);
        }
        let expand_s = level_clock.elapsed().as_secs_f64();
        let buffers = built.bytes()
            + built.counters().iter().map(|c| c.batch_bytes).sum::<u64>()
            + dash.as_ref().map_or(0, dash_bytes);
        self.step_peak = watch.bytes + buffers;
        self.stats.peak_bytes = self.stats.peak_bytes.max(self.step_peak);
        let hit_chunk = first_hit.load(Ordering::Relaxed);
        let counters = built.counters();
        let used = if hit_chunk == usize::MAX { counters.len() } else { hit_chunk + 1 };
        // Deduplicating needs the sets and arrays of the new level on top of the buffers, while
        // level d-1 (only needed to filter children) is freed first.
        let prev_bytes = self.prev.bytes()
            + if depth > 0 {
                self.levels[depth - 1].keys.capacity() as u64 * std::mem::size_of::<D::Key>() as u64
            } else {
                0
            };
        let collect_bytes = match (&built, &dash) {
            (Built::Direct(_), _) => 0,
            (_, Some(map)) => dash_collect_bytes::<D::Key>(map.len(), moves),
            (Built::Chunks { outs, bits }, None) => {
                sharded_collect_bytes(&outs[..used], *bits, moves, self.dense.is_none())
            }
        };
        let collect_peak = watch.bytes - prev_bytes + buffers + collect_bytes;
        let stop =
            watch.stop.get().copied().or_else(|| limits.exceeded(0, collect_peak).filter(|h| *h == LimitHit::Memory));
        if let Some(hit @ (LimitHit::Memory | LimitHit::States)) = stop
            && !direct
            && (dash.is_none() || hit == LimitHit::States)
        {
            // Over the memory limit, the parallel build does not fit where one chunk, which keeps
            // no buffers, may: this level is built again in one chunk, and so are the levels after
            // it (the same level either way). At the state limit, the candidates overcount the
            // level's states (a state found by two chunks counts twice): this level is built again
            // in one chunk, which counts each state once and polls at the same points on any
            // number of threads, and may even complete it. The work dropped is not counted; the
            // bytes it held were.
            let sticky = hit == LimitHit::Memory;
            if self.options.trace {
                let level = self.depth();
                let from = if sticky { "one chunk from here" } else { "this level in one chunk" };
                crate::traceln!("level {level:>4}: {hit} on {threads} threads; {from}");
            }
            drop(counters);
            drop(built);
            match sticky {
                true => self.one_chunk = true,
                false => self.exact_level = true,
            }
            return self.step(is_target, limits);
        }
        self.exact_level = false;
        // A completed level counts the chunks up to the first target, as a sequential search would;
        // a stopped one counts all the work done.
        let counted = if stop.is_some() { &counters[..] } else { &counters[..used] };
        self.stats.expanded += counted.iter().map(|c| c.expanded).sum::<u64>();
        self.stats.generated += counted.iter().map(|c| c.generated).sum::<u64>();
        if let Some(hit) = stop {
            self.stats.stored += counted.iter().map(|c| c.fresh).sum::<u64>();
            return Step::Limit(hit);
        }
        let found = counters.get(hit_chunk).and_then(|c| c.hit).is_some();
        // Level d-1 leaves the window: its set and keys go.
        self.prev = LevelSet::empty();
        if depth > 0 {
            self.levels[depth - 1].keys = Vec::new();
        }
        // What deduplicating held: the estimate above, but for the sharded backend what it
        // allocated beside the buffers, the new level and its set (the estimate gives every
        // candidate a slot, duplicates included, so that the limit is checked before allocating).
        let (mut next, next_set, held) = match (built, dash) {
            (Built::Direct(out), _) => {
                let out = *out;
                self.closed = out.sink.closed.map(|(c, _)| c);
                (out.sink.level, LevelSet::Sharded(out.sink.set), collect_peak)
            }
            (Built::Chunks { outs, .. }, Some(map)) => {
                match collect_dash(map, hit_chunk, &outs, moves, limits.deadline) {
                    Ok((next, set)) => (next, set, collect_peak),
                    Err(hit) => return Step::Limit(hit),
                }
            }
            (Built::Chunks { mut outs, bits }, None) => {
                outs.truncate(used);
                let expected = self.next_len();
                let dense = self.dense.as_ref().map(|d| (d, self.domain));
                // The level before is gone already: a new level whose arrays cannot be had, or a
                // deadline passed while deduplicating, stops the search here (its states are not
                // stored).
                let (next, set) = match collect_sharded(outs, bits, moves, expected, dense, limits.deadline) {
                    Ok(collected) => collected,
                    Err(hit) => return Step::Limit(hit),
                };
                let held = collect_peak - collect_bytes + next.bytes() + set.bytes();
                (next, set, held)
            }
        };
        next.shrink();
        self.step_peak = self.step_peak.max(held);
        self.stats.peak_bytes = self.stats.peak_bytes.max(held);
        self.stats.stored += next.keys.len() as u64;
        if next.keys.is_empty() {
            return Step::Exhausted;
        }
        if self.options.trace {
            let level_s = level_clock.elapsed().as_secs_f64();
            crate::traceln!(
                "level {:>4}: frontier {:>12} -> new {:>12}  ({level_s:.3} s: expand {expand_s:.3} s, dedup {:.3} s; total {:.3} s)",
                self.depth(),
                n,
                next.keys.len(),
                level_s - expand_s,
                self.clock.elapsed().as_secs_f64()
            );
        }
        let found_index = next.keys.len() - 1;
        self.layers.push(next.keys.len() as u64);
        self.levels.push(next);
        self.prev = std::mem::replace(&mut self.cur, next_set);
        if !self.options.keep_paths && self.levels.len() > 2 {
            let drop_count = self.levels.len() - 2;
            self.levels.drain(..drop_count);
            self.first_depth += drop_count;
        }
        if found {
            return Step::Found(found_index);
        }
        if let Some(hit) = limits.exceeded(self.stats.stored, self.bytes_held()) {
            return Step::Limit(hit);
        }
        Step::Grew
    }
}

/// The expansion of one level: one direct chunk, or parallel chunks to deduplicate.
enum Built<'d, K: Key> {
    Direct(Box<ChunkOut<Direct<'d, K>>>),
    Chunks { outs: Vec<ChunkOut<Buckets<K>>>, bits: u32 },
}

impl<K: Key> Built<'_, K> {
    /// Bytes of the buffers (capacities).
    fn bytes(&self) -> u64 {
        match self {
            Built::Direct(out) => out.sink.bytes(),
            Built::Chunks { outs, .. } => outs.iter().map(|o| o.sink.bytes()).sum(),
        }
    }

    /// Whether the direct chunk's closed set overflowed.
    fn overflowed(&self) -> bool {
        match self {
            Built::Direct(out) => out.sink.overflowed(),
            Built::Chunks { .. } => false,
        }
    }

    /// The counters of every chunk, in order.
    fn counters(&self) -> Vec<&Counters> {
        match self {
            Built::Direct(out) => vec![&out.counts],
            Built::Chunks { outs, .. } => outs.iter().map(|o| &o.counts).collect(),
        }
    }
}

/// A chunk reports its candidates to the `Watch` after at most this many new ones.
pub const POLL_FRESH: u64 = 1024;

/// A chunk polls the `Watch` (and the clock) after at most this many parents.
pub const POLL_PARENTS: u64 = 256;

/// The shared account of the level being built, which every chunk polls to stop it early.
struct Watch<'l, K: Key> {
    limits: &'l Limits,
    /// States stored before this level.
    stored: u64,
    /// Bytes held before this level.
    bytes: u64,
    /// Bytes that deduplicating will need per candidate, at most.
    finish_each: u64,
    /// The DashMap backend's map (its bytes are read, not reported).
    dash: Option<&'l DashMap<K, u64>>,
    /// Candidates reported so far.
    fresh: AtomicU64,
    /// Bytes of the chunks' buffers reported so far.
    buffers: AtomicU64,
    /// The limit that stopped the level.
    stop: OnceLock<LimitHit>,
}

impl<K: Key> Watch<'_, K> {
    /// Stops the level at the memory limit: memory it needed could not be had (under `ulimit -v`,
    /// say, the allocator's own reservations may leave less than the budget).
    fn starve(&self) {
        let _ = self.stop.set(LimitHit::Memory);
    }

    /// Adds what `out` recorded since its last report (`reported`: its candidates and buffer
    /// bytes then; `extra`: the chunk's buffers outside its sink) and checks the limits; whether
    /// the level must stop.
    fn report<S: Sink<K>>(&self, out: &ChunkOut<S>, extra: u64, reported: &mut (u64, u64)) -> bool {
        let bytes = out.sink.bytes() + extra;
        let (fresh, buffers) = (out.counts.fresh - reported.0, bytes.wrapping_sub(reported.1));
        *reported = (out.counts.fresh, bytes);
        if self.stop.get().is_some() {
            return true;
        }
        let fresh = self.fresh.fetch_add(fresh, Ordering::Relaxed) + fresh;
        let buffers = self.buffers.fetch_add(buffers, Ordering::Relaxed).wrapping_add(buffers);
        // Any buffer may double before the next report, so its bytes count twice.
        let held = self.bytes + 2 * buffers + self.dash.map_or(0, dash_bytes) + fresh * self.finish_each;
        match self.limits.exceeded(self.stored + fresh, held) {
            Some(hit) => {
                let _ = self.stop.set(hit);
                true
            }
            None => false,
        }
    }
}

/// Bytes per candidate that deduplicating may add: a table slot (at worst 16/7 slots a key,
/// hashbrown rounds up to a power of two) and the key, parent index and move of the new level;
/// for the DashMap backend, the sorted copy of its entries (twice, while rayon collects it).
fn finish_bytes<K>(backend: Backend) -> u64 {
    let key = std::mem::size_of::<K>() as u64;
    match backend {
        Backend::Sharded => 5 * 16 / 7 + 1 + key + 4 + 1,
        Backend::DashMap => dash_collect_bytes::<K>(1, true),
    }
}

/// Bytes of a DashMap level set.
fn dash_bytes<K: Key>(map: &DashMap<K, u64>) -> u64 {
    map.capacity() as u64 * 8 / 7 * (std::mem::size_of::<(K, u64)>() as u64 + 1)
}

/// Bytes [`collect_dash`] allocates for `len` states.
fn dash_collect_bytes<K>(len: usize, moves: bool) -> u64 {
    len as u64 * (2 * std::mem::size_of::<(u64, K)>() + std::mem::size_of::<K>() + 4 + moves as usize) as u64
}

/// Bytes [`collect_sharded`] allocates: one table per shard sized for its candidates (with
/// `tables`), and the new level's keys, parents and moves (at most one per candidate).
fn sharded_collect_bytes<K: Key>(outs: &[ChunkOut<Buckets<K>>], bits: u32, moves: bool, tables: bool) -> u64 {
    let entry = (std::mem::size_of::<K>() + 4 + moves as usize) as u64;
    (0..1usize << bits)
        .map(|s| {
            let size: usize = outs.iter().map(|o| o.sink.buckets[s].keys.len()).sum();
            size as u64 * entry + if tables { set_bytes(planned_buckets(size)) } else { 0 }
        })
        .sum()
}

/// Sharded backend: each shard deduplicates its buckets in chunk order (one owner thread, no
/// locks, duplicates marked in place) into a table of positions among its own candidates; each
/// chunk then replays its shard log to write its survivors, in generation order, straight into
/// its slice of the new level's arrays (noting each survivor's final index in its bucket); last,
/// each shard's table is rewritten from candidate positions to those final indices. With `dense`
/// (the engine's bit array and the domain), a shard marks its candidates' dense indices in the bit
/// array instead (words no other shard owns), and the new level gets no set. A shard's table is
/// made for its share of the `expected` level ([`Engine::next_len`], plus an eighth; all its
/// candidates when 0 or fewer), not for every candidate: on levels whose states are reached from
/// many parents the candidates are several times the level, and a table sized for them spread
/// each shard's probes over that much more memory (it grows, checked, if the level is larger).
/// [`LimitHit::Memory`] when the memory for a shard's table to grow, or for the new level's
/// arrays, could not be had; [`LimitHit::Time`] when `deadline` passed while the shards
/// deduplicated (looked at every [`ROOM_BLOCK`] candidates) or before the level is written.
fn collect_sharded<D: Domain>(
    outs: Vec<ChunkOut<Buckets<D::Key>>>,
    bits: u32,
    moves: bool,
    expected: usize,
    dense: Option<(&DenseSet, &D)>,
    deadline: Option<Instant>,
) -> Result<Collected<D::Key>, LimitHit> {
    let shards = 1usize << bits;
    let chunks = outs.len();
    let mut logs = Vec::with_capacity(chunks);
    let mut by_shard: Vec<Vec<Bucket<D::Key>>> = (0..shards).map(|_| Vec::with_capacity(chunks)).collect();
    for out in outs {
        logs.push(out.sink.log);
        for (s, bucket) in out.sink.buckets.into_iter().enumerate() {
            by_shard[s].push(bucket);
        }
    }
    let (mut sets, kept): (Vec<IndexSet>, Vec<Vec<usize>>) = by_shard
        .par_iter_mut()
        .map(|buckets| {
            let starts = bucket_starts(buckets);
            let (keys, parents): (Vec<&[D::Key]>, Vec<&mut Vec<u32>>) =
                buckets.iter_mut().map(|b| (b.keys.as_slice(), &mut b.parents)).unzip();
            let key_at = |r: u32| candidate(&starts, &keys, r);
            let planned = match expected {
                0 => starts[chunks],
                _ => starts[chunks].min((expected + expected / 8) >> bits),
            };
            let mut set = IndexSet::try_with_capacity(if dense.is_some() { 0 } else { planned });
            let kept = keys
                .iter()
                .zip(parents)
                .enumerate()
                .map(|(c, (chunk_keys, parents))| {
                    let mut kept = 0;
                    for (i, (key, parent)) in chunk_keys.iter().zip(parents.iter_mut()).enumerate() {
                        // A set past its planned capacity grows here, checked, not in the insert.
                        let room = ROOM_BLOCK.min(chunk_keys.len() - i);
                        if i % ROOM_BLOCK == 0 {
                            if dense.is_none() && !set.try_reserve_with(room, key_at) {
                                return Err(LimitHit::Memory);
                            }
                            if super::past(deadline) {
                                return Err(LimitHit::Time);
                            }
                        }
                        let is_new = match dense {
                            Some((array, domain)) => array.insert(domain.dense_index(key)),
                            None => set.insert_with(key, key.mix(), (starts[c] + i) as u32, key_at),
                        };
                        if is_new {
                            kept += 1;
                        } else {
                            *parent = DUPLICATE;
                        }
                    }
                    Ok(kept)
                })
                .collect::<Result<Vec<usize>, LimitHit>>()?;
            Ok((set, kept))
        })
        .collect::<Result<Vec<_>, LimitHit>>()?
        .into_iter()
        .unzip();
    if super::past(deadline) {
        return Err(LimitHit::Time);
    }
    let per_chunk: Vec<usize> = (0..chunks).map(|c| kept.iter().map(|k| k[c]).sum()).collect();
    let total: usize = per_chunk.iter().sum();
    // The arrays are reserved, not filled: every slot is written below, once (zeros first would
    // cost a pass over the level; zeroed allocation cannot be asked for fallibly).
    let mut level = Level::try_with_capacity(total, moves);
    if level.keys.capacity() < total {
        return Err(LimitHit::Memory);
    }
    let mut by_chunk: Vec<Vec<Bucket<D::Key>>> = (0..chunks).map(|_| Vec::with_capacity(shards)).collect();
    for shard in by_shard {
        for (c, bucket) in shard.into_iter().enumerate() {
            by_chunk[c].push(bucket);
        }
    }
    let mut slices = Vec::with_capacity(chunks);
    let (mut key_rest, mut parent_rest, mut move_rest) = (
        &mut level.keys.spare_capacity_mut()[..total],
        &mut level.parents.spare_capacity_mut()[..total],
        &mut level.moves.small.spare_capacity_mut()[..if moves { total } else { 0 }],
    );
    let mut base = 0;
    for &len in &per_chunk {
        let (k, key_tail) = key_rest.split_at_mut(len);
        let (p, parent_tail) = parent_rest.split_at_mut(len);
        let (m, move_tail) = move_rest.split_at_mut(if moves { len } else { 0 });
        slices.push((base, k, p, m));
        (key_rest, parent_rest, move_rest) = (key_tail, parent_tail, move_tail);
        base += len;
    }
    let big: Vec<Vec<(u32, u32)>> = slices
        .into_par_iter()
        .zip(logs.par_iter())
        .zip(by_chunk.par_iter_mut())
        .map(|(((base, keys, parents, small), log), buckets)| {
            let mut cursor = vec![0usize; shards];
            let mut big = Vec::new();
            let mut j = 0;
            for &s in log {
                let s = s as usize;
                let bucket = &mut buckets[s];
                let i = cursor[s];
                cursor[s] += 1;
                if bucket.parents[i] != DUPLICATE {
                    keys[j].write(bucket.keys[i]);
                    parents[j].write(bucket.parents[i]);
                    if moves {
                        let byte = bucket.moves.small[i];
                        small[j].write(byte);
                        if byte == u8::MAX {
                            big.push(((base + j) as u32, bucket.moves.get(i)));
                        }
                    }
                    bucket.parents[i] = (base + j) as u32;
                    j += 1;
                }
            }
            // Every slot of the chunk's slices is written: its survivors are as many as they hold.
            assert_eq!(j, keys.len(), "a chunk writes its whole slice of the level");
            big
        })
        .collect();
    // SAFETY: the first `total` slots of each array were written above: the chunks' slices cover
    // them (`per_chunk` sums to `total`) and each chunk wrote its whole slice (asserted).
    unsafe {
        level.keys.set_len(total);
        level.parents.set_len(total);
        level.moves.small.set_len(if moves { total } else { 0 });
    }
    level.moves.big = big.concat();
    if dense.is_some() {
        return Ok((level, LevelSet::empty()));
    }
    let mut by_shard: Vec<Vec<Bucket<D::Key>>> = (0..shards).map(|_| Vec::with_capacity(chunks)).collect();
    for chunk in by_chunk {
        for (s, bucket) in chunk.into_iter().enumerate() {
            by_shard[s].push(bucket);
        }
    }
    sets.par_iter_mut().zip(by_shard.par_iter()).for_each(|(set, buckets)| {
        let starts = bucket_starts(buckets);
        let finals: Vec<&[u32]> = buckets.iter().map(|b| b.parents.as_slice()).collect();
        set.remap(|r| candidate(&starts, &finals, r));
    });
    Ok((level, LevelSet::Sharded(IndexSet::from_shards(bits, sets))))
}

/// Candidates a shard's set makes room for at a time: its growth past the planned capacity is
/// checked once a block (a check per candidate cost 4-13 % on tiles).
const ROOM_BLOCK: usize = 1024;

/// Where each chunk's bucket starts among a shard's candidates (and the total at the end).
fn bucket_starts<K>(buckets: &[Bucket<K>]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(buckets.len() + 1);
    let mut at = 0;
    starts.push(0);
    for bucket in buckets {
        at += bucket.keys.len();
        starts.push(at);
    }
    starts
}

/// Entry `r` of a shard's candidates, chunk after chunk (`starts` from [`bucket_starts`]).
#[inline]
fn candidate<T: Copy>(starts: &[usize], chunks: &[&[T]], r: u32) -> T {
    let r = r as usize;
    let c = starts.partition_point(|&s| s <= r) - 1;
    chunks[c][r - starts[c]]
}

/// DashMap backend: the map already holds each new state with its smallest sequence number
/// (parent index, move number); sort by it to get sequential order. [`LimitHit::Time`] when
/// `deadline` passes meanwhile (looked at between the steps and every [`DASH_POLL`] states).
fn collect_dash<K: Key>(
    map: DashMap<K, u64>,
    hit_chunk: usize,
    outs: &[ChunkOut<Buckets<K>>],
    moves: bool,
    deadline: Option<Instant>,
) -> Result<Collected<K>, LimitHit> {
    let in_time = || if super::past(deadline) { Err(LimitHit::Time) } else { Ok(()) };
    let mut entries: Vec<(u64, K)> = map.par_iter().map(|e| (*e.value(), *e.key())).collect();
    in_time()?;
    entries.par_sort_unstable_by_key(|e| e.0);
    in_time()?;
    if hit_chunk != usize::MAX {
        let limit = outs.iter().filter_map(|o| o.counts.hit).min().unwrap_or(usize::MAX);
        let cut = entries.partition_point(|e| (e.0 >> 32) as usize <= limit);
        entries.truncate(cut);
    }
    let mut level = Level::default();
    for (i, (seq, key)) in entries.into_iter().enumerate() {
        if i % DASH_POLL == DASH_POLL - 1 {
            in_time()?;
        }
        level.push(key, (seq >> 32) as u32, seq as u32, moves);
    }
    Ok((level, LevelSet::Dash(map)))
}

/// States the DashMap backend's collection moves between looks at the clock.
const DASH_POLL: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::tiles::Tiles;

    #[test]
    fn a_deadline_passed_while_deduplicating_stops_the_level() {
        let sharded = |deadline| collect_sharded::<Tiles<u64>>(Vec::new(), 0, false, 0, None, deadline);
        let dash = |deadline| {
            let map: DashMap<u64, u64> = (0..3u64).map(|k| (k, 2 - k)).collect();
            collect_dash(map, usize::MAX, &[], false, deadline)
        };
        assert_eq!(sharded(Some(Instant::now())).err(), Some(LimitHit::Time));
        assert_eq!(dash(Some(Instant::now())).err(), Some(LimitHit::Time));
        let future = Instant::now() + std::time::Duration::from_secs(3600);
        for deadline in [None, Some(future)] {
            let (level, _) = sharded(deadline).unwrap();
            assert!(level.keys.is_empty());
            // The map's states in the order of their sequence numbers.
            let (level, _) = dash(deadline).unwrap();
            assert_eq!(level.keys, [2, 1, 0]);
        }
    }
}
