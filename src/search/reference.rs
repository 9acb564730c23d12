//! The sequential reference BFS: a plain queue and one hash map from state to parent.
//!
//! Deliberately simple; every faster engine must reproduce its answer and its counts exactly. The
//! goal is tested as each new state is generated (the CS 351 rule), so the solution returned is
//! the first one a sequential queue meets in the domain's move order. Like every BFS here it asks
//! the domain for a state's successors given the state's parent, so `generated` counts the same.

use super::{Growth, Limits, Outcome, SearchResult, Stats};
use crate::domain::Domain;
use crate::memory;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

/// Breadth-first search from `domain.start()` to the first goal state generated.
pub fn reference_bfs<D: Domain>(domain: &D, limits: &Limits) -> SearchResult<D::Key> {
    let clock = Instant::now();
    let start = domain.start();
    let mut stats = Stats { stored: 1, ..Stats::default() };
    let entry = std::mem::size_of::<(D::Key, D::Key)>() as u64;
    let queued = std::mem::size_of::<(D::Key, u32)>() as u64;
    let finish = |mut stats: Stats, outcome| {
        stats.wall_s = clock.elapsed().as_secs_f64();
        SearchResult { outcome, stats }
    };
    if domain.is_goal(&start) {
        return finish(stats, Outcome::Found(vec![start]));
    }
    let mut parent: HashMap<D::Key, D::Key> = HashMap::new();
    parent.insert(start, start);
    let mut queue = VecDeque::from([(start, 0u32)]);
    let mut scratch = domain.scratch();
    // The most states one expansion added so far: the room the next one may need.
    let mut room = 0;
    let (mut parent_growth, mut queue_growth) = (Growth::default(), Growth::default());
    while let Some((key, depth)) = queue.pop_front() {
        stats.depth = depth;
        // Limits are checked before every expansion against what the structures would hold if it
        // made them grow (the clock only every 1024 expansions).
        let bytes = |room| {
            memory::table_bytes(parent.len(), parent.capacity(), entry, room)
                + memory::vec_bytes(queue.len(), queue.capacity(), queued, room)
        };
        stats.peak_bytes = stats.peak_bytes.max(bytes(0));
        let hit = match stats.expanded.is_multiple_of(1024) {
            true => limits.exceeded(stats.stored, bytes(room)),
            false => limits.over(stats.stored, bytes(room)),
        };
        if let Some(hit) = hit {
            return finish(stats, Outcome::Limit(hit));
        }
        let before = stats.stored;
        stats.expanded += 1;
        let (mut found, mut stopped) = (None, None);
        let from = parent.get(&key).copied().filter(|p| *p != key);
        domain.for_each_successor_from(&key, from.as_ref(), &mut scratch, |child| {
            if found.is_some() || stopped.is_some() {
                return;
            }
            stats.generated += 1;
            if parent.contains_key(&child) {
                return;
            }
            // A full table or queue grows here, checked: memory the process cannot have stops the
            // search at the memory limit instead of aborting it, and a deadline too near for the
            // growth stops it before.
            let deadline = limits.deadline;
            let grown = parent_growth
                .room(parent.len() == parent.capacity(), deadline, || parent.try_reserve(1).is_ok())
                .and_then(|()| {
                    queue_growth.room(queue.len() == queue.capacity(), deadline, || queue.try_reserve(1).is_ok())
                });
            if let Err(hit) = grown {
                stopped = Some(hit);
                return;
            }
            parent.insert(child, key);
            stats.stored += 1;
            if domain.is_goal(&child) {
                found = Some(child);
            } else {
                queue.push_back((child, depth + 1));
            }
        });
        room = room.max((stats.stored - before) as usize);
        if let Some(hit) = stopped {
            return finish(stats, Outcome::Limit(hit));
        }
        if let Some(goal) = found {
            let mut path = vec![goal];
            let mut at = goal;
            while at != start {
                at = parent[&at];
                path.push(at);
            }
            path.reverse();
            stats.depth = depth + 1;
            return finish(stats, Outcome::Found(path));
        }
    }
    finish(stats, Outcome::Exhausted)
}
