//! The end-of-run summary: counts by status, mismatches against published optima, times.

use super::record::Row;
use crate::plural::Count;
use crate::solve::Algo;
use serde::Serialize;
use std::fmt;

/// A solved puzzle whose length differs from the corpus's known optimum under an optimal algorithm.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mismatch {
    /// The puzzle.
    pub id: String,
    /// Our (verified) length.
    pub moves: u64,
    /// The published length.
    pub expected: u64,
}

/// Totals over a results file.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Rows in total.
    pub puzzles: usize,
    /// Rows with status `solved`.
    pub solved: usize,
    /// Rows with status `unsolvable`.
    pub unsolvable: usize,
    /// Rows with status `timeout`.
    pub timeout: usize,
    /// Rows with status `limit`.
    pub limit: usize,
    /// Rows with status `error`.
    pub error: usize,
    /// Solved rows that had a known optimum.
    pub checked_against_expected: usize,
    /// Optimal-algorithm lengths that differ from the known optimum.
    pub mismatches: Vec<Mismatch>,
    /// Sum of the per-puzzle wall times.
    pub total_wall_s: f64,
    /// Median per-puzzle wall time.
    pub median_wall_s: f64,
    /// The longest solution: id and moves.
    pub deepest: Option<(String, u64)>,
}

/// A summary built a row at a time, so that the rows need not be held: the counts, and the wall
/// times for the median.
#[derive(Debug, Default)]
pub struct Tally {
    summary: Summary,
    times: Vec<f64>,
}

impl Tally {
    /// Counts one row; memory the process cannot have for its wall time is an error (`out of
    /// memory`), not an abort.
    pub fn add(&mut self, r: &Row) -> Result<(), std::collections::TryReserveError> {
        self.times.try_reserve(1)?;
        let s = &mut self.summary;
        s.puzzles += 1;
        match r.status.as_str() {
            "solved" => s.solved += 1,
            "unsolvable" => s.unsolvable += 1,
            "timeout" => s.timeout += 1,
            "limit" => s.limit += 1,
            _ => s.error += 1,
        }
        if let (Some(moves), Some(expected)) = (r.moves, r.expected) {
            s.checked_against_expected += 1;
            let optimal = r.algo.parse::<Algo>().is_ok_and(Algo::is_optimal);
            if optimal && moves != expected {
                s.mismatches.push(Mismatch { id: r.id.clone(), moves, expected });
            }
        }
        if let Some(m) = r.moves
            && s.deepest.as_ref().is_none_or(|(_, d)| m > *d)
        {
            s.deepest = Some((r.id.clone(), m));
        }
        self.times.push(r.wall_s);
        Ok(())
    }

    /// The summary of the rows counted.
    pub fn finish(self) -> Summary {
        let Tally { summary: mut s, mut times } = self;
        times.sort_by(f64::total_cmp);
        // + 0.0: an empty sum is -0.0, which would print as "-0.000 s".
        s.total_wall_s = times.iter().sum::<f64>() + 0.0;
        s.median_wall_s = match times.len() {
            0 => 0.0,
            n if n % 2 == 1 => times[n / 2],
            n => (times[n / 2 - 1] + times[n / 2]) / 2.0,
        };
        s
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} solved, {} unsolvable, {} timeout, {} limit, {} error",
            Count(self.puzzles, "puzzle"),
            self.solved,
            self.unsolvable,
            self.timeout,
            self.limit,
            self.error
        )?;
        writeln!(f, "known optima: {} checked, {} mismatches", self.checked_against_expected, self.mismatches.len())?;
        writeln!(f, "time: {:.3} s in total, median {:.4} s per puzzle", self.total_wall_s, self.median_wall_s)?;
        if let Some((id, moves)) = &self.deepest {
            writeln!(f, "deepest solution: {} ({id})", Count(*moves, "move"))?;
        }
        for m in &self.mismatches {
            writeln!(f, "MISMATCH {}: found {} moves, the corpus says {}", m.id, m.moves, m.expected)?;
        }
        Ok(())
    }
}
