//! Parallel breadth-first search to the first goal state, on the frontier [`Engine`].
//!
//! Same solution and counts as [`reference_bfs`](super::reference::reference_bfs) for any number
//! of threads.

use super::frontier::{Engine, EngineOptions, Step};
use super::{Limits, Outcome, SearchResult, Stats};
use crate::domain::Domain;

/// Breadth-first search from `domain.start()` to the first goal state generated.
pub fn bfs<D: Domain>(domain: &D, limits: &Limits, options: EngineOptions) -> SearchResult<D::Key> {
    let start = domain.start();
    if domain.is_goal(&start) {
        return SearchResult { outcome: Outcome::Found(vec![start]), stats: Stats { stored: 1, ..Stats::default() } };
    }
    let mut engine = Engine::new(domain, start, EngineOptions { keep_paths: true, ..options });
    let is_goal = |k: &D::Key| domain.is_goal(k);
    loop {
        let outcome = match engine.step(&is_goal, limits) {
            Step::Grew => continue,
            Step::Found(i) => Outcome::Found(engine.path_to(i)),
            Step::Exhausted => Outcome::Exhausted,
            Step::Limit(hit) => Outcome::Limit(hit),
        };
        return SearchResult { outcome, stats: engine.stats() };
    }
}
