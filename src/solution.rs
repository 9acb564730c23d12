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
    let mut moves = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let trimmed = line.trim();
        let commentary = ["This puzzle", "Warning:", "Error:"].iter().any(|p| trimmed.starts_with(p));
        if trimmed.is_empty() || trimmed.starts_with('*') || commentary {
            continue;
        }
        if let Some(mv) = parse_cs351_line(puzzle, trimmed, line_no)? {
            moves.push(mv);
            continue;
        }
        for token in trimmed.split_whitespace() {
            moves.push(parse_token(puzzle, token, line_no)?);
        }
    }
    Ok(moves)
}

fn lookup(puzzle: &Puzzle, name: &str, line: usize) -> Result<usize, SolutionParseError> {
    puzzle.piece_index(name).ok_or_else(|| SolutionParseError::UnknownPiece { line, name: name.to_string() })
}

fn parse_token(puzzle: &Puzzle, token: &str, line: usize) -> Result<Move, SolutionParseError> {
    let bad = || SolutionParseError::BadToken { line, token: token.to_string() };
    let (name, steps) = token.rsplit_once(':').ok_or_else(bad)?;
    if name.is_empty() || steps.is_empty() {
        return Err(bad());
    }
    let piece = lookup(puzzle, name, line)?;
    let mut path = Vec::new();
    let mut chars = steps.chars().peekable();
    while let Some(c) = chars.next() {
        let dir = Dir::from_letter(c).ok_or_else(bad)?;
        let mut digits = String::new();
        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(*d);
            chars.next();
        }
        let count: usize = if digits.is_empty() { 1 } else { digits.parse().map_err(|_| bad())? };
        if count == 0 || count > 1_000_000 {
            return Err(bad());
        }
        path.extend(std::iter::repeat_n(dir, count));
    }
    Ok(Move { piece, path })
}

/// `N. Piece X moves K space(s) DIR` → a move; `Ok(None)` when the line is not of that form.
fn parse_cs351_line(puzzle: &Puzzle, line: &str, line_no: usize) -> Result<Option<Move>, SolutionParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let shape_ok = words.len() == 7
        && words[0].ends_with('.')
        && words[1] == "Piece"
        && words[3] == "moves"
        && words[5] == "space(s)";
    if !shape_ok {
        return Ok(None);
    }
    let bad = || SolutionParseError::BadToken { line: line_no, token: line.to_string() };
    let count: usize = words[4].parse().map_err(|_| bad())?;
    let dir = match words[6] {
        "up" => Dir::Up,
        "down" => Dir::Down,
        "left" => Dir::Left,
        "right" => Dir::Right,
        _ => return Err(bad()),
    };
    if count == 0 || count > 1_000_000 {
        return Err(bad());
    }
    let piece = lookup(puzzle, words[2], line_no)?;
    Ok(Some(Move { piece, path: vec![dir; count] }))
}
