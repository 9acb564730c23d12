//! Whole families of layouts: every legal layout of every piece set a [`spec::FamilySpec`] allows,
//! split into connected components under the metric's moves, with each component's distance from
//! its goal layouts.
//!
//! A family is split into *classes*, one per combination of kind counts within the spec's ranges
//! that leaves at least the minimum number of empty cells (in spec order, the first kind's count
//! changing slowest). Each class is compiled into an ordinary block domain (every piece's tables
//! holding every anchor where it fits, [`Placements::Everywhere`], since a layout of a family need
//! not be reachable from any one start), whose placement listing and move generation [`graph`] uses; classes run in parallel and are reported
//! in class order, so every result is the same for any number of threads.

pub mod csv;
pub mod db;
pub mod graph;
pub mod hardest;
mod held;
mod packing;
pub mod seeds;
mod slots;
pub mod spec;

use crate::domain::{CompileError, Placements, with_block_tables};
use crate::format::{ParseError, char_grid};
use crate::memory::{self, TooLarge};
use crate::puzzle::{Board, Cell, Family, Movement, Piece, Puzzle, Shape};
use crate::reserve::Watch;
use crate::rounds::{self, Done};
use crate::search::{LimitHit, past};
use graph::{Analyse, Analysis};
use held::Held;
use seeds::AnalyseBySeeds;
use spec::FamilySpec;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// Characters naming the pieces of a layout, in piece order (goal kinds keep their own name).
const PIECE_NAMES: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@$%&*+=?!<>~^";

/// Why a family could not be analysed.
#[derive(Debug, thiserror::Error)]
pub enum FamilyError {
    /// The spec does not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A class's piece set does not compile.
    #[error("class {0}: {1}")]
    Compile(String, CompileError),
    /// A class's tables would not fit in the memory budget.
    #[error("class {0}: {1}")]
    Memory(String, TooLarge),
    /// A class has more pieces than there are names to draw them with.
    #[error("class {0}: more than {1} pieces")]
    TooManyPieces(String, usize),
    /// The count ranges allow more classes than are listed.
    #[error("the count ranges allow more than {0} piece-count classes")]
    TooManyClasses(usize),
    /// The list of classes would not fit in the memory budget.
    #[error("{0}")]
    Classes(TooLarge),
    /// The spec does not qualify for the database rule.
    #[error("{0}")]
    NoDatabase(String),
    /// The results could not be written (the error names the file; not a `source`, so that a
    /// chain of causes does not print it twice).
    #[error("cannot write the results: {0}")]
    Io(std::io::Error),
    /// A `--resume` directory does not hold a run these settings can continue.
    #[error("cannot resume: {0}")]
    Resume(String),
    /// A class failed on another MPI rank (its message as that rank gave it).
    #[error("{0}")]
    Rank(String),
    /// The deadline passed before the classes were all listed.
    #[error("listing the classes: {0}")]
    Unlisted(LimitHit),
    /// A class was not finished: the deadline ([`Settings::deadline`]) passed, or its tables could
    /// not have the memory the budget allowed (the process has less: other programs, `ulimit -v`);
    /// with the bytes it held until then, by the estimates checked against the budget.
    #[error("class {0}: {1}")]
    Stopped(String, LimitHit, u64),
}

impl From<std::io::Error> for FamilyError {
    fn from(e: std::io::Error) -> Self {
        FamilyError::Io(e)
    }
}

impl FamilyError {
    /// Whether the class may yet be analysed alone, with the whole budget, after failing within its
    /// share beside other classes: its tables were over the share, or could not be had while the
    /// others held theirs.
    pub fn wants_more_memory(&self) -> bool {
        matches!(
            self,
            FamilyError::Memory(..)
                | FamilyError::Compile(_, CompileError::Memory(_))
                | FamilyError::Stopped(_, LimitHit::Memory, _)
        )
    }

    /// The bytes a stopped class held until it stopped ([`FamilyError::Stopped`]; `None` for any
    /// other error).
    pub fn held(&self) -> Option<u64> {
        match self {
            FamilyError::Stopped(_, _, bytes) => Some(*bytes),
            _ => None,
        }
    }

    /// The error with a stopped class's bytes mapped through `bytes` (to add what the class held
    /// beside the part of it that stopped); any other error as it is.
    pub fn holding(self, bytes: impl FnOnce(u64) -> u64) -> Self {
        match self {
            FamilyError::Stopped(class, hit, held) => FamilyError::Stopped(class, hit, bytes(held)),
            e => e,
        }
    }
}

/// One piece-count class: how many pieces of each kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    /// `(kind, count)` for every kind the class has pieces of, in spec order (the kinds it has
    /// none of are left out: a spec may name thousands of kinds, a class holds a few).
    pub counts: Vec<(usize, usize)>,
    /// Open cells left empty.
    pub empty: usize,
}

impl Class {
    /// The class as text, e.g. `A=1 V=2 S=4 empty=6`: the kinds it has pieces of, in spec order
    /// (the key `--resume` matches on; see [`class_key`]).
    pub fn describe(&self, spec: &FamilySpec) -> String {
        let mut text = String::new();
        for &(k, n) in &self.counts {
            text.push_str(&format!("{}={n} ", spec.kinds[k].name));
        }
        format!("{text}empty={}", self.empty)
    }
}

/// A class description as [`Class::describe`] writes it, from one read back from a results file:
/// earlier versions named every kind, zero counts included, and a run they started still resumes.
pub fn class_key(description: &str) -> String {
    description
        .split_whitespace()
        .filter(|word| !word.ends_with("=0") || word.starts_with("empty="))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads class descriptions of `spec` back: the class a [`Class::describe`] text names (or an
/// earlier version's, zero counts included), or `None` when it is not one [`classes`] lists: its
/// kinds in spec order, each count within the kind's range and every kind with a minimum named,
/// at least the spec's fewest cells left empty and exactly the cells the pieces leave, as many
/// pieces as the spec's range allows (one at least), and written as `describe` writes it.
pub fn class_reader(spec: &FamilySpec) -> impl Fn(&str) -> Option<Class> + '_ {
    let kinds: HashMap<char, usize> = spec.kinds.iter().enumerate().map(|(k, kind)| (kind.name, k)).collect();
    let required: Vec<usize> = (0..spec.kinds.len()).filter(|&k| spec.kinds[k].min > 0).collect();
    let open = spec.board.open.iter().filter(|&&o| o).count();
    move |text: &str| {
        let key = class_key(text);
        let mut words: Vec<&str> = key.split(' ').collect();
        let empty = words.pop()?.strip_prefix("empty=")?.parse::<usize>().ok()?;
        let mut counts = Vec::with_capacity(words.len());
        for word in words {
            let (name, n) = word.split_once('=')?;
            let mut chars = name.chars();
            let (Some(name), None) = (chars.next(), chars.next()) else { return None };
            counts.push((*kinds.get(&name)?, n.parse::<usize>().ok()?));
        }
        let in_order = counts.windows(2).all(|w| w[0].0 < w[1].0);
        let in_range = |&(k, n): &(usize, usize)| n >= spec.kinds[k].min && spec.kinds[k].max.is_none_or(|m| n <= m);
        let named = |k: &usize| counts.binary_search_by_key(k, |&(k, _)| k).is_ok();
        if !in_order || !counts.iter().all(in_range) || !required.iter().all(named) {
            return None;
        }
        let cells = counts
            .iter()
            .try_fold(0usize, |sum, &(k, n)| sum.checked_add(n.checked_mul(spec.kinds[k].shape.offsets().len())?))?;
        let pieces = counts.iter().try_fold(0usize, |sum, &(_, n)| sum.checked_add(n))?;
        let fits = cells.checked_add(empty) == Some(open) && empty >= spec.min_empty;
        let allowed = pieces >= spec.pieces.0.max(1) && spec.pieces.1.is_none_or(|most| pieces <= most);
        let class = Class { counts, empty };
        (fits && allowed && class.describe(spec) == key).then_some(class)
    }
}

/// How a class's components are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Every layout of the class at once ([`graph`]): memory for the whole class.
    Whole,
    /// One component at a time from its seeds ([`seeds`]): memory for the largest component.
    Seeds,
}

impl Method {
    /// The method for `spec`: seeds when every kind moves along one axis only or not at all (its
    /// pieces then never pass each other in a line, so components are small beside their class),
    /// else the whole class.
    pub fn auto(spec: &FamilySpec) -> Method {
        if spec.kinds.iter().all(|k| k.movement != Movement::Both) { Method::Seeds } else { Method::Whole }
    }
}

/// What every class of a run is analysed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The memory budget in bytes: of one class's tables in [`analyse_class`], of the tables of all
    /// classes analysed side by side in [`run`].
    pub memory_limit: u64,
    /// Whether the database rule applies ([`db`]): its invariants filter the layouts and each
    /// class gets its database lines.
    pub database: bool,
    /// How components are found.
    pub method: Method,
    /// Whether only the solvable components are analysed (always, under the database rule, whose
    /// clusters are solvable): the others are never searched and are left out of every count.
    pub solvable_only: bool,
    /// Whether component rows carry their hardest and first layouts (for `components.csv`);
    /// without, a row keeps its counts and moves, and no layout's text is made or held.
    pub layouts: bool,
    /// Stop at this instant: a class not finished by then is [`FamilyError::Stopped`] (and so are
    /// the classes after it, which are not started).
    pub deadline: Option<Instant>,
}

impl Settings {
    /// The same settings with an equal share of the budget for each of `ways` classes analysed
    /// side by side.
    pub fn share(self, ways: usize) -> Settings {
        Settings { memory_limit: self.memory_limit / ways.max(1) as u64, ..self }
    }
}

/// The most piece-count classes a family may have (a spec of many kinds with open ranges could
/// otherwise ask for astronomically many).
pub const MAX_CLASSES: usize = 1 << 20;

/// The bytes a run holds for a class with pieces of `kinds` kinds: the class (its counts) and its
/// description (`A=1 S=4 empty=6`), which a run's `--resume` matches and `--draw-hardest` looks
/// classes up by.
pub fn class_bytes(kinds: usize) -> u64 {
    const TEXT: u64 = (std::mem::size_of::<String>() + "empty=".len() + 4) as u64;
    let per_kind = (std::mem::size_of::<(usize, usize)>() + "A=".len() + 4) as u64;
    (std::mem::size_of::<Class>() as u64 + TEXT).saturating_add((kinds as u64).saturating_mul(per_kind))
}

/// Every class of the family, in class order (classes without any piece, and those outside the
/// spec's piece range, are left out); more than [`MAX_CLASSES`], more than `memory_limit` bytes
/// of them ([`class_bytes`] each), or the deadline passing before they are listed, is an error.
pub fn classes(spec: &FamilySpec, memory_limit: u64, deadline: Option<Instant>) -> Result<Vec<Class>, FamilyError> {
    list_classes(spec, memory_limit, deadline).0
}

/// The positions in `all` of the classes whose [`Class::describe`] text `done` lacks (the classes
/// a resumed run has left); a million classes take about a second to describe, so the deadline
/// passing first stops it as it stops their listing.
pub fn unfinished(
    spec: &FamilySpec,
    all: &[Class],
    done: &std::collections::HashSet<String>,
    deadline: Option<Instant>,
) -> Result<Vec<usize>, FamilyError> {
    let mut clock = Clock::new(deadline);
    let mut todo = Vec::new();
    for (i, class) in all.iter().enumerate() {
        if clock.late() {
            return Err(FamilyError::Unlisted(LimitHit::Time));
        }
        if !done.contains(&class.describe(spec)) {
            todo.push(i);
        }
    }
    Ok(todo)
}

/// [`classes`], and the steps the walk took to list them.
fn list_classes(
    spec: &FamilySpec,
    memory_limit: u64,
    deadline: Option<Instant>,
) -> (Result<Vec<Class>, FamilyError>, u64) {
    let open = spec.board.open.iter().filter(|&&o| o).count();
    let room = open.saturating_sub(spec.min_empty);
    // From kind k on: the fewest pieces the kinds must have, the cells those take, the most
    // pieces beyond them that c more cells can hold (`spare[k * (room + 1) + c]`, at most 64:
    // a family's board has at most 64 cells), and the first kind that must have a piece or can
    // have one in c cells (`next[k * (room + 1) + c]`), so that the walk only goes where a class
    // is, and steps over the kinds that can only have none.
    let kinds = spec.kinds.len();
    let (mut fewest, mut fewest_cells) = (vec![0usize; kinds + 1], vec![0usize; kinds + 1]);
    let mut spare = vec![0u8; (kinds + 1) * (room + 1)];
    let mut next = vec![kinds as u16; (kinds + 1) * (room + 1)];
    for (k, kind) in spec.kinds.iter().enumerate().rev() {
        let size = kind.shape.offsets().len();
        fewest[k] = fewest[k + 1].saturating_add(kind.min);
        fewest_cells[k] = fewest_cells[k + 1].saturating_add(kind.min.saturating_mul(size));
        let beyond = kind.max.map_or(usize::MAX, |max| max.saturating_sub(kind.min));
        let ((spare_k, spare_later), (next_k, next_later)) =
            (row_and_next(&mut spare, k, room + 1), row_and_next(&mut next, k, room + 1));
        for c in 0..=room {
            spare_k[c] = (0..=beyond.min(c / size)).map(|t| t as u8 + spare_later[c - t * size]).max().unwrap_or(0);
            let able = kind.min > 0 || (kind.max != Some(0) && size <= c);
            next_k[c] = if able { k as u16 } else { next_later[c] };
        }
    }
    let clock = Clock::new(deadline);
    let mut walk = Walk { spec, open, room, fewest, fewest_cells, spare, next, memory_limit, held: 0, clock };
    let mut out = Vec::new();
    let listed = match walk.run(&mut out) {
        Ok(()) => Ok(out),
        Err(Full::Classes) => Err(FamilyError::TooManyClasses(MAX_CLASSES)),
        Err(Full::Memory(bytes)) => {
            let what = format!("more than {} piece-count classes of {kinds} kinds", out.len());
            Err(FamilyError::Classes(TooLarge { what, bytes, limit: memory_limit }))
        }
        Err(Full::Time) => Err(FamilyError::Unlisted(LimitHit::Time)),
    };
    (listed, walk.clock.steps)
}

/// Row `k` of a table of rows of `width` cells, and the row after it.
fn row_and_next<T>(table: &mut [T], k: usize, width: usize) -> (&mut [T], &[T]) {
    let (this, later) = table.split_at_mut((k + 1) * width);
    (&mut this[k * width..], &later[..width])
}

/// A deadline looked at every 65,536 steps of a long loop (a step costs less than a look at
/// the clock), and the steps counted.
struct Clock {
    deadline: Option<Instant>,
    steps: u64,
}

impl Clock {
    /// A clock for `deadline`, no step counted.
    fn new(deadline: Option<Instant>) -> Clock {
        Clock { deadline, steps: 0 }
    }

    /// Counts a step: whether the deadline has passed, looked at on every 65,536th (not the
    /// first: a short loop always ends).
    fn late(&mut self) -> bool {
        self.steps += 1;
        self.steps.is_multiple_of(1 << 16) && past(self.deadline)
    }
}

// The walk's kind numbers are u16: every kind, and the end past the last, has one.
const _: () = assert!(spec::MAX_KINDS < u16::MAX as usize);

/// Why [`classes`] stopped listing: too many, the bytes the next would have made them, or the
/// deadline.
enum Full {
    Classes,
    Memory(u64),
    Time,
}

/// The walk over the count of every kind in turn that lists the classes.
struct Walk<'a> {
    spec: &'a FamilySpec,
    open: usize,
    room: usize,
    fewest: Vec<usize>,
    fewest_cells: Vec<usize>,
    spare: Vec<u8>,
    next: Vec<u16>,
    memory_limit: u64,
    held: u64,
    clock: Clock,
}

/// A kind the walk took a count of, with the cells and pieces of the kinds before it.
struct Taken {
    kind: usize,
    count: usize,
    used: usize,
    pieces: usize,
}

impl Walk<'_> {
    /// Lists every class into `out`: the count of each kind in turn, from its minimum up, kept
    /// on a stack of its own (a spec may name thousands of kinds: too deep to recurse), stopping
    /// at the deadline ([`Clock`]: a short walk lists its classes whatever the deadline).
    fn run(&mut self, out: &mut Vec<Class>) -> Result<(), Full> {
        // The counts taken, and those of them that are not 0 (the class's counts, kept as they
        // are taken: a class lists without looking at the thousands of kinds a spec may name).
        let mut path: Vec<Taken> = Vec::new();
        let mut nonzero: Vec<(usize, usize)> = Vec::new();
        let (mut k, mut used, mut pieces) = (self.first_able(0, 0), 0, 0);
        let mut n = self.spec.kinds.get(k).map_or(0, |kind| kind.min);
        loop {
            if self.clock.late() {
                return Err(Full::Time);
            }
            let by_range = self.spec.pieces.1.map_or(usize::MAX, |most| most.saturating_sub(pieces));
            let step = match self.most_pieces(k, used) {
                // The later kinds' minimums do not fit: no class here.
                None => Step::Back,
                // Every later kind has 0 pieces (the one class below here), or cannot reach its
                // minimum (none): settled now, not kind by kind.
                Some(more) if more.min(by_range) == 0 => {
                    if self.fewest[k] == 0 && pieces >= self.spec.pieces.0 {
                        self.list(&nonzero, used, pieces, out)?;
                    }
                    Step::Back
                }
                Some(_) => self.step(k, n, used, pieces),
            };
            match step {
                Step::Take(now) => {
                    path.push(Taken { kind: k, count: n, used, pieces });
                    if n > 0 {
                        nonzero.push((k, n));
                    }
                    (used, pieces) = (now, pieces + n);
                    k = self.first_able(k + 1, used);
                    n = self.spec.kinds.get(k).map_or(0, |kind| kind.min);
                }
                Step::Skip => n += 1,
                Step::Back => match path.pop() {
                    Some(last) => {
                        if last.count > 0 {
                            nonzero.pop();
                        }
                        (k, n, used, pieces) = (last.kind, last.count + 1, last.used, last.pieces);
                    }
                    None => return Ok(()),
                },
            }
        }
    }

    /// The first kind from the `k`th on that must have a piece, or can have one beside `used`
    /// cells (the kinds before it can only have none); the number of kinds when there is none.
    fn first_able(&self, k: usize, used: usize) -> usize {
        usize::from(self.next[k * (self.room + 1) + (self.room - used)])
    }

    /// The most pieces the kinds from the `k`th on can have beside `used` cells of the kinds
    /// before, within their counts; `None` when their minimums do not fit.
    fn most_pieces(&self, k: usize, used: usize) -> Option<usize> {
        let left = (self.room - used).checked_sub(self.fewest_cells[k])?;
        Some(self.fewest[k].saturating_add(usize::from(self.spare[k * (self.room + 1) + left])))
    }

    /// What `n` pieces of the `k`th kind do beside `used` cells and `pieces` pieces of the kinds
    /// before it.
    fn step(&self, k: usize, n: usize, used: usize, pieces: usize) -> Step {
        let kind = &self.spec.kinds[k];
        // The counts are the user's: a product that overflows is simply more than there is room for.
        let Some(now) = n.checked_mul(kind.shape.offsets().len()).and_then(|cells| cells.checked_add(used)) else {
            return Step::Back;
        };
        let total = pieces + n;
        // Past the room or the kind's most, or past the most pieces even with the fewest of the
        // later kinds: more of this kind only makes it worse.
        if now > self.room
            || kind.max.is_some_and(|m| n > m)
            || self.spec.pieces.1.is_some_and(|most| total.saturating_add(self.fewest[k + 1]) > most)
        {
            return Step::Back;
        }
        // The later kinds can have from their fewest pieces to their most (dropping one piece at
        // a time): take this count when that reaches the range's fewest.
        match self.most_pieces(k + 1, now) {
            None => Step::Back,
            Some(more) if total.saturating_add(more) >= self.spec.pieces.0 => Step::Take(now),
            Some(_) => Step::Skip,
        }
    }

    /// Adds the class of `counts` (the kinds with pieces and their counts; `used` cells, `pieces`
    /// pieces) to `out`, unless it has no piece.
    fn list(
        &mut self,
        counts: &[(usize, usize)],
        used: usize,
        pieces: usize,
        out: &mut Vec<Class>,
    ) -> Result<(), Full> {
        if pieces == 0 {
            return Ok(());
        }
        let class = Class { counts: counts.to_vec(), empty: self.open - used };
        if out.len() == MAX_CLASSES {
            return Err(Full::Classes);
        }
        let held = self.held.saturating_add(class_bytes(class.counts.len()));
        if held > self.memory_limit {
            return Err(Full::Memory(held));
        }
        self.held = held;
        out.push(class);
        Ok(())
    }
}

/// The walk's next move at a kind: take the count and go on to the next kind, try one more of
/// this kind, or go back to the kind before.
enum Step {
    Take(usize),
    Skip,
    Back,
}

/// The kind of every piece of a class, pieces kind by kind.
fn piece_kinds(class: &Class) -> Vec<usize> {
    class.counts.iter().flat_map(|&(k, n)| std::iter::repeat_n(k, n)).collect()
}

/// The index of the first piece of `kind` in a class (pieces kind by kind): a goal's or a start's
/// kind indices become piece indices through it.
fn first_piece(class: &Class, kind: usize) -> usize {
    class.counts.iter().take_while(|&&(k, _)| k < kind).map(|&(_, n)| n).sum()
}

/// Whether a piece of `kind` may have its anchor at `anchor`: the kind's fixed constraints and,
/// with `database`, the database rule's placement invariant.
fn allowed(spec: &FamilySpec, database: Option<(usize, usize)>, kind: usize, anchor: Cell) -> bool {
    spec.kinds[kind].allows(anchor) && database.is_none_or(|p| db::allows(spec, p, kind, anchor))
}

/// A class's piece set as a puzzle: pieces kind by kind, named from `PIECE_NAMES`, started on
/// the first layout found whose anchors `allowed` takes; `None` when no layout exists. Also the
/// bytes the search for that layout held (at most a quarter of `memory_limit`). The search may be
/// long (a class whose pieces fill the cells but cannot be packed may try many partial packings):
/// the deadline passing first is [`FamilyError::Stopped`].
pub fn class_puzzle(
    spec: &FamilySpec,
    class: &Class,
    database: Option<(usize, usize)>,
    (memory_limit, deadline): (u64, Option<Instant>),
) -> Result<(Option<Puzzle>, u64), FamilyError> {
    let pieces = class_pieces(spec, class)?;
    let goal = spec.goal.renumbered(|k| first_piece(class, k));
    let kinds = piece_kinds(class);
    let keep = |piece: usize, anchor: Cell| allowed(spec, database, kinds[piece], anchor);
    let (start, bytes) = match packing::first_layout(spec, &pieces, &kinds, &keep, (memory_limit, deadline)) {
        Ok((Some(start), bytes)) => (start, bytes),
        Ok((None, bytes)) => return Ok((None, bytes)),
        Err(packing::Late) => return Err(FamilyError::Stopped(class.describe(spec), LimitHit::Time, 0)),
    };
    let puzzle = Puzzle {
        board: spec.board.clone(),
        pieces,
        start,
        goal,
        metric: spec.metric,
        merge_identical: true,
        family: Family::Grid,
    };
    Ok((Some(puzzle), bytes))
}

/// A class's pieces, kind by kind: those of a kind the goal names get its name, the others the
/// next of `PIECE_NAMES` (more pieces than names is [`FamilyError::TooManyPieces`]).
pub fn class_pieces(spec: &FamilySpec, class: &Class) -> Result<Vec<Piece>, FamilyError> {
    let named = spec.goal.named_pieces(spec.kinds.len());
    let taken: Vec<char> = spec.kinds.iter().zip(&named).filter(|&(_, &named)| named).map(|(k, _)| k.name).collect();
    let mut names = PIECE_NAMES.chars().filter(|c| !taken.contains(c));
    let mut pieces = Vec::new();
    for &(k, n) in &class.counts {
        let kind = &spec.kinds[k];
        for _ in 0..n {
            let name = if named[k] { Some(kind.name) } else { names.next() };
            let name = name.ok_or_else(|| FamilyError::TooManyPieces(class.describe(spec), PIECE_NAMES.len()))?;
            pieces.push(Piece { name: name.to_string(), shape: kind.shape.clone(), movement: kind.movement });
        }
    }
    Ok(pieces)
}

/// The anchors of a layout in [`one_line`] form of `pieces` on `board` (the inverse of
/// `one_line`): every row the board's width, walls where the board has them, each piece's
/// character covering exactly its shape.
pub fn read_layout(board: &Board, pieces: &[Piece], layout: &str) -> Result<Vec<Cell>, String> {
    let rows: Vec<&str> = layout.split('/').collect();
    if rows.len() != board.rows || rows.iter().any(|r| r.chars().count() != board.cols) {
        let shown: String = layout.chars().take(80).collect();
        return Err(format!("'{shown}' is not a layout of {} rows of {} cells", board.rows, board.cols));
    }
    let names: HashMap<&str, usize> = pieces.iter().enumerate().map(|(i, p)| (p.name.as_str(), i)).collect();
    let mut cells: Vec<Vec<Cell>> = vec![Vec::new(); pieces.len()];
    for (r, row) in rows.iter().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            match (board.is_open(r, c), ch) {
                (false, '#') | (true, '.') => {}
                (true, ch) => match names.get(ch.encode_utf8(&mut [0; 4]) as &str) {
                    Some(&i) => cells[i].push((r, c)),
                    None => return Err(format!("row {}, column {}: '{ch}' is no piece of the class", r + 1, c + 1)),
                },
                (false, ch) => return Err(format!("row {}, column {}: '{ch}' on a wall", r + 1, c + 1)),
            }
        }
    }
    pieces
        .iter()
        .zip(cells)
        .map(|(piece, cells)| match Shape::from_cells(&cells) {
            Some((shape, anchor)) if shape == piece.shape => Ok(anchor),
            _ => Err(format!("piece {} does not cover its shape", piece.name)),
        })
        .collect()
}

/// A layout on one line: the rows of its drawing (`.` empty, `#` wall, one character per piece)
/// joined by `/`.
pub fn one_line(puzzle: &Puzzle, anchors: &[Cell]) -> String {
    let rows: Vec<String> = char_grid(puzzle, anchors).into_iter().map(|r| r.into_iter().collect()).collect();
    rows.join("/")
}

/// Characters of a layout of `puzzle` in [`one_line`] form.
pub fn row_chars(puzzle: &Puzzle) -> usize {
    let (rows, cols) = (puzzle.board.rows, puzzle.board.cols);
    rows * cols + rows.saturating_sub(1)
}

/// One component as reported: sizes, and layouts in [`one_line`] form.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ComponentRow {
    /// Layouts in the component.
    pub size: u64,
    /// Layouts in it that meet the goal.
    pub goal_layouts: u64,
    /// The largest distance to a goal layout (`None`: unsolvable).
    pub hardest_moves: Option<u32>,
    /// The first layout at that distance (`None` also without [`Settings::layouts`]).
    pub hardest: Option<String>,
    /// The component's first layout (empty without [`Settings::layouts`]).
    pub representative: String,
}

/// The analysis of one class.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClassResult {
    /// The class's [`Class::describe`] text.
    pub class: String,
    /// Legal layouts.
    pub layouts: u64,
    /// Components, in the order of their first layouts.
    pub components: Vec<ComponentRow>,
    /// Bytes its tables held.
    pub peak_bytes: u64,
    /// Its database lines (the clusters [`db`] keeps, in component order; `None`: not asked for).
    pub database: Option<Vec<String>>,
}

impl ClassResult {
    /// The bytes it holds (its strings and lists, by their capacities).
    pub fn bytes(&self) -> u64 {
        let text = |s: &String| (std::mem::size_of::<String>() + s.capacity()) as u64;
        let rows = self.components.iter().map(|c| {
            let hardest = c.hardest.as_ref().map_or(0, |h| h.capacity() as u64);
            std::mem::size_of::<ComponentRow>() as u64 + hardest + c.representative.capacity() as u64
        });
        let lines = self.database.iter().flatten().map(text);
        let spare = self.components.capacity() - self.components.len();
        std::mem::size_of::<Self>() as u64
            + text(&self.class)
            + (spare * std::mem::size_of::<ComponentRow>()) as u64
            + rows.sum::<u64>()
            + lines.sum::<u64>()
    }

    /// The per-class totals.
    pub fn totals(&self) -> ClassTotals {
        ClassTotals {
            class: self.class.clone(),
            layouts: self.layouts,
            components: self.components.len() as u64,
            largest: self.components.iter().map(|c| c.size).max().unwrap_or(0),
            solvable: self.components.iter().filter(|c| c.hardest_moves.is_some()).count() as u64,
            hardest_moves: self.components.iter().filter_map(|c| c.hardest_moves).max(),
            database_lines: self.database.as_ref().map(|d| d.len() as u64),
        }
    }
}

/// The totals of one class: a row of `classes.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassTotals {
    /// The class's [`Class::describe`] text.
    pub class: String,
    /// Legal layouts.
    pub layouts: u64,
    /// Components.
    pub components: u64,
    /// Size of the largest component.
    pub largest: u64,
    /// Components holding a goal layout.
    pub solvable: u64,
    /// The largest distance to a goal in the class (`None`: no solvable component).
    pub hardest_moves: Option<u32>,
    /// Its database lines (`None`: not asked for).
    pub database_lines: Option<u64>,
}

/// The limit that stops a class now: memory, when an allocation failed since `watch` began (the
/// process is at its limit, whatever the budget allowed), or the deadline.
pub(crate) fn limit_now(deadline: Option<Instant>, watch: &Watch) -> Option<LimitHit> {
    if watch.starved() {
        Some(LimitHit::Memory)
    } else if past(deadline) {
        Some(LimitHit::Time)
    } else {
        None
    }
}

/// The primary kind and row of the database rule when `database` is asked for (an error when the
/// spec does not qualify).
pub fn database_primary(spec: &FamilySpec, database: bool) -> Result<Option<(usize, usize)>, FamilyError> {
    database.then(|| db::primary(spec)).transpose().map_err(FamilyError::NoDatabase)
}

/// Analyses one class with `settings`: within its memory limit, by its method, and with the
/// database rule, only the layouts the rule's placement invariant allows ([`db::allows`]) and with
/// the class's database lines.
pub fn analyse_class(spec: &FamilySpec, class: &Class, settings: Settings) -> Result<ClassResult, FamilyError> {
    let Settings { memory_limit, database, method, solvable_only, layouts, deadline } = settings;
    let solvable_only = solvable_only || database;
    let describe = class.describe(spec);
    // A reserve spent by an earlier class (one stopped beside others, say, and now run alone) is
    // taken again if it can be.
    crate::reserve::rearm();
    let watch = Watch::new();
    if past(deadline) {
        return Err(FamilyError::Stopped(describe, LimitHit::Time, 0));
    }
    let primary = database_primary(spec, database)?;
    let (puzzle, search_bytes) = class_puzzle(spec, class, primary, (memory_limit, deadline))?;
    let Some(puzzle) = puzzle else {
        return Ok(ClassResult {
            class: describe,
            layouts: 0,
            components: Vec::new(),
            peak_bytes: search_bytes,
            database: database.then(Vec::new),
        });
    };
    let kinds = piece_kinds(class);
    let keep = |piece: usize, anchor: Cell| allowed(spec, primary, kinds[piece], anchor);
    let ranker = primary.map(|_| db::Ranker::new(&puzzle));
    let rank = ranker.as_ref().map(|ranker| move |anchors: &[Cell]| ranker.rank(anchors));
    let order: Option<graph::Order> = rank.as_ref().map(|rank| rank as graph::Order);
    // The database's clusters keep its invariants; the others are left out whole.
    let primary_piece = primary.map(|(kind, _)| first_piece(class, kind));
    let eligible = |anchors: &[Cell]| primary_piece.is_none_or(|p| db::invariants_hold(&puzzle, p, anchors));
    let invariant: Option<graph::Invariant> = if primary.is_some() { Some(&eligible) } else { None };
    // The spec's start, on this class's pieces: the layouts a hardest layout is chosen from.
    let start = spec.start.as_ref().map(|start| start.renumbered(|k| first_piece(class, k)));
    let is_start = |anchors: &[Cell]| start.as_ref().is_none_or(|start| start.is_met(&puzzle, anchors));
    let starts: Option<graph::Starts> = if start.is_some() { Some(&is_start) } else { None };
    let (everywhere, keep) = (Placements::Everywhere, Some(&keep as &dyn Fn(usize, Cell) -> bool));
    let row_chars = if layouts { row_chars(&puzzle) } else { 0 };
    let analysis: Analysis = match method {
        Method::Whole => {
            let task = Analyse {
                order,
                invariant,
                starts,
                moved: database,
                row_chars,
                deadline,
                ..Analyse::within(memory_limit)
            };
            with_block_tables(&puzzle, memory_limit, everywhere, keep, task)
        }
        Method::Seeds => {
            let task = AnalyseBySeeds {
                memory_limit,
                order,
                invariant,
                starts,
                moved: database,
                solvable_only,
                row_chars,
                deadline,
            };
            with_block_tables(&puzzle, memory_limit, everywhere, keep, task)
        }
    }
    .map_err(|e| FamilyError::Compile(describe.clone(), e))?
    .expect("block domains list their placements")
    .map_err(|e| FamilyError::Memory(describe.clone(), e))?;
    let analysed = analysis.peak_bytes.max(search_bytes);
    if let Some(hit) = analysis.stopped {
        return Err(FamilyError::Stopped(describe, hit, analysed));
    }
    let analysis = if solvable_only { analysis.solvable_only() } else { analysis };
    let listed = memory::product(&[analysis.components.len()], graph::component_bytes(puzzle.pieces.len(), row_chars))
        .unwrap_or(u64::MAX);
    // The rule's minimality tests run on every thread; the lines come in component order.
    // The tests run with the components held, after the analysis's tables are freed.
    let (database, tests_bytes) = match primary_piece {
        Some(piece) => {
            let (lines, bytes) = db::lines(&puzzle, piece, &analysis.components, (&describe, memory_limit, deadline))
                .map_err(|e| e.holding(|tests| analysed.max(listed.saturating_add(tests))))?;
            (Some(lines), bytes)
        }
        None => (None, 0),
    };
    let peak_bytes = analysed.max(listed.saturating_add(tests_bytes));
    // Each component's layouts are freed as its row is made.
    let text = |layout: &graph::Layout| if layouts { one_line(&puzzle, &layout.anchors()) } else { String::new() };
    let starved = || FamilyError::Stopped(describe.clone(), LimitHit::Memory, peak_bytes);
    let mut components = Vec::new();
    components.try_reserve_exact(analysis.components.len()).map_err(|_| starved())?;
    for c in analysis.components {
        // A row's two layouts are small allocations: one that failed stops the class here.
        if watch.starved() {
            return Err(starved());
        }
        components.push(ComponentRow {
            size: c.size,
            goal_layouts: c.goal_layouts,
            hardest_moves: c.hardest_moves,
            hardest: c.hardest.as_ref().filter(|_| layouts).map(text),
            representative: text(&c.representative),
        });
    }
    // A small allocation that failed on the way (and was served from the reserve) means the
    // class held all the process could have: stopped, not finished, whatever its tables' estimate.
    if watch.starved() {
        return Err(starved());
    }
    Ok(ClassResult { class: describe, layouts: analysis.layouts, components, peak_bytes, database })
}

/// A class that failed within its share of the budget ([`FamilyError::wants_more_memory`]),
/// analysed again alone: with the whole budget on every thread (unless its share was already the
/// whole budget), then, where the searches that run side by side on every thread still want more,
/// on one thread. So a class that fits the budget on one thread always runs, and one that does not
/// fails with the message one thread gives.
pub fn analyse_alone(
    spec: &FamilySpec,
    class: &Class,
    settings: Settings,
    share_was_whole: bool,
) -> Result<ClassResult, FamilyError> {
    if !share_was_whole {
        match analyse_class(spec, class, settings) {
            Err(e) if e.wants_more_memory() && rayon::current_num_threads() > 1 => {}
            result => return result,
        }
    }
    crate::search::with_threads(1, || analyse_class(spec, class, settings))
}

/// Whether a class that failed with `error` within a share of `share` bytes of a `whole`-byte
/// budget is analysed again by [`analyse_alone`].
pub fn runs_alone(error: &FamilyError, share: u64, whole: u64) -> bool {
    error.wants_more_memory() && (share < whole || rayon::current_num_threads() > 1)
}

/// What a run does with each class's result ([`run`]): its position and the result.
pub type OnClass<'a> = dyn FnMut(usize, ClassResult) -> Result<(), FamilyError> + Send + 'a;

/// Class results put back in class order: each goes to the run's [`OnClass`] once it and every
/// earlier class are in; the first error in class order (a class's, or the sink's) ends the run.
pub struct InOrder<'a, 'b> {
    on_class: &'a mut OnClass<'b>,
    waiting: std::collections::BTreeMap<usize, Result<ClassResult, FamilyError>>,
    next: usize,
    failed: Option<FamilyError>,
}

impl<'a, 'b> InOrder<'a, 'b> {
    /// Nothing delivered yet; the first class is position 0.
    pub fn new(on_class: &'a mut OnClass<'b>) -> Self {
        InOrder { on_class, waiting: Default::default(), next: 0, failed: None }
    }

    /// Takes the result of the class at `position` and delivers what is now in order; returns
    /// whether the run goes on (false: a class failed, or the sink did, so start no more classes).
    pub fn push(&mut self, position: usize, result: Result<ClassResult, FamilyError>) -> bool {
        if self.failed.is_some() {
            return false;
        }
        self.waiting.insert(position, result);
        while let Some(result) = self.waiting.remove(&self.next) {
            if let Err(e) = result.and_then(|r| (self.on_class)(self.next, r)) {
                self.failed = Some(e);
                return false;
            }
            self.next += 1;
        }
        self.waiting.values().all(Result::is_ok)
    }

    /// The run's outcome: the first error in class order, also one whose earlier classes were
    /// never started because the run stopped.
    pub fn finish(mut self) -> Result<(), FamilyError> {
        let waiting = std::mem::take(&mut self.waiting);
        match self.failed.take().or_else(|| waiting.into_values().find_map(Result::err)) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Analyses `classes` in parallel (on the current rayon pool) with `settings` (as
/// [`analyse_class`] does), and hands each result to `on_class` in class order as soon as it and
/// every earlier class are done. `settings.memory_limit` is the budget of the classes' tables
/// together: the classes analysed side by side (one a thread) each get an equal share of it, and
/// a class that needs more than its share (or could not have it while the others held theirs)
/// runs again alone, with the whole budget, once the classes started beside it are done. Stops at
/// the first error, after the classes before it.
pub fn run(spec: &FamilySpec, classes: &[Class], settings: Settings, on_class: &mut OnClass) -> Ran {
    let slots = rayon::current_num_threads().clamp(1, classes.len().max(1));
    // The share is fixed, not what waiting results leave of the budget, so a class's outcome and
    // message never depend on the timing of the threads.
    let beside = settings.share(slots);
    let held = Held::default();
    // The moment each class's result was made, for the time it waits to be written.
    let made: Vec<AtomicU64> = classes.iter().map(|_| AtomicU64::new(0)).collect();
    let failed = AtomicBool::new(false);
    let mut deliver = |i: usize, result: ClassResult| {
        held.record(made[i].load(Ordering::Relaxed), held.now(), result.bytes());
        on_class(i, result)
    };
    // Analyses class `i` (beside others within its share, or alone: [`analyse_alone`]); the
    // tables it held are recorded: a result's, a stopped class's until it stopped, and the share
    // of one that runs again alone (it was checked against its share before allocating past it);
    // and when a result was made.
    let analyse = |i: usize, alone: bool| {
        let from = held.now();
        let result = match alone {
            true => analyse_alone(spec, &classes[i], settings, slots == 1),
            false => analyse_class(spec, &classes[i], beside),
        };
        let to = held.now();
        let bytes = match &result {
            Ok(r) => {
                made[i].store(to, Ordering::Relaxed);
                Some(r.peak_bytes)
            }
            Err(e) if !alone && runs_alone(e, beside.memory_limit, settings.memory_limit) => Some(beside.memory_limit),
            Err(e) => e.held(),
        };
        if let Some(bytes) = bytes {
            held.record(from, to, bytes);
        }
        result
    };
    let order = Mutex::new(InOrder::new(&mut deliver));
    let keep = |_, i, result: Option<Result<ClassResult, FamilyError>>| {
        let mut order = order.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(result) = result
            && !order.push(i, result)
        {
            failed.store(true, Ordering::Relaxed);
        }
    };
    // Classes are handed out in order as threads ask for them (an indexed split would start a
    // thread halfway through, and every class it finished would wait for the first half). One
    // over its share stops the others from starting, and runs alone once those beside it are done.
    let next = AtomicUsize::new(0);
    let step = |_| {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if failed.load(Ordering::Relaxed) || i >= classes.len() {
            return None;
        }
        Some((
            i,
            match analyse(i, false) {
                Err(e) if runs_alone(&e, beside.memory_limit, settings.memory_limit) => Done::Alone,
                result => Done::Output(Some(result)),
            },
        ))
    };
    // After a failure the classes held to run alone are left out (`None`), as unstarted ones are.
    rounds::in_rounds(slots, step, keep, |i| (!failed.load(Ordering::Relaxed)).then(|| analyse(i, true)));
    let order = order.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let ledger = memory::product(&[classes.len(), 2], Held::BYTES_PER_HOLDING).unwrap_or(u64::MAX);
    Ran { outcome: order.finish(), peak_bytes: held.peak().saturating_add(ledger) }
}

/// How a run of classes ended ([`run`]).
#[derive(Debug)]
pub struct Ran {
    /// `Ok` when every class was delivered, else the first error in class order.
    pub outcome: Result<(), FamilyError>,
    /// The most bytes held at once (`Held`): the tables of the classes running side by side and
    /// the results waiting for an earlier class (which the budget does not bound).
    pub peak_bytes: u64,
}

/// Totals over a whole family.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Legal layouts over all classes.
    pub layouts: u64,
    /// Classes with at least one layout.
    pub classes: u64,
    /// Classes whose pieces fit in no layout.
    pub empty_classes: u64,
    /// Components over all classes.
    pub components: u64,
    /// Components holding a goal layout.
    pub solvable_components: u64,
    /// Size of the largest component.
    pub largest_component: u64,
    /// The class of the largest component (the first such class; `None`: no component).
    pub largest_class: Option<String>,
    /// The largest distance to a goal over the family (`None`: nothing solvable).
    pub hardest_moves: Option<u32>,
    /// The class where that distance is first reached (`None`: nothing solvable).
    pub hardest_class: Option<String>,
}

impl Summary {
    /// Adds one class's totals.
    pub fn add(&mut self, t: &ClassTotals) {
        self.layouts += t.layouts;
        if t.layouts == 0 {
            self.empty_classes += 1;
        } else {
            self.classes += 1;
        }
        self.components += t.components;
        self.solvable_components += t.solvable;
        if t.largest > self.largest_component {
            self.largest_component = t.largest;
            self.largest_class = Some(t.class.clone());
        }
        if t.hardest_moves > self.hardest_moves {
            self.hardest_moves = t.hardest_moves;
            self.hardest_class = Some(t.class.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNLIMITED: Settings = Settings {
        memory_limit: u64::MAX,
        database: false,
        method: Method::Whole,
        solvable_only: false,
        layouts: true,
        deadline: None,
    };

    /// `n` kinds of two cells `a`, `b`, … (`XX`, `X.X`, `X..X`, …), each with the count range `range`.
    fn two_cell_kinds(n: usize, range: &str) -> String {
        (0..n).map(|k| format!("kind: {} X{}X b {range}\n", (b'a' + k as u8) as char, ".".repeat(k))).collect()
    }

    /// A family of one 1x1 goal piece `A` and [`two_cell_kinds`] on an empty 8x8 board.
    fn two_cell_family(n: usize, range: &str) -> String {
        format!("goal: A at 0,0\nkind: A 1x1 b 1\n{}board:\n{}", two_cell_kinds(n, range), "........\n".repeat(8))
    }

    #[test]
    fn every_listed_class_reads_back_and_nothing_else_does() {
        let text = std::fs::read_to_string("corpora/families/rush4x4.family").unwrap();
        let mut spec = spec::parse(&text).unwrap();
        spec.pieces = (2, Some(4));
        let all = classes(&spec, u64::MAX, None).unwrap();
        let read = class_reader(&spec);
        assert!(all.len() > 10);
        for class in &all {
            assert_eq!(read(&class.describe(&spec)).as_ref(), Some(class));
        }
        assert_eq!(read("A=1 H=0 V=1 T=0 U=0 empty=12"), Some(Class { counts: vec![(0, 1), (2, 1)], empty: 12 }));
        let not = [
            "A=1 V=1 empty=11",  // the cells the pieces leave are 12
            "A=1 empty=14",      // one piece, fewer than the range's two
            "A=1 H=4 empty=6",   // five pieces
            "V=1 A=1 empty=12",  // not in spec order
            "H=1 V=1 empty=12",  // no A, whose minimum is 1
            "A=2 empty=12",      // more A than its most
            "Q=1 A=1 empty=12",  // no such kind
            "A=1 V=01 empty=12", // not as describe writes it
            "A=1 V=+1 empty=12", // nor this
            "A=1 V=1 empty=+12", // nor this
            "A=1 V=1",           // no empty count
            "A=1 V=99999999999999999999999 empty=12",
            "",
        ];
        for text in not {
            assert_eq!(read(text), None, "{text}");
        }
    }

    /// The puzzle of the first class of the family `spec_text` describes.
    fn first_class_puzzle(spec_text: &str) -> Puzzle {
        let spec = spec::parse(spec_text).unwrap();
        class_puzzle(&spec, &classes(&spec, u64::MAX, None).unwrap()[0], None, (u64::MAX, None)).unwrap().0.unwrap()
    }

    #[test]
    fn a_layout_reads_back_to_its_anchors_and_bad_ones_are_named() {
        let puzzle = first_class_puzzle("goal: A at 0,0\nkind: A 1x1 b 1\nkind: V 2x1 b 1\nboard:\n.#.\n...\n");
        let anchors = |layout: &str| read_layout(&puzzle.board, &puzzle.pieces, layout);
        let start = puzzle.start.clone();
        assert_eq!(anchors(&one_line(&puzzle, &start)).unwrap(), start);
        assert_eq!(anchors("A#B/..B").unwrap(), vec![(0, 0), (0, 2)]);
        assert!(anchors("A#B/..B/...").unwrap_err().contains("not a layout of 2 rows of 3 cells"));
        assert_eq!(anchors("AAB/..B").unwrap_err(), "row 1, column 2: 'A' on a wall");
        assert_eq!(anchors("A#B/.ZB").unwrap_err(), "row 2, column 2: 'Z' is no piece of the class");
        assert_eq!(anchors("A#B/.B.").unwrap_err(), "piece B does not cover its shape");
        assert_eq!(anchors("A#./...").unwrap_err(), "piece B does not cover its shape");
    }

    #[test]
    fn too_many_classes_is_an_error_not_an_exhausted_machine() {
        // 30 kinds of two cells with open counts on 64 cells: about 2 x 10^17 classes.
        let text = two_cell_family(30, "0..");
        let spec = spec::parse(&text).unwrap();
        assert_eq!(
            classes(&spec, u64::MAX, None).unwrap_err().to_string(),
            "the count ranges allow more than 1048576 piece-count classes"
        );
        // Within a memory limit, the list of classes stops where it would pass it: here, of the
        // classes of at most three pieces, the 101st.
        let few = spec::parse(&text.replace("goal:", "pieces: ..3\ngoal:")).map(drop).unwrap_err();
        assert_eq!(few.to_string(), "line 1: expected a count N, N.. or N..M, found '..3'");
        let few = spec::parse(&text.replace("goal:", "pieces: 1..3\ngoal:")).unwrap();
        let all = classes(&few, u64::MAX, None).unwrap();
        assert_eq!(all.len(), 1 + 30 + 30 + 30 * 29 / 2);
        let held: Vec<u64> =
            all.iter().scan(0, |sum, c| Some(std::mem::replace(sum, *sum + class_bytes(c.counts.len())))).collect();
        let (limit, need) = (held[100] + class_bytes(1), held[101]);
        let (need, limit_text) = crate::memory::over(need, limit);
        let want = format!(
            "more than 100 piece-count classes of 31 kinds would need {need} (more than the memory limit of {limit_text})"
        );
        assert_eq!(classes(&few, limit, None).unwrap_err().to_string(), want);
    }

    #[test]
    fn classes_respect_the_ranges_and_the_empty_cells() {
        // Five open cells, at least one empty: A (1) plus 0..=1 dominoes and 0.. squares in 4 cells.
        let spec = spec::parse(
            "goal: A at 0,0\nempty: 1..\nkind: A 1x1 b 1\nkind: D 1x2 h 0..1\nkind: S 1x1 b 0..\nboard:\n.....\n",
        )
        .unwrap();
        let got: Vec<String> = classes(&spec, u64::MAX, None).unwrap().iter().map(|c| c.describe(&spec)).collect();
        let want = [
            "A=1 empty=4",
            "A=1 S=1 empty=3",
            "A=1 S=2 empty=2",
            "A=1 S=3 empty=1",
            "A=1 D=1 empty=2",
            "A=1 D=1 S=1 empty=1",
        ];
        assert_eq!(got, want);
        // A description of an earlier version, which named the kinds without pieces too, is the
        // same class.
        assert_eq!(class_key("A=1 D=0 S=3 empty=1"), "A=1 S=3 empty=1");
        assert_eq!(class_key("A=1 D=1 S=0 empty=0"), "A=1 D=1 empty=0");
        // Counts past any board are no class, however large their sum.
        let huge = format!(
            "pieces: 2\ngoal: A at 0,0\nkind: A 1x1 b 1\nkind: B 1x1 b {0}..\nkind: C 1x2 b {0}..\nboard:\n..\n",
            usize::MAX
        );
        assert_eq!(classes(&spec::parse(&huge).unwrap(), u64::MAX, None).unwrap(), []);
    }

    #[test]
    fn the_walk_lists_what_every_combination_of_counts_allows() {
        // Small random specs against the plain product of every kind's counts, in the same order.
        let shapes = ["X", "XX", "X/X", "XXX", "XX/X.", "XX/XX"];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..300 {
            let (cells, min_empty) = (2 + next(9), next(3));
            let mut text = format!("empty: {min_empty}..\n");
            if next(2) == 0 {
                let fewest = next(4);
                text += &format!("pieces: {fewest}..{}\n", fewest + next(4));
            }
            text += "goal: A at 0,0\nkind: A 1x1 b 1\n";
            let mut kinds = vec![(1, 1, Some(1))];
            let mut unused = shapes.to_vec();
            for k in 0..next(5) {
                let (shape, min) = (unused.swap_remove(next(unused.len())), next(3) / 2);
                let max = (next(3) > 0).then(|| min + next(4));
                let range = max.map_or(format!("{min}.."), |max| format!("{min}..{max}"));
                text += &format!("kind: {} {shape} b {range}\n", (b'B' + k as u8) as char);
                kinds.push((shape.chars().filter(|&c| c == 'X').count(), min, max));
            }
            text += &format!("board:\n{}\n{}\n", ".".repeat(cells), ".".repeat(cells));
            let spec = spec::parse(&text).unwrap();
            let (room, range) = ((2 * cells).saturating_sub(min_empty), spec.pieces);
            let mut want = Vec::new();
            let mut counts = vec![0usize; kinds.len()];
            'product: loop {
                let used: usize = counts.iter().zip(&kinds).map(|(n, k)| n * k.0).sum();
                let pieces: usize = counts.iter().sum();
                let in_ranges = counts.iter().zip(&kinds).all(|(&n, k)| n >= k.1 && k.2.is_none_or(|m| n <= m));
                if used <= room && in_ranges && pieces > 0 && pieces >= range.0 && range.1.is_none_or(|m| pieces <= m) {
                    let nonzero = counts.iter().enumerate().filter(|&(_, &n)| n > 0).map(|(k, &n)| (k, n));
                    want.push(Class { counts: nonzero.collect(), empty: 2 * cells - used });
                }
                // The next counts in the walk's order: the last kind fastest.
                for k in (0..kinds.len()).rev() {
                    if (counts[k] + 1) * kinds[k].0 <= room {
                        counts[k] += 1;
                        continue 'product;
                    }
                    counts[k] = 0;
                }
                break;
            }
            assert_eq!(classes(&spec, u64::MAX, None).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn a_piece_range_no_class_reaches_is_found_empty_at_once() {
        // 64 cells: A, at most one 1x1 Z, and 30 kinds of two cells hold at most 33 pieces. A
        // bound that counted Z's one cell for every piece walked through every way of sharing
        // up to 31 two-cell pieces among the 30 kinds (about 10^17) before finding none.
        let kinds = two_cell_kinds(30, "0..");
        let board = "........\n".repeat(8);
        let text = format!("goal: A at 0,0\nkind: A 1x1 b 1\n{kinds}kind: Z 1x1 b 0..1\nboard:\n{board}");
        let spec = spec::parse(&format!("pieces: 34..\n{text}")).unwrap();
        assert_eq!(classes(&spec, u64::MAX, None).unwrap(), []);
        // 33 pieces fill the board: A, Z and 31 two-cell pieces, too many ways to list.
        let spec = spec::parse(&format!("pieces: 33..\n{text}")).unwrap();
        assert!(matches!(classes(&spec, u64::MAX, None), Err(FamilyError::TooManyClasses(_))));
    }

    #[test]
    fn the_walk_steps_over_the_kinds_that_cannot_have_a_piece() {
        // A 5x8 goal piece leaves 24 cells: 16 small kinds fill them in many ways, the 2,000
        // kinds of 25 to 32 cells after them never fit, and the 1x1 Z after those always does.
        // Every class has to pass the large kinds on its way to Z: a step each would be about
        // classes x 2,000 steps.
        let small: String = ["1x2", "2x1", "1x3", "3x1"]
            .iter()
            .flat_map(|shape| "bhvn".chars().map(move |m| format!("{shape} {m}")))
            .zip('a'..)
            .map(|(kind, name)| format!("kind: {name} {kind} 0..1\n"))
            .collect();
        let large: String = (0..1 << 12)
            .filter(|holes: &u32| holes.count_ones() <= 7)
            .take(500)
            .flat_map(|holes| {
                // A 4x8 block without up to 7 of the 12 cells of rows 1 and 2, columns 1 to 6.
                let rows: Vec<String> = (0..4)
                    .map(|r| {
                        let hole = |c: u32| {
                            (1..=2).contains(&r) && (1..=6).contains(&c) && holes >> ((r - 1) * 6 + c - 1) & 1 == 1
                        };
                        (0..8).map(|c| if hole(c) { '.' } else { 'X' }).collect()
                    })
                    .collect();
                "bhvn".chars().map(move |m| format!("{} {m}", rows.join("/")))
            })
            .zip((0x4E00..).filter_map(char::from_u32))
            .map(|(kind, name)| format!("kind: {name} {kind} 0..1\n"))
            .collect();
        let text = format!(
            "goal: A at 0,0\nkind: A 5x8 b 1\n{small}{large}kind: Z 1x1 b 0..1\nboard:\n{}",
            "........\n".repeat(8)
        );
        let spec = spec::parse(&text).unwrap();
        assert_eq!(spec.kinds.len(), 1 + 16 + 2000 + 1);
        let (listed, steps) = list_classes(&spec, u64::MAX, None);
        let listed = listed.unwrap();
        // Subsets of the eight 2-cell and eight 3-cell kinds in 24 cells, each without and with Z.
        assert_eq!(listed.len(), 102_165);
        assert!(listed.iter().all(|c| c.counts.iter().all(|&(k, _)| !(17..2017).contains(&k))));
        assert!(steps < 4 * listed.len() as u64, "{steps} steps for {} classes", listed.len());
        // A deadline already past stops a walk at its 65,536th step: here, of the classes of 30
        // kinds of two cells, long before the millionth.
        let text = two_cell_family(30, "0..");
        let (listed, steps) = list_classes(&spec::parse(&text).unwrap(), u64::MAX, Some(Instant::now()));
        assert_eq!(
            (listed.unwrap_err().to_string(), steps),
            ("listing the classes: time limit reached".into(), 1 << 16)
        );
    }

    #[test]
    fn matching_the_finished_classes_stops_at_the_deadline() {
        // Sixteen kinds of two cells, each 0 or 1 piece: 65,536 classes, one of them finished.
        let text = two_cell_family(16, "0..1");
        let spec = spec::parse(&text).unwrap();
        let all = classes(&spec, u64::MAX, None).unwrap();
        let done = std::collections::HashSet::from([all[1].describe(&spec)]);
        let todo = unfinished(&spec, &all, &done, None).unwrap();
        assert_eq!((all.len(), todo.len(), todo[..2].to_vec()), (1 << 16, (1 << 16) - 1, vec![0, 2]));
        // A deadline already past stops it at its 65,536th class.
        let late = unfinished(&spec, &all, &done, Some(Instant::now())).unwrap_err();
        assert_eq!(late.to_string(), "listing the classes: time limit reached");
        let short = &all[..(1 << 16) - 1];
        assert_eq!(unfinished(&spec, short, &done, Some(Instant::now())).unwrap().len(), (1 << 16) - 2);
    }

    #[test]
    fn a_piece_range_lists_the_classes_with_that_many_pieces() {
        let text = std::fs::read_to_string("corpora/families/klotski.family").unwrap();
        let every = classes(&spec::parse(&text).unwrap(), u64::MAX, None).unwrap();
        assert_eq!(every.len(), 204); // 203 with a layout: seven vertical dominoes fit the cells, not the board
        for (range, fewest, most) in [("10", 10, 10), ("8..9", 8, 9), ("12..", 12, usize::MAX), ("0..1", 0, 1)] {
            let spec = spec::parse(&format!("pieces: {range}\n{text}")).unwrap();
            let pieces = |c: &Class| c.counts.iter().map(|&(_, n)| n).sum::<usize>();
            let want: Vec<&Class> = every.iter().filter(|c| (fewest..=most).contains(&pieces(c))).collect();
            let got = classes(&spec, u64::MAX, None).unwrap();
            assert!(!want.is_empty() || range == "0..1", "{range}");
            assert_eq!(got.iter().collect::<Vec<_>>(), want, "{range}");
        }
    }

    #[test]
    fn a_result_counts_the_bytes_of_its_rows_and_lines() {
        let row = ComponentRow {
            size: 2,
            goal_layouts: 1,
            hardest_moves: Some(1),
            hardest: Some("x".repeat(100)),
            representative: "y".repeat(50),
        };
        let mut r =
            ClassResult { class: "c".into(), layouts: 2, components: Vec::new(), peak_bytes: 0, database: None };
        let empty = r.bytes();
        r.components = vec![row.clone(), row];
        assert!(r.bytes() >= empty + 300, "{} {empty}", r.bytes());
        let rows = r.bytes();
        r.database = Some(vec!["z".repeat(1000)]);
        assert!(r.bytes() >= rows + 1000);
    }

    #[test]
    fn results_are_delivered_in_class_order_and_the_first_error_in_class_order_wins() {
        let result = |layouts| ClassResult {
            class: format!("c{layouts}"),
            layouts,
            components: Vec::new(),
            peak_bytes: 0,
            database: None,
        };
        let mut seen = Vec::new();
        let mut sink = |i: usize, r: ClassResult| -> Result<(), FamilyError> {
            seen.push((i, r.layouts));
            Ok(())
        };
        let mut order = InOrder::new(&mut sink);
        assert!(order.push(2, Ok(result(2))));
        assert!(order.push(0, Ok(result(0))));
        // Class 4 failed while class 3 still runs: no more classes, but 3 is still delivered.
        assert!(!order.push(4, Err(FamilyError::Rank("class 4 failed".into()))));
        assert!(!order.push(1, Ok(result(1))));
        assert!(!order.push(3, Ok(result(3))));
        assert_eq!(order.finish().unwrap_err().to_string(), "class 4 failed");
        assert_eq!(seen, [(0, 0), (1, 1), (2, 2), (3, 3)]);

        // A failure whose earlier classes never came (the run stopped before them) is still the
        // outcome, and the earlier of two failures wins.
        let mut sink = |_: usize, _: ClassResult| -> Result<(), FamilyError> { Ok(()) };
        let mut order = InOrder::new(&mut sink);
        assert!(!order.push(5, Err(FamilyError::Rank("five".into()))));
        assert!(!order.push(3, Err(FamilyError::Rank("three".into()))));
        assert_eq!(order.finish().unwrap_err().to_string(), "three");
    }

    #[test]
    fn a_class_whose_pieces_do_not_fit_has_no_layout() {
        // Beside a 2x2 block on a 3x3 board only one horizontal domino fits.
        let spec = spec::parse("goal: A at 0,0\nkind: A 2x2 b 1\nkind: H 1x2 b 2\nboard:\n...\n...\n...\n").unwrap();
        let r = analyse_class(&spec, &classes(&spec, u64::MAX, None).unwrap()[0], UNLIMITED).unwrap();
        assert_eq!((r.class.as_str(), r.layouts, r.components.len()), ("A=1 H=2 empty=1", 0, 0));
    }

    #[test]
    fn the_search_for_a_first_layout_stops_at_the_deadline() {
        // The twelve pentominoes, one orientation each, do not pack a 7x9 box with three cells
        // left empty, and no colouring shows it: the searches try about a million placements (a
        // tenth of a second) unless the deadline stops them.
        let spec = spec::parse(include_str!("../../corpora/families/pentominoes-7x9.family")).unwrap();
        let all = classes(&spec, u64::MAX, None).unwrap();
        let stopped = class_puzzle(&spec, &all[0], None, (u64::MAX, Some(Instant::now()))).map(drop).unwrap_err();
        assert_eq!(
            stopped.to_string(),
            "class F=1 I=1 L=1 N=1 P=1 T=1 U=1 V=1 W=1 X=1 Y=1 Z=1 empty=3: time limit reached"
        );
    }

    #[test]
    fn the_twelve_pentominoes_in_one_orientation_each_pack_neither_box() {
        // No colouring shows it; the search over cells does, in its first turn for the 6x10 box
        // (about 2,000 placements) and in its fourth for the 7x9 (about a million placements of
        // both searches in all), with tables of 64 slots or of 32,768.
        for text in [
            include_str!("../../corpora/families/pentominoes-6x10.family"),
            include_str!("../../corpora/families/pentominoes-7x9.family"),
        ] {
            let spec = spec::parse(text).unwrap();
            let all = classes(&spec, u64::MAX, None).unwrap();
            for memory in [64 * 16 * 2 * 4, u64::MAX] {
                assert!(class_puzzle(&spec, &all[0], None, (memory, None)).unwrap().0.is_none());
            }
        }
    }

    #[test]
    fn no_class_of_straight_trominoes_on_a_chessboard_less_a_corner_has_a_layout() {
        // Coloured by row + column modulo 3, a chessboard less the corner (0,0) has 20 cells of
        // colour 0 and 22 of colour 1, and every straight tromino covers one cell of each colour.
        let spec = spec::parse(include_str!("../../corpora/families/trominoes-8x8.family")).unwrap();
        let all = classes(&spec, u64::MAX, None).unwrap();
        assert_eq!(all.len(), 21);
        for class in &all {
            assert!(class_puzzle(&spec, class, None, (u64::MAX, None)).unwrap().0.is_none());
        }
    }

    #[test]
    fn no_class_of_the_mutilated_chessboard_has_a_layout() {
        // 31 dominoes never cover the 62 cells left when two opposite corners are walls: each
        // covers a light and a dark cell, and the corners are both light. The search knows it
        // before it places a piece.
        let spec = spec::parse(include_str!("../../corpora/families/dominoes-mutilated-8x8.family")).unwrap();
        let all = classes(&spec, u64::MAX, None).unwrap();
        assert_eq!((all.len(), all[0].describe(&spec).as_str()), (31, "A=1 V=30 empty=0"));
        for class in &all {
            // A search longer than 4,096 placements starts again with the colourings, which end
            // it before it makes its tables.
            let (puzzle, bytes) = class_puzzle(&spec, class, None, (u64::MAX, None)).unwrap();
            assert!(puzzle.is_none() && bytes == 0);
        }
        let r = analyse_class(&spec, &all[15], UNLIMITED).unwrap();
        let bytes = class_puzzle(&spec, &all[15], None, (u64::MAX, None)).unwrap().1;
        assert_eq!(
            (r.class.as_str(), r.layouts, r.components.len(), r.peak_bytes),
            ("A=1 H=15 V=15 empty=0", 0, 0, bytes)
        );
    }

    #[test]
    fn a_small_class_has_the_components_a_hand_count_gives() {
        // A square and a vertical domino on 2x2: the domino in either column, the square above or
        // below beside it. The square only moves up and down, so the two columns never mix.
        let spec = spec::parse("goal: A at 0,0\nkind: A 1x1 b 1\nkind: V 2x1 b 1\nboard:\n..\n..\n").unwrap();
        let r = analyse_class(&spec, &classes(&spec, u64::MAX, None).unwrap()[0], UNLIMITED).unwrap();
        assert_eq!(r.layouts, 4);
        let row = |size, goals, moves: Option<u32>, hardest: Option<&str>, rep: &str| ComponentRow {
            size,
            goal_layouts: goals,
            hardest_moves: moves,
            hardest: hardest.map(String::from),
            representative: rep.to_string(),
        };
        assert_eq!(r.components, vec![row(2, 1, Some(1), Some(".B/AB"), "AB/.B"), row(2, 0, None, None, "BA/B.")]);
    }

    #[test]
    fn row_chars_is_the_length_of_a_one_line_layout() {
        let puzzle = first_class_puzzle("goal: A at 0,0\nkind: A 1x1 b 1\nkind: V 2x1 b 1\nboard:\n...\n...\n");
        assert_eq!(one_line(&puzzle, &puzzle.start).len(), 7);
        assert_eq!(row_chars(&puzzle), 7);
    }

    #[test]
    fn without_layouts_a_class_has_the_same_rows_but_their_layouts() {
        let spec = spec::parse("goal: A at 0,0\nkind: A 1x1 b 1\nkind: V 2x1 b 1\nboard:\n..\n..\n").unwrap();
        let class = &classes(&spec, u64::MAX, None).unwrap()[0];
        let with = analyse_class(&spec, class, UNLIMITED).unwrap();
        let without = analyse_class(&spec, class, Settings { layouts: false, ..UNLIMITED }).unwrap();
        let bare: Vec<ComponentRow> = with
            .components
            .iter()
            .map(|c| ComponentRow { hardest: None, representative: String::new(), ..c.clone() })
            .collect();
        assert_eq!(without.components, bare);
        assert_eq!((without.layouts, without.totals()), (with.layouts, with.totals()));
        assert!(without.peak_bytes < with.peak_bytes);
    }
}
