//! Heuristics for sliding-tile puzzles: misplaced tiles, Manhattan distance, linear conflict and
//! additive disjoint pattern databases ([`pdb`]). All are admissible; every one works for any
//! m×n board and any goal layout.

pub mod pdb;

use crate::search::Limits;
use pdb::{AdditivePdb, PdbError, PdbOptions, PdbState};
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, LazyLock, Mutex, OnceLock, PoisonError};

/// Which heuristic guides A*, IDA* and greedy search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HeuristicKind {
    /// Always 0 (turns A* into uniform-cost search and IDA* into IDDFS).
    Zero,
    /// Number of tiles not on their goal cell.
    Misplaced,
    /// Sum of the tiles' Manhattan distances to their goal cells.
    Manhattan,
    /// Manhattan plus two moves for every tile that must leave its row or column to let others pass.
    LinearConflict,
    /// Additive disjoint pattern databases (6-6-3 for 15 tiles, 6-6-6-6 for 24, …).
    Pdb,
}

impl FromStr for HeuristicKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "zero" | "none" => Ok(HeuristicKind::Zero),
            "misplaced" => Ok(HeuristicKind::Misplaced),
            "manhattan" => Ok(HeuristicKind::Manhattan),
            "linear-conflict" | "lc" => Ok(HeuristicKind::LinearConflict),
            "pdb" => Ok(HeuristicKind::Pdb),
            other => Err(format!(
                "unknown heuristic '{other}' (expected zero, misplaced, manhattan, linear-conflict or pdb)"
            )),
        }
    }
}

impl fmt::Display for HeuristicKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HeuristicKind::Zero => "zero",
            HeuristicKind::Misplaced => "misplaced",
            HeuristicKind::Manhattan => "manhattan",
            HeuristicKind::LinearConflict => "linear-conflict",
            HeuristicKind::Pdb => "pdb",
        })
    }
}

/// A heuristic compiled for one board size and goal layout.
pub struct TileHeuristic {
    kind: HeuristicKind,
    rows: usize,
    cols: usize,
    /// Goal cell of every tile (index 0, the blank, unused).
    goal_cell: Vec<u8>,
    /// `distance[tile * n + cell]`: Manhattan distance from `cell` to the tile's goal cell (0 for
    /// the blank, so sums over all cells need no special case).
    distance: Vec<u8>,
    pdb: Option<AdditivePdb>,
}

impl TileHeuristic {
    /// Compiles `kind` for a `rows × cols` board whose goal has tile `goal[cell]` in each cell
    /// (building pattern databases within `limits`).
    pub fn new(
        kind: HeuristicKind,
        rows: usize,
        cols: usize,
        goal: &[u8],
        pdb: &PdbOptions,
        limits: &Limits,
    ) -> Result<Self, PdbError> {
        let n = rows * cols;
        let mut goal_cell = vec![0u8; n];
        for (cell, &t) in goal.iter().enumerate() {
            goal_cell[t as usize] = cell as u8;
        }
        let mut distance = vec![0u8; n * n];
        for t in 1..n {
            let g = goal_cell[t] as usize;
            for c in 0..n {
                distance[t * n + c] = ((c / cols).abs_diff(g / cols) + (c % cols).abs_diff(g % cols)) as u8;
            }
        }
        let pdb = match kind {
            HeuristicKind::Pdb => Some(AdditivePdb::load_or_build(rows, cols, goal, pdb, limits)?),
            _ => None,
        };
        Ok(TileHeuristic { kind, rows, cols, goal_cell, distance, pdb })
    }

    /// Like [`TileHeuristic::new`], but compiled once per process for each board, goal and PDB
    /// setting: a batch of puzzles shares one copy (and one pattern-database build).
    ///
    /// The cache is not locked while a heuristic is built, and the build runs on a rayon pool of
    /// its own (as many threads as the caller's pool), whose thread publishes the result: the
    /// threads that ask for it meanwhile (the caller's pool's, perhaps, or work the building
    /// thread takes on while it waits) block until it is there without holding the build up.
    /// A failed build publishes nothing: the next thread to ask builds it again, within its own
    /// limits.
    pub fn shared(
        kind: HeuristicKind,
        rows: usize,
        cols: usize,
        goal: &[u8],
        pdb: &PdbOptions,
        limits: &Limits,
    ) -> Result<Arc<Self>, PdbError> {
        type CacheKey = (HeuristicKind, usize, usize, Vec<u8>, std::path::PathBuf, pdb::Partition, bool);
        /// A heuristic once built (`None`: its build failed).
        type Slot = Arc<OnceLock<Option<Arc<TileHeuristic>>>>;
        static CACHE: LazyLock<Mutex<HashMap<CacheKey, Slot>>> = LazyLock::new(Default::default);
        let key = (kind, rows, cols, goal.to_vec(), pdb.cache_dir(), pdb.partition.clone(), pdb.reflect);
        loop {
            let (slot, builds) = {
                let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
                match cache.get(&key) {
                    Some(slot) => (Arc::clone(slot), false),
                    None => {
                        let slot = Slot::default();
                        cache.insert(key.clone(), Arc::clone(&slot));
                        (slot, true)
                    }
                }
            };
            if !builds {
                match slot.wait() {
                    Some(h) => return Ok(Arc::clone(h)),
                    None => continue,
                }
            }
            // A failure takes the slot off the cache before waking its waiters, who then build.
            let publish = |built: Option<Arc<TileHeuristic>>| {
                if built.is_none() {
                    CACHE.lock().unwrap_or_else(PoisonError::into_inner).remove(&key);
                }
                let _ = slot.set(built);
            };
            let outcome = match rayon::ThreadPoolBuilder::new().num_threads(rayon::current_num_threads()).build() {
                Ok(pool) => pool.install(|| {
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        TileHeuristic::new(kind, rows, cols, goal, pdb, limits).map(Arc::new)
                    }));
                    publish(outcome.as_ref().ok().and_then(|built| built.as_ref().ok()).cloned());
                    outcome
                }),
                Err(e) => {
                    publish(None);
                    Ok(Err(PdbError::Io(std::io::Error::other(e))))
                }
            };
            return outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    }

    /// Bytes its pattern databases hold (0 for the heuristics without one), which a search
    /// guided by it holds as long as it runs.
    pub fn table_bytes(&self) -> u64 {
        self.pdb.as_ref().map_or(0, AdditivePdb::bytes)
    }

    /// The estimate for a position given as the tile in every cell (0 for the blank).
    #[inline]
    pub fn estimate(&self, cells: &[u8]) -> u32 {
        match self.kind {
            HeuristicKind::Zero => 0,
            HeuristicKind::Misplaced => {
                cells.iter().enumerate().filter(|&(c, &t)| t != 0 && self.goal_cell[t as usize] as usize != c).count()
                    as u32
            }
            HeuristicKind::Manhattan => self.manhattan(cells),
            HeuristicKind::LinearConflict => self.manhattan(cells) + 2 * self.line_conflicts(cells),
            HeuristicKind::Pdb => self.pdb.as_ref().map_or(0, |p| p.estimate(cells)),
        }
    }

    /// The estimate of a position (tile in every cell, cell of every tile) with what a search needs
    /// to update it cheaply after one move ([`TileHeuristic::step`]).
    pub fn start(&self, cells: &[u8], position: &[u8]) -> Estimate {
        match (&self.pdb, self.kind) {
            (Some(pdb), HeuristicKind::Pdb) => {
                let state = pdb.state(position);
                Estimate { h: state.h, pdb: Some(state) }
            }
            _ => Estimate { h: self.estimate(cells), pdb: None },
        }
    }

    /// The estimate after `tile` moved from cell `from` to cell `to` (`cells` and `position` are
    /// already updated), computed from the estimate before: only what the move changes is re-read.
    #[inline]
    pub fn step(&self, before: &Estimate, cells: &[u8], position: &[u8], tile: u8, from: usize, to: usize) -> Estimate {
        let n = cells.len();
        let t = tile as usize;
        let h = match self.kind {
            HeuristicKind::Zero => 0,
            HeuristicKind::Misplaced => {
                let goal = self.goal_cell[t] as usize;
                before.h + (to != goal) as u32 - (from != goal) as u32
            }
            HeuristicKind::Manhattan => {
                before.h + self.distance[t * n + to] as u32 - self.distance[t * n + from] as u32
            }
            HeuristicKind::LinearConflict => self.estimate(cells),
            HeuristicKind::Pdb => {
                let (Some(pdb), Some(state)) = (&self.pdb, &before.pdb) else { return self.start(cells, position) };
                let state = pdb.step(state, position, tile);
                return Estimate { h: state.h, pdb: Some(state) };
            }
        };
        Estimate { h, pdb: None }
    }

    #[inline]
    fn manhattan(&self, cells: &[u8]) -> u32 {
        let n = cells.len();
        cells.iter().enumerate().map(|(c, &t)| self.distance[t as usize * n + c] as u32).sum()
    }

    /// For every row (and column): among the tiles whose goal is in that line, how many must leave
    /// it so the rest are in goal order (length minus the longest increasing subsequence).
    fn line_conflicts(&self, cells: &[u8]) -> u32 {
        let (rows, cols) = (self.rows, self.cols);
        let mut total = 0;
        let mut line = Vec::with_capacity(rows.max(cols));
        for r in 0..rows {
            line.clear();
            for c in 0..cols {
                let t = cells[r * cols + c] as usize;
                if t != 0 && self.goal_cell[t] as usize / cols == r {
                    line.push(self.goal_cell[t] as usize % cols);
                }
            }
            total += line.len() as u32 - longest_increasing(&line);
        }
        for c in 0..cols {
            line.clear();
            for r in 0..rows {
                let t = cells[r * cols + c] as usize;
                if t != 0 && self.goal_cell[t] as usize % cols == c {
                    line.push(self.goal_cell[t] as usize / cols);
                }
            }
            total += line.len() as u32 - longest_increasing(&line);
        }
        total
    }
}

/// A heuristic value with the state needed to update it incrementally along a search path.
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    /// The estimate.
    pub h: u32,
    pdb: Option<PdbState>,
}

/// Length of the longest strictly increasing subsequence (lines are short: O(k²) is fine).
fn longest_increasing(v: &[usize]) -> u32 {
    let mut best = vec![1u32; v.len()];
    for i in 0..v.len() {
        for j in 0..i {
            if v[j] < v[i] {
                best[i] = best[i].max(best[j] + 1);
            }
        }
    }
    best.into_iter().max().unwrap_or(0)
}
