//! The native drawn-grid format.
//!
//! ```text
//! ; comment
//! metric: free
//! goal: A at 3,1
//! board:
//! BAAC
//! BAAC
//! DEEF
//! DGHF
//! I..J
//! ```
//! `.` empty, `#` wall, space outside the board, any other character a cell of the piece with that
//! name (a piece may be any set of cells). Keys: `metric:` (unit/straight/free, default unit),
//! `goal:` (`X at R,C` with `;` between several, or `X reaches right|left|top|bottom`), `target:`
//! (a drawn full layout, instead of `goal:`), `moves:` (`A=h B=v C=n`, default both), `distinct:`
//! (`yes` turns identical-piece merging off). A block ends at a blank line, the end of the file, or
//! the next `board:`/`target:` line.

use super::{ParseError, ParseOptions, Parsed, char_grid};
use crate::puzzle::{Board, Cell, Edge, Family, Goal, Metric, Movement, Piece, Puzzle, Shape};
use std::collections::{BTreeMap, HashMap};

/// A drawn block: its first line number and its rows.
struct Drawing<'a> {
    line: usize,
    rows: Vec<&'a str>,
}

/// A drawing decoded into open cells and named pieces (in first-appearance order).
struct Layout {
    rows: usize,
    cols: usize,
    open: Vec<bool>,
    pieces: Vec<(char, Vec<Cell>)>,
}

/// Whether `ch` is one of Unicode's 66 noncharacters (U+FDD0 to U+FDEF, and the last two code
/// points of every plane, U+FFFE and U+FFFF among them).
fn is_noncharacter(ch: char) -> bool {
    let code = ch as u32;
    (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE
}

/// Decodes a drawing whose bounding rectangle must fit in `memory_limit` bytes (a file of a long
/// row and many short ones draws a board far larger than itself).
fn decode_drawing(d: &Drawing, memory_limit: u64) -> Result<Layout, ParseError> {
    let rows = d.rows.len();
    let cols = d.rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let cells = Board::checked_cells(rows, cols, memory_limit).map_err(|e| ParseError::too_large(d.line, e))?;
    let mut open = vec![false; cells];
    let mut pieces: Vec<(char, Vec<Cell>)> = Vec::new();
    let mut piece_of: HashMap<char, usize> = HashMap::new();
    for (r, row) in d.rows.iter().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            match ch {
                ' ' | '#' => {}
                '.' => open[r * cols + c] = true,
                // Noncharacters are not for interchange, and XML (the SVG pictures) forbids two.
                ch if ch.is_control() || is_noncharacter(ch) => {
                    let what = match ch {
                        '\t' => "tab character (draw with spaces)".to_string(),
                        ch if ch.is_control() => format!("control character U+{:04X}", ch as u32),
                        ch => format!("noncharacter U+{:04X}", ch as u32),
                    };
                    return Err(ParseError::at(d.line + r, Some(c + 1), format!("unexpected {what} in drawing")));
                }
                ch => {
                    open[r * cols + c] = true;
                    let index = *piece_of.entry(ch).or_insert_with(|| {
                        pieces.push((ch, Vec::new()));
                        pieces.len() - 1
                    });
                    pieces[index].1.push((r, c));
                }
            }
        }
    }
    Ok(Layout { rows, cols, open, pieces })
}

/// Parses the grid format; `options.goal` (from `--goal`) replaces the file's goal.
pub fn parse(text: &str, options: &ParseOptions) -> Result<Parsed, ParseError> {
    let goal_override = options.goal.as_deref();
    let memory_limit = options.memory_limit();
    let lines: Vec<&str> = text.lines().collect();
    let mut keys: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut board: Option<Drawing> = None;
    let mut target: Option<Drawing> = None;
    let mut i = 0;
    while i < lines.len() {
        let line_no = i + 1;
        let line = lines[i].trim_end_matches('\r');
        let trimmed = line.trim();
        i += 1;
        if trimmed.is_empty() || trimmed.starts_with(';') {
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(ParseError::at(
                line_no,
                Some(1),
                format!("expected 'key: value' or a 'board:' block, found '{trimmed}'"),
            ));
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim();
        if key == "board" || key == "target" {
            if !value.is_empty() {
                return Err(ParseError::at(line_no, None, format!("the drawing starts on the line after '{key}:'")));
            }
            let start = i;
            let is_header = |l: &str| matches!(l.trim().to_ascii_lowercase().as_str(), "board:" | "target:");
            while i < lines.len() && !lines[i].trim().is_empty() && !is_header(lines[i]) {
                i += 1;
            }
            let rows: Vec<&str> = lines[start..i].iter().map(|l| l.trim_end_matches('\r')).collect();
            if rows.is_empty() {
                return Err(ParseError::at(line_no, None, format!("'{key}:' has no drawing under it")));
            }
            let slot = if key == "board" { &mut board } else { &mut target };
            if slot.is_some() {
                return Err(ParseError::at(line_no, None, format!("a second '{key}:' block")));
            }
            *slot = Some(Drawing { line: start + 1, rows });
            continue;
        }
        if !matches!(key.as_str(), "metric" | "goal" | "moves" | "distinct" | "name" | "title") {
            return Err(ParseError::at(
                line_no,
                Some(1),
                format!("unknown key '{key}' (expected name, title, metric, goal, moves, distinct, board or target)"),
            ));
        }
        if keys.insert(key.clone(), (line_no, value.to_string())).is_some() {
            return Err(ParseError::at(line_no, None, format!("'{key}:' given twice")));
        }
    }
    let board = board.ok_or_else(|| ParseError::at(0, None, "no 'board:' block"))?;
    let layout = decode_drawing(&board, memory_limit)?;
    if layout.pieces.is_empty() {
        return Err(ParseError::at(board.line, None, "the board has no pieces"));
    }
    let metric = match keys.get("metric") {
        Some((l, v)) => v.parse().map_err(|e: String| ParseError::at(*l, None, e))?,
        None => Metric::Unit,
    };
    let merge_identical = match keys.get("distinct") {
        Some((l, v)) => match v.to_ascii_lowercase().as_str() {
            "yes" | "true" | "on" => false,
            "no" | "false" | "off" => true,
            _ => {
                return Err(ParseError::at(*l, None, format!("distinct: expected yes or no, found '{v}'")));
            }
        },
        None => true,
    };
    let names: HashMap<char, usize> = layout.pieces.iter().enumerate().map(|(i, (n, _))| (*n, i)).collect();
    let find = |name: &str, line: usize| -> Result<usize, ParseError> {
        let mut it = name.chars();
        match (it.next(), it.next()) {
            (Some(c), None) => names.get(&c).copied(),
            _ => None,
        }
        .ok_or_else(|| ParseError::at(line, None, format!("no piece named '{name}' on the board")))
    };
    let mut movements = vec![Movement::Both; names.len()];
    let mut movement_given = vec![false; names.len()];
    if let Some((l, v)) = keys.get("moves") {
        for item in v.split(|c: char| c.is_whitespace() || c == ',').filter(|s| !s.is_empty()) {
            let (name, code) = item
                .split_once('=')
                .ok_or_else(|| ParseError::at(*l, None, format!("moves: expected NAME=h|v|b|n, found '{item}'")))?;
            let mut code_chars = code.chars();
            let movement = match (code_chars.next(), code_chars.next()) {
                (Some(c), None) => Movement::from_code(c),
                _ => None,
            }
            .ok_or_else(|| ParseError::at(*l, None, format!("moves: '{code}' is not h, v, b or n")))?;
            let piece = find(name, *l)?;
            if std::mem::replace(&mut movement_given[piece], true) {
                return Err(ParseError::at(*l, None, format!("moves: piece '{name}' given twice")));
            }
            movements[piece] = movement;
        }
    }
    let mut pieces = Vec::with_capacity(names.len());
    let mut start = Vec::with_capacity(names.len());
    for ((name, cells), movement) in layout.pieces.iter().zip(&movements) {
        let (shape, anchor) = Shape::from_cells(cells).expect("a drawn piece has at least one cell");
        pieces.push(Piece { name: name.to_string(), shape, movement: *movement });
        start.push(anchor);
    }
    let goal_line = match (goal_override, keys.get("goal"), &target) {
        (Some(_), _, _) => 0,
        (None, Some((l, _)), _) => *l,
        (None, None, target) => target.as_ref().map_or(0, |t| t.line),
    };
    let goal = match (keys.get("goal"), &target) {
        _ if goal_override.is_some() => {
            parse_goal(goal_override.unwrap_or_default(), 0, &find).map_err(ParseError::of_goal_option)?
        }
        (Some((l, _)), Some(_)) => {
            return Err(ParseError::at(*l, None, "give either 'goal:' or a 'target:' block, not both"));
        }
        (None, None) if options.goal_optional => Goal::Layout(start.clone()),
        (None, None) => {
            return Err(ParseError::at(0, None, "no goal: add 'goal:' or a 'target:' block"));
        }
        (Some((l, v)), None) => parse_goal(v, *l, &find)?,
        (None, Some(t)) => target_goal(t, &layout, &pieces, memory_limit)?,
    };
    let puzzle = Puzzle {
        board: Board { rows: layout.rows, cols: layout.cols, open: layout.open },
        pieces,
        start,
        goal,
        metric,
        merge_identical,
        family: Family::Grid,
    };
    let misplaced = |e| match goal_override {
        Some(_) => ParseError::at(0, None, format!("--goal: {e}")),
        None => ParseError::at(goal_line, None, e),
    };
    puzzle.goal.check(&puzzle).map_err(misplaced)?;
    Ok(Parsed { puzzle, warnings: Vec::new(), expected: None })
}

/// Reads a goal `X at R,C[; Y at R,C]` or `X reaches EDGE`, finding pieces by name.
pub fn parse_goal(
    value: &str,
    line: usize,
    find: &dyn Fn(&str, usize) -> Result<usize, ParseError>,
) -> Result<Goal, ParseError> {
    let words: Vec<&str> = value.split_whitespace().collect();
    if words.len() == 3 && words[1].eq_ignore_ascii_case("reaches") {
        let edge = Edge::from_name(words[2]).ok_or_else(|| {
            ParseError::at(
                line,
                None,
                format!("goal: unknown edge '{}' (expected right, left, top or bottom)", words[2]),
            )
        })?;
        return Ok(Goal::Reaches(find(words[0], line)?, edge));
    }
    let mut list = Vec::new();
    for part in value.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let bad =
            || ParseError::at(line, None, format!("goal: expected 'X at R,C' or 'X reaches EDGE', found '{part}'"));
        let words: Vec<&str> = part.split_whitespace().collect();
        if words.len() < 3 || !words[1].eq_ignore_ascii_case("at") {
            return Err(bad());
        }
        let coords = words[2..].concat();
        let (r, c) = coords.split_once(',').ok_or_else(bad)?;
        let r: usize = r.trim().parse().map_err(|_| bad())?;
        let c: usize = c.trim().parse().map_err(|_| bad())?;
        let piece = find(words[0], line)?;
        if list.iter().any(|&(p, _)| p == piece) {
            return Err(ParseError::at(line, None, format!("goal: piece '{}' named twice", words[0])));
        }
        list.push((piece, (r, c)));
    }
    if list.is_empty() {
        return Err(ParseError::at(line, None, "goal: empty"));
    }
    Ok(Goal::PiecesAt(list))
}

fn target_goal(t: &Drawing, board: &Layout, pieces: &[Piece], memory_limit: u64) -> Result<Goal, ParseError> {
    let target = decode_drawing(t, memory_limit)?;
    if target.rows != board.rows || target.cols != board.cols || target.open != board.open {
        return Err(ParseError::at(t.line, None, "target: its open cells and walls must match the board exactly"));
    }
    let target_cells: HashMap<char, &[Cell]> = target.pieces.iter().map(|(n, c)| (*n, c.as_slice())).collect();
    let mut anchors = Vec::with_capacity(pieces.len());
    for ((name, _), piece) in board.pieces.iter().zip(pieces) {
        let cells = target_cells.get(name).copied();
        let cells = cells.ok_or_else(|| ParseError::at(t.line, None, format!("target: piece '{name}' is missing")))?;
        let (shape, anchor) = Shape::from_cells(cells).expect("non-empty");
        if shape != piece.shape {
            return Err(ParseError::at(
                t.line,
                None,
                format!("target: piece '{name}' has a different shape than on the board"),
            ));
        }
        anchors.push(anchor);
    }
    let on_board: HashMap<char, ()> = board.pieces.iter().map(|(n, _)| (*n, ())).collect();
    if let Some((name, _)) = target.pieces.iter().find(|(n, _)| !on_board.contains_key(n)) {
        return Err(ParseError::at(t.line, None, format!("target: piece '{name}' is not on the board")));
    }
    Ok(Goal::Layout(anchors))
}

/// Draws a position: one line per row, `.` empty, `#` wall, piece names.
pub fn render(puzzle: &Puzzle, anchors: &[Cell]) -> String {
    char_grid(puzzle, anchors).iter().map(|row| row.iter().collect::<String>() + "\n").collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_given_twice_in_moves_is_an_error_on_that_line() {
        let text = "goal: A at 0,1\nmoves: A=v B=n A=h\nboard:\nA.B\n";
        let e = parse(text, &ParseOptions::default()).unwrap_err();
        assert_eq!(e, ParseError::at(2, None, "moves: piece 'A' given twice"));
        let once = parse("goal: A at 0,1\nmoves: A=h B=n\nboard:\nA.B\n", &ParseOptions::default()).unwrap();
        let movements: Vec<Movement> = once.puzzle.pieces.iter().map(|p| p.movement).collect();
        assert_eq!(movements, [Movement::Horizontal, Movement::None]);
    }
}
