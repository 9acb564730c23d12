//! Compiling a [`Puzzle`](crate::puzzle::Puzzle) into something fast to search.
//!
//! A [`Domain`] hands out packed [`Key`]s: the start, a goal test, and successors in a fixed order
//! (pieces in input order, directions up, down, left, right, distances smallest first; for the
//! free metric, the order of the piece's own breadth-first search). Search code is generic over it.

pub mod blocks;
pub mod cells;
pub mod key;
pub mod tiles;

pub use blocks::{Blocks, CompileError, Keep, Placements, with_block_domain, with_block_tables};
pub use key::{Key, Wide, bits_for};
pub use tiles::Tiles;

use crate::puzzle::Cell;

/// A state space as search sees it.
pub trait Domain: Sync {
    /// The packed state.
    type Key: Key;
    /// Per-thread working memory for successor generation.
    type Scratch: Send;

    /// Fresh working memory for one thread.
    fn scratch(&self) -> Self::Scratch;
    /// The start state.
    fn start(&self) -> Self::Key;
    /// Whether a state meets the goal.
    fn is_goal(&self, key: &Self::Key) -> bool;
    /// A lower bound on the moves from `key` to the nearest goal state that changes by at most one
    /// per move (so a breadth-first search may drop a state whose depth plus bound reaches a
    /// limit); 0 for a goal state. By default 0.
    fn goal_bound(&self, _key: &Self::Key, _scratch: &mut Self::Scratch) -> u32 {
        0
    }
    /// The single goal state, when the goal fixes every piece (needed by bidirectional search).
    fn goal_key(&self) -> Option<Self::Key>;
    /// Calls `f` on every successor of `key`, in the domain's fixed move order.
    fn for_each_successor<F: FnMut(Self::Key)>(&self, key: &Self::Key, scratch: &mut Self::Scratch, f: F);
    /// [`Domain::for_each_successor`] for a state reached by one move from `parent`, leaving out
    /// moves whose every result is `parent` or another successor of `parent` (a search that has
    /// met all of `parent`'s successors needs none of them). Successors are still given in the
    /// domain's move order; by default none is left out.
    fn for_each_successor_from<F: FnMut(Self::Key)>(
        &self,
        key: &Self::Key,
        _parent: Option<&Self::Key>,
        scratch: &mut Self::Scratch,
        f: F,
    ) {
        self.for_each_successor(key, scratch, f)
    }
    /// For two adjacent states, the anchor of the piece that moved, before and after.
    fn moved_anchor(&self, from: &Self::Key, to: &Self::Key) -> Option<(Cell, Cell)>;
    /// The anchor of every piece (identical pieces in canonical order).
    fn anchors(&self, key: &Self::Key) -> Vec<Cell>;
    /// The state with these anchors, one per piece (`None` when one is not a placement of its
    /// piece, or the domain does not place pieces by anchor).
    fn key_of(&self, _anchors: &[Cell]) -> Option<Self::Key> {
        None
    }
    /// Whether the state graph is bipartite (no move joins two states at the same distance from
    /// any state), which lets BFS skip looking children up in their parent's own level.
    fn bipartite(&self) -> bool {
        false
    }
    /// The size of the domain's dense indices: when not 0, [`Domain::dense_index`] maps the states
    /// reachable from the start one-to-one into `0..dense_states()` (a perfect hash), so a search
    /// may keep its visited states as a bit array. By default 0 (none).
    fn dense_states(&self) -> u64 {
        0
    }
    /// The dense index of a state reachable from the start (see [`Domain::dense_states`]).
    fn dense_index(&self, _key: &Self::Key) -> u64 {
        0
    }
    /// For sliding-tile domains: writes the tile in every cell (0 for the blank) into `out` and
    /// returns true; other domains return false.
    fn tile_cells(&self, _key: &Self::Key, _out: &mut [u8]) -> bool {
        false
    }
    /// Every legal state, reachable or not (each piece on one of its placements, no two
    /// overlapping, identical pieces in canonical order), in no fixed order (listed on every
    /// thread). `stop` is asked now and then while they are listed; true ends the listing
    /// ([`Unlisted::Stopped`]). More than `most` is [`Unlisted::Over`]; `None` when the domain
    /// cannot list them (sliding tiles: that is every permutation).
    fn layouts(&self, _most: usize, _stop: &(dyn Fn() -> bool + Sync)) -> Option<Result<Vec<Self::Key>, Unlisted>> {
        None
    }
    /// Every legal state in which no piece can take a step up or left that `keep` accepts, in no
    /// fixed order (listed on every thread): a set that holds the least state, in the key's order,
    /// of every connected component (such a step lowers the key). With `goal`, only goal states in
    /// which no piece but the goal's can take such a step: a set that holds the least goal state
    /// of every component with one (a step of another piece keeps the goal). More than `most`
    /// kept is [`Unlisted::Over`]; `stop` as in [`Domain::layouts`]; `None` when the domain cannot
    /// list them.
    fn seeds(
        &self,
        _goal: bool,
        _keep: &(dyn Fn(&Self::Key) -> bool + Sync),
        _stop: &(dyn Fn() -> bool + Sync),
        _most: usize,
    ) -> Option<Result<Vec<Self::Key>, Unlisted>> {
        None
    }
    /// *Layout order*, the order a family's outputs follow: that of a plain scan over every
    /// combination of the pieces' placements, the first piece slowest.
    fn layout_cmp(&self, a: &Self::Key, b: &Self::Key) -> std::cmp::Ordering {
        a.cmp(b)
    }
}

/// Why [`Domain::seeds`] or [`Domain::layouts`] gave no list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unlisted {
    /// More seeds than the most asked for: this many, one more than that most.
    Over(usize),
    /// The list could not have the memory to grow (the process has less than the budget allowed).
    Starved,
    /// The caller's `stop` said so, after this many were kept.
    Stopped(usize),
}

/// Something to run on a compiled domain, whatever its key type.
pub trait DomainTask {
    /// What the task returns.
    type Output;
    /// Runs on one concrete domain.
    fn run<D: Domain>(self, domain: &D) -> Self::Output;
}

/// What compiling a puzzle may spend: the bytes of its move tables, checked before they are
/// allocated, and the time, checked every few thousand placements as they are built.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Bytes the move tables may hold.
    pub memory: u64,
    /// The instant to give up at ([`CompileError::Timeout`]).
    pub deadline: Option<std::time::Instant>,
}

impl From<u64> for Budget {
    /// A budget of `memory` bytes and no deadline.
    fn from(memory: u64) -> Self {
        Budget { memory, deadline: None }
    }
}

impl From<&crate::search::Limits> for Budget {
    /// The memory budget ([`crate::search::Limits::memory`]) and deadline of a search's limits.
    fn from(limits: &crate::search::Limits) -> Self {
        Budget { memory: limits.memory(), deadline: limits.deadline }
    }
}

/// Compiles `puzzle` into the best domain for searches from its start (its tables within
/// `budget`) and runs `task`: the [`Tiles`] domain for sliding-tile puzzles, the
/// general [`Blocks`] domain for everything else.
pub fn with_domain<T: DomainTask>(
    puzzle: &crate::puzzle::Puzzle,
    budget: impl Into<Budget>,
    task: T,
) -> Result<T::Output, CompileError> {
    with_domain_placing(puzzle, budget, Placements::Regions, task)
}

/// Compiles `puzzle` as [`with_domain`] does, a block puzzle's tables holding `placements`, and
/// runs `task`.
pub fn with_domain_placing<T: DomainTask>(
    puzzle: &crate::puzzle::Puzzle,
    budget: impl Into<Budget>,
    placements: Placements,
    task: T,
) -> Result<T::Output, CompileError> {
    if crate::parity::tile_solvability(puzzle).is_none() {
        return with_block_tables(puzzle, budget, placements, None, task);
    }
    Ok(match Tiles::<u64>::words_for(puzzle.board.cell_count()) {
        1 => task.run(&Tiles::<u64>::compile(puzzle)),
        2 => task.run(&Tiles::<u128>::compile(puzzle)),
        3..=4 => task.run(&Tiles::<Wide<4>>::compile(puzzle)),
        5..=16 => task.run(&Tiles::<Wide<16>>::compile(puzzle)),
        17..=64 => task.run(&Tiles::<Wide<64>>::compile(puzzle)),
        words => return Err(CompileError::TooLarge(words * 64)),
    })
}
