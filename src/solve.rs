//! Solving one puzzle end to end: parity pre-check, compile, search, turn states into moves,
//! verify the moves on the puzzle model.

use crate::domain::{CompileError, Domain, DomainTask, with_domain};
use crate::parity::tile_solvability;
use crate::puzzle::{Dir, Metric, Puzzle};
use crate::search::bfs::bfs;
use crate::search::bidir::{NeedsFullGoal, bidirectional};
use crate::search::frontier::EngineOptions;
use crate::search::reference::reference_bfs;
use crate::search::{LimitHit, Limits, Outcome, SearchResult, Stats};
use crate::solution::Move;
use crate::verify::verify;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

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
}

impl FromStr for Algo {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "bfs" => Ok(Algo::Bfs),
            "bidir" => Ok(Algo::Bidir),
            "reference" => Ok(Algo::Reference),
            other => Err(format!("unknown algorithm '{other}' (expected bfs, bidir or reference)")),
        }
    }
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Algo::Bfs => "bfs",
            Algo::Bidir => "bidir",
            Algo::Reference => "reference",
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
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions { algo: Algo::Bfs, limits: Limits::default(), engine: EngineOptions::default() }
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

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Solved => "solved",
            Status::Unsolvable => "unsolvable",
            Status::Timeout => "timeout",
            Status::Limit => "limit",
            Status::Error => "error",
        })
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

/// Solves `puzzle`; every solution returned has passed the independent verifier.
pub fn solve(puzzle: &Puzzle, options: &SolveOptions) -> Result<Report, SolveError> {
    if tile_solvability(puzzle) == Some(false) {
        return Ok(Report {
            status: Status::Unsolvable,
            moves: None,
            stats: Stats::default(),
            message: Some("unsolvable by permutation parity".into()),
        });
    }
    let mut report = with_domain(puzzle, SolveTask { puzzle, options })??;
    if let Some(moves) = &report.moves
        && let Err(e) = verify(puzzle, moves)
    {
        report.status = Status::Error;
        report.message = Some(format!("internal error: the solution found fails verification: {e}"));
        report.moves = None;
    }
    Ok(report)
}

struct SolveTask<'a> {
    puzzle: &'a Puzzle,
    options: &'a SolveOptions,
}

impl DomainTask for SolveTask<'_> {
    type Output = Result<Report, SolveError>;
    fn run<D: Domain>(self, domain: &D) -> Result<Report, SolveError> {
        let (limits, engine) = (&self.options.limits, self.options.engine);
        let result: SearchResult<D::Key> = match self.options.algo {
            Algo::Bfs => bfs(domain, limits, engine),
            Algo::Bidir => bidirectional(domain, limits, engine)?,
            Algo::Reference => reference_bfs(domain, limits),
        };
        let stats = result.stats;
        Ok(match result.outcome {
            Outcome::Found(path) => Report {
                status: Status::Solved,
                moves: Some(moves_from_path(self.puzzle, domain, &path)),
                stats,
                message: None,
            },
            Outcome::Exhausted => Report {
                status: Status::Unsolvable,
                moves: None,
                message: Some(format!("no solution among {} reachable states", stats.stored)),
                stats,
            },
            Outcome::Limit(hit) => Report {
                status: if hit == LimitHit::Time { Status::Timeout } else { Status::Limit },
                moves: None,
                message: Some(format!("{hit} after {} states", stats.stored)),
                stats,
            },
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
