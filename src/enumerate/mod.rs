//! Whole state spaces: every state reachable from a start, counted level by level
//! ([`enumerate`], [`table`]), and all legal placements split into components ([`components`]).

pub mod components;

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

/// An enumeration translated back to the puzzle: layer counts and the farthest positions.
#[derive(Clone, Debug)]
pub struct Table {
    /// `layers[d]` = number of states at distance `d`.
    pub layers: Vec<u64>,
    /// Anchors of up to the requested number of farthest states.
    pub farthest: Vec<Vec<crate::puzzle::Cell>>,
    /// Number of states in the last layer.
    pub farthest_count: u64,
    /// Counters.
    pub stats: Stats,
    /// The limit that stopped the enumeration early (the table is then partial).
    pub stopped: Option<LimitHit>,
}

impl Table {
    /// Total number of states.
    pub fn states(&self) -> u64 {
        self.layers.iter().sum()
    }

    /// The largest depth (eccentricity of the start).
    pub fn max_depth(&self) -> usize {
        self.layers.len() - 1
    }

    /// The size of the largest layer and its depth.
    pub fn largest_layer(&self) -> (u64, usize) {
        self.layers
            .iter()
            .enumerate()
            .map(|(d, &n)| (n, d))
            .max_by_key(|&(n, d)| (n, std::cmp::Reverse(d)))
            .unwrap_or((0, 0))
    }
}

struct TableTask<'a> {
    limits: &'a Limits,
    options: EngineOptions,
    farthest: usize,
}

impl crate::domain::DomainTask for TableTask<'_> {
    type Output = Table;
    fn run<D: Domain>(self, domain: &D) -> Table {
        let e = enumerate(domain, self.limits, self.options);
        Table {
            farthest_count: e.farthest.len() as u64,
            farthest: e.farthest.iter().take(self.farthest).map(|k| domain.anchors(k)).collect(),
            layers: e.layers,
            stats: e.stats,
            stopped: e.stopped,
        }
    }
}

/// Enumerates everything reachable from the puzzle's start; keeps up to `farthest` last-layer states.
pub fn table(
    puzzle: &crate::puzzle::Puzzle,
    limits: &Limits,
    options: EngineOptions,
    farthest: usize,
) -> Result<Table, crate::domain::CompileError> {
    crate::domain::with_domain(puzzle, TableTask { limits, options, farthest })
}
