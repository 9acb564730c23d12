//! The frontier-synchronous level engine shared by BFS, bidirectional BFS and enumeration.
//!
//! Level `d` is a vector of keys. [`Engine::step`] expands it in parallel chunks: each child is
//! looked up (lock-free) in the read-only sets of levels `d-1` and `d`; the survivors are
//! deduplicated into level `d+1` by the chosen [`Backend`] and laid out in exactly the order a
//! sequential queue would produce (by parent position, then move number). Hence the first target
//! found, the solution and every count are the same for any number of threads, and equal to
//! [`reference_bfs`](super::reference::reference_bfs).
//!
//! Older levels are kept as compact arrays (key + parent index, 12 bytes a state for `u64` keys)
//! when paths are wanted; otherwise only levels `d-1` and `d` are kept. Two cheap filters run
//! before any lookup: a child equal to its grandparent (the undo move) is skipped, and in a
//! bipartite state graph a child is never looked up in its parent's own level.

use super::visited::{Backend, LevelSet, SHARD_BITS, planned_buckets, set_bytes, shard_of};
use super::{LimitHit, Limits, Stats};
use crate::domain::{Domain, Key};
use dashmap::DashMap;
use hashbrown::HashSet;
use rayon::prelude::*;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// Marks a bucket entry that turned out to be a duplicate.
const DUPLICATE: u32 = u32::MAX;

/// How the engine runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineOptions {
    /// How the next level's set is built.
    pub backend: Backend,
    /// Keep every level (for path reconstruction) instead of only the frontier.
    pub keep_paths: bool,
    /// Print one line per level to standard error.
    pub trace: bool,
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

/// Where the first target of a chunk was generated.
#[derive(Clone, Copy, Debug)]
struct Hit {
    /// Global index of the parent in the frontier.
    parent: usize,
}

/// New candidates of one shard from one chunk, in generation order: keys and parent indices.
struct Bucket<K> {
    keys: Vec<K>,
    parents: Vec<u32>,
}

impl<K> Default for Bucket<K> {
    fn default() -> Self {
        Bucket { keys: Vec::new(), parents: Vec::new() }
    }
}

impl<K> ChunkOut<K> {
    /// Bytes of the buffers (capacities, not lengths).
    fn bytes(&self) -> u64 {
        let entry = std::mem::size_of::<K>() as u64;
        let buckets: u64 =
            self.buckets.iter().map(|b| b.keys.capacity() as u64 * entry + b.parents.capacity() as u64 * 4).sum();
        buckets + self.log.capacity() as u64
    }
}

/// Levels smaller than this are expanded as one chunk into one unsharded set.
const SMALL_LEVEL: usize = 2048;

/// What one chunk of the frontier produced.
struct ChunkOut<K> {
    /// New candidates per shard.
    buckets: Vec<Bucket<K>>,
    /// The shard of every candidate, in generation order.
    log: Vec<u8>,
    /// Children generated (including duplicates), up to the first target if there is one.
    generated: u64,
    /// Parents expanded.
    expanded: u64,
    /// New candidates recorded (states not in the two previous levels).
    fresh: u64,
    /// The first target generated.
    hit: Option<Hit>,
}

/// A frontier-synchronous BFS over one domain, level by level.
pub struct Engine<'a, D: Domain> {
    domain: &'a D,
    options: EngineOptions,
    /// Keys of the kept levels; the last is the frontier.
    levels: Vec<Vec<D::Key>>,
    /// Parent index (into the previous level) of every key of the kept levels.
    parents: Vec<Vec<u32>>,
    /// Depth of the first kept level.
    first_depth: usize,
    prev: LevelSet<D::Key>,
    cur: LevelSet<D::Key>,
    layers: Vec<u64>,
    stats: Stats,
    /// The most bytes held during the last step.
    step_peak: u64,
    clock: Instant,
}

impl<'a, D: Domain> Engine<'a, D> {
    /// An engine whose level 0 is `start`.
    pub fn new(domain: &'a D, start: D::Key, options: EngineOptions) -> Self {
        let mut engine = Engine {
            domain,
            options,
            levels: vec![vec![start]],
            parents: vec![vec![DUPLICATE]],
            first_depth: 0,
            prev: LevelSet::empty(),
            cur: LevelSet::from_keys(&[start]),
            layers: vec![1],
            stats: Stats { stored: 1, ..Stats::default() },
            step_peak: 0,
            clock: Instant::now(),
        };
        engine.step_peak = engine.bytes_held();
        engine.stats.peak_bytes = engine.step_peak;
        engine
    }

    /// The current frontier (the deepest level).
    pub fn frontier(&self) -> &[D::Key] {
        self.levels.last().map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether `key` is in the current frontier.
    pub fn frontier_contains(&self, key: &D::Key) -> bool {
        self.cur.contains(key)
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

    /// The states from level 0 to entry `index` of the frontier (needs `keep_paths`).
    pub fn path_to(&self, index: usize) -> Vec<D::Key> {
        assert!(self.options.keep_paths && self.first_depth == 0, "path_to needs keep_paths");
        let mut path = Vec::with_capacity(self.levels.len());
        let mut i = index;
        for d in (0..self.levels.len()).rev() {
            path.push(self.levels[d][i]);
            i = self.parents[d][i] as usize;
        }
        path.reverse();
        path
    }

    /// The most bytes held during the last [`Engine::step`] (or at creation).
    pub fn step_peak(&self) -> u64 {
        self.step_peak
    }

    /// Bytes held between levels: the kept levels, their parent arrays and both level sets.
    pub fn bytes_held(&self) -> u64 {
        let entry = std::mem::size_of::<D::Key>() as u64;
        let levels: u64 = self.levels.iter().map(|l| l.capacity() as u64 * entry).sum();
        let parents: u64 = self.parents.iter().map(|p| p.capacity() as u64 * 4).sum();
        levels + parents + self.prev.bytes() + self.cur.bytes()
    }

    /// Expands the frontier by one level. `is_target` is tested on every new state as it is
    /// generated; the first one (in sequential order) ends the level.
    ///
    /// The limits hold inside the level too: every chunk reports its new candidates and the bytes
    /// of its buffers every [`POLL_FRESH`] candidates (and checks the deadline every
    /// [`POLL_PARENTS`] parents); once the states held, or the bytes held plus what deduplicating
    /// the candidates would take, exceed a limit, every chunk stops and the level is dropped. Its
    /// candidates then count as stored (see [`Stats::stored`]).
    pub fn step<T>(&mut self, is_target: &T, limits: &Limits) -> Step
    where
        T: Fn(&D::Key) -> bool + Sync,
    {
        let level_clock = Instant::now();
        let frontier = self.levels.last().expect("at least one level");
        let n = frontier.len();
        if n == 0 {
            return Step::Exhausted;
        }
        if n >= DUPLICATE as usize {
            return Step::Limit(LimitHit::Memory);
        }
        let threads = rayon::current_num_threads().max(1);
        let small = n < SMALL_LEVEL || threads == 1;
        let bits = if small { 0 } else { SHARD_BITS };
        let chunk = if small { n } else { (n / (threads * 16)).clamp(64, 1 << 15) };
        let chunk_count = n.div_ceil(chunk);
        let first_hit = AtomicUsize::new(usize::MAX);
        let dash: Option<DashMap<D::Key, u64>> = match self.options.backend {
            Backend::DashMap => Some(DashMap::new()),
            Backend::Sharded => None,
        };
        let watch = Watch {
            limits,
            stored: self.stats.stored,
            bytes: self.bytes_held(),
            finish_each: finish_bytes::<D::Key>(self.options.backend),
            dash: dash.as_ref(),
            fresh: AtomicU64::new(0),
            buffers: AtomicU64::new(0),
            stop: OnceLock::new(),
        };
        let (domain, prev, cur) = (self.domain, &self.prev, &self.cur);
        let bipartite = domain.bipartite();
        let depth = self.levels.len() - 1;
        let grandparents = (depth > 0).then(|| (&self.levels[depth - 1], &self.parents[depth]));
        let outs: Vec<ChunkOut<D::Key>> = (0..chunk_count)
            .into_par_iter()
            .map_init(
                || domain.scratch(),
                |scratch, c| {
                    let mut out = ChunkOut {
                        buckets: if dash.is_some() {
                            Vec::new()
                        } else {
                            (0..1 << bits).map(|_| Bucket::default()).collect()
                        },
                        log: Vec::new(),
                        generated: 0,
                        expanded: 0,
                        fresh: 0,
                        hit: None,
                    };
                    let range = c * chunk..((c + 1) * chunk).min(n);
                    let mut reported = (0, 0);
                    if watch.report(&out, &mut reported) {
                        return out;
                    }
                    for parent in range {
                        if first_hit.load(Ordering::Relaxed) < c {
                            break;
                        }
                        out.expanded += 1;
                        let key = &frontier[parent];
                        let grandparent = grandparents.map(|(keys, parents)| keys[parents[parent] as usize]);
                        let mut ordinal = 0u32;
                        let mut found = false;
                        domain.for_each_successor(key, scratch, |child| {
                            if found {
                                return;
                            }
                            out.generated += 1;
                            ordinal += 1;
                            if Some(child) == grandparent
                                || prev.contains(&child)
                                || (!bipartite && cur.contains(&child))
                            {
                                return;
                            }
                            out.fresh += 1;
                            match &dash {
                                Some(map) => {
                                    let seq = (parent as u64) << 32 | ordinal as u64;
                                    map.entry(child).and_modify(|s| *s = (*s).min(seq)).or_insert(seq);
                                }
                                None => {
                                    let s = shard_of(&child, bits);
                                    out.buckets[s].keys.push(child);
                                    out.buckets[s].parents.push(parent as u32);
                                    out.log.push(s as u8);
                                }
                            }
                            if is_target(&child) {
                                found = true;
                                out.hit = Some(Hit { parent });
                            }
                        });
                        if found {
                            first_hit.fetch_min(c, Ordering::Relaxed);
                            break;
                        }
                        if (out.fresh - reported.0 >= POLL_FRESH || out.expanded.is_multiple_of(POLL_PARENTS))
                            && watch.report(&out, &mut reported)
                        {
                            break;
                        }
                    }
                    watch.report(&out, &mut reported);
                    out
                },
            )
            .collect();
        let expand_s = level_clock.elapsed().as_secs_f64();
        let buffers: u64 = outs.iter().map(ChunkOut::bytes).sum::<u64>() + dash.as_ref().map_or(0, dash_bytes);
        self.step_peak = watch.bytes + buffers;
        self.stats.peak_bytes = self.stats.peak_bytes.max(self.step_peak);
        let hit_chunk = first_hit.load(Ordering::Relaxed);
        let used = if hit_chunk == usize::MAX { chunk_count } else { hit_chunk + 1 };
        // Deduplicating needs the sets and arrays of the new level on top of the buffers, while
        // level d-1 (only needed to filter children) is freed first.
        let collect_bytes = match &dash {
            Some(map) => dash_collect_bytes::<D::Key>(map.len()),
            None => sharded_collect_bytes(&outs[..used], bits),
        };
        let collect_peak = watch.bytes - self.prev.bytes() + buffers + collect_bytes;
        let stop =
            watch.stop.get().copied().or_else(|| limits.exceeded(0, collect_peak).filter(|h| *h == LimitHit::Memory));
        // A completed level counts the chunks up to the first target, as a sequential search would;
        // a stopped one counts all the work done.
        let counted = if stop.is_some() { &outs[..] } else { &outs[..used] };
        self.stats.expanded += counted.iter().map(|o| o.expanded).sum::<u64>();
        self.stats.generated += counted.iter().map(|o| o.generated).sum::<u64>();
        if let Some(hit) = stop {
            self.stats.stored += counted.iter().map(|o| o.fresh).sum::<u64>();
            return Step::Limit(hit);
        }
        let mut outs = outs;
        outs.truncate(used);
        self.prev = LevelSet::empty();
        let found = outs.get(hit_chunk).and_then(|o| o.hit).is_some();
        let (next_keys, next_parents, next_set) = match dash {
            Some(map) => collect_dash(map, hit_chunk, &outs),
            None => collect_sharded(outs, bits),
        };
        self.step_peak = self.step_peak.max(collect_peak);
        self.stats.peak_bytes = self.stats.peak_bytes.max(collect_peak);
        self.stats.stored += next_keys.len() as u64;
        if next_keys.is_empty() {
            return Step::Exhausted;
        }
        if self.options.trace {
            let level_s = level_clock.elapsed().as_secs_f64();
            crate::traceln!(
                "level {:>4}: frontier {:>12} -> new {:>12}  ({level_s:.3} s: expand {expand_s:.3} s, dedup {:.3} s; total {:.3} s)",
                self.depth(),
                n,
                next_keys.len(),
                level_s - expand_s,
                self.clock.elapsed().as_secs_f64()
            );
        }
        let found_index = next_keys.len() - 1;
        self.layers.push(next_keys.len() as u64);
        self.levels.push(next_keys);
        self.parents.push(next_parents);
        self.prev = std::mem::replace(&mut self.cur, next_set);
        if !self.options.keep_paths && self.levels.len() > 2 {
            let drop_count = self.levels.len() - 2;
            self.levels.drain(..drop_count);
            self.parents.drain(..drop_count);
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

/// A chunk reports its candidates to the [`Watch`] after at most this many new ones.
pub const POLL_FRESH: u64 = 1024;

/// A chunk polls the [`Watch`] (and the clock) after at most this many parents.
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
    /// Adds what `out` recorded since its last report (`reported`: its candidates and buffer
    /// bytes then) and checks the limits; whether the level must stop.
    fn report(&self, out: &ChunkOut<K>, reported: &mut (u64, u64)) -> bool {
        let bytes = out.bytes();
        let (fresh, buffers) = (out.fresh - reported.0, bytes - reported.1);
        *reported = (out.fresh, bytes);
        if self.stop.get().is_some() {
            return true;
        }
        let fresh = self.fresh.fetch_add(fresh, Ordering::Relaxed) + fresh;
        let buffers = self.buffers.fetch_add(buffers, Ordering::Relaxed) + buffers;
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

/// Bytes per candidate that deduplicating may add: a hash-set slot (at worst 16/7 slots a key,
/// hashbrown rounds up to a power of two) and the key and parent index in the new level's arrays;
/// for the DashMap backend, the sorted copy of its entries (twice, while rayon collects it).
fn finish_bytes<K>(backend: Backend) -> u64 {
    let key = std::mem::size_of::<K>() as u64;
    match backend {
        Backend::Sharded => (key + 1) * 16 / 7 + 1 + key + 4,
        Backend::DashMap => dash_collect_bytes::<K>(1),
    }
}

/// Bytes of a DashMap level set.
fn dash_bytes<K: Key>(map: &DashMap<K, u64>) -> u64 {
    map.capacity() as u64 * 8 / 7 * (std::mem::size_of::<(K, u64)>() as u64 + 1)
}

/// Bytes [`collect_dash`] allocates for `len` states.
fn dash_collect_bytes<K>(len: usize) -> u64 {
    len as u64 * (2 * std::mem::size_of::<(u64, K)>() + std::mem::size_of::<K>() + 4) as u64
}

/// Bytes [`collect_sharded`] allocates: one set per shard sized for its candidates, and the new
/// level's keys and parents (at most one per candidate).
fn sharded_collect_bytes<K: Key>(outs: &[ChunkOut<K>], bits: u32) -> u64 {
    let entry = (std::mem::size_of::<K>() + 4) as u64;
    (0..1usize << bits)
        .map(|s| {
            let size: usize = outs.iter().map(|o| o.buckets[s].keys.len()).sum();
            set_bytes::<K>(planned_buckets(size)) + size as u64 * entry
        })
        .sum()
}

type NextLevel<K> = (Vec<K>, Vec<u32>, LevelSet<K>);

/// Sharded backend: each shard deduplicates its buckets in chunk order (one owner thread, no
/// locks, duplicates marked in place) and counts the survivors of every chunk; then each chunk
/// replays its shard log to write its survivors, in generation order, straight into its slice of
/// the new level's arrays.
fn collect_sharded<K: Key>(outs: Vec<ChunkOut<K>>, bits: u32) -> NextLevel<K> {
    let shards = 1usize << bits;
    let chunks = outs.len();
    let mut logs = Vec::with_capacity(chunks);
    let mut by_shard: Vec<Vec<Bucket<K>>> = (0..shards).map(|_| Vec::with_capacity(chunks)).collect();
    for out in outs {
        logs.push(out.log);
        for (s, bucket) in out.buckets.into_iter().enumerate() {
            by_shard[s].push(bucket);
        }
    }
    let (sets, kept): (Vec<HashSet<K>>, Vec<Vec<usize>>) = by_shard
        .par_iter_mut()
        .map(|buckets| {
            let size: usize = buckets.iter().map(|b| b.keys.len()).sum();
            let mut set = HashSet::with_capacity(size);
            let kept = buckets
                .iter_mut()
                .map(|bucket| {
                    let mut kept = 0;
                    for (key, parent) in bucket.keys.iter().zip(bucket.parents.iter_mut()) {
                        if set.insert(*key) {
                            kept += 1;
                        } else {
                            *parent = DUPLICATE;
                        }
                    }
                    kept
                })
                .collect();
            (set, kept)
        })
        .unzip();
    let per_chunk: Vec<usize> = (0..chunks).map(|c| kept.iter().map(|k| k[c]).sum()).collect();
    let total = per_chunk.iter().sum();
    let mut keys = vec![K::zero(); total];
    let mut parents = vec![0u32; total];
    let mut slices = Vec::with_capacity(chunks);
    let (mut key_rest, mut parent_rest) = (keys.as_mut_slice(), parents.as_mut_slice());
    for &len in &per_chunk {
        let (k, key_tail) = key_rest.split_at_mut(len);
        let (p, parent_tail) = parent_rest.split_at_mut(len);
        slices.push((k, p));
        (key_rest, parent_rest) = (key_tail, parent_tail);
    }
    slices.into_par_iter().zip(logs.par_iter()).enumerate().for_each(|(c, ((keys, parents), log))| {
        let mut cursor = vec![0usize; shards];
        let mut j = 0;
        for &s in log {
            let s = s as usize;
            let bucket = &by_shard[s][c];
            let i = cursor[s];
            cursor[s] += 1;
            if bucket.parents[i] != DUPLICATE {
                keys[j] = bucket.keys[i];
                parents[j] = bucket.parents[i];
                j += 1;
            }
        }
    });
    (keys, parents, LevelSet::Sharded { bits, sets })
}

/// DashMap backend: the map already holds each new state with its smallest sequence number
/// (parent index, move number); sort by it to get sequential order.
fn collect_dash<K: Key>(map: DashMap<K, u64>, hit_chunk: usize, outs: &[ChunkOut<K>]) -> NextLevel<K> {
    let mut entries: Vec<(u64, K)> = map.par_iter().map(|e| (*e.value(), *e.key())).collect();
    entries.par_sort_unstable_by_key(|e| e.0);
    if hit_chunk != usize::MAX {
        let limit = outs.iter().filter_map(|o| o.hit).map(|h| h.parent).min().unwrap_or(usize::MAX);
        let cut = entries.partition_point(|e| (e.0 >> 32) as usize <= limit);
        entries.truncate(cut);
    }
    let keys: Vec<K> = entries.iter().map(|e| e.1).collect();
    let parents: Vec<u32> = entries.iter().map(|e| (e.0 >> 32) as u32).collect();
    (keys, parents, LevelSet::Dash(map))
}
