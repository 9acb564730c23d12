//! The CS 351 "Sliding Block Puzzles" course format and its exact output.
//!
//! First line `rows cols`; then pieces `row col width height dir` (1-based; dir is h, v, b or n),
//! the first one being the goal piece. Bad pieces get a prescribed warning and are discarded; the
//! goal piece is `Z`, the others `1`-`9`, `a`-`z`, `A`-`Y`. Goal: `Z` reaches the last column.
//! Metric: straight. Identical pieces are never merged.

use super::{ParseError, Parsed, char_grid};
use crate::puzzle::{Board, Cell, Edge, Family, Goal, Metric, Movement, Piece, Puzzle, Shape};
use crate::solution::Move;

/// The most pieces the format can name.
pub const MAX_PIECES: usize = 61;

/// The name of the `i`-th non-goal piece (0-based): `1`-`9`, `a`-`z`, `A`-`Y`.
fn other_name(i: usize) -> char {
    const NAMES: &[u8] = b"123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY";
    NAMES[i] as char
}

/// A whitespace-separated token with its 1-based line and column.
struct Token<'a> {
    text: &'a str,
    line: usize,
    column: usize,
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        let mut offset = 0;
        while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
            let tail = &rest[start..];
            let len = tail.find(char::is_whitespace).unwrap_or(tail.len());
            out.push(Token { text: &tail[..len], line: i + 1, column: offset + start + 1 });
            offset += start + len;
            rest = &tail[len..];
        }
    }
    out
}

fn int(t: &Token, what: &str) -> Result<i64, ParseError> {
    t.text
        .parse()
        .map_err(|_| ParseError::at(t.line, Some(t.column), format!("expected an integer {what}, found '{}'", t.text)))
}

fn prescribed(message: String) -> ParseError {
    ParseError { line: 1, column: None, message, prescribed: true }
}

/// Parses a CS 351 file whose board must fit in `memory_limit` bytes; warnings come back in
/// `Parsed::warnings` with their prescribed text.
pub fn parse(text: &str, memory_limit: u64) -> Result<Parsed, ParseError> {
    let toks = tokens(text);
    if toks.len() < 2 {
        let line = toks.first().map_or(1, |t| t.line);
        return Err(ParseError::at(line, None, "expected 'rows cols' on the first line"));
    }
    let (rows, cols) = (int(&toks[0], "number of rows")?, int(&toks[1], "number of columns")?);
    if toks[1].line != toks[0].line {
        return Err(ParseError::at(toks[0].line, None, "expected 'rows cols' on the first line"));
    }
    if rows <= 0 {
        return Err(prescribed("Error: Number of rows must be greater than zero".into()));
    }
    if cols <= 0 {
        return Err(prescribed("Error: Number of columns must be greater than zero".into()));
    }
    let too_large = |e| ParseError::too_large(toks[0].line, e);
    let (rows, cols) = (usize::try_from(rows).unwrap_or(usize::MAX), usize::try_from(cols).unwrap_or(usize::MAX));
    Board::checked_cells(rows, cols, memory_limit).map_err(too_large)?;
    let piece_toks = &toks[2..];
    if !piece_toks.len().is_multiple_of(5) {
        let t = &piece_toks[piece_toks.len() / 5 * 5];
        return Err(ParseError::at(t.line, Some(t.column), "incomplete piece: expected 'row col width height dir'"));
    }
    if piece_toks.is_empty() {
        return Err(ParseError::at(toks[1].line, None, "no pieces after the 'rows cols' line"));
    }
    let mut warnings = Vec::new();
    let mut kept: Vec<(Cell, usize, usize, Movement)> = Vec::new();
    let mut too_many = false;
    for group in piece_toks.chunks(5) {
        let r = int(&group[0], "row")?;
        let c = int(&group[1], "column")?;
        let w = int(&group[2], "width")?;
        let h = int(&group[3], "height")?;
        // Every number here is the user's: the sums are checked (an overflow is simply outside).
        let ends_inside = |start: i64, extent: i64, limit: usize| {
            start >= 1 && extent >= 1 && (start - 1).checked_add(extent).is_some_and(|end| end as u64 <= limit as u64)
        };
        if !(ends_inside(r, h, rows) && ends_inside(c, w, cols)) {
            warnings.push(format!("Warning: Piece with starting position of {r},{c} falls outside of grid"));
            continue;
        }
        let mut code = group[4].text.chars();
        let movement = match (code.next(), code.next()) {
            (Some(ch), None) if ch.is_ascii_lowercase() => Movement::from_code(ch),
            _ => None,
        };
        let Some(movement) = movement else {
            warnings.push(format!("Warning: Piece with starting position of {r},{c} has invalid movement"));
            continue;
        };
        let (r0, c0, w, h) = ((r - 1) as usize, (c - 1) as usize, w as usize, h as usize);
        // At most MAX_PIECES rectangles are kept, so testing against each is linear in the input.
        let overlaps = |&((r1, c1), w1, h1, _): &(Cell, usize, usize, Movement)| {
            r0 < r1 + h1 && r1 < r0 + h && c0 < c1 + w1 && c1 < c0 + w
        };
        if kept.iter().any(overlaps) {
            warnings.push(format!("Warning: Piece with starting position of {r},{c} overlaps with other piece"));
            continue;
        }
        if kept.len() == MAX_PIECES {
            if !too_many {
                warnings.push(format!(
                    "Warning: More than {MAX_PIECES} pieces; only the first {MAX_PIECES} valid pieces are used"
                ));
                too_many = true;
            }
            continue;
        }
        kept.push(((r0, c0), w, h, movement));
    }
    if kept.is_empty() {
        warnings.push("Error: No valid pieces in the puzzle".into());
        return Err(prescribed(warnings.join("\n")));
    }
    // Whether or not the goal line was valid, the first kept piece is the goal piece.
    let mut pieces = Vec::with_capacity(kept.len());
    let mut start = Vec::with_capacity(kept.len());
    for (i, &(anchor, w, h, movement)) in kept.iter().enumerate() {
        let name = if i == 0 { 'Z' } else { other_name(i - 1) };
        pieces.push(Piece { name: name.to_string(), shape: Shape::rectangle(h, w), movement });
        start.push(anchor);
    }
    let puzzle = Puzzle {
        board: Board::rectangle(rows, cols),
        pieces,
        start,
        goal: Goal::Reaches(0, Edge::Right),
        metric: Metric::Straight,
        merge_identical: false,
        family: Family::Cs351,
    };
    Ok(Parsed { puzzle, warnings, expected: None })
}

/// Draws a position with the `*` border and `.` for empty cells.
pub fn render(puzzle: &Puzzle, anchors: &[Cell]) -> String {
    let border = "*".repeat(puzzle.board.cols + 2);
    let mut out = format!("{border}\n");
    for row in char_grid(puzzle, anchors) {
        out.push('*');
        out.extend(row);
        out.push_str("*\n");
    }
    out.push_str(&border);
    out.push('\n');
    out
}

/// The full prescribed output: warnings, start grid, then the step count, the numbered moves and
/// the final grid, or `This puzzle has no solution`; with `show`, the grid after every move (the
/// last is the final grid).
pub fn report(puzzle: &Puzzle, warnings: &[String], solution: Option<&[Move]>, show: bool) -> String {
    let mut out: String = warnings.iter().map(|w| format!("{w}\n")).collect();
    out.push_str(&render(puzzle, &puzzle.start));
    let Some(moves) = solution else {
        out.push_str("This puzzle has no solution\n");
        return out;
    };
    out.push_str(&format!("This puzzle is solvable in {} steps\n", moves.len()));
    let mut anchors = puzzle.start.clone();
    for (i, mv) in moves.iter().enumerate() {
        let dir = mv.path[0];
        let name = &puzzle.pieces[mv.piece].name;
        out.push_str(&format!("{}. Piece {name} moves {} space(s) {dir}\n", i + 1, mv.path.len()));
        for &d in &mv.path {
            anchors[mv.piece] = d.step(anchors[mv.piece]).expect("a verified move stays on the board");
        }
        if show && i + 1 < moves.len() {
            out.push_str(&render(puzzle, &anchors));
        }
    }
    out.push_str(&render(puzzle, &anchors));
    out
}
