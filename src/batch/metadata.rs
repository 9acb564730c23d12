//! The reproducibility record written next to a results CSV (`results.csv.json`): what ran, on
//! what, when, and which puzzles the run was given.

use super::corpus::Entry;
use super::summary::Summary;
use crate::heuristic::HeuristicKind;
use crate::solve::{Algo, default_heuristic};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// Everything needed to reproduce and audit one results file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Metadata {
    /// slidesolve's version.
    pub slidesolve_version: String,
    /// The git commit it was built from (`-dirty` when the tree had changes).
    pub git_commit: String,
    /// The compiler that built it.
    pub rustc_version: String,
    /// The first sitting's command line, one argument per item.
    pub command_line: Vec<String>,
    /// The first sitting's worker threads (of each rank).
    pub threads: usize,
    /// The first sitting's processes (MPI ranks); 1 outside `mpirun`/`srun`.
    #[serde(default = "one_rank")]
    pub ranks: usize,
    /// CPU model.
    pub cpu_model: String,
    /// Logical cores of the machine.
    pub cores: usize,
    /// Physical memory in bytes.
    pub ram_bytes: u64,
    /// Operating system and kernel.
    pub os: String,
    /// The first sitting's host name.
    pub host: String,
    /// When the first run on this file started (RFC 3339, UTC).
    pub started: String,
    /// When the last run on this file ended.
    pub finished: String,
    /// The later sittings (runs with `--resume`), in order.
    pub resumed: Vec<Resumed>,
    /// `K/N` when the run took one shard of the corpus.
    pub shard: Option<String>,
    /// Puzzles in the whole corpus, before sharding.
    pub corpus_puzzles: usize,
    /// The ids this run was given (its shard), in corpus order, in runs ([`GivenIds`]).
    pub ids: Vec<GivenIds>,
    /// The summary of the whole results file.
    pub summary: Option<SummaryRecord>,
    /// The settings its rows were computed with, which `--resume` checks (`None` in files written
    /// before they were recorded).
    #[serde(default)]
    pub settings: Option<Settings>,
}

/// One run on a results file: when it started, and how (which command, host, threads and ranks).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sitting {
    /// When it started (RFC 3339, UTC).
    pub started: String,
    /// Its command line, one argument per item.
    pub command_line: Vec<String>,
    /// The host of its rank 0.
    pub host: String,
    /// Its worker threads (of each rank).
    pub threads: usize,
    /// Its processes (MPI ranks); 1 outside `mpirun`/`srun`.
    pub ranks: usize,
}

impl Sitting {
    /// A sitting starting now in this process, with `command_line` and `threads` worker threads.
    pub fn now(command_line: Vec<String>, threads: usize) -> Sitting {
        Sitting { started: timestamp(), command_line, host: host(), threads, ranks: crate::distributed::world().size() }
    }
}

/// A later sitting on a results file (a run with `--resume`), as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Resumed {
    /// The whole sitting (files written since sittings were kept).
    Sitting(Sitting),
    /// Its start time alone (files written before).
    Started(String),
}

/// Ids a run was given, as stored: one id (a whole-file puzzle's, and every id of a file written
/// before runs were kept), or a run of one file's lines in steps of one size, which is how a corpus
/// of one puzzle a line lists them (a shard `K/N` takes every N-th line):
/// `{"source": "db.txt", "lines": [1, 476118]}`, with `"step": 4` for every fourth line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum GivenIds {
    /// One id.
    One(String),
    /// Lines `lines[0]`, `lines[0] + step`, … up to `lines[1]` of `source` (ids `source:line`).
    Lines {
        /// The file.
        source: String,
        /// The first and the last line.
        lines: [u64; 2],
        /// The distance between two lines (1 when absent).
        #[serde(default = "one_step", skip_serializing_if = "is_one_step")]
        step: u64,
    },
}

/// The step of a run written without one.
fn one_step() -> u64 {
    1
}

/// Whether a run's step is the one left out when written.
fn is_one_step(step: &u64) -> bool {
    *step == 1
}

impl GivenIds {
    /// The ids of `ids` (source, and line if any) in order, in as few runs as the order allows.
    pub fn runs<'a>(ids: impl IntoIterator<Item = (&'a str, Option<u64>)>) -> Vec<GivenIds> {
        let mut runs: Vec<GivenIds> = Vec::new();
        for (source, line) in ids {
            let Some(line) = line else {
                runs.push(GivenIds::One(source.to_string()));
                continue;
            };
            if let Some(GivenIds::Lines { source: last_source, lines, step }) = runs.last_mut()
                && last_source == source
                && line > lines[1]
                && (lines[0] == lines[1] || line - lines[1] == *step)
            {
                (*step, lines[1]) = (line - lines[1], line);
                continue;
            }
            runs.push(GivenIds::Lines { source: source.to_string(), lines: [line, line], step: 1 });
        }
        runs
    }

    /// Its first id as [`super::corpus::id_order`] sorts it: the source, then the line (0 for none).
    pub fn first_id(&self) -> (&str, u64) {
        match self {
            GivenIds::One(id) => super::corpus::id_order(id),
            GivenIds::Lines { source, lines, .. } => (source, lines[0]),
        }
    }

    /// How many ids it holds; `None` when it is not a run of lines (a first line of 0, a last line
    /// before the first, a step of 0 or one that does not end on the last line).
    pub fn count(&self) -> Option<u64> {
        match *self {
            GivenIds::One(_) => Some(1),
            GivenIds::Lines { lines: [first, last], step, .. } => {
                let valid = first > 0 && first <= last && step > 0 && (last - first) % step == 0;
                valid.then(|| (last - first) / step + 1)
            }
        }
    }
}

/// `db.txt:7` (one id), `db.txt:5..1000` (lines 5 to 1000), `db.txt:5..1000 (step 4)`.
impl std::fmt::Display for GivenIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GivenIds::One(id) => write!(f, "{id}"),
            GivenIds::Lines { source, lines: [first, last], .. } if first == last => write!(f, "{source}:{first}"),
            GivenIds::Lines { source, lines: [first, last], step: 1 } => write!(f, "{source}:{first}..{last}"),
            GivenIds::Lines { source, lines: [first, last], step } => {
                write!(f, "{source}:{first}..{last} (step {step})")
            }
        }
    }
}

/// The settings that decide a batch's rows, by the flag that sets them (`"--metric": "unit"`; a
/// flag without a value maps to `""`, a flag not given is absent). Left out is what no row depends
/// on: threads, the visited-set backend, output and progress options, the pattern-database cache.
pub type Settings = BTreeMap<String, String>;

/// Why a run with the settings `now` cannot continue a results file computed with `recorded`:
/// the first flag, in name order, that the two give differently ([`first_difference`]); `None`
/// when they agree.
pub fn settings_differ(
    recorded: &Settings,
    now: &Settings,
    default_heuristic: impl FnOnce() -> Option<HeuristicKind>,
) -> Option<String> {
    first_difference(recorded, now, default_heuristic)
        .map(|(then, here)| format!("the run was started {then}, this one {here}"))
}

/// The first flag, in name order, that `a` and `b` give differently as far as the rows depend on
/// it (flags the algorithm does not read are not compared), as each gives it (`with --metric
/// unit`, `with --no-verify`, `without --metric`); `None` when they agree. `default_heuristic` is the heuristic the puzzles concerned
/// all take when none is given, if there is one; it is asked for only when one side gives a
/// `--heuristic` that its algorithm reads and the other does not.
pub fn first_difference(
    a: &Settings,
    b: &Settings,
    default_heuristic: impl FnOnce() -> Option<HeuristicKind>,
) -> Option<(String, String)> {
    let given = |flag: &str, value: Option<&String>| match value {
        None => format!("without {flag}"),
        Some(v) if v.is_empty() => format!("with {flag}"),
        Some(v) => format!("with {flag} {v}"),
    };
    let (mut in_a, mut in_b) = (effective(a, None), effective(b, None));
    if in_a.contains_key(HEURISTIC) != in_b.contains_key(HEURISTIC)
        && let Some(default) = default_heuristic().map(|h| h.to_string())
    {
        (in_a, in_b) = (effective(a, Some(&default)), effective(b, Some(&default)));
    }
    let flags: BTreeSet<&String> = in_a.keys().chain(in_b.keys()).collect();
    flags
        .into_iter()
        .find(|&flag| in_a.get(flag) != in_b.get(flag))
        .map(|flag| (given(flag, a.get(flag)), given(flag, b.get(flag))))
}

/// The flag that names the heuristic.
const HEURISTIC: &str = "--heuristic";

/// `settings` as the rows depend on them: without the flags its algorithm does not read
/// (`--depth` but for `--algo dfs`, `--heuristic` but for greedy, A* and IDA*, `--pdb-partition`
/// and `--no-reflect` but for `--heuristic pdb`), and with `--heuristic` at `default_heuristic`
/// when it is not given and there is one. Settings whose algorithm does not read are kept whole.
fn effective(settings: &Settings, default_heuristic: Option<&str>) -> Settings {
    let mut effective = settings.clone();
    let Some(algo) = settings.get("--algo").and_then(|a| a.parse::<Algo>().ok()) else { return effective };
    if algo != Algo::Dfs {
        effective.remove("--depth");
    }
    if !algo.is_informed() {
        effective.remove(HEURISTIC);
    } else if let Some(default) = default_heuristic {
        effective.entry(HEURISTIC.to_string()).or_insert_with(|| default.to_string());
    }
    if !effective.get(HEURISTIC).is_some_and(|h| h.parse::<HeuristicKind>() == Ok(HeuristicKind::Pdb)) {
        effective.remove("--pdb-partition");
        effective.remove("--no-reflect");
    }
    effective
}

/// The heuristic informed algorithms use by default ([`default_heuristic`]) on every puzzle of
/// `entries` that reads, if they all use one (`None`: they do not, or none reads). Every puzzle is
/// read for it: it is asked for only when a run's settings differ by a heuristic left out.
pub fn default_heuristic_of(entries: &[Entry]) -> Option<HeuristicKind> {
    let mut kinds = entries.iter().filter_map(|e| e.parse().ok()).map(|p| default_heuristic(&p.puzzle));
    let first = kinds.next()?;
    kinds.all(|kind| kind == first).then_some(first)
}

/// The rank count of metadata written before ranks were recorded.
fn one_rank() -> usize {
    1
}

/// The summary as stored in metadata (kept as plain JSON so old files stay readable).
pub type SummaryRecord = serde_json::Value;

impl Metadata {
    /// A record of a file whose first sitting, on this machine, is `first`.
    pub fn now(first: Sitting) -> Metadata {
        let Sitting { started, command_line, host, threads, ranks } = first;
        Metadata {
            slidesolve_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: env!("SLIDESOLVE_GIT_COMMIT").to_string(),
            rustc_version: env!("SLIDESOLVE_RUSTC_VERSION").to_string(),
            command_line,
            threads,
            ranks,
            cpu_model: cpu_model(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            ram_bytes: ram_bytes(),
            os: os(),
            host,
            started,
            finished: String::new(),
            resumed: Vec::new(),
            shard: None,
            corpus_puzzles: 0,
            ids: Vec::new(),
            summary: None,
            settings: None,
        }
    }

    /// Sets the end time and the summary.
    pub fn finish(&mut self, summary: &Summary) {
        self.finished = timestamp();
        self.summary = serde_json::to_value(summary).ok();
    }

    /// Reads a metadata file (streamed: the ids of a corpus of millions are tens of megabytes); an
    /// error names the file.
    pub fn read(path: &Path) -> io::Result<Metadata> {
        let named = |kind, e: &dyn std::fmt::Display| io::Error::new(kind, format!("{}: {e}", path.display()));
        let file = io::BufReader::new(std::fs::File::open(path).map_err(|e| named(e.kind(), &e))?);
        serde_json::from_reader(file).map_err(|e| named(io::ErrorKind::InvalidData, &e))
    }

    /// Writes it (complete or not at all: [`crate::format::write_whole`]), streamed like
    /// [`Metadata::read`]; the error names the file.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        crate::format::write_whole(path, |out| {
            serde_json::to_writer_pretty(&mut *out, self).map_err(io::Error::other)?;
            out.write_all(b"\n")
        })
    }
}

/// The metadata path for a results CSV: the CSV's name with `.json` appended.
pub fn path_for(csv: &Path) -> PathBuf {
    let mut name = csv.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

/// The current time, RFC 3339 in UTC to the second.
pub fn timestamp() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

fn ram_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

fn os() -> String {
    let name = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("PRETTY_NAME=")).map(|v| v.trim_matches('"').to_string()));
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok().map(|k| k.trim().to_string());
    match (name, kernel) {
        (Some(n), Some(k)) => format!("{n} (kernel {k})"),
        (Some(n), None) => n,
        (None, Some(k)) => format!("{} (kernel {k})", std::env::consts::OS),
        (None, None) => std::env::consts::OS.to_string(),
    }
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_ids_are_kept_in_runs_and_old_lists_still_read() {
        let ids = [("a.txt", Some(1)), ("a.txt", Some(2)), ("a.txt", Some(3)), ("b.grid", None)];
        let steps = [("c.txt", Some(2)), ("c.txt", Some(6)), ("c.txt", Some(10)), ("c.txt", Some(12))];
        let runs = GivenIds::runs(ids.into_iter().chain(steps));
        let json = serde_json::to_string(&runs).unwrap();
        assert_eq!(
            json,
            r#"[{"source":"a.txt","lines":[1,3]},"b.grid",{"source":"c.txt","lines":[2,10],"step":4},{"source":"c.txt","lines":[12,12]}]"#
        );
        assert_eq!(serde_json::from_str::<Vec<GivenIds>>(&json).unwrap(), runs);
        let shown: Vec<String> = runs.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["a.txt:1..3", "b.grid", "c.txt:2..10 (step 4)", "c.txt:12"]);
        assert_eq!(runs.iter().map(GivenIds::count).collect::<Vec<_>>(), [Some(3), Some(1), Some(3), Some(1)]);
        // A file written before runs were kept lists every id.
        let old: Vec<GivenIds> = serde_json::from_str(r#"["a.txt:1", "a.txt:2"]"#).unwrap();
        assert_eq!(old, [GivenIds::One("a.txt:1".into()), GivenIds::One("a.txt:2".into())]);
        let bad = |json: &str| serde_json::from_str::<GivenIds>(json).unwrap().count();
        assert_eq!(bad(r#"{"source":"a","lines":[0,3]}"#), None);
        assert_eq!(bad(r#"{"source":"a","lines":[5,3]}"#), None);
        assert_eq!(bad(r#"{"source":"a","lines":[1,4],"step":2}"#), None);
        assert_eq!(bad(r#"{"source":"a","lines":[1,3],"step":0}"#), None);
        assert_eq!(bad(r#"{"source":"a","lines":[1,18446744073709551615]}"#), Some(u64::MAX));
    }

    #[test]
    fn settings_differ_names_the_first_flag_given_differently() {
        let settings = |pairs: &[(&str, &str)]| -> Settings {
            pairs.iter().map(|(f, v)| (f.to_string(), v.to_string())).collect()
        };
        let then = settings(&[("--algo", "bfs"), ("--metric", "straight")]);
        assert_eq!(settings_differ(&then, &then.clone(), || None), None);
        let differ = |now: &[(&str, &str)]| settings_differ(&then, &settings(now), || None).unwrap();
        assert_eq!(
            differ(&[("--algo", "bfs"), ("--metric", "unit")]),
            "the run was started with --metric straight, this one with --metric unit"
        );
        assert_eq!(
            differ(&[("--algo", "bfs")]),
            "the run was started with --metric straight, this one without --metric"
        );
        assert_eq!(
            differ(&[("--algo", "astar"), ("--metric", "straight"), ("--no-verify", "")]),
            "the run was started with --algo bfs, this one with --algo astar"
        );
        assert_eq!(
            differ(&[("--algo", "bfs"), ("--metric", "straight"), ("--no-verify", "")]),
            "the run was started without --no-verify, this one with --no-verify"
        );
    }

    #[test]
    fn a_heuristic_left_out_is_its_default_and_flags_the_algorithm_does_not_read_are_not_compared() {
        let settings = |pairs: &[(&str, &str)]| -> Settings {
            pairs.iter().map(|(f, v)| (f.to_string(), v.to_string())).collect()
        };
        let astar = settings(&[("--algo", "astar"), ("--pdb-partition", "default")]);
        let manhattan = settings(&[("--algo", "astar"), ("--heuristic", "manhattan"), ("--pdb-partition", "default")]);
        let refused = "the run was started without --heuristic, this one with --heuristic manhattan";
        // Left out, the heuristic is the one the puzzles take by default, when they all take one.
        assert_eq!(settings_differ(&astar, &manhattan, || Some(HeuristicKind::Manhattan)), None);
        assert_eq!(settings_differ(&manhattan, &astar, || Some(HeuristicKind::Manhattan)), None);
        assert_eq!(settings_differ(&astar, &manhattan, || Some(HeuristicKind::Zero)).unwrap(), refused);
        assert_eq!(settings_differ(&astar, &manhattan, || None).unwrap(), refused);
        // Asked for only when one side leaves it out.
        assert_eq!(settings_differ(&manhattan, &manhattan, || unreachable!()), None);
        assert_eq!(settings_differ(&astar, &astar, || unreachable!()), None);
        // BFS reads no heuristic and no pattern-database flag; A* reads those flags only for pdb.
        let bfs = settings(&[("--algo", "bfs"), ("--pdb-partition", "default")]);
        let bfs_pdb = settings(&[
            ("--algo", "bfs"),
            ("--heuristic", "pdb"),
            ("--no-reflect", ""),
            ("--pdb-partition", "6-6-3"),
            ("--depth", "7"),
        ]);
        assert_eq!(settings_differ(&bfs, &bfs_pdb, || unreachable!()), None);
        let no_reflect = settings(&[("--algo", "astar"), ("--no-reflect", ""), ("--pdb-partition", "6-6-3")]);
        assert_eq!(settings_differ(&astar, &no_reflect, || unreachable!()), None);
        let pdb = |extra: &[(&str, &str)]| {
            settings(
                &[[("--algo", "astar"), ("--heuristic", "pdb"), ("--pdb-partition", "default")].as_slice(), extra]
                    .concat(),
            )
        };
        assert_eq!(
            settings_differ(&pdb(&[]), &pdb(&[("--no-reflect", "")]), || unreachable!()).unwrap(),
            "the run was started without --no-reflect, this one with --no-reflect"
        );
        let dfs = |depth: &str| settings(&[("--algo", "dfs"), ("--depth", depth)]);
        assert_eq!(
            settings_differ(&dfs("50"), &dfs("7"), || unreachable!()).unwrap(),
            "the run was started with --depth 50, this one with --depth 7"
        );
    }

    #[test]
    fn metadata_without_settings_still_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv.json");
        let mut json = serde_json::to_value(Metadata::now(Sitting::now(Vec::new(), 1))).unwrap();
        json.as_object_mut().unwrap().remove("settings");
        std::fs::write(&path, json.to_string()).unwrap();
        assert_eq!(Metadata::read(&path).unwrap().settings, None);
    }

    #[test]
    fn resumed_sittings_keep_their_setup_and_old_start_times_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv.json");
        let mut record = Metadata::now(Sitting::now(vec!["first".into()], 2));
        let later = Sitting { ranks: 3, ..Sitting::now(vec!["later".into()], 1) };
        record.resumed = vec![Resumed::Started("2026-01-01T00:00:00Z".into()), Resumed::Sitting(later.clone())];
        record.write(&path).unwrap();
        let read = Metadata::read(&path).unwrap();
        assert_eq!((read.threads, read.ranks, read.command_line), (2, 1, vec!["first".to_string()]));
        assert_eq!(read.resumed, record.resumed);
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(json["resumed"][0], "2026-01-01T00:00:00Z");
        assert_eq!((&json["resumed"][1]["ranks"], &json["resumed"][1]["threads"]), (&3.into(), &1.into()));
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        // The rename fails: the target is a directory.
        let path = dir.path().join("r.csv.json");
        std::fs::create_dir(&path).unwrap();
        assert!(Metadata::now(Sitting::now(Vec::new(), 1)).write(&path).is_err());
        assert!(!crate::format::temporary_for(&path).exists());
    }
}
