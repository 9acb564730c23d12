//! Rush Hour cards: 36 characters row-major (any square size works), `o` or `.` empty, `x` wall,
//! `A` the red car, other letters cars. A line may be `<moves> <board> [<count>]` as in Michael
//! Fogleman's database. A car moves only along its length; goal: `A` reaches the right edge;
//! metric: straight.

use super::{ParseError, Parsed};
use crate::puzzle::{Board, Cell, Edge, Family, Goal, Metric, Movement, Piece, Puzzle, Shape};

fn is_board_token(t: &str) -> bool {
    let n = t.chars().count();
    let side = (1..=n).find(|s| s * s >= n).unwrap_or(0);
    n >= 16 && side * side == n && t.chars().all(|c| c.is_ascii_alphabetic() || c == '.') && t.contains('A')
}

/// Whether a line reads as a Rush Hour card (`board` or `moves board [count]`).
pub fn looks_like_rush(line: &str) -> bool {
    let t: Vec<&str> = line.split_whitespace().collect();
    match t.as_slice() {
        [b] => is_board_token(b),
        [m, b] | [m, b, _] => m.parse::<u64>().is_ok() && is_board_token(b),
        _ => false,
    }
}

/// The lines that hold cards (not blank, not comments), with their 1-based numbers; a line keeps
/// its leading blanks, so that error columns count them.
fn card_lines(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end()))
        .filter(|(_, l)| {
            let card = l.trim_start();
            !card.is_empty() && !card.starts_with(';') && !card.starts_with('#')
        })
        .collect()
}

/// Parses a file holding exactly one card.
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    let lines = card_lines(text);
    match lines.as_slice() {
        [(n, line)] => parse_line(line, *n),
        [] => Err(ParseError::at(0, None, "no Rush Hour card in the file")),
        [_, (second, _), ..] => Err(ParseError::at(
            *second,
            None,
            format!(
                "the file holds {} cards, one per line; solve one at a time or run 'batch' on the file",
                lines.len()
            ),
        )),
    }
}

/// Splits a file holding several cards into their lines (with their 1-based numbers), to be read
/// with [`parse_line`]; `None` when it holds one or none.
pub fn split_many(text: &str) -> Option<Vec<(usize, &str)>> {
    let lines = card_lines(text);
    (lines.len() > 1).then_some(lines)
}

/// Parses one card line: `board`, or `moves board [count]`.
pub fn parse_line(line: &str, line_no: usize) -> Result<Parsed, ParseError> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    let (expected, board) = match toks.as_slice() {
        [b] => (None, *b),
        [m, b] | [m, b, _] => {
            let m = m.parse::<u64>().map_err(|_| {
                ParseError::at(line_no, Some(1), format!("expected the optimal move count, found '{m}'"))
            })?;
            (Some(m), *b)
        }
        _ => {
            return Err(ParseError::at(line_no, None, "expected '<board>' or '<moves> <board> [<count>]'"));
        }
    };
    if let [_, _, count] = toks.as_slice() {
        count
            .parse::<u64>()
            .map_err(|_| ParseError::at(line_no, None, format!("expected a state count, found '{count}'")))?;
    }
    // The board token is a slice of `line`: its 0-based column counts the characters before it.
    let column0 = line[..board.as_ptr() as usize - line.as_ptr() as usize].chars().count();
    let chars: Vec<char> = board.chars().collect();
    let n = chars.len();
    let side = (1..=n).find(|s| s * s >= n).unwrap_or(0);
    if side * side != n || side < 2 {
        return Err(ParseError::at(
            line_no,
            Some(column0 + 1),
            format!("a card has a square number of cells (36 for 6x6), found {n}"),
        ));
    }
    let mut open = vec![true; n];
    let mut cars: Vec<(char, Vec<Cell>)> = Vec::new();
    for (i, &ch) in chars.iter().enumerate() {
        match ch {
            'o' | '.' => {}
            'x' => open[i] = false,
            ch if ch.is_ascii_alphabetic() => match cars.iter_mut().find(|(c, _)| *c == ch) {
                Some((_, cells)) => cells.push((i / side, i % side)),
                None => cars.push((ch, vec![(i / side, i % side)])),
            },
            ch => {
                return Err(ParseError::at(
                    line_no,
                    Some(column0 + i + 1),
                    format!("unexpected character '{ch}' (use o or . for empty, x for a wall, letters for cars)"),
                ));
            }
        }
    }
    let goal =
        cars.iter().position(|(c, _)| *c == 'A').ok_or_else(|| ParseError::at(line_no, None, "no red car 'A'"))?;
    let mut pieces = Vec::with_capacity(cars.len());
    let mut start = Vec::with_capacity(cars.len());
    for (name, cells) in &cars {
        let horizontal = cells.iter().all(|c| c.0 == cells[0].0) && cells.windows(2).all(|w| w[1].1 == w[0].1 + 1);
        let vertical = cells.iter().all(|c| c.1 == cells[0].1) && cells.windows(2).all(|w| w[1].0 == w[0].0 + 1);
        if cells.len() < 2 || !(horizontal || vertical) {
            return Err(ParseError::at(
                line_no,
                None,
                format!("car '{name}' is not a straight line of 2 or more cells"),
            ));
        }
        let (shape, anchor) = Shape::from_cells(cells).expect("non-empty");
        let movement = if horizontal { Movement::Horizontal } else { Movement::Vertical };
        pieces.push(Piece { name: name.to_string(), shape, movement });
        start.push(anchor);
    }
    let puzzle = Puzzle {
        board: Board { rows: side, cols: side, open },
        pieces,
        start,
        goal: Goal::Reaches(goal, Edge::Right),
        metric: Metric::Straight,
        merge_identical: true,
        family: Family::Rush,
    };
    Ok(Parsed { puzzle, warnings: Vec::new(), expected })
}
