//! How a solve is printed: plain text (with an optional flip-book), CS 351's prescribed text, or JSON.

use serde_json::json;
use slidesolve::enumerate::Table;
use slidesolve::enumerate::components::Components;
use slidesolve::format::{Parsed, cs351, render};
use slidesolve::plural::Count;
use slidesolve::puzzle::Family;
use slidesolve::solution::to_compact;
use slidesolve::solve::{Algo, Report, Status};
use slidesolve::verify::replay;

/// Everything needed to print one solve.
pub struct SolveView<'a> {
    /// The puzzle file as given.
    pub file: &'a str,
    /// The parsed puzzle.
    pub parsed: &'a Parsed,
    /// The solve's outcome.
    pub report: &'a Report,
    /// The algorithm used.
    pub algo: Algo,
}

impl SolveView<'_> {
    /// The JSON object for `--json`.
    pub fn json(&self) -> String {
        let puzzle = &self.parsed.puzzle;
        let r = self.report;
        let moves = r.moves.as_deref();
        json!({
            "file": self.file,
            "family": puzzle.family,
            "rows": puzzle.board.rows,
            "cols": puzzle.board.cols,
            "pieces": puzzle.pieces.len(),
            "metric": puzzle.metric,
            "algo": self.algo,
            "optimal": self.algo.is_optimal(),
            "status": r.status,
            "moves": moves.map(|m| m.len()),
            "expected": self.parsed.expected,
            "solution": moves.map(|m| to_compact(puzzle, m)),
            "steps": moves.map(|m| m.iter().map(|mv| mv.describe(puzzle)).collect::<Vec<_>>()),
            "nodes_expanded": r.stats.expanded,
            "states_generated": r.stats.generated,
            "states_stored": r.stats.stored,
            "depth": r.stats.depth,
            "peak_bytes": r.stats.peak_bytes,
            "wall_s": r.stats.wall_s,
            "message": r.message,
            "warnings": self.parsed.warnings,
        })
        .to_string()
    }

    /// The text output; CS 351 puzzles get the course's exact format.
    pub fn text(&self, show: bool) -> String {
        let puzzle = &self.parsed.puzzle;
        let r = self.report;
        if puzzle.family == Family::Cs351 && matches!(r.status, Status::Solved | Status::Unsolvable) {
            return cs351::report(puzzle, &self.parsed.warnings, r.moves.as_deref(), show);
        }
        let mut out: String = self.parsed.warnings.iter().map(|w| format!("{w}\n")).collect();
        let s = &r.stats;
        let stats = format!(
            "stats: depth {}, expanded {}, generated {}, stored {}, peak {} bytes, {:.3} s\n",
            s.depth, s.expanded, s.generated, s.stored, s.peak_bytes, s.wall_s
        );
        let Some(moves) = r.moves.as_deref() else {
            let why = r.message.as_deref().unwrap_or("");
            out.push_str(&format!("{}: {} ({why})\n", self.file, r.status));
            out.push_str(&stats);
            return out;
        };
        let caveat = if self.algo.is_optimal() { "" } else { "; may not be shortest" };
        out.push_str(&format!(
            "{}: solved in {} ({} metric, {}{caveat})\n",
            self.file,
            Count(moves.len(), "move"),
            puzzle.metric,
            self.algo
        ));
        let states = if show { replay(puzzle, moves).unwrap_or_default() } else { Vec::new() };
        if show {
            out.push_str(&format!("start:\n{}\n", render(puzzle, &puzzle.start)));
        }
        for (i, mv) in moves.iter().enumerate() {
            out.push_str(&format!("{:4}. {}\n", i + 1, mv.describe(puzzle)));
            if show && let Some(state) = states.get(i + 1) {
                out.push_str(&format!("{}\n", render(puzzle, state)));
            }
        }
        out.push_str(&format!("solution: {}\n", to_compact(puzzle, moves)));
        out.push_str(&stats);
        out
    }
}

/// Everything needed to print one enumeration.
pub struct EnumerateView<'a> {
    /// What was enumerated (file name or `RxC tiles`).
    pub name: &'a str,
    /// The parsed puzzle (its warnings too).
    pub parsed: &'a Parsed,
    /// The layer table.
    pub table: &'a Table,
    /// All legal placements and their components (`--components`), or why a limit stopped them.
    pub components: Option<&'a Result<Components, String>>,
}

impl EnumerateView<'_> {
    /// The JSON object for `--json`.
    pub fn json(&self) -> String {
        let t = self.table;
        let (largest, largest_depth) = t.largest_layer();
        let puzzle = &self.parsed.puzzle;
        json!({
            "name": self.name,
            "metric": puzzle.metric,
            "complete": t.stopped.is_none(),
            "stopped": t.stopped.map(|h| h.to_string()),
            "states": t.states(),
            "max_depth": t.max_depth(),
            "largest_layer": largest,
            "largest_layer_depth": largest_depth,
            "farthest_count": t.farthest_count,
            "farthest": t.farthest.iter().map(|a| render(puzzle, a)).collect::<Vec<_>>(),
            "layers": t.layers,
            "wall_s": t.stats.wall_s,
            "peak_bytes": t.stats.peak_bytes,
            "components": self.components.and_then(|c| c.as_ref().ok()),
            "components_stopped": self.components.and_then(|c| c.as_ref().err()),
            "warnings": self.parsed.warnings,
        })
        .to_string()
    }

    /// The text summary.
    pub fn text(&self) -> String {
        let t = self.table;
        let (largest, largest_depth) = t.largest_layer();
        let puzzle = &self.parsed.puzzle;
        let mut out = format!("{}: {} metric\n", self.name, puzzle.metric);
        if let Some(hit) = t.stopped {
            out.push_str(&format!("stopped early: {hit}; the table below is partial\n"));
        }
        out.push_str(&format!("states: {}\n", t.states()));
        out.push_str(&format!("max depth: {}\n", t.max_depth()));
        out.push_str(&format!("largest layer: {largest} (depth {largest_depth})\n"));
        out.push_str(&format!("time: {:.3} s, peak memory: {} bytes\n", t.stats.wall_s, t.stats.peak_bytes));
        out.push_str(&format!("farthest states: {} at depth {}\n", t.farthest_count, t.max_depth()));
        for anchors in &t.farthest {
            out.push_str(&format!("{}\n", render(puzzle, anchors)));
        }
        match self.components {
            Some(Ok(c)) => out.push_str(&format!(
                "all legal placements: {}, in {} components; largest {}, the start's {}, isolated {}\n",
                c.placements, c.components, c.largest, c.start_component, c.isolated
            )),
            Some(Err(stopped)) => out.push_str(&format!("all legal placements: stopped early: {stopped}\n")),
            None => {}
        }
        out.push_str("depth,states\n");
        for (d, n) in t.layers.iter().enumerate() {
            out.push_str(&format!("{d},{n}\n"));
        }
        out
    }
}
