//! Batch runs over whole corpora: the main job of the tool.
//!
//! - [`corpus`]: inputs (files, directories, globs) into puzzles with stable ids (`file:line` for
//!   multi-puzzle files), shard selection.
//! - [`run`]: solving a corpus in parallel with per-puzzle limits, one [`record::Row`] per puzzle.
//! - [`record`]: the CSV row, an append-and-flush writer that survives `kill -9`, a tolerant reader.
//! - [`progress`]: a progress bar on a terminal, plain periodic lines otherwise.
//! - [`summary`]: counts by status, mismatches against published optima, times.
//! - [`metadata`]: the reproducibility record written next to a results CSV.
//! - [`resume`]: continuing a results file (what is checked against its record) or starting one.
//! - [`merge`]: joining shards, checking duplicates and gaps.
//! - [`deepest`]: pictures of the deepest solutions of a finished run.

pub mod corpus;
pub mod deepest;
pub mod merge;
pub mod metadata;
pub mod progress;
pub mod record;
pub mod resume;
pub mod run;
pub mod summary;

/// The message a panic was raised with (`unknown panic` when it carried something else).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("unknown panic")
}
