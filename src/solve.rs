//! Solving one puzzle end to end: parity pre-check, compile, search, turn states into moves,
//! verify the moves on the puzzle model.

use crate::domain::{CompileError, Domain, DomainTask, with_domain};
use crate::heuristic::pdb::{PdbError, PdbOptions};
use crate::heuristic::{HeuristicKind, TileHeuristic};
use crate::parity::tile_solvability;
use crate::puzzle::{Dir, Family, Goal, Metric, Puzzle};
use crate::search::best_first::{Priority, best_first};
use crate::search::bfs::bfs;
use crate::search::bidir::{NeedsFullGoal, bidirectional};
use crate::search::constructive::{StepLimits, constructive};
use crate::search::depth_first::{depth_limited, idastar};
use crate::search::frontier::EngineOptions;
use crate::search::reference::reference_bfs;
use crate::search::tile_idastar::tile_idastar;
use crate::search::{LimitHit, Limits, Outcome, SearchResult, Stats};
use crate::solution::Move;
use crate::verify::verify;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// A search algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algo {
    /// Parallel frontier breadth-first search.
    Bfs,
    /// Bidirectional breadth-first search (fully specified goals only).
    Bidir,
    /// The sequential reference BFS (for cross-checking).
    Reference,
    /// Depth-limited depth-first search (`depth`); the first solution found, not the shortest.
    Dfs,
    /// Iterative-deepening depth-first search.
    Iddfs,
    /// Greedy best-first search on the heuristic; fast, not optimal.
    Greedy,
    /// A* with the heuristic.
    Astar,
    /// IDA* with the heuristic.
    Idastar,
    /// The constructive row-and-column method for tile puzzles of any size; not optimal.
    Constructive,
}

impl Algo {
    /// Whether the algorithm always returns a shortest solution (given an admissible heuristic).
    pub fn is_optimal(self) -> bool {
        !matches!(self, Algo::Dfs | Algo::Greedy | Algo::Constructive)
    }

    /// Whether the algorithm searches depth-first, storing only its path (no visited states).
    pub fn is_depth_first(self) -> bool {
        matches!(self, Algo::Dfs | Algo::Iddfs | Algo::Idastar)
    }

    /// Whether the algorithm uses a heuristic.
    pub fn is_informed(self) -> bool {
        matches!(self, Algo::Greedy | Algo::Astar | Algo::Idastar)
    }
}

impl FromStr for Algo {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "bfs" => Ok(Algo::Bfs),
            "bidir" => Ok(Algo::Bidir),
            "reference" => Ok(Algo::Reference),
            "dfs" => Ok(Algo::Dfs),
            "iddfs" => Ok(Algo::Iddfs),
            "greedy" => Ok(Algo::Greedy),
            "astar" | "a*" => Ok(Algo::Astar),
            "idastar" | "ida*" => Ok(Algo::Idastar),
            "constructive" => Ok(Algo::Constructive),
            other => Err(format!(
                "unknown algorithm '{other}' (expected bfs, bidir, reference, dfs, iddfs, greedy, astar, idastar or constructive)"
            )),
        }
    }
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Algo::Bfs => "bfs",
            Algo::Bidir => "bidir",
            Algo::Reference => "reference",
            Algo::Dfs => "dfs",
            Algo::Iddfs => "iddfs",
            Algo::Greedy => "greedy",
            Algo::Astar => "astar",
            Algo::Idastar => "idastar",
            Algo::Constructive => "constructive",
        })
    }
}

/// How to solve.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// The algorithm.
    pub algo: Algo,
    /// Resource limits.
    pub limits: Limits,
    /// Frontier-engine settings (visited backend, trace).
    pub engine: EngineOptions,
    /// The heuristic for greedy, A* and IDA* (default: Manhattan for tile puzzles, zero otherwise).
    pub heuristic: Option<HeuristicKind>,
    /// The depth limit of depth-limited DFS.
    pub depth: u32,
    /// Pattern-database cache and build settings.
    pub pdb: PdbOptions,
    /// Replay every solution on the puzzle model before returning it.
    pub verify: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            algo: Algo::Bfs,
            limits: Limits::default(),
            engine: EngineOptions::default(),
            heuristic: None,
            depth: 50,
            pdb: PdbOptions::default(),
            verify: true,
        }
    }
}

/// Why a puzzle could not be searched at all.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SolveError {
    /// The puzzle does not compile into a search domain.
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// The algorithm needs a goal that fixes every piece.
    #[error(transparent)]
    NeedsFullGoal(#[from] NeedsFullGoal),
    /// The algorithm or heuristic applies to sliding-tile puzzles only.
    #[error("{0} applies to sliding-tile puzzles only")]
    TilesOnly(String),
    /// A pattern database could not be read or written.
    #[error("pattern database: {0}")]
    Pdb(String),
    /// Sliding tiles in the straight metric move several tiles at once, which a move list of
    /// single pieces cannot express.
    #[error("the straight (multi-tile) metric for sliding tiles is available in 'enumerate' only; use --metric unit")]
    MultiTile,
}

/// The result class of one solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A verified solution was found.
    Solved,
    /// Proven to have no solution.
    Unsolvable,
    /// Stopped by the time limit.
    Timeout,
    /// Stopped by a state or memory limit.
    Limit,
    /// Could not be solved because of an error.
    Error,
}

impl Status {
    /// Every status, in the order a summary counts them.
    pub const ALL: [Status; 5] = [Status::Solved, Status::Unsolvable, Status::Timeout, Status::Limit, Status::Error];

    /// Its name, as reports and results rows write it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Unsolvable => "unsolvable",
            Status::Timeout => "timeout",
            Status::Limit => "limit",
            Status::Error => "error",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The outcome of solving one puzzle.
#[derive(Clone, Debug)]
pub struct Report {
    /// How it ended.
    pub status: Status,
    /// The verified solution, when solved.
    pub moves: Option<Vec<Move>>,
    /// Search counters.
    pub stats: Stats,
    /// A short explanation (why unsolvable, which limit, what error).
    pub message: Option<String>,
}

/// Solves `puzzle`; every solution returned has passed the independent verifier. Its `wall_s`
/// is the whole call's: the tables built (move tables, a pattern database), the search and the
/// verification.
pub fn solve(puzzle: &Puzzle, options: &SolveOptions) -> Result<Report, SolveError> {
    let clock = std::time::Instant::now();
    let mut report = solve_untimed(puzzle, options)?;
    report.stats.wall_s = clock.elapsed().as_secs_f64();
    Ok(report)
}

/// [`solve`], its `wall_s` left as the search (if any) set it.
fn solve_untimed(puzzle: &Puzzle, options: &SolveOptions) -> Result<Report, SolveError> {
    // A reserve spent by an earlier puzzle of a batch is taken again if it can be.
    crate::reserve::rearm();
    if puzzle.family == Family::Tiles && puzzle.metric == Metric::Straight {
        return Err(SolveError::MultiTile);
    }
    if tile_solvability(puzzle) == Some(false) {
        return Ok(Report {
            status: Status::Unsolvable,
            moves: None,
            stats: Stats::default(),
            message: Some("unsolvable by permutation parity".into()),
        });
    }
    let mut report = if options.algo == Algo::Constructive {
        solve_constructively(puzzle, &options.limits)?
    } else {
        let heuristic = match tile_heuristic(puzzle, options)? {
            Ok(h) => h,
            Err(hit) => return Ok(stopped(hit, "while building the pattern database", Stats::default())),
        };
        let mut report = match (&heuristic, options.algo) {
            (Some(h), Algo::Idastar) => solve_tiles_idastar(puzzle, h, &options.limits),
            _ => match with_domain(
                puzzle,
                &options.limits,
                SolveTask { puzzle, options, heuristic: heuristic.as_deref() },
            ) {
                Err(CompileError::Timeout) => {
                    stopped(LimitHit::Time, "while compiling the move tables", Stats::default())
                }
                compiled => compiled??,
            },
        };
        // The pattern databases are held beside the search from its start to its end.
        let tables = heuristic.as_ref().map_or(0, |h| h.table_bytes());
        report.stats.peak_bytes = report.stats.peak_bytes.saturating_add(tables);
        report
    };
    if options.verify
        && let Some(moves) = &report.moves
        && let Err(e) = verify(puzzle, moves)
    {
        report.status = Status::Error;
        report.message = Some(format!("internal error: the solution found fails verification: {e}"));
        report.moves = None;
    }
    Ok(report)
}

/// Builds (or loads) whatever `solve` would need for this puzzle that outlives one puzzle, such as
/// a pattern database, so that a batch prepares it once before solving in parallel.
pub fn prepare(puzzle: &Puzzle, options: &SolveOptions) -> Result<(), SolveError> {
    tile_heuristic(puzzle, options).map(drop)
}

/// Whether `solve` with these options may need something that outlives one puzzle ([`prepare`]
/// builds it): a heuristic, which only informed algorithms use.
pub fn shares_preparation(options: &SolveOptions) -> bool {
    options.algo.is_informed()
}

/// The heuristic informed algorithms use on `puzzle` when none is given: manhattan on a tile
/// puzzle, zero (none) on any other.
pub fn default_heuristic(puzzle: &Puzzle) -> HeuristicKind {
    if tile_solvability(puzzle).is_some() { HeuristicKind::Manhattan } else { HeuristicKind::Zero }
}

/// The heuristic an informed algorithm needs (None: none), or the limit that stopped building it.
type Prepared = Result<Option<Arc<TileHeuristic>>, LimitHit>;

/// The heuristic for an informed algorithm, compiled for the puzzle's goal within the limits.
fn tile_heuristic(puzzle: &Puzzle, options: &SolveOptions) -> Result<Prepared, SolveError> {
    if !shares_preparation(options) {
        return Ok(Ok(None));
    }
    let kind = options.heuristic.unwrap_or_else(|| default_heuristic(puzzle));
    if kind == HeuristicKind::Zero {
        return Ok(Ok(None));
    }
    let tiles = tile_solvability(puzzle).is_some();
    let Goal::Layout(target) = &puzzle.goal else { return Err(SolveError::TilesOnly(format!("heuristic '{kind}'"))) };
    if !tiles || puzzle.board.cell_count() > 256 {
        return Err(SolveError::TilesOnly(format!("heuristic '{kind}' (on boards of at most 256 cells)")));
    }
    let goal: Vec<u8> = puzzle.numbered_cells(target).into_iter().map(|t| t as u8).collect();
    match TileHeuristic::shared(kind, puzzle.board.rows, puzzle.board.cols, &goal, &options.pdb, &options.limits) {
        Ok(h) => Ok(Ok(Some(h))),
        Err(PdbError::Limit(hit)) => Ok(Err(hit)),
        Err(e) => Err(SolveError::Pdb(e.to_string())),
    }
}

/// The report of a search that `hit` stopped; `when` says after how much work (or during what).
fn stopped(hit: LimitHit, when: &str, stats: Stats) -> Report {
    Report {
        status: if hit == LimitHit::Time { Status::Timeout } else { Status::Limit },
        moves: None,
        message: Some(format!("{hit} {when}")),
        stats,
    }
}

/// Bytes a move of the constructive solver's solution takes until it is printed: its blank
/// step, the tile move made of it, the verifier's replay and the printed solution (a 100x100
/// solve of 3,275,544 moves peaks at 514 MB of RSS with `--json`: 157 bytes a move).
const CONSTRUCTIVE_MOVE_BYTES: u64 = 160;

/// Runs the constructive solver and turns its blank steps into tile moves; the memory limit
/// bounds its steps ([`CONSTRUCTIVE_MOVE_BYTES`] each) and the deadline is checked as it steps.
fn solve_constructively(puzzle: &Puzzle, limits: &Limits) -> Result<Report, SolveError> {
    let clock = std::time::Instant::now();
    let (Some(true), Goal::Layout(target)) = (tile_solvability(puzzle), &puzzle.goal) else {
        return Err(SolveError::TilesOnly("the constructive solver".into()));
    };
    let (rows, cols) = (puzzle.board.rows, puzzle.board.cols);
    if rows < 2 || cols < 2 {
        return Err(SolveError::TilesOnly("the constructive solver (boards of at least 2x2)".into()));
    }
    let cells = puzzle.numbered_cells(&puzzle.start);
    let most_steps = (limits.memory() / CONSTRUCTIVE_MOVE_BYTES).min(u32::MAX as u64) as usize;
    let step_limits = StepLimits { most_steps, deadline: limits.deadline };
    let steps = match constructive(rows, cols, &cells, &puzzle.numbered_cells(target), step_limits) {
        Ok(steps) => steps.expect("a parity-solvable layout is solved by the constructive method"),
        Err((hit, peak_bytes)) => {
            let stats = Stats { wall_s: clock.elapsed().as_secs_f64(), peak_bytes, ..Stats::default() };
            return Ok(stopped(hit, "in the constructive solver", stats));
        }
    };
    let moves = tile_moves(cols, cells, &steps);
    let peak_bytes = moves.len() as u64 * CONSTRUCTIVE_MOVE_BYTES;
    let stats =
        Stats { depth: moves.len() as u32, wall_s: clock.elapsed().as_secs_f64(), peak_bytes, ..Stats::default() };
    Ok(Report { status: Status::Solved, moves: Some(moves), stats, message: None })
}

/// Turns the blank's steps on a tile layout into moves of the tiles (tile `t` is piece `t - 1`).
fn tile_moves(cols: usize, mut cells: Vec<u32>, steps: &[Dir]) -> Vec<Move> {
    let mut blank = cells.iter().position(|&t| t == 0).expect("one blank");
    let mut moves = Vec::with_capacity(steps.len());
    for d in steps {
        let (dr, dc) = d.delta();
        let next = ((blank / cols) as isize + dr) as usize * cols + ((blank % cols) as isize + dc) as usize;
        moves.push(Move { piece: cells[next] as usize - 1, path: vec![d.opposite()] });
        cells.swap(blank, next);
        blank = next;
    }
    moves
}

/// IDA* on the cell array with an incrementally updated heuristic (tile puzzles, any heuristic).
fn solve_tiles_idastar(puzzle: &Puzzle, heuristic: &TileHeuristic, limits: &Limits) -> Report {
    let Goal::Layout(target) = &puzzle.goal else { unreachable!("tile heuristics need a layout goal") };
    let cells = puzzle.numbered_cells(&puzzle.start);
    let bytes = |v: &[u32]| v.iter().map(|&t| t as u8).collect::<Vec<u8>>();
    let result =
        tile_idastar(puzzle.board.cols, &bytes(&cells), &bytes(&puzzle.numbered_cells(target)), heuristic, limits);
    let stats = result.stats;
    match result.outcome {
        Outcome::Found(steps) => Report {
            status: Status::Solved,
            moves: Some(tile_moves(puzzle.board.cols, cells, &steps)),
            stats,
            message: None,
        },
        Outcome::Exhausted => Report {
            status: Status::Unsolvable,
            moves: None,
            message: Some("no solution (search space exhausted)".into()),
            stats,
        },
        Outcome::Limit(hit) => stopped(hit, &format!("after {} expanded nodes", stats.expanded), stats),
    }
}

struct SolveTask<'a> {
    puzzle: &'a Puzzle,
    options: &'a SolveOptions,
    heuristic: Option<&'a TileHeuristic>,
}

impl DomainTask for SolveTask<'_> {
    type Output = Result<Report, SolveError>;
    fn run<D: Domain>(self, domain: &D) -> Result<Report, SolveError> {
        let (limits, engine) = (&self.options.limits, self.options.engine);
        let cells = self.puzzle.board.cell_count();
        let h = |k: &D::Key| -> u32 {
            let Some(heuristic) = self.heuristic else { return 0 };
            let mut buf = [0u8; 256];
            domain.tile_cells(k, &mut buf[..cells]);
            heuristic.estimate(&buf[..cells])
        };
        let result: SearchResult<D::Key> = match self.options.algo {
            Algo::Bfs => bfs(domain, limits, engine),
            Algo::Bidir => bidirectional(domain, limits, engine)?,
            Algo::Reference => reference_bfs(domain, limits),
            Algo::Dfs => depth_limited(domain, self.options.depth, limits),
            Algo::Iddfs => idastar(domain, |_: &D::Key| 0, limits),
            Algo::Greedy => best_first(domain, h, Priority::Greedy, limits),
            Algo::Astar => best_first(domain, h, Priority::AStar, limits),
            Algo::Idastar => idastar(domain, h, limits),
            Algo::Constructive => unreachable!("handled before compiling a domain"),
        };
        let stats = result.stats;
        Ok(match result.outcome {
            Outcome::Found(path) => Report {
                status: Status::Solved,
                moves: Some(moves_from_path(self.puzzle, domain, &path)),
                stats,
                message: None,
            },
            Outcome::Exhausted if self.options.algo == Algo::Dfs => Report {
                status: Status::Limit,
                moves: None,
                message: Some(format!("no solution within the depth limit of {} moves", self.options.depth)),
                stats,
            },
            Outcome::Exhausted => Report {
                status: Status::Unsolvable,
                moves: None,
                message: Some(format!("no solution among {} reachable states", stats.stored)),
                stats,
            },
            // Depth-first searches store no states; they count (and limit) expanded nodes.
            Outcome::Limit(hit) if self.options.algo.is_depth_first() => {
                stopped(hit, &format!("after {} expanded nodes", stats.expanded), stats)
            }
            Outcome::Limit(hit) => stopped(hit, &format!("after {} states", stats.stored), stats),
        })
    }
}

/// Turns a path of domain states into moves of real pieces (identical pieces are told apart by
/// following them from the start).
pub fn moves_from_path<D: Domain>(puzzle: &Puzzle, domain: &D, path: &[D::Key]) -> Vec<Move> {
    let mut anchors = puzzle.start.clone();
    let mut moves = Vec::with_capacity(path.len().saturating_sub(1));
    for pair in path.windows(2) {
        let (from, to) = domain.moved_anchor(&pair[0], &pair[1]).expect("adjacent states differ by one piece");
        let piece = anchors.iter().position(|&a| a == from).expect("some piece is at the moved anchor");
        let path = match puzzle.metric {
            Metric::Free => puzzle.path_alone(&anchors, piece, to).expect("the domain's free move has a path"),
            Metric::Unit | Metric::Straight => straight_path(from, to),
        };
        anchors[piece] = to;
        moves.push(Move { piece, path });
    }
    moves
}

fn straight_path(from: (usize, usize), to: (usize, usize)) -> Vec<Dir> {
    let (dir, n) = if from.0 == to.0 {
        if to.1 > from.1 { (Dir::Right, to.1 - from.1) } else { (Dir::Left, from.1 - to.1) }
    } else if to.0 > from.0 {
        (Dir::Down, to.0 - from.0)
    } else {
        (Dir::Up, from.0 - to.0)
    };
    vec![dir; n]
}
