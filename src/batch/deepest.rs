//! Pictures of a batch's deepest solutions, drawn from the finished results CSV (so a resumed run
//! draws what an uninterrupted one does): the K solved rows with the most moves, ties by id in
//! [`id_order`], each as the animation of its row's solution, read back and replayed (verified)
//! on the puzzle of this run's corpus.

use super::corpus::{Entry, id_order};
use super::record::Row;
use crate::format::Parsed;
use crate::render::{self, gallery::Gallery, gallery::Top};
use crate::solution::parse_solution;
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

/// The gallery's name: files `deepest-RANK-ID.svg`, index `deepest.csv`.
pub const GALLERY: &str = "deepest";

/// One ranked row and what became of its picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drawn {
    /// The puzzle's id.
    pub id: String,
    /// Its solution's length.
    pub moves: u64,
    /// The picture file written, in the gallery's directory.
    pub picture: Option<String>,
    /// Why there is no picture.
    pub problem: Option<String>,
}

/// The directory of the pictures of a results CSV: `results.csv` gives `results-deepest`.
pub fn dir_for(csv: &Path) -> PathBuf {
    let stem = csv.file_stem().map_or_else(|| "results".into(), |s| s.to_string_lossy().into_owned());
    csv.with_file_name(format!("{stem}-{GALLERY}"))
}

/// Draws the `k` deepest solved `rows` into `dir` (with the index `dir/deepest.csv`:
/// `rank,id,moves,picture`), each from its puzzle among `entries`; returns them deepest first.
pub fn draw(rows: &[Row], entries: &[Entry], k: usize, dir: &Path) -> io::Result<Vec<Drawn>> {
    let mut solved: Vec<&Row> = rows.iter().filter(|r| r.status == "solved").collect();
    solved.sort_by(|a, b| (id_order(&a.id), &a.id).cmp(&(id_order(&b.id), &b.id)));
    let mut top = Top::new(k);
    for row in solved {
        if let Some(moves) = row.moves {
            top.offer(moves, row);
        }
    }
    let picked = top.best();
    // Only the puzzles drawn are parsed.
    let wanted: HashSet<&str> = picked.iter().map(|row| row.id.as_str()).collect();
    let puzzles: HashMap<String, Result<Parsed, String>> = entries
        .iter()
        .map(|e| (e.id(), e))
        .filter(|(id, _)| wanted.contains(id.as_str()))
        .map(|(id, e)| (id, e.parse()))
        .collect();
    let mut gallery = Gallery::create(dir, GALLERY, picked.len(), &["id", "moves"])?;
    let mut drawn = Vec::with_capacity(picked.len());
    for (i, row) in picked.into_iter().enumerate() {
        let rank = i + 1;
        let moves = row.moves.unwrap_or_default();
        let (picture, problem) = match animation(row, moves, &puzzles) {
            Ok(svg) => {
                let name = gallery.file_name(rank, &row.id, "");
                gallery.write(&name, &svg)?;
                (Some(name), None)
            }
            Err(why) => (None, Some(format!("{}: {why}", row.id))),
        };
        gallery.list(rank, &[row.id.clone(), moves.to_string()], picture.as_slice())?;
        drawn.push(Drawn { id: row.id.clone(), moves, picture, problem });
    }
    Ok(drawn)
}

/// The animation of a row's solution of `moves` moves, replayed on its puzzle.
fn animation(row: &Row, moves: u64, puzzles: &HashMap<String, Result<Parsed, String>>) -> Result<String, String> {
    let parsed = puzzles.get(row.id.as_str()).ok_or("not a puzzle of this run's inputs, so not drawn")?;
    let puzzle = &parsed.as_ref().map_err(|e| format!("it does not read now: {e}"))?.puzzle;
    let solution = parse_solution(puzzle, &row.solution).map_err(|e| format!("its solution does not read: {e}"))?;
    if solution.len() as u64 != moves {
        return Err(format!("its solution has {} moves, its moves column {moves}", solution.len()));
    }
    render::animation(puzzle, &solution).map_err(|e| e.to_string())
}
