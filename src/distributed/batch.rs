//! `batch` over MPI: the puzzles of the corpus are the jobs of the work queue ([`super::queue`]),
//! named by their ids; a row travels back as JSON.

use super::queue::{Jobs, mismatch_message};
use crate::batch::corpus::Entry;
use crate::batch::record::Row;
use crate::batch::run::{BatchOptions, prepare_all, solve_entry};
use crate::rounds::Done;

/// The puzzles of a batch run as jobs: entry `i` of the corpus, solved with the run's options.
pub struct Puzzles<'a> {
    /// The corpus (the run's shard of it), in corpus order.
    pub entries: &'a [Entry],
    /// How each puzzle is solved.
    pub options: &'a BatchOptions,
}

impl Jobs for Puzzles<'_> {
    type Output = Row;

    fn threads(&self) -> usize {
        self.options.threads
    }

    fn name(&self, i: usize) -> Option<String> {
        self.entries.get(i).map(Entry::id)
    }

    fn run(&self, i: usize) -> Done<Row> {
        Done::Output(self.run_alone(i))
    }

    /// A puzzle's search is bounded by its own limits, so it never needs the rank to itself.
    fn run_alone(&self, i: usize) -> Row {
        let entry = &self.entries[i];
        prepare_all([entry], self.options);
        solve_entry(entry, self.options)
    }

    fn mismatch(&self, id: &str, rank: usize) -> Row {
        let entry = Entry::failed(id, mismatch_message(rank));
        solve_entry(&entry, self.options)
    }
}
