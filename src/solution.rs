//! Solutions as the user sees them: a list of moves, each one piece following a path of steps.
//!
//! The compact text form is `NAME:STEPS` tokens separated by whitespace, where `STEPS` is a run
//! list such as `R2` (right 2), `DL` (down then left) or `U3R`: `A:R2 7:U3 B:DL`. The verifier
//! also reads the CS 351 output form (`1. Piece 4 moves 1 space(s) left`).

use crate::puzzle::{Dir, Puzzle};
use thiserror::Error;

/// One move: a piece and the unit steps it takes, in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Index of the moving piece in `Puzzle::pieces`.
    pub piece: usize,
    /// The unit steps, in order (one for `unit`, one direction repeated for `straight`).
    pub path: Vec<Dir>,
}

impl Move {
    /// The path as runs of equal directions: `[(Right, 2), (Down, 1)]`.
    pub fn runs(&self) -> Vec<(Dir, usize)> {
        let mut runs: Vec<(Dir, usize)> = Vec::new();
        for &d in &self.path {
            match runs.last_mut() {
                Some((last, n)) if *last == d => *n += 1,
                _ => runs.push((d, 1)),
            }
        }
        runs
    }

    /// A readable description: `A right 2` or `B down 1, left 1`.
    pub fn describe(&self, puzzle: &Puzzle) -> String {
        let runs: Vec<String> = self.runs().iter().map(|(d, n)| format!("{d} {n}")).collect();
        format!("{} {}", puzzle.pieces[self.piece].name, runs.join(", "))
    }

    /// The compact token: `A:R2`, `B:DL`.
    pub fn compact(&self, puzzle: &Puzzle) -> String {
        let mut s = format!("{}:", puzzle.pieces[self.piece].name);
        for (d, n) in self.runs() {
            s.push(d.letter());
            if n > 1 {
                s.push_str(&n.to_string());
            }
        }
        s
    }
}

/// The compact text of a whole solution (tokens separated by single spaces).
pub fn to_compact(puzzle: &Puzzle, moves: &[Move]) -> String {
    moves.iter().map(|m| m.compact(puzzle)).collect::<Vec<_>>().join(" ")
}

/// Why a solution text could not be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SolutionParseError {
    /// A token names no piece of the puzzle.
    #[error("line {line}: unknown piece '{name}'")]
    UnknownPiece {
        /// 1-based line of the solution text.
        line: usize,
        /// The name as written.
        name: String,
    },
    /// A run of steps longer than the board, or a move longer than the board has cells: no legal
    /// move is, so it is refused before anything is replayed.
    #[error("line {line}: '{token}' moves further than any move on a {rows}x{cols} board can")]
    TooLong {
        /// 1-based line of the solution text.
        line: usize,
        /// The offending text (cut to 40 characters).
        token: String,
        /// Board rows.
        rows: usize,
        /// Board columns.
        cols: usize,
    },
    /// A token is not of the form `NAME:STEPS` or a CS 351 move line.
    #[error("line {line}: cannot read move '{token}' (expected NAME:STEPS such as A:R2)")]
    BadToken {
        /// 1-based line of the solution text.
        line: usize,
        /// The offending text.
        token: String,
    },
}

/// Reads a solution in compact form or in CS 351 output form (other lines of CS 351 output,
/// such as grids and the step count, are skipped).
pub fn parse_solution(puzzle: &Puzzle, text: &str) -> Result<Vec<Move>, SolutionParseError> {
    moves(puzzle, text).collect()
}

/// The moves of a solution text, read one at a time as [`parse_solution`] reads them, so that a
/// long text can be checked or replayed without holding all its moves.
pub fn moves<'t>(puzzle: &Puzzle, text: &'t str) -> Moves<'t> {
    Moves { reader: Reader::new(puzzle), lines: text.lines().enumerate(), tokens: None }
}

/// The moves of a solution text, read one at a time ([`moves`]): each one, or why it cannot be read.
pub struct Moves<'t> {
    reader: Reader,
    lines: std::iter::Enumerate<std::str::Lines<'t>>,
    /// The compact tokens left on the current line, and its 1-based number.
    tokens: Option<(usize, std::str::SplitWhitespace<'t>)>,
}

impl Iterator for Moves<'_> {
    type Item = Result<Move, SolutionParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((line_no, tokens)) = &mut self.tokens {
                if let Some(token) = tokens.next() {
                    return Some(self.reader.token(token, *line_no));
                }
                self.tokens = None;
            }
            let (i, line) = self.lines.next()?;
            let line_no = i + 1;
            let trimmed = line.trim();
            let commentary = ["This puzzle", "Warning:", "Error:"].iter().any(|p| trimmed.starts_with(p));
            if trimmed.is_empty() || is_cs351_grid_row(trimmed) || commentary {
                continue;
            }
            match self.reader.cs351_line(trimmed, line_no) {
                Ok(None) => self.tokens = Some((line_no, trimmed.split_whitespace())),
                read => return read.transpose(),
            }
        }
    }
}

/// Whether a line is a row of a grid that CS 351 output draws: `*` first and last (the border), no
/// space, and no `:`, which every compact move holds (`*:R` moves a grid piece named `*`).
fn is_cs351_grid_row(line: &str) -> bool {
    line.len() >= 2
        && line.starts_with('*')
        && line.ends_with('*')
        && !line.contains(|c: char| c == ':' || c.is_whitespace())
}

/// What reading moves needs of a puzzle: its pieces by name and the longest legal run and move.
struct Reader {
    pieces: std::collections::HashMap<String, usize>,
    rows: usize,
    cols: usize,
}

impl Reader {
    fn new(puzzle: &Puzzle) -> Self {
        let pieces = puzzle.pieces.iter().enumerate().map(|(i, p)| (p.name.clone(), i)).collect();
        Reader { pieces, rows: puzzle.board.rows, cols: puzzle.board.cols }
    }

    fn lookup(&self, name: &str, line: usize) -> Result<usize, SolutionParseError> {
        self.pieces.get(name).copied().ok_or_else(|| SolutionParseError::UnknownPiece { line, name: name.to_string() })
    }

    /// A straight run leaves the board after `max(rows, cols)` steps, and a move of more steps than
    /// the board has cells is refused too (a path on the board need never be longer).
    fn check_length(&self, run: usize, path: usize, token: &str, line: usize) -> Result<(), SolutionParseError> {
        if run < self.rows.max(self.cols) && path <= self.rows.saturating_mul(self.cols) {
            return Ok(());
        }
        let token = token.chars().take(40).collect();
        Err(SolutionParseError::TooLong { line, token, rows: self.rows, cols: self.cols })
    }

    fn token(&self, token: &str, line: usize) -> Result<Move, SolutionParseError> {
        let bad = || SolutionParseError::BadToken { line, token: token.chars().take(80).collect() };
        let (name, steps) = token.rsplit_once(':').ok_or_else(bad)?;
        if name.is_empty() || steps.is_empty() {
            return Err(bad());
        }
        let piece = self.lookup(name, line)?;
        let mut path = Vec::new();
        // The steps of one direction in a row so far: `RRR` is the run `R3`, however written.
        let mut run = 0usize;
        let mut chars = steps.chars().peekable();
        while let Some(c) = chars.next() {
            let dir = Dir::from_letter(c).ok_or_else(bad)?;
            let mut digits = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(*d);
                chars.next();
            }
            let count = if digits.is_empty() { 1 } else { digits.parse().unwrap_or(usize::MAX) };
            if count == 0 {
                return Err(bad());
            }
            run = if path.last() == Some(&dir) { run.saturating_add(count) } else { count };
            self.check_length(run, path.len().saturating_add(count), token, line)?;
            path.extend(std::iter::repeat_n(dir, count));
        }
        Ok(Move { piece, path })
    }

    /// `N. Piece X moves K space(s) DIR` → a move; `Ok(None)` when the line is not of that form.
    fn cs351_line(&self, line: &str, line_no: usize) -> Result<Option<Move>, SolutionParseError> {
        // Eight words at most: a line of millions of compact moves is not split whole here.
        let words: Vec<&str> = line.split_whitespace().take(8).collect();
        let shape_ok = words.len() == 7
            && words[0].ends_with('.')
            && words[1] == "Piece"
            && words[3] == "moves"
            && words[5] == "space(s)";
        if !shape_ok {
            return Ok(None);
        }
        let bad = || SolutionParseError::BadToken { line: line_no, token: line.chars().take(80).collect() };
        let count: usize = words[4].parse().map_err(|_| bad())?;
        let dir = match words[6] {
            "up" => Dir::Up,
            "down" => Dir::Down,
            "left" => Dir::Left,
            "right" => Dir::Right,
            _ => return Err(bad()),
        };
        if count == 0 {
            return Err(bad());
        }
        self.check_length(count, count, line, line_no)?;
        let piece = self.lookup(words[2], line_no)?;
        Ok(Some(Move { piece, path: vec![dir; count] }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{ParseOptions, grid};

    /// A one-row grid whose only piece is named `*`, the character CS 351 output draws borders with.
    fn star_puzzle() -> Puzzle {
        grid::parse("goal: * at 0,2\nboard:\n*..\n", &ParseOptions::default()).unwrap().puzzle
    }

    #[test]
    fn compact_moves_of_a_piece_named_star_are_read() {
        let puzzle = star_puzzle();
        let right = Move { piece: 0, path: vec![Dir::Right] };
        assert_eq!(parse_solution(&puzzle, "*:R *:R"), Ok(vec![right.clone(), right]));
        assert_eq!(parse_solution(&puzzle, "*:R2\n"), Ok(vec![Move { piece: 0, path: vec![Dir::Right; 2] }]));
        assert_eq!(
            parse_solution(&puzzle, "*:R *"),
            Err(SolutionParseError::BadToken { line: 1, token: "*".to_string() })
        );
    }

    #[test]
    fn a_run_is_too_long_however_it_is_written() {
        // On a 1x3 board a run of 3 steps one way leaves the board: `R3` and `RRR` alike.
        let puzzle = star_puzzle();
        let too_long = |token: &str| SolutionParseError::TooLong { line: 1, token: token.into(), rows: 1, cols: 3 };
        assert_eq!(parse_solution(&puzzle, "*:R3"), Err(too_long("*:R3")));
        assert_eq!(parse_solution(&puzzle, "*:RRR"), Err(too_long("*:RRR")));
        assert_eq!(parse_solution(&puzzle, "*:RR2"), Err(too_long("*:RR2")));
        assert_eq!(parse_solution(&puzzle, "*:RLR").map(|m| m[0].path.len()), Ok(3));
    }

    #[test]
    fn cs351_output_grids_are_skipped_and_its_moves_read() {
        let puzzle = star_puzzle();
        let output = "*****\n**..*\n*****\nThis puzzle is solvable in 2 steps\n\
                      1. Piece * moves 1 space(s) right\n2. Piece * moves 1 space(s) right\n*****\n*..**\n*****\n";
        let right = Move { piece: 0, path: vec![Dir::Right] };
        assert_eq!(parse_solution(&puzzle, output), Ok(vec![right.clone(), right]));
    }
}
