//! Every legal placement of a puzzle's piece set (reachable from the start or not) and the
//! connected components of the move graph among them: the kind of table published for Klotski
//! (65,880 placements of the classic piece set).

use crate::domain::{CompileError, Placements, with_block_tables};
use crate::family::graph::Analyse;
use crate::puzzle::{Family, Puzzle};
use crate::search::{LimitHit, Limits};
use serde::Serialize;

/// The components of the state graph over all legal placements.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Components {
    /// Legal placements of the piece set (identical pieces interchangeable unless `--distinct`).
    pub placements: u64,
    /// Connected components (moves are reversible, so these are the classes of mutually reachable states).
    pub components: u64,
    /// Size of the largest component.
    pub largest: u64,
    /// Size of the component holding the start.
    pub start_component: u64,
    /// Components with exactly one state (positions where nothing can move).
    pub isolated: u64,
}

/// Why components could not be counted.
#[derive(Debug, thiserror::Error)]
pub enum ComponentsError {
    /// The puzzle does not compile.
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// The placements and their tables would not fit in the memory budget.
    #[error(transparent)]
    Memory(#[from] crate::memory::TooLarge),
    /// The domain cannot list its placements (sliding tiles: every permutation).
    #[error("--components lists placements of block pieces; for sliding tiles every permutation is a placement")]
    Unsupported,
    /// `--max-states` (more placements than it), `--timeout`, or a table that could not have the
    /// memory the budget allowed, stopped the count.
    #[error("{hit} while counting the components of all legal placements ({listed} placements listed)")]
    Stopped {
        /// The limit.
        hit: LimitHit,
        /// Placements listed when it stopped.
        listed: u64,
        /// Bytes its tables held at their largest until then.
        peak_bytes: u64,
    },
}

/// Lists every legal placement and its component (see [`crate::family::graph`]) within `limits`:
/// the tables must fit in its memory budget, the placements number at most its `max_states`, and
/// the clock is looked at as the tables are built, before the placements are listed, every 16,384
/// steps of the walk that lists them and every 16,384 placements entered in a table or expanded.
/// Also the bytes its tables held at their largest (by the estimates checked against the budget).
pub fn components(puzzle: &Puzzle, limits: &Limits) -> Result<(Components, u64), ComponentsError> {
    let memory_limit = limits.memory();
    let task = Analyse { max_layouts: limits.max_states, deadline: limits.deadline, ..Analyse::within(memory_limit) };
    // Every layout of the piece set: a kind's pieces may take any of its pieces' placements.
    // A sliding-tile file's layouts are the permutations; any other file is listed as blocks,
    // a grid of distinct squares with a full target included (searches take it for tiles).
    if puzzle.family == Family::Tiles {
        return Err(ComponentsError::Unsupported);
    }
    let a = match with_block_tables(puzzle, limits, Placements::Reachable, None, task) {
        Err(CompileError::Timeout) => {
            return Err(ComponentsError::Stopped { hit: LimitHit::Time, listed: 0, peak_bytes: 0 });
        }
        analysed => analysed?.ok_or(ComponentsError::Unsupported)??,
    };
    if let Some(hit) = a.stopped {
        return Err(ComponentsError::Stopped { hit, listed: a.layouts, peak_bytes: a.peak_bytes });
    }
    let sizes = || a.components.iter().map(|c| c.size);
    let counted = Components {
        placements: a.layouts,
        components: a.components.len() as u64,
        largest: sizes().max().unwrap_or(0),
        start_component: a.start_component.map_or(0, |c| a.components[c].size),
        isolated: sizes().filter(|&n| n == 1).count() as u64,
    };
    Ok((counted, a.peak_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::grid;

    #[test]
    fn a_small_board_has_the_placements_a_hand_count_gives() {
        // On a 2x2 board: A (named by the goal, so distinct) in any of 4 cells and the identical
        // B and C on 2 of the other 3: 4 * 3 = 12 placements. One blank on a 4-cycle keeps the
        // cyclic order, which B = C makes unique: one component.
        let p = grid::parse("goal: A at 1,1\nboard:\nAB\nC.\n", &Default::default()).unwrap().puzzle;
        assert_eq!(
            components(&p, &Limits::default()).unwrap().0,
            Components { placements: 12, components: 1, largest: 12, start_component: 12, isolated: 0 }
        );
        // Two pieces that may not move: every placement is its own component.
        let p = grid::parse("moves: A=n B=n\ngoal: A at 1,1\nboard:\nAB\n..\n", &Default::default()).unwrap().puzzle;
        assert_eq!(
            components(&p, &Limits::default()).unwrap().0,
            Components { placements: 1, components: 1, largest: 1, start_component: 1, isolated: 1 }
        );
    }
}
