//! Joining the results of shards into one file, sorted by id, with duplicates and gaps found.
//!
//! Gaps are found from each shard's metadata (`X.csv.json`): the ids it was given, its `K/N` and the
//! corpus size; without metadata only duplicates can be checked.

use super::corpus::{Shard, id_order};
use super::metadata::{Metadata, path_for};
use super::record::{Row, read_rows};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::io;
use std::path::PathBuf;

/// The merged rows and what is wrong with the set of inputs.
#[derive(Debug, Default)]
pub struct Merged {
    /// All rows, sorted by id (source, then line number).
    pub rows: Vec<Row>,
    /// Ids found in more than one row (every extra row is dropped).
    pub duplicates: Vec<String>,
    /// Ids a shard was given that have no row (a shard that did not finish).
    pub missing: Vec<String>,
    /// Shards `K/N` for which no input was given.
    pub missing_shards: Vec<String>,
    /// Corpus size from the metadata, when known.
    pub corpus_puzzles: Option<usize>,
}

impl Merged {
    /// Whether the inputs are complete and without duplicates.
    pub fn is_clean(&self) -> bool {
        self.duplicates.is_empty()
            && self.missing.is_empty()
            && self.missing_shards.is_empty()
            && self.corpus_puzzles.is_none_or(|n| n == self.rows.len())
    }
}

/// Reads and merges results files.
pub fn merge(inputs: &[PathBuf]) -> io::Result<Merged> {
    let mut merged = Merged::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut given: Vec<String> = Vec::new();
    let mut shards: BTreeSet<usize> = BTreeSet::new();
    let mut shard_count: Option<usize> = None;
    for input in inputs {
        if !input.is_file() {
            return Err(io::Error::new(io::ErrorKind::NotFound, format!("{}: no such file", input.display())));
        }
        for row in read_rows(input)? {
            let n = seen.entry(row.id.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                merged.rows.push(row);
            } else if *n == 2 {
                merged.duplicates.push(row.id);
            }
        }
        if let Ok(meta) = Metadata::read(&path_for(input)) {
            given.extend(meta.ids);
            merged.corpus_puzzles = Some(meta.corpus_puzzles);
            if let Some(shard) = meta.shard.as_deref().and_then(|s| s.parse::<Shard>().ok()) {
                shards.insert(shard.index);
                shard_count = Some(shard.count);
            }
        }
    }
    let present: HashSet<&str> = merged.rows.iter().map(|r| r.id.as_str()).collect();
    merged.missing = given.iter().filter(|id| !present.contains(id.as_str())).cloned().collect();
    if let Some(n) = shard_count {
        merged.missing_shards = (1..=n).filter(|k| !shards.contains(k)).map(|k| format!("{k}/{n}")).collect();
    }
    merged.rows.sort_by(|a, b| id_order(&a.id).cmp(&id_order(&b.id)));
    merged.missing.sort_by(|a, b| id_order(a).cmp(&id_order(b)));
    Ok(merged)
}
