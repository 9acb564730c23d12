//! Pictures of puzzles as hand-written SVG text: still boards, one still per step of a solution,
//! and one self-contained animated solution (SMIL, no JavaScript) that loops.
//!
//! Every board is drawn inside a group translated to its top-left corner, and every piece is one
//! group translated by `anchor × CELL` (its shape drawn relative to its anchor), so an animation
//! moves a piece with one `animateTransform` whose `values` are the key frames of all its moves.

pub mod gallery;

use crate::memory::{self, TooLarge};
use crate::puzzle::{Cell, Dir, Edge, Goal, Puzzle};
use crate::solution::Move;
use crate::verify::{VerifyError, replay};
use std::collections::HashSet;
use std::fmt::Write;
use thiserror::Error;

/// The side of one board cell, in SVG user units.
pub const CELL: usize = 40;
/// The space around a board (room for goal-edge marks and captions).
const MARGIN: usize = 24;
/// The height of the caption line above a board.
const CAPTION: usize = 28;
/// Seconds per unit step of a moving piece.
const STEP_SECONDS: f64 = 0.25;
/// Seconds between two moves.
const GAP_SECONDS: f64 = 0.1;
/// Seconds the start and the solved board are shown before the animation moves or loops.
const HOLD_SECONDS: f64 = 1.0;
/// Piece colours, distinct for the first 16 identity classes, then repeating: Okabe–Ito's seven
/// colour-blind-safe colours (Okabe & Ito, "Color Universal Design", 2008; vermillion first, for
/// the goal pieces; black left out), then nine from Paul Tol's colour-blind-safe schemes (P. Tol,
/// "Colour Schemes", SRON/EPS/TN/09-002, <https://personal.sron.nl/~pault/>), each the one
/// farthest from those before it under simulated normal, protan, deutan and tritan vision
/// (`scripts/palette.py`, `results/pictures/palette.md`).
pub const PALETTE: [&str; 16] = [
    "#D55E00", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#CC79A7", // Okabe–Ito
    "#332288", "#882255", "#FFAABB", "#99DDFF", "#117733", "#999933", "#AA3377", "#EE6677", "#EE8866", // Tol
];

/// Why a solution could not be drawn.
#[derive(Debug, Error)]
pub enum RenderError {
    /// The moves do not replay on the puzzle.
    #[error("the solution does not replay: {0}")]
    Invalid(#[from] VerifyError),
}

/// `text` with `& < > "` escaped, safe inside SVG text and double-quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// A still picture of the puzzle with its pieces at `anchors`, under an optional caption.
pub fn board(puzzle: &Puzzle, anchors: &[Cell], caption: Option<&str>) -> String {
    scene(puzzle, &[(anchors, caption, None)])
}

/// A still of the start position, beside the goal layout when `beside_goal` asks for it and the
/// goal is a full layout (the flag returned says whether it is), or why its text would not fit in
/// `limit` bytes (checked before it is drawn).
pub fn start_still(puzzle: &Puzzle, beside_goal: bool, limit: u64) -> Result<(String, bool), TooLarge> {
    let boards: Vec<(&[Cell], Option<&str>, Option<usize>)> = match &puzzle.goal {
        Goal::Layout(target) if beside_goal => vec![(&puzzle.start, Some("start"), None), (target, Some("goal"), None)],
        _ => vec![(&puzzle.start, None, None)],
    };
    let (rows, cols) = (puzzle.board.rows, puzzle.board.cols);
    let what = || match boards.len() {
        1 => format!("a picture of a {rows} x {cols} board"),
        n => format!("a picture of {n} boards of {rows} x {cols} cells"),
    };
    memory::check(what, scene_bytes(puzzle, boards.len()), limit)?;
    Ok((scene(puzzle, &boards), boards.len() == 2))
}

/// The most decimal characters a coordinate of a picture of `puzzle` takes (with a sign).
fn coordinate_digits(puzzle: &Puzzle) -> u64 {
    let extent = puzzle.board.rows.max(puzzle.board.cols).saturating_add(2).saturating_mul(CELL + 2 * MARGIN);
    extent.checked_ilog10().unwrap_or(0) as u64 + 2
}

/// The most bytes of the text of a still of `boards` boards of `puzzle` side by side (what
/// [`board`] and each of [`frames`] write, captions of up to 48 characters included), or None when
/// the count overflows.
pub fn scene_bytes(puzzle: &Puzzle, boards: usize) -> Option<u64> {
    let d = coordinate_digits(puzzle);
    // Each cell's `<rect>` (82 bytes and two coordinates); each piece's group, filled path, name,
    // highlight and goal mark (about 430 bytes, coordinates and its escaped name), and per cell of
    // its shape a path square and two outlines of up to four edges each.
    let rect = 82 + 2 * d;
    let cells = memory::product(&[puzzle.board.rows, puzzle.board.cols], rect)?;
    let pieces = puzzle.pieces.iter().try_fold(0u64, |sum, piece| {
        let fixed = 512 + 4 * d + 6 * piece.name.len() as u64;
        let shape = memory::product(&[piece.shape.offsets().len()], 18 * d + 56)?;
        sum.checked_add(fixed)?.checked_add(shape)
    })?;
    // The caption, the group around the board and an edge goal's bar.
    let board = cells.checked_add(pieces)?.checked_add(512 + 8 * d + 6 * 48)?;
    memory::product(&[boards], board)?.checked_add(512)
}

/// The most bytes of the text of the animation of `moves` on `puzzle` ([`animation`]), or None
/// when the count overflows.
pub fn animation_bytes(puzzle: &Puzzle, moves: &[Move]) -> Option<u64> {
    let d = coordinate_digits(puzzle);
    // Per piece its two animation elements and the key frames of the start and the end; per move
    // a key frame per run of its path and one before it (a key time and a translation each), two
    // highlight keys and a step counter.
    let key = 8 + 2 * d + 2;
    let per_piece = 300 + 2 * key + 10;
    let pieces = memory::product(&[puzzle.pieces.len()], per_piece)?;
    let per_move = moves.iter().try_fold(0u64, |sum, mv| {
        let runs = 1 + mv.path.windows(2).filter(|pair| pair[0] != pair[1]).count();
        sum.checked_add(memory::product(&[runs + 1], key)?)?.checked_add(20 + 420 + 2 * d)
    })?;
    scene_bytes(puzzle, 1)?.checked_add(pieces)?.checked_add(per_move)?.checked_add(512)
}

/// The most bytes the texts of all the stills of `moves` on `puzzle` ([`frames`]) take together,
/// or None when the count overflows.
pub fn frames_bytes(puzzle: &Puzzle, moves: &[Move]) -> Option<u64> {
    memory::product(&[moves.len().checked_add(1)?], scene_bytes(puzzle, 1)?)
}

/// One still per step of a verified solution: the start, then the board after each move with the
/// piece that moved outlined.
pub fn frames(puzzle: &Puzzle, moves: &[Move]) -> Result<Vec<String>, RenderError> {
    let states = replay(puzzle, moves)?;
    let n = moves.len();
    Ok(states
        .iter()
        .enumerate()
        .map(|(k, anchors)| {
            let moved = k.checked_sub(1).map(|m| moves[m].piece);
            scene(puzzle, &[(anchors, Some(&format!("move {k} / {n}")), moved)])
        })
        .collect())
}

/// One looping SVG animation of a verified solution.
pub fn animation(puzzle: &Puzzle, moves: &[Move]) -> Result<String, RenderError> {
    let states = replay(puzzle, moves)?;
    let timeline = Timeline::new(moves);
    let (width, height) = scene_size(puzzle, 1);
    let mut svg = open_svg(width, height, animation_bytes(puzzle, moves));
    let _ = write!(svg, r#"<g transform="translate({MARGIN},{})">"#, MARGIN + CAPTION);
    cells_and_goal(&mut svg, puzzle);
    let colours = colours(puzzle);
    for (i, piece_colour) in colours.iter().enumerate() {
        let mut keys = vec![(0.0, states[0][i])];
        let mut highlight = vec![(0.0, false)];
        for (k, mv) in moves.iter().enumerate().filter(|(_, mv)| mv.piece == i) {
            let (start, _) = timeline.slots[k];
            let mut at = states[k][i];
            keys.push((start, at));
            highlight.push((start, true));
            let mut t = start;
            for (dir, steps) in mv.runs() {
                let (dr, dc) = dir.delta();
                at = (at.0.wrapping_add_signed(dr * steps as isize), at.1.wrapping_add_signed(dc * steps as isize));
                t += steps as f64 * STEP_SECONDS;
                keys.push((t, at));
            }
            highlight.push((t, false));
        }
        let last = states[moves.len()][i];
        keys.push((timeline.total, last));
        let (mut motion, mut outline) = (String::new(), String::new());
        if keys.len() > 2 {
            let times: Vec<String> = keys.iter().map(|&(t, _)| timeline.fraction(t)).collect();
            let values: Vec<String> = keys.iter().map(|&(_, a)| translate(a)).collect();
            let _ = write!(
                motion,
                r#"<animateTransform attributeName="transform" type="translate" dur="{:.2}s" repeatCount="indefinite" keyTimes="{}" values="{}"/>"#,
                timeline.total,
                times.join(";"),
                values.join(";")
            );
            let times: Vec<String> = highlight.iter().map(|&(t, _)| timeline.fraction(t)).collect();
            let values: Vec<&str> = highlight.iter().map(|&(_, on)| if on { "1" } else { "0" }).collect();
            // The outline is shown by its opacity: Chromium draws an animated `stroke` of `none`
            // black (seen in headless Chromium 156).
            let _ = write!(
                outline,
                r#"<animate attributeName="stroke-opacity" calcMode="discrete" dur="{:.2}s" repeatCount="indefinite" keyTimes="{}" values="{}"/>"#,
                timeline.total,
                times.join(";"),
                values.join(";")
            );
        }
        let highlight = if outline.is_empty() { Highlight::Never } else { Highlight::Animated(&outline) };
        piece(&mut svg, puzzle, i, states[0][i], piece_colour, &motion, highlight);
    }
    svg.push_str("</g>");
    counter(&mut svg, &timeline, width);
    svg.push_str("</svg>\n");
    Ok(svg)
}

/// When each move of an animation happens, in seconds.
struct Timeline {
    /// `(start, end)` of each move.
    slots: Vec<(f64, f64)>,
    /// The length of one loop.
    total: f64,
}

impl Timeline {
    /// Moves one after another, each taking its unit steps, after a hold on the start.
    fn new(moves: &[Move]) -> Timeline {
        let mut t = HOLD_SECONDS;
        let slots = moves
            .iter()
            .map(|mv| {
                let slot = (t, t + mv.path.len() as f64 * STEP_SECONDS);
                t = slot.1 + GAP_SECONDS;
                slot
            })
            .collect();
        Timeline { slots, total: t + HOLD_SECONDS }
    }

    /// `t` as a key time (a fraction of the loop).
    fn fraction(&self, t: f64) -> String {
        if t >= self.total { "1".to_string() } else { format!("{:.5}", t / self.total) }
    }
}

/// The step counter: one text per step, each visible from its move's start to the next's.
fn counter(svg: &mut String, timeline: &Timeline, width: usize) {
    let n = timeline.slots.len();
    for k in 0..=n {
        let from = if k == 0 { None } else { Some(timeline.fraction(timeline.slots[k - 1].0)) };
        let to = timeline.slots.get(k).map(|&(start, _)| timeline.fraction(start));
        let (times, values) = match (&from, &to) {
            (None, None) => ("0".to_string(), "visible"),
            (None, Some(to)) => (format!("0;{to}"), "visible;hidden"),
            (Some(from), None) => (format!("0;{from}"), "hidden;visible"),
            (Some(from), Some(to)) => (format!("0;{from};{to}"), "hidden;visible;hidden"),
        };
        let _ = write!(
            svg,
            r#"<text class="counter" x="{}" y="{}" text-anchor="middle" font-family="sans-serif" font-size="18" visibility="hidden">move {k} / {n}<animate attributeName="visibility" calcMode="discrete" dur="{:.2}s" repeatCount="indefinite" keyTimes="{times}" values="{values}"/></text>"#,
            width / 2,
            MARGIN + 6,
            timeline.total
        );
    }
}

/// Boards side by side, each with its caption and the piece it outlines.
fn scene(puzzle: &Puzzle, boards: &[(&[Cell], Option<&str>, Option<usize>)]) -> String {
    let (width, height) = scene_size(puzzle, boards.len());
    let mut svg = open_svg(width, height, scene_bytes(puzzle, boards.len()));
    let colours = colours(puzzle);
    let board_width = puzzle.board.cols * CELL + 2 * MARGIN;
    for (b, &(anchors, caption, outlined)) in boards.iter().enumerate() {
        let left = b * board_width;
        if let Some(caption) = caption {
            let _ = write!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="middle" font-family="sans-serif" font-size="18">{}</text>"#,
                left + board_width / 2,
                MARGIN + 6,
                escape(caption)
            );
        }
        let _ = write!(svg, r#"<g transform="translate({},{})">"#, left + MARGIN, MARGIN + CAPTION);
        cells_and_goal(&mut svg, puzzle);
        for (i, colour) in colours.iter().enumerate() {
            let highlight = if outlined == Some(i) { Highlight::Always } else { Highlight::Never };
            piece(&mut svg, puzzle, i, anchors[i], colour, "", highlight);
        }
        svg.push_str("</g>");
    }
    svg.push_str("</svg>\n");
    svg
}

/// Width and height of `boards` boards side by side.
fn scene_size(puzzle: &Puzzle, boards: usize) -> (usize, usize) {
    let width = boards * (puzzle.board.cols * CELL + 2 * MARGIN);
    (width, puzzle.board.rows * CELL + 2 * MARGIN + CAPTION)
}

/// The XML prolog and the opening `<svg>` element with a white background, in a string with room
/// for the `bytes` the whole picture takes at most (when they can be had: the callers that read
/// user input check them against the memory budget first), so that it never moves as it grows.
fn open_svg(width: usize, height: usize, bytes: Option<u64>) -> String {
    let mut svg = String::new();
    let _ = svg.try_reserve_exact(bytes.and_then(|b| usize::try_from(b).ok()).unwrap_or(0));
    let _ = write!(
        svg,
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}"><rect width="{width}" height="{height}" fill="#fff"/>"##
    );
    svg
}

/// The board's cells (open ones light, walls and holes dark) and the goal's marks.
fn cells_and_goal(svg: &mut String, puzzle: &Puzzle) {
    let board = &puzzle.board;
    for r in 0..board.rows {
        for c in 0..board.cols {
            let (fill, class) = if board.is_open(r, c) { ("#f2f2f2", "open") } else { ("#444", "wall") };
            let _ = write!(
                svg,
                r##"<rect class="{class}" x="{}" y="{}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#ccc"/>"##,
                c * CELL,
                r * CELL
            );
        }
    }
    let colours = colours(puzzle);
    let mut mark = |p: usize, anchor: Cell| {
        let cells: Vec<(isize, isize)> =
            puzzle.pieces[p].shape.cells_at(anchor).flatten().map(|(r, c)| (r as isize, c as isize)).collect();
        let _ = write!(
            svg,
            r#"<path class="goal" d="{}" fill="none" stroke="{}" stroke-width="3" stroke-dasharray="6 4"/>"#,
            outline(&cells),
            colours[p]
        );
    };
    match &puzzle.goal {
        Goal::PiecesAt(list) => list.iter().for_each(|&(p, anchor)| mark(p, anchor)),
        Goal::Layout(target) => target.iter().enumerate().for_each(|(p, &anchor)| mark(p, anchor)),
        Goal::Reaches(p, edge) => {
            // The bar spans the rows (columns) where the piece can meet the edge: those it starts
            // in when it cannot move along the edge (a Rush Hour car), else the whole edge.
            let piece = &puzzle.pieces[*p];
            let cells: Vec<Cell> = piece.shape.cells_at(puzzle.start[*p]).flatten().collect();
            let along_rows = matches!(edge, Edge::Left | Edge::Right);
            let slides_along = piece.movement.allows(if along_rows { Dir::Down } else { Dir::Right });
            let across = |cell: &Cell| if along_rows { cell.0 } else { cell.1 };
            let (w, h) = (puzzle.board.cols * CELL, puzzle.board.rows * CELL);
            let (from, to) = if slides_along {
                (0, if along_rows { h } else { w })
            } else {
                (
                    cells.iter().map(across).min().unwrap_or(0) * CELL,
                    (cells.iter().map(across).max().unwrap_or(0) + 1) * CELL,
                )
            };
            let (x1, y1, x2, y2) = match edge {
                Edge::Left => (-5, from as isize, -5, to as isize),
                Edge::Right => (w as isize + 5, from as isize, w as isize + 5, to as isize),
                Edge::Top => (from as isize, -5, to as isize, -5),
                Edge::Bottom => (from as isize, h as isize + 5, to as isize, h as isize + 5),
            };
            let _ = write!(
                svg,
                r#"<line class="goal" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{}" stroke-width="6"/>"#,
                colours[*p]
            );
        }
    }
}

/// Whether a piece is outlined in black (the moving piece).
enum Highlight<'a> {
    /// Not outlined.
    Never,
    /// Outlined (the piece that just moved, in a still).
    Always,
    /// Outlined while it moves: the outline's `stroke-opacity` animation.
    Animated(&'a str),
}

/// One piece: a group at its anchor holding its filled shape, its outline when it is highlighted
/// and its name; `motion` is the group's animation (empty for a still).
fn piece(svg: &mut String, puzzle: &Puzzle, i: usize, anchor: Cell, colour: &str, motion: &str, highlight: Highlight) {
    let shape = puzzle.pieces[i].shape.offsets();
    // The offsets are in reading order, so a lookup is a binary search.
    let inside = |o: (isize, isize)| shape.binary_search(&o).is_ok();
    let inset = 3isize;
    let cell = CELL as isize;
    let mut d = String::new();
    for &(r, c) in shape {
        let left = if inside((r, c - 1)) { 0 } else { inset };
        let right = if inside((r, c + 1)) { 0 } else { inset };
        let top = if inside((r - 1, c)) { 0 } else { inset };
        let bottom = if inside((r + 1, c)) { 0 } else { inset };
        let _ = write!(
            d,
            "M{} {}h{}v{}h{}z",
            c * cell + left,
            r * cell + top,
            cell - left - right,
            cell - top - bottom,
            -(cell - left - right)
        );
    }
    let (sum_r, sum_c) = shape.iter().fold((0, 0), |(a, b), &(r, c)| (a + r, b + c));
    let n = shape.len() as isize;
    let (mid_r, mid_c) = (sum_r * cell / n + cell / 2, sum_c * cell / n + cell / 2);
    let (lx, ly) = if shape
        .iter()
        .any(|&(r, c)| (r * cell..=(r + 1) * cell).contains(&mid_r) && (c * cell..=(c + 1) * cell).contains(&mid_c))
    {
        (mid_c, mid_r)
    } else {
        (cell / 2, cell / 2)
    };
    let _ = write!(
        svg,
        r#"<g class="piece" data-piece="{i}" transform="{}">{motion}<path d="{d}" fill="{colour}"/>"#,
        format_args!("translate({})", translate(anchor))
    );
    let (opacity, animation) = match highlight {
        Highlight::Never => ("", ""),
        Highlight::Always => ("1", ""),
        Highlight::Animated(animation) => ("0", animation),
    };
    if !opacity.is_empty() {
        let _ = write!(
            svg,
            r##"<path class="highlight" d="{}" fill="none" stroke="#000" stroke-width="4" stroke-linecap="square" stroke-opacity="{opacity}">{animation}</path>"##,
            outline(shape)
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{lx}" y="{ly}" dy="0.35em" text-anchor="middle" font-family="sans-serif" font-size="{}" fill="{}">{}</text></g>"#,
        CELL * 2 / 5,
        ink(colour),
        escape(&puzzle.pieces[i].name)
    );
}

/// The text colour on `fill` (`#RRGGBB`): black or white, whichever contrasts more by WCAG 2's
/// relative luminance (white on the dark colours of the palette, black on the rest).
fn ink(fill: &str) -> &'static str {
    let channel = |i: usize| {
        let v = fill.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(255) as f64 / 255.0;
        if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
    };
    let luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
    // Contrast with black (L + 0.05) / 0.05 against with white 1.05 / (L + 0.05).
    if (luminance + 0.05) * (luminance + 0.05) >= 0.05 * 1.05 { "#000" } else { "#fff" }
}

/// The translation (`x,y`) that puts a piece drawn at the origin at `anchor`.
fn translate(anchor: Cell) -> String {
    format!("{},{}", anchor.1 * CELL, anchor.0 * CELL)
}

/// The outline of a set of cells (`(row, col)`, relative to any origin): every cell edge not
/// shared with another cell of the set.
fn outline(cells: &[(isize, isize)]) -> String {
    let mut d = String::new();
    let set: HashSet<(isize, isize)> = cells.iter().copied().collect();
    let has = |r: isize, c: isize| set.contains(&(r, c));
    let cell = CELL as isize;
    for &(r, c) in cells {
        let (x, y) = (c * cell, r * cell);
        if !has(r - 1, c) {
            let _ = write!(d, "M{x} {y}h{CELL}");
        }
        if !has(r + 1, c) {
            let _ = write!(d, "M{x} {}h{CELL}", y + cell);
        }
        if !has(r, c - 1) {
            let _ = write!(d, "M{x} {y}v{CELL}");
        }
        if !has(r, c + 1) {
            let _ = write!(d, "M{} {y}v{CELL}", x + cell);
        }
    }
    d
}

/// A colour per piece: pieces of one identity class share one, goal pieces come first.
fn colours(puzzle: &Puzzle) -> Vec<&'static str> {
    let class = puzzle.identity_classes();
    let named = puzzle.goal.named_pieces(puzzle.pieces.len());
    let mut order: Vec<usize> = Vec::new();
    for i in (0..puzzle.pieces.len()).filter(|&i| named[i]).chain((0..puzzle.pieces.len()).filter(|&i| !named[i])) {
        if !order.contains(&class[i]) {
            order.push(class[i]);
        }
    }
    class.iter().map(|c| PALETTE[order.iter().position(|o| o == c).unwrap_or(0) % PALETTE.len()]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{ParseOptions, grid};

    #[test]
    fn outline_of_a_square_block_is_its_eight_outer_edges() {
        let d = outline(&[(0, 0), (0, 1), (1, 0), (1, 1)]);
        assert_eq!(d.matches('M').count(), 8);
        assert_eq!(d, "M0 0h40M0 0v40M40 0h40M80 0v40M0 80h40M0 40v40M40 80h40M80 40v40");
    }

    #[test]
    fn identical_klotski_pieces_share_a_colour_and_the_goal_piece_is_vermillion() {
        let text = "metric: free\ngoal: A at 3,1\nboard:\nBAAC\nBAAC\nDEEF\nDGHF\nI..J\n";
        let puzzle = grid::parse(text, &ParseOptions::default()).unwrap().puzzle;
        let colours = colours(&puzzle);
        let of = |name: &str| colours[puzzle.piece_index(name).unwrap()];
        assert_eq!(of("A"), "#D55E00");
        assert!(["C", "D", "F"].iter().all(|n| of(n) == of("B")));
        assert!(["H", "I", "J"].iter().all(|n| of(n) == of("G")));
        let mut distinct = vec![of("A"), of("B"), of("E"), of("G")];
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 4);
    }

    #[test]
    fn an_edge_goal_bar_spans_the_rows_the_piece_can_reach_the_edge_in() {
        let bar = |moves: &str| {
            let text = format!("goal: A reaches right\n{moves}board:\nA..\n...\n");
            let puzzle = grid::parse(&text, &ParseOptions::default()).unwrap().puzzle;
            let svg = board(&puzzle, &puzzle.start, None);
            let at = svg.find("<line class=\"goal\"").unwrap();
            svg[at..at + svg[at..].find("/>").unwrap()].split(" stroke=").next().unwrap().to_string()
        };
        assert_eq!(bar(""), r#"<line class="goal" x1="125" y1="0" x2="125" y2="80""#);
        assert_eq!(bar("moves: A=h\n"), r#"<line class="goal" x1="125" y1="0" x2="125" y2="40""#);
    }

    #[test]
    fn the_fifteen_puzzle_gets_fifteen_colours_with_readable_numbers() {
        assert_eq!(PALETTE.iter().collect::<std::collections::HashSet<_>>().len(), PALETTE.len());
        let text = "1 2 3 4\n5 6 7 8\n9 10 11 12\n13 14 0 15\n";
        let puzzle = crate::format::tiles::parse(text, &ParseOptions::default()).unwrap().puzzle;
        let mut colours = colours(&puzzle);
        colours.sort_unstable();
        colours.dedup();
        assert_eq!(colours.len(), 15);
        assert_eq!((ink("#F0E442"), ink("#0072B2"), ink("#332288"), ink("#D55E00")), ("#000", "#fff", "#fff", "#000"));
    }
}
