//! A class's first layout: its pieces placed in piece order, each on the first anchor in reading
//! order where it fits (identical pieces on increasing anchors), by backtracking. Three prunings
//! keep that layout and cut the search short on classes whose pieces fill the cells but cannot be
//! packed. Free cells that no piece still to be placed can cover stay empty, so more of them than
//! the class leaves empty end the branch. Under colourings of the board (by row + column, row
//! minus column, row and column, each modulo 2 and modulo 3) each piece covers a number of cells
//! of one colour less another within a range, so the pieces still to come must match the free
//! cells' balance within the empty cells left (the colouring arguments that no 31 dominoes tile a
//! chessboard less two opposite corners, and no 21 straight trominoes a chessboard less a
//! corner). And a table remembers the partial layouts that failed. The prunings
//! cost more than they save on the short searches most classes make, so a search starts without
//! them and starts again with them after 4,096 placements tried, taking turns from then on with
//! a search over cells, which treats the pieces of a kind as one and shows far sooner that a class
//! has no layout at all.

use super::Clock;
use super::spec::FamilySpec;
use crate::puzzle::{Cell, Piece};
use std::time::Instant;

/// The deadline passed before [`first_layout`] was done.
pub(super) struct Late;

/// The most bytes of the table of failed partial layouts (16 a slot).
const MAX_FAILED_BYTES: u64 = 1 << 20;
/// Placements tried without the prunings before the search starts again with them: most
/// classes find their layout, or run out of placements, sooner, and their search costs no more
/// than a plain one.
const PRUNE_AFTER: u64 = 1 << 12;

/// The first layout of `pieces` (in piece order, `kinds` their kinds) on the spec's board whose
/// anchors `keep` allows, or `None`; and the bytes the searches held for their tables of
/// failures, which take at most a quarter of `memory_limit`.
pub(super) fn first_layout(
    spec: &FamilySpec,
    pieces: &[Piece],
    kinds: &[usize],
    keep: &dyn Fn(usize, Cell) -> bool,
    (memory_limit, deadline): (u64, Option<Instant>),
) -> Result<(Option<Vec<Cell>>, u64), Late> {
    let board = &spec.board;
    let placements = placements(spec, pieces, keep);
    // Kinds, not shapes: a goal kind may share its shape and movement with another kind.
    let follows_its_kind: Vec<bool> = (0..pieces.len()).map(|i| i > 0 && kinds[i - 1] == kinds[i]).collect();
    let mut search = Search {
        placements: &placements,
        follows_its_kind: &follows_its_kind,
        prune: None,
        clock: Clock::new(deadline),
        until: PRUNE_AFTER,
    };
    let mut anchors = Vec::with_capacity(pieces.len());
    let (found, bytes) = match search.place(0, &mut anchors) {
        Ok(found) => (found, 0),
        Err(Cut::Late) => return Err(Late),
        Err(Cut::Long) => {
            let Some(mut prune) = Prune::new(spec, &placements, &follows_its_kind) else {
                return Ok((None, 0));
            };
            if prune.cannot(0, 0, 0) {
                return Ok((None, 0));
            }
            // The two searches' tables of failures share the bytes allowed.
            let slots =
                (MAX_FAILED_BYTES.min(memory_limit / 4) / SLOT_BYTES / 2).checked_ilog2().map_or(0, |log| 1 << log);
            prune.failed = Failed::new(slots);
            let mut cover = Cover::new(&placements, &follows_its_kind, prune.open, slots);
            let bytes = (prune.failed.slots.len() + cover.failed.slots.len()) as u64 * SLOT_BYTES;
            let spare = prune.spare;
            search.prune = Some(prune);
            (search.alternate(&mut cover, spare, &mut anchors).map_err(|_| Late)?, bytes)
        }
    };
    Ok((found.then(|| anchors.into_iter().map(|a| (a / board.cols, a % board.cols)).collect()), bytes))
}

/// Why a search stopped before its end: the deadline, or the count of placements tried at which
/// it was to stop.
enum Cut {
    Late,
    Long,
}

/// What the prunings know of a class: where its pieces can reach, their colour balances, and the
/// partial layouts that failed.
struct Prune {
    /// Per piece and placement: the lowest cell its placements from that one on cover (64: none).
    lowest: Vec<Vec<u32>>,
    /// Per piece: the lowest cell a later kind's pieces can cover.
    lowest_after: Vec<u32>,
    /// Per piece: the weighings that can cut a branch where it is next, each with the least and
    /// most balance of the pieces from it on.
    balances: Vec<Vec<(Weighing, i32, i32)>>,
    open: u64,
    /// The cells every layout of the class leaves empty.
    spare: u32,
    failed: Failed,
}

impl Prune {
    /// The prunings of the pieces with these placements, with no table of failures yet; `None`
    /// when the class has no layout for all to see (a piece without a placement, or more cells
    /// covered than open).
    fn new(spec: &FamilySpec, placements: &[Vec<(usize, u64)>], follows_its_kind: &[bool]) -> Option<Prune> {
        let board = &spec.board;
        let open = cells_where(spec, &|r, c| board.is_open(r, c));
        // Every placement of a piece covers its cells.
        let covered = placements
            .iter()
            .map(|options| options.first().map(|&(_, bits)| bits.count_ones()))
            .sum::<Option<u32>>()?;
        let spare = open.count_ones().checked_sub(covered)?;
        let lowest: Vec<Vec<u32>> = placements
            .iter()
            .map(|options| {
                let mut lowest = vec![64; options.len() + 1];
                for (k, &(_, bits)) in options.iter().enumerate().rev() {
                    lowest[k] = lowest[k + 1].min(bits.trailing_zeros());
                }
                lowest
            })
            .collect();
        // A kind's first piece only: the others take anchors after it, from the same placements.
        let mut lowest_after = vec![64; placements.len()];
        for i in (0..placements.len().saturating_sub(1)).rev() {
            let next = if follows_its_kind[i + 1] { 64 } else { lowest[i + 1][0] };
            lowest_after[i] = lowest_after[i + 1].min(next);
        }
        // A weighing cuts nothing where the pieces' balances span every balance the open cells
        // can have: it is left out there.
        let mut reach = weighings(spec).into_iter().map(|w| (w, 0, 0)).collect::<Vec<_>>();
        let mut balances = vec![Vec::new(); placements.len()];
        for (i, options) in placements.iter().enumerate().rev() {
            for (weighing, least, most) in &mut reach {
                let range = options.iter().map(|&(_, bits)| weighing.balance(bits));
                let (l, m) = range.fold((i32::MAX, i32::MIN), |(l, m), b| (l.min(b), m.max(b)));
                (*least, *most) = (*least + l, *most + m);
            }
            balances[i] = reach
                .iter()
                .filter(|(w, least, most)| {
                    *least > -((open & w.other).count_ones() as i32) || *most < (open & w.one).count_ones() as i32
                })
                .cloned()
                .collect();
        }
        Some(Prune { lowest, lowest_after, balances, open, spare, failed: Failed::new(0) })
    }

    /// Whether the pieces from `i` on (the first of them on placements from `first` on) cannot
    /// cover the free cells of `occupied` but the class's empty ones, by where they reach or by
    /// their colour balances.
    fn cannot(&self, i: usize, first: usize, occupied: u64) -> bool {
        // Free cells below every cell a piece still to come can cover stay empty.
        let lowest = self.lowest[i][first].min(self.lowest_after[i]);
        let below = 1u64.checked_shl(lowest).map_or(u64::MAX, |bit| bit - 1);
        let free = self.open & !occupied;
        let Some(rest) = self.spare.checked_sub((free & below).count_ones()) else { return true };
        // The pieces to come cover all the other free cells but `rest`: their balance is within
        // `rest` of those cells' (a cell weighs -1, 0 or 1).
        self.balances[i].iter().any(|&(ref weighing, least, most)| {
            let ahead = weighing.balance(free & !below);
            most < ahead - rest as i32 || least > ahead + rest as i32
        })
    }
}

/// Every piece's placements on open cells that `keep` allows, anchors in reading order, as the
/// anchor's index and the cells as bits (a family's board has at most 64 cells).
fn placements(spec: &FamilySpec, pieces: &[Piece], keep: &dyn Fn(usize, Cell) -> bool) -> Vec<Vec<(usize, u64)>> {
    let board = &spec.board;
    let bits_at = |piece: &Piece, anchor: Cell| {
        piece.shape.cells_at(anchor).try_fold(0u64, |bits, cell| {
            let (r, c) = cell.filter(|&(r, c)| board.is_open(r, c))?;
            Some(bits | 1 << (r * board.cols + c))
        })
    };
    let anchor = |a: usize| (a / board.cols, a % board.cols);
    let on = |(i, piece): (usize, &Piece)| {
        let fits = |a: usize| keep(i, anchor(a)).then(|| bits_at(piece, anchor(a)).map(|bits| (a, bits)))?;
        (0..board.cell_count()).filter_map(fits).collect()
    };
    pieces.iter().enumerate().map(on).collect()
}

/// The search's fixed parts, its prunings once it is long, the clock of the placements tried
/// and the count of them at which it stops.
struct Search<'a> {
    placements: &'a [Vec<(usize, u64)>],
    follows_its_kind: &'a [bool],
    prune: Option<Prune>,
    clock: Clock,
    until: u64,
}

impl Search<'_> {
    /// Places the pieces from `anchors.len()` on, given the cells `occupied`; true with every
    /// anchor pushed when a layout is found.
    fn place(&mut self, occupied: u64, anchors: &mut Vec<usize>) -> Result<bool, Cut> {
        let i = anchors.len();
        let Some(options) = self.placements.get(i) else { return Ok(true) };
        let first = match self.follows_its_kind[i] {
            true => options.partition_point(|&(a, _)| a <= anchors[i - 1]),
            false => 0,
        };
        // What happens from here depends on the occupied cells, the piece and its first option.
        let key = (occupied, (i as u64) << 32 | first as u64);
        if let Some(prune) = &self.prune
            && (prune.cannot(i, first, occupied) || prune.failed.has(key))
        {
            return Ok(false);
        }
        for &(a, bits) in &options[first..] {
            if bits & occupied != 0 {
                continue;
            }
            if self.clock.late() {
                return Err(Cut::Late);
            }
            if self.clock.steps > self.until {
                return Err(Cut::Long);
            }
            anchors.push(a);
            if self.place(occupied | bits, anchors)? {
                return Ok(true);
            }
            anchors.pop();
        }
        if let Some(prune) = &mut self.prune {
            prune.failed.insert(key);
        }
        Ok(false)
    }

    /// The search over cells and this one, with its prunings, in turns, each turn of both
    /// longer than the last by four times, until one decides (this one without end once the
    /// search over cells has found a layout); true with every anchor pushed when a layout is
    /// found. Each keeps its table of failures from turn to turn.
    fn alternate(&mut self, cover: &mut Cover, spare: u32, anchors: &mut Vec<usize>) -> Result<bool, Cut> {
        let mut turn = FIRST_TURN;
        loop {
            cover.until = self.clock.steps.saturating_add(turn);
            self.until = match cover.fits(0, spare, &mut self.clock) {
                Ok(false) => return Ok(false),
                Err(Cut::Late) => return Err(Cut::Late),
                Ok(true) => u64::MAX,
                Err(Cut::Long) => self.clock.steps.saturating_add(turn),
            };
            anchors.clear();
            match self.place(0, anchors) {
                Err(Cut::Long) => turn = turn.saturating_mul(4),
                decided => return decided,
            }
        }
    }
}

/// Placements each search tries in its first turn of [`Search::alternate`].
const FIRST_TURN: u64 = 1 << 14;

/// The class as a search over cells sees it: the lowest free cell is covered by a piece of any
/// kind still to place, or left empty while the class has empty cells to spare. The pieces of a
/// kind are interchangeable there and the order of the kinds does not matter, so this search
/// decides whether the class has a layout at all far sooner than the search in piece order on
/// classes without one (the twelve pentominoes in a 6x10 box: about 2,000 placements), though
/// not which layout comes first. Its failures go into its own table as `(occupied cells, the
/// code of the pieces left)`.
struct Cover {
    /// Per kind and cell: the cells of the kind's placement whose lowest cell that is, or 0. A
    /// placement's lowest cell is its anchor moved by the same offset for every anchor, so a
    /// cell is the lowest of at most one placement of a kind.
    at_lowest: Vec<[u64; 64]>,
    /// Per kind: its pieces not yet placed.
    left: Vec<u64>,
    /// Pieces not yet placed, of every kind.
    pieces_left: u64,
    /// Per kind: what one of its pieces adds to `code`.
    radix: Vec<u64>,
    /// The counts of `left` as one number in mixed radix, which tells every count apart; always
    /// 0, and the table unused, where that number might not fit in 64 bits.
    code: u64,
    open: u64,
    failed: Failed,
    /// The count of placements tried (on the clock) at which the search stops undecided.
    until: u64,
}

impl Cover {
    /// The search for pieces with these placements on the `open` cells, every piece still to
    /// place, with a table of `slots` failures.
    fn new(placements: &[Vec<(usize, u64)>], follows_its_kind: &[bool], open: u64, slots: usize) -> Cover {
        let (mut at_lowest, mut left) = (Vec::new(), Vec::<u64>::new());
        for (options, &follows) in placements.iter().zip(follows_its_kind) {
            match (follows, left.last_mut()) {
                (true, Some(count)) => *count += 1,
                _ => {
                    let mut lowest = [0; 64];
                    options.iter().for_each(|&(_, bits)| lowest[bits.trailing_zeros() as usize] = bits);
                    at_lowest.push(lowest);
                    left.push(1);
                }
            }
        }
        let exact = left.iter().try_fold((Vec::new(), 1u64), |(mut radix, step), &count| {
            radix.push(step);
            Some((radix, step.checked_mul(count + 1)?))
        });
        let radix = exact.map_or_else(|| vec![0; left.len()], |(radix, _)| radix);
        let code = radix.iter().zip(&left).map(|(r, n)| r * n).sum();
        let pieces_left = placements.len() as u64;
        Cover { at_lowest, left, pieces_left, radix, code, open, failed: Failed::new(slots), until: u64::MAX }
    }

    /// Whether the pieces left can cover the free cells of `occupied` but `spare` of them,
    /// counting the placements tried on `clock`.
    fn fits(&mut self, occupied: u64, spare: u32, clock: &mut Clock) -> Result<bool, Cut> {
        let free = self.open & !occupied;
        if self.pieces_left == 0 || free == 0 {
            return Ok(self.pieces_left == 0);
        }
        let cell = free.trailing_zeros() as usize;
        let key = (self.code != 0).then_some((occupied, self.code));
        if key.is_some_and(|key| self.failed.has(key)) {
            return Ok(false);
        }
        for kind in 0..self.left.len() {
            let bits = self.at_lowest[kind][cell];
            if self.left[kind] == 0 || bits == 0 || bits & occupied != 0 {
                continue;
            }
            if clock.late() {
                return Err(Cut::Late);
            }
            if clock.steps > self.until {
                return Err(Cut::Long);
            }
            (self.left[kind], self.pieces_left, self.code) =
                (self.left[kind] - 1, self.pieces_left - 1, self.code - self.radix[kind]);
            let found = self.fits(occupied | bits, spare, clock);
            (self.left[kind], self.pieces_left, self.code) =
                (self.left[kind] + 1, self.pieces_left + 1, self.code + self.radix[kind]);
            if found? {
                return Ok(true);
            }
        }
        if spare > 0 && self.fits(occupied | 1 << cell, spare - 1, clock)? {
            return Ok(true);
        }
        if let Some(key) = key {
            self.failed.insert(key);
        }
        Ok(false)
    }
}

/// Two colours of a colouring of the board: a set of cells weighs its cells of the one less its
/// cells of the other.
#[derive(Clone, PartialEq)]
struct Weighing {
    one: u64,
    other: u64,
}

impl Weighing {
    /// The cells of `cells` of the one colour less those of the other.
    fn balance(&self, cells: u64) -> i32 {
        (cells & self.one).count_ones() as i32 - (cells & self.other).count_ones() as i32
    }
}

/// The board's cells (row, column) for which `has` holds, as bits.
fn cells_where(spec: &FamilySpec, has: &dyn Fn(usize, usize) -> bool) -> u64 {
    let cols = spec.board.cols;
    (0..spec.board.cell_count()).filter(|&a| has(a / cols, a % cols)).fold(0u64, |bits, a| bits | 1 << a)
}

/// Every pair of colours of the colourings by row + column, row - column, row and column, each
/// modulo 2 and modulo 3, once (modulo 2, row - column colours as row + column does).
fn weighings(spec: &FamilySpec) -> Vec<Weighing> {
    let cells =
        |colour: &dyn Fn(usize, usize) -> usize, wanted: usize| cells_where(spec, &|r, c| colour(r, c) == wanted);
    let mut weighings = Vec::new();
    for modulus in [2, 3] {
        let diagonal = move |r: usize, c: usize| (r + c) % modulus;
        let antidiagonal = move |r: usize, c: usize| (r + (modulus - 1) * c) % modulus;
        let row = move |r: usize, _: usize| r % modulus;
        let column = move |_: usize, c: usize| c % modulus;
        let colourings: [&dyn Fn(usize, usize) -> usize; 4] = [&diagonal, &antidiagonal, &row, &column];
        for colour in colourings {
            for one in 0..modulus {
                for other in one + 1..modulus {
                    let weighing = Weighing { one: cells(colour, one), other: cells(colour, other) };
                    if !weighings.contains(&weighing) {
                        weighings.push(weighing);
                    }
                }
            }
        }
    }
    weighings
}

/// Bytes of a slot of [`Failed`].
const SLOT_BYTES: u64 = 16;

/// Partial layouts known to fail, one per slot of a table: a slot keeps the last that came to it,
/// so the table forgets but never errs.
struct Failed {
    slots: Vec<(u64, u64)>,
}

impl Failed {
    /// A table of `size` slots (a power of two), or none where `size` is 0 or its memory cannot
    /// be had.
    fn new(size: usize) -> Failed {
        let mut slots = Vec::new();
        if slots.try_reserve_exact(size).is_ok() {
            // No key has this second half: a piece index of u32::MAX.
            slots.resize(size, (0, u64::MAX));
        }
        Failed { slots }
    }

    /// The slot of `key`.
    fn slot(&self, (occupied, place): (u64, u64)) -> usize {
        let mixed = (occupied ^ place.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(0xd6e8_feb8_6659_fd93);
        (mixed >> 40) as usize & (self.slots.len() - 1)
    }

    /// Whether `key` is known to fail.
    fn has(&self, key: (u64, u64)) -> bool {
        !self.slots.is_empty() && self.slots[self.slot(key)] == key
    }

    /// Remembers that `key` fails.
    fn insert(&mut self, key: (u64, u64)) {
        if !self.slots.is_empty() {
            let slot = self.slot(key);
            self.slots[slot] = key;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::{allowed, classes, piece_kinds, spec};

    /// The first layout by plain backtracking, every partial layout tried: what the prunings keep.
    fn plain(placements: &[Vec<(usize, u64)>], follows: &[bool], occupied: u64, anchors: &mut Vec<usize>) -> bool {
        let i = anchors.len();
        let Some(options) = placements.get(i) else { return true };
        for &(a, bits) in &options[..] {
            if (follows[i] && a <= anchors[i - 1]) || bits & occupied != 0 {
                continue;
            }
            anchors.push(a);
            if plain(placements, follows, occupied | bits, anchors) {
                return true;
            }
            anchors.pop();
        }
        false
    }

    #[test]
    fn the_prunings_keep_the_first_layout_of_every_class() {
        let specs = [
            // Klotski's pieces on its board, at most two 1x1: many of the full classes cannot be packed.
            "goal: A at 3,1\nkind: A 2x2 b 1\nkind: V 2x1 b 0..\nkind: H 1x2 b 0..\nkind: S 1x1 b 0..2\n\
             board:\n....\n....\n....\n....\n....\n",
            // A 5x4 board less two corners: 9 dominoes cover the other 18 cells when the corners
            // differ in colour, never when they are alike.
            "pieces: 9..\ngoal: A at 0,1\nkind: A 1x2 b 1\nkind: H 1x2 h 0..\nkind: V 2x1 v 0..\n\
             board:\n#...\n....\n....\n....\n...#\n",
            "pieces: 9..\ngoal: A at 0,1\nkind: A 1x2 b 1\nkind: H 1x2 h 0..\nkind: V 2x1 v 0..\n\
             board:\n#...\n....\n....\n....\n#...\n",
            // Straight trominoes on a 5x5 board less a corner: only a colouring by three colours
            // shows they never cover it, after a long search without the prunings.
            "pieces: 8..\ngoal: A at 0,1\nkind: A 1x3 b 1\nkind: H 1x3 h 0..\nkind: V 3x1 v 0..\n\
             board:\n#....\n.....\n.....\n.....\n.....\n",
            // Rush-like: a pinned primary car, cars and trucks in both directions, L pieces.
            "goal: A reaches right\nkind: A 1x2 h 1 row=1\nkind: B 1x3 h 0..\nkind: C 3x1 v 0..\n\
             kind: D 2x1 v 0..\nkind: L XX/X. b 0..2\nboard:\n.....\n.....\n.....\n.....\n",
        ];
        let (mut long, mut found, mut none) = (0, 0, 0);
        for text in specs {
            let spec = spec::parse(text).unwrap();
            for class in classes(&spec, u64::MAX, None).unwrap() {
                let kinds = piece_kinds(&class);
                let pieces: Vec<Piece> = kinds
                    .iter()
                    .map(|&k| Piece {
                        name: String::new(),
                        shape: spec.kinds[k].shape.clone(),
                        movement: spec.kinds[k].movement,
                    })
                    .collect();
                let keep = |piece: usize, anchor: Cell| allowed(&spec, None, kinds[piece], anchor);
                let follows: Vec<bool> = (0..kinds.len()).map(|i| i > 0 && kinds[i - 1] == kinds[i]).collect();
                let placed = placements(&spec, &pieces, &keep);
                let mut anchors = Vec::new();
                let want = plain(&placed, &follows, 0, &mut anchors)
                    .then(|| anchors.iter().map(|&a| (a / spec.board.cols, a % spec.board.cols)).collect::<Vec<_>>());
                found += usize::from(want.is_some());
                none += usize::from(want.is_none());
                // The search over cells tells the classes with a layout from those without, with
                // no table, one that forgets and one that does not (a class `Prune::new` refuses
                // has none).
                match Prune::new(&spec, &placed, &follows) {
                    None => assert_eq!(want, None),
                    Some(prune) => {
                        for slots in [0, 64, 1 << 16] {
                            let mut cover = Cover::new(&placed, &follows, prune.open, slots);
                            let fits = cover.fits(0, prune.spare, &mut Clock::new(None)).ok();
                            assert_eq!(fits, Some(want.is_some()), "{}", class.describe(&spec));
                        }
                    }
                }
                // No table, a table of 64 slots that forgets, and one of 65,536.
                for limit in [0, 64 * SLOT_BYTES * 4, u64::MAX] {
                    let (got, bytes) = first_layout(&spec, &pieces, &kinds, &keep, (limit, None)).ok().unwrap();
                    assert_eq!(got, want, "{} under {limit} bytes", class.describe(&spec));
                    assert!(bytes <= limit / 4);
                    long += usize::from(bytes > 0);
                }
            }
        }
        // Classes of both outcomes, and long searches: the tables were made, so they were used.
        assert!(found > 0 && none > 0 && long > 0, "{found} {none} {long}");
    }
}
