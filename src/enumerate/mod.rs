//! Whole state spaces: every state reachable from a start, counted level by level.

use crate::domain::Domain;
use crate::search::frontier::{Engine, EngineOptions, Step};
use crate::search::{LimitHit, Limits, Stats};

/// The layer table of a state space.
#[derive(Clone, Debug)]
pub struct Enumeration<K> {
    /// `layers[d]` = number of states at distance `d` from the start.
    pub layers: Vec<u64>,
    /// The states of the last layer (the farthest from the start).
    pub farthest: Vec<K>,
    /// Counters.
    pub stats: Stats,
    /// The limit that stopped the enumeration early, if any (the table is then partial).
    pub stopped: Option<LimitHit>,
}

/// Breadth-first over everything reachable from `domain.start()`, keeping only the layers needed.
pub fn enumerate<D: Domain>(domain: &D, limits: &Limits, options: EngineOptions) -> Enumeration<D::Key> {
    let mut engine = Engine::new(domain, domain.start(), EngineOptions { keep_paths: false, ..options });
    let never = |_: &D::Key| false;
    let stopped = loop {
        match engine.step(&never, limits) {
            Step::Grew | Step::Found(_) => continue,
            Step::Exhausted => break None,
            Step::Limit(hit) => break Some(hit),
        }
    };
    Enumeration {
        layers: engine.layers().to_vec(),
        farthest: engine.frontier().to_vec(),
        stats: engine.stats(),
        stopped,
    }
}
