//! Fogleman's database rule for Rush-Hour-like families: of every component ("cluster") it keeps
//! the *interesting* ones and prints each one's hardest layout as one line
//! `<moves> <layout> <cluster size>`, as in his public database of Rush Hour puzzles
//! (<https://www.michaelfogleman.com/rush/>).
//!
//! A family qualifies when its goal is a horizontal kind (the *primary*) pinned to one row by
//! `row=` reaching the right edge, and every kind moves only horizontally (`h`), only vertically
//! (`v`) or not at all (`n`, walls), with its cells in one row (`h`, `n`) or one column (`v`).
//! A cluster is interesting when
//! - no row is completely filled by horizontal pieces and walls, no column by vertical pieces;
//! - the primary row holds no horizontal piece but the primary (walls may lie in it);
//! - it is solvable (its hardest layout then never has the primary at the goal: a cluster of goal
//!   layouts only is never minimal);
//! - it is minimal: removing any one piece other than the primary from the hardest layout lowers
//!   its optimal move count (only pieces an optimal solution never moves need a test, because
//!   dropping a moved piece's moves from a solution leaves a shorter one; and since that solution
//!   still works without such a piece, a test asks whether a goal is nearer, best first).
//!
//! The first two rules are invariant under moves (a horizontal piece never leaves its row, a
//! vertical one its column, and a filled line never moves), so under the rule a family leaves out
//! every component that breaks them: the primary's row by placement alone ([`allows`]), filled
//! lines by testing one layout of each component ([`invariants_hold`]).
//!
//! *Order*: a layout's horizontal mask (cells of horizontal pieces and walls, bit `row*cols+col`),
//! then its vertical mask, compared as numbers. The *hardest* layout is the least one at the
//! largest distance. *Labels*: `A` the primary, then the horizontal pieces and walls (walls print
//! `x` but take a letter) with those of the primary row first, each row from the left, rows from
//! the top, then the vertical pieces column by column from the top; `o` empty. Pieces never pass
//! each other within a row or column, so these labels are the same in every layout of a cluster.

use super::csv::count;
use super::graph::{Component, Layout};
use super::seeds::SMALL_TABLE;
use super::slots::ThreadSlots;
use super::spec::FamilySpec;
use super::{FamilyError, PIECE_NAMES};
use crate::domain::{Domain, DomainTask, Placements, with_block_tables};
use crate::memory::{self, TooLarge};
use crate::puzzle::{Cell, Edge, Goal, Movement, Piece, Puzzle};
use crate::reserve::Watch;
use crate::search::LimitHit;
use hashbrown::HashMap;
use hashbrown::hash_map::Entry;
use rayon::prelude::*;
use std::time::Instant;

/// The primary kind and its row when `spec` qualifies for the rule, or why it does not.
pub fn primary(spec: &FamilySpec) -> Result<(usize, usize), String> {
    if spec.start.is_some() {
        return Err("the database rule picks its own hardest layouts; a spec with 'start:' cannot use it".into());
    }
    let Goal::Reaches(k, Edge::Right) = spec.goal else {
        return Err("the database rule needs a goal 'KIND reaches right'".into());
    };
    let kind = &spec.kinds[k];
    let Some(row) = kind.row.filter(|_| kind.movement == Movement::Horizontal) else {
        return Err(format!("the database rule needs kind {} to move h and be pinned by row=", kind.name));
    };
    for kind in &spec.kinds {
        let offsets = kind.shape.offsets();
        let bar = match kind.movement {
            Movement::Horizontal | Movement::None => offsets.iter().all(|&(r, _)| r == 0),
            Movement::Vertical => offsets.iter().all(|&(_, c)| c == 0),
            Movement::Both => false,
        };
        if !bar {
            return Err(format!(
                "the database rule needs every kind to be a bar moving along its length (h or v) or a wall (n); kind {} is not",
                kind.name
            ));
        }
    }
    Ok((k, row))
}

/// Whether a piece of `kind` may have its anchor at `anchor` under the rule: no horizontal piece
/// but the primary in the primary's row.
pub fn allows(spec: &FamilySpec, (primary, row): (usize, usize), kind: usize, anchor: Cell) -> bool {
    kind == primary || spec.kinds[kind].movement != Movement::Horizontal || anchor.0 != row
}

/// A piece that lies in rows (it moves horizontally or is a wall), not in columns.
fn in_rows(puzzle: &Puzzle, piece: usize) -> bool {
    puzzle.pieces[piece].movement != Movement::Vertical
}

/// The rule's order of layouts as a rank: horizontal mask above vertical mask (a family's board
/// has at most 64 cells), from each piece's mask at each anchor, tabled once.
pub struct Ranker {
    cols: usize,
    /// Per piece, its cells' mask with its anchor at cell `row * cols + col`.
    masks: Vec<Vec<u64>>,
    /// Per piece, whether it lies in rows ([`in_rows`]).
    rows: Vec<bool>,
}

impl Ranker {
    /// The tables of `puzzle`'s pieces.
    pub fn new(puzzle: &Puzzle) -> Self {
        let board = &puzzle.board;
        let on_board = |&(r, c): &Cell| r < board.rows && c < board.cols;
        let mask_at = |piece: &Piece, anchor: Cell| {
            piece
                .shape
                .cells_at(anchor)
                .flatten()
                .filter(on_board)
                .fold(0u64, |m, (r, c)| m | 1 << (r * board.cols + c))
        };
        let anchors: Vec<Cell> = (0..board.rows).flat_map(|r| (0..board.cols).map(move |c| (r, c))).collect();
        Ranker {
            cols: board.cols,
            masks: puzzle.pieces.iter().map(|piece| anchors.iter().map(|&a| mask_at(piece, a)).collect()).collect(),
            rows: (0..puzzle.pieces.len()).map(|p| in_rows(puzzle, p)).collect(),
        }
    }

    /// The rank of the layout with anchors `anchors`.
    pub fn rank(&self, anchors: &[Cell]) -> u128 {
        let (mut horizontal, mut vertical) = (0u64, 0u64);
        for ((masks, &rows), &(r, c)) in self.masks.iter().zip(&self.rows).zip(anchors) {
            let mask = masks[r * self.cols + c];
            if rows {
                horizontal |= mask;
            } else {
                vertical |= mask;
            }
        }
        (horizontal as u128) << 64 | vertical as u128
    }
}

/// The layout in the database's form: one character a cell, rows concatenated.
pub fn label(puzzle: &Puzzle, primary: usize, anchors: &[Cell]) -> String {
    let row = anchors[primary].0;
    let mut order: Vec<usize> = (0..puzzle.pieces.len()).filter(|&p| p != primary).collect();
    order.sort_by_key(|&p| {
        let (r, c) = anchors[p];
        if in_rows(puzzle, p) { (0, r != row, r, c) } else { (1, false, c, r) }
    });
    let mut letter = vec!['x'; puzzle.pieces.len()];
    for (name, p) in PIECE_NAMES.chars().zip(std::iter::once(primary).chain(order)) {
        if puzzle.pieces[p].movement != Movement::None {
            letter[p] = name;
        }
    }
    let board = &puzzle.board;
    let occupancy = puzzle.occupancy(anchors);
    (0..board.cell_count())
        .map(|i| match occupancy[i] {
            Some(p) => letter[p],
            None if board.open[i] => 'o',
            None => 'x',
        })
        .collect()
}

/// Whether a layout keeps the rule's invariants (and so does its whole component): no row filled
/// by horizontal pieces and walls, no column by vertical pieces, no horizontal piece but the
/// primary in its row.
pub fn invariants_hold(puzzle: &Puzzle, primary: usize, anchors: &[Cell]) -> bool {
    let board = &puzzle.board;
    let occupancy = puzzle.occupancy(anchors);
    let at = |r: usize, c: usize| occupancy[r * board.cols + c];
    let horizontal = |r, c| !board.is_open(r, c) || at(r, c).is_some_and(|p| in_rows(puzzle, p));
    let vertical = |r, c| at(r, c).is_some_and(|p| !in_rows(puzzle, p));
    let row = anchors[primary].0;
    let moving_sideways = |p: usize| p != primary && puzzle.pieces[p].movement == Movement::Horizontal;
    !(0..board.rows).any(|r| (0..board.cols).all(|c| horizontal(r, c)))
        && !(0..board.cols).any(|c| (0..board.rows).all(|r| vertical(r, c)))
        && !(0..board.cols).any(|c| at(row, c).is_some_and(moving_sideways))
}

/// `puzzle` without piece `gone` (the goal's piece indices follow).
fn without(puzzle: &Puzzle, gone: usize) -> Puzzle {
    let shift = |p: usize| if p > gone { p - 1 } else { p };
    let goal = match &puzzle.goal {
        Goal::Reaches(p, edge) => Goal::Reaches(shift(*p), *edge),
        Goal::PiecesAt(list) => Goal::PiecesAt(list.iter().map(|&(p, cell)| (shift(p), cell)).collect()),
        Goal::Layout(cells) => Goal::Layout(cells.clone()),
    };
    fn keep<T: Clone>(v: &[T], gone: usize) -> Vec<T> {
        [&v[..gone], &v[gone + 1..]].concat()
    }
    Puzzle { pieces: keep(&puzzle.pieces, gone), start: keep(&puzzle.start, gone), goal, ..puzzle.clone() }
}

/// Bytes a removal test holds per layout it queues: a layout and its depth in the hash map (a
/// control byte and slack up to a doubled table) and in the queue.
fn test_bytes(entry_bytes: u64) -> u64 {
    3 * entry_bytes + 2
}

/// Removal tests on one compiled piece set (a class without one piece): per test, its start
/// anchors and the moves a goal must be nearer than. Each answers whether one is; the output also
/// holds the bytes the searches held at most (the largest, on every thread at once). Errors name
/// `class`.
struct Nearer<'a> {
    tests: &'a [(Layout, u32)],
    memory_limit: u64,
    class: &'a str,
}

/// Why a removal test has no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unanswered {
    /// It queued more layouts than its share of the budget allows.
    TooLarge,
    /// Its tables could not have the memory the budget allowed.
    Starved,
}

/// Tests handed to a thread at a time. A round's tests differ in cost by orders of magnitude and
/// come in component order, the costly ones together: uncapped, rayon hands each thread a large
/// share to work alone (on two threads, one had 0.83 s of tests and the other 0.24 s).
const TESTS_PER_TASK: usize = 64;

impl DomainTask for Nearer<'_> {
    type Output = Result<(Vec<bool>, u64), FamilyError>;
    fn run<D: Domain>(self, domain: &D) -> Self::Output {
        let threads = rayon::current_num_threads().max(1) as u64;
        let per_layout = test_bytes(std::mem::size_of::<(D::Key, u32)>() as u64);
        let most = (self.memory_limit / threads / per_layout) as usize;
        // Each thread's search tables, kept across its tasks (they are many and small).
        let tables = ThreadSlots::new(|| (Search::default(), domain.scratch()));
        // The answers go into room reserved first: without it, the class stops.
        let answers =
            memory::try_par_collect(self.tests.par_iter().with_max_len(TESTS_PER_TASK).map(|(layout, moves)| {
                let start = domain.key_of(&layout.anchors()).expect("a layout of the class without one piece");
                tables.with(|(search, scratch)| search.nearer(domain, scratch, start, *moves, most))
            }))
            .ok_or_else(|| FamilyError::Stopped(self.class.to_string(), LimitHit::Memory, 0))?;
        // A test over the budget is a fact of the class, whatever else failed beside it.
        let failed = answers.iter().filter_map(|a| a.err()).min_by_key(|&u| u != Unanswered::TooLarge);
        match failed {
            Some(Unanswered::TooLarge) => Err(FamilyError::Memory(
                self.class.to_string(),
                TooLarge {
                    what: format!("the search of a minimality test (more than {most} layouts queued)"),
                    bytes: memory::product(&[most + 1], per_layout)
                        .and_then(|b| b.checked_mul(threads))
                        .unwrap_or(u64::MAX),
                    limit: self.memory_limit,
                },
            )),
            Some(Unanswered::Starved) => Err(FamilyError::Stopped(self.class.to_string(), LimitHit::Memory, 0)),
            None => {
                let met = answers.iter().flatten().map(|a| a.1 as u64).max().unwrap_or(0);
                let mut minimal = Vec::new();
                if minimal.try_reserve_exact(answers.len()).is_err() {
                    return Err(FamilyError::Stopped(self.class.to_string(), LimitHit::Memory, 0));
                }
                minimal.extend(answers.iter().flatten().map(|a| a.0));
                Ok((minimal, met.saturating_mul(per_layout).saturating_mul(threads)))
            }
        }
    }
}

/// The tables of one removal test, kept between tests so they are allocated once.
struct Search<K> {
    /// The least depth each layout met was queued at.
    depth: HashMap<K, u32>,
    /// `queue[f]`: layouts (and depths) whose depth plus bound is `f`.
    queue: Vec<Vec<(K, u32)>>,
    children: Vec<K>,
}

impl<K> Default for Search<K> {
    fn default() -> Self {
        Search { depth: HashMap::new(), queue: Vec::new(), children: Vec::new() }
    }
}

impl<K: crate::domain::Key> Search<K> {
    /// Whether a goal layout lies fewer than `moves` moves from `start`, with the number of layouts
    /// queued (more than `most` is [`Unanswered::TooLarge`], a table that cannot grow
    /// [`Unanswered::Starved`]). Best first: a layout of least depth plus
    /// [`Domain::goal_bound`] (which changes by at most one a move, so along a shortest path to a
    /// goal that sum never falls), the one queued last among those; a layout whose sum reaches
    /// `moves` is not queued. Any goal met answers yes (a shorter way there changes nothing); only
    /// a search that runs out answers no, and where a goal that near exists it does not run out.
    fn nearer<D: Domain<Key = K>>(
        &mut self,
        domain: &D,
        scratch: &mut D::Scratch,
        start: K,
        moves: u32,
        most: usize,
    ) -> Result<(bool, usize), Unanswered> {
        let bound = domain.goal_bound(&start, scratch);
        if bound == 0 || bound >= moves {
            return Ok((bound == 0, 0));
        }
        // A table grown by a large search would cost a clearing of all its buckets: start small.
        if self.depth.capacity() > SMALL_TABLE {
            self.depth = HashMap::with_capacity(SMALL_TABLE);
        }
        self.depth.clear();
        self.queue.iter_mut().for_each(Vec::clear);
        self.queue.resize_with(self.queue.len().max(moves as usize), Vec::new);
        self.depth.insert(start, 0);
        self.queue[bound as usize].push((start, 0));
        let mut queued = 1;
        let mut f = bound as usize;
        while f < moves as usize {
            let Some((key, depth)) = self.queue[f].pop() else {
                f += 1;
                continue;
            };
            if self.depth[&key] < depth {
                continue;
            }
            self.children.clear();
            domain.for_each_successor(&key, scratch, |child| self.children.push(child));
            self.depth.try_reserve(self.children.len()).map_err(|_| Unanswered::Starved)?;
            let depth = depth + 1;
            for child in self.children.drain(..) {
                // One probe: the entry is written only when the child is queued.
                let entry = self.depth.entry(child);
                if matches!(&entry, Entry::Occupied(e) if *e.get() <= depth) {
                    continue;
                }
                match domain.goal_bound(&child, scratch) {
                    0 => return Ok((true, queued)),
                    bound if depth + bound < moves => {
                        let queue = &mut self.queue[(depth + bound) as usize];
                        queue.try_reserve(1).map_err(|_| Unanswered::Starved)?;
                        entry.insert(depth);
                        queue.push((child, depth));
                        queued += 1;
                    }
                    _ => {}
                }
            }
            if queued > most {
                return Err(Unanswered::TooLarge);
            }
        }
        Ok((false, queued))
    }
}

/// The database lines of the components of one class of `puzzle`'s layouts, analysed in [`Ranker`]
/// order with the pieces one shortest solution moves ([`Component::moved`]; components that keep
/// the [`invariants_hold`]), in component order, and the bytes the tests held at most (their
/// searches' tables and lists of candidates).
/// `class` names the class in errors; each test's search must fit in `memory_limit` bytes; past
/// `deadline`, or once an allocation failed since the tests began, no further round of tests starts
/// ([`FamilyError::Stopped`]).
///
/// A component is minimal when removing any piece but the primary (and those its solution moves)
/// from its hardest layout leaves a goal nearer than its moves. Round `r` runs every candidate's
/// `r`-th test, the pieces of one kind together on one compiled piece set (the class without one
/// piece of that kind: pieces of a kind are alike, so which one is gone is a matter of anchors);
/// a candidate is dropped at its first test without a nearer goal.
pub fn lines(
    puzzle: &Puzzle,
    primary: usize,
    components: &[Component],
    (class, memory_limit, deadline): (&str, u64, Option<Instant>),
) -> Result<(Vec<String>, u64), FamilyError> {
    let watch = Watch::new();
    let pieces = puzzle.pieces.len();
    // Per candidate, its pieces still to test (bit `p` for piece `p`): those its solution leaves
    // in place, but the primary. Each round tests the lowest and clears it.
    let every = if pieces == 64 { u64::MAX } else { (1 << pieces) - 1 };
    let mut untested: Vec<u64> = components
        .iter()
        .map(|c| match c.hardest_moves {
            Some(moves) if moves > 0 => every & !c.moved & !(1 << primary),
            _ => 0,
        })
        .collect();
    let mut kept: Vec<bool> = components.iter().map(|c| c.hardest_moves.is_some_and(|m| m > 0)).collect();
    // The first piece of each piece's kind (same shape, same movement; the primary is alone).
    let kind_of: Vec<usize> = (0..pieces)
        .map(|p| {
            let alike = |q: &usize| {
                (*q == primary) == (p == primary)
                    && puzzle.pieces[*q].shape == puzzle.pieces[p].shape
                    && puzzle.pieces[*q].movement == puzzle.pieces[p].movement
            };
            (0..pieces).find(alike).expect("a piece is like itself")
        })
        .collect();
    let mut peak_bytes = 0;
    while untested.iter().zip(&kept).any(|(&u, &k)| k && u != 0) {
        // The piece candidate `i` tests this round.
        let piece = |i: usize| untested[i].trailing_zeros() as usize;
        for first in (0..pieces).filter(|&p| kind_of[p] == p) {
            let todo: Vec<usize> =
                (0..components.len()).filter(|&i| kept[i] && untested[i] != 0 && kind_of[piece(i)] == first).collect();
            if todo.is_empty() {
                continue;
            }
            if let Some(hit) = super::limit_now(deadline, &watch) {
                return Err(FamilyError::Stopped(class.to_string(), hit, peak_bytes));
            }
            // The hardest layout without piece `p`, as a layout of the class without `first`.
            let starts: Vec<(Layout, u32)> = todo
                .iter()
                .map(|&i| {
                    let c = &components[i];
                    let hardest = c.hardest.as_ref().expect("a solvable component has a hardest layout");
                    let mut anchors = hardest.anchors();
                    anchors[piece(i)] = anchors[first];
                    anchors.remove(first);
                    (Layout::of(&anchors), c.hardest_moves.expect("a candidate is solvable"))
                })
                .collect();
            let reduced = Puzzle { start: starts[0].0.anchors(), ..without(puzzle, first) };
            let task = Nearer { tests: &starts, memory_limit, class };
            let (nearer, held) = with_block_tables(&reduced, memory_limit, Placements::Everywhere, None, task)
                .map_err(|e| FamilyError::Compile(class.to_string(), e))??;
            // The searches' tables, with the round's lists and every candidate's marks beside them.
            let lists = todo.len() * (std::mem::size_of::<usize>() + std::mem::size_of::<(Layout, u32)>())
                + starts.iter().map(|s| s.0.heap_bytes()).sum::<usize>();
            let marks = components.len() * (std::mem::size_of::<u64>() + 1);
            peak_bytes = peak_bytes.max(held + (lists + marks) as u64);
            for (&i, nearer) in todo.iter().zip(nearer) {
                kept[i] &= nearer;
            }
        }
        // Every candidate's lowest piece has had its test this round.
        untested.iter_mut().for_each(|u| *u &= u.wrapping_sub(1));
    }
    let lines = components
        .iter()
        .zip(kept)
        .filter(|(_, kept)| *kept)
        .map(|(c, _)| {
            let (moves, hardest) =
                (c.hardest_moves.unwrap_or(0), c.hardest.as_ref().map_or(Vec::new(), Layout::anchors));
            format!("{moves:02} {} {}", label(puzzle, primary, &hardest), c.size)
        })
        .collect();
    Ok((lines, peak_bytes))
}

/// Checks that `text` has the form of a line [`lines`] writes for a board of `cells` cells:
/// `<moves> <layout> <size>`, the layout one character a cell, the moves and the size counts that
/// fit (moves as [`super::ComponentRow::hardest_moves`], size as a component's layouts); the
/// error says what is wrong.
pub fn check_line(text: &str, cells: usize) -> Result<(), String> {
    let fields: Vec<&str> = text.split(' ').collect();
    let [moves, layout, size] = fields[..] else {
        return Err(format!("{} fields where 3 are: moves, layout, size", fields.len()));
    };
    if count::<u32>(moves).is_none() {
        return Err(format!("moves '{moves}' is not a count of at most {}", u32::MAX));
    }
    let length = layout.chars().count();
    if length != cells {
        return Err(format!("a layout of {length} cells on a board of {cells}"));
    }
    match count::<u64>(size) {
        Some(_) => Ok(()),
        None => Err(format!("size '{size}' is not a count of at most {}", u64::MAX)),
    }
}
