//! Bidirectional breadth-first search for fully specified goals.
//!
//! Two frontier [`Engine`]s, one from the start and one from the goal state (moves are reversible,
//! so both use the same successors). The side with the smaller frontier expands one whole level;
//! a new state of that side can only meet the other side's current frontier, and the first such
//! state in sequential order is the meeting point. The path is optimal and, like every count,
//! independent of the number of threads.

use super::frontier::{Engine, EngineOptions, Step};
use super::{Limits, Outcome, SearchResult, Stats};
use crate::domain::Domain;
use rayon::prelude::*;
use thiserror::Error;

/// Bidirectional search was asked for a puzzle whose goal does not fix a single state.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("bidirectional search needs a fully specified goal (a full target layout or a tile puzzle)")]
pub struct NeedsFullGoal;

/// Shortest path from `domain.start()` to `domain.goal_key()`, searched from both ends.
pub fn bidirectional<D: Domain>(
    domain: &D,
    limits: &Limits,
    options: EngineOptions,
) -> Result<SearchResult<D::Key>, NeedsFullGoal> {
    let goal = domain.goal_key().ok_or(NeedsFullGoal)?;
    let start = domain.start();
    if start == goal {
        return Ok(SearchResult {
            outcome: Outcome::Found(vec![start]),
            stats: Stats { stored: 1, ..Stats::default() },
        });
    }
    // The meeting test asks whether a state is in the other side's frontier: no bit array.
    let options = EngineOptions { keep_paths: true, dense: false, closed: false, ..options };
    let mut forward = Engine::new(domain, start, options);
    let mut backward = Engine::new(domain, goal, options);
    // Both sides are held at once: the peak is that of the side stepping plus the other side.
    let mut peak_bytes = forward.step_peak() + backward.step_peak();
    let outcome = loop {
        let forward_turn = forward.frontier().len() <= backward.frontier().len();
        let (side, other) = if forward_turn { (&mut forward, &backward) } else { (&mut backward, &forward) };
        // The limits cover both sides: this side gets what the other leaves.
        let left = limits.less(other.stats().stored, other.bytes_held());
        let step = side.step(&|k: &D::Key| other.frontier_contains(k), &left);
        peak_bytes = peak_bytes.max(side.step_peak() + other.bytes_held());
        match step {
            Step::Grew => continue,
            Step::Exhausted => break Outcome::Exhausted,
            Step::Limit(hit) => break Outcome::Limit(hit),
            Step::Found(i) => {
                let meet = side.frontier()[i];
                let j = other
                    .frontier()
                    .par_iter()
                    .position_first(|k| *k == meet)
                    .expect("the meeting state is in the other frontier");
                let mut path = side.path_to(i);
                let mut rest = other.path_to(j);
                rest.pop();
                rest.reverse();
                path.extend(rest);
                if !forward_turn {
                    path.reverse();
                }
                break Outcome::Found(path);
            }
        }
    };
    let (f, b) = (forward.stats(), backward.stats());
    let stats = Stats {
        depth: match &outcome {
            Outcome::Found(p) => (p.len() - 1) as u32,
            _ => f.depth + b.depth,
        },
        expanded: f.expanded + b.expanded,
        generated: f.generated + b.generated,
        stored: f.stored + b.stored,
        peak_bytes,
        wall_s: f.wall_s.max(b.wall_s),
    };
    Ok(SearchResult { outcome, stats })
}
