//! Depth-first searches with a bound on `f = g + h`: IDA* (iterative deepening on `f`), IDDFS
//! (the same with `h = 0`) and depth-limited DFS (one iteration, first solution found).
//!
//! One explicit-stack loop serves all three, so depth is limited only by memory. The only
//! duplicate check is the undo move (a child equal to its grandparent is not generated), as in
//! Korf's IDA*; `generated` counts the children that survive it, `expanded` the nodes whose
//! children were generated. Children are tried in the domain's move order.

use super::{LimitHit, Limits, Outcome, SearchResult, Stats};
use crate::domain::Domain;
use std::time::Instant;

/// One stack frame: a state, its depth, and its children `children[start..end]` in the shared
/// buffer, of which `children[next..end]` are still to try.
struct Frame<K> {
    key: K,
    g: u32,
    start: usize,
    next: usize,
    end: usize,
}

/// What one bounded pass found.
enum Pass<K> {
    /// A goal, with the path to it.
    Found(Vec<K>),
    /// No goal within the bound; the smallest `f` that exceeded it (`None`: nothing exceeded it,
    /// the space within reach is exhausted).
    Exceeded(Option<u32>),
    /// A limit stopped the pass.
    Limit(LimitHit),
}

fn bounded_pass<D, H>(domain: &D, h: &H, bound: u32, limits: &Limits, stats: &mut Stats) -> Pass<D::Key>
where
    D: Domain,
    H: Fn(&D::Key) -> u32,
{
    let start = domain.start();
    if domain.is_goal(&start) {
        return Pass::Found(vec![start]);
    }
    let mut scratch = domain.scratch();
    let mut children: Vec<D::Key> = Vec::new();
    let mut stack: Vec<Frame<D::Key>> = Vec::new();
    let mut exceeded: Option<u32> = None;
    let budget = limits.memory();
    // Pushes `key`'s frame and children; false (the memory limit) when a buffer would have to grow
    // past the budget or cannot have the memory.
    let mut expand =
        |key: D::Key, g: u32, children: &mut Vec<D::Key>, stack: &mut Vec<Frame<D::Key>>, stats: &mut Stats| {
            let from = children.len();
            let mut room = true;
            domain.for_each_successor(&key, &mut scratch, |c| {
                if children.len() == children.capacity() {
                    room &= grow(children, bytes_of(stack), budget, stats);
                }
                if room {
                    children.push(c);
                }
            });
            if room && stack.len() == stack.capacity() {
                room = grow(stack, bytes_of(children), budget, stats);
            }
            stats.expanded += 1;
            if room {
                stack.push(Frame { key, g, start: from, next: from, end: children.len() });
            }
            room
        };
    if !expand(start, 0, &mut children, &mut stack, stats) {
        return Pass::Limit(LimitHit::Memory);
    }
    while let Some(top) = stack.last_mut() {
        if top.next == top.end {
            children.truncate(top.start);
            stack.pop();
            continue;
        }
        let child = children[top.next];
        top.next += 1;
        let g = top.g + 1;
        let depth = stack.len();
        if depth >= 2 && stack[depth - 2].key == child {
            continue;
        }
        stats.generated += 1;
        let f = g + h(&child);
        if f > bound {
            exceeded = Some(exceeded.map_or(f, |e| e.min(f)));
            continue;
        }
        if domain.is_goal(&child) {
            let mut path: Vec<D::Key> = stack.iter().map(|fr| fr.key).collect();
            path.push(child);
            stats.depth = g;
            return Pass::Found(path);
        }
        // The state limit (nodes expanded) is tested at every node, the memory and the clock
        // every 4,096.
        if (stats.expanded.is_multiple_of(4096) || limits.max_states.is_some_and(|m| stats.expanded > m))
            && let Some(hit) = limits.exceeded(stats.expanded, bytes_of(&children) + bytes_of(&stack))
        {
            return Pass::Limit(hit);
        }
        stats.depth = stats.depth.max(g);
        if !expand(child, g, &mut children, &mut stack, stats) {
            return Pass::Limit(LimitHit::Memory);
        }
    }
    Pass::Exceeded(exceeded)
}

/// The bytes a buffer of a pass holds (its capacity).
fn bytes_of<T>(buffer: &Vec<T>) -> u64 {
    (buffer.capacity() * std::mem::size_of::<T>()) as u64
}

/// Doubles the capacity of a full `buffer` of a pass if, with the `other` buffer's bytes, it stays
/// within `budget` and the memory can be had (and counts the new peak); false otherwise.
fn grow<T>(buffer: &mut Vec<T>, other: u64, budget: u64, stats: &mut Stats) -> bool {
    let capacity = (2 * buffer.capacity()).max(64);
    let bytes = (capacity as u64).saturating_mul(std::mem::size_of::<T>() as u64).saturating_add(other);
    if bytes > budget || buffer.try_reserve_exact(capacity - buffer.len()).is_err() {
        return false;
    }
    stats.peak_bytes = stats.peak_bytes.max(bytes_of(buffer) + other);
    true
}

/// IDA*: bounded passes with bounds `h(start)`, then the smallest `f` that exceeded the last
/// bound, until a goal is found. Optimal for admissible `h`; with `h = 0` this is IDDFS.
pub fn idastar<D, H>(domain: &D, h: H, limits: &Limits) -> SearchResult<D::Key>
where
    D: Domain,
    H: Fn(&D::Key) -> u32,
{
    let clock = Instant::now();
    let mut stats = Stats::default();
    let mut bound = h(&domain.start());
    let outcome = loop {
        match bounded_pass(domain, &h, bound, limits, &mut stats) {
            Pass::Found(path) => break Outcome::Found(path),
            Pass::Limit(hit) => break Outcome::Limit(hit),
            Pass::Exceeded(None) => break Outcome::Exhausted,
            Pass::Exceeded(Some(next)) => bound = next,
        }
    };
    stats.wall_s = clock.elapsed().as_secs_f64();
    SearchResult { outcome, stats }
}

/// Depth-limited DFS: the first solution within `depth` moves in move order (not necessarily the
/// shortest); `Exhausted` when there is none within the limit.
pub fn depth_limited<D: Domain>(domain: &D, depth: u32, limits: &Limits) -> SearchResult<D::Key> {
    let clock = Instant::now();
    let mut stats = Stats::default();
    let outcome = match bounded_pass(domain, &|_: &D::Key| 0, depth, limits, &mut stats) {
        Pass::Found(path) => Outcome::Found(path),
        Pass::Limit(hit) => Outcome::Limit(hit),
        Pass::Exceeded(_) => Outcome::Exhausted,
    };
    stats.wall_s = clock.elapsed().as_secs_f64();
    SearchResult { outcome, stats }
}
