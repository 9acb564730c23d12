//! The general block domain: any board, any piece shapes, any movement limits, any metric.
//!
//! Each class of interchangeable pieces (a *group*) gets the list of placements it can ever occupy
//! (anchors reachable on the empty board in its allowed directions, in reading order), the cells of
//! every placement, the placement one step away in each direction and the cells that step enters.
//! A state is the placement index of every piece, packed into a [`Key`]; within a group the indices
//! are sorted, so identical pieces are canonical. Moves are generated on an occupancy bitboard.

use super::key::{Field, Key, Wide, bits_for, layout};
use super::{Domain, DomainTask};
use crate::memory;
use crate::puzzle::{Cell, Dir, Edge, Goal, Metric, Puzzle};
use std::collections::HashMap;
use std::ops::ControlFlow;
use thiserror::Error;

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
    /// The puzzle has no pieces.
    #[error("the puzzle has no pieces")]
    NoPieces,
    /// The move tables would not fit in the memory budget.
    #[error(transparent)]
    Memory(#[from] memory::TooLarge),
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
    /// Cells of placement `p`: `cells[p * size..(p + 1) * size]`.
    cells: Vec<u32>,
    size: usize,
    /// `next[p][d]`: the placement one step in direction `d`, or `NONE`.
    next: Vec<[u32; 4]>,
    /// Cells entered by the step from `p` in direction `d`: `enter[d][p * enter_len[d]..]`.
    enter: [Vec<u32>; 4],
    enter_len: [usize; 4],
}

impl Group {
    #[inline]
    fn cells_of(&self, p: u32) -> &[u32] {
        &self.cells[p as usize * self.size..(p as usize + 1) * self.size]
    }
    #[inline]
    fn entering(&self, p: u32, d: usize) -> &[u32] {
        let n = self.enter_len[d];
        &self.enter[d][p as usize * n..(p as usize + 1) * n]
    }
}

#[derive(Debug)]
enum GoalTest<K> {
    Never,
    Key(K),
    Fields(Vec<(Field, u32)>),
    Placements(Field, Vec<bool>),
}

/// A compiled block puzzle over key type `K`.
#[derive(Debug)]
pub struct Blocks<K: Key> {
    metric: Metric,
    occupancy_words: usize,
    /// Per piece (input order): its group and its field in the key.
    slots: Vec<(usize, Field)>,
    groups: Vec<Group>,
    start: K,
    goal: GoalTest<K>,
}

/// Per-thread working memory for [`Blocks`].
#[derive(Debug, Default)]
pub struct BlockScratch {
    placement: Vec<u32>,
    occupancy: Vec<u64>,
    seen: Vec<u32>,
    stamp: u32,
    queue: Vec<u32>,
}

#[inline]
fn occupied(occ: &[u64], cell: u32) -> bool {
    occ[(cell >> 6) as usize] >> (cell & 63) & 1 != 0
}

#[inline]
fn toggle(occ: &mut [u64], cells: &[u32]) {
    for &c in cells {
        occ[(c >> 6) as usize] ^= 1 << (c & 63);
    }
}

/// Which anchors a piece's tables hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placements {
    /// Those its pieces can reach from their starts on the empty board in their allowed directions.
    Reachable,
    /// Every anchor where its shape fits on open cells (a family lists layouts no start reaches).
    Everywhere,
}

/// A filter on placements: whether piece `i` may have its anchor at a cell (`None`: every one).
pub type Keep<'a> = Option<&'a dyn Fn(usize, Cell) -> bool>;

/// The group tables for pieces of one shape and movement starting at `starts`, holding only the
/// anchors `keep` allows its first member; they must fit in `memory_limit` bytes, checked as
/// placements are found, before the tables are allocated.
fn build_group(
    puzzle: &Puzzle,
    members: Vec<usize>,
    memory_limit: u64,
    placements: Placements,
    keep: Keep,
) -> Result<Group, CompileError> {
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
    let mut found: HashMap<Cell, ()> = HashMap::new();
    let mut stack = Vec::new();
    if placements == Placements::Everywhere {
        let every = (0..board.rows).flat_map(|r| (0..board.cols).map(move |c| (r, c)));
        found.extend(every.filter(|&a| fits(a).is_some()).map(|a| (a, ())));
    }
    for &m in &members {
        let start = puzzle.start[m];
        if fits(start).is_none() {
            return Err(CompileError::BadStart(puzzle.pieces[m].name.clone()));
        }
        if found.insert(start, ()).is_none() {
            stack.push(start);
        }
    }
    let size = piece.shape.offsets().len();
    // Per placement: its cells, entered cells (at most `size` per direction), next table, anchor,
    // and the hash maps of this search.
    let table_bytes = |placements: usize| {
        memory::product(&[placements, size], 20).and_then(|b| b.checked_add(placements as u64 * 96))
    };
    let too_large = |placements: usize| {
        let what = || format!("the move tables of piece '{}' ({placements}+ placements of {size} cells)", piece.name);
        memory::check(what, table_bytes(placements), memory_limit).map(drop).map_err(CompileError::Memory)
    };
    while let Some(a) = stack.pop() {
        if found.len().is_multiple_of(1024) {
            too_large(found.len())?;
        }
        for &d in &dirs {
            if let Some(b) = Dir::ALL[d].step(a)
                && !found.contains_key(&b)
                && fits(b).is_some()
            {
                found.insert(b, ());
                stack.push(b);
            }
        }
    }
    too_large(found.len())?;
    let mut anchors: Vec<Cell> = found.into_keys().collect();
    anchors.sort_unstable();
    let index: HashMap<Cell, u32> = anchors.iter().enumerate().map(|(i, &a)| (a, i as u32)).collect();
    let cells: Vec<u32> = anchors.iter().flat_map(|&a| fits(a).expect("found placements fit")).collect();
    let next: Vec<[u32; 4]> = anchors
        .iter()
        .map(|&a| {
            let mut n = [NONE; 4];
            for &d in &dirs {
                n[d] = Dir::ALL[d].step(a).and_then(|b| index.get(&b).copied()).unwrap_or(NONE);
            }
            n
        })
        .collect();
    let mut enter: [Vec<u32>; 4] = Default::default();
    let mut enter_len = [0usize; 4];
    for d in 0..4 {
        let (dr, dc) = Dir::ALL[d].delta();
        // Offsets are in reading order, so membership is a binary search (linear overall).
        let offsets = piece.shape.offsets();
        let entering: Vec<(isize, isize)> =
            offsets.iter().map(|&(r, c)| (r + dr, c + dc)).filter(|o| offsets.binary_search(o).is_err()).collect();
        enter_len[d] = entering.len();
        for (p, &a) in anchors.iter().enumerate() {
            let moved = next[p][d] != NONE;
            for &(r, c) in &entering {
                let cell = if moved {
                    let (rr, cc) = ((a.0 as isize + r) as usize, (a.1 as isize + c) as usize);
                    (rr * cols + cc) as u32
                } else {
                    0
                };
                enter[d].push(cell);
            }
        }
    }
    Ok(Group { members, dirs, anchors, cells, size, next, enter, enter_len })
}

impl<K: Key> Blocks<K> {
    /// Compiles `puzzle`; fails if a start is invalid, the state does not fit in `K` or the move
    /// tables do not fit in `memory_limit` bytes.
    pub fn compile(puzzle: &Puzzle, memory_limit: u64) -> Result<Self, CompileError> {
        Self::from_tables(puzzle, Tables::build(puzzle, memory_limit, Placements::Reachable, None)?)
    }

    fn from_tables(puzzle: &Puzzle, tables: Tables) -> Result<Self, CompileError> {
        let (fields, words) = tables.layout();
        if words > K::WORDS {
            return Err(CompileError::TooLarge(words * 64));
        }
        let slots: Vec<(usize, Field)> = tables.slot_group.iter().copied().zip(fields).collect();
        let mut domain = Blocks {
            metric: puzzle.metric,
            occupancy_words: puzzle.board.cell_count().div_ceil(64),
            slots,
            groups: tables.groups,
            start: K::zero(),
            goal: GoalTest::Never,
        };
        domain.start = domain.encode(&puzzle.start).expect("start anchors are placements");
        domain.goal = domain.goal_test(puzzle);
        Ok(domain)
    }

    /// The canonical key for per-piece anchors, if every anchor is a placement of its piece.
    fn encode(&self, anchors: &[Cell]) -> Option<K> {
        let mut key = K::zero();
        for group in &self.groups {
            let mut values = Vec::with_capacity(group.members.len());
            for &m in &group.members {
                values.push(group.anchors.binary_search(&anchors[m]).ok()? as u32);
            }
            values.sort_unstable();
            for (&m, v) in group.members.iter().zip(values) {
                self.slots[m].1.set(&mut key, v);
            }
        }
        Some(key)
    }

    fn goal_test(&self, puzzle: &Puzzle) -> GoalTest<K> {
        let placement = |piece: usize, anchor: Cell| {
            let group = &self.groups[self.slots[piece].0];
            group.anchors.binary_search(&anchor).ok().map(|p| p as u32)
        };
        match &puzzle.goal {
            Goal::Layout(target) => self.encode(target).map_or(GoalTest::Never, GoalTest::Key),
            Goal::PiecesAt(list) => list
                .iter()
                .map(|&(p, a)| placement(p, a).map(|v| (self.slots[p].1, v)))
                .collect::<Option<Vec<_>>>()
                .map_or(GoalTest::Never, GoalTest::Fields),
            Goal::Reaches(p, edge) => {
                let (rows, cols) = (puzzle.board.rows as u32, puzzle.board.cols as u32);
                let group = &self.groups[self.slots[*p].0];
                let ok = (0..group.anchors.len() as u32)
                    .map(|pl| {
                        group.cells_of(pl).iter().any(|&c| match edge {
                            Edge::Top => c / cols == 0,
                            Edge::Bottom => c / cols == rows - 1,
                            Edge::Left => c % cols == 0,
                            Edge::Right => c % cols == cols - 1,
                        })
                    })
                    .collect();
                GoalTest::Placements(self.slots[*p].1, ok)
            }
        }
    }

    fn decode_into(&self, key: &K, out: &mut Vec<u32>) {
        out.clear();
        out.extend(self.slots.iter().map(|(_, f)| f.get(key)));
    }

    /// Number of placements each piece can take (the size of its move tables).
    pub fn placement_counts(&self) -> Vec<usize> {
        self.slots.iter().map(|&(g, _)| self.groups[g].anchors.len()).collect()
    }

    /// Writes placement `value` for `slot` into `child` (a copy of the key whose placements are
    /// `placement`), keeping its group sorted: the other members keep their order, so the new value
    /// only has to move past its neighbours, as in one step of insertion sort.
    #[inline]
    fn place(&self, child: &mut K, slot: usize, value: u32, placement: &[u32]) {
        let (g, field) = self.slots[slot];
        let members = &self.groups[g].members;
        if members.len() == 1 {
            field.set(child, value);
            return;
        }
        let mut k = members.iter().position(|&m| m == slot).expect("a slot is a member of its group");
        if value > placement[slot] {
            while k + 1 < members.len() && placement[members[k + 1]] < value {
                self.slots[members[k]].1.set(child, placement[members[k + 1]]);
                k += 1;
            }
        } else {
            while k > 0 && placement[members[k - 1]] > value {
                self.slots[members[k]].1.set(child, placement[members[k - 1]]);
                k -= 1;
            }
        }
        self.slots[members[k]].1.set(child, value);
    }
}

/// The key-independent part of a compiled puzzle: groups and each piece's group.
struct Tables {
    groups: Vec<Group>,
    slot_group: Vec<usize>,
}

impl Tables {
    /// The key fields of every piece and the number of 64-bit words they need.
    fn layout(&self) -> (Vec<Field>, usize) {
        let widths: Vec<u32> = self.slot_group.iter().map(|&g| bits_for(self.groups[g].anchors.len())).collect();
        layout(&widths)
    }

    /// Groups pieces into identity classes and builds their tables (within `memory_limit` bytes);
    /// checks the start position.
    fn build(puzzle: &Puzzle, memory_limit: u64, placements: Placements, keep: Keep) -> Result<Tables, CompileError> {
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
        let mut slot_group = vec![0; puzzle.pieces.len()];
        let mut group_of_class: HashMap<usize, usize> = HashMap::new();
        for (i, &c) in class.iter().enumerate() {
            if let Some(members) = members_of.remove(&c) {
                group_of_class.insert(c, groups.len());
                groups.push(build_group(puzzle, members, memory_limit, placements, keep)?);
            }
            slot_group[i] = group_of_class[&c];
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
        Ok(Tables { groups, slot_group })
    }
}

impl<K: Key> Domain for Blocks<K> {
    type Key = K;
    type Scratch = BlockScratch;

    fn scratch(&self) -> BlockScratch {
        let most = self.groups.iter().map(|g| g.anchors.len()).max().unwrap_or(0);
        BlockScratch {
            placement: Vec::with_capacity(self.slots.len()),
            occupancy: vec![0; self.occupancy_words],
            seen: vec![0; most],
            stamp: 0,
            queue: Vec::with_capacity(most),
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

    fn goal_key(&self) -> Option<K> {
        match &self.goal {
            GoalTest::Key(k) => Some(*k),
            _ => None,
        }
    }

    fn for_each_successor<F: FnMut(K)>(&self, key: &K, s: &mut BlockScratch, mut f: F) {
        self.decode_into(key, &mut s.placement);
        s.occupancy.iter_mut().for_each(|w| *w = 0);
        for (slot, &(g, _)) in self.slots.iter().enumerate() {
            toggle(&mut s.occupancy, self.groups[g].cells_of(s.placement[slot]));
        }
        for (slot, &(g, _)) in self.slots.iter().enumerate() {
            let group = &self.groups[g];
            if group.dirs.is_empty() {
                continue;
            }
            let p = s.placement[slot];
            toggle(&mut s.occupancy, group.cells_of(p));
            let free = |occ: &[u64], from: u32, d: usize| group.entering(from, d).iter().all(|&c| !occupied(occ, c));
            match self.metric {
                Metric::Unit | Metric::Straight => {
                    for &d in &group.dirs {
                        let mut cur = p;
                        loop {
                            let nxt = group.next[cur as usize][d];
                            if nxt == NONE || !free(&s.occupancy, cur, d) {
                                break;
                            }
                            let mut child = *key;
                            self.place(&mut child, slot, nxt, &s.placement);
                            f(child);
                            if self.metric == Metric::Unit {
                                break;
                            }
                            cur = nxt;
                        }
                    }
                }
                Metric::Free => {
                    s.stamp = s.stamp.wrapping_add(1);
                    if s.stamp == 0 {
                        s.seen.iter_mut().for_each(|x| *x = 0);
                        s.stamp = 1;
                    }
                    s.seen[p as usize] = s.stamp;
                    s.queue.clear();
                    s.queue.push(p);
                    let mut head = 0;
                    while head < s.queue.len() {
                        let cur = s.queue[head];
                        head += 1;
                        for &d in &group.dirs {
                            let nxt = group.next[cur as usize][d];
                            if nxt == NONE || s.seen[nxt as usize] == s.stamp || !free(&s.occupancy, cur, d) {
                                continue;
                            }
                            s.seen[nxt as usize] = s.stamp;
                            s.queue.push(nxt);
                            let mut child = *key;
                            self.place(&mut child, slot, nxt, &s.placement);
                            f(child);
                        }
                    }
                }
            }
            toggle(&mut s.occupancy, group.cells_of(p));
        }
    }

    fn moved_anchor(&self, from: &K, to: &K) -> Option<(Cell, Cell)> {
        for group in &self.groups {
            let mut a: Vec<u32> = group.members.iter().map(|&m| self.slots[m].1.get(from)).collect();
            let mut b: Vec<u32> = group.members.iter().map(|&m| self.slots[m].1.get(to)).collect();
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
        self.slots.iter().map(|&(g, f)| self.groups[g].anchors[f.get(key) as usize]).collect()
    }

    fn for_each_placement(&self, f: &mut dyn FnMut(K) -> ControlFlow<()>) -> bool {
        let cells = self.occupancy_words * 64;
        let mut occupied = vec![false; cells];
        let mut chosen = vec![0u32; self.slots.len()];
        let _ = self.place_all(0, &mut occupied, &mut chosen, f);
        true
    }
}

impl<K: Key> Blocks<K> {
    /// Backtracking for [`Domain::for_each_placement`]: pieces `slot..` still to place; members of
    /// a group take increasing placement indices, which is the canonical order.
    fn place_all(
        &self,
        slot: usize,
        occupied: &mut [bool],
        chosen: &mut [u32],
        f: &mut dyn FnMut(K) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if slot == self.slots.len() {
            let mut key = K::zero();
            for (&(_, field), &p) in self.slots.iter().zip(chosen.iter()) {
                field.set(&mut key, p);
            }
            return f(key);
        }
        let g = self.slots[slot].0;
        let group = &self.groups[g];
        let first = match (0..slot).rev().find(|&s| self.slots[s].0 == g) {
            Some(previous) => chosen[previous] + 1,
            None => 0,
        };
        for p in first..group.anchors.len() as u32 {
            let cells = group.cells_of(p);
            if cells.iter().any(|&c| occupied[c as usize]) {
                continue;
            }
            for &c in cells {
                occupied[c as usize] = true;
            }
            chosen[slot] = p;
            let flow = self.place_all(slot + 1, occupied, chosen, f);
            for &c in cells {
                occupied[c as usize] = false;
            }
            flow?;
        }
        ControlFlow::Continue(())
    }
}

/// Compiles `puzzle` (its tables within `memory_limit` bytes) with the narrowest key type that
/// holds its state and runs `task` on it.
pub fn with_block_domain<T: DomainTask>(
    puzzle: &Puzzle,
    memory_limit: u64,
    task: T,
) -> Result<T::Output, CompileError> {
    with_block_tables(puzzle, memory_limit, Placements::Reachable, None, task)
}

/// Compiles `puzzle` as [`with_block_domain`] does, each piece's tables holding `placements` that
/// `keep` allows, and runs `task` on it.
pub fn with_block_tables<T: DomainTask>(
    puzzle: &Puzzle,
    memory_limit: u64,
    placements: Placements,
    keep: Keep,
    task: T,
) -> Result<T::Output, CompileError> {
    let tables = Tables::build(puzzle, memory_limit, placements, keep)?;
    Ok(match tables.layout().1 {
        1 => task.run(&Blocks::<u64>::from_tables(puzzle, tables)?),
        2 => task.run(&Blocks::<u128>::from_tables(puzzle, tables)?),
        3..=4 => task.run(&Blocks::<Wide<4>>::from_tables(puzzle, tables)?),
        5..=16 => task.run(&Blocks::<Wide<16>>::from_tables(puzzle, tables)?),
        17..=64 => task.run(&Blocks::<Wide<64>>::from_tables(puzzle, tables)?),
        words => return Err(CompileError::TooLarge(words * 64)),
    })
}
