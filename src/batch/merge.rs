//! Joining the results of shards into one file, sorted by id, with duplicates and gaps found.
//!
//! Gaps are found from each shard's metadata (`X.csv.json`): the ids it was given, its `K/N` and the
//! corpus size; an input without metadata may be any shard, so only its duplicates are checked and
//! no shard is said to have no input. The inputs' metadata must agree on
//! the shard count, the corpus size and the settings, and no two may claim the same shard.

use super::corpus::{Shard, id_order};
use super::metadata::{GivenIds, Metadata, Settings, first_difference, path_for};
use super::record::{Row, read_results};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::PathBuf;

/// The merged rows and what is wrong with the set of inputs.
#[derive(Debug, Default)]
pub struct Merged {
    /// All rows, sorted by id (source, then line number).
    pub rows: Vec<Row>,
    /// Ids found in more than one row (every extra row is dropped).
    pub duplicates: Vec<String>,
    /// Ids a shard was given that have no row (a shard that did not finish), in runs.
    pub missing: Vec<GivenIds>,
    /// Shards for which no input was given, in runs: `K/N`, or `K/N to M/N` (a run of a count of
    /// millions is one entry, not millions); empty when an input has no metadata that reads.
    pub missing_shards: Vec<String>,
    /// Shards no metadata claims while some input has no metadata that reads, in runs as
    /// `missing_shards`: those inputs may hold them (even several in one merged file), so they are
    /// not gaps; the corpus size still checks that every puzzle has its row.
    pub unclaimed_shards: Vec<String>,
    /// Corpus size from the metadata, when known.
    pub corpus_puzzles: Option<usize>,
    /// Metadata files that exist but cannot be read, with why: their inputs' gaps are not checked.
    pub unread_metadata: Vec<String>,
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

/// A run of ids as its metadata writes it.
fn json(run: &GivenIds) -> String {
    serde_json::to_string(run).unwrap_or_default()
}

/// The ids of `given` that are not `held` (the rows' ids), as runs: each run of lines is cut at the
/// lines the rows hold, never spelled out line by line (a 100-byte metadata file can give 10^18
/// lines), so the work and the result grow with the rows and the runs only.
fn gaps<'a>(given: &[GivenIds], held: impl IntoIterator<Item = &'a str>) -> Vec<GivenIds> {
    let mut present: HashSet<&str> = HashSet::new();
    let mut lines_of: HashMap<&str, Vec<u64>> = HashMap::new();
    for id in held {
        present.insert(id);
        if let (source, line @ 1..) = id_order(id) {
            lines_of.entry(source).or_default().push(line);
        }
    }
    lines_of.values_mut().for_each(|lines| lines.sort_unstable());
    let mut gaps = Vec::new();
    for run in given {
        let GivenIds::Lines { source, lines: [first, last], step } = run else {
            if matches!(run, GivenIds::One(id) if !present.contains(id.as_str())) {
                gaps.push(run.clone());
            }
            continue;
        };
        let (first, last, step) = (*first, *last, *step);
        let mut gap =
            |from: u64, to: u64| gaps.push(GivenIds::Lines { source: source.clone(), lines: [from, to], step });
        let held = lines_of.get(source.as_str()).map_or(&[][..], Vec::as_slice);
        let held = &held[held.partition_point(|&l| l < first)..];
        // The first line of the run not yet accounted for (`None`: past the largest line).
        let mut next = Some(first);
        for &line in held.iter().take_while(|&&l| l <= last).filter(|&&l| (l - first) % step == 0) {
            match next {
                Some(from) if line > from => gap(from, line - step),
                Some(from) if line < from => continue,
                _ => {}
            }
            next = line.checked_add(step);
        }
        if let Some(from) = next.filter(|&from| from <= last) {
            gap(from, last);
        }
    }
    gaps
}

/// What the first input with metadata says of the whole set of inputs, which every other input's
/// metadata must say too.
struct Claim {
    /// Its metadata file.
    path: PathBuf,
    /// Its shard (`None`: the run took the whole corpus).
    shard: Option<Shard>,
    /// Puzzles in the corpus.
    corpus_puzzles: usize,
}

/// An error of the inputs, `why` being what it says.
fn bad(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why)
}

/// How metadata gives a shard: `shard K/N`, or `no shard` for a run over the whole corpus.
fn shard_said(shard: Option<Shard>) -> String {
    shard.map_or("no shard".into(), |s| format!("shard {s}"))
}

/// Reads and merges results files. Every error is one of the inputs and names it: a file that is
/// missing or unreadable, not a results file (an empty one included), one whose metadata's ids are
/// not runs of lines or whose shard is not `K/N`; or two inputs whose metadata disagree on the
/// shard count, the corpus size or the settings, or claim the same shard, named both.
pub fn merge(inputs: &[PathBuf]) -> io::Result<Merged> {
    let mut merged = Merged::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut given: Vec<GivenIds> = Vec::new();
    // The shards present (their `K`), each with the metadata file that claims it.
    let mut shard_inputs: BTreeMap<usize, PathBuf> = BTreeMap::new();
    let mut first: Option<Claim> = None;
    let mut first_settings: Option<(PathBuf, Settings)> = None;
    // Whether some input has no metadata that reads, which may be any shard.
    let mut unknown_input = false;
    for input in inputs {
        if !input.is_file() {
            let what = if input.exists() { "not a file" } else { "no such file" };
            return Err(io::Error::new(io::ErrorKind::NotFound, format!("{}: {what}", input.display())));
        }
        for row in read_results(input)? {
            let n = seen.entry(row.id.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                merged.rows.push(row);
            } else if *n == 2 {
                merged.duplicates.push(row.id);
            }
        }
        let meta_path = path_for(input);
        let meta = match Metadata::read(&meta_path) {
            Ok(meta) => meta,
            Err(e) => {
                if e.kind() != io::ErrorKind::NotFound {
                    merged.unread_metadata.push(e.to_string());
                }
                unknown_input = true;
                continue;
            }
        };
        let here = meta_path.display();
        if let Some(run) = meta.ids.iter().find(|run| run.count().is_none()) {
            return Err(bad(format!("{here}: ids: {} is not a run of lines", json(run))));
        }
        let shard = match meta.shard.as_deref().map(str::parse::<Shard>).transpose() {
            Ok(shard) => shard,
            Err(why) => return Err(bad(format!("{here}: shard: {why}"))),
        };
        let claim =
            first.get_or_insert_with(|| Claim { path: meta_path.clone(), shard, corpus_puzzles: meta.corpus_puzzles });
        let there = claim.path.display();
        if claim.shard.map(|s| s.count) != shard.map(|s| s.count) {
            let (then, now) = (shard_said(claim.shard), shard_said(shard));
            return Err(bad(format!("{there} says {then}, {here} says {now}: the inputs are not shards of one split")));
        }
        if claim.corpus_puzzles != meta.corpus_puzzles {
            let (then, now) = (claim.corpus_puzzles, meta.corpus_puzzles);
            return Err(bad(format!(
                "{there} says the corpus has {then} puzzles, {here} says {now}: the inputs are not of one corpus"
            )));
        }
        if let Some(settings) = meta.settings {
            let (path, recorded) = first_settings.get_or_insert_with(|| (meta_path.clone(), settings.clone()));
            // The puzzles are not at hand: a heuristic left out is not taken for its default.
            if let Some((then, now)) = first_difference(recorded, &settings, || None) {
                return Err(bad(format!(
                    "{} says its rows were computed {then}, {here} says {now}: rows of different settings \
                     are not merged",
                    path.display()
                )));
            }
        }
        if let Some(shard) = shard {
            if let Some(other) = shard_inputs.get(&shard.index) {
                return Err(bad(format!(
                    "{} and {here} both say shard {shard}: its rows would be merged twice",
                    other.display()
                )));
            }
            shard_inputs.insert(shard.index, meta_path.clone());
        }
        given.extend(meta.ids);
        merged.corpus_puzzles = Some(meta.corpus_puzzles);
    }
    merged.missing = gaps(&given, merged.rows.iter().map(|r| r.id.as_str()));
    if let Some(n) = first.and_then(|claim| claim.shard).map(|s| s.count) {
        let gaps = shard_gaps(shard_inputs.keys().copied(), n);
        if unknown_input {
            merged.unclaimed_shards = gaps;
        } else {
            merged.missing_shards = gaps;
        }
    }
    merged.rows.sort_by(|a, b| id_order(&a.id).cmp(&id_order(&b.id)));
    merged.missing.sort_by(|a, b| a.first_id().cmp(&b.first_id()));
    Ok(merged)
}

/// The runs of shards `1..=count` not in `present` (increasing): `K/N` or `K/N to M/N`, in order
/// (one pass over `present`, whatever the count).
fn shard_gaps(present: impl IntoIterator<Item = usize>, count: usize) -> Vec<String> {
    let run = |first: usize, last: usize| match first == last {
        true => format!("{first}/{count}"),
        false => format!("{first}/{count} to {last}/{count}"),
    };
    let mut gaps = Vec::new();
    let mut next = 1;
    for k in present.into_iter().filter(|k| (1..=count).contains(k)) {
        if k > next {
            gaps.push(run(next, k - 1));
        }
        // Past the largest count there is nothing left to miss.
        let Some(after) = k.checked_add(1) else { return gaps };
        next = after;
    }
    if next <= count {
        gaps.push(run(next, count));
    }
    gaps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(source: &str, first: u64, last: u64, step: u64) -> GivenIds {
        GivenIds::Lines { source: source.into(), lines: [first, last], step }
    }

    #[test]
    fn missing_shards_are_runs() {
        let present = [2, 3, 7];
        assert_eq!(shard_gaps(present, 9), ["1/9", "4/9 to 6/9", "8/9 to 9/9"]);
        assert_eq!(shard_gaps(present, 7), ["1/7", "4/7 to 6/7"]);
        assert_eq!(
            shard_gaps([2], usize::MAX),
            [format!("1/{0}", usize::MAX), format!("3/{0} to {0}/{0}", usize::MAX)]
        );
    }

    #[test]
    fn gaps_are_runs_cut_at_the_rows_held() {
        let held = ["a:3", "a:4", "a:4", "a:9", "a:11", "b:7", "c", "a:x"];
        let given = [lines("a", 1, 10, 1), lines("b", 1, 13, 3), GivenIds::One("c".into()), GivenIds::One("d".into())];
        let found = gaps(&given, held.iter().copied());
        assert_eq!(
            found,
            [
                lines("a", 1, 2, 1),
                lines("a", 5, 8, 1),
                lines("a", 10, 10, 1),
                lines("b", 1, 4, 3),
                lines("b", 10, 13, 3),
                GivenIds::One("d".into())
            ]
        );
        // A run as long as a count can be costs no more than its rows.
        let huge = [lines("a", 1, u64::MAX, 1)];
        assert_eq!(
            gaps(&huge, held.iter().copied()),
            [lines("a", 1, 2, 1), lines("a", 5, 8, 1), lines("a", 10, 10, 1), lines("a", 12, u64::MAX, 1)]
        );
        assert_eq!(gaps(&[lines("a", 9, 9, 1)], held.iter().copied()), []);
        assert_eq!(gaps(&[lines("e", u64::MAX, u64::MAX, 1)], ["e:18446744073709551615"]), []);
    }
}
