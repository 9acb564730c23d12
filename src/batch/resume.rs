//! Continuing a results file (`batch --resume`) and starting one: what a run checks against the
//! file's record ([`super::metadata`]) before it adds a row, and the order in which a run replaces
//! the rows and the record, so that no kill leaves old rows beside a record of other settings.

use super::metadata::{GivenIds, Metadata, Settings, settings_differ};
use super::record::RowWriter;
use crate::heuristic::HeuristicKind;
use std::io;
use std::path::Path;

/// What decides a run's rows and which puzzles they are of, as a results file's record keeps it.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    /// The settings its rows are computed with.
    pub settings: &'a Settings,
    /// `K/N` when it takes one shard of the corpus.
    pub shard: Option<&'a str>,
    /// Puzzles in the whole corpus, before sharding.
    pub corpus_puzzles: usize,
    /// The ids it is given, in corpus order, in runs ([`GivenIds::runs`]).
    pub ids: &'a [GivenIds],
}

/// What a run resuming a results file finds in the file's record.
#[derive(Debug)]
pub enum Recorded {
    /// The record of a run given the same puzzles, with settings that compute the rows as this
    /// run's do.
    Same(Metadata),
    /// The record of a run given the same puzzles that keeps no settings (written before they were
    /// kept): those cannot be checked.
    NoSettings(Metadata),
    /// No record, or one that cannot be read, beside rows: nothing can be checked.
    Missing,
    /// A results file without rows: there is nothing to continue, and the run starts a record of
    /// its own; with why the record there is not this run's ([`differs`]), if there is one.
    NoRows(Option<String>),
}

/// Reads the record at `path` for `run`, which resumes the record's results file, that `holds_rows`
/// or not (the ids of the puzzles a run stopped before its first row are not compared: no row is
/// kept). The error says why the rows cannot be this run's ([`differs`]); `default_heuristic` is
/// the heuristic the run's puzzles take when none is given, if they all take one.
pub fn recorded(
    path: &Path,
    run: &Run,
    holds_rows: bool,
    default_heuristic: impl FnOnce() -> Option<HeuristicKind>,
) -> Result<Recorded, String> {
    let record = Metadata::read(path).ok();
    let why = record.as_ref().and_then(|record| differs(record, run, default_heuristic));
    match (record, why) {
        (_, why) if !holds_rows => Ok(Recorded::NoRows(why)),
        (None, _) => Ok(Recorded::Missing),
        (Some(_), Some(why)) => Err(why),
        (Some(record), None) if record.settings.is_none() => Ok(Recorded::NoSettings(record)),
        (Some(record), None) => Ok(Recorded::Same(record)),
    }
}

/// Why `run` cannot continue the rows of the run `record` describes, by the first of these that
/// differs: its settings ([`settings_differ`]; not compared when the record keeps none), its shard,
/// the size of its corpus, its ids in order; `None` when they agree.
pub fn differs(
    record: &Metadata,
    run: &Run,
    default_heuristic: impl FnOnce() -> Option<HeuristicKind>,
) -> Option<String> {
    if let Some(why) = record.settings.as_ref().and_then(|then| settings_differ(then, run.settings, default_heuristic))
    {
        return Some(why);
    }
    if record.shard.as_deref() != run.shard {
        let given = |shard: Option<&str>| shard.map_or("without --shard".to_string(), |s| format!("with --shard {s}"));
        return Some(format!("the run was started {}, this one {}", given(record.shard.as_deref()), given(run.shard)));
    }
    if record.corpus_puzzles != run.corpus_puzzles {
        return Some(format!(
            "the run was started on a corpus of {} puzzles, this one on {} (puzzles were added or removed, or \
             other inputs given)",
            record.corpus_puzzles, run.corpus_puzzles
        ));
    }
    ids_differ(&record.ids, run.ids)
}

/// Why a run given the ids `now` is not one given `then` (both in runs): the first position where
/// they differ; `None` when they are the same ids in the same order. The runs of `then` are walked
/// only as far as `now` goes (a record's run can claim 10^18 lines), and one that is not a run of
/// lines ([`GivenIds::count`]) differs.
fn ids_differ(then: &[GivenIds], now: &[GivenIds]) -> Option<String> {
    if let Some(run) = then.iter().find(|run| run.count().is_none()) {
        return Some(format!("the run's record gives ids that are not a run of lines ({run})"));
    }
    let other = |why: String| Some(format!("the run was started on other puzzles: {why}"));
    let mut recorded = each_id(then);
    let mut position: u64 = 0;
    for id in each_id(now) {
        position += 1;
        match recorded.next() {
            Some(was) if was == id => {}
            Some(was) => return other(format!("its puzzle {position} is {was}, this one's is {id}")),
            None => {
                return other(format!("it was given {} puzzles, this one's puzzle {position} is {id}", position - 1));
            }
        }
    }
    recorded
        .next()
        .and_then(|was| other(format!("its puzzle {} is {was}, this one has {position} puzzles", position + 1)))
}

/// The ids of `runs`, in order, each spelled out as it is reached (runs of lines, all valid).
fn each_id(runs: &[GivenIds]) -> impl Iterator<Item = String> + '_ {
    runs.iter().flat_map(|run| {
        let (one, lines) = match run {
            GivenIds::One(id) => (Some(id.clone()), None),
            GivenIds::Lines { source, lines: [first, last], step } => {
                let step = usize::try_from(*step).unwrap_or(usize::MAX);
                (None, Some((*first..=*last).step_by(step).map(move |line| format!("{source}:{line}"))))
            }
        };
        one.into_iter().chain(lines.into_iter().flatten())
    })
}

/// Opens the results CSV `csv` for a run's rows and then writes the run's record `meta` at
/// `meta_path`, whole: a run that continues the file appends to it ([`RowWriter::append`]), one
/// that starts over empties it first ([`RowWriter::create`]). In that order a kill between the two
/// leaves the old record beside a file without rows, which a run resumed with any settings starts
/// afresh ([`Recorded::NoRows`]), and never old rows beside the new record. An error names the file.
pub fn start(csv: &Path, resume: bool, meta_path: &Path, meta: &Metadata) -> io::Result<RowWriter> {
    let writer = if resume { RowWriter::append(csv) } else { RowWriter::create(csv) }
        .map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", csv.display())))?;
    meta.write(meta_path)?;
    Ok(writer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::corpus::Entry;
    use crate::batch::metadata::{Sitting, path_for};
    use crate::batch::record::read_rows;
    use crate::batch::run::{BatchOptions, solve_entry};

    fn settings(pairs: &[(&str, &str)]) -> Settings {
        pairs.iter().map(|(f, v)| (f.to_string(), v.to_string())).collect()
    }

    /// A record of a run over `run`.
    fn record_of(run: &Run) -> Metadata {
        let mut record = Metadata::now(Sitting::now(vec!["slidesolve".into()], 1));
        record.settings = Some(run.settings.clone());
        record.shard = run.shard.map(str::to_string);
        record.corpus_puzzles = run.corpus_puzzles;
        record.ids = run.ids.to_vec();
        record
    }

    #[test]
    fn a_resume_of_another_shard_or_corpus_is_refused_naming_what_differs() {
        let algo = settings(&[("--algo", "bfs")]);
        let ids = GivenIds::runs([("a.txt", Some(1)), ("a.txt", Some(3)), ("b.grid", None)]);
        let run = Run { settings: &algo, shard: Some("1/2"), corpus_puzzles: 5, ids: &ids };
        let record = record_of(&run);
        assert_eq!(differs(&record, &run, || unreachable!()), None);
        let why = |other: Run| differs(&record, &other, || None).unwrap();
        let metric = settings(&[("--algo", "bfs"), ("--metric", "unit")]);
        // Settings come first, then the shard, the corpus size and the ids.
        assert_eq!(
            why(Run { settings: &metric, shard: None, ..run }),
            "the run was started without --metric, this one with --metric unit"
        );
        assert_eq!(
            why(Run { shard: Some("2/2"), ..run }),
            "the run was started with --shard 1/2, this one with --shard 2/2"
        );
        assert_eq!(why(Run { shard: None, ..run }), "the run was started with --shard 1/2, this one without --shard");
        assert_eq!(
            why(Run { corpus_puzzles: 6, ..run }),
            "the run was started on a corpus of 5 puzzles, this one on 6 (puzzles were added or removed, or other \
             inputs given)"
        );
        let other = GivenIds::runs([("a.txt", Some(1)), ("a.txt", Some(3)), ("c.grid", None)]);
        assert_eq!(
            why(Run { ids: &other, ..run }),
            "the run was started on other puzzles: its puzzle 3 is b.grid, this one's is c.grid"
        );
        let fewer = GivenIds::runs([("a.txt", Some(1)), ("a.txt", Some(3))]);
        assert_eq!(
            why(Run { ids: &fewer, ..run }),
            "the run was started on other puzzles: its puzzle 3 is b.grid, this one has 2 puzzles"
        );
        let more = GivenIds::runs([("a.txt", Some(1)), ("a.txt", Some(3)), ("b.grid", None), ("d.grid", None)]);
        assert_eq!(
            why(Run { ids: &more, ..run }),
            "the run was started on other puzzles: it was given 3 puzzles, this one's puzzle 4 is d.grid"
        );
        // Ids listed one by one (files of older builds) are the same ids as their runs.
        let old = Metadata {
            ids: ["a.txt:1", "a.txt:3", "b.grid"].map(|id| GivenIds::One(id.into())).to_vec(),
            ..record.clone()
        };
        assert_eq!(differs(&old, &run, || unreachable!()), None);
        // A record's run of 10^19 lines is walked one id past this run's, no further.
        let huge = Metadata {
            ids: vec![GivenIds::Lines { source: "a.txt".into(), lines: [1, u64::MAX], step: 2 }],
            ..record.clone()
        };
        assert_eq!(
            differs(&huge, &Run { ids: &fewer, ..run }, || unreachable!()).unwrap(),
            "the run was started on other puzzles: its puzzle 3 is a.txt:5, this one has 2 puzzles"
        );
        let broken =
            Metadata { ids: vec![GivenIds::Lines { source: "a.txt".into(), lines: [1, 3], step: 0 }], ..record };
        assert_eq!(
            differs(&broken, &run, || unreachable!()).unwrap(),
            "the run's record gives ids that are not a run of lines (a.txt:1..3 (step 0))"
        );
    }

    #[test]
    fn starting_over_stopped_before_its_record_leaves_no_rows_and_a_resume_with_its_settings_starts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let (csv, meta_path) = (dir.path().join("r.csv"), path_for(&dir.path().join("r.csv")));
        let ids = GivenIds::runs([("a.txt", Some(1)), ("a.txt", Some(2))]);
        let (old, new) = (settings(&[("--algo", "bfs"), ("--metric", "straight")]), settings(&[("--algo", "bfs")]));
        let (old, new) = (
            Run { settings: &old, shard: None, corpus_puzzles: 2, ids: &ids },
            Run { settings: &new, shard: None, corpus_puzzles: 2, ids: &ids },
        );
        let holds_rows = || !read_rows(&csv).unwrap().is_empty();
        let row = solve_entry(&Entry::failed("a.txt:1", "stopped".into()), &BatchOptions::default());
        // A run with the old settings wrote a row: its rows are not continued with the new ones.
        start(&csv, false, &meta_path, &record_of(&old)).unwrap().write(&row).unwrap();
        let refused = recorded(&meta_path, &new, holds_rows(), || None).unwrap_err();
        assert_eq!(refused, "the run was started with --metric straight, this one without --metric");
        // Starting over with the new settings is stopped where it writes its record (the temporary
        // file cannot be created), as by a kill: the old record is left, but none of its rows.
        std::fs::create_dir(crate::format::temporary_for(&meta_path)).unwrap();
        assert!(start(&csv, false, &meta_path, &record_of(&new)).is_err());
        assert_eq!(Metadata::read(&meta_path).unwrap().settings.as_ref(), Some(old.settings));
        assert!(!holds_rows());
        // A resume with the new settings starts afresh, and says what the old record was.
        match recorded(&meta_path, &new, holds_rows(), || None) {
            Ok(Recorded::NoRows(Some(why))) => assert_eq!(why, refused),
            other => panic!("{other:?}"),
        }
        // Once its record is written, the new run's rows are continued with its settings only.
        std::fs::remove_dir(crate::format::temporary_for(&meta_path)).unwrap();
        start(&csv, true, &meta_path, &record_of(&new)).unwrap().write(&row).unwrap();
        assert!(matches!(recorded(&meta_path, &new, holds_rows(), || None), Ok(Recorded::Same(_))));
        assert!(recorded(&meta_path, &old, holds_rows(), || None).is_err());
    }
}
