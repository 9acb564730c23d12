//! Pictures of a family's hardest layouts, drawn from a finished `components.csv` (so a resumed
//! run draws what an uninterrupted one does): the K solvable components with the largest
//! `hardest_moves`, ties by the lower component number, each as a still of its hardest layout with
//! the goal marked and as the animation of that layout's solution, solved again by the ordinary
//! solver, verified, and checked to be exactly `hardest_moves` long.

use super::csv::{ComponentRecord, read_components};
use super::spec::FamilySpec;
use super::{Class, class_key, class_puzzle, classes, read_layout};
use crate::puzzle::Puzzle;
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
    puzzle.start = read_layout(&puzzle.board, &puzzle.pieces, layout)?;
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
