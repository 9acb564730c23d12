//! IDA* specialised for sliding-tile puzzles: the position is a cell array with the blank's cell,
//! a move swaps the blank with a neighbour, and the heuristic is updated from the one tile that
//! moved ([`TileHeuristic::step`]) instead of being recomputed from a decoded key. Same search,
//! same node counts as [`idastar`](super::depth_first::idastar) with the undo-move check; several
//! times faster (see `results/korf/`).

use super::{LimitHit, Limits, Outcome, SearchResult, Stats};
use crate::heuristic::{Estimate, TileHeuristic};
use crate::puzzle::Dir;
use std::time::Instant;

/// The blank's steps in the order the tile domain generates moves (the tile below the blank moves
/// up first, ...), so node counts equal the generic IDA*'s.
const BLANK_ORDER: [Dir; 4] = [Dir::Down, Dir::Up, Dir::Right, Dir::Left];

/// How often (in expanded nodes) the memory and the clock are checked (the state limit is
/// tested at every node).
const CHECK_EVERY: u64 = 1 << 16;

struct Search<'a> {
    cols: usize,
    heuristic: &'a TileHeuristic,
    goal: &'a [u8],
    cells: Vec<u8>,
    position: Vec<u8>,
    /// The blank's steps so far.
    path: Vec<Dir>,
    bound: u32,
    next_bound: Option<u32>,
    limits: &'a Limits,
    stats: Stats,
}

impl Search<'_> {
    /// The cell next to `cell` in direction `d`, if on the board.
    #[inline]
    fn neighbour(&self, cell: usize, d: Dir) -> Option<usize> {
        let n = self.cells.len();
        match d {
            Dir::Up => cell.checked_sub(self.cols),
            Dir::Down => Some(cell + self.cols).filter(|&c| c < n),
            Dir::Left => (!cell.is_multiple_of(self.cols)).then(|| cell - 1),
            Dir::Right => (cell % self.cols + 1 != self.cols).then_some(cell + 1),
        }
    }

    /// Depth-first below the position with the blank at `blank`, `g` moves from the start.
    fn dfs(&mut self, blank: usize, g: u32, estimate: &Estimate) -> Result<bool, LimitHit> {
        if estimate.h == 0 && self.cells == self.goal {
            self.stats.depth = g;
            return Ok(true);
        }
        self.stats.expanded += 1;
        if (self.stats.expanded.is_multiple_of(CHECK_EVERY)
            || self.limits.max_states.is_some_and(|m| self.stats.expanded > m))
            && let Some(hit) = self.limits.exceeded(self.stats.expanded, 0)
        {
            return Err(hit);
        }
        let back = self.path.last().map(|d| d.opposite());
        for d in BLANK_ORDER {
            if Some(d) == back {
                continue;
            }
            let Some(next) = self.neighbour(blank, d) else { continue };
            let tile = self.cells[next];
            self.cells[blank] = tile;
            self.cells[next] = 0;
            self.position[tile as usize] = blank as u8;
            self.position[0] = next as u8;
            self.stats.generated += 1;
            let child = self.heuristic.step(estimate, &self.cells, &self.position, tile, next, blank);
            let f = g + 1 + child.h;
            let found = if f > self.bound {
                self.next_bound = Some(self.next_bound.map_or(f, |b| b.min(f)));
                false
            } else {
                self.path.push(d);
                let found = self.dfs(next, g + 1, &child)?;
                if !found {
                    self.path.pop();
                }
                found
            };
            if found {
                return Ok(true);
            }
            self.cells[next] = tile;
            self.cells[blank] = 0;
            self.position[tile as usize] = next as u8;
            self.position[0] = blank as u8;
        }
        Ok(false)
    }
}

/// IDA* on a `cols`-wide tile board from `start` to `goal` (tile in every cell, 0 the blank).
/// `Found` holds the blank's steps. The caller checks solvability first: on an unsolvable layout
/// this runs until a limit stops it.
pub fn tile_idastar(
    cols: usize,
    start: &[u8],
    goal: &[u8],
    heuristic: &TileHeuristic,
    limits: &Limits,
) -> SearchResult<Dir> {
    let clock = Instant::now();
    let mut position = vec![0u8; start.len()];
    for (c, &t) in start.iter().enumerate() {
        position[t as usize] = c as u8;
    }
    let blank = position[0] as usize;
    let estimate = heuristic.start(start, &position);
    let mut search = Search {
        cols,
        heuristic,
        goal,
        cells: start.to_vec(),
        position,
        path: Vec::new(),
        bound: estimate.h,
        next_bound: None,
        limits,
        stats: Stats::default(),
    };
    let outcome = loop {
        search.next_bound = None;
        match search.dfs(blank, 0, &estimate) {
            Ok(true) => break Outcome::Found(std::mem::take(&mut search.path)),
            Err(hit) => break Outcome::Limit(hit),
            Ok(false) => match search.next_bound {
                Some(b) => search.bound = b,
                None => break Outcome::Exhausted,
            },
        }
    };
    let mut stats = search.stats;
    stats.peak_bytes = (search.cells.len() * 2 + search.path.capacity()) as u64;
    stats.wall_s = clock.elapsed().as_secs_f64();
    SearchResult { outcome, stats }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Domain, DomainTask, with_domain};
    use crate::format::tiles::{TileLayout, puzzle_from};
    use crate::generate::{TileSampling, random_tiles};
    use crate::heuristic::HeuristicKind;
    use crate::heuristic::pdb::PdbOptions;
    use crate::search::depth_first::idastar;

    /// The generic IDA* on the packed-key tile domain: (expanded, generated, blank cells along the path).
    struct Generic<'a>(&'a TileHeuristic, usize);

    impl DomainTask for Generic<'_> {
        type Output = (u64, u64, Vec<usize>);
        fn run<D: Domain>(self, domain: &D) -> Self::Output {
            let n = self.1;
            let cells = |k: &D::Key| {
                let mut buf = [0u8; 64];
                domain.tile_cells(k, &mut buf[..n]);
                buf
            };
            let result = idastar(domain, |k: &D::Key| self.0.estimate(&cells(k)[..n]), &Limits::default());
            let Outcome::Found(path) = result.outcome else { panic!("solvable") };
            let blanks = path.iter().map(|k| cells(k)[..n].iter().position(|&t| t == 0).unwrap()).collect();
            (result.stats.expanded, result.stats.generated, blanks)
        }
    }

    #[test]
    fn same_nodes_and_path_as_the_generic_idastar() {
        let cache = std::env::temp_dir().join(format!("slidesolve-unit-pdb-{}", std::process::id()));
        let pdb = PdbOptions { cache_dir: Some(cache), ..PdbOptions::default() };
        for (rows, cols, walk) in [(3, 3, 40), (4, 4, 36), (3, 4, 30)] {
            let goal = TileLayout::blank_last(rows, cols);
            let goal_cells: Vec<u8> = goal.cells.iter().map(|&t| t as u8).collect();
            let kinds: &[HeuristicKind] = if rows * cols == 9 {
                &[HeuristicKind::Misplaced, HeuristicKind::Manhattan, HeuristicKind::LinearConflict, HeuristicKind::Pdb]
            } else {
                &[HeuristicKind::Manhattan, HeuristicKind::LinearConflict]
            };
            for &kind in kinds {
                let h = TileHeuristic::new(kind, rows, cols, &goal_cells, &pdb, &Limits::default()).unwrap();
                for layout in random_tiles(&goal, 4, 9, TileSampling::Walk(walk)) {
                    let start: Vec<u8> = layout.cells.iter().map(|&t| t as u8).collect();
                    let fast = tile_idastar(cols, &start, &goal_cells, &h, &Limits::default());
                    let (expanded, generated, blanks) =
                        with_domain(&puzzle_from(&layout, &goal), u64::MAX, Generic(&h, rows * cols)).unwrap();
                    assert_eq!((fast.stats.expanded, fast.stats.generated), (expanded, generated), "{kind}");
                    let Outcome::Found(steps) = fast.outcome else { panic!("solvable") };
                    let mut blank = blanks[0];
                    let mut fast_blanks = vec![blank];
                    for d in steps {
                        let (dr, dc) = d.delta();
                        blank =
                            ((blank / cols) as isize + dr) as usize * cols + ((blank % cols) as isize + dc) as usize;
                        fast_blanks.push(blank);
                    }
                    assert_eq!(fast_blanks, blanks, "{kind}");
                }
            }
        }
    }
}
