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

/// A whitespace-separated token with its 1-based line and column (in characters).
struct Token<'a> {
    text: &'a str,
    line: usize,
    column: usize,
}

/// The whitespace-separated tokens of `text`, each with where it starts.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        // The byte offset and 1-based column of the token being read.
        let mut start: Option<(usize, usize)> = None;
        for (column, (byte, ch)) in line.char_indices().enumerate() {
            match (ch.is_whitespace(), start) {
                (false, None) => start = Some((byte, column + 1)),
                (true, Some((from, column))) => {
                    out.push(Token { text: &line[from..byte], line: i + 1, column });
                    start = None;
                }
                _ => {}
            }
        }
        if let Some((from, column)) = start {
            out.push(Token { text: &line[from..], line: i + 1, column });
        }
    }
    out
}

fn int(t: &Token, what: &str) -> Result<i64, ParseError> {
    t.text
        .parse()
        .map_err(|_| ParseError::at(t.line, Some(t.column), format!("expected an integer {what}, found '{}'", t.text)))
}

/// A prescribed error at a token (line 0, the whole file, without one), after the file's warnings.
fn prescribed(at: Option<&Token>, message: &str, warnings: Vec<String>) -> ParseError {
    let (line, column) = at.map_or((0, None), |t| (t.line, Some(t.column)));
    ParseError { line, column, message: message.to_string(), prescribed: true, warnings }
}

/// The error of a piece cut short, at its first token.
fn incomplete(first: &Token) -> ParseError {
    ParseError::at(first.line, Some(first.column), "incomplete piece: expected 'row col width height dir'")
}

/// The first token of the first piece that runs on past the end of its line and then ends in the
/// middle of a line: where a short line put every later piece out of step with its lines (the
/// format lets a piece span lines, so this is only a diagnosis once the pieces do not read).
fn out_of_step<'t>(piece_toks: &'t [Token<'t>]) -> Option<(usize, &'t Token<'t>)> {
    piece_toks.chunks(5).enumerate().find_map(|(i, group)| {
        let (first, last) = (&group[0], &group[group.len() - 1]);
        let next = piece_toks.get(i * 5 + group.len());
        (first.line != last.line && next.is_some_and(|n| n.line == last.line)).then_some((i, first))
    })
}

/// Parses a CS 351 file whose board must fit in `memory_limit` bytes; warnings come back in
/// `Parsed::warnings` with their prescribed text.
pub fn parse(text: &str, memory_limit: u64) -> Result<Parsed, ParseError> {
    let toks = tokens(text);
    if toks.len() < 2 {
        let line = toks.first().map_or(1, |t| t.line);
        return Err(ParseError::at(line, None, "expected 'rows cols' on the first line"));
    }
    let rows = int(&toks[0], "number of rows")?;
    if toks[1].line != toks[0].line {
        return Err(ParseError::at(toks[0].line, None, "expected 'rows cols' on the first line"));
    }
    let cols = int(&toks[1], "number of columns")?;
    if rows <= 0 {
        return Err(prescribed(Some(&toks[0]), "Error: Number of rows must be greater than zero", Vec::new()));
    }
    if cols <= 0 {
        return Err(prescribed(Some(&toks[1]), "Error: Number of columns must be greater than zero", Vec::new()));
    }
    let too_large = |e| ParseError::too_large(toks[0].line, e);
    let (rows, cols) = (usize::try_from(rows).unwrap_or(usize::MAX), usize::try_from(cols).unwrap_or(usize::MAX));
    Board::checked_cells(rows, cols, memory_limit).map_err(too_large)?;
    let piece_toks = &toks[2..];
    let out_of_step = out_of_step(piece_toks);
    if !piece_toks.len().is_multiple_of(5) {
        let first = out_of_step.map_or(&piece_toks[piece_toks.len() / 5 * 5], |(_, first)| first);
        return Err(incomplete(first));
    }
    if piece_toks.is_empty() {
        return Err(ParseError::at(toks[1].line, None, "no pieces after the 'rows cols' line"));
    }
    let mut warnings = Vec::new();
    let mut kept: Vec<(Cell, usize, usize, Movement)> = Vec::new();
    let mut too_many = false;
    for (i, group) in piece_toks.chunks(5).enumerate() {
        // A token that is no number, in or after a piece out of step with its lines, is most
        // likely there because of the short line that put it out of step.
        let number = |t: &Token, what: &str| {
            int(t, what).map_err(|e| match out_of_step {
                Some((step, first)) if step <= i => incomplete(first),
                _ => e,
            })
        };
        let r = number(&group[0], "row")?;
        let c = number(&group[1], "column")?;
        let w = number(&group[2], "width")?;
        let h = number(&group[3], "height")?;
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
        return Err(prescribed(None, "Error: No valid pieces in the puzzle", warnings));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of parsing `text`, as it prints (line, column and message).
    fn error(text: &str) -> String {
        parse(text, 1 << 30).map(|_| ()).unwrap_err().to_string()
    }

    #[test]
    fn a_short_line_is_named_where_it_is_not_where_its_piece_ends() {
        // The three tokens of line 2 and two of line 3 would make the first piece.
        assert_eq!(
            error("3 3\n1 1 1\n2 2 1 1 h\n3 3 1 1 v\n"),
            "line 2, column 1: incomplete piece: expected 'row col width height dir'"
        );
        // Ten tokens, so every piece has five, but the second one starts with a direction.
        assert_eq!(
            error("3 3\n1 1 1 1\n2 2 1 1 h v\n"),
            "line 2, column 1: incomplete piece: expected 'row col width height dir'"
        );
        // A short last line: the piece it starts.
        assert_eq!(
            error("3 3\n1 1 1 1 h\n  2 2 1\n"),
            "line 3, column 3: incomplete piece: expected 'row col width height dir'"
        );
    }

    #[test]
    fn pieces_may_span_lines() {
        let parsed = parse("3 3\n1 1\n1 1 h\n2 2 1\n1\nv\n", 1 << 30).unwrap();
        assert_eq!(parsed.puzzle.start, vec![(0, 0), (1, 1)]);
        // A piece over lines that ends with its line is no short line: its own bad token is named.
        assert_eq!(error("3 3\n1 1\n1 x h\n"), "line 3, column 3: expected an integer height, found 'x'");
    }

    #[test]
    fn errors_name_the_token_at_fault_counting_characters() {
        assert_eq!(error("3 3\n1\u{a0}x 1 1 b\n"), "line 2, column 3: expected an integer column, found 'x'");
        assert_eq!(error("\n3\nx 1 1 1 b\n"), "line 2: expected 'rows cols' on the first line");
        assert_eq!(error("3 3\n\n"), "line 1: no pieces after the 'rows cols' line");
    }

    #[test]
    fn prescribed_errors_keep_their_text_and_name_their_token() {
        let rows = parse("\n 0 4\n1 1 1 1 b\n", 1 << 30).unwrap_err();
        assert!(rows.prescribed);
        assert_eq!(rows.message, "Error: Number of rows must be greater than zero");
        assert_eq!((rows.line, rows.column), (2, Some(2)));
        let cols = parse("4 -1\n1 1 1 1 b\n", 1 << 30).unwrap_err();
        assert_eq!(cols.message, "Error: Number of columns must be greater than zero");
        assert_eq!((cols.line, cols.column), (1, Some(3)));
        let none = parse("2 2\n3 3 1 1 b\n1 1 1 1 q\n", 1 << 30).unwrap_err();
        assert_eq!(none.to_string(), "Error: No valid pieces in the puzzle");
        assert_eq!(
            none.warnings,
            [
                "Warning: Piece with starting position of 3,3 falls outside of grid",
                "Warning: Piece with starting position of 1,1 has invalid movement"
            ]
        );
    }
}
