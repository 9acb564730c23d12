//! The pictures `batch --draw-deepest K` and `family --draw-hardest K` draw after their run, from
//! the finished CSV: drawn by the library, reported here (one line on standard output, each
//! picture that could not be drawn on standard error).

use super::stdio::{errln, outln};
use anyhow::{Context, Result};
use slidesolve::batch::{corpus::Entry, deepest, record::Row};
use slidesolve::family::{hardest, spec::FamilySpec};
use std::path::Path;

/// Draws the `k` deepest solutions of a finished batch next to its CSV; returns whether every
/// picture was drawn.
pub fn deepest(rows: &[Row], entries: &[Entry], k: usize, csv: &Path) -> Result<bool> {
    let dir = deepest::dir_for(csv);
    let drawn = deepest::draw(rows, entries, k, &dir).context("cannot draw the deepest solutions")?;
    let problems: Vec<Option<&str>> = drawn.iter().map(|d| d.problem.as_deref()).collect();
    report(&problems, k, "deepest solutions", &dir, deepest::GALLERY, true)
}

/// Draws the `k` hardest layouts of a finished family run in `dir`; returns whether every picture
/// was drawn. The summary line is left out when standard output carries JSON.
pub fn hardest(spec: &FamilySpec, dir: &Path, k: usize, memory_limit: u64, json: bool) -> Result<bool> {
    let drawn = hardest::draw(spec, dir, k, memory_limit).context("cannot draw the hardest layouts")?;
    let problems: Vec<Option<&str>> = drawn.iter().map(|d| d.problem.as_deref()).collect();
    report(&problems, k, "hardest layouts", dir, hardest::GALLERY, !json)
}

/// Says how many of the `k` pictures asked were drawn whole and where they are, then what could
/// not be drawn: `problems` holds, for each one ranked, why it was not drawn whole (`None`: it was).
fn report(problems: &[Option<&str>], k: usize, what: &str, dir: &Path, gallery: &str, say: bool) -> Result<bool> {
    let drawn = problems.iter().filter(|p| p.is_none()).count();
    if say {
        let index = dir.join(format!("{gallery}.csv"));
        outln!("pictures: {drawn} of {k} {what} in {}, listed in {}", dir.display(), index.display())?;
    }
    for problem in problems.iter().flatten() {
        errln!("error: cannot draw {problem}");
    }
    Ok(drawn == problems.len())
}
