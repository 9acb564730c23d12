//! The results CSV: one [`Row`] per puzzle, appended and flushed as each puzzle finishes, so a run
//! killed at any moment (even `kill -9`) loses at most the puzzles in flight.

use crate::solve::Status;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// The CSV columns, in order.
pub const COLUMNS: [&str; 19] = [
    "id",
    "source",
    "family",
    "rows",
    "cols",
    "pieces",
    "metric",
    "algo",
    "threads",
    "status",
    "moves",
    "expected",
    "nodes_expanded",
    "nodes_generated",
    "states_stored",
    "peak_bytes",
    "wall_s",
    "solution",
    "message",
];

/// The result of one puzzle: one CSV row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Stable id: the file, or `file:line` for one puzzle of a multi-puzzle file.
    pub id: String,
    /// The file the puzzle came from.
    pub source: String,
    /// Puzzle family: grid, cs351, tiles or rush (empty when the puzzle could not be read).
    pub family: String,
    /// Board rows.
    pub rows: Option<usize>,
    /// Board columns.
    pub cols: Option<usize>,
    /// Number of pieces (tiles, cars, blocks).
    pub pieces: Option<usize>,
    /// Move metric: unit, straight or free.
    pub metric: String,
    /// The algorithm.
    pub algo: String,
    /// Worker threads of the run.
    pub threads: usize,
    /// solved, unsolvable, timeout, limit or error.
    pub status: String,
    /// Solution length in moves of the metric (solved only).
    pub moves: Option<u64>,
    /// The known optimum, when the corpus gives one.
    pub expected: Option<u64>,
    /// States expanded by the search (their successors generated).
    pub nodes_expanded: u64,
    /// Successors generated (depth-first searches: after the undo-move check).
    pub nodes_generated: u64,
    /// Distinct states stored by the search.
    pub states_stored: u64,
    /// Peak bytes held by the search structures.
    pub peak_bytes: u64,
    /// Wall-clock seconds for this puzzle (search and verification).
    pub wall_s: f64,
    /// The solution as a compact move string that `slidesolve verify` accepts.
    pub solution: String,
    /// Why it is not solved, or the file's warnings.
    pub message: String,
}

impl Row {
    /// The row without what legitimately differs between runs: the measurements (wall time, peak
    /// bytes, which depends on per-thread buffers) and the thread count. Everything else, the
    /// solution and the node counts included, is the same for any thread count.
    pub fn outcome(&self) -> Row {
        Row { wall_s: 0.0, peak_bytes: 0, threads: 0, ..self.clone() }
    }
}

/// Writes `rows` under the header as the whole results CSV at `path`, complete or not at all
/// ([`crate::format::write_whole`]); the error names the file.
pub fn write_rows(path: &Path, rows: &[Row]) -> io::Result<()> {
    crate::format::write_whole(path, |out| {
        let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(out);
        writer.write_record(COLUMNS)?;
        for row in rows {
            writer.serialize(row)?;
        }
        writer.flush()
    })
}

/// Appends rows to a results CSV, flushing each one.
pub struct RowWriter {
    writer: csv::Writer<File>,
}

impl RowWriter {
    /// Creates `path` (truncating it) and writes the header.
    pub fn create(path: &Path) -> io::Result<Self> {
        let file = File::create(path)?;
        let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(file);
        writer.write_record(COLUMNS)?;
        writer.flush()?;
        Ok(RowWriter { writer })
    }

    /// Opens `path` to append after its existing rows, first cutting a torn last line (a row a
    /// killed run was writing); an empty or missing file gets the header.
    pub fn append(path: &Path) -> io::Result<Self> {
        let mut file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)?;
        if file.metadata()?.len() == 0 {
            drop(file);
            return Self::create(path);
        }
        let keep = whole_rows_in(&mut file)?;
        file.set_len(keep)?;
        file.seek(SeekFrom::End(0))?;
        let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(file);
        if keep == 0 {
            writer.write_record(COLUMNS)?;
            writer.flush()?;
        }
        Ok(RowWriter { writer })
    }

    /// Writes one row and flushes it to the file (a `write` system call per row: the row survives
    /// the process being killed).
    pub fn write(&mut self, row: &Row) -> io::Result<()> {
        self.writer.serialize(row)?;
        self.writer.flush()
    }
}

/// The length of the part of a results file that holds whole lines: a last line without its
/// newline is cut, however whole it may read, because a batch writes each row with its newline
/// in one write: a row a killed run was writing can be cut inside its last field (the message)
/// and still have every field, with the text of that field torn.
fn whole_rows(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

/// The length of the part of a results file that holds whole lines ([`whole_rows`]), found from
/// its tail: the last line is read, not the file.
fn whole_rows_in(file: &mut File) -> io::Result<u64> {
    let len = file.metadata()?.len();
    let mut tail = Vec::new();
    let mut back: u64 = 4096;
    loop {
        let from = len.saturating_sub(back);
        file.seek(SeekFrom::Start(from))?;
        tail.clear();
        Read::take(&mut *file, len - from).read_to_end(&mut tail)?;
        if from == 0 || tail.contains(&b'\n') {
            file.seek(SeekFrom::Start(0))?;
            return Ok(from + whole_rows(&tail) as u64);
        }
        back = back.saturating_mul(2);
    }
}

/// Calls `f` with every row of a results CSV in file order, reading a row at a time (a file of
/// millions of rows is never held whole), ignoring a torn last line, until `f` fails; a missing
/// file has no rows. A row whose status is not one a batch writes is an error. Every error names
/// the file.
pub fn for_each_row(path: &Path, f: impl FnMut(Row) -> io::Result<()>) -> io::Result<()> {
    each_row(path, f).map(drop)
}

/// [`for_each_row`], returning whether the file has the header line (a missing or empty file, or
/// one whose only line is torn, has none).
fn each_row(path: &Path, mut f: impl FnMut(Row) -> io::Result<()>) -> io::Result<bool> {
    let named = |e: &dyn std::fmt::Display| io::Error::other(format!("{}: {e}", path.display()));
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(named(&e)),
    };
    let keep = whole_rows_in(&mut file).map_err(|e| named(&e))?;
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(io::BufReader::new(file.take(keep)));
    let header: Vec<String> = reader.headers().map_err(|e| named(&e))?.iter().map(str::to_string).collect();
    if !header.is_empty() && header != COLUMNS {
        return Err(io::Error::other(format!(
            "{}: not a slidesolve results file (its header is '{}')",
            path.display(),
            header.join(",")
        )));
    }
    for (i, row) in reader.into_deserialize().enumerate() {
        let at = |why: &dyn std::fmt::Display| io::Error::other(format!("{}: row {}: {why}", path.display(), i + 2));
        let row: Row = row.map_err(|e| at(&e))?;
        if !Status::ALL.iter().any(|s| s.name() == row.status) {
            let names: Vec<&str> = Status::ALL.iter().map(|s| s.name()).collect();
            return Err(at(&format!("status '{}' is not one a batch writes ({})", row.status, names.join(", "))));
        }
        if !(row.wall_s.is_finite() && row.wall_s >= 0.0) {
            return Err(at(&format!("wall_s '{}' is not a number of seconds", row.wall_s)));
        }
        f(row).map_err(|e| named(&e))?;
    }
    Ok(!header.is_empty())
}

/// Reads the rows of a results CSV ([`for_each_row`]); memory the process cannot have for them is
/// an error (`out of memory`), not an abort.
pub fn read_rows(path: &Path) -> io::Result<Vec<Row>> {
    rows_and_header(path).map(|(rows, _)| rows)
}

/// Reads the rows of a file that must be a results file ([`read_rows`]): one without the header
/// line, which a batch writes before any row (an empty file), is an error naming it.
pub fn read_results(path: &Path) -> io::Result<Vec<Row>> {
    match rows_and_header(path)? {
        (rows, true) => Ok(rows),
        (_, false) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: not a slidesolve results file (it has no header line)", path.display()),
        )),
    }
}

/// The rows of a results CSV and whether it has the header line ([`each_row`]).
fn rows_and_header(path: &Path) -> io::Result<(Vec<Row>, bool)> {
    let mut rows = Vec::new();
    let header = each_row(path, |row| {
        rows.try_reserve(1)?;
        rows.push(row);
        Ok(())
    })?;
    Ok((rows, header))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn row(id: &str) -> Row {
        Row {
            id: id.into(),
            source: "s.txt".into(),
            family: "tiles".into(),
            rows: Some(3),
            cols: Some(3),
            pieces: Some(8),
            metric: "unit".into(),
            algo: "bfs".into(),
            threads: 2,
            status: "solved".into(),
            moves: Some(5),
            expected: None,
            nodes_expanded: 10,
            nodes_generated: 15,
            states_stored: 20,
            peak_bytes: 300,
            wall_s: 0.5,
            solution: "1:U 2:L".into(),
            message: "a, \"quoted\" text".into(),
        }
    }

    #[test]
    fn rows_round_trip_and_a_torn_line_is_cut_before_appending() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        let mut w = RowWriter::create(&path).unwrap();
        w.write(&row("a")).unwrap();
        drop(w);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"b,s.txt,til").unwrap();
        assert_eq!(read_rows(&path).unwrap(), vec![row("a")]);
        let mut w = RowWriter::append(&path).unwrap();
        w.write(&row("c")).unwrap();
        assert_eq!(read_rows(&path).unwrap(), vec![row("a"), row("c")]);
        assert!(std::fs::read_to_string(&path).unwrap().starts_with("id,source,family,rows,cols,pieces,metric,"));
    }

    /// A results file of `rows` in a fresh directory: the directory, the path and the file's text.
    fn written(rows: &[Row]) -> (tempfile::TempDir, std::path::PathBuf, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        let mut w = RowWriter::create(&path).unwrap();
        rows.iter().for_each(|r| w.write(r).unwrap());
        drop(w);
        let text = std::fs::read_to_string(&path).unwrap();
        (dir, path, text)
    }

    #[test]
    fn a_last_row_without_its_newline_is_torn_even_when_every_field_is_there() {
        // A kill inside the last field (the message) leaves a row with every field, its text cut.
        let (_dir, path, text) = written(&[row("a"), row("b")]);
        let cut = text.trim_end().len() - 4;
        std::fs::write(&path, &text[..cut]).unwrap();
        assert_eq!(read_rows(&path).unwrap(), vec![row("a")]);
        // Without its newline alone, the row is cut too: it is solved again on --resume.
        std::fs::write(&path, text.trim_end()).unwrap();
        assert_eq!(read_rows(&path).unwrap(), vec![row("a")]);
        let mut w = RowWriter::append(&path).unwrap();
        w.write(&row("c")).unwrap();
        assert_eq!(read_rows(&path).unwrap(), vec![row("a"), row("c")]);
    }

    #[test]
    fn a_torn_last_row_longer_than_the_first_look_back_is_found() {
        // The last line is found from the file's end, 4 KiB at first, then twice as far each time.
        let long = |id: &str| Row { solution: "1:U 2:L ".repeat(1_250).trim_end().into(), ..row(id) };
        let (_dir, path, text) = written(&[long("a"), long("b")]);
        assert_eq!(read_rows(&path).unwrap(), vec![long("a"), long("b")]);
        std::fs::write(&path, &text[..text.len() - 5_000]).unwrap();
        assert_eq!(read_rows(&path).unwrap(), vec![long("a")]);
        let mut w = RowWriter::append(&path).unwrap();
        w.write(&row("c")).unwrap();
        assert_eq!(read_rows(&path).unwrap(), vec![long("a"), row("c")]);
    }
}
