//! Solving a corpus: every puzzle in parallel (one per worker thread; a big puzzle's own search
//! spreads over idle workers through rayon's work stealing), each under its own limits, each
//! result handed over as a [`Row`] the moment it is known.

use super::corpus::Entry;
use super::panic_message;
use super::record::Row;
use crate::solution::to_compact;
use crate::solve::{Report, SolveOptions, Status, prepare, shares_preparation, solve};
use crate::trace;
use rayon::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// Settings of a batch run.
#[derive(Clone, Debug, Default)]
pub struct BatchOptions {
    /// How each puzzle is solved (algorithm, heuristic, state and memory limits, verification).
    pub solve: SolveOptions,
    /// Per-puzzle time limit.
    pub timeout: Option<Duration>,
    /// Worker threads of the run, as recorded in every row.
    pub threads: usize,
}

/// Solves the entries at the positions `todo` in parallel on the current rayon pool, calling `sink`
/// with each row as soon as its puzzle finishes (in completion order); stops at the first error
/// `sink` returns.
///
/// Everything shared by many puzzles (pattern databases) is prepared once first, in corpus order.
pub fn run<E: Send>(
    entries: &[Entry],
    todo: &[usize],
    options: &BatchOptions,
    sink: impl Fn(Row) -> Result<(), E> + Sync + Send,
) -> Result<(), E> {
    prepare_all(todo.iter().map(|&i| &entries[i]), options);
    todo.par_iter().with_max_len(1).try_for_each(|&i| sink(solve_entry(&entries[i], options)))
}

/// Prepares, in order, what the entries' searches share (pattern databases); repeats are cache
/// hits, and an error (or a panic) here comes back from `solve` for the puzzle itself, as its row.
pub fn prepare_all<'a>(entries: impl IntoIterator<Item = &'a Entry>, options: &BatchOptions) {
    if !shares_preparation(&options.solve) {
        return;
    }
    for parsed in entries.into_iter().filter_map(|e| e.parse().ok()) {
        let _ = catch_unwind(AssertUnwindSafe(|| prepare(&parsed.puzzle, &options.solve)));
    }
}

/// Solves one entry into its row; never panics (a panic in the solver becomes an `error` row).
pub fn solve_entry(entry: &Entry, options: &BatchOptions) -> Row {
    let id = entry.id();
    let mut row = Row {
        id: id.clone(),
        source: entry.source.to_string(),
        family: String::new(),
        rows: None,
        cols: None,
        pieces: None,
        metric: String::new(),
        algo: options.solve.algo.to_string(),
        threads: options.threads,
        status: Status::Error.to_string(),
        moves: None,
        expected: None,
        nodes_expanded: 0,
        nodes_generated: 0,
        states_stored: 0,
        peak_bytes: 0,
        wall_s: 0.0,
        solution: String::new(),
        message: String::new(),
    };
    let parsed = match entry.parse() {
        Ok(p) => p,
        Err(message) => {
            row.message = one_line(&message);
            return row;
        }
    };
    let puzzle = &parsed.puzzle;
    row.family = puzzle.family.to_string();
    row.rows = Some(puzzle.board.rows);
    row.cols = Some(puzzle.board.cols);
    row.pieces = Some(puzzle.pieces.len());
    row.metric = puzzle.metric.to_string();
    row.expected = parsed.expected;
    let clock = Instant::now();
    let mut solve_options = options.solve.clone();
    solve_options.limits.deadline = options.timeout.map(|t| clock + t);
    let outcome = catch_unwind(AssertUnwindSafe(|| trace::with_label(&id, || solve(puzzle, &solve_options))));
    row.wall_s = clock.elapsed().as_secs_f64();
    let report: Report = match outcome {
        Ok(Ok(report)) => report,
        Ok(Err(e)) => {
            row.message = one_line(&format!("{}: {e}", entry.source));
            return row;
        }
        Err(panic) => {
            let what = panic_message(&*panic);
            row.message = one_line(&format!("internal error (please report): the solver panicked: {what}"));
            return row;
        }
    };
    row.status = report.status.to_string();
    row.nodes_expanded = report.stats.expanded;
    row.nodes_generated = report.stats.generated;
    row.states_stored = report.stats.stored;
    row.peak_bytes = report.stats.peak_bytes;
    if let Some(moves) = &report.moves {
        row.moves = Some(moves.len() as u64);
        row.solution = to_compact(puzzle, moves);
    }
    let mut notes: Vec<String> = report.message.into_iter().collect();
    // A parser's warnings are whole sentences of their own (`Warning: Piece ...`), kept as written.
    notes.extend(parsed.warnings.iter().cloned());
    row.message = one_line(&notes.join("; "));
    row
}

/// The most characters of a row's message; the rest is cut (a parser can quote a whole file).
pub const MAX_MESSAGE_CHARS: usize = 500;

/// The text as one line of at most [`MAX_MESSAGE_CHARS`] characters plus a note of how many were
/// cut: newlines would split a CSV record across lines and defeat torn-line recovery; control
/// characters are escaped ([`crate::trace::printable`]) and tabs become spaces.
fn one_line(text: &str) -> String {
    let line = text.split(['\n', '\r']).filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join(" | ");
    let line = crate::trace::printable(&line).replace('\t', " ");
    match line.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}… ({} more)", &line[..cut], line[cut..].chars().count()),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_capped_line() {
        assert_eq!(one_line("a\n\nb\r\nc"), "a | b | c");
        assert_eq!(one_line("A:R\u{1b}[31m\tX\0"), "A:R\\u{1b}[31m X\\u{0}");
        let long = format!("{}é{}", "x".repeat(MAX_MESSAGE_CHARS - 1), "y".repeat(1000));
        assert_eq!(one_line(&long), format!("{}é… (1000 more)", "x".repeat(MAX_MESSAGE_CHARS - 1)));
        assert_eq!(one_line(&"z".repeat(MAX_MESSAGE_CHARS)), "z".repeat(MAX_MESSAGE_CHARS));
    }
}
