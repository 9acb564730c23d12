//! Text formats: one file per format, each with a parser to [`Puzzle`] and a printer.
//!
//! | format | what it holds |
//! |---|---|
//! | [`grid`] | the native drawn format (any board, any pieces, any goal) |
//! | [`cs351`] | the CS 351 course format (`.data`) |
//! | [`tiles`] | an m×n sliding-tile puzzle |
//! | [`rush`] | a Rush Hour card (36 characters) |

pub mod cs351;
pub mod grid;
pub mod rush;
pub mod tiles;

use crate::memory;
use crate::puzzle::{Cell, Family, Puzzle};
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use thiserror::Error;

/// A supported input format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The native drawn-grid format.
    Grid,
    /// The CS 351 course format.
    Cs351,
    /// Sliding-tile puzzles.
    Tiles,
    /// Rush Hour cards.
    Rush,
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "grid" => Ok(Format::Grid),
            "cs351" => Ok(Format::Cs351),
            "tiles" => Ok(Format::Tiles),
            "rush" => Ok(Format::Rush),
            other => Err(format!("unknown format '{other}' (expected grid, cs351, tiles or rush)")),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Grid => "grid",
            Format::Cs351 => "cs351",
            Format::Tiles => "tiles",
            Format::Rush => "rush",
        })
    }
}

/// A parse failure, with the 1-based line (0 when it concerns the whole file) and column.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line, or 0 for the whole input.
    pub line: usize,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// True when `message` is an exact text the format prescribes for standard output
    /// (the CS 351 `Error: ...` lines).
    pub prescribed: bool,
    /// The warnings the file gave before the error, in their prescribed text (the CS 351 pieces
    /// dropped before `Error: No valid pieces in the puzzle`).
    pub warnings: Vec<String>,
}

impl ParseError {
    /// An error at a line (and optional column).
    pub fn at(line: usize, column: Option<usize>, message: impl Into<String>) -> Self {
        ParseError { line, column, message: message.into(), prescribed: false, warnings: Vec::new() }
    }

    /// This error of a goal given by `--goal` rather than by the file: no line, and said of it.
    pub fn of_goal_option(self) -> Self {
        let what = self.message.strip_prefix("goal: ").unwrap_or(&self.message);
        ParseError::at(0, None, format!("--goal: {what}"))
    }

    /// A size over the memory budget, at a line.
    pub fn too_large(line: usize, e: memory::TooLarge) -> Self {
        ParseError::at(line, None, e.to_string())
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}", self.message),
            (l, Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            (l, None) => write!(f, "line {l}: {}", self.message),
        }
    }
}

/// What a parser returns: the puzzle plus anything the file said about it.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The puzzle.
    pub puzzle: Puzzle,
    /// Warnings to show before any output (CS 351 prescribes their text).
    pub warnings: Vec<String>,
    /// The known optimal move count, when the file gives one.
    pub expected: Option<u64>,
}

/// Options that override what the file says.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// A goal that replaces the file's: a tile layout, or a grid goal such as `A at 3,1`.
    pub goal: Option<String>,
    /// The memory budget a board must fit in (`--max-memory`; `None`: the default of
    /// [`memory::limit`]).
    pub max_memory: Option<u64>,
    /// Whether a grid file may leave out its goal (`enumerate`, which tests no state): its start
    /// layout stands in, a layout that names no piece, so identical pieces merge.
    pub goal_optional: bool,
}

impl ParseOptions {
    /// The budget a board of this parse must fit in.
    pub fn memory_limit(&self) -> u64 {
        memory::limit(self.max_memory)
    }
}

/// Guesses the format from the file extension, then from the content.
pub fn detect(path: Option<&Path>, text: &str) -> Format {
    let ext = path.and_then(|p| p.extension()).and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("data") => return Format::Cs351,
        Some("grid") => return Format::Grid,
        Some("rush") => return Format::Rush,
        Some("tiles") => return Format::Tiles,
        _ => {}
    }
    let meaningful: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with(';')).collect();
    if meaningful.iter().any(|l| l.to_ascii_lowercase().starts_with("board:")) {
        return Format::Grid;
    }
    if meaningful.first().is_some_and(|l| rush::looks_like_rush(l)) {
        return Format::Rush;
    }
    let cs351_piece = |l: &&str| {
        let t: Vec<&str> = l.split_whitespace().collect();
        t.len() == 5 && t[..4].iter().all(|x| x.parse::<i64>().is_ok()) && t[4].len() == 1
    };
    if meaningful.iter().skip(1).any(cs351_piece) {
        return Format::Cs351;
    }
    Format::Tiles
}

/// Parses `text` in the given format.
pub fn parse(format: Format, text: &str, options: &ParseOptions) -> Result<Parsed, ParseError> {
    match format {
        Format::Grid => grid::parse(text, options),
        Format::Cs351 => cs351::parse(text, options.memory_limit()).and_then(|p| override_goal(p, options)),
        Format::Tiles => tiles::parse(text, options).or_else(|e| {
            match parse_many(Format::Tiles, text, options) {
                // A one-puzzle file in the multi-puzzle layout (`gen tiles --count 1`).
                Some(mut items) if items.len() == 1 => items.remove(0).1,
                // A multi-puzzle file without any (`gen tiles --count 0`).
                Some(items) if items.is_empty() => Err(ParseError::at(0, None, "no puzzles in it")),
                Some(items) if items.len() > 1 => Err(ParseError::at(
                    items[1].0,
                    None,
                    format!(
                        "the file holds {} puzzles, one per line; solve one at a time or run 'batch' on the file",
                        items.len()
                    ),
                )),
                _ => Err(e),
            }
        }),
        Format::Rush => rush::parse(text).and_then(|p| override_goal(p, options)),
    }
}

/// One puzzle of a multi-puzzle file: its 1-based line and what parsing it gave.
pub type Item = (usize, Result<Parsed, ParseError>);

/// Splits a file holding several puzzles, one per line (tiles and Rush Hour), and parses each;
/// `None` when the file holds a single puzzle (read it with [`parse`]).
pub fn parse_many(format: Format, text: &str, options: &ParseOptions) -> Option<Vec<Item>> {
    let items = split_many(format, text, options)?;
    Some(items.into_iter().map(|(line, item)| (line, item.and_then(|u| u.parse()))).collect())
}

/// One puzzle of a multi-puzzle file, not parsed yet: its 1-based line and its text, or the error
/// of the file's header that every line shares.
pub type UnparsedItem = (usize, Result<Unparsed, ParseError>);

/// Splits a file holding several puzzles, one per line (tiles and Rush Hour), without parsing
/// them; `None` when the file holds a single puzzle (see [`Unparsed::whole`]).
pub fn split_many(format: Format, text: &str, options: &ParseOptions) -> Option<Vec<UnparsedItem>> {
    match format {
        Format::Tiles => tiles::split_many(text, options),
        Format::Rush => {
            let reading = std::sync::Arc::new(Reading::RushLine(options.clone()));
            Some(
                rush::split_many(text)?
                    .into_iter()
                    .map(|(line, l)| (line, Ok(Unparsed::line(l, line, &reading))))
                    .collect(),
            )
        }
        Format::Grid | Format::Cs351 => None,
    }
}

/// A puzzle read from a file but not parsed: its own text and what parsing it needs. A corpus of
/// millions of lines holds tens of bytes a puzzle this way, where a parsed puzzle holds kilobytes;
/// each is parsed when it is solved (a few microseconds).
#[derive(Clone, Debug)]
pub struct Unparsed {
    /// The puzzle's text: one line of a multi-puzzle file, or a whole file.
    text: Box<str>,
    /// The 1-based line of a multi-puzzle file's puzzle.
    line: usize,
    /// How it is parsed, shared by the lines of one file.
    reading: std::sync::Arc<Reading>,
}

/// How a file's puzzles are parsed: what its lines share.
#[derive(Debug)]
enum Reading {
    /// A file of one puzzle, in this format.
    Whole(Format, ParseOptions),
    /// A line of a multi-puzzle tile file: the board's shape and the goal (its line and text).
    TilesLine { rows: usize, cols: usize, goal: Option<(usize, String)> },
    /// A card of a multi-card Rush Hour file.
    RushLine(ParseOptions),
}

impl Unparsed {
    /// A file that holds one puzzle, to be parsed in `format` with `options`.
    pub fn whole(format: Format, text: &str, options: &ParseOptions) -> Unparsed {
        Unparsed { text: text.into(), line: 0, reading: std::sync::Arc::new(Reading::Whole(format, options.clone())) }
    }

    /// One line (number `line`) of a file whose lines share `reading`.
    fn line(text: &str, line: usize, reading: &std::sync::Arc<Reading>) -> Unparsed {
        Unparsed { text: text.into(), line, reading: std::sync::Arc::clone(reading) }
    }

    /// The puzzle, parsed now.
    pub fn parse(&self) -> Result<Parsed, ParseError> {
        match &*self.reading {
            Reading::Whole(format, options) => parse(*format, &self.text, options),
            Reading::TilesLine { rows, cols, goal } => tiles::parse_line(&self.text, self.line, (*rows, *cols), goal),
            Reading::RushLine(options) => {
                rush::parse_line(&self.text, self.line).and_then(|p| override_goal(p, options))
            }
        }
    }
}

/// Replaces the fixed goal of a CS 351 or Rush Hour puzzle by `options.goal`, written as in the
/// grid format (`Z at 1,3`, `A reaches left`) with the pieces' names.
fn override_goal(mut parsed: Parsed, options: &ParseOptions) -> Result<Parsed, ParseError> {
    let Some(text) = options.goal.as_deref() else { return Ok(parsed) };
    let puzzle = &parsed.puzzle;
    let names: std::collections::HashMap<&str, usize> =
        puzzle.pieces.iter().enumerate().map(|(i, p)| (p.name.as_str(), i)).collect();
    let find = |name: &str, line: usize| {
        names.get(name).copied().ok_or_else(|| ParseError::at(line, None, format!("goal: no piece named '{name}'")))
    };
    let goal = grid::parse_goal(text, 0, &find).map_err(ParseError::of_goal_option)?;
    goal.check(puzzle).map_err(|e| ParseError::at(0, None, format!("--goal: {e}")))?;
    parsed.puzzle.goal = goal;
    Ok(parsed)
}

/// The most bytes read from one puzzle file (a device such as `/dev/zero` never ends).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// Reads a puzzle or solution file (or FIFO, or device) whole, refusing one longer than the memory
/// budget (`max_memory`, else the default) or [`MAX_FILE_BYTES`], before reading it where its size
/// is known.
pub fn read_file(path: &Path, max_memory: Option<u64>) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    read_bounded(file, Some(size), max_memory)
}

/// Reads `source` (of `size` bytes, when known) whole, refusing it as [`read_file`] does.
pub fn read_bounded(
    source: impl std::io::Read,
    size: Option<u64>,
    max_memory: Option<u64>,
) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let limit = memory::limit(max_memory).min(MAX_FILE_BYTES);
    let too_long = || {
        let why = if limit == MAX_FILE_BYTES { "the most read from one file" } else { "the memory limit" };
        std::io::Error::other(format!("longer than {} ({why})", memory::human(limit)))
    };
    if size.is_some_and(|size| size > limit) {
        return Err(too_long());
    }
    let mut bytes = Vec::new();
    // A known size is room reserved at once: the buffer does not double past it while it fills.
    let _ = bytes.try_reserve_exact(size.and_then(|s| usize::try_from(s.saturating_add(1)).ok()).unwrap_or(0));
    source.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_long());
    }
    Ok(bytes)
}

/// Writes a whole file, complete or not at all: `fill` writes its bytes into a temporary file
/// beside `path`, which is renamed over `path` only once all of them are written; on failure the
/// temporary file is removed, whatever was at `path` is left as it was, and the error names `path`.
/// A symbolic link is written through (the file it points to is replaced, the link kept), and a
/// device, pipe or socket is written in place, since renaming over it would replace the node.
pub fn write_whole(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::Write;
    let named = |e: std::io::Error| std::io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()));
    let target = written_through(path);
    let write_to = |file: std::fs::File| {
        let mut out = std::io::BufWriter::new(file);
        fill(&mut out)?;
        out.flush()
    };
    if std::fs::metadata(&target).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return std::fs::OpenOptions::new().write(true).open(&target).and_then(write_to).map_err(named);
    }
    let temporary = temporary_for(&target);
    let written =
        std::fs::File::create(&temporary).and_then(write_to).and_then(|()| std::fs::rename(&temporary, &target));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        named(e)
    })
}

/// The file a write to `path` goes to: `path` itself, or the end of the symbolic link it is
/// (resolved from the link's directory when the file it names does not exist yet).
fn written_through(path: &Path) -> std::path::PathBuf {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return path.to_path_buf();
    }
    std::fs::canonicalize(path)
        .or_else(|_| std::fs::read_link(path).map(|to| path.parent().unwrap_or(Path::new("")).join(to)))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// The temporary file [`write_whole`] fills beside `path`: its name plus `.PID.tmp`, so two
/// processes writing the same file never share one.
pub(crate) fn temporary_for(path: &Path) -> std::path::PathBuf {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".{}.tmp", std::process::id()));
    std::path::PathBuf::from(temporary)
}

/// Reads raw file bytes as text, refusing binary data with a clear message; a UTF-8 byte-order
/// mark that some editors write at the start is skipped.
pub fn decode_text(bytes: &[u8]) -> Result<&str, ParseError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| ParseError::at(0, None, format!("not a text file (invalid UTF-8 at byte {})", e.valid_up_to())))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some((i, line)) = text.lines().enumerate().find(|(_, l)| l.contains('\0')) {
        let col = line.find('\0').map(|c| c + 1);
        return Err(ParseError::at(i + 1, col, "not a text file (NUL byte)"));
    }
    if text.trim().is_empty() {
        return Err(ParseError::at(0, None, "empty file: no puzzle in it"));
    }
    Ok(text)
}

/// Draws a position as rows of text in the style of the puzzle's family: `.` empty, `#` wall,
/// piece names (right-aligned numbers for tiles; a `*` border for CS 351).
pub fn render(puzzle: &Puzzle, anchors: &[Cell]) -> String {
    match puzzle.family {
        Family::Tiles => tiles::render(puzzle, anchors),
        Family::Cs351 => cs351::render(puzzle, anchors),
        Family::Grid | Family::Rush => grid::render(puzzle, anchors),
    }
}

/// One character per cell: the piece's first name character, `.` for empty, `#` for wall.
pub fn char_grid(puzzle: &Puzzle, anchors: &[Cell]) -> Vec<Vec<char>> {
    let occupancy = puzzle.occupancy(anchors);
    let (rows, cols) = (puzzle.board.rows, puzzle.board.cols);
    (0..rows)
        .map(|r| {
            (0..cols)
                .map(|c| match occupancy[r * cols + c] {
                    Some(p) => puzzle.pieces[p].name.chars().next().unwrap_or('?'),
                    None if puzzle.board.is_open(r, c) => '.',
                    None => '#',
                })
                .collect()
        })
        .collect()
}
