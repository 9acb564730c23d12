//! Listing layouts of a [`Blocks`] domain: every legal layout ([`Blocks::list_all`]), or only the
//! *seeds* ([`Blocks::list_seeds`]), the layouts in which no piece can take a step up or left
//! (or the goal seeds: goal layouts in which no piece but the goal's can).
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

/// The pieces of one group still to place at some depth of the layout listing.
#[derive(Debug)]
struct Pending {
    group: usize,
    /// The cells they cover together.
    cells: u32,
    /// The slot of the group's member placed just before them, if any: they take later placements.
    after: Option<usize>,
}

/// The working state of [`Domain::for_each_placement`] on [`Blocks`].
struct Listing<O> {
    /// Per slot, the groups still to place from that slot on.
    pending: Vec<Vec<Pending>>,
    /// The cells of the pieces placed.
    occ: O,
    /// The placement of every piece placed.
    chosen: Vec<u32>,
    /// The cells one pending group can still reach, and all of them together.
    one: O,
    all: O,
}

impl<K: Key, C: CellSets> Blocks<K, C> {
    /// Calls `f` with every legal layout in the order of a plain scan over the placements of every
    /// piece, the first piece slowest, until `f` breaks.
    pub(super) fn list_all(&self, f: &mut dyn FnMut(K) -> ControlFlow<()>) {
        let mut listing = Listing {
            pending: (0..self.slots.len()).map(|slot| self.pending(slot)).collect(),
            occ: self.sets.occupancy(),
            chosen: vec![0; self.slots.len()],
            one: self.sets.occupancy(),
            all: self.sets.occupancy(),
        };
        let _ = self.place_all(0, &mut listing, f);
    }

    /// The groups with members at `slot` or after, as [`Listing::pending`] holds them.
    fn pending(&self, slot: usize) -> Vec<Pending> {
        let mut pending = Vec::new();
        for (group, g) in self.groups.iter().enumerate() {
            let left = g.members.iter().filter(|&&m| m >= slot).count() as u32;
            if left > 0 {
                let after = g.members.iter().copied().rfind(|&m| m < slot);
                pending.push(Pending { group, cells: left * g.size as u32, after });
            }
        }
        pending
    }

    /// Whether the pieces from `slot` on may still fit: each pending group can reach (with the
    /// placements free of the placed pieces and after its last placed member's) at least as many
    /// cells as its pieces cover, and all of them together at least as many as they all cover.
    /// Failing it, no layout extends the placed pieces; passing it, perhaps none does.
    fn may_fit(&self, slot: usize, listing: &mut Listing<C::Occupancy>) -> bool {
        let Listing { pending, occ, chosen, one, all } = listing;
        self.sets.clear(all);
        let mut needed = 0;
        for p in &pending[slot] {
            self.sets.clear(one);
            let first = self.bases[p.group] + p.after.map_or(0, |m| chosen[m] + 1);
            for place in &self.places[first as usize..self.bases[p.group + 1] as usize] {
                if self.sets.disjoint(occ, place.cells) {
                    self.sets.cover(one, place.cells);
                    self.sets.cover(all, place.cells);
                }
            }
            if self.sets.count(one) < p.cells {
                return false;
            }
            needed += p.cells;
        }
        self.sets.count(all) >= needed
    }

    /// Backtracking for [`Domain::for_each_placement`]: pieces `slot..` still to place; members of
    /// a group take increasing placement indices, which is the canonical order. Partial layouts
    /// that fail [`Self::may_fit`] are abandoned, which drops no layout and keeps the order.
    fn place_all(
        &self,
        slot: usize,
        listing: &mut Listing<C::Occupancy>,
        f: &mut dyn FnMut(K) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if slot == self.slots.len() {
            let mut key = K::zero();
            for (s, &p) in self.slots.iter().zip(listing.chosen.iter()) {
                s.field.set(&mut key, p);
            }
            return f(key);
        }
        if slot + 1 < self.slots.len() && !self.may_fit(slot, listing) {
            return ControlFlow::Continue(());
        }
        let g = self.slots[slot].group;
        let first = match self.slots[slot].rank {
            0 => 0,
            k => listing.chosen[self.groups[g].members[k - 1]] + 1,
        };
        let places = &self.places[self.bases[g] as usize..self.bases[g + 1] as usize];
        for (p, place) in places.iter().enumerate().skip(first as usize) {
            if !self.sets.disjoint(&listing.occ, place.cells) {
                continue;
            }
            self.sets.toggle(&mut listing.occ, place.cells);
            listing.chosen[slot] = p as u32;
            let flow = self.place_all(slot + 1, listing, f);
            self.sets.toggle(&mut listing.occ, place.cells);
            flow?;
        }
        ControlFlow::Continue(())
    }
}

/// A step a seed's piece must find blocked: the cells it enters (one of them must be occupied) and
/// the last of them in reading order (once the walk has passed it, the answer is final).
#[derive(Clone, Copy, Debug)]
struct Blocked<M> {
    enters: M,
    last: u32,
}

/// The tables of [`Blocks::list_seeds`], shared by the walks of every thread.
struct SeedTables<M> {
    /// Per group and cell, the group's placement anchored there (`NONE`: none).
    anchored: Vec<Vec<u32>>,
    /// Per placement (an index into [`Blocks::places`]), its steps up and left.
    steps: Vec<Vec<Blocked<M>>>,
    /// Per group, for goal seeds: `None` for a group without goal pieces; for one with, whose steps
    /// need not be blocked, the placements its pieces may take.
    goal_groups: Vec<Option<Vec<bool>>>,
    /// Whether only goal layouts are listed.
    goal: bool,
}

/// The most bytes the branches of a seed walk, handed over to be walked side by side, may hold
/// together, whatever the board (as the threads' stacks, outside the memory budget).
const FORK_BYTES: usize = 1 << 20;

/// Branches per thread that a seed walk's fork aims for, so that the threads finish together.
const BRANCHES_PER_THREAD: usize = 64;

/// Seeds a walk keeps between two calls of its `stop`.
const STOP_LOOK: usize = 1 << 14;

/// The working state of [`Blocks::list_seeds`]: the board decided cell by cell in reading order.
#[derive(Clone)]
struct SeedWalk<O, M> {
    /// The cells of the pieces placed, as a cell set and cell by cell.
    occ: O,
    covered: Vec<bool>,
    /// Per slot, the placement chosen; per group, how many members are placed.
    chosen: Vec<u32>,
    placed: Vec<usize>,
    /// Open cells still to be left empty.
    empty: usize,
    /// Steps of placed pieces that must turn out blocked and may still be.
    waiting: Vec<Blocked<M>>,
    /// The first cell at which the walk hands itself over ([`Visit::Fork`]) instead of going on.
    fork_at: usize,
}

/// What a seed walk of [`Blocks<K, C>`] meets, handed to its visitor, which says whether to go on.
type Visitor<'v, K, C> = dyn FnMut(Visit<K, <C as CellSets>::Occupancy, <C as CellSets>::Mask>) -> ControlFlow<()> + 'v;

/// What a seed walk meets: a seed, or itself at its fork cell, to be continued there.
enum Visit<'a, K, O, M> {
    Seed(K),
    Fork(usize, &'a SeedWalk<O, M>),
}

impl<K: Key, C: CellSets> Blocks<K, C> {
    /// Every legal layout in which no piece can step up or left (a step to a placement of its
    /// table whose entered cells are free) that `keep` accepts, in no fixed order; with `goal`,
    /// every such goal layout in which no piece but the goal's can. The board is decided cell by
    /// cell in reading order, each open cell left empty or made the anchor of a piece, so a step
    /// left or up of a bar is known to be blocked or not as soon as the bar is placed. On several
    /// threads the walk forks at a fixed cell and its branches are walked side by side. More than
    /// `most` kept is [`Unlisted::Over`], as soon as it is known; a list that cannot grow is
    /// [`Unlisted::Starved`]. `stop` is asked before the first seed is kept and then every
    /// [`STOP_LOOK`]; true ends the listing ([`Unlisted::Stopped`]).
    pub(super) fn list_seeds(
        &self,
        goal: bool,
        keep: &(dyn Fn(&K) -> bool + Sync),
        stop: &(dyn Fn() -> bool + Sync),
        most: usize,
    ) -> Result<Vec<K>, Unlisted> {
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
                // Up (0) and left (2): the steps to lower placements.
                let lower = [0, 2].into_iter().filter(|&d| group.next[p as usize][d] != NONE);
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
        let tables = SeedTables { anchored, steps, goal_groups, goal };
        let mut walk = SeedWalk {
            occ: self.sets.occupancy(),
            covered: vec![false; cells],
            chosen: vec![0; self.slots.len()],
            placed: vec![0; self.groups.len()],
            empty,
            waiting: Vec::new(),
            fork_at: usize::MAX,
        };
        walk.fork_at = self.fork_cell(&tables, &walk);
        let kept = AtomicUsize::new(0);
        let (over, starved, stopped) = (AtomicBool::new(false), AtomicBool::new(false), AtomicBool::new(false));
        // Keeps a seed in `out` while the count allows, `stop` does not say so and the list can grow.
        let take = |key: K, out: &mut Vec<K>| {
            if !keep(&key) {
                return ControlFlow::Continue(());
            }
            let count = kept.fetch_add(1, Ordering::Relaxed);
            if count >= most || over.load(Ordering::Relaxed) {
                over.store(true, Ordering::Relaxed);
                return ControlFlow::Break(());
            }
            if stopped.load(Ordering::Relaxed) || (count.is_multiple_of(STOP_LOOK) && stop()) {
                stopped.store(true, Ordering::Relaxed);
                return ControlFlow::Break(());
            }
            if starved.load(Ordering::Relaxed) || out.try_reserve(1).is_err() {
                starved.store(true, Ordering::Relaxed);
                return ControlFlow::Break(());
            }
            out.push(key);
            ControlFlow::Continue(())
        };
        let mut seeds = Vec::new();
        let mut forks = Vec::new();
        let _ = self.seed_from(0, &tables, &mut walk, &mut |visit| match visit {
            Visit::Seed(key) => take(key, &mut seeds),
            Visit::Fork(cell, walk) => {
                forks.push((cell, SeedWalk { fork_at: usize::MAX, ..walk.clone() }));
                ControlFlow::Continue(())
            }
        });
        let branches: Vec<Vec<K>> = forks
            .into_par_iter()
            .map(|(cell, mut walk)| {
                let mut out = Vec::new();
                let _ = self.seed_from(cell, &tables, &mut walk, &mut |visit| match visit {
                    Visit::Seed(key) => take(key, &mut out),
                    Visit::Fork(..) => unreachable!("a branch's walk never reaches its fork cell"),
                });
                out
            })
            .collect();
        if stopped.load(Ordering::Relaxed) {
            return Err(Unlisted::Stopped);
        }
        if over.load(Ordering::Relaxed) {
            return Err(Unlisted::Over(most + 1));
        }
        let all = branches.iter().map(Vec::len).sum();
        if starved.load(Ordering::Relaxed) || seeds.try_reserve_exact(all).is_err() {
            return Err(Unlisted::Starved);
        }
        seeds.extend(branches.into_iter().flatten());
        Ok(seeds)
    }

    /// The cell at which a seed walk from `walk` forks: on several threads, the first where it has
    /// branches enough for every thread and no more than [`FORK_BYTES`] hold (each cell's branches
    /// counted by a walk that stops there); on one thread, none (`usize::MAX`).
    fn fork_cell(&self, tables: &SeedTables<C::Mask>, walk: &SeedWalk<C::Occupancy, C::Mask>) -> usize {
        let threads = rayon::current_num_threads();
        if threads == 1 {
            return usize::MAX;
        }
        // A branch holds a walk: its board cell by cell, its choices, at most two waiting steps a
        // piece, and its occupancy.
        let cells = self.open.len();
        let walk_bytes = std::mem::size_of::<SeedWalk<C::Occupancy, C::Mask>>()
            + cells
            + self.slots.len() * (4 + 2 * std::mem::size_of::<Blocked<C::Mask>>())
            + self.groups.len() * 8
            + cells.div_ceil(64) * 8;
        let branches_at = |cell: usize| {
            let mut n = 0;
            let mut probe = SeedWalk { fork_at: cell, ..walk.clone() };
            let _ = self.seed_from(0, tables, &mut probe, &mut |visit| {
                n += matches!(visit, Visit::Fork(..)) as usize;
                ControlFlow::Continue(())
            });
            n
        };
        let mut fork_at = usize::MAX;
        for cell in 1..cells {
            let branches = branches_at(cell);
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

    /// [`SeedWalk::goal_groups`] for goal pieces (by key field) with the placements each may take
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

    /// [`Self::list_seeds`] from cell `cell` on, every earlier cell decided.
    fn seed_from(
        &self,
        cell: usize,
        tables: &SeedTables<C::Mask>,
        walk: &mut SeedWalk<C::Occupancy, C::Mask>,
        f: &mut Visitor<K, C>,
    ) -> ControlFlow<()> {
        let cells = self.open.len();
        let mut i = cell;
        while i < cells && (!self.open[i] || walk.covered[i]) {
            i += 1;
        }
        // A step whose cells are all decided now and all free: the layouts here are no seeds.
        if walk.waiting.iter().any(|b| (b.last as usize) < i && self.sets.disjoint(&walk.occ, b.enters)) {
            return ControlFlow::Continue(());
        }
        if i == cells {
            if walk.empty > 0 {
                return ControlFlow::Continue(());
            }
            let mut key = K::zero();
            for (s, &p) in self.slots.iter().zip(&walk.chosen) {
                s.field.set(&mut key, p);
            }
            if tables.goal && !self.is_goal(&key) {
                return ControlFlow::Continue(());
            }
            return f(Visit::Seed(key));
        }
        if i >= walk.fork_at {
            return f(Visit::Fork(i, walk));
        }
        if walk.empty > 0 {
            walk.empty -= 1;
            let flow = self.seed_from(i + 1, tables, walk, f);
            walk.empty += 1;
            flow?;
        }
        for (g, group) in self.groups.iter().enumerate() {
            let k = walk.placed[g];
            let p = tables.anchored[g][i];
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
            if !free {
                self.sets.toggle(&mut walk.occ, place.cells);
                group.cells_of(p).iter().for_each(|&c| walk.covered[c as usize] = true);
                walk.chosen[self.members[g][k].0] = p;
                walk.placed[g] += 1;
                let flow = self.seed_from(i + 1, tables, walk, f);
                walk.placed[g] -= 1;
                group.cells_of(p).iter().for_each(|&c| walk.covered[c as usize] = false);
                self.sets.toggle(&mut walk.occ, place.cells);
                walk.waiting.truncate(mark);
                flow?;
            }
            walk.waiting.truncate(mark);
        }
        ControlFlow::Continue(())
    }
}
