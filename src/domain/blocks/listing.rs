//! Listing layouts of a [`Blocks`] domain: every legal layout ([`Blocks::list_all`]), or only the
//! *seeds* ([`Blocks::list_seeds`]), the layouts in which no piece can take a step up or left
//! (or the goal seeds: goal layouts in which no piece but the goal's can).
//!
//! Both walk the board cell by cell in reading order: the first cell not yet decided is left empty
//! (while empty cells remain to be had) or covered by a piece anchored there, so a partial layout
//! that cannot be completed fails at the first cell nothing can fill, however the pieces are
//! ordered. Every layout is met once, in no fixed order (the family analysis does not need one).
//!
//! A step up or left lowers the moved piece's placement index (placements are in reading order of
//! their anchors), and so the canonical key: among identical pieces the re-sorted values are each
//! at most what they were. So the least layout of a component in key order has no such step, and
//! the seeds hold every component's least layout; a component can be searched from each seed and
//! given up at the first smaller layout, so each is searched to the end once.

use super::{Blocks, GoalTest, NONE};
use crate::domain::cells::CellSets;
use crate::domain::key::Field;
use crate::domain::{Domain, Key, Unlisted};
use rayon::prelude::*;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A step a seed's piece must find blocked: the cells it enters (one of them must be occupied) and
/// the last of them in reading order (once the walk has passed it, the answer is final).
#[derive(Clone, Copy, Debug)]
struct Blocked<M> {
    enters: M,
    last: u32,
}

/// The tables of a walk ([`Blocks::list_all`], [`Blocks::list_seeds`]), shared by every thread.
struct WalkTables<M> {
    /// Per group and cell, the group's placement anchored there (`NONE`: none).
    anchored: Vec<Vec<u32>>,
    /// Per placement (an index into [`Blocks::places`]), its steps up and left (none when every
    /// layout is listed).
    steps: Vec<Vec<Blocked<M>>>,
    /// Per group, for goal seeds: `None` for a group without goal pieces; for one with, whose steps
    /// need not be blocked, the placements its pieces may take.
    goal_groups: Vec<Option<Vec<bool>>>,
    /// Whether only goal layouts are listed.
    goal: bool,
}

/// The most bytes the branches of a walk, handed over to be walked side by side, may hold
/// together, whatever the board (as the threads' stacks, outside the memory budget).
const FORK_BYTES: usize = 1 << 20;

/// Nodes the probes choosing a walk's fork cell may walk in all (a few milliseconds).
const PROBE_NODES: usize = 1 << 20;

/// Branches per thread that a walk's fork aims for, so that the threads finish together.
const BRANCHES_PER_THREAD: usize = 64;

/// The working state of a walk: the board decided cell by cell in reading order.
#[derive(Clone)]
struct Walk<O, M> {
    /// The cells of the pieces placed, as a cell set and cell by cell.
    occ: O,
    covered: Vec<bool>,
    /// Per slot, the placement chosen; per group, how many members are placed.
    chosen: Vec<u32>,
    placed: Vec<usize>,
    /// Pieces still to be placed.
    unplaced: usize,
    /// Open cells still to be left empty.
    empty: usize,
    /// Steps of placed pieces that must turn out blocked and may still be.
    waiting: Vec<Blocked<M>>,
    /// The first cell at which the walk hands itself over ([`Visit::Fork`]) instead of going on.
    fork_at: usize,
    /// Nodes walked (on one thread, across branches): every [`STOP_LOOK`]th is a [`Visit::Look`].
    nodes: usize,
}

/// What a walk of [`Blocks<K, C>`] meets, handed to its visitor, which says whether to go on.
type Visitor<'v, K, C> = dyn FnMut(Visit<K, <C as CellSets>::Occupancy, <C as CellSets>::Mask>) -> ControlFlow<()> + 'v;

/// What a walk meets: a layout it lists, itself at its fork cell (to be continued there), or a
/// look at whether to stop (every [`STOP_LOOK`] nodes, dead ends included).
enum Visit<'a, K, O, M> {
    Layout(K),
    Fork(usize, &'a Walk<O, M>),
    Look,
}

/// What a walk lists: every layout, or only the seeds (only the goal seeds with `goal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listed {
    All,
    Seeds { goal: bool },
}

/// Nodes a walk visits between two calls of its `stop`.
const STOP_LOOK: usize = 1 << 14;

/// Layouts a thread keeps between two updates of the count shared by every thread (one update a
/// layout would bounce its cache line between the cores).
const TAKE_BATCH: usize = 1 << 10;

/// The layouts one branch of a walk keeps, in chunks of [`TAKE_BATCH`]: the list never copies
/// itself to grow, and holds at most one chunk's spare room (none once finished), so a walk's
/// lists hold no more than their keys, and their join at most twice as much.
struct Kept<K> {
    full: Vec<Vec<K>>,
    last: Vec<K>,
}

impl<K> Kept<K> {
    /// An empty list (nothing allocated until the first layout).
    fn new() -> Self {
        Kept { full: Vec::new(), last: Vec::new() }
    }

    /// Keeps `key`; `Err` when the list could not have the memory to grow.
    fn push(&mut self, key: K) -> Result<(), std::collections::TryReserveError> {
        if self.last.len() == TAKE_BATCH {
            self.full.try_reserve(1)?;
            self.full.push(std::mem::take(&mut self.last));
        }
        if self.last.capacity() == 0 {
            self.last.try_reserve_exact(TAKE_BATCH)?;
        }
        self.last.push(key);
        Ok(())
    }

    /// Gives the last chunk's spare room back; returns the layouts of that chunk if it is not
    /// whole (those not yet counted).
    fn finish(&mut self) -> usize {
        self.last.shrink_to_fit();
        self.last.len() % TAKE_BATCH
    }

    /// The layouts kept.
    fn len(&self) -> usize {
        self.full.len() * TAKE_BATCH + self.last.len()
    }

    /// The chunks, in the order their layouts were kept.
    fn into_chunks(self) -> impl Iterator<Item = Vec<K>> {
        self.full.into_iter().chain(std::iter::once(self.last))
    }
}

impl<K: Key, C: CellSets> Blocks<K, C> {
    /// Every legal layout, in no fixed order (walked on every thread). `stop` is asked before the
    /// walk starts and then every [`STOP_LOOK`] nodes of it; true ends the listing
    /// ([`Unlisted::Stopped`]). More than `most` is [`Unlisted::Over`], as soon as it is known; a
    /// list that cannot grow is [`Unlisted::Starved`].
    pub(super) fn list_all(&self, most: usize, stop: &(dyn Fn() -> bool + Sync)) -> Result<Vec<K>, Unlisted> {
        self.walk(Listed::All, &|_| true, stop, most)
    }

    /// Every legal layout in which no piece can step up or left (a step to a placement of its
    /// table whose entered cells are free) that `keep` accepts, in no fixed order; with `goal`,
    /// every such goal layout in which no piece but the goal's can. A step left or up of a bar is
    /// known to be blocked or not as soon as the walk has placed the bar. `stop`, `most` and the
    /// errors as in [`Self::list_all`].
    pub(super) fn list_seeds(
        &self,
        goal: bool,
        keep: &(dyn Fn(&K) -> bool + Sync),
        stop: &(dyn Fn() -> bool + Sync),
        most: usize,
    ) -> Result<Vec<K>, Unlisted> {
        self.walk(Listed::Seeds { goal }, keep, stop, most)
    }

    /// The layouts `listed` asks for that `keep` accepts, in no fixed order: the board decided cell
    /// by cell in reading order, each open cell left empty or made the anchor of a piece. On
    /// several threads the walk forks at a fixed cell and its branches are walked side by side.
    /// `stop`, `most` and the errors as in [`Self::list_all`].
    fn walk(
        &self,
        listed: Listed,
        keep: &(dyn Fn(&K) -> bool + Sync),
        stop: &(dyn Fn() -> bool + Sync),
        most: usize,
    ) -> Result<Vec<K>, Unlisted> {
        let goal = listed == Listed::Seeds { goal: true };
        let goal_groups = match (goal, &self.goal) {
            (false, _) => vec![None; self.groups.len()],
            (true, GoalTest::Never) => return Ok(Vec::new()),
            (true, GoalTest::Key(key)) => {
                // The one goal layout is the least of its component's goal layouts.
                return match keep(key) {
                    true if most == 0 => Err(Unlisted::Over(1)),
                    true => Ok(vec![*key]),
                    false => Ok(Vec::new()),
                };
            }
            (true, GoalTest::Fields(list)) => self.goal_groups(list.iter().map(|&(field, v)| {
                let n = self.groups[self.group_of(field)].anchors.len();
                (field, (0..n as u32).map(|p| p == v).collect())
            })),
            (true, GoalTest::Placements(field, ok)) => self.goal_groups([(*field, ok.clone())].into_iter()),
        };
        let cells = self.open.len();
        let covered: usize = self.groups.iter().map(|g| g.members.len() * g.size).sum();
        let Some(empty) = self.open.iter().filter(|&&o| o).count().checked_sub(covered) else { return Ok(Vec::new()) };
        let mut anchored = Vec::with_capacity(self.groups.len());
        let mut steps = Vec::with_capacity(self.places.len());
        for (g, group) in self.groups.iter().enumerate() {
            let mut at = vec![NONE; cells];
            for p in 0..group.anchors.len() as u32 {
                at[group.cells_of(p)[0] as usize] = p;
                let place = &self.places[(self.bases[g] + p) as usize];
                // Up (0) and left (2): the steps to lower placements (none to be blocked when
                // every layout is listed).
                let seeds = listed != Listed::All;
                let lower = [0, 2].into_iter().filter(|&d| seeds && group.next[p as usize][d] != NONE);
                steps.push(
                    lower
                        .map(|d| Blocked {
                            enters: place.enter[d],
                            last: *group.entered(p, d).last().expect("a step enters a cell"),
                        })
                        .collect(),
                );
            }
            anchored.push(at);
        }
        let tables = WalkTables { anchored, steps, goal_groups, goal };
        let mut walk = Walk {
            occ: self.sets.occupancy(),
            covered: vec![false; cells],
            chosen: vec![0; self.slots.len()],
            placed: vec![0; self.groups.len()],
            unplaced: self.slots.len(),
            empty,
            waiting: Vec::new(),
            fork_at: usize::MAX,
            nodes: 0,
        };
        walk.fork_at = self.fork_cell(&tables, &walk);
        let kept = AtomicUsize::new(0);
        let (over, starved, stopped) = (AtomicBool::new(false), AtomicBool::new(false), AtomicBool::new(false));
        // Whether to go on: not when `stop` says so, now or for another branch.
        let look = || {
            if stopped.load(Ordering::Relaxed) || stop() {
                stopped.store(true, Ordering::Relaxed);
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        };
        // The layouts of a list not yet in the shared count `kept`: a whole chunk of `TAKE_BATCH`,
        // or its last chunk at the end of its branch.
        let count = |n: usize| {
            if kept.fetch_add(n, Ordering::Relaxed) + n > most {
                over.store(true, Ordering::Relaxed);
            }
        };
        // Keeps a layout in `out` while the count allows and the list can grow.
        let take = |key: K, out: &mut Kept<K>| {
            if !keep(&key) {
                return ControlFlow::Continue(());
            }
            if over.load(Ordering::Relaxed) {
                return ControlFlow::Break(());
            }
            if starved.load(Ordering::Relaxed) || out.push(key).is_err() {
                starved.store(true, Ordering::Relaxed);
                return ControlFlow::Break(());
            }
            if out.last.len() == TAKE_BATCH {
                count(TAKE_BATCH);
            }
            ControlFlow::Continue(())
        };
        let mut seeds = Kept::new();
        let mut forks = Vec::new();
        if look().is_continue() {
            let _ = self.walk_from(0, &tables, &mut walk, &mut |visit| match visit {
                Visit::Layout(key) => take(key, &mut seeds),
                Visit::Look => look(),
                Visit::Fork(cell, walk) => {
                    forks.push((cell, Walk { fork_at: usize::MAX, ..walk.clone() }));
                    ControlFlow::Continue(())
                }
            });
            count(seeds.finish());
        }
        let branches: Vec<Kept<K>> = forks
            .into_par_iter()
            // A thread's nodes are counted across its branches, which may each be short.
            .map_init(
                || 0,
                |nodes, (cell, mut walk)| {
                    let mut out = Kept::new();
                    walk.nodes = *nodes;
                    let _ = self.walk_from(cell, &tables, &mut walk, &mut |visit| match visit {
                        Visit::Layout(key) => take(key, &mut out),
                        Visit::Look => look(),
                        Visit::Fork(..) => unreachable!("a branch's walk never reaches its fork cell"),
                    });
                    *nodes = walk.nodes;
                    count(out.finish());
                    out
                },
            )
            .collect();
        let all = seeds.len() + branches.iter().map(Kept::len).sum::<usize>();
        if stopped.load(Ordering::Relaxed) {
            return Err(Unlisted::Stopped(all.min(most)));
        }
        if over.load(Ordering::Relaxed) {
            return Err(Unlisted::Over(most + 1));
        }
        let mut joined = Vec::new();
        if starved.load(Ordering::Relaxed) || joined.try_reserve_exact(all).is_err() {
            return Err(Unlisted::Starved);
        }
        // Each chunk is freed as soon as it is copied.
        for chunk in std::iter::once(seeds).chain(branches).flat_map(Kept::into_chunks) {
            joined.extend(chunk);
        }
        Ok(joined)
    }

    /// The cell at which a walk from `walk` forks: on several threads, the first where it has
    /// branches enough for every thread and no more than [`FORK_BYTES`] hold (each cell's branches
    /// counted by a walk that stops there); on one thread, none (`usize::MAX`).
    fn fork_cell(&self, tables: &WalkTables<C::Mask>, walk: &Walk<C::Occupancy, C::Mask>) -> usize {
        let threads = rayon::current_num_threads();
        if threads == 1 {
            return usize::MAX;
        }
        // A branch holds a walk: its board cell by cell, its choices, at most two waiting steps a
        // piece, and its occupancy.
        let cells = self.open.len();
        let walk_bytes = std::mem::size_of::<Walk<C::Occupancy, C::Mask>>()
            + cells
            + self.slots.len() * (4 + 2 * std::mem::size_of::<Blocked<C::Mask>>())
            + self.groups.len() * 8
            + cells.div_ceil(64) * 8;
        // Nodes the probes walked, each from the first cell: on a large board with few branches,
        // probing every cell would take time quadratic in its cells.
        let mut probed = 0;
        let branches_at = |cell: usize| {
            let mut n = 0;
            let mut probe = Walk { fork_at: cell, nodes: 0, ..walk.clone() };
            let _ = self.walk_from(0, tables, &mut probe, &mut |visit| {
                n += matches!(visit, Visit::Fork(..)) as usize;
                ControlFlow::Continue(())
            });
            (n, probe.nodes)
        };
        let mut fork_at = usize::MAX;
        for cell in 1..cells {
            if probed > PROBE_NODES {
                break;
            }
            let (branches, nodes) = branches_at(cell);
            probed += nodes;
            if branches > FORK_BYTES / walk_bytes {
                break;
            }
            fork_at = cell;
            if branches >= BRANCHES_PER_THREAD * threads {
                break;
            }
        }
        fork_at
    }

    /// The group of the piece whose key field is `field`.
    fn group_of(&self, field: Field) -> usize {
        self.slots.iter().find(|s| s.field == field).expect("a goal names a piece").group
    }

    /// [`Walk::goal_groups`] for goal pieces (by key field) with the placements each may take
    /// in a goal layout: a group's placements are limited only when the goal piece is its one
    /// member (identical pieces trade places in the key; the leaf test decides then).
    fn goal_groups(&self, pieces: impl Iterator<Item = (Field, Vec<bool>)>) -> Vec<Option<Vec<bool>>> {
        let mut groups: Vec<Option<Vec<bool>>> = vec![None; self.groups.len()];
        for (field, ok) in pieces {
            let g = self.group_of(field);
            groups[g] = Some(match self.groups[g].members.len() {
                1 => ok,
                _ => vec![true; self.groups[g].anchors.len()],
            });
        }
        groups
    }

    /// [`Self::walk`] from cell `cell` on, every earlier cell decided. Depth first, on a stack of
    /// its own (one node a decided cell, as deep as the board has open cells, on the heap).
    fn walk_from(
        &self,
        cell: usize,
        tables: &WalkTables<C::Mask>,
        walk: &mut Walk<C::Occupancy, C::Mask>,
        f: &mut Visitor<K, C>,
    ) -> ControlFlow<()> {
        let mut nodes: Vec<Node> = Vec::new();
        let mut next = Some(cell);
        loop {
            if let Some(cell) = next.take() {
                match self.enter(cell, tables, walk, f) {
                    ControlFlow::Continue(Some(i)) => nodes.push(Node { cell: i, next: 0, made: Choice::None }),
                    ControlFlow::Continue(None) => {}
                    ControlFlow::Break(()) => {
                        nodes.iter().rev().for_each(|node| self.undo(node.made, walk));
                        return ControlFlow::Break(());
                    }
                }
            }
            let Some(node) = nodes.last_mut() else { return ControlFlow::Continue(()) };
            self.undo(std::mem::replace(&mut node.made, Choice::None), walk);
            match self.choose(node, tables, walk) {
                true => next = Some(node.cell + 1),
                false => drop(nodes.pop()),
            }
        }
    }

    /// Enters the node of a walk at `cell`: the first undecided cell from there on if the walk
    /// goes on to decide it, `None` if the node ends there (a dead end, a layout handed to `f`, or
    /// the fork).
    fn enter(
        &self,
        cell: usize,
        tables: &WalkTables<C::Mask>,
        walk: &mut Walk<C::Occupancy, C::Mask>,
        f: &mut Visitor<K, C>,
    ) -> ControlFlow<(), Option<usize>> {
        walk.nodes += 1;
        if walk.nodes.is_multiple_of(STOP_LOOK) {
            f(Visit::Look)?;
        }
        let cells = self.open.len();
        let mut i = cell;
        while i < cells && (!self.open[i] || walk.covered[i]) {
            i += 1;
        }
        // With every piece placed, every open cell left is empty (as many as remain to be): the
        // layout is decided, without a node for each of those cells.
        let decided = if walk.unplaced == 0 { cells } else { i };
        // A step whose cells are all decided now and all free: the layouts here are no seeds (none
        // waits when every layout is listed).
        if walk.waiting.iter().any(|b| (b.last as usize) < decided && self.sets.disjoint(&walk.occ, b.enters)) {
            return ControlFlow::Continue(None);
        }
        if decided == cells {
            if walk.unplaced > 0 {
                return ControlFlow::Continue(None);
            }
            let mut key = K::zero();
            for (s, &p) in self.slots.iter().zip(&walk.chosen) {
                s.field.set(&mut key, p);
            }
            if !tables.goal || self.is_goal(&key) {
                f(Visit::Layout(key))?;
            }
            return ControlFlow::Continue(None);
        }
        if i >= walk.fork_at {
            f(Visit::Fork(i, walk))?;
            return ControlFlow::Continue(None);
        }
        ControlFlow::Continue(Some(i))
    }

    /// Makes the next choice of `node` in order (its cell left empty while empty cells remain,
    /// then a piece of each group in turn anchored there, where it fits and no step of a seed's
    /// piece is already known free); false when none is left.
    fn choose(&self, node: &mut Node, tables: &WalkTables<C::Mask>, walk: &mut Walk<C::Occupancy, C::Mask>) -> bool {
        let i = node.cell;
        if node.next == 0 {
            node.next = 1;
            if walk.empty > 0 {
                walk.empty -= 1;
                node.made = Choice::Empty;
                return true;
            }
        }
        while node.next <= self.groups.len() {
            let g = node.next - 1;
            node.next += 1;
            let (group, k, p) = (&self.groups[g], walk.placed[g], tables.anchored[g][i]);
            if k == group.members.len() || p == NONE {
                continue;
            }
            if tables.goal_groups[g].as_ref().is_some_and(|ok| !ok[p as usize]) {
                continue;
            }
            let place = &self.places[(self.bases[g] + p) as usize];
            if !self.sets.disjoint(&walk.occ, place.cells) {
                continue;
            }
            let mark = walk.waiting.len();
            let mut free = false;
            let exempt = tables.goal_groups[g].is_some();
            for &b in tables.steps[(self.bases[g] + p) as usize].iter().filter(|_| !exempt) {
                if self.sets.disjoint(&walk.occ, b.enters) {
                    // Cells before `i` are decided; the piece itself covers `i`.
                    free |= (b.last as usize) < i;
                    walk.waiting.push(b);
                }
            }
            if free {
                walk.waiting.truncate(mark);
                continue;
            }
            self.sets.toggle(&mut walk.occ, place.cells);
            group.cells_of(p).iter().for_each(|&c| walk.covered[c as usize] = true);
            walk.chosen[self.members[g][k].0] = p;
            walk.placed[g] += 1;
            walk.unplaced -= 1;
            node.made = Choice::Piece { group: g, place: p, mark };
            return true;
        }
        false
    }

    /// Takes back the choice `made` at a node.
    fn undo(&self, made: Choice, walk: &mut Walk<C::Occupancy, C::Mask>) {
        match made {
            Choice::None => {}
            Choice::Empty => walk.empty += 1,
            Choice::Piece { group: g, place: p, mark } => {
                walk.placed[g] -= 1;
                walk.unplaced += 1;
                self.groups[g].cells_of(p).iter().for_each(|&c| walk.covered[c as usize] = false);
                self.sets.toggle(&mut walk.occ, self.places[(self.bases[g] + p) as usize].cells);
                walk.waiting.truncate(mark);
            }
        }
    }
}

/// A node of a walk on its stack: the cell it decides, the next choice to make there (0: leaving
/// it empty; `1 + g`: a piece of group `g`) and the choice being walked.
struct Node {
    cell: usize,
    next: usize,
    made: Choice,
}

/// A choice made at a node, as [`Blocks::undo`] takes it back: none yet, the cell left empty, or
/// a piece of `group` at `place` (with the length of the waiting steps before it).
#[derive(Clone, Copy)]
enum Choice {
    None,
    Empty,
    Piece { group: usize, place: u32, mark: usize },
}

#[cfg(test)]
mod tests {
    use super::{Kept, TAKE_BATCH};

    /// A branch's list keeps its layouts in order in whole chunks and one last chunk, which
    /// finishing trims to its length and reports as not yet counted.
    #[test]
    fn a_branch_list_keeps_whole_chunks_and_a_trimmed_last_one() {
        let n = 2 * TAKE_BATCH + 5;
        let mut kept = Kept::new();
        for key in 0..n {
            kept.push(key).unwrap();
        }
        assert_eq!(kept.len(), n);
        assert_eq!(kept.finish(), 5);
        assert_eq!(kept.last.capacity(), 5);
        assert!(kept.full.iter().all(|c| c.len() == TAKE_BATCH && c.capacity() == TAKE_BATCH));
        assert_eq!(kept.into_chunks().flatten().collect::<Vec<_>>(), (0..n).collect::<Vec<_>>());
        let mut whole = Kept::new();
        (0..TAKE_BATCH).for_each(|key| whole.push(key).unwrap());
        assert_eq!(whole.finish(), 0);
    }
}
