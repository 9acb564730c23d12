//! The components of a piece set one at a time, from seeds: memory for the largest component, not
//! for every layout of the set.
//!
//! The domain lists its *seeds* ([`Domain::seeds`]): the layouts in which no piece can step
//! up or left, among them the least layout (in key order) of every component. A breadth-first
//! search from each seed gives up at the first layout smaller than the seed, which it would not
//! meet if the seed were its component's least; a search that is not given up has found a whole
//! component, which a multi-source search from its goal layouts then measures. Seeds are listed
//! on every thread, sorted in key order and searched in batches on every thread; a search marks
//! the later seeds it meets as it meets them, which are then skipped instead of searched until
//! they give up, or abandoned if their search already runs on another thread (so a component's
//! least seed, searched first, is usually the only one searched). The components are sorted at
//! the end.
//! For the solvable components alone, the seeds are goal layouts in which no piece but the goal's
//! can step up or left (a step of another piece keeps the goal), and a search gives up at the
//! first smaller goal layout: unsolvable components are never entered.
//!
//! The result is the [`Analysis`] that [`super::graph`] computes from all layouts at once, equal
//! field for field: components in the order of their first layouts in layout order, the same
//! representative and hardest layouts. This pays where components are small beside their piece
//! set (pieces that move along one line only, as in Rush Hour); where one component holds a large
//! part of its set (Klotski), most seeds lie in it and each search runs long before it meets a
//! smaller layout.

use super::graph::{Analysis, CLOCK_LOOK, Component, Invariant, Layout, Order, Starts, component_bytes, moved_pieces};
use super::limit_now;
use super::slots::ThreadSlots;
use crate::domain::{Domain, DomainTask, Unlisted};
use crate::memory::{self, TooLarge};
use crate::reserve::Watch;
use crate::search::LimitHit;
use hashbrown::HashMap;
use rayon::prelude::*;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

const UNSEEN: u32 = u32::MAX;

/// The capacity a search's hash table starts from (most components, and most searches of the
/// database rule's tests, are far smaller).
pub(super) const SMALL_TABLE: usize = 1024;

/// Seeds searched together, spread over the threads.
const BATCH: usize = 4096;

/// Seeds of a batch handed to a thread at a time: a batch's searches differ in cost by orders of
/// magnitude (most seeds are skipped or give up at once, a few hold large components), and an
/// uncapped split leaves one thread working alone on a costly share at the batch's end.
const SEEDS_PER_TASK: usize = 16;

/// Bytes held per layout of the component being searched: its key, a hash-map entry (key, index,
/// control byte, slack up to a doubled table), about twelve edges of four bytes, an edge offset
/// and a distance.
fn bytes_per_layout(key_bytes: u64) -> u64 {
    3 * key_bytes + 8 + 12 * 4 + 8
}

/// Bytes held per seed listed: its key and its mark.
fn bytes_per_seed(key_bytes: u64) -> u64 {
    key_bytes + 1
}

/// Bytes held per seed while the seeds are listed: its key in the list of the walk's branch that
/// met it and, as the lists are joined, in the joined list.
fn bytes_per_listed_seed(key_bytes: u64) -> u64 {
    2 * key_bytes
}

/// Bytes held per component found: its [`Found`] record (keys, sums, moved pieces), and the
/// component as reported ([`component_bytes`]).
fn bytes_per_component<K>(pieces: usize, row_chars: usize) -> u64 {
    std::mem::size_of::<Found<K>>() as u64 + component_bytes(pieces, row_chars)
}

/// The analysis of a compiled domain, component by component from its seeds, whose tables must fit
/// in `memory_limit` bytes; `None` when the domain cannot list its seeds (sliding tiles).
pub struct AnalyseBySeeds<'a> {
    /// The memory budget in bytes.
    pub memory_limit: u64,
    /// The order that picks among equally hard layouts (`None`: the first in layout order).
    pub order: Option<Order<'a>>,
    /// The components to keep (`None`: all); a seed that fails it is not searched.
    pub invariant: Option<Invariant<'a>>,
    /// The layouts a hardest layout is chosen from (`None`: all).
    pub starts: Option<Starts<'a>>,
    /// Whether to find [`Component::moved`].
    pub moved: bool,
    /// Whether to search only the solvable components: from goal seeds, each search giving up at
    /// the first goal layout smaller than its seed.
    pub solvable_only: bool,
    /// Characters of each of the two one-line layouts a component's row will hold ([`row_chars`](super::row_chars);
    /// 0 where no rows are made), for the memory account.
    pub row_chars: usize,
    /// Stop at this instant (the analysis is then `Analysis::stopped`, its layouts those of the
    /// components found so far).
    pub deadline: Option<Instant>,
}

/// One component found, in keys.
struct Found<K> {
    size: u64,
    goal_layouts: u64,
    hardest: Option<(u32, K)>,
    representative: K,
    holds_start: bool,
    /// [`Component::moved`].
    moved: u64,
}

/// How the search from one seed ended.
enum Searched {
    /// It met a layout smaller than the seed.
    GivenUp,
    /// It holds the seed's whole component.
    Component,
    /// The component has more layouts than the budget allows.
    TooLarge,
    /// The deadline passed, or a table could not have the memory the budget allowed.
    Stopped(LimitHit),
}

/// The tables of the component being searched, kept between searches so they are allocated once.
struct Tables<K> {
    index: HashMap<K, u32>,
    keys: Vec<K>,
    /// The neighbours of layout `i` are `edges[starts[i]..starts[i + 1]]`.
    edges: Vec<u32>,
    starts: Vec<u32>,
    dist: Vec<u32>,
    children: Vec<K>,
}

/// The class's seeds in key order, each with its mark: set once a search met it, so that its own
/// search is skipped (or abandoned, if it already runs on another thread).
///
/// A search marks every seed it meets, at once, even one that later gives up: the seed met lies in
/// the component of the search's seed, whose least seed is never met by another search (that one
/// would meet a smaller layout first and give up before) and so is searched to the end.
struct Marks<K> {
    seeds: Vec<K>,
    met: Vec<AtomicBool>,
}

impl<K: Ord> Marks<K> {
    /// Marks `key` if it is a seed.
    fn mark(&self, key: &K) {
        if let Ok(i) = self.seeds.binary_search(key) {
            self.met[i].store(true, Ordering::Relaxed);
        }
    }

    /// Whether the seed at `i` was met by a search.
    fn is_met(&self, i: usize) -> bool {
        self.met[i].load(Ordering::Relaxed)
    }
}

/// Layouts a search expands between two looks at its own seed's mark.
const MARK_LOOK: usize = 64;

impl<K: crate::domain::Key> Tables<K> {
    /// Empty tables.
    fn new() -> Self {
        Tables {
            index: HashMap::new(),
            keys: Vec::new(),
            edges: Vec::new(),
            starts: Vec::new(),
            dist: Vec::new(),
            children: Vec::new(),
        }
    }

    /// Searches the component of the seed at index `at` breadth-first, giving up at the first layout
    /// below it (with `goal`, the first goal layout) or when another search marks it, and marking
    /// the later seeds it meets: layouts with no smaller child (when only goal seeds are listed,
    /// goal layouts with no smaller goal child: a step up or left of a piece that keeps the goal is
    /// one of a non-goal piece, unless the goal piece can move along its goal; such a seed is then
    /// not marked, and its search gives up instead). More than `most` layouts is
    /// [`Searched::TooLarge`]; a search still running at `deadline`, or whose tables cannot grow,
    /// is [`Searched::Stopped`].
    fn search<D: Domain<Key = K>>(
        &mut self,
        domain: &D,
        scratch: &mut D::Scratch,
        (marks, at, goal): (&Marks<K>, usize, bool),
        (most, deadline, watch): (usize, Option<Instant>, &Watch),
    ) -> Searched {
        let seed = marks.seeds[at];
        // A table grown by a large component would spread a small one's probes over all of it
        // (and cost a clearing of all its buckets): start each search small.
        if self.index.capacity() > SMALL_TABLE {
            self.index = HashMap::with_capacity(SMALL_TABLE);
        }
        self.index.clear();
        self.keys.clear();
        self.edges.clear();
        self.starts.clear();
        self.index.insert(seed, 0);
        self.keys.push(seed);
        let mut head = 0;
        while let Some(&key) = self.keys.get(head) {
            head += 1;
            if head % MARK_LOOK == 0 && marks.is_met(at) {
                return Searched::GivenUp;
            }
            if head % CLOCK_LOOK == 0
                && let Some(hit) = limit_now(deadline, watch)
            {
                return Searched::Stopped(hit);
            }
            self.children.clear();
            domain.for_each_successor(&key, scratch, |c| self.children.push(c));
            if let Err(hit) = self.room_for(self.children.len()) {
                return Searched::Stopped(hit);
            }
            if self.children.iter().any(|c| *c < seed && (!goal || domain.is_goal(c))) {
                return Searched::GivenUp;
            }
            let may_be_seed = match goal {
                true => domain.is_goal(&key) && !self.children.iter().any(|c| *c < key && domain.is_goal(c)),
                false => self.children.iter().all(|c| *c > key),
            };
            if may_be_seed && key != seed {
                marks.mark(&key);
            }
            self.starts.push(self.edges.len() as u32);
            for &child in &self.children {
                let next = self.keys.len() as u32;
                let i = *self.index.entry(child).or_insert_with(|| {
                    self.keys.push(child);
                    next
                });
                self.edges.push(i);
            }
            if self.keys.len() > most || self.edges.len() > u32::MAX as usize / 2 {
                return Searched::TooLarge;
            }
        }
        self.starts.push(self.edges.len() as u32);
        Searched::Component
    }

    /// Room in the tables for a layout's `children` edges and as many new layouts, checked before
    /// they grow (one comparison each while they have it).
    fn room_for(&mut self, children: usize) -> Result<(), LimitHit> {
        self.index.try_reserve(children)?;
        self.keys.try_reserve(children)?;
        self.edges.try_reserve(children)?;
        Ok(self.starts.try_reserve(2)?)
    }

    /// Distances from the component's goal layouts and its sums (a failed allocation of their
    /// tables is the memory limit).
    fn measure<D: Domain<Key = K>>(
        &mut self,
        domain: &D,
        (order, is_start): (Option<Order>, Option<Starts>),
        moved: bool,
    ) -> Result<Found<K>, LimitHit> {
        let n = self.keys.len();
        self.dist.clear();
        self.dist.try_reserve(n)?;
        self.dist.resize(n, UNSEEN);
        let mut queue: Vec<u32> = Vec::new();
        queue.try_reserve_exact(n)?;
        for (i, key) in self.keys.iter().enumerate() {
            if domain.is_goal(key) {
                self.dist[i] = 0;
                queue.push(i as u32);
            }
        }
        let goal_layouts = queue.len() as u64;
        let mut head = 0;
        while let Some(&i) = queue.get(head) {
            head += 1;
            let d = self.dist[i as usize] + 1;
            for &j in &self.edges[self.starts[i as usize] as usize..self.starts[i as usize + 1] as usize] {
                if self.dist[j as usize] == UNSEEN {
                    self.dist[j as usize] = d;
                    queue.push(j);
                }
            }
        }
        // The queue is in distance order: the hardest layouts that count (all, or the starts) are
        // the last that count.
        let counts = |i: u32| is_start.is_none_or(|s| s(&domain.anchors(&self.keys[i as usize])));
        let last = queue.iter().rposition(|&i| counts(i));
        let hardest = last.map(|last| {
            let moves = self.dist[queue[last] as usize];
            let tail =
                queue[..=last].iter().rev().take_while(|&&i| self.dist[i as usize] == moves).filter(|&&i| counts(i));
            let rank = |key: &K| order.map_or(0, |o| o(&domain.anchors(key)));
            let least = tail
                .map(|&i| (rank(&self.keys[i as usize]), i))
                .min_by(|a, b| {
                    a.0.cmp(&b.0).then_with(|| domain.layout_cmp(&self.keys[a.1 as usize], &self.keys[b.1 as usize]))
                })
                .expect("the tail holds the last layout");
            (moves, least.1)
        });
        // One shortest path down from the hardest layout, over the stored edges.
        let path = |from: u32| {
            std::iter::successors(Some(from), |&i| {
                let d = self.dist[i as usize];
                let near = &self.edges[self.starts[i as usize] as usize..self.starts[i as usize + 1] as usize];
                near.iter().copied().find(|&j| d > 0 && self.dist[j as usize] == d - 1)
            })
            .map(|i| self.keys[i as usize])
        };
        let moved = hardest.filter(|_| moved).map_or(0, |(_, i)| moved_pieces(domain, path(i)));
        let hardest = hardest.map(|(moves, i)| (moves, self.keys[i as usize]));
        let representative =
            *self.keys.iter().min_by(|a, b| domain.layout_cmp(a, b)).expect("a component holds its seed");
        let start = domain.start();
        let holds_start = self.index.contains_key(&start);
        Ok(Found { size: n as u64, goal_layouts, hardest, representative, holds_start, moved })
    }
}

impl DomainTask for AnalyseBySeeds<'_> {
    type Output = Option<Result<Analysis, TooLarge>>;
    fn run<D: Domain>(self, domain: &D) -> Self::Output {
        let watch = Watch::new();
        let key_bytes = std::mem::size_of::<D::Key>() as u64;
        let pieces = domain.anchors(&domain.start()).len();
        let (per_layout, per_component) =
            (bytes_per_layout(key_bytes), bytes_per_component::<D::Key>(pieces, self.row_chars));
        // Every thread searches its own components, each within its share of the budget.
        let threads = rayon::current_num_threads().max(1) as u64;
        let most = (self.memory_limit / threads / per_layout).min(UNSEEN as u64 - 1) as usize;
        let (per_seed, per_listed_seed) = (bytes_per_seed(key_bytes), bytes_per_listed_seed(key_bytes));
        let mut found: Vec<Found<D::Key>> = Vec::new();
        let (mut largest, mut over) = (0u64, None);
        // The most held so far: while the seeds were listed, or since, by the searches.
        let held = |largest: u64, components: usize, seeds: usize| {
            let searching = memory::product(&[largest as usize], per_layout)
                .and_then(|b| b.checked_mul(threads))
                .zip(memory::product(&[components], per_component))
                .and_then(|(a, b)| a.checked_add(b))
                .zip(memory::product(&[seeds], per_seed))
                .and_then(|(a, b)| a.checked_add(b));
            searching.zip(memory::product(&[seeds], per_listed_seed)).map(|(a, b)| a.max(b))
        };
        // Every seed first, in key order: a component's least seed then comes before its others,
        // and its search marks them before their turn.
        let most_seeds = (self.memory_limit / per_listed_seed).min(usize::MAX as u64) as usize;
        let keep = |seed: &D::Key| self.invariant.is_none_or(|keep| keep(&domain.anchors(seed)));
        let hit = OnceLock::new();
        let stop = || limit_now(self.deadline, &watch).map(|h| hit.set(h)).is_some();
        let mut seeds = match domain.seeds(self.solvable_only, &keep, &stop, most_seeds)? {
            Ok(seeds) => seeds,
            Err(Unlisted::Over(listed)) => {
                let bytes = held(0, 0, listed).unwrap_or(u64::MAX);
                over = Some((format!("the seeds of the class ({listed} listed)"), bytes));
                Vec::new()
            }
            Err(Unlisted::Starved) => return Some(Ok(Analysis::stopped(LimitHit::Memory, 0, 0))),
            Err(Unlisted::Stopped(_)) => {
                let hit = hit.get().copied().unwrap_or(LimitHit::Time);
                return Some(Ok(Analysis::stopped(hit, 0, 0)));
            }
        };
        seeds.sort_unstable();
        let mut met = Vec::new();
        if met.try_reserve_exact(seeds.len()).is_err() {
            let bytes = held(0, 0, seeds.len()).unwrap_or(u64::MAX);
            return Some(Ok(Analysis::stopped(LimitHit::Memory, 0, bytes)));
        }
        met.extend(seeds.iter().map(|_| AtomicBool::new(false)));
        let marks = Marks { met, seeds };
        // Searched in batches on every thread; the components are sorted at the end, so the
        // result does not depend on which thread found what, nor on which seeds were skipped (a
        // skipped seed's search would have given up at its component's least seed).
        // Seeds over the budget while listed leave nothing to search.
        let searched = if over.is_some() { 0 } else { marks.seeds.len() };
        let tables = ThreadSlots::new(|| (Tables::new(), domain.scratch()));
        // Set by the first search that ends the class, so that the batch's seeds not yet started
        // are not searched (the searches running go on to their own end).
        let stopping = AtomicBool::new(false);
        for first in (0..searched).step_by(BATCH) {
            let stopped = |hit: LimitHit, found: &[Found<D::Key>]| {
                let bytes = held(largest, found.len(), marks.seeds.len()).unwrap_or(u64::MAX);
                let layouts = found.iter().map(|c| c.size as usize).sum();
                Some(Ok(Analysis::stopped(hit, layouts, bytes)))
            };
            // The batch's outcomes go into room reserved first: without it, the class stops.
            let batch = first..searched.min(first + BATCH);
            let outcomes = memory::try_par_collect(batch.into_par_iter().with_max_len(SEEDS_PER_TASK).map(|at| {
                if marks.is_met(at) || stopping.load(Ordering::Relaxed) {
                    return Ok(None);
                }
                if let Some(hit) = limit_now(self.deadline, &watch) {
                    stopping.store(true, Ordering::Relaxed);
                    return Err(Searched::Stopped(hit));
                }
                tables.with(|(tables, scratch)| {
                    match tables.search(
                        domain,
                        scratch,
                        (&marks, at, self.solvable_only),
                        (most, self.deadline, &watch),
                    ) {
                        Searched::GivenUp => Ok(None),
                        Searched::Component => match tables.measure(domain, (self.order, self.starts), self.moved) {
                            Ok(found) => Ok(Some(found)),
                            Err(hit) => {
                                stopping.store(true, Ordering::Relaxed);
                                Err(Searched::Stopped(hit))
                            }
                        },
                        ended => {
                            stopping.store(true, Ordering::Relaxed);
                            Err(ended)
                        }
                    }
                })
            }));
            let Some(outcomes) = outcomes else { return stopped(LimitHit::Memory, &found) };
            // A component over the budget is a fact of the class; a search cut short by the clock
            // or by the process's memory in the same batch is not, so the budget's error wins,
            // whichever thread ended first (and of two stops, the earlier seed's).
            let ended =
                outcomes.iter().filter_map(|o| o.as_ref().err()).min_by_key(|e| !matches!(e, Searched::TooLarge));
            let new = outcomes.iter().filter(|o| matches!(o, Ok(Some(_)))).count();
            let outcomes = match ended {
                None => outcomes.into_iter().flatten(),
                Some(&Searched::Stopped(hit)) => return stopped(hit, &found),
                Some(_) => {
                    // One layout more than the budget allows is a lower bound of the need.
                    let most_held = largest.max(most as u64 + 1);
                    let bytes = held(most_held, found.len(), marks.seeds.len()).unwrap_or(u64::MAX);
                    over = Some((format!("the tables of one component (more than {most} layouts)"), bytes));
                    break;
                }
            };
            if found.try_reserve(new).is_err() {
                return stopped(LimitHit::Memory, &found);
            }
            for c in outcomes.flatten() {
                largest = largest.max(c.size);
                found.push(c);
            }
            let bytes = held(largest, found.len(), marks.seeds.len()).unwrap_or(u64::MAX);
            if bytes > self.memory_limit {
                over = Some((format!("the tables of a component and {} components found", found.len()), bytes));
                break;
            }
        }
        if let Some((what, bytes)) = over {
            return Some(Err(TooLarge { what, bytes, limit: self.memory_limit }));
        }
        found.sort_unstable_by(|a, b| domain.layout_cmp(&a.representative, &b.representative));
        let peak_bytes = held(largest, found.len(), marks.seeds.len()).unwrap_or(u64::MAX);
        let (layouts, start_component) = (found.iter().map(|c| c.size).sum(), found.iter().position(|c| c.holds_start));
        // The seeds and the searches' tables are freed before the components are made.
        drop((marks, tables));
        let starved = || Some(Ok(Analysis::stopped(LimitHit::Memory, layouts as usize, peak_bytes)));
        let mut components = Vec::new();
        if components.try_reserve_exact(found.len()).is_err() {
            return starved();
        }
        for c in found {
            // Each makes two small allocations: one that failed stops the class here.
            if watch.starved() {
                return starved();
            }
            components.push(Component {
                size: c.size,
                goal_layouts: c.goal_layouts,
                hardest_moves: c.hardest.map(|(d, _)| d),
                hardest: c.hardest.map(|(_, k)| Layout::of(&domain.anchors(&k))),
                representative: Layout::of(&domain.anchors(&c.representative)),
                moved: c.moved,
            });
        }
        Some(Ok(Analysis { layouts, start_component, components, peak_bytes, stopped: None }))
    }
}
