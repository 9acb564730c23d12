//! Pictures of a family's hardest layouts, drawn from a finished `components.csv` (so a resumed
//! run draws what an uninterrupted one does): the K solvable components with the largest
//! `hardest_moves`, ties by the lower component number, each as a still of its hardest layout with
//! the goal marked and as the animation of that layout's solution, solved again by the ordinary
//! solver, verified, and checked to be exactly `hardest_moves` long.

use super::csv::{ComponentRecord, read_components};
use super::spec::FamilySpec;
use super::{Class, class_key, class_puzzle, classes};
use crate::puzzle::{Cell, Puzzle, Shape};
use crate::render::{self, gallery::Gallery, gallery::Top};
use crate::solution::Move;
use crate::solve::{SolveOptions, solve};
use std::collections::HashMap;
use std::io;
use std::path::Path;

/// The gallery's name: files `hardest-RANK-component-N.svg`, index `hardest.csv`.
pub const GALLERY: &str = "hardest";

/// One ranked component and what became of its pictures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drawn {
    /// The component's number in `components.csv`.
    pub component: u64,
    /// Its `hardest_moves`.
    pub moves: u32,
    /// The picture files written, in the gallery's directory.
    pub pictures: Vec<String>,
    /// Why a picture is missing, if one is.
    pub problem: Option<String>,
}

/// Draws the `k` hardest components of `dir/components.csv` into `dir` (with the index
/// `dir/hardest.csv`: `rank,component,class,hardest_moves,picture`), solving each within
/// `memory_limit` bytes; returns them best first.
pub fn draw(spec: &FamilySpec, dir: &Path, k: usize, memory_limit: u64) -> io::Result<Vec<Drawn>> {
    let mut top = Top::new(k);
    read_components(dir, |r| {
        if let Some(moves) = r.row.hardest_moves {
            top.offer(moves.into(), r);
        }
    })?;
    let picked = top.best();
    let all = classes(spec, memory_limit, None).map_err(|e| io::Error::other(e.to_string()))?;
    let by_name: HashMap<String, Class> = all.into_iter().map(|c| (c.describe(spec), c)).collect();
    let mut gallery = Gallery::create(dir, GALLERY, picked.len(), &["component", "class", "hardest_moves"])?;
    let mut drawn = Vec::with_capacity(picked.len());
    for (i, record) in picked.iter().enumerate() {
        let rank = i + 1;
        let moves = record.row.hardest_moves.unwrap_or_default();
        let label = format!("component-{}", record.component);
        let mut pictures = Vec::new();
        let problem = match pictures_of(spec, &by_name, record, memory_limit) {
            Ok((still, animation)) => {
                let name = gallery.file_name(rank, &label, "");
                gallery.write(&name, &still)?;
                pictures.push(name);
                match animation {
                    Ok(svg) => {
                        let name = gallery.file_name(rank, &label, "solution");
                        gallery.write(&name, &svg)?;
                        pictures.push(name);
                        None
                    }
                    Err(why) => Some(why),
                }
            }
            Err(why) => Some(why),
        };
        let columns = [record.component.to_string(), record.class.clone(), moves.to_string()];
        gallery.list(rank, &columns, &pictures)?;
        let problem = problem.map(|why| format!("component {}: {why}", record.component));
        drawn.push(Drawn { component: record.component, moves, pictures, problem });
    }
    Ok(drawn)
}

/// The still of a component's hardest layout, and the animation of its solution or why there is
/// none; an error when the layout itself cannot be rebuilt.
fn pictures_of(
    spec: &FamilySpec,
    classes: &HashMap<String, Class>,
    record: &ComponentRecord,
    memory_limit: u64,
) -> Result<(String, Result<String, String>), String> {
    let class = classes
        .get(&class_key(&record.class))
        .ok_or_else(|| format!("'{}' is not a class of the spec", record.class))?;
    let mut puzzle = class_puzzle(spec, class, None, (memory_limit, None))
        .map_err(|e| e.to_string())?
        .0
        .ok_or("its class has no layout")?;
    let layout = record.row.hardest.as_deref().ok_or("no hardest layout is listed")?;
    puzzle.start = anchors(&puzzle, layout)?;
    let moves = record.row.hardest_moves.unwrap_or_default();
    let still = render::board(&puzzle, &puzzle.start, Some(&format!("#{}: {moves} moves", record.component)));
    let animation =
        solution(&puzzle, moves, memory_limit).and_then(|m| render::animation(&puzzle, &m).map_err(|e| e.to_string()));
    Ok((still, animation))
}

/// A verified shortest solution of `puzzle`, checked to be `moves` long.
fn solution(puzzle: &Puzzle, moves: u32, memory_limit: u64) -> Result<Vec<Move>, String> {
    let mut options = SolveOptions::default();
    options.limits.max_memory = Some(memory_limit);
    let report = solve(puzzle, &options).map_err(|e| e.to_string())?;
    match report.moves {
        Some(found) if found.len() == moves as usize => Ok(found),
        Some(found) => Err(format!("the solver needs {} moves where components.csv says {moves}", found.len())),
        None => Err(format!(
            "no solution ({}{})",
            report.status,
            report.message.map(|m| format!(": {m}")).unwrap_or_default()
        )),
    }
}

/// The anchors of a layout in [`super::one_line`] form of `puzzle`'s pieces (the inverse of
/// `one_line`): every row the board's width, walls where the board has them, each piece's
/// character covering exactly its shape.
pub fn anchors(puzzle: &Puzzle, layout: &str) -> Result<Vec<Cell>, String> {
    let board = &puzzle.board;
    let rows: Vec<&str> = layout.split('/').collect();
    if rows.len() != board.rows || rows.iter().any(|r| r.chars().count() != board.cols) {
        let shown: String = layout.chars().take(80).collect();
        return Err(format!("'{shown}' is not a layout of {} rows of {} cells", board.rows, board.cols));
    }
    let names: HashMap<&str, usize> = puzzle.pieces.iter().enumerate().map(|(i, p)| (p.name.as_str(), i)).collect();
    let mut cells: Vec<Vec<Cell>> = vec![Vec::new(); puzzle.pieces.len()];
    for (r, row) in rows.iter().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            match (board.is_open(r, c), ch) {
                (false, '#') | (true, '.') => {}
                (true, ch) => match names.get(ch.encode_utf8(&mut [0; 4]) as &str) {
                    Some(&i) => cells[i].push((r, c)),
                    None => return Err(format!("row {}, column {}: '{ch}' is no piece of the class", r + 1, c + 1)),
                },
                (false, ch) => return Err(format!("row {}, column {}: '{ch}' on a wall", r + 1, c + 1)),
            }
        }
    }
    puzzle
        .pieces
        .iter()
        .zip(cells)
        .map(|(piece, cells)| match Shape::from_cells(&cells) {
            Some((shape, anchor)) if shape == piece.shape => Ok(anchor),
            _ => Err(format!("piece {} does not cover its shape", piece.name)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::{one_line, spec};

    #[test]
    fn a_layout_reads_back_to_its_anchors_and_bad_ones_are_named() {
        let spec = spec::parse("goal: A at 0,0\nkind: A 1x1 b 1\nkind: V 2x1 b 1\nboard:\n.#.\n...\n").unwrap();
        let puzzle = class_puzzle(&spec, &classes(&spec, u64::MAX, None).unwrap()[0], None, (u64::MAX, None))
            .unwrap()
            .0
            .unwrap();
        let start = puzzle.start.clone();
        assert_eq!(anchors(&puzzle, &one_line(&puzzle, &start)).unwrap(), start);
        assert_eq!(anchors(&puzzle, "A#B/..B").unwrap(), vec![(0, 0), (0, 2)]);
        assert!(anchors(&puzzle, "A#B/..B/...").unwrap_err().contains("not a layout of 2 rows of 3 cells"));
        assert_eq!(anchors(&puzzle, "AAB/..B").unwrap_err(), "row 1, column 2: 'A' on a wall");
        assert_eq!(anchors(&puzzle, "A#B/.ZB").unwrap_err(), "row 2, column 2: 'Z' is no piece of the class");
        assert_eq!(anchors(&puzzle, "A#B/.B.").unwrap_err(), "piece B does not cover its shape");
        assert_eq!(anchors(&puzzle, "A#./...").unwrap_err(), "piece B does not cover its shape");
    }
}
