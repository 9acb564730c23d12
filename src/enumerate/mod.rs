//! Whole state spaces: every state reachable from a start, counted level by level
//! ([`enumerate`], [`table`]), and all legal placements split into components ([`components`]).

pub mod components;
pub mod perfect;

use crate::domain::{Budget, CompileError, Domain};
use crate::parity::tile_solvability;
use crate::puzzle::{Family, Metric, Puzzle};
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

/// Breadth-first over everything reachable from `domain.start()`, keeping only the layers needed;
/// `on_layer(depth, states)` is called as each layer is complete.
pub fn enumerate<D: Domain>(
    domain: &D,
    limits: &Limits,
    options: EngineOptions,
    on_layer: &mut dyn FnMut(usize, u64),
) -> Enumeration<D::Key> {
    let mut engine = Engine::new(domain, domain.start(), EngineOptions { keep_paths: false, ..options });
    let never = |_: &D::Key| false;
    let mut reported = 0;
    let stopped = loop {
        let step = engine.step(&never, limits);
        // A step that hits a limit may still have completed a layer.
        let layers = engine.layers();
        for (depth, &states) in layers.iter().enumerate().skip(reported) {
            on_layer(depth, states);
        }
        reported = layers.len();
        match step {
            Step::Grew | Step::Found(_) => continue,
            Step::Exhausted => break None,
            Step::Limit(hit) => break Some(hit),
        }
    };
    let (layers, stats) = (engine.layers().to_vec(), engine.stats());
    Enumeration { layers, farthest: engine.into_frontier(), stats, stopped }
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
    /// The table of a search stopped by `hit` before it began: the start alone (kept as a farthest
    /// state unless `farthest` is 0).
    fn stopped_at_start(puzzle: &Puzzle, farthest: usize, hit: LimitHit) -> Table {
        Table {
            layers: vec![1],
            farthest: if farthest > 0 { vec![puzzle.start.clone()] } else { Vec::new() },
            farthest_count: 1,
            stats: Stats { stored: 1, ..Stats::default() },
            stopped: Some(hit),
        }
    }

    /// Bytes it holds: the layer counts and the farthest states' anchors.
    pub fn bytes(&self) -> u64 {
        let anchors = |a: &Vec<crate::puzzle::Cell>| {
            std::mem::size_of::<Vec<crate::puzzle::Cell>>() + std::mem::size_of_val(a.as_slice())
        };
        let layers = std::mem::size_of_val(self.layers.as_slice());
        (layers + self.farthest.iter().map(anchors).sum::<usize>()) as u64
    }

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
    on_layer: &'a mut dyn FnMut(usize, u64),
}

impl crate::domain::DomainTask for TableTask<'_> {
    type Output = Table;
    fn run<D: Domain>(self, domain: &D) -> Table {
        let comm = crate::distributed::world();
        if comm.size() > 1 {
            // Several ranks: the distributed level BFS (it counts; no paths are kept).
            let clock = std::time::Instant::now();
            let l = crate::distributed::bfs::layers(domain, comm, self.limits, self.farthest, self.on_layer);
            if self.options.trace {
                trace_exchange(&l.exchanged);
            }
            let states: u64 = l.layers.iter().sum();
            return Table {
                farthest_count: *l.layers.last().expect("the start layer"),
                farthest: l.farthest.iter().map(|k| domain.anchors(k)).collect(),
                stats: Stats {
                    depth: (l.layers.len() - 1) as u32,
                    expanded: l.expanded,
                    generated: l.generated,
                    stored: states,
                    peak_bytes: l.peak_bytes,
                    wall_s: clock.elapsed().as_secs_f64(),
                },
                layers: l.layers,
                stopped: l.stopped,
            };
        }
        let e = enumerate(domain, self.limits, self.options, self.on_layer);
        Table {
            farthest_count: e.farthest.len() as u64,
            farthest: e.farthest.iter().take(self.farthest).map(|k| domain.anchors(k)).collect(),
            layers: e.layers,
            stats: e.stats,
            stopped: e.stopped,
        }
    }
}

/// Which enumerator computes a table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TableEngine {
    /// The perfect-hash bit arrays for tile puzzles of 3 to 14 cells (within `--max-memory`),
    /// the frontier engine otherwise.
    #[default]
    Auto,
    /// The perfect-hash bit arrays ([`perfect`]); tile puzzles only.
    Perfect,
    /// The general frontier BFS over packed keys.
    Frontier,
}

impl std::str::FromStr for TableEngine {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(TableEngine::Auto),
            "perfect" => Ok(TableEngine::Perfect),
            "frontier" => Ok(TableEngine::Frontier),
            other => Err(format!("unknown engine '{other}' (expected auto, perfect or frontier)")),
        }
    }
}

/// Why a table could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The puzzle does not compile.
    #[error(transparent)]
    Compile(#[from] crate::domain::CompileError),
    /// The requested engine does not apply.
    #[error("{0}")]
    Unsupported(String),
}

/// With `--trace` over several ranks: one line per layer with the words all ranks sent each other.
fn trace_exchange(exchanged: &[u64]) {
    for (depth, words) in exchanged.iter().enumerate() {
        crate::traceln!("depth {depth:>4}: {words:>14} words ({} bytes) exchanged between ranks", 8 * words);
    }
}

/// How many states the complete table of `puzzle` has, when that is known in advance and fits in
/// a `u64`: `N!/2` for a sliding-tile puzzle of at least 2×2 and at most 20 cells (exactly the
/// layouts of the start's parity class; 21!/2 is past `u64::MAX`).
pub fn expected_states(puzzle: &Puzzle) -> Option<u64> {
    let board = &puzzle.board;
    let tiles = tile_solvability(puzzle).is_some() && board.rows >= 2 && board.cols >= 2;
    tiles.then(|| (3..=board.cell_count() as u64).try_fold(1u64, |n, k| n.checked_mul(k))).flatten()
}

/// Enumerates everything reachable from the puzzle's start; keeps up to `farthest` last-layer
/// states; `on_layer(depth, states)` is called as each layer is complete (with `options.trace`
/// the engines also print a line per layer). Sliding-tile puzzles in the straight metric slide
/// several tiles of a row or column at once (the multi-tile metric), which only the perfect-hash
/// engine implements.
pub fn table(
    puzzle: &Puzzle,
    limits: &Limits,
    options: EngineOptions,
    farthest: usize,
    engine: TableEngine,
    on_layer: &mut dyn FnMut(usize, u64),
) -> Result<Table, TableError> {
    let n = puzzle.board.cell_count();
    let tiles = tile_solvability(puzzle).is_some();
    let multi_tile = tiles && puzzle.family == Family::Tiles && puzzle.metric == Metric::Straight;
    let cells_ok = (perfect::MIN_CELLS..=perfect::MAX_CELLS).contains(&n);
    let ranks = crate::distributed::world().size();
    let metric = if multi_tile { Metric::Straight } else { Metric::Unit };
    let (rows, cols) = (puzzle.board.rows, puzzle.board.cols);
    let memory_ok = perfect::bytes_per_rank(rows, cols, metric, ranks) <= limits.memory();
    // Why the perfect-hash engine does not fit the memory budget.
    let over_budget = || {
        format!(
            "the perfect-hash engine needs {} bytes for {n} cells{}, more than {}",
            perfect::bytes_per_rank(rows, cols, metric, ranks),
            if ranks > 1 { format!(" on each of {ranks} ranks") } else { String::new() },
            match limits.max_memory {
                Some(asked) if asked <= limits.memory() => "--max-memory".to_string(),
                Some(_) => format!(
                    "--max-memory, lowered to what this process can have ({})",
                    crate::memory::human(limits.memory())
                ),
                None => format!("the default memory limit ({})", crate::memory::human(limits.memory())),
            }
        )
    };
    let use_perfect = match engine {
        TableEngine::Perfect if !tiles => {
            return Err(TableError::Unsupported("the perfect-hash engine enumerates sliding-tile puzzles only".into()));
        }
        TableEngine::Perfect if !cells_ok => {
            return Err(TableError::Unsupported(format!(
                "the perfect-hash engine takes boards of {} to {} cells, this one has {n}",
                perfect::MIN_CELLS,
                perfect::MAX_CELLS
            )));
        }
        TableEngine::Perfect if !memory_ok => return Err(TableError::Unsupported(over_budget())),
        TableEngine::Perfect => true,
        TableEngine::Auto => tiles && cells_ok && memory_ok,
        TableEngine::Frontier => false,
    };
    if multi_tile && !use_perfect {
        let why = match (cells_ok, memory_ok) {
            (false, _) => format!("boards of {} to {} cells", perfect::MIN_CELLS, perfect::MAX_CELLS),
            (true, false) => over_budget(),
            (true, true) => "not --engine frontier".to_string(),
        };
        return Err(TableError::Unsupported(format!(
            "the straight (multi-tile) metric for sliding tiles needs the perfect-hash engine ({why})"
        )));
    }
    if !use_perfect {
        // Over several ranks each compiles alone: a deadline one rank met and another did not
        // would leave the others waiting for it, so there the clock starts with the search.
        let budget = match crate::distributed::world().size() {
            1 => Budget::from(limits),
            _ => Budget::from(limits.memory()),
        };
        // Its wall time counts the move tables built as well as the search.
        let clock = std::time::Instant::now();
        let mut table =
            match crate::domain::with_domain(puzzle, budget, TableTask { limits, options, farthest, on_layer }) {
                Err(CompileError::Timeout) => {
                    on_layer(0, 1);
                    Table::stopped_at_start(puzzle, farthest, LimitHit::Time)
                }
                table => table?,
            };
        table.stats.wall_s = clock.elapsed().as_secs_f64();
        return Ok(table);
    }
    let start = puzzle.numbered_cells(&puzzle.start);
    let clock = std::time::Instant::now();
    let mut observe = |depth: usize, states: u64| {
        if options.trace {
            crate::traceln!("depth {depth:>4}: {states:>14} states ({:.2} s)", clock.elapsed().as_secs_f64());
        }
        on_layer(depth, states);
    };
    let t = perfect::enumerate_tiles(rows, cols, &start, metric, farthest, limits, &mut observe)
        .map_err(|e| TableError::Unsupported(e.to_string()))?;
    if options.trace && ranks > 1 {
        trace_exchange(&t.exchanged);
    }
    let anchors = |cells: &Vec<u32>| {
        let mut a = vec![(0, 0); puzzle.pieces.len()];
        for (cell, &t) in cells.iter().enumerate().filter(|&(_, &t)| t != 0) {
            a[t as usize - 1] = (cell / cols, cell % cols);
        }
        a
    };
    let states: u64 = t.layers.iter().sum();
    Ok(Table {
        farthest: t.farthest.iter().map(anchors).collect(),
        farthest_count: t.farthest_count,
        stats: Stats {
            depth: (t.layers.len() - 1) as u32,
            expanded: states,
            stored: states,
            peak_bytes: t.peak_bytes,
            wall_s: t.wall_s,
            ..Stats::default()
        },
        layers: t.layers,
        stopped: t.stopped,
    })
}
