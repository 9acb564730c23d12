//! Best-first search with a heuristic: A* (`f = g + h`, optimal for admissible `h`, re-opening
//! states when a shorter path turns up) and greedy best-first (`f = h`, fast, not optimal).
//!
//! One loop serves both. The open list is a binary heap ordered by `f`, then (A* only) by larger
//! `g`, then by insertion order, so runs are deterministic. Greedy never re-opens a state it has
//! seen. The goal is tested when a state is taken from the open list.

use super::{Growth, Limits, Outcome, SearchResult, Stats};
use crate::domain::Domain;
use crate::memory;
use hashbrown::HashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// What orders the open list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// `g + h`: A*, optimal when `h` is admissible.
    AStar,
    /// `h` alone: greedy best-first, usually much faster, not optimal.
    Greedy,
}

/// An open-list entry: priority (`f`, tie-break), insertion order, `g` and the state.
type Open<K> = (Reverse<u32>, u32, Reverse<u64>, u32, K);

/// Best-first search from `domain.start()` guided by `h`.
pub fn best_first<D, H>(domain: &D, h: H, priority: Priority, limits: &Limits) -> SearchResult<D::Key>
where
    D: Domain,
    H: Fn(&D::Key) -> u32,
{
    let clock = Instant::now();
    let start = domain.start();
    let mut stats = Stats::default();
    let entry = std::mem::size_of::<(D::Key, (u32, D::Key))>() as u64;
    let mut best: HashMap<D::Key, (u32, D::Key)> = HashMap::from([(start, (0, start))]);
    let mut open: BinaryHeap<Open<D::Key>> = BinaryHeap::new();
    let mut sequence = 0u64;
    // (f, tie-break on g): A* prefers deeper states among equal f; greedy ignores g (FIFO ties).
    let rank = |g: u32, hv: u32| match priority {
        Priority::AStar => (Reverse(g + hv), g),
        Priority::Greedy => (Reverse(hv), 0),
    };
    let (f0, t0) = rank(0, h(&start));
    open.push((f0, t0, Reverse(sequence), 0u32, start));
    let mut scratch = domain.scratch();
    let opened = std::mem::size_of::<Open<D::Key>>() as u64;
    // The most children one expansion generated so far: the room the next one may need.
    let mut room = 0;
    let (mut best_growth, mut open_growth) = (Growth::default(), Growth::default());
    let outcome = loop {
        let Some((_, _, _, g, key)) = open.pop() else { break Outcome::Exhausted };
        if best.get(&key).is_some_and(|&(bg, _)| bg < g) {
            continue;
        }
        if domain.is_goal(&key) {
            let mut path = vec![key];
            let mut at = key;
            while at != start {
                at = best[&at].1;
                path.push(at);
            }
            path.reverse();
            stats.depth = g;
            break Outcome::Found(path);
        }
        // Limits are checked before every expansion against what the structures would hold if it
        // made them grow (the clock only every 1024 expansions).
        let bytes = |room| {
            memory::table_bytes(best.len(), best.capacity(), entry, room)
                + memory::vec_bytes(open.len(), open.capacity(), opened, room)
        };
        stats.peak_bytes = stats.peak_bytes.max(bytes(0));
        let hit = match stats.expanded.is_multiple_of(1024) {
            true => limits.exceeded(best.len() as u64, bytes(room)),
            false => limits.over(best.len() as u64, bytes(room)),
        };
        if let Some(hit) = hit {
            break Outcome::Limit(hit);
        }
        let before = stats.generated;
        stats.expanded += 1;
        stats.depth = stats.depth.max(g);
        let mut stopped = None;
        domain.for_each_successor(&key, &mut scratch, |child| {
            stats.generated += 1;
            let cg = g + 1;
            let seen = best.get(&child);
            if stopped.is_some() || seen.is_some_and(|&(bg, _)| bg <= cg || priority == Priority::Greedy) {
                return;
            }
            // A full table or open list grows here, checked: memory the process cannot have stops
            // the search at the memory limit instead of aborting it, and a deadline too near for
            // the growth stops it before.
            let deadline = limits.deadline;
            let grown =
                best_growth.room(best.len() == best.capacity(), deadline, || best.try_reserve(1).is_ok()).and_then(
                    |()| open_growth.room(open.len() == open.capacity(), deadline, || open.try_reserve(1).is_ok()),
                );
            if let Err(hit) = grown {
                stopped = Some(hit);
                return;
            }
            best.insert(child, (cg, key));
            sequence += 1;
            let (f, tie) = rank(cg, h(&child));
            open.push((f, tie, Reverse(sequence), cg, child));
        });
        room = room.max((stats.generated - before) as usize);
        if let Some(hit) = stopped {
            break Outcome::Limit(hit);
        }
    };
    stats.stored = best.len() as u64;
    stats.wall_s = clock.elapsed().as_secs_f64();
    SearchResult { outcome, stats }
}
