//! The move graph over every legal layout of one piece set: its connected components and, from
//! all goal layouts at once, each layout's distance to the nearest goal.
//!
//! One pass expands every layout exactly once: a multi-source breadth-first search from the goal
//! layouts labels the solvable components and their distances, joining labels where two searches
//! meet; a flood fill from each layout still unlabelled labels the unsolvable ones. The layouts
//! come from [`Domain::layouts`] in no fixed order, and nothing depends on it: components are
//! numbered by their least layout in *layout order* ([`Domain::layout_cmp`]), the
//! *representative*, and a component's *hardest* layout is its least one at the largest distance
//! (given an order of layouts, its least in that order there, then in layout order).

use crate::domain::{Domain, DomainTask, Unlisted};
use crate::memory::{self, TooLarge};
use crate::puzzle::Cell;
use crate::reserve::Watch;
use crate::search::LimitHit;
use hashbrown::HashMap;
use hashbrown::hash_map::Entry;
use std::sync::OnceLock;
use std::time::Instant;

const NONE: u32 = u32::MAX;

/// Bytes held per layout: its key, a hash-map entry (key, label, distance, control byte, slack up
/// to a doubled table) and a queue slot (key, label, distance).
fn bytes_per_layout(key_bytes: u64) -> u64 {
    5 * key_bytes + 36
}

/// Bytes of one component of `pieces` pieces as an analysis reports it and its class keeps it
/// until written: the [`Component`] with its two [`Layout`]s, then its row with two one-line
/// layouts of `row_chars` characters. Small allocations are counted in whole 16-byte units.
pub fn component_bytes(pieces: usize, row_chars: usize) -> u64 {
    let heap = |bytes: usize| bytes.div_ceil(16) as u64 * 16;
    let layout = heap(std::mem::size_of::<[u32; 2]>() * pieces);
    let row = std::mem::size_of::<super::ComponentRow>() as u64 + 2 * heap(row_chars);
    std::mem::size_of::<Component>() as u64 + 2 * layout + row
}

/// A layout kept compactly until it is written: each piece's anchor as two `u32`s (a `Cell` takes
/// sixteen bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout(Box<[[u32; 2]]>);

impl Layout {
    /// The layout of these anchors.
    pub fn of(anchors: &[Cell]) -> Layout {
        let narrow = |x: usize| u32::try_from(x).expect("a board side holds fewer than 2^32 cells");
        Layout(anchors.iter().map(|&(r, c)| [narrow(r), narrow(c)]).collect())
    }

    /// Bytes its anchors take on the heap.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.0)
    }

    /// Its anchors, one per piece.
    pub fn anchors(&self) -> Vec<Cell> {
        self.0.iter().map(|&[r, c]| (r as usize, c as usize)).collect()
    }
}

/// One connected component of the layout graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    /// Layouts in the component.
    pub size: u64,
    /// Layouts in it that meet the goal.
    pub goal_layouts: u64,
    /// The largest distance to a goal layout; `None` when the component has no goal layout.
    pub hardest_moves: Option<u32>,
    /// The least layout at the largest distance (`None` when unsolvable).
    pub hardest: Option<Layout>,
    /// The component's least layout.
    pub representative: Layout,
    /// When asked for ([`Analyse::moved`]): bit `p` is set when one shortest path from the hardest
    /// layout to a goal layout moves piece `p` (a family has at most 64 pieces); 0 otherwise.
    pub moved: u64,
}

/// Which pieces of `path[0]`'s anchors move along `path`, a sequence of adjacent layouts: bit `p`
/// for piece `p` (the domain has at most 64 pieces, as a family has).
pub fn moved_pieces<D: Domain>(domain: &D, path: impl IntoIterator<Item = D::Key>) -> u64 {
    let mut path = path.into_iter();
    let Some(first) = path.next() else { return 0 };
    let mut anchors = domain.anchors(&first);
    assert!(anchors.len() <= 64, "moved pieces are kept for at most 64 pieces");
    let mut moved = 0;
    let mut here = first;
    for next in path {
        let (from, to) = domain.moved_anchor(&here, &next).expect("adjacent layouts differ in one piece");
        let k = anchors.iter().position(|&a| a == from).expect("the moved piece was there");
        anchors[k] = to;
        moved |= 1 << k;
        here = next;
    }
    moved
}

/// Every component of a piece set's layout graph, in the order of their representatives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Legal layouts of the piece set.
    pub layouts: u64,
    /// The components.
    pub components: Vec<Component>,
    /// The component holding the domain's start layout.
    pub start_component: Option<usize>,
    /// Bytes the analysis held at its largest (its tables, by the estimate checked against the budget).
    pub peak_bytes: u64,
    /// The limit that stopped it ([`Analyse::max_layouts`], [`Analyse::deadline`], or
    /// [`LimitHit::Memory`] when a table could not have the memory the budget allowed): `layouts`
    /// then counts the layouts listed so far, and `components` is empty.
    pub stopped: Option<LimitHit>,
}

impl Analysis {
    /// The analysis stopped by `hit` after listing `layouts` layouts.
    pub(super) fn stopped(hit: LimitHit, layouts: usize, peak_bytes: u64) -> Analysis {
        Analysis {
            layouts: layouts as u64,
            components: Vec::new(),
            start_component: None,
            peak_bytes,
            stopped: Some(hit),
        }
    }

    /// The analysis of the solvable components alone (those with a goal layout) and their layouts.
    pub fn solvable_only(self) -> Analysis {
        let solvable = |c: &Component| c.goal_layouts > 0;
        let start_component = self
            .start_component
            .filter(|&i| solvable(&self.components[i]))
            .map(|i| self.components[..i].iter().filter(|c| solvable(c)).count());
        let components: Vec<Component> = self.components.into_iter().filter(solvable).collect();
        Analysis { layouts: components.iter().map(|c| c.size).sum(), components, start_component, ..self }
    }
}

/// A total order of layouts given by a rank of their anchors (smaller first).
pub type Order<'a> = &'a (dyn Fn(&[Cell]) -> u128 + Sync);

/// A test of a layout's anchors that every layout of a component passes or fails alike; the
/// components that fail it are left out of an analysis.
pub type Invariant<'a> = &'a (dyn Fn(&[Cell]) -> bool + Sync);

/// A test of a layout's anchors: whether it counts for its component's hardest layout (a start
/// the family's `start:` allows).
pub type Starts<'a> = &'a (dyn Fn(&[Cell]) -> bool + Sync);

/// The analysis of a compiled domain whose tables must fit in `memory_limit` bytes; `None` when the
/// domain cannot list its layouts (sliding tiles).
pub struct Analyse<'a> {
    /// The memory budget in bytes.
    pub memory_limit: u64,
    /// The order that picks among equally hard layouts (`None`: the least in layout order).
    pub order: Option<Order<'a>>,
    /// The components to keep (`None`: all).
    pub invariant: Option<Invariant<'a>>,
    /// The layouts a hardest layout is chosen from (`None`: all).
    pub starts: Option<Starts<'a>>,
    /// Whether to find [`Component::moved`].
    pub moved: bool,
    /// Characters of each of the two one-line layouts a component's row will hold ([`super::row_chars`];
    /// 0 where no rows are made), for the memory account.
    pub row_chars: usize,
    /// Stop when the piece set has more layouts than this.
    pub max_layouts: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
}

/// Layouts entered in a table or expanded between two looks at the clock (a listing looks at it
/// every 16,384 steps of its walk).
pub(super) const CLOCK_LOOK: usize = 1 << 14;

impl Analyse<'_> {
    /// Every component of the piece set within `memory_limit` bytes: no order, invariant, moved
    /// pieces, rows or other limits (set those fields on it as needed).
    pub fn within(memory_limit: u64) -> Self {
        Analyse {
            memory_limit,
            order: None,
            invariant: None,
            starts: None,
            moved: false,
            row_chars: 0,
            max_layouts: None,
            deadline: None,
        }
    }

    /// The limit that stops the analysis now ([`super::limit_now`]), looked at only when `count`
    /// (of layouts entered or expanded) is a multiple of [`CLOCK_LOOK`], 0 included.
    fn limit(&self, count: usize, watch: &Watch) -> Option<LimitHit> {
        if count.is_multiple_of(CLOCK_LOOK) { super::limit_now(self.deadline, watch) } else { None }
    }
}

impl DomainTask for Analyse<'_> {
    type Output = Option<Result<Analysis, TooLarge>>;
    fn run<D: Domain>(self, domain: &D) -> Self::Output {
        let watch = Watch::new();
        let per_layout = bytes_per_layout(std::mem::size_of::<D::Key>() as u64);
        let most = (self.memory_limit / per_layout).min(NONE as u64 - 1) as usize;
        // One listing, up to the most the budget allows (or one past the layouts asked for), and
        // the tables are checked against the budget before they are allocated. The keys alone stay
        // within it (a key is a fraction of a layout's bytes, even twice over while the walk's
        // lists are joined).
        let most_states = self.max_layouts.map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX));
        let hit = OnceLock::new();
        let stop = || super::limit_now(self.deadline, &watch).map(|h| hit.set(h)).is_some();
        let key_bytes = |n: usize| memory::product(&[n], std::mem::size_of::<D::Key>() as u64).unwrap_or(u64::MAX);
        let (keys, over) = match domain.layouts(most.min(most_states), &stop)? {
            Ok(keys) => (keys, false),
            Err(Unlisted::Over(n)) if most_states < most => {
                return Some(Ok(Analysis::stopped(LimitHit::States, n, key_bytes(n))));
            }
            Err(Unlisted::Over(_)) => (Vec::new(), true),
            Err(Unlisted::Starved) => return Some(Ok(Analysis::stopped(LimitHit::Memory, 0, 0))),
            Err(Unlisted::Stopped(listed)) => {
                let hit = hit.get().copied().unwrap_or(LimitHit::Time);
                return Some(Ok(Analysis::stopped(hit, listed, key_bytes(listed))));
            }
        };
        if let Some(hit) = super::limit_now(self.deadline, &watch) {
            return Some(Ok(Analysis::stopped(hit, keys.len(), key_bytes(keys.capacity()))));
        }
        let n = if over { most } else { keys.len() };
        let what = || format!("the tables of all layouts ({}{n} of them)", if over { "more than " } else { "" });
        // Over the budget, one layout more than it allows is a lower bound of what they need.
        let bytes = memory::product(&[n + usize::from(over)], per_layout);
        let peak_bytes = match memory::check(what, bytes, self.memory_limit) {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        let analysis = analyse(domain, &keys, &self, peak_bytes, &watch);
        Some(Ok(analysis.unwrap_or_else(|hit| Analysis::stopped(hit, n, peak_bytes))))
    }
}

/// A layout's label (the search that reached it first) and distance to the nearest goal.
#[derive(Clone, Copy)]
struct Mark {
    label: u32,
    dist: u32,
}

/// Labels, distances and component sums over `keys` (every layout of `domain`, in any order),
/// keeping the components whose representative passes `invariant`. Marks live in the hash map
/// beside their keys, so a successor costs one probe. The limit that stops it is the deadline, or
/// memory its tables cannot have although the budget allowed it.
fn analyse<D: Domain>(
    domain: &D,
    keys: &[D::Key],
    task: &Analyse,
    peak_bytes: u64,
    watch: &Watch,
) -> Result<Analysis, LimitHit> {
    let Analyse { order, invariant, starts, moved, row_chars, .. } = *task;
    let n = keys.len();
    let unmarked = Mark { label: NONE, dist: NONE };
    // The table is set up before its first entry, between looks at the clock: entries land
    // anywhere, so its first thousands would have every page of it set up at once (seconds for a
    // table of gigabytes, with no look at the clock).
    let mut marks = HashMap::new_in(memory::SetUp { deadline: task.deadline });
    marks.try_reserve(n).map_err(|_| super::limit_now(task.deadline, watch).unwrap_or(LimitHit::Memory))?;
    for (i, &key) in keys.iter().enumerate() {
        if let Some(hit) = task.limit(i, watch) {
            return Err(hit);
        }
        marks.insert(key, unmarked);
    }
    // Union-find over labels: searches from two goal layouts of one component meet.
    let mut parent: Vec<u32> = Vec::new();
    fn root(parent: &mut [u32], mut l: u32) -> u32 {
        while parent[l as usize] != l {
            parent[l as usize] = parent[parent[l as usize] as usize];
            l = parent[l as usize];
        }
        l
    }
    let mut queue: Vec<(D::Key, Mark)> = Vec::new();
    queue.try_reserve_exact(n)?;
    for key in keys {
        if domain.is_goal(key) {
            let mark = Mark { label: parent.len() as u32, dist: 0 };
            parent.try_reserve(1)?;
            parent.push(mark.label);
            marks.insert(*key, mark);
            queue.push((*key, mark));
        }
    }
    let mut scratch = domain.scratch();
    let mut children: Vec<D::Key> = Vec::new();
    let mut head = 0;
    let mut expanded = 0;
    while head < queue.len() {
        let (key, mark) = queue[head];
        head += 1;
        expanded += 1;
        if let Some(hit) = task.limit(expanded, watch) {
            return Err(hit);
        }
        // Children are gathered first, so their probes run back to back (their cache misses overlap).
        children.clear();
        domain.for_each_successor(&key, &mut scratch, |child| children.push(child));
        for &child in &children {
            let m = marks.get_mut(&child).expect("a move from a legal layout reaches a legal layout");
            if m.dist == NONE {
                *m = Mark { label: mark.label, dist: mark.dist + 1 };
                queue.push((child, *m));
            } else if m.label != mark.label {
                let (a, b) = (root(&mut parent, mark.label), root(&mut parent, m.label));
                parent[a.max(b) as usize] = a.min(b);
            }
        }
    }
    // Unsolvable components: a flood fill from each layout not yet labelled.
    for seed in keys {
        if marks[seed].label != NONE {
            continue;
        }
        let mark = Mark { label: parent.len() as u32, dist: NONE };
        parent.try_reserve(1)?;
        parent.push(mark.label);
        marks.insert(*seed, mark);
        queue.clear();
        queue.push((*seed, mark));
        let mut head = 0;
        while head < queue.len() {
            let (key, _) = queue[head];
            head += 1;
            expanded += 1;
            if let Some(hit) = task.limit(expanded, watch) {
                return Err(hit);
            }
            children.clear();
            domain.for_each_successor(&key, &mut scratch, |child| children.push(child));
            for &child in &children {
                let m = marks.get_mut(&child).expect("a move from a legal layout reaches a legal layout");
                if m.label == NONE {
                    *m = mark;
                    queue.push((child, mark));
                }
            }
        }
    }
    drop(queue);
    // Components numbered by their least layout; sums in one scan, in the listing's order.
    let mut number: HashMap<u32, usize> = HashMap::new();
    struct Sums {
        size: u64,
        goals: u64,
        /// The largest distance, the least rank there and the least layout of that rank (an index
        /// into `keys`).
        hardest: Option<(u32, u128, usize)>,
        /// The least layout (an index into `keys`).
        first: usize,
        /// Whether it holds the domain's start layout.
        start: bool,
    }
    let mut sums: Vec<Sums> = Vec::new();
    let start = domain.start();
    let less = |a: usize, b: usize| domain.layout_cmp(&keys[a], &keys[b]).is_lt();
    for (i, key) in keys.iter().enumerate() {
        let Mark { label, dist } = marks[key];
        // Without an order every rank is 0, so the least layout wins every tie.
        let anchors = (order.is_some() || starts.is_some()).then(|| domain.anchors(key));
        let rank = order.zip(anchors.as_deref()).map_or(0, |(o, anchors)| o(anchors));
        let counts = starts.zip(anchors.as_deref()).is_none_or(|(s, anchors)| s(anchors));
        let r = root(&mut parent, label);
        number.try_reserve(1)?;
        let c = match number.entry(r) {
            Entry::Occupied(c) => *c.get(),
            Entry::Vacant(c) => {
                sums.try_reserve(1)?;
                sums.push(Sums { size: 0, goals: 0, hardest: None, first: i, start: false });
                *c.insert(sums.len() - 1)
            }
        };
        let s = &mut sums[c];
        s.size += 1;
        if dist == 0 {
            s.goals += 1;
        }
        if less(i, s.first) {
            s.first = i;
        }
        let harder = |(d, r, h): (u32, u128, usize)| dist > d || (dist == d && (rank < r || (rank == r && less(i, h))));
        if dist != NONE && counts && s.hardest.is_none_or(harder) {
            s.hardest = Some((dist, rank, i));
        }
        s.start |= *key == start;
    }
    drop(number);
    sums.sort_unstable_by(|a, b| domain.layout_cmp(&keys[a.first], &keys[b.first]));
    let mut components = Vec::new();
    components.try_reserve_exact(sums.len())?;
    let mut start_component = None;
    for s in sums {
        // A component makes small allocations: one that failed stops the analysis here.
        if watch.starved() {
            return Err(LimitHit::Memory);
        }
        let representative = domain.anchors(&keys[s.first]);
        if invariant.is_some_and(|keep| !keep(&representative)) {
            continue;
        }
        if s.start {
            start_component = Some(components.len());
        }
        // One shortest path down from the hardest layout: a neighbour one move nearer each step.
        let path = |i: usize| {
            let (marks, mut scratch) = (&marks, domain.scratch());
            std::iter::successors(Some(keys[i]), move |key| {
                let dist = marks[key].dist;
                let mut next = None;
                domain.for_each_successor(key, &mut scratch, |c| {
                    if next.is_none() && dist > 0 && marks[&c].dist == dist - 1 {
                        next = Some(c);
                    }
                });
                next
            })
        };
        components.push(Component {
            size: s.size,
            goal_layouts: s.goals,
            hardest_moves: s.hardest.map(|(d, _, _)| d),
            hardest: s.hardest.map(|(_, _, i)| Layout::of(&domain.anchors(&keys[i]))),
            representative: Layout::of(&representative),
            moved: s.hardest.filter(|_| moved).map_or(0, |(_, _, i)| moved_pieces(domain, path(i))),
        });
    }
    let layouts = components.iter().map(|c| c.size).sum();
    let listed = memory::product(&[components.len()], component_bytes(domain.anchors(&start).len(), row_chars));
    let peak_bytes = listed.and_then(|b| b.checked_add(peak_bytes)).unwrap_or(u64::MAX);
    Ok(Analysis { layouts, components, start_component, peak_bytes, stopped: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Placements, with_domain_placing};
    use crate::format::grid;

    /// Every layout of a piece set, as `--components` lists them (one group per kind).
    fn with_every_layout(p: &crate::puzzle::Puzzle, task: Analyse) -> Option<Result<Analysis, TooLarge>> {
        with_domain_placing(p, u64::MAX, Placements::Reachable, task).unwrap()
    }

    fn analysis(text: &str) -> Analysis {
        let p = grid::parse(text, &Default::default()).unwrap().puzzle;
        with_every_layout(&p, Analyse::within(u64::MAX)).unwrap().unwrap()
    }

    #[test]
    fn a_domino_on_a_two_by_two_board_is_one_solvable_component() {
        // A horizontal domino in row 0 or row 1; one vertical step joins them; goal: row 1.
        let a = analysis("goal: A at 1,0\nboard:\nAA\n..\n");
        assert_eq!(a.layouts, 2);
        assert_eq!(
            a.components,
            vec![Component {
                size: 2,
                goal_layouts: 1,
                hardest_moves: Some(1),
                hardest: Some(Layout::of(&[(0, 0)])),
                representative: Layout::of(&[(0, 0)]),
                moved: 0,
            }]
        );
        assert_eq!(a.start_component, Some(0));
    }

    #[test]
    fn a_piece_that_cannot_move_away_from_the_goal_is_unsolvable() {
        // A may not move, so its one placement is its start; the goal is elsewhere.
        let a = analysis("moves: A=n\ngoal: A at 1,1\nboard:\nA.\n..\n");
        assert_eq!(a.layouts, 1);
        assert_eq!(
            a.components,
            vec![Component {
                size: 1,
                goal_layouts: 0,
                hardest_moves: None,
                hardest: None,
                representative: Layout::of(&[(0, 0)]),
                moved: 0,
            }]
        );
    }

    #[test]
    fn the_memory_budget_is_checked_before_the_tables() {
        let p = grid::parse("goal: A at 1,0\nboard:\nAA\n..\n", &Default::default()).unwrap().puzzle;
        let e = with_every_layout(&p, Analyse::within(10)).unwrap().unwrap_err();
        assert_eq!(e.limit, 10);
        // The message names a lower bound of the bytes (one layout's tables), not an overflow.
        assert!(e.bytes > 10 && e.bytes < 1000, "{e}");
        assert!(e.to_string().starts_with("the tables of all layouts (more than 0 of them) would need "), "{e}");
    }
}
