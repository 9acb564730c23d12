//! The general block domain: any board, any piece shapes, any movement limits, any metric.
//!
//! Each class of interchangeable pieces (a *group*) gets the list of placements it can ever occupy
//! (anchors reachable on the empty board in its allowed directions, in reading order), the cells of
//! every placement, the placement one step away in each direction and the cells that step enters.
//! A state is the placement index of every piece, packed into a [`Key`]; within a group the indices
//! are sorted, so identical pieces are canonical.
//!
//! A search from the start needs one group only for pieces a move could swap: identical pieces
//! whose starts reach disjoint sets of anchors on the empty board (Rush Hour cars in different
//! rows, each sliding along its own) never meet, so each such region's pieces form a group of
//! their own ([`Placements::Regions`]). The states are the same; the keys are narrower (a car's
//! field counts the places in its row, not in every row of its kind) and need no sorting.
//!
//! Moves are generated on cell sets ([`cells`](super::cells)) whose representation is chosen once
//! from the board's size: every placement keeps the mask of its cells and, per direction, the
//! placement one step away and the mask of the cells that step enters. A state's occupancy is the
//! OR of its pieces' masks, a step is legal when its entered mask misses the occupancy, and a
//! child's key differs from its parent's in one field (or, among identical pieces, in the fields
//! the moved value passes while it is inserted into its sorted place).

use super::cells::{BoardSize, CellSets, Dense, Sparse, word_pairs};
use super::key::{Field, Key, Wide, bits_for, layout};
use super::{Budget, Domain, DomainTask, Unlisted};
use crate::memory;
use crate::puzzle::{Cell, Dir, Goal, Metric, Puzzle, Shape};
use crate::search::past;
use std::collections::HashMap;
use std::time::Instant;
use thiserror::Error;

mod listing;

const NONE: u32 = u32::MAX;

/// Why a puzzle cannot be compiled into a search domain.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum CompileError {
    /// A piece starts on a wall, off the board, or on another piece.
    #[error("piece '{0}' does not fit on the board at its start position")]
    BadStart(String),
    /// The packed state would exceed the widest supported key.
    #[error("a state needs {0} bits, more than the widest supported key (4096 bits)")]
    TooLarge(usize),
    /// The board has more cells than the chosen cell-set representation holds.
    #[error("a board of {0} cells is too large for this cell-set representation")]
    BoardTooLarge(usize),
    /// The puzzle has no pieces.
    #[error("the puzzle has no pieces")]
    NoPieces,
    /// The move tables would not fit in the memory budget.
    #[error(transparent)]
    Memory(#[from] memory::TooLarge),
    /// The deadline passed while the move tables were being built.
    #[error("time limit reached while compiling the move tables")]
    Timeout,
}

/// Looks at the deadline once every [`CLOCK_EVERY`] cells of the placements a compile handles:
/// the work a placement takes grows with its piece's cells, so a piece of many cells has the clock
/// looked at every placement, a one-cell piece every 4,096.
struct Clock {
    deadline: Option<Instant>,
    /// Cells handled since the last look.
    cells: usize,
}

/// Cells of placements handled between two looks at the clock while compiling (a look costs tens
/// of nanoseconds, a placement of one cell about a microsecond).
const CLOCK_EVERY: usize = 4096;

impl Clock {
    /// A clock for a compile that stops at `deadline`.
    fn new(deadline: Option<Instant>) -> Clock {
        Clock { deadline, cells: 0 }
    }

    /// Counts one placement of `cells` cells; fails once the deadline has passed.
    fn tick(&mut self, cells: usize) -> Result<(), CompileError> {
        self.cells = self.cells.saturating_add(cells.max(1));
        if self.cells < CLOCK_EVERY {
            return Ok(());
        }
        self.cells = 0;
        match past(self.deadline) {
            true => Err(CompileError::Timeout),
            false => Ok(()),
        }
    }
}

/// Interchangeable pieces and the placement tables they share.
#[derive(Debug)]
struct Group {
    /// Piece (slot) indices in this group, ascending.
    members: Vec<usize>,
    /// Directions the group may move in, in move order.
    dirs: Vec<usize>,
    /// Anchor of each placement, in reading order.
    anchors: Vec<Cell>,
    /// Cells of placement `p`, ascending: `cells[p * size..(p + 1) * size]`.
    cells: Vec<u32>,
    size: usize,
    /// `next[p][d]`: the placement one step in direction `d`, or `NONE`.
    next: Vec<[u32; 4]>,
}

/// The pieces of one shape and movement and the groups they form: one, or with
/// [`Placements::Regions`] one per region their starts reach.
#[derive(Debug)]
struct Kind {
    /// Piece (slot) indices, ascending.
    pieces: Vec<usize>,
    /// Indices into [`Blocks::groups`], one per region.
    groups: Vec<usize>,
    /// With more than one group: every placement's anchor and the position in `groups` of the
    /// group it belongs to, sorted (a layout may name alike pieces in any order).
    group_of: Vec<(Cell, u32)>,
}

impl Group {
    #[inline]
    fn cells_of(&self, p: u32) -> &[u32] {
        &self.cells[p as usize * self.size..(p as usize + 1) * self.size]
    }

    /// The cells the step from `p` in direction `d` enters (none when there is no such step).
    fn entered(&self, p: u32, d: usize) -> Vec<u32> {
        match self.next[p as usize][d] {
            NONE => Vec::new(),
            q => minus(self.cells_of(q).iter().copied(), self.cells_of(p)).collect(),
        }
    }
}

/// The items of ascending `items` that ascending `less` lacks, in one pass over each (a
/// binary search per item, on a piece of a million cells, took most of its compile).
fn minus<T: Ord + Copy>(items: impl Iterator<Item = T>, mut less: &[T]) -> impl Iterator<Item = T> {
    items.filter(move |item| {
        while let Some((first, rest)) = less.split_first()
            && first < item
        {
            less = rest;
        }
        less.first() != Some(item)
    })
}

/// The most word pairs of the five masks of one placement of `shape` (offsets in reading order)
/// on a large board: its cells, and per direction the cells a step enters (the shape moved one
/// cell, less the shape) or the one blocked cell.
fn placement_pairs(shape: &Shape) -> usize {
    let cells = shape.offsets();
    let entered = |d: Dir| {
        let (dr, dc) = d.delta();
        let moved = cells.iter().map(move |&(r, c)| (r + dr, c + dc));
        word_pairs(minus(moved, cells)).max(1)
    };
    word_pairs(cells.iter().copied()) + Dir::ALL.into_iter().map(entered).sum::<usize>()
}

/// One placement as move generation sees it: its cells and, per direction, the placement one step
/// away and the cells that step enters. Where there is no step (off the board, off the piece's
/// placements or against its movement) the entered mask is [`CellSets::blocked`] and the next
/// placement is this one, so every step is tested the same way.
#[derive(Clone, Copy, Debug)]
struct Place<M> {
    cells: M,
    next: [u32; 4],
    enter: [M; 4],
}

/// One piece of a compiled puzzle: its group, its field in the key, its rank among the group's
/// members, whether its moves can change that rank, and where its group's placements start in
/// [`Blocks::places`].
#[derive(Clone, Copy, Debug)]
struct Slot {
    group: usize,
    field: Field,
    rank: usize,
    reorders: bool,
    base: u32,
}

/// A piece with more than one placement, as the occupancy of a state is built from it: its index,
/// its key field and where its group's placements start in [`Blocks::places`] (copied from its
/// [`Slot`], so that the hot loop reads one compact list instead of indexing the slots).
#[derive(Clone, Copy, Debug)]
struct Varying {
    piece: usize,
    field: Field,
    base: u32,
}

#[derive(Debug)]
enum GoalTest<K> {
    Never,
    Key(K),
    Fields(Vec<(Field, u32)>),
    Placements(Field, Vec<bool>),
}

/// A compiled block puzzle over key type `K`, its cell sets stored as `C` (any board fits
/// [`Sparse`]; [`with_block_domain`] picks the narrowest representation for the board).
#[derive(Debug)]
pub struct Blocks<K: Key, C: CellSets = Sparse> {
    metric: Metric,
    /// Per piece, in input order.
    slots: Vec<Slot>,
    /// The pieces that can move, in input order.
    movable: Vec<usize>,
    /// The pieces with more than one placement, in input order (the others never leave theirs).
    varying: Vec<Varying>,
    /// The cells of the pieces with one placement.
    fixed: C::Mask,
    groups: Vec<Group>,
    /// The pieces of each shape and movement and their groups.
    kinds: Vec<Kind>,
    /// Per group its members' slots and key fields, in rank order.
    members: Vec<Vec<(usize, Field)>>,
    /// Every group's placements, one group after the other (`next` holds indices into this list).
    places: Vec<Place<C::Mask>>,
    /// Where each group's placements start in `places`, and the total at the end.
    bases: Vec<u32>,
    /// The piece whose key field holds each key bit (numbered as [`Field::bits`]).
    piece_at_bit: Vec<u32>,
    sets: C,
    /// Whether each board cell is open (not a wall or a hole).
    open: Vec<bool>,
    start: K,
    goal: GoalTest<K>,
    /// The goal piece's straight runs to the goal, when it has them ([`Domain::goal_bound`]).
    runs: Option<GoalRuns<C::Mask>>,
}

/// The most steps [`GoalRuns`] walks to build its runs.
const MAX_RUN_STEPS: usize = 1 << 16;

/// For a goal that one piece meets on some of its placements, when that piece has no identical
/// others and moves along one axis only: per placement of it, the cells each straight run to a
/// goal placement enters (none for a goal placement, or where no run reaches one). Every other
/// piece on such cells must move before the goal piece can take that run, which is its only way
/// to the goal.
#[derive(Debug)]
struct GoalRuns<M> {
    piece: usize,
    runs: Vec<Vec<M>>,
}

/// Per-thread working memory for [`Blocks`] with occupancy `O`.
#[derive(Debug)]
pub struct BlockScratch<O> {
    placement: Vec<u32>,
    occupancy: O,
    seen: Vec<u32>,
    stamp: u32,
    queue: Vec<u32>,
}

/// Which anchors a piece's tables hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placements {
    /// Those its pieces can reach from their starts on the empty board in their allowed directions,
    /// one table for the pieces of a kind whose starts reach the same anchors: pieces of a kind in
    /// regions no step connects (cars that slide along their own row, each in a different row) are
    /// never interchanged by a move, so each region's pieces get their own table and key fields
    /// (searches from the start).
    Regions,
    /// Those its pieces can reach from their starts on the empty board in their allowed directions,
    /// one table for every piece of a kind (every layout of the piece set, reachable or not).
    Reachable,
    /// Every anchor where its shape fits on open cells (a family lists layouts no start reaches).
    Everywhere,
}

/// A filter on placements: whether piece `i` may have its anchor at a cell (`None`: every one).
pub type Keep<'a> = Option<&'a dyn Fn(usize, Cell) -> bool>;

/// Bytes a group holds beside its placements' (its record and the first allocation of each list).
const GROUP_BYTES: u64 = 512;

/// The group tables for the pieces `members` of one shape and movement (one group, or with
/// [`Placements::Regions`] one per region their starts reach, in the order of their first
/// pieces), holding only the anchors `keep` allows its first piece, and the bytes of all tables so
/// far: with the `earlier` groups' bytes they must fit in the memory budget, checked as placements
/// are found, before the tables are allocated; `clock` stops it at the deadline.
fn build_groups(
    puzzle: &Puzzle,
    members: &[usize],
    (memory_limit, earlier): (u64, u64),
    clock: &mut Clock,
    placements: Placements,
    keep: Keep,
) -> Result<(Vec<Group>, u64), CompileError> {
    let piece = &puzzle.pieces[members[0]];
    let board = &puzzle.board;
    let cols = board.cols;
    let fits = |anchor: Cell| -> Option<Vec<u32>> {
        if keep.is_some_and(|keep| !keep(members[0], anchor)) {
            return None;
        }
        piece
            .shape
            .cells_at(anchor)
            .map(|c| c.filter(|&(r, c)| board.is_open(r, c)).map(|(r, c)| (r * cols + c) as u32))
            .collect()
    };
    let dirs: Vec<usize> = (0..4).filter(|&d| piece.movement.allows(Dir::ALL[d])).collect();
    // Each anchor found, with its region: the first piece whose start reaches it (0 for all, but
    // with `Placements::Regions`).
    let mut found: HashMap<Cell, usize> = HashMap::new();
    let size = piece.shape.offsets().len();
    if placements == Placements::Everywhere {
        for a in (0..board.rows).flat_map(|r| (0..board.cols).map(move |c| (r, c))) {
            clock.tick(size)?;
            if fits(a).is_some() {
                found.insert(a, 0);
            }
        }
    }
    // Per placement: its cells, anchor, next table and the hash maps of this search, and the masks
    // of its cells and of the cells each of its four steps enters.
    let masks = BoardSize::of(board.cell_count()).placement_mask_bytes(placement_pairs(&piece.shape));
    let table_bytes = |placements: usize, groups: usize| {
        memory::product(&[placements, size], 4)
            .and_then(|b| b.checked_add(memory::product(&[placements], 96 + masks)?))
            .and_then(|b| b.checked_add(memory::product(&[groups], GROUP_BYTES)?))
    };
    // Checked with the tables of the groups built before it (`earlier` bytes).
    let too_large = |placements: usize, groups: usize| {
        let with = if earlier > 0 { " with those of the pieces before it" } else { "" };
        let what =
            || format!("the move tables of piece '{}' ({placements}+ placements of {size} cells){with}", piece.name);
        let bytes = table_bytes(placements, groups).and_then(|b| b.checked_add(earlier));
        memory::check(what, bytes, memory_limit).map_err(CompileError::Memory)
    };
    // The region of each piece, its start's, numbered from 0 in the order of the pieces.
    let mut region = Vec::with_capacity(members.len());
    let mut regions = 1;
    for &m in members {
        let start = puzzle.start[m];
        if fits(start).is_none() {
            return Err(CompileError::BadStart(puzzle.pieces[m].name.clone()));
        }
        if let Some(&r) = found.get(&start) {
            region.push(r);
            continue;
        }
        let label = match placements {
            Placements::Regions if !region.is_empty() => {
                regions += 1;
                regions - 1
            }
            _ => 0,
        };
        region.push(label);
        found.insert(start, label);
        let mut stack = vec![start];
        while let Some(a) = stack.pop() {
            clock.tick(size)?;
            if found.len().is_multiple_of(1024) {
                too_large(found.len(), regions)?;
            }
            for &d in &dirs {
                if let Some(b) = Dir::ALL[d].step(a)
                    && !found.contains_key(&b)
                    && fits(b).is_some()
                {
                    found.insert(b, label);
                    stack.push(b);
                }
            }
        }
    }
    let bytes = too_large(found.len(), regions)?;
    let mut by_region: Vec<Vec<Cell>> = vec![Vec::new(); regions];
    for (a, r) in found {
        by_region[r].push(a);
    }
    let mut groups = Vec::with_capacity(regions);
    for (label, mut anchors) in by_region.into_iter().enumerate() {
        anchors.sort_unstable();
        let index = |b: Cell| anchors.binary_search(&b).map_or(NONE, |i| i as u32);
        let (mut cells, mut next) = (Vec::with_capacity(anchors.len() * size), Vec::with_capacity(anchors.len()));
        for &a in &anchors {
            clock.tick(size)?;
            cells.extend(fits(a).expect("found placements fit"));
            let mut n = [NONE; 4];
            for &d in &dirs {
                n[d] = Dir::ALL[d].step(a).map_or(NONE, index);
            }
            next.push(n);
        }
        let members = members.iter().zip(&region).filter(|&(_, &r)| r == label).map(|(&m, _)| m).collect();
        groups.push(Group { members, dirs: dirs.clone(), anchors, cells, size, next });
    }
    Ok((groups, bytes))
}

impl<K: Key, C: CellSets> Blocks<K, C> {
    /// Compiles `puzzle`; fails if a start is invalid, the state does not fit in `K`, the board
    /// does not fit in `C` or the move tables do not fit in the budget.
    pub fn compile(puzzle: &Puzzle, budget: impl Into<Budget>) -> Result<Self, CompileError> {
        Self::from_tables(puzzle, Tables::build(puzzle, budget.into(), Placements::Regions, None)?)
    }

    fn from_tables(puzzle: &Puzzle, tables: Tables) -> Result<Self, CompileError> {
        let (fields, words) = tables.layout();
        if words > K::WORDS {
            return Err(CompileError::TooLarge(words * 64));
        }
        let cells = puzzle.board.cell_count();
        let mut sets = C::new(cells).ok_or(CompileError::BoardTooLarge(cells))?;
        let (groups, kinds) = (tables.groups, tables.kinds);
        let mut bases = vec![0u32];
        for g in &groups {
            let total = *bases.last().expect("starts at 0") as usize + g.anchors.len();
            bases.push(u32::try_from(total).map_err(|_| CompileError::TooLarge(usize::MAX))?);
        }
        let slots: Vec<Slot> = tables
            .slot_group
            .iter()
            .zip(fields)
            .enumerate()
            .map(|(i, (&group, field))| {
                let members = &groups[group].members;
                let rank = members.iter().position(|&m| m == i).expect("a piece is in its group");
                // Placements are numbered in reading order of their anchors. A horizontal step
                // keeps the anchor's row, and an identical piece anchored in that row would have
                // to be stepped over: only a group that moves vertically can change its order,
                // and only across columns (in its one column, another member is stepped over).
                let g = &groups[group];
                let vertical = g.dirs.iter().any(|&d| matches!(Dir::ALL[d], Dir::Up | Dir::Down));
                let columns = g.anchors.iter().any(|a| a.1 != g.anchors[0].1);
                Slot { group, field, rank, reorders: members.len() > 1 && vertical && columns, base: bases[group] }
            })
            .collect();
        let members = groups.iter().map(|g| g.members.iter().map(|&m| (m, slots[m].field)).collect()).collect();
        let mut piece_at_bit = vec![0; 64 * words];
        for (i, slot) in slots.iter().enumerate() {
            piece_at_bit[slot.field.bits()].fill(i as u32);
        }
        let movable = (0..slots.len()).filter(|&i| !groups[slots[i].group].dirs.is_empty()).collect();
        let (varying, fixed): (Vec<usize>, Vec<usize>) =
            (0..slots.len()).partition(|&i| groups[slots[i].group].anchors.len() > 1);
        let varying =
            varying.into_iter().map(|i| Varying { piece: i, field: slots[i].field, base: slots[i].base }).collect();
        let fixed_cells: Vec<u32> = fixed.iter().flat_map(|&i| groups[slots[i].group].cells_of(0)).copied().collect();
        let fixed = sets.mask(&fixed_cells);
        let mut places = Vec::with_capacity(*bases.last().expect("starts at 0") as usize);
        // Each placement's cells and the cells each of its four steps enters (a subset of the
        // next placement's cells, or the one blocked cell).
        let pairs = |g: &Group| g.anchors.len().saturating_mul(placement_pairs(&puzzle.pieces[g.members[0]].shape));
        sets.reserve(groups.iter().map(pairs).fold(0, usize::saturating_add));
        let mut clock = Clock::new(tables.deadline);
        for (g, &base) in groups.iter().zip(&bases) {
            for p in 0..g.anchors.len() as u32 {
                clock.tick(g.size)?;
                places.push(Place {
                    cells: sets.mask(g.cells_of(p)),
                    next: g.next[p as usize].map(|q| base + if q == NONE { p } else { q }),
                    enter: std::array::from_fn(|d| match g.next[p as usize][d] {
                        NONE => sets.blocked(),
                        _ => sets.mask(&g.entered(p, d)),
                    }),
                });
            }
        }
        let mut domain = Blocks {
            metric: puzzle.metric,
            slots,
            movable,
            varying,
            fixed,
            groups,
            kinds,
            members,
            places,
            bases,
            piece_at_bit,
            sets,
            open: puzzle.board.open.clone(),
            start: K::zero(),
            goal: GoalTest::Never,
            runs: None,
        };
        domain.start = domain.encode(&puzzle.start).expect("start anchors are placements");
        domain.goal = domain.goal_test(puzzle);
        domain.runs = domain.goal_runs(puzzle);
        Ok(domain)
    }

    /// The [`GoalRuns`] of a goal `Reaches` whose piece is alone in its group and moves along one
    /// axis (`None` otherwise).
    fn goal_runs(&mut self, puzzle: &Puzzle) -> Option<GoalRuns<C::Mask>> {
        let (Goal::Reaches(piece, _), GoalTest::Placements(_, ok)) = (&puzzle.goal, &self.goal) else {
            return None;
        };
        let group = &self.groups[self.slots[*piece].group];
        let axis = |d: usize| d / 2;
        if group.members.len() != 1 || group.dirs.iter().any(|&d| axis(d) != axis(group.dirs[0])) {
            return None;
        }
        // Steps walked in all: on a long board the runs would cost time and memory quadratic in
        // its width, and the bound of one move serves there.
        let mut steps = 0usize;
        let runs = (0..group.anchors.len() as u32)
            .map(|p| {
                let mut runs = Vec::new();
                for &d in group.dirs.iter().filter(|_| !ok[p as usize]) {
                    let (mut at, mut cells) = (p, Vec::new());
                    while group.next[at as usize][d] != NONE {
                        steps += 1;
                        if steps > MAX_RUN_STEPS {
                            return None;
                        }
                        cells.extend(group.entered(at, d));
                        at = group.next[at as usize][d];
                        if ok[at as usize] {
                            cells.sort_unstable();
                            runs.push(self.sets.mask(&cells));
                            break;
                        }
                    }
                }
                Some(runs)
            })
            .collect::<Option<_>>()?;
        Some(GoalRuns { piece: *piece, runs })
    }

    /// The canonical key for per-piece anchors, if every anchor is a placement of its piece.
    /// Pieces of a kind are alike: each group of a kind takes the kind's anchors that are its
    /// placements, and they must be as many as its members.
    fn encode(&self, anchors: &[Cell]) -> Option<K> {
        let mut key = K::zero();
        for kind in &self.kinds {
            let mut values = vec![Vec::new(); kind.groups.len()];
            for &m in &kind.pieces {
                let j = match kind.groups.len() {
                    1 => 0,
                    _ => kind.group_of[kind.group_of.binary_search_by_key(&anchors[m], |e| e.0).ok()?].1 as usize,
                };
                let group = &self.groups[kind.groups[j]];
                values[j].push(group.anchors.binary_search(&anchors[m]).ok()? as u32);
            }
            for (&g, mut values) in kind.groups.iter().zip(values) {
                let group = &self.groups[g];
                if values.len() != group.members.len() {
                    return None;
                }
                values.sort_unstable();
                for (&m, v) in group.members.iter().zip(values) {
                    self.slots[m].field.set(&mut key, v);
                }
            }
        }
        Some(key)
    }

    fn goal_test(&self, puzzle: &Puzzle) -> GoalTest<K> {
        let placement = |piece: usize, anchor: Cell| {
            let group = &self.groups[self.slots[piece].group];
            group.anchors.binary_search(&anchor).ok().map(|p| p as u32)
        };
        match &puzzle.goal {
            Goal::Layout(target) => self.encode(target).map_or(GoalTest::Never, GoalTest::Key),
            Goal::PiecesAt(list) => list
                .iter()
                .map(|&(p, a)| placement(p, a).map(|v| (self.slots[p].field, v)))
                .collect::<Option<Vec<_>>>()
                .map_or(GoalTest::Never, GoalTest::Fields),
            Goal::Reaches(p, edge) => {
                let (rows, cols) = (puzzle.board.rows, puzzle.board.cols);
                let group = &self.groups[self.slots[*p].group];
                let ok = (0..group.anchors.len() as u32)
                    .map(|pl| {
                        group
                            .cells_of(pl)
                            .iter()
                            .any(|&c| edge.holds((c as usize / cols, c as usize % cols), rows, cols))
                    })
                    .collect();
                GoalTest::Placements(self.slots[*p].field, ok)
            }
        }
    }

    /// The directions (bit `d` for direction `d`) in which the piece at `at` can step on `occ`.
    #[inline(always)]
    fn steps(&self, occ: &C::Occupancy, at: &Place<C::Mask>) -> u32 {
        (0..4).fold(0, |open, d| open | ((self.sets.disjoint(occ, at.enter[d]) as u32) << d))
    }

    /// For a state with placements `placement` one move away from `parent`: the piece that moved
    /// and the directions (bit `d` for direction `d`) in which its further moves lead only to
    /// `parent` or to `parent`'s other successors; `(usize::MAX, 0)` when no piece moved.
    #[inline]
    fn settled(&self, key: &K, placement: &[u32], parent: &K) -> (usize, u32) {
        const VERTICAL: u32 = 0b0011;
        const HORIZONTAL: u32 = 0b1100;
        // Only the moved piece's group differs. Its fields lie in rank order at rising bits, so
        // the lowest and highest differing bits name the lowest and highest changed ranks.
        let Some((low, lowest)) = self.first_difference(key, parent) else {
            return (usize::MAX, 0);
        };
        let high = (low..K::WORDS).rev().find(|&w| key.word(w) != parent.word(w)).unwrap_or(low);
        let highest = self.piece_at_bit[64 * high + 63 - (key.word(high) ^ parent.word(high)).leading_zeros() as usize];
        let highest = highest as usize;
        let slot = &self.slots[lowest];
        // Identical pieces stay sorted and the moved one passes its neighbours as in one step of
        // insertion sort (see `child`): one that moved to a higher placement left the lowest
        // changed rank and now holds the highest, one that moved lower the other way round. A
        // piece without identical others is both.
        let before = slot.field.get(parent);
        let (moved, from) = match placement[lowest] > before {
            true => (highest, before),
            false => (lowest, self.slots[highest].field.get(parent)),
        };
        if self.metric == Metric::Free {
            return (moved, VERTICAL | HORIZONTAL);
        }
        let anchors = &self.groups[slot.group].anchors;
        let ((from_row, from_col), (to_row, to_col)) = (anchors[from as usize], anchors[placement[moved] as usize]);
        let dirs = match self.metric {
            Metric::Free => VERTICAL | HORIZONTAL,
            Metric::Straight if from_row == to_row => HORIZONTAL,
            Metric::Straight => VERTICAL,
            // The step back: up after a step down, and so on (bits in `Dir::ALL` order).
            Metric::Unit if from_row == to_row => 1 << (2 + (to_col < from_col) as u32),
            Metric::Unit => 1 << (to_row < from_row) as u32,
        };
        (moved, dirs)
    }

    /// The lowest key word in which `a` and `b` differ and the piece whose field holds their
    /// lowest differing bit: the first piece in slot order whose placement differs (fields lie in
    /// slot order at rising key bits, [`layout`]); `None` for equal keys.
    #[inline]
    fn first_difference(&self, a: &K, b: &K) -> Option<(usize, usize)> {
        let w = (0..K::WORDS).find(|&w| a.word(w) != b.word(w))?;
        Some((w, self.piece_at_bit[64 * w + (a.word(w) ^ b.word(w)).trailing_zeros() as usize] as usize))
    }

    /// Number of placements each piece can take (the size of its move tables).
    pub fn placement_counts(&self) -> Vec<usize> {
        self.slots.iter().map(|s| self.groups[s.group].anchors.len()).collect()
    }

    /// The key of the state `key` (whose placements are `placement`) after piece `i` moved from
    /// placement `from` to `to` (indices into [`Blocks::places`]). Among identical pieces the other
    /// members keep their order, so the new value only moves past its neighbours, as in one step of
    /// insertion sort.
    #[inline(always)]
    fn child(&self, key: &K, i: usize, from: u32, to: u32, placement: &[u32]) -> K {
        let slot = &self.slots[i];
        let (from, to) = (from - slot.base, to - slot.base);
        let mut child = *key;
        if !slot.reorders {
            slot.field.replace(&mut child, from, to);
            return child;
        }
        let members = &self.members[slot.group];
        let mut k = slot.rank;
        if to > from {
            while let Some(&(next, _)) = members.get(k + 1).filter(|&&(m, _)| placement[m] < to) {
                members[k].1.set(&mut child, placement[next]);
                k += 1;
            }
        } else {
            while let Some(&(previous, _)) = k.checked_sub(1).map(|j| &members[j]).filter(|&&(m, _)| placement[m] > to)
            {
                members[k].1.set(&mut child, placement[previous]);
                k -= 1;
            }
        }
        members[k].1.set(&mut child, to);
        child
    }
}

/// The set bits of `mask` (a direction set or a set of a chunk's pieces), lowest first.
#[inline(always)]
fn bits(mask: impl Into<u64>) -> impl Iterator<Item = usize> {
    let mut mask = mask.into();
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let d = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            d
        })
    })
}

/// The key-independent part of a compiled puzzle: groups and each piece's group, and the deadline
/// of the compile.
struct Tables {
    groups: Vec<Group>,
    kinds: Vec<Kind>,
    slot_group: Vec<usize>,
    deadline: Option<Instant>,
}

impl Tables {
    /// The key fields of every piece and the number of 64-bit words they need.
    fn layout(&self) -> (Vec<Field>, usize) {
        let widths: Vec<u32> = self.slot_group.iter().map(|&g| bits_for(self.groups[g].anchors.len())).collect();
        layout(&widths)
    }

    /// Groups pieces into identity classes and builds their tables (within `budget`); checks the
    /// start position.
    fn build(puzzle: &Puzzle, budget: Budget, placements: Placements, keep: Keep) -> Result<Tables, CompileError> {
        if puzzle.pieces.is_empty() {
            return Err(CompileError::NoPieces);
        }
        let class = puzzle.identity_classes();
        // Members of each class in piece order; a class is numbered by its first piece.
        let mut members_of: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, &c) in class.iter().enumerate() {
            members_of.entry(c).or_default().push(i);
        }
        let mut groups = Vec::new();
        let mut kinds = Vec::new();
        let mut slot_group = vec![0; puzzle.pieces.len()];
        // Bytes of the tables built so far: all groups together must fit the budget.
        let mut held = 0;
        let mut clock = Clock::new(budget.deadline);
        for c in class {
            if let Some(pieces) = members_of.remove(&c) {
                let (built, bytes) =
                    build_groups(puzzle, &pieces, (budget.memory, held), &mut clock, placements, keep)?;
                held = bytes;
                let mut group_of = Vec::new();
                if built.len() > 1 {
                    for (j, g) in built.iter().enumerate() {
                        group_of.extend(g.anchors.iter().map(|&a| (a, j as u32)));
                    }
                    group_of.sort_unstable();
                }
                let mut kind = Kind { pieces, groups: Vec::new(), group_of };
                for group in built {
                    group.members.iter().for_each(|&m| slot_group[m] = groups.len());
                    kind.groups.push(groups.len());
                    groups.push(group);
                }
                kinds.push(kind);
            }
        }
        let mut occupied = vec![false; puzzle.board.cell_count()];
        for (i, &g) in slot_group.iter().enumerate() {
            let group = &groups[g];
            let p = group.anchors.binary_search(&puzzle.start[i]).expect("start is a placement");
            for &c in group.cells_of(p as u32) {
                if std::mem::replace(&mut occupied[c as usize], true) {
                    return Err(CompileError::BadStart(puzzle.pieces[i].name.clone()));
                }
            }
        }
        Ok(Tables { groups, kinds, slot_group, deadline: budget.deadline })
    }
}

impl<K: Key, C: CellSets> Domain for Blocks<K, C> {
    type Key = K;
    type Scratch = BlockScratch<C::Occupancy>;

    fn scratch(&self) -> Self::Scratch {
        BlockScratch {
            placement: vec![0; self.slots.len()],
            occupancy: self.sets.occupancy(),
            seen: vec![0; self.places.len()],
            stamp: 0,
            queue: Vec::with_capacity(self.places.len()),
        }
    }

    fn start(&self) -> K {
        self.start
    }

    #[inline]
    fn is_goal(&self, key: &K) -> bool {
        match &self.goal {
            GoalTest::Never => false,
            GoalTest::Key(k) => k == key,
            GoalTest::Fields(list) => list.iter().all(|(f, v)| f.get(key) == *v),
            GoalTest::Placements(f, ok) => ok[f.get(key) as usize],
        }
    }

    /// With `GoalRuns`: one move of the goal piece, plus one for every other piece on the cells
    /// of its least blocked run to the goal (each must move first); else one move for a layout that
    /// is not a goal. One move changes either count by at most one.
    fn goal_bound(&self, key: &K, s: &mut Self::Scratch) -> u32 {
        if self.is_goal(key) {
            return 0;
        }
        let Some(GoalRuns { piece, runs }) = &self.runs else { return 1 };
        let at = self.slots[*piece].field.get(key);
        let occ = &mut s.occupancy;
        let blockers = |run: &C::Mask, occ: &mut C::Occupancy| {
            self.sets.clear(occ);
            self.sets.toggle(occ, *run);
            let on_run = |(i, slot): (usize, &Slot)| {
                i != *piece && !self.sets.disjoint(occ, self.places[(slot.base + slot.field.get(key)) as usize].cells)
            };
            self.slots.iter().enumerate().filter(|&x| on_run(x)).count() as u32
        };
        1 + runs[at as usize].iter().map(|run| blockers(run, occ)).min().unwrap_or(0)
    }

    fn goal_key(&self) -> Option<K> {
        match &self.goal {
            GoalTest::Key(k) => Some(*k),
            _ => None,
        }
    }

    fn for_each_successor<F: FnMut(K)>(&self, key: &K, s: &mut Self::Scratch, f: F) {
        self.for_each_successor_from(key, None, s, f)
    }

    /// Leaves out the last-moved piece's moves that only reach `parent`'s successors: all of them
    /// in the free metric (the other pieces are where they were, so the piece reaches the same
    /// placements as from `parent`), those along the axis of its last move in the straight metric
    /// (a slide along it is a slide of `parent`'s piece from where it was), and the step back to
    /// `parent` in the unit metric.
    fn for_each_successor_from<F: FnMut(K)>(&self, key: &K, parent: Option<&K>, s: &mut Self::Scratch, mut f: F) {
        let BlockScratch { placement, occupancy: occ, seen, stamp, queue } = s;
        let (sets, places) = (&self.sets, &self.places[..]);
        // A piece with one placement keeps its 0 in `placement` from `scratch`.
        let varying = self.varying.iter().map(|v| {
            let at = v.field.get(key);
            placement[v.piece] = at;
            places[(v.base + at) as usize].cells
        });
        sets.fill(occ, self.fixed, varying);
        let (settled, settled_dirs) = match parent {
            Some(parent) => self.settled(key, placement, parent),
            None => (usize::MAX, 0),
        };
        // The first steps do not depend on the piece's own cells (a step enters cells the piece
        // does not cover), and every piece is put back before the next moves, so the open
        // directions of up to 64 pieces are found first, without a branch per piece, and only the
        // pieces with one are visited.
        for chunk in self.movable.chunks(64) {
            let mut firsts = [0u8; 64];
            let mut at_place = [0u32; 64];
            let mut open = 0u64;
            for (j, &i) in chunk.iter().enumerate() {
                let p = self.slots[i].base + placement[i];
                let first = self.steps(occ, &places[p as usize]) & !(settled_dirs * (i == settled) as u32);
                (firsts[j], at_place[j]) = (first as u8, p);
                open |= ((first != 0) as u64) << j;
            }
            for j in bits(open) {
                let (i, first, p) = (chunk[j], firsts[j], at_place[j]);
                let here = &places[p as usize];
                match self.metric {
                    Metric::Unit => {
                        for d in bits(first) {
                            f(self.child(key, i, p, here.next[d], placement));
                        }
                    }
                    Metric::Straight => {
                        sets.toggle(occ, here.cells);
                        for d in bits(first) {
                            let mut to = here.next[d];
                            loop {
                                f(self.child(key, i, p, to, placement));
                                let at = &places[to as usize];
                                if !sets.disjoint(occ, at.enter[d]) {
                                    break;
                                }
                                to = at.next[d];
                            }
                        }
                        sets.toggle(occ, here.cells);
                    }
                    Metric::Free => {
                        // Breadth-first over the piece's own placements, the others fixed; its visited
                        // marks are stamps, so no clearing between pieces.
                        sets.toggle(occ, here.cells);
                        *stamp = stamp.wrapping_add(1);
                        if *stamp == 0 {
                            seen.iter_mut().for_each(|x| *x = 0);
                            *stamp = 1;
                        }
                        seen[p as usize] = *stamp;
                        queue.clear();
                        queue.push(p);
                        let mut head = 0;
                        while let Some(&from) = queue.get(head) {
                            head += 1;
                            let at = &places[from as usize];
                            for d in bits(self.steps(occ, at)) {
                                let to = at.next[d];
                                if seen[to as usize] == *stamp {
                                    continue;
                                }
                                seen[to as usize] = *stamp;
                                queue.push(to);
                                f(self.child(key, i, p, to, placement));
                            }
                        }
                        sets.toggle(occ, here.cells);
                    }
                }
            }
        }
    }

    fn moved_anchor(&self, from: &K, to: &K) -> Option<(Cell, Cell)> {
        for group in &self.groups {
            let mut a: Vec<u32> = group.members.iter().map(|&m| self.slots[m].field.get(from)).collect();
            let mut b: Vec<u32> = group.members.iter().map(|&m| self.slots[m].field.get(to)).collect();
            if a == b {
                continue;
            }
            a.sort_unstable();
            b.sort_unstable();
            let gone = a.iter().find(|v| !b.contains(v))?;
            let came = b.iter().find(|v| !a.contains(v))?;
            return Some((group.anchors[*gone as usize], group.anchors[*came as usize]));
        }
        None
    }

    /// A unit move changes the sum of all anchors' `row + col` by exactly one.
    fn bipartite(&self) -> bool {
        self.metric == Metric::Unit
    }

    fn anchors(&self, key: &K) -> Vec<Cell> {
        self.slots.iter().map(|s| self.groups[s.group].anchors[s.field.get(key) as usize]).collect()
    }

    fn key_of(&self, anchors: &[Cell]) -> Option<K> {
        (anchors.len() == self.slots.len()).then(|| self.encode(anchors)).flatten()
    }

    fn layouts(&self, most: usize, stop: &(dyn Fn() -> bool + Sync)) -> Option<Result<Vec<K>, Unlisted>> {
        Some(self.list_all(most, stop))
    }

    fn seeds(
        &self,
        goal: bool,
        keep: &(dyn Fn(&K) -> bool + Sync),
        stop: &(dyn Fn() -> bool + Sync),
        most: usize,
    ) -> Option<Result<Vec<K>, Unlisted>> {
        Some(self.list_seeds(goal, keep, stop, most))
    }

    /// Slot by slot in input order: the first slot that differs decides (`Blocks::first_difference`).
    #[inline]
    fn layout_cmp(&self, a: &K, b: &K) -> std::cmp::Ordering {
        self.first_difference(a, b).map_or(std::cmp::Ordering::Equal, |(_, piece)| {
            let field = &self.slots[piece].field;
            field.get(a).cmp(&field.get(b))
        })
    }
}

/// Compiles `puzzle` (its tables within `budget`) with the narrowest key type that holds its
/// state and runs `task` on it.
pub fn with_block_domain<T: DomainTask>(
    puzzle: &Puzzle,
    budget: impl Into<Budget>,
    task: T,
) -> Result<T::Output, CompileError> {
    with_block_tables(puzzle, budget, Placements::Regions, None, task)
}

/// Compiles `puzzle` as [`with_block_domain`] does, each piece's tables holding `placements` that
/// `keep` allows, and runs `task` on it.
pub fn with_block_tables<T: DomainTask>(
    puzzle: &Puzzle,
    budget: impl Into<Budget>,
    placements: Placements,
    keep: Keep,
    task: T,
) -> Result<T::Output, CompileError> {
    let tables = Tables::build(puzzle, budget.into(), placements, keep)?;
    match tables.layout().1 {
        1 => with_cell_sets::<u64, T>(puzzle, tables, task),
        2 => with_cell_sets::<u128, T>(puzzle, tables, task),
        3..=4 => with_wide_cell_sets::<Wide<4>, T>(puzzle, tables, task),
        5..=16 => with_wide_cell_sets::<Wide<16>, T>(puzzle, tables, task),
        17..=64 => run::<Wide<64>, Sparse, T>(puzzle, tables, task),
        words => Err(CompileError::TooLarge(words * 64)),
    }
}

/// Runs `task` with keys `K` and the narrowest cell sets for the board. Only one- and two-word
/// keys get every dense kind: every further combination is another copy of every search.
fn with_cell_sets<K: Key, T: DomainTask>(puzzle: &Puzzle, tables: Tables, task: T) -> Result<T::Output, CompileError> {
    match BoardSize::of(puzzle.board.cell_count()) {
        BoardSize::Word => run::<K, Dense<u64>, T>(puzzle, tables, task),
        BoardSize::TwoWords => run::<K, Dense<u128>, T>(puzzle, tables, task),
        BoardSize::FourWords => run::<K, Dense<Wide<4>>, T>(puzzle, tables, task),
        BoardSize::Large => run::<K, Sparse, T>(puzzle, tables, task),
    }
}

/// Runs `task` with a key of three to sixteen words (many pieces, as in large CS 351 boards): one
/// dense kind, four words, for every board of fewer than 256 cells, sparse sets beyond.
fn with_wide_cell_sets<K: Key, T: DomainTask>(
    puzzle: &Puzzle,
    tables: Tables,
    task: T,
) -> Result<T::Output, CompileError> {
    match BoardSize::of(puzzle.board.cell_count()) {
        BoardSize::Large => run::<K, Sparse, T>(puzzle, tables, task),
        _ => run::<K, Dense<Wide<4>>, T>(puzzle, tables, task),
    }
}

fn run<K: Key, C: CellSets, T: DomainTask>(
    puzzle: &Puzzle,
    tables: Tables,
    task: T,
) -> Result<T::Output, CompileError> {
    Ok(task.run(&Blocks::<K, C>::from_tables(puzzle, tables)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{self, ParseOptions};
    use std::collections::{HashSet, VecDeque};
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn load(path: &str) -> Puzzle {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        let text = std::fs::read_to_string(&path).unwrap();
        format::parse(format::detect(Some(&path), &text), &text, &ParseOptions::default()).unwrap().puzzle
    }

    /// `puzzle` compiled for listing every layout of its piece set (one table per kind), as
    /// `--components` and families compile it.
    fn listing<K: Key, C: CellSets>(puzzle: &Puzzle) -> Blocks<K, C> {
        Blocks::from_tables(puzzle, Tables::build(puzzle, u64::MAX.into(), Placements::Reachable, None).unwrap())
            .unwrap()
    }

    /// The anchors of every successor, in order, of the first `n` states a BFS expands.
    fn successors<C: CellSets>(puzzle: &Puzzle, n: usize) -> Vec<Vec<Cell>> {
        let domain = Blocks::<Wide<4>, C>::compile(puzzle, u64::MAX).unwrap();
        let mut scratch = domain.scratch();
        let mut seen = HashSet::from([domain.start()]);
        let mut queue = VecDeque::from([domain.start()]);
        let mut out = Vec::new();
        while let Some(key) = queue.pop_front().filter(|_| out.len() < n) {
            let mut children = Vec::new();
            domain.for_each_successor(&key, &mut scratch, |c| children.push(c));
            out.push(children.iter().flat_map(|c| domain.anchors(c)).collect());
            queue.extend(children.into_iter().filter(|c| seen.insert(*c)));
        }
        out
    }

    /// The word pairs of a large board's masks stay within the bound the compile reserved and
    /// its estimate counted, for shapes with gaps, spans past a word and steps along both axes.
    #[test]
    fn minus_keeps_the_items_the_other_list_lacks() {
        let kept: Vec<u32> = minus([1, 2, 3, 5, 8, 9].into_iter(), &[0, 2, 5, 6, 9]).collect();
        assert_eq!(kept, [1, 3, 8]);
        assert_eq!(minus([4, 7].into_iter(), &[]).count(), 2);
    }

    #[test]
    fn the_masks_of_a_large_board_hold_no_more_pairs_than_placement_pairs() {
        let mut rows = vec![vec!['.'; 150]; 150];
        let mut put = |name: char, cells: &[(usize, usize)]| cells.iter().for_each(|&(r, c)| rows[r][c] = name);
        put('A', &[(0, 0), (0, 1), (1, 0), (2, 0), (2, 1)]);
        put('B', &(0..70).map(|c| (10, c)).collect::<Vec<_>>());
        put('C', &[(20, 5), (21, 4), (21, 5), (21, 6), (22, 5), (22, 80)]);
        put('D', &(0..67).flat_map(|c| (30..33).map(move |r| (r, c + 60))).collect::<Vec<_>>());
        let board: Vec<String> = rows.iter().map(|r| r.iter().collect()).collect();
        let text = format!("goal: A reaches right\nboard:\n{}\n", board.join("\n"));
        let puzzle = format::parse(format::Format::Grid, &text, &ParseOptions::default()).unwrap().puzzle;
        let domain = Blocks::<Wide<4>, Sparse>::compile(&puzzle, u64::MAX).unwrap();
        let bound: usize =
            domain.groups.iter().map(|g| g.anchors.len() * placement_pairs(&puzzle.pieces[g.members[0]].shape)).sum();
        assert!(domain.places.len() > 4 * 9_000, "{}", domain.places.len());
        assert!(domain.sets.pairs_held() <= bound, "{} > {bound}", domain.sets.pairs_held());
        assert!(domain.sets.pairs_held() * 2 > bound, "{} <= {bound} / 2", domain.sets.pairs_held());
    }

    /// The listing (a walk over the cells) gives exactly the layouts of a plain scan over every
    /// combination of placements (slot 0 slowest), and layout order sorts them as the scan meets
    /// them: on a board one cell short, and on one with two groups of identical pieces and three
    /// empty cells (several chunks of layouts on each thread).
    #[test]
    fn the_listing_is_every_layout_of_a_plain_scan() {
        let three = "metric: free\ngoal: A at 0,0\nboard:\nAAB\nCDB\nCD.\n";
        let identical = "metric: free\ngoal: A at 0,0\nboard:\nAB.\nCBD\nCEE\nF..\n";
        assert_eq!(plain_scan_checked(three), 8);
        assert_eq!(plain_scan_checked(identical), 6_000);
    }

    /// Asserts that the listing of the puzzle `text`, sorted into layout order, is the plain
    /// scan's; returns its length.
    fn plain_scan_checked(text: &str) -> usize {
        let puzzle = format::parse(format::Format::Grid, text, &ParseOptions::default()).unwrap().puzzle;
        let domain = listing::<u64, Dense<u64>>(&puzzle);
        let mut keys = domain.layouts(usize::MAX, &|| false).unwrap().unwrap();
        keys.sort_unstable_by(|a, b| domain.layout_cmp(a, b));
        let listed: Vec<Vec<Cell>> = keys.iter().map(|k| domain.anchors(k)).collect();
        let counts = domain.placement_counts();
        let mut scanned: Vec<Vec<Cell>> = Vec::new();
        for code in 0..counts.iter().product::<usize>() {
            let mut pick = vec![0u32; counts.len()];
            let mut rest = code;
            for i in (0..counts.len()).rev() {
                pick[i] = (rest % counts[i]) as u32;
                rest /= counts[i];
            }
            let slots = &domain.slots;
            let canonical = slots
                .iter()
                .enumerate()
                .all(|(i, s)| s.rank == 0 || pick[domain.groups[s.group].members[s.rank - 1]] < pick[i]);
            let mut used = HashSet::new();
            let disjoint = slots
                .iter()
                .zip(&pick)
                .all(|(s, &p)| domain.groups[s.group].cells_of(p).iter().all(|&c| used.insert(c)));
            if canonical && disjoint {
                scanned
                    .push(slots.iter().zip(&pick).map(|(s, &p)| domain.groups[s.group].anchors[p as usize]).collect());
            }
        }
        assert_eq!(listed, scanned);
        // The count kept per chunk and per branch's end catches one layout too many.
        assert_eq!(domain.layouts(listed.len() - 1, &|| false), Some(Err(Unlisted::Over(listed.len()))));
        listed.len()
    }

    /// A listing stops when asked to, and at one layout more than the most asked for.
    #[test]
    fn the_listing_stops_when_told_and_past_its_most() {
        let text = "metric: free\ngoal: A at 0,0\nboard:\nAAB\nCDB\nCD.\n";
        let puzzle = format::parse(format::Format::Grid, text, &ParseOptions::default()).unwrap().puzzle;
        let domain = listing::<u64, Dense<u64>>(&puzzle);
        assert_eq!(domain.layouts(usize::MAX, &|| true), Some(Err(Unlisted::Stopped(0))));
        assert_eq!(domain.layouts(7, &|| false), Some(Err(Unlisted::Over(8))));
        assert_eq!(domain.layouts(8, &|| false).unwrap().unwrap().len(), 8);
    }

    /// A seed listing stops when its `stop` says so, and lists every seed when it never does (3 of
    /// the board's 8 layouts); a listing that keeps nothing still asks as it walks.
    #[test]
    fn the_seed_listing_stops_when_told() {
        let text = "metric: free\ngoal: A at 0,0\nboard:\nAAB\nCDB\nCD.\n";
        let puzzle = format::parse(format::Format::Grid, text, &ParseOptions::default()).unwrap().puzzle;
        let domain = listing::<u64, Dense<u64>>(&puzzle);
        assert_eq!(domain.seeds(false, &|_| true, &|| true, usize::MAX), Some(Err(Unlisted::Stopped(0))));
        let seeds = domain.seeds(false, &|_| true, &|| false, usize::MAX).unwrap().unwrap();
        assert_eq!(seeds.len(), 3);
        // A walk asks again every `STOP_LOOK` nodes, dead ends and rejected layouts included:
        // twelve cars of one cell (unit Rush Hour on 5x5), whose seed walk visits about 880,000
        // nodes; none kept, it stops at the second look.
        let text = "metric: straight\ngoal: A reaches right\nmoves: A=h B=v C=v D=v E=v F=h H=h I=v L=v M=v P=h R=h \
                    T=h\nboard:\n.CE..\n.R.F.\nALDI.\nTPH..\nB..M.\n";
        let puzzle = format::parse(format::Format::Grid, text, &ParseOptions::default()).unwrap().puzzle;
        let domain = listing::<u128, Dense<u64>>(&puzzle);
        let looks = AtomicUsize::new(0);
        let second = || looks.fetch_add(1, Ordering::Relaxed) > 0;
        assert_eq!(domain.seeds(false, &|_| false, &second, usize::MAX), Some(Err(Unlisted::Stopped(0))));
        looks.store(0, Ordering::Relaxed);
        // Of its 9,985,976 layouts, the listing had kept some when it stopped.
        let stopped = domain.layouts(usize::MAX, &second);
        assert!(matches!(stopped, Some(Err(Unlisted::Stopped(n))) if n > 0 && n < 9_985_976), "{stopped:?}");
        assert_eq!(domain.seeds(false, &|_| false, &|| false, usize::MAX), Some(Ok(Vec::new())));
    }

    /// Every child key is the canonical key of its layout: identical pieces that move only
    /// horizontally are never re-sorted (a move cannot change their reading order), those that
    /// move vertically or both ways are; with a group per region ([`Placements::Regions`]) or
    /// one per kind.
    #[test]
    fn every_child_of_identical_pieces_is_the_canonical_key_of_its_layout() {
        // Three horizontal dominoes (two in one row) and three vertical ones.
        let board = "board:\nAA.BB\nC.D..\nC.D.E\nGG..E\n";
        let cases = ["A=h B=h G=h C=v D=v E=v", "A=h B=h G=h C=v D=v E=b", "A=b B=b G=b C=b D=b E=b"]
            .into_iter()
            .flat_map(|moves| ["unit", "straight", "free"].map(|metric| (moves, metric)))
            .flat_map(|(moves, metric)| [Placements::Regions, Placements::Reachable].map(|p| (moves, metric, p)));
        for (moves, metric, placements) in cases {
            {
                let text = format!("metric: {metric}\nmoves: {moves}\ngoal: A at 3,0\n{board}");
                let puzzle = format::parse(format::Format::Grid, &text, &ParseOptions::default()).unwrap().puzzle;
                let tables = Tables::build(&puzzle, u64::MAX.into(), placements, None).unwrap();
                let domain = Blocks::<u128, Dense<u64>>::from_tables(&puzzle, tables).unwrap();
                let mut scratch = domain.scratch();
                let mut seen = HashSet::from([domain.start()]);
                let mut queue = VecDeque::from([domain.start()]);
                while let Some(key) = queue.pop_front() {
                    let mut children = Vec::new();
                    domain.for_each_successor(&key, &mut scratch, |c| children.push(c));
                    for child in children {
                        assert_eq!(domain.key_of(&domain.anchors(&child)), Some(child), "{moves} {metric}");
                        if seen.insert(child) {
                            queue.push_back(child);
                        }
                    }
                }
                assert!(seen.len() >= 80, "{moves} {metric}: {}", seen.len());
            }
        }
    }

    /// Identical pieces whose starts reach disjoint anchors get a group each: the same states as
    /// one group per kind, in fewer key bits, and a layout's key takes a kind's pieces by where they
    /// lie, not by their names.
    #[test]
    fn identical_pieces_in_separate_regions_get_a_group_each() {
        // B and C slide along rows 0 and 2, D and E along columns 4 and 5.
        let text = "metric: straight\ngoal: A reaches right\nmoves: A=h B=h C=h D=v E=v\n\
                    board:\nBB..D.\n..AAD.\nCC...E\n.....E\n";
        let puzzle = format::parse(format::Format::Grid, text, &ParseOptions::default()).unwrap().puzzle;
        let compile = |placements| {
            Blocks::<u64, Dense<u64>>::from_tables(
                &puzzle,
                Tables::build(&puzzle, u64::MAX.into(), placements, None).unwrap(),
            )
            .unwrap()
        };
        let at = |name: &str| puzzle.pieces.iter().position(|p| p.name == name).unwrap();
        let (regions, kinds) = (compile(Placements::Regions), compile(Placements::Reachable));
        assert_eq!((regions.groups.len(), kinds.groups.len()), (5, 3));
        let bits = |d: &Blocks<u64, Dense<u64>>| d.slots.iter().map(|s| s.field.bits().len()).sum::<usize>();
        assert_eq!((bits(&regions), bits(&kinds)), (3 + 3 + 3 + 2 + 2, 3 + 4 + 4 + 3 + 3));
        let reach = |d: &Blocks<u64, Dense<u64>>| {
            let mut scratch = d.scratch();
            let mut seen = HashSet::from([d.start()]);
            let mut queue = VecDeque::from([d.start()]);
            let mut layouts = HashSet::new();
            while let Some(key) = queue.pop_front() {
                let anchors = d.anchors(&key);
                let pair = |x: &str, y: &str| {
                    let (a, b) = (anchors[at(x)], anchors[at(y)]);
                    (a.min(b), a.max(b))
                };
                layouts.insert((anchors[at("A")], pair("B", "C"), pair("D", "E")));
                d.for_each_successor(&key, &mut scratch, |c| {
                    if seen.insert(c) {
                        queue.push_back(c);
                    }
                });
            }
            (seen.len(), layouts)
        };
        let ((n, layouts), (m, same)) = (reach(&regions), reach(&kinds));
        assert_eq!((n, m, layouts.len()), (426, 426, 426));
        assert_eq!(layouts, same);
        // B named where C lies and C where B does: the same layout, the same key.
        let start = puzzle.start.clone();
        let mut swapped = start.clone();
        swapped.swap(at("B"), at("C"));
        assert_eq!(regions.key_of(&swapped), Some(regions.start()));
        assert_eq!(regions.key_of(&start), Some(regions.start()));
        // Both cars in row 0 is no layout a search from this start can meet.
        let mut both = start.clone();
        both[at("C")] = (0, 2);
        assert_eq!(regions.key_of(&both), None);
        assert!(kinds.key_of(&both).is_some());
        // Immovable alike pieces are a region each: a group of one placement, no key bits, and
        // any naming of their cells is the same layout.
        let text = "metric: unit\ngoal: A at 2,3\nmoves: A=b B=n C=n D=n E=n\nboard:\nA.B.\nC.D.\n..E.\n";
        let puzzle = format::parse(format::Format::Grid, text, &ParseOptions::default()).unwrap().puzzle;
        let domain = Blocks::<u64, Dense<u64>>::compile(&puzzle, u64::MAX).unwrap();
        assert_eq!((domain.groups.len(), bits(&domain)), (5, 4));
        let mut named = puzzle.start.clone();
        named[1..].rotate_left(1);
        assert_eq!(domain.key_of(&named), Some(domain.start()));
    }

    /// The layout order is the slot-by-slot comparison of placements, on keys of one and of
    /// several words.
    #[test]
    fn the_layout_order_compares_slot_by_slot() {
        fn check<K: Key>(path: &str) {
            let domain = Blocks::<K, Sparse>::compile(&load(path), u64::MAX).unwrap();
            let mut scratch = domain.scratch();
            let mut keys = vec![domain.start()];
            for i in 0..300 {
                let key = keys[i];
                domain.for_each_successor(&key, &mut scratch, |c| keys.push(c));
            }
            let by_slots = |a: &K, b: &K| {
                let fields = |k: &K| domain.slots.iter().map(|s| s.field.get(k)).collect::<Vec<_>>();
                fields(a).cmp(&fields(b))
            };
            let wide = keys.iter().any(|k| (1..K::WORDS).any(|w| k.word(w) != 0));
            assert_eq!(wide, K::WORDS > 1, "{path}: the keys fill more than one word");
            for a in keys.iter().step_by(7) {
                for b in keys.iter().step_by(5) {
                    assert_eq!(domain.layout_cmp(a, b), by_slots(a, b), "{path}");
                }
            }
        }
        check::<u64>("corpora/klotski/classic.grid");
        check::<u64>("corpora/rush/hardest51.rush");
        check::<Wide<4>>("corpora/cs351/large.data");
    }

    #[test]
    fn every_cell_set_representation_generates_the_same_successors() {
        let files = [
            "corpora/klotski/classic.grid",
            "corpora/blocks/dlaa.grid",
            "corpora/blocks/irregular.grid",
            "corpora/rush/hardest51.rush",
            "corpora/cs351/proj3a.data",
        ];
        for path in files {
            for metric in [Metric::Unit, Metric::Straight, Metric::Free] {
                let puzzle = Puzzle { metric, ..load(path) };
                let sparse = successors::<Sparse>(&puzzle, 2000);
                assert!(sparse.len() > 100, "{path}");
                let cells = puzzle.board.cell_count();
                if cells <= 64 {
                    assert_eq!(successors::<Dense<u64>>(&puzzle, 2000), sparse, "{path} {metric}");
                }
                if cells <= 128 {
                    assert_eq!(successors::<Dense<u128>>(&puzzle, 2000), sparse, "{path} {metric}");
                }
                assert_eq!(successors::<Dense<Wide<4>>>(&puzzle, 2000), sparse, "{path} {metric}");
            }
        }
    }

    #[test]
    fn a_board_of_more_than_256_cells_moves_like_its_open_corner() {
        let classic = load("corpora/klotski/classic.grid");
        let mut big = classic.clone();
        big.board.rows = 17;
        big.board.cols = 17;
        big.board.open = (0..17 * 17).map(|i| i / 17 < 5 && i % 17 < 4).collect();
        assert_eq!(BoardSize::of(big.board.cell_count()), BoardSize::Large);
        assert_eq!(successors::<Sparse>(&big, 3000), successors::<Dense<u64>>(&classic, 3000));
    }

    #[test]
    fn a_board_too_large_for_the_representation_is_an_error() {
        let dlaa = load("corpora/blocks/dlaa.grid");
        let err = Blocks::<u64, Dense<u64>>::compile(&dlaa, u64::MAX).unwrap_err();
        assert_eq!(err, CompileError::BoardTooLarge(80));
    }
}
