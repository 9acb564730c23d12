//! Batch runs over whole corpora: the main job of the tool.
//!
//! - [`corpus`]: inputs (files, directories, globs) into puzzles with stable ids (`file:line` for
//!   multi-puzzle files), shard selection.
//! - [`run`]: solving a corpus in parallel with per-puzzle limits, one [`record::Row`] per puzzle.
//! - [`record`]: the CSV row, an append-and-flush writer that survives `kill -9`, a tolerant reader.
//! - [`progress`]: a progress bar on a terminal, plain periodic lines otherwise.
//! - [`summary`]: counts by status, mismatches against published optima, times.
//! - [`metadata`]: the reproducibility record written next to a results CSV.
//! - [`merge`]: joining shards, checking duplicates and gaps.

pub mod corpus;
pub mod merge;
pub mod metadata;
pub mod progress;
pub mod record;
pub mod run;
pub mod summary;
