//! The files of a family run in a directory: `components.csv`, one row per component
//! (`component,class,size,goal_layouts,hardest_moves,hardest,representative`, numbered from 0 in
//! class order, layouts in [`super::one_line`] form, empty hardest fields when unsolvable),
//! `classes.csv`, one row per class
//! (`class,layouts,components,largest,solvable,hardest_moves,database_lines`), and `run.json`, the
//! settings the run started with ([`RunSettings`]).
//!
//! A class's component rows are written and flushed before its class row, so a class listed in
//! `classes.csv` is complete after a kill; resuming checks the settings against `run.json`, cuts
//! a row a kill left without its newline, keeps the listed classes and drops component rows of
//! any other. A power failure may leave the files cut at different places (the operating system
//! puts pages on disk in any order between [`Writer::sync`]s): resuming then keeps the listed
//! classes up to the first without all its component rows or database lines.

use super::spec::{self, FamilySpec};
use super::{ClassResult, ClassTotals, ComponentRow, FamilyError};
use crate::puzzle::{Board, Piece};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

const COMPONENTS_HEADER: [&str; 7] =
    ["component", "class", "size", "goal_layouts", "hardest_moves", "hardest", "representative"];
const CLASSES_HEADER: [&str; 7] =
    ["class", "layouts", "components", "largest", "solvable", "hardest_moves", "database_lines"];

/// What a run was started with, kept in `run.json`: a run resumes only with the same.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunSettings {
    /// The text of the family spec (compared as parsed: comments and spacing may differ).
    pub spec: String,
    /// Whether the database rule applies (`--db`).
    pub database: bool,
    /// Whether only the solvable components are analysed (`--solvable-only` or `--db`).
    pub solvable_only: bool,
    /// Whether `components.csv` is written (not `--no-components`).
    pub components: bool,
}

impl RunSettings {
    /// What differs between the settings `recorded` in `path` and these, if anything.
    fn mismatch(&self, recorded: &RunSettings, path: &Path) -> Option<String> {
        let flag = |on: bool| if on { "with" } else { "without" };
        match (spec::parse(&recorded.spec), spec::parse(&self.spec)) {
            (Err(e), _) => return Some(format!("{}: its spec does not parse: {e}", path.display())),
            (Ok(a), Ok(b)) if a == b => {}
            _ => return Some(format!("the run was started with another spec (the one in {})", path.display())),
        }
        if recorded.database != self.database {
            return Some(format!("the run was started {} --db", flag(recorded.database)));
        }
        if recorded.solvable_only != self.solvable_only {
            return Some(format!("the run was started {} --solvable-only", flag(recorded.solvable_only)));
        }
        (recorded.components != self.components)
            .then(|| format!("the run was started {} --no-components", flag(!recorded.components)))
    }
}

/// Writes the rows of finished classes.
pub struct Writer {
    /// `components.csv` (`None`: not written).
    components: Option<csv::Writer<File>>,
    classes: csv::Writer<File>,
    next_component: u64,
    /// The directory, for messages.
    dir: PathBuf,
}

fn bad_row(path: &Path, what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{}: {what}", path.display()))
}

fn cannot_resume(path: &Path, what: impl std::fmt::Display) -> FamilyError {
    FamilyError::Resume(format!("{}: {what}", path.display()))
}

/// The first `most` whole lines of `file`, read from its current position (fewer where it holds
/// fewer): how many, and their length in bytes. A last line without its newline (one a kill cut)
/// is not whole.
pub fn whole_lines(file: &File, most: u64) -> io::Result<(u64, u64)> {
    use std::io::BufRead;
    let mut reader = io::BufReader::new(file);
    let (mut lines, mut read, mut whole) = (0, 0u64, 0u64);
    while lines < most {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let take = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                lines += 1;
                whole = read + i as u64 + 1;
                i + 1
            }
            None => buf.len(),
        };
        read += take as u64;
        reader.consume(take);
    }
    Ok((lines, whole))
}

/// Cuts a last line that a killed run left without its newline.
fn cut_torn_tail(path: &Path) -> io::Result<()> {
    let file = std::fs::OpenOptions::new().read(true).write(true).open(path)?;
    let (_, whole) = whole_lines(&file, u64::MAX)?;
    if whole < file.metadata()?.len() {
        file.set_len(whole)?;
    }
    Ok(())
}

/// Reads the classes already finished in `dir` (none when `classes.csv` is absent or empty), each
/// with the line of its row.
fn finished(dir: &Path) -> Result<Vec<(u64, ClassTotals)>, FamilyError> {
    let path = dir.join("classes.csv");
    if !path.exists() {
        return Ok(Vec::new());
    }
    cut_torn_tail(&path)?;
    let bytes = crate::format::read_file(&path, None).map_err(|e| cannot_resume(&path, e))?;
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let mut reader = csv::Reader::from_reader(&bytes[..]);
    let header = reader.headers().map_err(|e| cannot_resume(&path, e))?;
    if header.iter().ne(CLASSES_HEADER) {
        let header = header.iter().collect::<Vec<_>>().join(",");
        return Err(cannot_resume(&path, format!("not a classes file of this build (its header is '{header}')")));
    }
    let mut done = Vec::new();
    for row in reader.records() {
        let row = row.map_err(|e| cannot_resume(&path, e))?;
        let line = row.position().map_or(0, |p| p.line());
        let bad = |i: usize| cannot_resume(&path, format!("line {line}: bad {}", CLASSES_HEADER[i]));
        let number = |i: usize| row.get(i).and_then(count).ok_or_else(|| bad(i));
        let optional = |i: usize| match row.get(i) {
            Some("") => Ok(None),
            f => f.and_then(count).map(Some).ok_or_else(|| bad(i)),
        };
        done.push((
            line,
            ClassTotals {
                class: row.get(0).unwrap_or_default().to_string(),
                layouts: number(1)?,
                components: number(2)?,
                largest: number(3)?,
                solvable: number(4)?,
                hardest_moves: optional(5)?.map(|d| u32::try_from(d).map_err(|_| bad(5))).transpose()?,
                database_lines: optional(6)?,
            },
        ));
    }
    Ok(done)
}

/// A count as the files write it: decimal digits only (no sign, no spaces) of a number that fits
/// in `T`.
pub(crate) fn count<T: std::str::FromStr>(text: &str) -> Option<T> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok()).flatten()
}

/// Checks that every finished class (with the line of its row in `path`) is a class of `spec`.
fn check_classes(path: &Path, spec: &FamilySpec, done: &[(u64, ClassTotals)]) -> Result<(), FamilyError> {
    let read = super::class_reader(spec);
    match done.iter().find(|(_, t)| read(&t.class).is_none()) {
        Some((line, t)) => {
            Err(cannot_resume(path, format!("line {line}: '{}' is not a class of this family", t.class)))
        }
        None => Ok(()),
    }
}

/// Checks one row of `components.csv` of a class with `pieces` on `board`: its counts are
/// numbers, it has a layout (and its goal layouts are no more than its layouts), its hardest
/// fields are both empty (no goal layout) or both given, and its layouts are layouts of the class.
fn check_component(row: &csv::StringRecord, board: &Board, pieces: &[Piece]) -> Result<(), String> {
    let field = |i: usize| row.get(i).unwrap_or_default();
    let bad = |i: usize| format!("bad {}: '{}'", COMPONENTS_HEADER[i], field(i));
    let number = |i: usize| count::<u64>(field(i)).ok_or_else(|| bad(i));
    number(0)?;
    let (size, goal_layouts) = (number(2)?, number(3)?);
    if size == 0 || goal_layouts > size {
        return Err(format!("{} goal layouts in a component of {size} layouts", goal_layouts));
    }
    let moves = match field(4) {
        "" => None,
        f => Some(count::<u32>(f).ok_or_else(|| bad(4))?),
    };
    if moves.is_some() != (goal_layouts > 0) || moves.is_some() == field(5).is_empty() {
        return Err(format!(
            "goal_layouts {goal_layouts}, hardest_moves '{}' and hardest '{}' disagree",
            field(4),
            field(5)
        ));
    }
    for i in [5, 6].into_iter().filter(|&i| i == 6 || moves.is_some()) {
        super::read_layout(board, pieces, field(i)).map_err(|why| format!("bad {}: {why}", COMPONENTS_HEADER[i]))?;
    }
    Ok(())
}

/// The settings recorded in `dir/run.json`; an error when the file is missing or does not read.
fn recorded_settings(dir: &Path) -> Result<RunSettings, FamilyError> {
    let path = dir.join("run.json");
    if !path.exists() {
        let why = "missing, so the settings of the classes in classes.csv are unknown \
                   (a run of a build before run.json was kept); resume into a new directory";
        return Err(cannot_resume(&path, why));
    }
    let bytes = crate::format::read_file(&path, None).map_err(|e| cannot_resume(&path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| cannot_resume(&path, e))
}

/// Checks `settings` against the ones `recorded` in `dir`, for a run that resumes there.
fn check_settings(dir: &Path, recorded: &RunSettings, settings: &RunSettings) -> Result<(), FamilyError> {
    match settings.mismatch(recorded, &dir.join("run.json")) {
        Some(why) => Err(FamilyError::Resume(format!("{}: {why}", dir.display()))),
        None => Ok(()),
    }
}

/// Keeps the component rows of `done` classes of `spec` in `path` and returns how many each has;
/// a file that is not a components file, or a row kept that does not read ([`check_component`]),
/// is a [`FamilyError::Resume`].
fn keep_components<'a>(
    path: &Path,
    spec: &FamilySpec,
    done: &HashSet<&'a str>,
) -> Result<HashMap<&'a str, u64>, FamilyError> {
    let mut kept = HashMap::new();
    if !path.exists() {
        return Ok(kept);
    }
    cut_torn_tail(path)?;
    let kept_path: PathBuf = path.with_extension("csv.partial");
    let mut reader = csv::Reader::from_path(path).map_err(|e| cannot_resume(path, e))?;
    let header = reader.headers().map_err(|e| cannot_resume(path, e))?;
    if !header.is_empty() && header.iter().ne(COMPONENTS_HEADER) {
        let header = header.iter().collect::<Vec<_>>().join(",");
        return Err(cannot_resume(path, format!("not a components file of this build (its header is '{header}')")));
    }
    let mut writer = csv::Writer::from_path(&kept_path).map_err(io::Error::from)?;
    let read = super::class_reader(spec);
    // The pieces of the class of the rows last read (a class's rows are written together).
    let mut pieces: Option<(&str, Vec<Piece>)> = None;
    let mut copy = || -> Result<(), FamilyError> {
        writer.write_record(COMPONENTS_HEADER).map_err(io::Error::from)?;
        for row in reader.records() {
            let row = row.map_err(|e| cannot_resume(path, e))?;
            if let Some(&class) = row.get(1).and_then(|c| done.get(c)) {
                let line = row.position().map_or(0, |p| p.line());
                let bad = |why: String| cannot_resume(path, format!("line {line}: {why}"));
                if pieces.as_ref().is_none_or(|&(of, _)| of != class) {
                    let of = read(class).ok_or_else(|| bad(format!("'{class}' is not a class of this family")))?;
                    pieces = Some((class, super::class_pieces(spec, &of).map_err(|e| bad(e.to_string()))?));
                }
                let (_, of) = pieces.as_ref().expect("set above");
                check_component(&row, &spec.board, of).map_err(bad)?;
                writer.write_record(&row).map_err(io::Error::from)?;
                *kept.entry(class).or_insert(0) += 1;
            }
        }
        Ok(writer.flush()?)
    };
    // A file that does not read is left as it is, and the copy of its rows so far goes.
    if let Err(e) = copy() {
        drop(writer);
        let _ = std::fs::remove_file(&kept_path);
        return Err(e);
    }
    drop(writer);
    std::fs::rename(&kept_path, path)?;
    Ok(kept)
}

/// How many of the `done` classes, from the first, have all their component rows (`rows`, when
/// the run writes them) and database lines (within `database_lines`, when it writes those): after
/// a kill, all of them; after a power failure, the files may have been cut at different places.
fn whole_prefix(done: &[ClassTotals], rows: Option<&HashMap<&str, u64>>, database_lines: Option<u64>) -> usize {
    let mut lines = 0u64;
    done.iter()
        .take_while(|t| {
            lines = lines.saturating_add(t.database_lines.unwrap_or(0));
            rows.is_none_or(|rows| rows.get(t.class.as_str()).copied().unwrap_or(0) == t.components)
                && database_lines.is_none_or(|most| lines <= most)
        })
        .count()
}

/// Puts `file`'s data on disk; a file that cannot be (a pipe, `/dev/null`: `EINVAL`) has nothing to
/// put there, and is not an error.
pub fn sync_data(file: &std::fs::File) -> io::Result<()> {
    match file.sync_data() {
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => Ok(()),
        result => result,
    }
}

/// `e` with `path` named in front of its message.
pub fn naming(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Cuts `path` after its first `lines` lines.
fn keep_lines(path: &Path, lines: u64) -> io::Result<()> {
    let file = std::fs::OpenOptions::new().read(true).write(true).open(path)?;
    let (_, bytes) = whole_lines(&file, lines)?;
    file.set_len(bytes)?;
    file.sync_all()
}

/// One row of `components.csv` read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentRecord {
    /// The component's number.
    pub component: u64,
    /// Its class's [`super::Class::describe`] text.
    pub class: String,
    /// The component.
    pub row: ComponentRow,
}

/// Reads `components.csv` in `dir` into `each`, row by row; an error names the file and the line.
pub fn read_components(dir: &Path, mut each: impl FnMut(ComponentRecord)) -> io::Result<()> {
    let path = dir.join("components.csv");
    let mut reader = csv::Reader::from_path(&path).map_err(|e| bad_row(&path, &e.to_string()))?;
    let header = reader.headers().map_err(|e| bad_row(&path, &e.to_string()))?;
    if header.iter().ne(COMPONENTS_HEADER) {
        let header = header.iter().collect::<Vec<_>>().join(",");
        return Err(bad_row(&path, &format!("not a components file (its header is '{header}')")));
    }
    for row in reader.records() {
        let row = row.map_err(|e| bad_row(&path, &e.to_string()))?;
        let line = row.position().map_or(0, |p| p.line());
        let bad = |what: &str| bad_row(&path, &format!("line {line}: {what}"));
        let field = |i: usize| row.get(i).ok_or_else(|| bad("short row"));
        let number = |i: usize| field(i)?.parse::<u64>().map_err(|_| bad(&format!("bad {}", COMPONENTS_HEADER[i])));
        let hardest_moves = match field(4)? {
            "" => None,
            f => Some(f.parse::<u32>().map_err(|_| bad("bad hardest_moves"))?),
        };
        let hardest = Some(field(5)?).filter(|f| !f.is_empty()).map(String::from);
        each(ComponentRecord {
            component: number(0)?,
            class: field(1)?.to_string(),
            row: ComponentRow {
                size: number(2)?,
                goal_layouts: number(3)?,
                hardest_moves,
                hardest,
                representative: field(6)?.to_string(),
            },
        });
    }
    Ok(())
}

/// The classes a resumed run found finished, as [`Writer::open`] read them.
#[derive(Debug)]
pub struct Finished {
    /// The classes finished with all their rows and lines, in the order they were finished.
    pub classes: Vec<ClassTotals>,
    /// The classes after those that `classes.csv` lists without all their component rows or
    /// database lines (a power failure cut the files at different places): they run again.
    pub dropped: usize,
}

impl Writer {
    /// Opens the files in `dir` (created if missing) for a run with `settings`; with `resume`,
    /// returns the classes already finished there (after checking that the run was started with
    /// the same settings, whenever `run.json` records them) and appends after them, else starts
    /// the files afresh. `database_lines` is how many whole lines the run's database file holds
    /// (with `--db` and `resume`): a class whose lines are not all there, or whose component rows
    /// are not, is not finished, and neither is any after it.
    pub fn open(
        dir: &Path,
        resume: bool,
        settings: &RunSettings,
        database_lines: Option<u64>,
    ) -> Result<(Writer, Finished), FamilyError> {
        std::fs::create_dir_all(dir)?;
        let done = if resume { finished(dir)? } else { Vec::new() };
        // A resumed run keeps to the settings `run.json` records, finished classes or not; one
        // that lacks it (or whose file does not read) starts it only when no class is finished.
        match resume.then(|| recorded_settings(dir)) {
            Some(Ok(recorded)) => check_settings(dir, &recorded, settings)?,
            Some(Err(e)) if !done.is_empty() => return Err(e),
            _ => {
                if !resume {
                    // Starting over, the old results go before the new settings are recorded: a
                    // kill between the two must not leave old rows under settings that --resume
                    // would take for theirs.
                    for name in ["classes.csv", "components.csv"] {
                        match std::fs::remove_file(dir.join(name)) {
                            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e.into()),
                            _ => {}
                        }
                    }
                }
                let json = serde_json::to_string_pretty(settings).map_err(io::Error::other)? + "\n";
                crate::format::write_whole(&dir.join("run.json"), |out| out.write_all(json.as_bytes()))?;
            }
        }
        let classes_path = dir.join("classes.csv");
        // Resuming, the spec the run is made with: every class finished, and every row kept, is its.
        let spec = resume.then(|| spec::parse(&settings.spec)).transpose();
        let spec = spec.map_err(|e| FamilyError::Resume(format!("{}: its spec does not parse: {e}", dir.display())))?;
        if let Some(spec) = &spec {
            check_classes(&classes_path, spec, &done)?;
        }
        let mut done: Vec<ClassTotals> = done.into_iter().map(|(_, t)| t).collect();
        if let Some(t) = done.iter().find(|t| t.database_lines.is_some() != settings.database) {
            let why =
                format!("class {} has {} database_lines", t.class, if settings.database { "no" } else { "a count of" });
            return Err(cannot_resume(&dir.join("classes.csv"), why));
        }
        let components_path = dir.join("components.csv");
        let names: HashSet<&str> = done.iter().map(|t| t.class.as_str()).collect();
        let rows = match (&spec, settings.components) {
            (Some(spec), true) => Some(keep_components(&components_path, spec, &names)?),
            _ => None,
        };
        let whole = whole_prefix(&done, rows.as_ref(), database_lines.filter(|_| settings.database));
        let dropped = done.len() - whole;
        if dropped > 0 {
            let kept: HashSet<&str> = done[..whole].iter().map(|t| t.class.as_str()).collect();
            if let (Some(spec), true) = (&spec, settings.components) {
                keep_components(&components_path, spec, &kept)?;
            }
            keep_lines(&classes_path, 1 + whole as u64)?;
        }
        done.truncate(whole);
        let next_component: u64 = done.iter().map(|t| t.components).sum();
        let open = |path: &Path, header: &[&str], append: bool| -> Result<csv::Writer<File>, FamilyError> {
            let append = append && path.exists();
            let file =
                std::fs::OpenOptions::new().create(true).write(true).append(append).truncate(!append).open(path)?;
            let mut writer = csv::Writer::from_writer(file);
            if !append {
                writer.write_record(header).map_err(io::Error::from)?;
                writer.flush()?;
            }
            Ok(writer)
        };
        let components = if settings.components {
            Some(open(&components_path, &COMPONENTS_HEADER, resume)?)
        } else {
            // A file of an earlier run in this directory would read as this run's.
            if done.is_empty() && components_path.exists() {
                std::fs::remove_file(&components_path)?;
            }
            None
        };
        let writer = Writer {
            components,
            classes: open(&classes_path, &CLASSES_HEADER, resume && !done.is_empty())?,
            next_component,
            dir: dir.to_path_buf(),
        };
        Ok((writer, Finished { classes: done, dropped }))
    }

    /// Writes and flushes one finished class (to the operating system: a kill loses nothing
    /// written): its components, then its class row. [`Writer::sync`] puts them on disk.
    pub fn write(&mut self, result: &ClassResult) -> io::Result<()> {
        let Writer { components, classes, next_component, dir } = self;
        if let Some(rows) = components {
            let mut write = || -> io::Result<()> {
                for c in &result.components {
                    let moves = c.hardest_moves.map(|d| d.to_string()).unwrap_or_default();
                    rows.write_record([
                        next_component.to_string().as_str(),
                        &result.class,
                        &c.size.to_string(),
                        &c.goal_layouts.to_string(),
                        &moves,
                        c.hardest.as_deref().unwrap_or(""),
                        &c.representative,
                    ])?;
                    *next_component += 1;
                }
                rows.flush()
            };
            write().map_err(|e| naming(&dir.join("components.csv"), e))?;
        }
        let t = result.totals();
        let mut write = || -> io::Result<()> {
            classes.write_record([
                t.class.as_str(),
                &t.layouts.to_string(),
                &t.components.to_string(),
                &t.largest.to_string(),
                &t.solvable.to_string(),
                &t.hardest_moves.map(|d| d.to_string()).unwrap_or_default(),
                &t.database_lines.map(|n| n.to_string()).unwrap_or_default(),
            ])?;
            classes.flush()
        };
        write().map_err(|e| naming(&dir.join("classes.csv"), e))
    }

    /// Puts the rows written so far on disk: the component rows first, then the class rows.
    pub fn sync(&self) -> io::Result<()> {
        if let Some(rows) = &self.components {
            sync_data(rows.get_ref()).map_err(|e| naming(&self.dir.join("components.csv"), e))?;
        }
        sync_data(self.classes.get_ref()).map_err(|e| naming(&self.dir.join("classes.csv"), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn result(class: &str, sizes: &[u64]) -> ClassResult {
        result_at(class, sizes, "A.", ".A")
    }

    /// A class result whose components' hardest and first layouts are `hardest` and `first`.
    fn result_at(class: &str, sizes: &[u64], hardest: &str, first: &str) -> ClassResult {
        let components = sizes
            .iter()
            .map(|&size| ComponentRow {
                size,
                goal_layouts: 1,
                hardest_moves: Some(size as u32 - 1),
                hardest: Some(hardest.into()),
                representative: first.into(),
            })
            .collect();
        ClassResult { class: class.into(), layouts: sizes.iter().sum(), components, peak_bytes: 0, database: None }
    }

    const SPEC: &str = "goal: A at 0,0\nkind: A 1x1 b 1\nboard:\n..\n";

    fn settings() -> RunSettings {
        RunSettings { spec: SPEC.into(), database: false, solvable_only: false, components: true }
    }

    #[test]
    fn starting_over_drops_the_old_results_before_recording_the_new_settings() {
        // A run with other settings finished a class here.
        let dir = tempfile::tempdir().unwrap();
        let old = RunSettings { spec: SPEC.replace("1x1 b", "1x1 h"), ..settings() };
        let (mut w, _) = Writer::open(dir.path(), false, &old, None).unwrap();
        w.write(&result("A=1 empty=1", &[2, 3])).unwrap();
        drop(w);
        // Starting over is stopped where it records its settings (run.json cannot be replaced):
        // the old rows are gone already, so no --resume can take them for the new run's.
        std::fs::remove_file(dir.path().join("run.json")).unwrap();
        std::fs::create_dir(dir.path().join("run.json")).unwrap();
        std::fs::write(dir.path().join("run.json").join("keep"), "").unwrap();
        assert!(Writer::open(dir.path(), false, &settings(), None).is_err());
        for name in ["classes.csv", "components.csv"] {
            assert!(!dir.path().join(name).exists(), "{name}");
        }
    }

    #[test]
    fn resuming_keeps_finished_classes_and_drops_partial_rows() {
        let dir = tempfile::tempdir().unwrap();
        let (mut w, Finished { classes: done, .. }) = Writer::open(dir.path(), true, &settings(), None).unwrap();
        assert!(done.is_empty());
        w.write(&result("A=1 empty=1", &[2, 3])).unwrap();
        drop(w);
        // A killed run: component rows of a class whose class row never came.
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join("components.csv")).unwrap();
        f.write_all(b"2,A=2 empty=0,1,1,0,AA,AA\n").unwrap();
        let (mut w, Finished { classes: done, .. }) = Writer::open(dir.path(), true, &settings(), None).unwrap();
        assert_eq!(
            done,
            vec![ClassTotals {
                class: "A=1 empty=1".into(),
                layouts: 5,
                components: 2,
                largest: 3,
                solvable: 2,
                hardest_moves: Some(2),
                database_lines: None,
            }]
        );
        w.write(&result("A=2 empty=0", &[1])).unwrap();
        drop(w);
        let components = std::fs::read_to_string(dir.path().join("components.csv")).unwrap();
        assert_eq!(
            components,
            "component,class,size,goal_layouts,hardest_moves,hardest,representative\n\
             0,A=1 empty=1,2,1,1,A.,.A\n1,A=1 empty=1,3,1,2,A.,.A\n2,A=2 empty=0,1,1,0,A.,.A\n"
        );
        let classes = std::fs::read_to_string(dir.path().join("classes.csv")).unwrap();
        assert_eq!(
            classes,
            "class,layouts,components,largest,solvable,hardest_moves,database_lines\n\
             A=1 empty=1,5,2,3,2,2,\nA=2 empty=0,1,1,1,1,0,\n"
        );
    }

    /// A directory whose first class is finished, run with `settings`.
    fn one_class(settings: &RunSettings) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let (mut w, _) = Writer::open(dir.path(), false, settings, None).unwrap();
        let mut first = result("A=1 empty=1", &[2]);
        first.database = settings.database.then(|| vec!["1 A. 2".into()]);
        w.write(&first).unwrap();
        dir
    }

    fn resume_error(dir: &Path, settings: &RunSettings) -> String {
        match Writer::open(dir, true, settings, Some(u64::MAX)) {
            Err(FamilyError::Resume(why)) => why,
            Err(e) => panic!("not a resume error: {e}"),
            Ok(_) => panic!("resumed"),
        }
    }

    #[test]
    fn a_run_resumes_only_with_the_settings_it_started_with() {
        let dir = one_class(&settings());
        // Comments and spacing are not settings.
        let respelled = RunSettings { spec: format!("; a comment\n{}", SPEC.replace(": ", ":  ")), ..settings() };
        assert_eq!(Writer::open(dir.path(), true, &respelled, None).unwrap().1.classes.len(), 1);
        let other = RunSettings { spec: SPEC.replace("1x1 b", "1x1 h"), ..settings() };
        let run = dir.path().join("run.json");
        let want =
            format!("{}: the run was started with another spec (the one in {})", dir.path().display(), run.display());
        assert_eq!(resume_error(dir.path(), &other), want);
        let db = RunSettings { database: true, solvable_only: true, ..settings() };
        assert!(resume_error(dir.path(), &db).ends_with(": the run was started without --db"));
        let solvable = RunSettings { solvable_only: true, ..settings() };
        assert!(resume_error(dir.path(), &solvable).ends_with(": the run was started without --solvable-only"));
        let rows = RunSettings { components: false, ..settings() };
        assert!(resume_error(dir.path(), &rows).ends_with(": the run was started without --no-components"));
        let dir = one_class(&db);
        assert!(resume_error(dir.path(), &settings()).ends_with(": the run was started with --db"));
        let (_, done) = Writer::open(dir.path(), true, &db, Some(1)).unwrap();
        assert_eq!(done.classes[0].database_lines, Some(1));
        std::fs::remove_file(dir.path().join("run.json")).unwrap();
        assert!(resume_error(dir.path(), &db).contains("run.json: missing, so the settings"));
    }

    #[test]
    fn a_class_row_cut_by_a_kill_is_not_finished() {
        let dir = one_class(&settings());
        let classes = dir.path().join("classes.csv");
        let mut f = std::fs::OpenOptions::new().append(true).open(&classes).unwrap();
        f.write_all(b"A=2 empty=0,1,1").unwrap();
        let (_, done) = Writer::open(dir.path(), true, &settings(), None).unwrap();
        assert_eq!(done.classes.iter().map(|t| t.class.as_str()).collect::<Vec<_>>(), ["A=1 empty=1"]);
        let text = std::fs::read_to_string(&classes).unwrap();
        assert!(text.ends_with("A=1 empty=1,2,1,2,1,1,\n"), "{text}");
        // A row that does not parse names its line.
        std::fs::write(
            &classes,
            "class,layouts,components,largest,solvable,hardest_moves,database_lines\nA,x,1,1,1,,\n",
        )
        .unwrap();
        assert_eq!(resume_error(dir.path(), &settings()), format!("{}: line 2: bad layouts", classes.display()));
    }

    #[test]
    fn after_a_power_failure_a_resume_keeps_the_classes_up_to_the_first_cut_one() {
        let spec = "goal: A at 0,0\nkind: A 1x1 b 1\nkind: B 1x1 b 0..\nboard:\n...\n".to_string();
        let db = RunSettings { spec, database: true, solvable_only: true, ..settings() };
        let dir = tempfile::tempdir().unwrap();
        let (mut w, _) = Writer::open(dir.path(), false, &db, None).unwrap();
        let made =
            [("A=1 empty=2", &[2][..], "A.."), ("A=1 B=1 empty=1", &[1, 1], "AB."), ("A=1 B=2 empty=0", &[3], "ABC")];
        let result = |i: usize| {
            let (class, sizes, layout) = made[i];
            result_at(class, sizes, layout, layout)
        };
        for (i, (_, sizes, _)) in made.iter().enumerate() {
            let mut r = result(i);
            r.database = Some(vec!["1 A. 2".into(); sizes.len()]);
            w.write(&r).unwrap();
        }
        drop(w);
        let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
        let (components, classes) = (read("components.csv"), read("classes.csv"));
        let (rows, lines): (Vec<&str>, Vec<&str>) = (components.lines().collect(), classes.lines().collect());
        // Every row and line on disk: the three classes.
        let (_, done) = Writer::open(dir.path(), true, &db, Some(4)).unwrap();
        assert_eq!((done.classes.len(), done.dropped), (3, 0));
        // The database file holds 2 of its 4 lines: the classes from the second on run again.
        let (_, done) = Writer::open(dir.path(), true, &db, Some(2)).unwrap();
        assert_eq!((done.classes.len(), done.dropped), (1, 2));
        assert_eq!(read("classes.csv"), format!("{}\n{}\n", lines[0], lines[1]));
        assert_eq!(read("components.csv"), format!("{}\n{}\n", rows[0], rows[1]));
        // components.csv lost the second class's last row: the first class is kept, the second
        // and (though its rows are there) the third run again.
        std::fs::write(dir.path().join("classes.csv"), &classes).unwrap();
        let cut: String = rows.iter().enumerate().filter(|&(i, _)| i != 3).map(|(_, r)| format!("{r}\n")).collect();
        std::fs::write(dir.path().join("components.csv"), cut).unwrap();
        let (mut w, done) = Writer::open(dir.path(), true, &db, Some(4)).unwrap();
        assert_eq!((done.classes.len(), done.dropped), (1, 2));
        let mut r = result(1);
        r.database = Some(vec!["1 A. 2".into(); 2]);
        w.write(&r).unwrap();
        drop(w);
        assert_eq!(read("classes.csv"), lines[..3].iter().map(|l| format!("{l}\n")).collect::<String>());
        assert_eq!(read("components.csv"), rows[..4].iter().map(|l| format!("{l}\n")).collect::<String>());
    }

    #[test]
    fn a_resume_refuses_a_class_of_another_family_and_a_component_row_that_does_not_read() {
        let dir = one_class(&settings());
        let (classes, components) = (dir.path().join("classes.csv"), dir.path().join("components.csv"));
        let (class_rows, rows) =
            (std::fs::read_to_string(&classes).unwrap(), std::fs::read_to_string(&components).unwrap());
        std::fs::write(&classes, class_rows.replace("A=1 empty=1", "A=1 empty=0")).unwrap();
        let want = format!("{}: line 2: 'A=1 empty=0' is not a class of this family", classes.display());
        assert_eq!(resume_error(dir.path(), &settings()), want);
        std::fs::write(&classes, &class_rows).unwrap();
        let row = "0,A=1 empty=1,2,1,1,A.,.A";
        assert!(rows.ends_with(&format!("\n{row}\n")), "{rows}");
        for (bad, why) in [
            ("x,A=1 empty=1,2,1,1,A.,.A", "bad component: 'x'"),
            ("0,A=1 empty=1,-2,1,1,A.,.A", "bad size: '-2'"),
            ("0,A=1 empty=1,2,+1,1,A.,.A", "bad goal_layouts: '+1'"),
            ("0,A=1 empty=1,2,1,99999999999,A.,.A", "bad hardest_moves: '99999999999'"),
            ("0,A=1 empty=1,2,3,1,A.,.A", "3 goal layouts in a component of 2 layouts"),
            ("0,A=1 empty=1,2,1,,A.,.A", "goal_layouts 1, hardest_moves '' and hardest 'A.' disagree"),
            ("0,A=1 empty=1,2,1,1,A.,xyz", "bad representative: 'xyz' is not a layout of 1 rows of 2 cells"),
            ("0,A=1 empty=1,2,1,1,AA,.A", "bad hardest: piece A does not cover its shape"),
        ] {
            std::fs::write(&components, rows.replace(row, bad)).unwrap();
            assert_eq!(resume_error(dir.path(), &settings()), format!("{}: line 2: {why}", components.display()));
        }
    }

    #[test]
    fn a_components_file_that_does_not_read_stops_a_resume_on_its_line() {
        let dir = one_class(&settings());
        let components = dir.path().join("components.csv");
        let text = std::fs::read_to_string(&components).unwrap();
        std::fs::write(&components, format!("{text}garbage\n")).unwrap();
        let why = resume_error(dir.path(), &settings());
        let want = format!("{}: CSV error: record 2 (line: 3, byte: ", components.display());
        assert!(
            why.starts_with(&want) && why.ends_with("found record with 1 fields, but the previous record has 7 fields"),
            "{why}"
        );
        std::fs::write(&components, "id,moves\n").unwrap();
        let want = format!("{}: not a components file of this build (its header is 'id,moves')", components.display());
        assert_eq!(resume_error(dir.path(), &settings()), want);
    }
}
