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

use super::visited::{Backend, LevelSet, SHARD_BITS, shard_of};
use super::{LimitHit, Limits, Stats};
use crate::domain::{Domain, Key};
use dashmap::DashMap;
use hashbrown::HashSet;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
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
            clock: Instant::now(),
        };
        engine.stats.peak_bytes = engine.bytes_held();
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

    fn bytes_held(&self) -> u64 {
        let entry = std::mem::size_of::<D::Key>() as u64;
        let levels: u64 = self.levels.iter().map(|l| l.capacity() as u64 * entry).sum();
        let parents: u64 = self.parents.iter().map(|p| p.capacity() as u64 * 4).sum();
        levels + parents + self.prev.bytes() + self.cur.bytes()
    }

    /// Expands the frontier by one level. `is_target` is tested on every new state as it is
    /// generated; the first one (in sequential order) ends the level.
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
        let base_bytes = self.bytes_held();
        let entry_bytes = (std::mem::size_of::<D::Key>() + 4 + 1) as u64;
        let first_hit = AtomicUsize::new(usize::MAX);
        let abort = AtomicBool::new(false);
        let candidates = AtomicU64::new(0);
        let dash: Option<DashMap<D::Key, u64>> = match self.options.backend {
            Backend::DashMap => Some(DashMap::new()),
            Backend::Sharded => None,
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
                    let mut reported = 0;
                    for parent in range {
                        if first_hit.load(Ordering::Relaxed) < c || abort.load(Ordering::Relaxed) {
                            break;
                        }
                        if parent.is_multiple_of(1024) {
                            let held = base_bytes + candidates.load(Ordering::Relaxed) * entry_bytes;
                            if limits.exceeded(0, held).is_some() {
                                abort.store(true, Ordering::Relaxed);
                                break;
                            }
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
                        if out.expanded.is_multiple_of(256) {
                            candidates.fetch_add(out.fresh - reported, Ordering::Relaxed);
                            reported = out.fresh;
                        }
                    }
                    out
                },
            )
            .collect();
        if abort.load(Ordering::Relaxed) {
            let timed_out = limits.deadline.is_some_and(|d| Instant::now() >= d);
            return Step::Limit(if timed_out { LimitHit::Time } else { LimitHit::Memory });
        }
        let expand_s = level_clock.elapsed().as_secs_f64();
        let hit_chunk = first_hit.load(Ordering::Relaxed);
        let used = if hit_chunk == usize::MAX { chunk_count } else { hit_chunk + 1 };
        let transient: u64 = outs.iter().map(|o| o.log.capacity() as u64 * entry_bytes).sum();
        let mut outs = outs;
        outs.truncate(used);
        // Level d-1 is only needed to filter children; free it before the next level is built.
        self.prev = LevelSet::empty();
        self.stats.expanded += outs.iter().map(|o| o.expanded).sum::<u64>();
        self.stats.generated += outs.iter().map(|o| o.generated).sum::<u64>();
        let found = outs.get(hit_chunk).and_then(|o| o.hit).is_some();
        let (next_keys, next_parents, next_set) = match dash {
            Some(map) => collect_dash(map, hit_chunk, &outs),
            None => collect_sharded(outs, bits),
        };
        self.stats.stored += next_keys.len() as u64;
        if next_keys.is_empty() {
            return Step::Exhausted;
        }
        let next_bytes = next_set.bytes() + next_keys.capacity() as u64 * entry_bytes;
        self.stats.peak_bytes = self.stats.peak_bytes.max(base_bytes + next_bytes + transient);
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

type NextLevel<K> = (Vec<K>, Vec<u32>, LevelSet<K>);

/// Sharded backend: each shard deduplicates its buckets in chunk order (one owner thread, no
/// locks, duplicates marked in place), then each chunk replays its shard log to emit its survivors
/// in generation order, and the chunks are concatenated in order.
fn collect_sharded<K: Key>(outs: Vec<ChunkOut<K>>, bits: u32) -> NextLevel<K> {
    let shards = 1usize << bits;
    let mut logs = Vec::with_capacity(outs.len());
    let mut by_shard: Vec<Vec<Bucket<K>>> = (0..shards).map(|_| Vec::with_capacity(outs.len())).collect();
    for out in outs {
        logs.push(out.log);
        for (s, bucket) in out.buckets.into_iter().enumerate() {
            by_shard[s].push(bucket);
        }
    }
    let sets: Vec<HashSet<K>> = by_shard
        .par_iter_mut()
        .map(|buckets| {
            let size: usize = buckets.iter().map(|b| b.keys.len()).sum();
            let mut set = HashSet::with_capacity(size);
            for bucket in buckets.iter_mut() {
                for (key, parent) in bucket.keys.iter().zip(bucket.parents.iter_mut()) {
                    if !set.insert(*key) {
                        *parent = DUPLICATE;
                    }
                }
            }
            set
        })
        .collect();
    let per_chunk: Vec<(Vec<K>, Vec<u32>)> = logs
        .par_iter()
        .enumerate()
        .map(|(c, log)| {
            let mut cursor = vec![0usize; shards];
            let (mut keys, mut parents) = (Vec::with_capacity(log.len()), Vec::with_capacity(log.len()));
            for &s in log {
                let s = s as usize;
                let bucket = &by_shard[s][c];
                let i = cursor[s];
                cursor[s] += 1;
                if bucket.parents[i] != DUPLICATE {
                    keys.push(bucket.keys[i]);
                    parents.push(bucket.parents[i]);
                }
            }
            (keys, parents)
        })
        .collect();
    drop(by_shard);
    let (keys, parents) = if per_chunk.len() == 1 {
        per_chunk.into_iter().next().expect("one chunk")
    } else {
        let keys = per_chunk.par_iter().flat_map_iter(|(k, _)| k.iter().copied()).collect();
        let parents = per_chunk.par_iter().flat_map_iter(|(_, p)| p.iter().copied()).collect();
        (keys, parents)
    };
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
