//! The family spec: a board, piece kinds with count ranges, a minimum number of empty cells, a
//! goal and a metric. Keys are written `key: value`, one a line, `;` starts a comment line:
//!
//! ```text
//! metric: free
//! empty: 2..            ; at least two empty cells
//! pieces: 3..9          ; optional: layouts of 3 to 9 pieces only
//! goal: A at 3,1        ; as in the grid format, naming kinds
//! start: A at 0,0       ; optional: only layouts meeting it count for a component's hardest
//! kind: A 2x2 b 1       ; name, shape, movement, count
//! kind: V 2x1 b 0..
//! kind: L XX/X. b 0..2  ; a drawn shape: rows joined by '/', 'X' covered, '.' not
//! kind: R 1x2 h 1 row=2 ; fixed constraints: every piece of the kind has its anchor in row 2
//! board:
//! ....
//! ```
//!
//! A shape is `HxW` (a solid rectangle, H rows by W columns) or a drawing; the movement is `h`,
//! `v`, `b` or `n` (as in the grid format's `moves:`); a count is `N`, `N..` or `N..M`; after the
//! count, `row=R` and `col=C` pin the anchor (first cell in reading order) of every piece of the
//! kind to row `R` or column `C`. The board is drawn under `board:` with `.` open and `#` wall. A
//! kind named by the goal must have a count of exactly 1, and some placement of it must meet the
//! goal. `pieces:` bounds the number of pieces of a layout, all kinds together (a count as
//! above). Two kinds of the same shape and movement are the same kind (pieces of one kind are
//! interchangeable), so a spec names each at most once, except goal kinds.

use crate::format::ParseError;
use crate::format::grid::parse_goal;
use crate::puzzle::{Board, Cell, Goal, Metric, Movement, Shape};
use std::collections::{HashMap, HashSet};

/// The most cells a family's board may have (its layouts are listed one by one).
pub const MAX_CELLS: usize = 64;
/// The most piece kinds a spec may name (every polyomino that fits a 4×4 board is 9,471 of them; a
/// class holds only the kinds it has pieces of).
pub const MAX_KINDS: usize = 16384;

/// A kind of piece: a shape, a movement limit and how many of it a layout holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kind {
    /// The one-character name drawn in layouts.
    pub name: char,
    /// The cells a piece covers.
    pub shape: Shape,
    /// The directions a piece may move in.
    pub movement: Movement,
    /// The fewest pieces of this kind in a layout.
    pub min: usize,
    /// The most pieces of this kind in a layout (`None`: as many as fit).
    pub max: Option<usize>,
    /// The row every piece's anchor must lie in (`None`: any).
    pub row: Option<usize>,
    /// The column every piece's anchor must lie in (`None`: any).
    pub col: Option<usize>,
}

impl Kind {
    /// Whether a piece of this kind may have its anchor at `anchor` (its fixed constraints).
    pub fn allows(&self, anchor: (usize, usize)) -> bool {
        self.row.is_none_or(|r| r == anchor.0) && self.col.is_none_or(|c| c == anchor.1)
    }
}

/// A whole family of layouts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilySpec {
    /// The playing area.
    pub board: Board,
    /// The piece kinds, in spec order.
    pub kinds: Vec<Kind>,
    /// The fewest empty open cells a layout keeps.
    pub min_empty: usize,
    /// The fewest and the most pieces a layout has, all kinds together (`None`: no most).
    pub pieces: (usize, Option<usize>),
    /// The goal, with kind indices where a puzzle has piece indices.
    pub goal: Goal,
    /// The condition a layout must meet to count for a component's hardest layout (`None`: every
    /// layout counts), in the goal's form; it names only kinds the goal names.
    pub start: Option<Goal>,
    /// What counts as one move.
    pub metric: Metric,
}

fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError::at(line, None, message)
}

/// Reads `N`, `N..` or `N..M`.
fn parse_count(s: &str, line: usize) -> Result<(usize, Option<usize>), ParseError> {
    let bad = || err(line, format!("expected a count N, N.. or N..M, found '{s}'"));
    let number = |t: &str| t.trim().parse::<usize>().map_err(|_| bad());
    match s.split_once("..") {
        None => number(s).map(|n| (n, Some(n))),
        Some((lo, "")) => Ok((number(lo)?, None)),
        Some((lo, hi)) => {
            let (lo, hi) = (number(lo)?, number(hi)?);
            if lo > hi {
                return Err(bad());
            }
            Ok((lo, Some(hi)))
        }
    }
}

/// Reads `HxW` or a drawing with rows joined by `/` (`X` covered, `.` not).
fn parse_shape(s: &str, line: usize) -> Result<Shape, ParseError> {
    if let Some((h, w)) = s.split_once(['x', 'X'])
        && let (Ok(h), Ok(w)) = (h.parse::<usize>(), w.parse::<usize>())
    {
        if h == 0 || w == 0 || h.checked_mul(w).is_none_or(|n| n > MAX_CELLS) {
            return Err(err(line, format!("shape {s}: each side from 1, at most {MAX_CELLS} cells")));
        }
        return Ok(Shape::rectangle(h, w));
    }
    let mut cells = Vec::new();
    for (r, row) in s.split('/').enumerate() {
        for (c, ch) in row.chars().enumerate() {
            match ch {
                'X' | 'x' => cells.push((r, c)),
                '.' => {}
                _ => return Err(err(line, format!("shape '{s}': expected HxW or rows of 'X' and '.' joined by '/'"))),
            }
        }
    }
    if cells.len() > MAX_CELLS {
        return Err(err(line, format!("shape '{s}' has more than {MAX_CELLS} cells")));
    }
    Shape::from_cells(&cells).map(|(shape, _)| shape).ok_or_else(|| err(line, format!("shape '{s}' covers no cell")))
}

/// Reads `NAME SHAPE MOVEMENT COUNT [row=R] [col=C]`.
/// What a kind's name may be, as error messages say it.
const NAME_RULE: &str = "a name is one character other than '.', '#', '=', '/' and ';'";

fn parse_kind(value: &str, line: usize) -> Result<Kind, ParseError> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let [name, shape, movement, count, ref options @ ..] = words[..] else {
        return Err(err(line, format!("kind: expected 'NAME SHAPE MOVEMENT COUNT [row=R] [col=C]', found '{value}'")));
    };
    let mut chars = name.chars();
    let name = match (chars.next(), chars.next()) {
        // '=' would make a class's description (`A=1 B=0 ...`) ambiguous, '/' a one-line layout
        // (rows joined by '/'), and ';' starts a comment.
        (Some(c), None) if !matches!(c, '.' | '#' | '=' | '/' | ';') => c,
        _ => {
            let why = format!("kind: {NAME_RULE}, found '{name}'");
            return Err(err(line, why));
        }
    };
    let movement = match movement.chars().collect::<Vec<_>>()[..] {
        [c] => Movement::from_code(c),
        _ => None,
    }
    .ok_or_else(|| err(line, format!("kind {name}: movement is h, v, b or n, found '{movement}'")))?;
    let (min, max) = parse_count(count, line)?;
    let (mut row, mut col) = (None, None);
    for option in options {
        let (slot, number) = match option.split_once('=') {
            Some(("row", n)) => (&mut row, n),
            Some(("col", n)) => (&mut col, n),
            _ => {
                return Err(err(
                    line,
                    format!("kind {name}: expected row=R or col=C after the count, found '{option}'"),
                ));
            }
        };
        let n = number.parse::<usize>().ok().filter(|&n| n < MAX_CELLS);
        let n = n.ok_or_else(|| err(line, format!("kind {name}: '{option}' needs a number below {MAX_CELLS}")))?;
        if slot.replace(n).is_some() {
            return Err(err(line, format!("kind {name}: '{option}' given twice")));
        }
    }
    Ok(Kind { name, shape: parse_shape(shape, line)?, movement, min, max, row, col })
}

/// Reads a board drawing: `.` open, `#` wall, rows of equal length.
fn parse_board(rows: &[&str], line: usize) -> Result<Board, ParseError> {
    let cols = rows[0].chars().count();
    if rows.iter().any(|r| r.chars().count() != cols) {
        return Err(err(line, "board: every row must have the same length"));
    }
    if rows.len() * cols > MAX_CELLS {
        return Err(err(line, format!("board: at most {MAX_CELLS} cells")));
    }
    let mut open = Vec::with_capacity(rows.len() * cols);
    for (r, row) in rows.iter().enumerate() {
        for ch in row.chars() {
            match ch {
                '.' => open.push(true),
                '#' => open.push(false),
                _ => return Err(err(line + r, format!("board: '{ch}' is neither '.' (open) nor '#' (wall)"))),
            }
        }
    }
    Ok(Board { rows: rows.len(), cols, open })
}

/// Checks that every kind the goal (or start, as `key` says) names has a placement that meets it:
/// on open cells of the board, where the kind's `row=` and `col=` allow its anchor, and (for
/// `reaches`) touching the edge. Without one, no layout of the family could be solved (or count).
fn check_goal(key: &str, goal: &Goal, board: &Board, kinds: &[(usize, Kind)]) -> Result<(), String> {
    let (rows, cols) = (board.rows, board.cols);
    match goal {
        Goal::PiecesAt(list) => list.iter().try_for_each(|&(k, (r, c))| {
            let kind = &kinds[k].1;
            if !board.fits(&kind.shape, (r, c)) {
                return Err(format!(
                    "{key}: kind {} at {r},{c} does not fit on the open cells of the {rows}x{cols} board",
                    kind.name
                ));
            }
            if !kind.allows((r, c)) {
                return Err(format!(
                    "{key}: kind {} at {r},{c} breaks the row= or col= of its 'kind:' line",
                    kind.name
                ));
            }
            Ok(())
        }),
        Goal::Reaches(k, edge) => {
            let kind = &kinds[*k].1;
            let touches = |anchor: Cell| kind.shape.cells_at(anchor).flatten().any(|cell| edge.holds(cell, rows, cols));
            let mut anchors = (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c)));
            if anchors.any(|a| kind.allows(a) && board.fits(&kind.shape, a) && touches(a)) {
                return Ok(());
            }
            Err(format!(
                "{key}: kind {} has no placement on open cells, within its row= and col=, that touches the {edge} edge",
                kind.name
            ))
        }
        Goal::Layout(_) => Ok(()),
    }
}

/// The value of a `key: value` line without its trailing comment. A `goal:` or `start:` separates
/// its clauses by `;` as in the grid format (`A at 3,1; B at 0,0`), so there the comment starts at
/// the first part that is not a clause (a name followed by `at` or `reaches`); elsewhere at the
/// first `;`.
fn strip_comment<'a>(key: &str, value: &'a str) -> &'a str {
    let clauses = key.eq_ignore_ascii_case("goal") || key.eq_ignore_ascii_case("start");
    let is_clause = |part: &str| {
        let mut words = part.split_whitespace().skip(1);
        words.next().is_some_and(|w| w.eq_ignore_ascii_case("at") || w.eq_ignore_ascii_case("reaches"))
    };
    let mut parts = value.split(';');
    let mut end = parts.next().map_or(0, str::len);
    for part in parts {
        if !(clauses && is_clause(part)) {
            break;
        }
        end += 1 + part.len();
    }
    value[..end].trim()
}

/// Parses a family spec.
pub fn parse(text: &str) -> Result<FamilySpec, ParseError> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let (mut metric, mut min_empty, mut pieces, mut goal, mut start, mut board) = (None, None, None, None, None, None);
    let mut kinds: Vec<(usize, Kind)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = i + 1;
        let trimmed = lines[i].trim();
        i += 1;
        if trimmed.is_empty() || trimmed.starts_with(';') {
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(err(line, format!("expected 'key: value' or a 'board:' block, found '{trimmed}'")));
        };
        if key.trim().eq_ignore_ascii_case("kind") && value.trim_start().starts_with(';') {
            return Err(err(line, format!("kind: {NAME_RULE}, found ';' (which starts a comment)")));
        }
        let value = strip_comment(key.trim(), value);
        let once = |slot: bool| if slot { Err(err(line, format!("'{key}:' given twice"))) } else { Ok(()) };
        match key.trim().to_ascii_lowercase().as_str() {
            "metric" => {
                once(metric.is_some())?;
                metric = Some(value.parse::<Metric>().map_err(|e| err(line, e))?);
            }
            "empty" => {
                once(min_empty.is_some())?;
                let (lo, hi) = parse_count(value, line)?;
                if hi.is_some() {
                    return Err(err(line, "empty: give the minimum as N.. (an upper bound is not supported)"));
                }
                min_empty = Some(lo);
            }
            "pieces" => {
                once(pieces.is_some())?;
                pieces = Some(parse_count(value, line)?);
            }
            "goal" => {
                once(goal.is_some())?;
                goal = Some((line, value.to_string()));
            }
            "start" => {
                once(start.is_some())?;
                start = Some((line, value.to_string()));
            }
            "kind" if kinds.len() == MAX_KINDS => {
                return Err(err(line, format!("more than {MAX_KINDS} kinds")));
            }
            "kind" => kinds.push((line, parse_kind(value, line)?)),
            "board" => {
                once(board.is_some())?;
                if !value.is_empty() {
                    return Err(err(
                        line,
                        format!("board: the drawing goes on the lines under 'board:', found '{value}'"),
                    ));
                }
                let start = i;
                while i < lines.len()
                    && !lines[i].trim().is_empty()
                    && !lines[i].contains(':')
                    && !lines[i].trim().starts_with(';')
                {
                    i += 1;
                }
                if start == i {
                    return Err(err(line, "'board:' has no drawing under it"));
                }
                let rows: Vec<&str> = lines[start..i].iter().map(|l| strip_comment("board", l)).collect();
                board = Some(parse_board(&rows, start + 1)?);
            }
            other => {
                return Err(err(
                    line,
                    format!("unknown key '{other}' (expected metric, empty, pieces, goal, start, kind or board)"),
                ));
            }
        }
    }
    let board = board.ok_or_else(|| err(0, "no 'board:' drawing"))?;
    if kinds.is_empty() {
        return Err(err(0, "no 'kind:' line"));
    }
    let (goal_line, goal_text) = goal.ok_or_else(|| err(0, "no 'goal:' line"))?;
    let find = |key: &'static str| {
        let kinds = &kinds;
        move |name: &str, line: usize| {
            kinds
                .iter()
                .position(|(_, k)| name.chars().eq(std::iter::once(k.name)))
                .ok_or_else(|| err(line, format!("{key}: no kind named '{name}'")))
        }
    };
    let goal = parse_goal(&goal_text, goal_line, &find("goal"))?;
    let named = goal.named_pieces(kinds.len());
    for (line, kind) in &kinds {
        if kind.row.is_some_and(|r| r >= board.rows) || kind.col.is_some_and(|c| c >= board.cols) {
            return Err(err(*line, format!("kind {}: row= or col= lies outside the board", kind.name)));
        }
    }
    check_goal("goal", &goal, &board, &kinds).map_err(|message| err(goal_line, message))?;
    let start = match start {
        None => None,
        Some((line, text)) => {
            let start = parse_goal(&text, line, &find("start"))?;
            let stray = start.named_pieces(kinds.len()).iter().zip(&named).position(|(&s, &g)| s && !g);
            if let Some(k) = stray {
                let name = kinds[k].1.name;
                return Err(err(
                    line,
                    format!("start: kind {name} is not named by the goal (a start names goal kinds only)"),
                ));
            }
            check_goal("start", &start, &board, &kinds).map_err(|message| err(line, message))?;
            Some(start)
        }
    };
    // The kinds the goal does not name, by shape and movement: two of them would be one kind.
    let mut by_shape: HashMap<(&Shape, Movement), char> = HashMap::with_capacity(kinds.len());
    let mut names = HashSet::with_capacity(kinds.len());
    for (a, (line, kind)) in kinds.iter().enumerate() {
        if named[a] && (kind.min, kind.max) != (1, Some(1)) {
            return Err(err(*line, format!("kind {}: the goal names it, so its count must be exactly 1", kind.name)));
        }
        if !names.insert(kind.name) {
            return Err(err(*line, format!("kind {}: the name is taken", kind.name)));
        }
        if !named[a]
            && let Some(other) = by_shape.insert((&kind.shape, kind.movement), kind.name)
        {
            return Err(err(
                *line,
                format!("kind {}: same shape and movement as kind {other}; give one kind with both counts", kind.name),
            ));
        }
    }
    Ok(FamilySpec {
        board,
        kinds: kinds.into_iter().map(|(_, k)| k).collect(),
        min_empty: min_empty.unwrap_or(0),
        pieces: pieces.unwrap_or((0, None)),
        goal,
        start,
        metric: metric.unwrap_or(Metric::Free),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_klotski_spec_reads_back_its_parts() {
        let text = "metric: free\nempty: 2..\ngoal: A at 3,1\nkind: A 2x2 b 1\nkind: V 2x1 b 0..\n\
                    kind: L XX/X. h 0..2 ; an L\nboard:\n....\n....\n....\n....\n#...\n";
        let spec = parse(text).unwrap();
        assert_eq!((spec.board.rows, spec.board.cols, spec.board.open[16]), (5, 4, false));
        assert_eq!(spec.min_empty, 2);
        assert_eq!(spec.goal, Goal::PiecesAt(vec![(0, (3, 1))]));
        assert_eq!(spec.kinds[1].max, None);
        assert_eq!(spec.kinds[2].shape.offsets(), &[(0, 0), (0, 1), (1, 0)]);
        assert_eq!((spec.kinds[2].movement, spec.kinds[2].min, spec.kinds[2].max), (Movement::Horizontal, 0, Some(2)));
        let pinned = parse("goal: A reaches right\nkind: A 1x2 h 1 row=2 col=2\nboard:\n....\n....\n....\n").unwrap();
        assert_eq!((pinned.kinds[0].row, pinned.kinds[0].col), (Some(2), Some(2)));
        assert!(pinned.kinds[0].allows((2, 2)) && !pinned.kinds[0].allows((1, 2)));
    }

    #[test]
    fn mistakes_are_reported_on_their_line() {
        let base = "goal: A at 0,0\nkind: A 1x1 b 1\n";
        let line_of = |extra: &str| parse(&format!("{base}{extra}board:\n..\n")).unwrap_err().line;
        assert_eq!(line_of("kind: B 1x1 b 0..\nkind: C 1x1 b 1\n"), 4);
        assert_eq!(line_of("kind: B 1x1 q 1\n"), 3);
        assert_eq!(line_of("kind: B 1x1 b 3..2\n"), 3);
        assert_eq!(line_of("kind: B 1x1 b 1 row=2\n"), 3);
        assert_eq!(line_of("kind: B 1x1 b 1 lane=1\n"), 3);
        assert_eq!(line_of("kind: B 1x1 b 1 col=0 col=1\n"), 3);
        assert_eq!(line_of("kind: B 1x1 b 1 row=99999999999999999999\n"), 3);
        assert_eq!(line_of("pieces: 3..2\n"), 3);
        assert_eq!(line_of("pieces: 1\npieces: 2\n"), 4);
        assert_eq!(parse("goal: A at 0,0\nkind: A 1x1 b 0..\nboard:\n..\n").unwrap_err().line, 2);
        assert_eq!(parse("goal: Z at 0,0\nkind: A 1x1 b 1\nboard:\n..\n").unwrap_err().line, 1);
    }

    #[test]
    fn a_spec_names_at_most_max_kinds() {
        let kinds = |n: usize| -> String {
            (0..n).map(|k| format!("kind: {} 1x1 b 0..\n", char::from_u32(0x4E00 + k as u32).unwrap())).collect()
        };
        let spec = |n: usize| parse(&format!("goal: A at 0,0\nkind: A 1x1 b 1\n{}board:\n..\n", kinds(n)));
        let e = spec(MAX_KINDS + 1).unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (MAX_KINDS + 2, "more than 16384 kinds"));
        // Below the limit, the kinds are read, and two of one shape and movement are one too many.
        let e = spec(MAX_KINDS - 1).unwrap_err();
        assert_eq!(e.line, 4);
        assert_eq!(e.message, "kind 丁: same shape and movement as kind 一; give one kind with both counts");
    }

    #[test]
    fn a_goal_no_layout_can_meet_is_refused_on_its_line() {
        let message = |text: &str| {
            let e = parse(text).unwrap_err();
            (e.line, e.message)
        };
        let at = |goal: &str, kind: &str, board: &str| {
            message(&format!("metric: free\ngoal: {goal}\nkind: {kind}\nboard:\n{board}"))
        };
        let off = "goal: kind A at 2,0 does not fit on the open cells of the 2x2 board";
        assert_eq!(at("A at 2,0", "A 1x1 b 1", "..\n..\n"), (2, off.to_string()));
        let wall = "goal: kind A at 0,1 does not fit on the open cells of the 2x2 board";
        assert_eq!(at("A at 0,1", "A 1x1 b 1", ".#\n..\n"), (2, wall.to_string()));
        let over = "goal: kind A at 1,1 does not fit on the open cells of the 2x2 board";
        assert_eq!(at("A at 1,1", "A 1x2 h 1", "..\n..\n"), (2, over.to_string()));
        let pinned = "goal: kind A at 0,0 breaks the row= or col= of its 'kind:' line";
        assert_eq!(at("A at 0,0", "A 1x1 b 1 row=1", "..\n..\n"), (2, pinned.to_string()));
        let edge = "goal: kind A has no placement on open cells, within its row= and col=, that touches the right edge";
        assert_eq!(at("A reaches right", "A 1x1 b 1 col=0", "..\n..\n"), (2, edge.to_string()));
        assert_eq!(at("A reaches right", "A 1x1 b 1", ".#\n.#\n"), (2, edge.to_string()));
        // A goal some placement meets is accepted, however few layouts reach it.
        assert!(parse("goal: A reaches right\nkind: A 1x1 b 1\nboard:\n.#\n..\n").is_ok());
        assert!(parse("goal: A at 1,0\nkind: A 1x2 h 1 row=1\nboard:\n..\n..\n").is_ok());
    }

    #[test]
    fn a_goal_of_several_clauses_keeps_them_all_and_drops_the_comment() {
        let spec = |goal: &str, kinds: &str| parse(&format!("goal: {goal}\n{kinds}board:\n...\n...\n"));
        let two = "kind: A 1x1 b 1\nkind: B 1x2 b 1\n";
        let both = Goal::PiecesAt(vec![(0, (1, 2)), (1, (0, 0))]);
        assert_eq!(spec("A at 1,2; B at 0,0", two).unwrap().goal, both);
        assert_eq!(spec("A at 1,2 ;B AT 0,0 ; as in the grid format; C at 1,1", two).unwrap().goal, both);
        assert_eq!(spec("A at 1,2 ; the primary", two).unwrap().goal, Goal::PiecesAt(vec![(0, (1, 2))]));
        // Every clause is checked: a kind the goal names has a count of exactly 1.
        let many = spec("A at 1,2; S at 0,0", "kind: A 1x1 b 1\nkind: S 1x1 v 0..\n").unwrap_err();
        assert_eq!(many.to_string(), "line 3: kind S: the goal names it, so its count must be exactly 1");
        let bad = spec("A at 1,2; B at 9", two).unwrap_err();
        assert_eq!(bad.to_string(), "line 1: goal: expected 'X at R,C' or 'X reaches EDGE', found 'B at 9'");
        // Comments after a board row, and names that would read as a comment or a row break.
        assert!(parse("goal: A at 0,0\nkind: A 1x1 b 1\nboard:\n.. ; a row\n..\n").is_ok());
        let name =
            |kind: &str| parse(&format!("goal: A at 0,0\nkind: A 1x1 b 1\nkind: {kind}\nboard:\n..\n")).unwrap_err();
        let rule = "kind: a name is one character other than '.', '#', '=', '/' and ';'";
        assert_eq!(name("/ 1x2 b 0..").to_string(), format!("line 3: {rule}, found '/'"));
        assert_eq!(name("; 1x2 b 0..").to_string(), format!("line 3: {rule}, found ';' (which starts a comment)"));
        let drawn = parse("goal: A at 0,0\nkind: A 1x1 b 1\nboard: ..\n..\n").unwrap_err();
        assert_eq!(drawn.to_string(), "line 3: board: the drawing goes on the lines under 'board:', found '..'");
    }

    #[test]
    fn a_start_names_goal_kinds_that_can_meet_it() {
        let base = "goal: A at 1,1\nkind: A 1x1 b 1\nkind: B 1x1 b 0..\nboard:\n..\n#.\n";
        let spec = |start: &str| parse(&format!("start: {start}\n{base}"));
        assert_eq!(spec("A at 0,1").unwrap().start, Some(Goal::PiecesAt(vec![(0, (0, 1))])));
        assert_eq!(spec("A reaches left").unwrap().start, Some(Goal::Reaches(0, crate::puzzle::Edge::Left)));
        assert_eq!(parse(base).unwrap().start, None);
        let message = |start: &str| spec(start).map(drop).unwrap_err().to_string();
        assert_eq!(
            message("B at 0,0"),
            "line 1: start: kind B is not named by the goal (a start names goal kinds only)"
        );
        assert_eq!(message("Z at 0,0"), "line 1: start: no kind named 'Z'");
        assert_eq!(message("A at 1,0"), "line 1: start: kind A at 1,0 does not fit on the open cells of the 2x2 board");
        assert_eq!(parse(&format!("start: A at 0,0\nstart: A at 0,1\n{base}")).unwrap_err().line, 2);
    }
}
