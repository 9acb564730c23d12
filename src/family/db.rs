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
//!   dropping a moved piece's moves from a solution leaves a shorter one).
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

use super::graph::Component;
use super::spec::FamilySpec;
use super::{FamilyError, PIECE_NAMES};
use crate::puzzle::{Cell, Edge, Goal, Movement, Puzzle};
use crate::solve::{SolveOptions, solve};

/// The primary kind and its row when `spec` qualifies for the rule, or why it does not.
pub fn primary(spec: &FamilySpec) -> Result<(usize, usize), String> {
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

/// The rank of a layout in the rule's order: horizontal mask above vertical mask.
pub fn rank(puzzle: &Puzzle, anchors: &[Cell]) -> u128 {
    let (mut horizontal, mut vertical) = (0u64, 0u64);
    for (i, cell) in puzzle.occupancy(anchors).into_iter().enumerate() {
        match cell {
            Some(p) if in_rows(puzzle, p) => horizontal |= 1 << i,
            Some(_) => vertical |= 1 << i,
            None => {}
        }
    }
    (horizontal as u128) << 64 | vertical as u128
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

/// The optimal move count of `puzzle` (`None`: unsolvable).
fn optimum(puzzle: &Puzzle) -> Result<Option<usize>, FamilyError> {
    let options = SolveOptions { verify: false, ..SolveOptions::default() };
    let report = solve(puzzle, &options).map_err(|e| FamilyError::Solve(e.to_string()))?;
    Ok(report.moves.map(|moves| moves.len()))
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

/// Whether removing any one piece but the primary from `puzzle` (started at the hardest layout,
/// `moves` from the goal) lowers its optimal move count; `moved` are the pieces one shortest
/// solution moves (removing one of those always does).
fn minimal(puzzle: &Puzzle, primary: usize, moves: u32, moved: &[bool]) -> Result<bool, FamilyError> {
    for p in (0..puzzle.pieces.len()).filter(|&p| p != primary && !moved[p]) {
        if optimum(&without(puzzle, p))? == Some(moves as usize) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The database line of a component of `puzzle`'s layouts analysed in [`rank`] order with the
/// pieces one shortest solution moves ([`Component::moved`]; one that keeps the
/// [`invariants_hold`]), or `None` when the rule leaves it out.
pub fn line(puzzle: &Puzzle, primary: usize, component: &Component) -> Result<Option<String>, FamilyError> {
    let (Some(moves), Some(hardest)) = (component.hardest_moves, &component.hardest) else {
        return Ok(None);
    };
    if moves == 0 {
        return Ok(None);
    }
    let start = Puzzle { start: hardest.clone(), ..puzzle.clone() };
    if !minimal(&start, primary, moves, &component.moved)? {
        return Ok(None);
    }
    Ok(Some(format!("{moves:02} {} {}", label(puzzle, primary, hardest), component.size)))
}
