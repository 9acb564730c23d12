//! `slidesolve merge`: joins the results CSVs of shards into one.

use super::stdio::{errln, outln};
use super::{EXIT_OK, EXIT_OTHER, bad_input};
use anyhow::Result;
use clap::Args;
use slidesolve::batch::record::write_rows;
use slidesolve::plural::Count;
use std::path::PathBuf;

/// The duplicate ids named one a line; the others are counted in one line.
const DUPLICATES_SHOWN: usize = 10;

/// Arguments of `merge`.
#[derive(Args)]
pub struct MergeArgs {
    /// Results CSVs (with their `.json` metadata beside them, when present).
    #[arg(required = true, value_name = "CSV")]
    inputs: Vec<PathBuf>,
    /// The merged CSV.
    #[arg(long, value_name = "CSV")]
    out: PathBuf,
}

/// Runs `merge` and returns the exit code.
pub fn run(args: MergeArgs) -> Result<i32> {
    let merged = match slidesolve::batch::merge::merge(&args.inputs) {
        Ok(merged) => merged,
        Err(e) => return Ok(bad_input(e)),
    };
    for why in &merged.unread_metadata {
        errln!("warning: {why}; the gaps of its results file are not checked");
    }
    write_rows(&args.out, &merged.rows)?;
    let (rows, files) = (Count(merged.rows.len(), "row"), Count(args.inputs.len(), "file"));
    outln!("{rows} from {files} written to {}", args.out.display())?;
    for id in merged.duplicates.iter().take(DUPLICATES_SHOWN) {
        errln!("duplicate: {id} appears in more than one row (the first is kept)");
    }
    if let Some(more) = merged.duplicates.len().checked_sub(DUPLICATES_SHOWN).filter(|&n| n > 0) {
        errln!("duplicate: {more} more ids appear in more than one row ({} in all)", merged.duplicates.len());
    }
    let several = |shards: &str| shards.contains(" to ");
    for shard in &merged.missing_shards {
        errln!("gap: no input for shard{} {shard}", if several(shard) { "s" } else { "" });
    }
    for shard in &merged.unclaimed_shards {
        let (s, them, they_are) = if several(shard) { ("s", "them", "they are") } else { ("", "it", "it is") };
        errln!(
            "warning: no metadata says shard{s} {shard}: an input without metadata may hold {them}, so {they_are} \
             not reported as missing"
        );
    }
    for run in &merged.missing {
        errln!("gap: {run} {}", if run.count() == Some(1) { "has no row" } else { "have no rows" });
    }
    if let Some(n) = merged.corpus_puzzles
        && n != merged.rows.len()
    {
        errln!("gap: the corpus has {n} puzzles, the merged file {} rows", merged.rows.len());
    }
    Ok(if merged.is_clean() { EXIT_OK } else { EXIT_OTHER })
}
