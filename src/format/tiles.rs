//! The m×n sliding-tile format.
//!
//! A layout is whitespace-separated numbers with `0` (or `.`) as the blank: one row per line,
//! rows separated by `/`, or one line whose length is a square (`4 1 2 5 8 3 7 0 6`); an optional
//! `rows cols` header line fixes the shape. A single token such as `863.54217` is read one cell per
//! character (`.` or `0` blank, `1`-`9`, then `a`-`z` for 10-35). The default goal is `1 … N-1`
//! then the blank; `goal:` in the file or `--goal` gives another layout, or `blank-first` /
//! `blank-last`. Tiles are pieces named by their number; the metric is unit. A file of puzzles one
//! per line (a `size: RxC` header, or lines of `N` or `N + 1` numbers, the last the known optimum)
//! is split by [`split_many`]; one line of `N + 1` numbers alone is such a file of one puzzle.

use super::{ParseError, ParseOptions, Parsed, Reading, Unparsed, UnparsedItem};
use crate::memory;
use crate::puzzle::{Board, Cell, Family, Goal, Metric, Movement, Piece, Puzzle, Shape};
use std::sync::Arc;

/// Bytes the puzzle model holds per tile (a named 1×1 piece, its start and goal anchors and its
/// board cell), an upper bound used to check a layout against the memory budget.
pub const BYTES_PER_TILE: u64 = 160;

/// Checks that a tile puzzle of `rows × cols` cells fits in `memory_limit` bytes.
fn check_size(rows: usize, cols: usize, memory_limit: u64, line: usize) -> Result<usize, ParseError> {
    let what = || format!("a tile puzzle of {rows} x {cols} cells");
    let cells = rows.checked_mul(cols);
    let bytes = cells.and_then(|n| memory::product(&[n], BYTES_PER_TILE));
    memory::check(what, bytes, memory_limit).map_err(|e| ParseError::too_large(line, e))?;
    Ok(rows * cols)
}

/// A tile layout: `cells[r*cols+c]` is the tile there, 0 for the blank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileLayout {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Tile per cell in row-major order; 0 is the blank.
    pub cells: Vec<u32>,
}

impl TileLayout {
    /// The standard goal: tiles `1 … N-1` in reading order, then the blank.
    pub fn blank_last(rows: usize, cols: usize) -> Self {
        let n = rows * cols;
        let cells = (1..n as u32).chain(std::iter::once(0)).collect();
        TileLayout { rows, cols, cells }
    }

    /// The goal with the blank first: `0 1 … N-1` (Korf's convention).
    pub fn blank_first(rows: usize, cols: usize) -> Self {
        TileLayout { rows, cols, cells: (0..(rows * cols) as u32).collect() }
    }
}

/// Parses one layout from `text`; `first_line` is the 1-based line `text` starts on (for errors).
/// A layout written on one line takes the shape `hint` when its cell count matches (a goal takes
/// its puzzle's shape), else it must be square.
pub fn parse_layout(text: &str, first_line: usize, hint: Option<(usize, usize)>) -> Result<TileLayout, ParseError> {
    let rows_of_tokens: Vec<(usize, Vec<&str>)> = text
        .lines()
        .enumerate()
        .flat_map(|(i, l)| l.split('/').map(move |part| (first_line + i, part.split_whitespace().collect::<Vec<_>>())))
        .filter(|(_, toks)| !toks.is_empty())
        .collect();
    let line = rows_of_tokens.first().map_or(first_line, |(l, _)| *l);
    if rows_of_tokens.is_empty() {
        return Err(ParseError::at(line, None, "no tiles"));
    }
    if rows_of_tokens.len() == 1 && rows_of_tokens[0].1.len() == 1 && rows_of_tokens[0].1[0].chars().count() >= 4 {
        return layout_from_chars(rows_of_tokens[0].1[0], line, hint);
    }
    let mut rows = rows_of_tokens.clone();
    let mut shape: Option<(usize, usize)> = None;
    let total: usize = rows.iter().map(|(_, t)| t.len()).sum();
    // A first line `r c` with r × c numbers after it is a header, but for a board of two columns
    // (every line a pair) it may be the first row: a layout after a header holds no number of r × c
    // or more, and a board of its own rows holds both r × c and r × c + 1.
    let pairs = rows.iter().all(|(_, t)| t.len() == 2);
    let below =
        |cells: usize| rows[1..].iter().flat_map(|(_, t)| t).all(|t| t.parse::<usize>().map_or(true, |v| v < cells));
    if rows.len() > 1
        && rows[0].1.len() == 2
        && let (Ok(r), Ok(c)) = (rows[0].1[0].parse::<usize>(), rows[0].1[1].parse::<usize>())
        && r.checked_mul(c) == Some(total - 2)
        && r >= 1
        && c >= 1
        && (!pairs || below(r * c))
    {
        shape = Some((r, c));
        rows.remove(0);
    }
    let (mut values, mut lines) = (Vec::with_capacity(total), Vec::with_capacity(total));
    for (l, toks) in &rows {
        for t in toks {
            let v = if *t == "." {
                0
            } else {
                t.parse::<u32>().map_err(|_| ParseError::at(*l, None, format!("'{t}' is not a tile number")))?
            };
            values.push(v);
            lines.push(*l);
        }
    }
    let (r, c) = match shape {
        Some(s) => s,
        None if rows.len() > 1 => {
            // Two numbers above rows that are not pairs are a header whose count is wrong.
            if let [r, c] = rows[0].1[..]
                && !pairs
                && let Some(cells) =
                    r.parse::<usize>().ok().zip(c.parse::<usize>().ok()).and_then(|(r, c)| r.checked_mul(c))
            {
                let follow = total - 2;
                return Err(ParseError::at(
                    rows[0].0,
                    None,
                    format!("the header '{r} {c}' asks for {cells} tiles, but {follow} follow it"),
                ));
            }
            let width = rows[0].1.len();
            if let Some((l, _)) = rows.iter().find(|(_, t)| t.len() != width) {
                return Err(ParseError::at(
                    *l,
                    None,
                    format!("rows have different lengths (the first has {width} tiles)"),
                ));
            }
            (rows.len(), width)
        }
        None => one_line_shape(values.len(), line, hint, "; give one row per line or a 'rows cols' header")?,
    };
    check_permutation(TileLayout { rows: r, cols: c, cells: values }, |i| lines[i])
}

/// The shape of `n` cells written on one line: `hint` (a goal's puzzle shape), which must have `n`
/// cells, else a square.
fn one_line_shape(n: usize, line: usize, hint: Option<(usize, usize)>, advice: &str) -> Result<Cell, ParseError> {
    if let Some((r, c)) = hint {
        let cells = r.saturating_mul(c);
        if cells != n {
            return Err(ParseError::at(line, None, format!("{n} tiles, but the puzzle is {r}x{c} ({cells} cells)")));
        }
        return Ok((r, c));
    }
    let side = n.isqrt();
    if side * side != n {
        return Err(ParseError::at(line, None, format!("{n} tiles do not form a square{advice}")));
    }
    Ok((side, side))
}

fn layout_from_chars(token: &str, line: usize, hint: Option<(usize, usize)>) -> Result<TileLayout, ParseError> {
    let mut values = Vec::new();
    for (i, ch) in token.chars().enumerate() {
        let v = match ch {
            '.' | '0' => 0,
            '1'..='9' => ch as u32 - '0' as u32,
            'a'..='z' => ch as u32 - 'a' as u32 + 10,
            'A'..='Z' => ch as u32 - 'A' as u32 + 10,
            _ => {
                return Err(ParseError::at(
                    line,
                    Some(i + 1),
                    format!("'{ch}' is not a tile (use 1-9, a-z, and . for the blank)"),
                ));
            }
        };
        values.push(v);
    }
    let (rows, cols) = one_line_shape(values.len(), line, hint, "")?;
    check_permutation(TileLayout { rows, cols, cells: values }, |_| line)
}

/// Checks that `layout` holds each of its tiles and the blank once; `line_of(i)` is the line its
/// `i`-th number was read from.
fn check_permutation(layout: TileLayout, line_of: impl Fn(usize) -> usize) -> Result<TileLayout, ParseError> {
    let n = layout.cells.len();
    if layout.rows < 2 && layout.cols < 2 {
        return Err(ParseError::at(line_of(0), None, "a tile puzzle needs at least 2 cells"));
    }
    let mut seen = vec![false; n];
    for (i, &v) in layout.cells.iter().enumerate() {
        let (v, line) = (v as usize, line_of(i));
        if v >= n {
            return Err(ParseError::at(
                line,
                None,
                format!("tile {v} is out of range for {n} cells (tiles are 1 to {})", n - 1),
            ));
        }
        if std::mem::replace(&mut seen[v], true) {
            return Err(ParseError::at(line, None, format!("tile {v} appears twice")));
        }
    }
    Ok(layout)
}

/// Reads one puzzle written on one line of a multi-puzzle file: `rows × cols` numbers, optionally
/// followed by the known optimal solution length (Korf's `korf100.txt` layout).
pub fn parse_puzzle_line(
    line: &str,
    line_no: usize,
    rows: usize,
    cols: usize,
) -> Result<(TileLayout, Option<u64>), ParseError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let n = rows.saturating_mul(cols);
    if let [first, rest @ ..] = tokens.as_slice()
        && is_char_form(first)
        && rest.len() <= 1
    {
        let mut layout = layout_from_chars(first, line_no, Some((rows, cols)))?;
        if layout.cells.len() != n {
            return Err(ParseError::at(line_no, None, format!("expected {n} tiles, found {}", layout.cells.len())));
        }
        (layout.rows, layout.cols) = (rows, cols);
        let expected = rest
            .first()
            .map(|e| e.parse::<u64>().map_err(|_| ParseError::at(line_no, None, format!("'{e}' is not a move count"))))
            .transpose()?;
        return Ok((layout, expected));
    }
    let (cells, expected) = match tokens.len() {
        len if len == n => (&tokens[..], None),
        len if len == n + 1 => {
            let e = tokens[n]
                .parse::<u64>()
                .map_err(|_| ParseError::at(line_no, None, format!("'{}' is not a move count", tokens[n])))?;
            (&tokens[..n], Some(e))
        }
        len => {
            return Err(ParseError::at(
                line_no,
                None,
                format!("expected {n} tiles (and optionally the optimal length), found {len} numbers"),
            ));
        }
    };
    let values = cells
        .iter()
        .map(|t| match *t {
            "." => Ok(0),
            t => t.parse::<u32>().map_err(|_| ParseError::at(line_no, None, format!("'{t}' is not a tile number"))),
        })
        .collect::<Result<Vec<u32>, _>>()?;
    Ok((check_permutation(TileLayout { rows, cols, cells: values }, |_| line_no)?, expected))
}

/// Reads a goal given as text: a layout, `blank-last` or `blank-first`, matched to `start`'s shape.
pub fn parse_goal(text: &str, start: &TileLayout, line: usize) -> Result<TileLayout, ParseError> {
    let goal = match text.trim().to_ascii_lowercase().as_str() {
        "blank-last" => TileLayout::blank_last(start.rows, start.cols),
        "blank-first" => TileLayout::blank_first(start.rows, start.cols),
        _ => parse_layout(text, line, Some((start.rows, start.cols)))?,
    };
    if (goal.rows, goal.cols) != (start.rows, start.cols) {
        return Err(ParseError::at(
            line,
            None,
            format!("the goal is {}x{} but the puzzle is {}x{}", goal.rows, goal.cols, start.rows, start.cols),
        ));
    }
    Ok(goal)
}

/// Splits a file holding several puzzles, one per line (a `size: RxC` header, or lines of `N` or
/// `N + 1` numbers with `N` a square, the last being the known optimum), into their lines, to be
/// read with [`parse_line`]; `None` when the file holds one layout. A single line of a layout and
/// its optimum is such a file of one puzzle. A `goal:` header or `options.goal` applies to every
/// line; an error of the `size:` header is the only item.
pub fn split_many(text: &str, options: &ParseOptions) -> Option<Vec<UnparsedItem>> {
    let goal_override = options.goal.as_deref();
    let mut size: Option<Result<(usize, usize), ParseError>> = None;
    let mut size_line = 0;
    let mut goal_line: Option<(usize, String)> = None;
    let mut body: Vec<(usize, &str)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with(';') || t.starts_with('#') {
            continue;
        }
        if let Some(rest) = t.strip_prefix("size:") {
            if size.is_some() {
                return Some(vec![(i + 1, Err(given_twice(i + 1, "size")))]);
            }
            size = Some(parse_size(rest.trim(), i + 1));
            size_line = i + 1;
        } else if let Some(rest) = t.strip_prefix("goal:") {
            if goal_line.is_some() {
                return Some(vec![(i + 1, Err(given_twice(i + 1, "goal")))]);
            }
            goal_line = Some((i + 1, rest.trim().to_string()));
        } else {
            body.push((i + 1, t));
        }
    }
    let shape = match size {
        Some(Err(e)) => return Some(vec![(e.line, Err(e))]),
        Some(Ok(shape)) => shape,
        None => {
            let one_layout = match body.as_slice() {
                [] => true,
                [(_, line)] => !ends_with_optimum(line),
                _ => false,
            };
            if one_layout || parse(text, options).is_ok() {
                return None;
            }
            let count = line_cells(body[0].1);
            (square_side(count).or_else(|| square_side(count.saturating_sub(1))).map(|s| (s, s)))?
        }
    };
    let (rows, cols) = shape;
    if let Err(e) = check_size(rows, cols, options.memory_limit(), size_line) {
        return Some(vec![(size_line, Err(e))]);
    }
    let goal = goal_override.map(|g| (0, g.to_string())).or(goal_line);
    let reading = Arc::new(Reading::TilesLine { rows, cols, goal });
    Some(body.into_iter().map(|(no, line)| (no, Ok(Unparsed::line(line, no, &reading)))).collect())
}

/// Parses line `line_no` of a multi-puzzle file whose boards are `rows × cols` and whose goal is
/// `goal` (its line and text; the blank-last layout without one).
pub fn parse_line(
    line: &str,
    line_no: usize,
    (rows, cols): (usize, usize),
    goal: &Option<(usize, String)>,
) -> Result<Parsed, ParseError> {
    let (start, expected) = parse_puzzle_line(line, line_no, rows, cols)?;
    let goal = match goal {
        Some((0, g)) => parse_goal(g, &start, 0).map_err(ParseError::of_goal_option)?,
        Some((l, g)) => parse_goal(g, &start, *l)?,
        None => TileLayout::blank_last(rows, cols),
    };
    Ok(Parsed { puzzle: puzzle_from(&start, &goal), warnings: Vec::new(), expected })
}

/// Reads `RxC` (as in a `size:` header).
fn parse_size(text: &str, line: usize) -> Result<(usize, usize), ParseError> {
    let bad = || ParseError::at(line, None, format!("'{text}' is not a board size such as 4x4"));
    let (r, c) = text
        .to_ascii_lowercase()
        .split_once('x')
        .map(|(r, c)| (r.trim().parse::<usize>(), c.trim().parse::<usize>()))
        .ok_or_else(bad)?;
    match (r, c) {
        (Ok(r), Ok(c)) if r >= 1 && c >= 1 && r.checked_mul(c).is_some_and(|n| n >= 2) => Ok((r, c)),
        _ => Err(bad()),
    }
}

/// The number of cells a one-line puzzle names (a single token such as `863.54217` is one per character).
fn line_cells(line: &str) -> usize {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    match tokens.first() {
        Some(t) if is_char_form(t) => t.chars().count(),
        _ => tokens.len(),
    }
}

/// The side of a square board of `n` cells, from 2 to 8: the shapes a file of one-line puzzles
/// without a `size:` header is taken to have.
fn square_side(n: usize) -> Option<usize> {
    (2..=8).find(|side| side * side == n)
}

/// Whether a line is a layout followed by one more token, the known optimum: a layout written one
/// cell per character and a number, or `N + 1` numbers with `N` a square.
fn ends_with_optimum(line: &str) -> bool {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    match tokens.as_slice() {
        [layout, _] if is_char_form(layout) => true,
        _ => square_side(tokens.len().saturating_sub(1)).is_some(),
    }
}

/// Whether a token is a whole layout written one cell per character (`863.54217`): at least four
/// cells (tile numbers never have four digits), each a tile character, none repeated (so a long
/// number such as `4294967299` is not taken for a layout).
fn is_char_form(token: &str) -> bool {
    let mut seen = std::collections::HashSet::new();
    token.chars().count() >= 4 && token.chars().all(|c| (c == '.' || c.is_ascii_alphanumeric()) && seen.insert(c))
}

/// The error of a header line `key:` that an earlier line gave already.
fn given_twice(line: usize, key: &str) -> ParseError {
    ParseError::at(line, None, format!("'{key}:' given twice"))
}

/// Parses a tile-puzzle file; `options.goal` (from `--goal`) beats a `goal:` line.
pub fn parse(text: &str, options: &ParseOptions) -> Result<Parsed, ParseError> {
    let goal_override = options.goal.as_deref();
    let mut body = String::new();
    let mut goal_line: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with(';') || t.starts_with('#') {
            body.push('\n');
            continue;
        }
        if let Some(rest) = t.strip_prefix("goal:") {
            if goal_line.is_some() {
                return Err(given_twice(i + 1, "goal"));
            }
            goal_line = Some((i + 1, rest.to_string()));
            body.push('\n');
            continue;
        }
        body.push_str(line);
        body.push('\n');
    }
    let start = parse_layout(&body, 1, None)?;
    check_size(start.rows, start.cols, options.memory_limit(), 1)?;
    let goal = match (goal_override, goal_line) {
        (Some(g), _) => parse_goal(g, &start, 0).map_err(ParseError::of_goal_option)?,
        (None, Some((l, g))) => parse_goal(&g, &start, l)?,
        (None, None) => TileLayout::blank_last(start.rows, start.cols),
    };
    Ok(Parsed { puzzle: puzzle_from(&start, &goal), warnings: Vec::new(), expected: None })
}

/// The puzzle model of a tile layout and its goal: tiles are 1×1 pieces named by number.
pub fn puzzle_from(start: &TileLayout, goal: &TileLayout) -> Puzzle {
    let n = start.cells.len();
    // The cell of every tile, by inverting the permutation once (linear in the board).
    let positions = |layout: &TileLayout| -> Vec<Cell> {
        let mut at = vec![(0, 0); n];
        for (i, &tile) in layout.cells.iter().enumerate() {
            at[tile as usize] = (i / layout.cols, i % layout.cols);
        }
        at.split_off(1)
    };
    let pieces = (1..n as u32)
        .map(|t| Piece { name: t.to_string(), shape: Shape::rectangle(1, 1), movement: Movement::Both })
        .collect();
    Puzzle {
        board: Board::rectangle(start.rows, start.cols),
        pieces,
        start: positions(start),
        goal: Goal::Layout(positions(goal)),
        metric: Metric::Unit,
        merge_identical: false,
        family: Family::Tiles,
    }
}

/// Draws a position as rows of right-aligned tile numbers with `.` for the blank.
pub fn render(puzzle: &Puzzle, anchors: &[Cell]) -> String {
    let (rows, cols) = (puzzle.board.rows, puzzle.board.cols);
    let occupancy = puzzle.occupancy(anchors);
    let width = puzzle.pieces.iter().map(|p| p.name.len()).max().unwrap_or(1);
    let mut out = String::new();
    for r in 0..rows {
        let row: Vec<String> = (0..cols)
            .map(|c| {
                let name = occupancy[r * cols + c].map_or(".", |p| puzzle.pieces[p].name.as_str());
                format!("{name:>width$}")
            })
            .collect();
        out.push_str(&row.join(" "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{self, Format};

    #[test]
    fn a_two_column_board_is_not_taken_for_a_header_and_errors_name_their_line() {
        let shape = |text: &str| parse_layout(text, 1, None).map(|l| (l.rows, l.cols, l.cells));
        // Rows of pairs: `1 2` is a row when the numbers after it reach 2 and 3.
        assert_eq!(shape("1 2\n3 0\n"), Ok((2, 2, vec![1, 2, 3, 0])));
        assert_eq!(shape("2 3\n1 4\n5 6\n7 0\n"), Ok((4, 2, vec![2, 3, 1, 4, 5, 6, 7, 0])));
        // A header of a two-column board, and of a wider one.
        assert_eq!(shape("2 2\n1 2\n3 0\n"), Ok((2, 2, vec![1, 2, 3, 0])));
        assert_eq!(shape("3 2\n1 2\n3 4\n5 0\n"), Ok((3, 2, vec![1, 2, 3, 4, 5, 0])));
        assert_eq!(shape("2 3\n1 2 3\n4 5 0\n"), Ok((2, 3, vec![1, 2, 3, 4, 5, 0])));
        let error = |text: &str| parse_layout(text, 1, None).unwrap_err().to_string();
        assert_eq!(error("1 2 3\n4 5 6\n7 8 8\n"), "line 3: tile 8 appears twice");
        assert_eq!(error("1 2 3\n4 9 6\n7 8 0\n"), "line 2: tile 9 is out of range for 9 cells (tiles are 1 to 8)");
        assert_eq!(
            error("3 3\n1 2 3\n4 5 6\n7 8 9\n"),
            "line 4: tile 9 is out of range for 9 cells (tiles are 1 to 8)"
        );
    }

    #[test]
    fn a_header_given_twice_is_refused() {
        let error = |text: &str| format::parse(Format::Tiles, text, &ParseOptions::default()).unwrap_err().to_string();
        assert_eq!(error("goal: blank-first\ngoal: blank-last\n1 2 3 4 5 6 0 7 8\n"), "line 2: 'goal:' given twice");
        let many = |text: &str| {
            let items = split_many(text, &ParseOptions::default()).unwrap();
            items.into_iter().map(|(_, item)| item.err().unwrap().to_string()).collect::<Vec<_>>()
        };
        assert_eq!(many("size: 3x3\nsize: 3x3\n1 2 3 4 5 6 0 7 8 2\n"), ["line 2: 'size:' given twice"]);
        assert_eq!(
            many("goal: blank-first\n1 2 3 4 5 6 0 7 8 2\ngoal: blank-last\n1 2 3 4 5 6 7 0 8 1\n"),
            ["line 3: 'goal:' given twice"]
        );
    }

    #[test]
    fn one_line_of_a_layout_and_its_optimum_is_one_puzzle() {
        let korf = "goal: blank-first\n14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 57\n";
        let parsed = format::parse(Format::Tiles, korf, &ParseOptions::default()).unwrap();
        assert_eq!((parsed.puzzle.board.rows, parsed.puzzle.board.cols, parsed.expected), (4, 4, Some(57)));
        let start = TileLayout { rows: 4, cols: 4, cells: vec![14, 13, 15, 7, 11, 12, 9, 5, 6, 0, 2, 1, 4, 8, 10, 3] };
        let goal = TileLayout::blank_first(4, 4);
        assert_eq!(parsed.puzzle, puzzle_from(&start, &goal));
        let chars = format::parse(Format::Tiles, "123456.78 2\n", &ParseOptions::default()).unwrap();
        assert_eq!((chars.puzzle.board.rows, chars.expected), (3, Some(2)));
        // A square count alone is a layout, with no optimum.
        let plain = format::parse(Format::Tiles, "1 2 3 4 5 6 0 7 8\n", &ParseOptions::default()).unwrap();
        assert_eq!((plain.puzzle.board.rows, plain.expected), (3, None));
    }

    #[test]
    fn a_header_without_puzzles_holds_no_puzzle() {
        let e = format::parse(Format::Tiles, "; none\nsize: 3x3\n", &ParseOptions::default()).unwrap_err();
        assert_eq!(e, ParseError::at(0, None, "no puzzles in it"));
    }
}
