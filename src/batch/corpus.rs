//! Reading a corpus: inputs (files, directories walked recursively, glob patterns) into puzzles with
//! stable ids, and the `--shard K/N` selection.

use super::panic_message;
use crate::format::{self, Format, ParseOptions, Parsed, Unparsed};
use crate::puzzle::Metric;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::num::NonZeroUsize;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

/// File extensions read when walking a directory (a file named directly is always read).
pub const PUZZLE_EXTENSIONS: &[&str] = &["grid", "data", "tiles", "rush", "txt"];

/// One puzzle of a corpus, read but not parsed: a corpus of millions of puzzles holds its text,
/// not its model, until each is solved, and the name of its file once.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The file it came from, shared by the file's entries.
    pub source: Arc<str>,
    /// Its line in a multi-puzzle file (`None`: the puzzle is the whole file).
    pub line: Option<NonZeroUsize>,
    /// The puzzle's text, or the message that says why it could not be read.
    text: Result<Unparsed, String>,
    /// The run's `--metric` and `--distinct`, applied to the parsed puzzle.
    overrides: (Option<Metric>, bool),
}

impl Entry {
    /// An entry named `id` that cannot be solved, for the reason `message` (its row's message).
    pub fn failed(id: &str, message: String) -> Entry {
        Entry { source: id.into(), line: None, text: Err(message), overrides: (None, false) }
    }

    /// Stable id: the file path, or `path:line` for one puzzle of a multi-puzzle file.
    pub fn id(&self) -> String {
        match self.line {
            Some(line) => format!("{}:{line}", self.source),
            None => self.source.to_string(),
        }
    }

    /// The puzzle, parsed now (it is not kept), or the message that says why it cannot be read
    /// (naming the file and line), a panic of the parser included.
    pub fn parse(&self) -> Result<Parsed, String> {
        let text = self.text.as_ref().map_err(Clone::clone)?;
        let parsed = catch_unwind(AssertUnwindSafe(|| text.parse())).map_err(|panic| {
            format!("{}: internal error (please report): reading it panicked: {}", self.source, panic_message(&*panic))
        })?;
        let (metric, distinct) = self.overrides;
        parsed
            .map(|mut p| {
                if let Some(m) = metric {
                    p.puzzle.metric = m;
                }
                if distinct {
                    p.puzzle.merge_identical = false;
                }
                p
            })
            .map_err(|e| {
                let warnings: String = e.warnings.iter().map(|w| format!("; {w}")).collect();
                format!("{}: {e}{warnings}", self.source)
            })
    }
}

/// How corpus files are read: overrides applied to every puzzle.
#[derive(Clone, Debug, Default)]
pub struct CorpusOptions {
    /// Force a format instead of detecting one per file.
    pub format: Option<Format>,
    /// Goal override (see [`ParseOptions`]).
    pub parse: ParseOptions,
    /// Metric override.
    pub metric: Option<Metric>,
    /// Keep identical pieces distinct.
    pub distinct: bool,
    /// The run's own output files (its results CSV, its summary): a directory walk or a pattern
    /// that finds one skips it, so results written inside the corpus are not read back as puzzles.
    pub outputs: Vec<PathBuf>,
}

/// An input that names nothing to read; the run does not start.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CorpusError {
    /// A path that does not exist and is not a glob pattern.
    #[error("{0}: no such file or directory")]
    Missing(String),
    /// A malformed glob pattern.
    #[error("'{0}' is not a valid glob pattern: {1}")]
    Pattern(String, String),
    /// A directory or pattern without any puzzle file.
    #[error("{0}: no puzzle files (looked for .{exts})", exts = PUZZLE_EXTENSIONS.join(", ."))]
    Empty(String),
}

/// A puzzle file the inputs name, and whether it is opened to be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusFile {
    /// Its path, as given or as found.
    pub path: PathBuf,
    /// Found by a directory walk or a glob pattern and not a regular file (a FIFO, socket or
    /// device, which may never end or block forever): it is an error row, never opened.
    pub not_regular: bool,
}

/// The puzzle files named by `inputs`, in order, each once: files as given, directories walked
/// recursively in name order (puzzle extensions only), glob patterns expanded in name order, both
/// skipping the files of `outputs`. Links are followed, but within one input a directory is read
/// under the first path that reaches it only, so a link loop ends.
pub fn files(inputs: &[String], outputs: &[PathBuf]) -> Result<Vec<CorpusFile>, CorpusError> {
    let outputs = Outputs::new(outputs);
    let mut out: Vec<CorpusFile> = Vec::new();
    // The paths already in `out`: a corpus of a million files is checked in linear time.
    let mut listed: HashSet<PathBuf> = HashSet::new();
    for input in inputs {
        let path = Path::new(input);
        let mut directories = Directories::default();
        // Anything that exists and is not a directory is read as a file: a FIFO or a device such
        // as /dev/stdin included.
        let found = if path.exists() && !path.is_dir() {
            vec![CorpusFile { path: path.to_path_buf(), not_regular: false }]
        } else {
            let found = if path.is_dir() {
                walk(path, &mut directories)
            } else if input.contains(['*', '?', '[']) {
                let paths = glob::glob(input).map_err(|e| CorpusError::Pattern(input.clone(), e.msg.to_string()))?;
                let mut found = Vec::new();
                for p in paths.flatten() {
                    if p.is_dir() {
                        found.extend(walk(&p, &mut directories));
                    } else if is_puzzle_file(&p) && directories.first_reached(p.parent().unwrap_or(Path::new(""))) {
                        found.push(found_file(p));
                    }
                }
                found
            } else {
                return Err(CorpusError::Missing(input.clone()));
            };
            found.into_iter().filter(|f| !outputs.holds(&f.path)).collect()
        };
        if found.is_empty() {
            return Err(CorpusError::Empty(input.clone()));
        }
        for file in found {
            if listed.insert(file.path.clone()) {
                out.push(file);
            }
        }
    }
    Ok(out)
}

fn is_puzzle_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| PUZZLE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// A run's output files, as a walk or a pattern may find them.
struct Outputs {
    /// Each output's file name and canonical path (outputs that do not exist yet cannot be found).
    files: Vec<(std::ffi::OsString, PathBuf)>,
}

impl Outputs {
    fn new(paths: &[PathBuf]) -> Self {
        let files = paths
            .iter()
            .filter_map(|p| Some((p.file_name()?.to_os_string(), std::fs::canonicalize(p).ok()?)))
            .collect();
        Outputs { files }
    }

    /// Whether `path` is one of the outputs: only a path with an output's file name is resolved,
    /// so a corpus of a million files costs no more system calls.
    fn holds(&self, path: &Path) -> bool {
        self.files.iter().any(|(name, canonical)| {
            path.file_name() == Some(name.as_os_str()) && std::fs::canonicalize(path).is_ok_and(|c| &c == canonical)
        })
    }
}

/// A puzzle file a walk or a pattern found; one whose type cannot be read (a dangling link, say)
/// counts as regular, so that reading it says what is wrong.
fn found_file(path: PathBuf) -> CorpusFile {
    let not_regular = std::fs::metadata(&path).is_ok_and(|m| !m.is_file());
    CorpusFile { path, not_regular }
}

/// The directories one input has reached: each canonical path with the path that reached it first.
#[derive(Default)]
struct Directories {
    first_path: HashMap<PathBuf, PathBuf>,
}

impl Directories {
    /// Whether `dir` is the first path to reach its directory (recorded now if nothing reached it
    /// before); a link back to a directory already reached, such as a loop, is not.
    fn first_reached(&mut self, dir: &Path) -> bool {
        let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        self.first_path.entry(canonical).or_insert_with(|| dir.to_path_buf()) == dir
    }
}

/// Puzzle files under `dir`, recursively, in name order, entering only directories that this path
/// reaches first.
fn walk(dir: &Path, directories: &mut Directories) -> Vec<CorpusFile> {
    let mut out = Vec::new();
    // Paths still to visit, the next one last.
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        if !path.is_dir() {
            if is_puzzle_file(&path) {
                out.push(found_file(path));
            }
            continue;
        }
        if !directories.first_reached(&path) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&path) else { continue };
        let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        children.sort_unstable_by(|a, b| b.cmp(a));
        pending.extend(children);
    }
    out
}

/// Every puzzle of the corpus, in corpus order; a file that cannot be read becomes an entry
/// carrying its error message, and so do a file whose reading panicked and a file that a walk or
/// pattern found and is not a regular file, so one bad file never ends a run (a puzzle that does
/// not parse says so, naming its file and line, when it is parsed).
pub fn load(inputs: &[String], options: &CorpusOptions) -> Result<Vec<Entry>, CorpusError> {
    let load_caught = |file: &CorpusFile| {
        let source = file.path.display().to_string();
        if file.not_regular {
            let message = format!("{source}: not a regular file, so it is not read (name it on its own to read it)");
            return vec![Entry::failed(&source, message)];
        }
        catch_unwind(AssertUnwindSafe(|| load_file(&file.path, options))).unwrap_or_else(|panic| {
            let message =
                format!("{source}: internal error (please report): reading it panicked: {}", panic_message(&*panic));
            vec![Entry::failed(&source, message)]
        })
    };
    Ok(files(inputs, &options.outputs)?.iter().flat_map(load_caught).collect())
}

/// The puzzles of one file, not parsed yet; a file without any is one entry saying so.
pub fn load_file(path: &Path, options: &CorpusOptions) -> Vec<Entry> {
    let source: Arc<str> = path.display().to_string().into();
    let overrides = (options.metric, options.distinct);
    let entry = |line: Option<NonZeroUsize>, text: Result<Unparsed, String>| Entry {
        source: source.clone(),
        line,
        text,
        overrides,
    };
    let bytes = match format::read_file(path, options.parse.max_memory) {
        Ok(b) => b,
        Err(e) => return vec![entry(None, Err(format!("{source}: cannot read: {e}")))],
    };
    let text = match format::decode_text(&bytes) {
        Ok(t) => t,
        Err(e) => return vec![entry(None, Err(format!("{source}: {e}")))],
    };
    let fmt = options.format.unwrap_or_else(|| format::detect(Some(path), text));
    match format::split_many(fmt, text, &options.parse) {
        Some(items) if items.is_empty() => vec![entry(None, Err(format!("{source}: no puzzles in it")))],
        Some(items) => items
            .into_iter()
            .map(|(line, item)| entry(NonZeroUsize::new(line), item.map_err(|e| format!("{source}: {e}"))))
            .collect(),
        None => vec![entry(None, Ok(Unparsed::whole(fmt, text, &options.parse)))],
    }
}

/// `--shard K/N`: the puzzles whose 1-based position in the corpus is K modulo N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1 to `count`.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// Whether the puzzle at 0-based `position` belongs to this shard.
    pub fn takes(&self, position: usize) -> bool {
        (position + 1) % self.count == self.index % self.count
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("'{s}': expected K/N with 1 <= K <= N, such as 2/8");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) =
            (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Sort key for ids: the source, then the line number as a number (`a:9` before `a:10`).
pub fn id_order(id: &str) -> (&str, u64) {
    match id.rsplit_once(':') {
        Some((source, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => {
            (source, line.parse().unwrap_or(u64::MAX))
        }
        _ => (id, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_corpus() {
        let shards: Vec<Shard> = (1..=3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for position in 0..10 {
            assert_eq!(shards.iter().filter(|s| s.takes(position)).count(), 1);
        }
        assert!(shards[0].takes(0) && shards[1].takes(1) && shards[2].takes(2) && shards[0].takes(3));
        assert!("0/3".parse::<Shard>().is_err() && "4/3".parse::<Shard>().is_err() && "x".parse::<Shard>().is_err());
    }

    #[test]
    fn a_file_of_many_puzzles_is_parsed_a_puzzle_at_a_time_with_the_run_overrides() {
        let dir = std::env::temp_dir().join(format!("slidesolve-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("three.tiles");
        std::fs::write(&path, "size: 2x2\ngoal: 1 2 3 0\n1 2 0 3 1\n1 2 3 9\n0 1 3 2\n").unwrap();
        let options = CorpusOptions { metric: Some(Metric::Free), distinct: true, ..CorpusOptions::default() };
        let entries = load_file(&path, &options);
        let source = path.display().to_string();
        let ids: Vec<String> = entries.iter().map(Entry::id).collect();
        assert_eq!(ids, [format!("{source}:3"), format!("{source}:4"), format!("{source}:5")]);
        let first = entries[0].parse().unwrap();
        assert_eq!((first.expected, first.puzzle.metric, first.puzzle.merge_identical), (Some(1), Metric::Free, false));
        assert_eq!(first.puzzle.start.len(), 3);
        let bad = entries[1].parse().unwrap_err();
        assert!(bad.starts_with(&format!("{source}: line 4: ")), "{bad}");
        assert!(entries[2].parse().is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ids_sort_by_source_then_line_number() {
        let mut ids = vec!["b.txt:10", "b.txt:9", "a.grid", "b.txt:1"];
        ids.sort_by_key(|id| id_order(id));
        assert_eq!(ids, ["a.grid", "b.txt:1", "b.txt:9", "b.txt:10"]);
    }
}
