//! Pictures: the SVG boards and animations are well-formed XML, the animation holds one key frame
//! per move, and the last key frames put every piece where the verified replay leaves it.

use crate::common::{load, solve_with};
use slidesolve::puzzle::{Cell, Metric, Puzzle};
use slidesolve::render::{self, CELL};
use slidesolve::search::visited::Backend;
use slidesolve::solution::Move;
use slidesolve::solve::Algo;
use slidesolve::verify::replay;

/// Checks `text` is well-formed XML as far as these SVGs need: a prolog, properly nested and closed
/// elements, quoted attributes, no raw `<` or stray `&` in text or attribute values.
fn assert_well_formed(text: &str) {
    let entity_ok = |s: &str| {
        s.split('&').skip(1).all(|rest| ["amp;", "lt;", "gt;", "quot;", "apos;"].iter().any(|e| rest.starts_with(e)))
    };
    let body = text.strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n").expect("XML prolog");
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = body;
    let mut seen_root = false;
    while let Some(open) = rest.find('<') {
        let between = &rest[..open];
        assert!(entity_ok(between) && !between.contains('>'), "bad text {between:?}");
        assert!(!stack.is_empty() || between.trim().is_empty(), "text outside the root: {between:?}");
        let close = open + rest[open..].find('>').expect("unclosed tag");
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name), "mismatched </{name}>");
            continue;
        }
        let (tag, empty) = match tag.strip_suffix('/') {
            Some(t) => (t, true),
            None => (tag, false),
        };
        let name_end = tag.find(' ').unwrap_or(tag.len());
        let (name, mut attrs) = tag.split_at(name_end);
        assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'), "bad name {name:?}");
        while !attrs.trim().is_empty() {
            let (key, after) = attrs.trim_start().split_once("=\"").expect("attribute without a quoted value");
            assert!(key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':'), "bad attribute {key:?}");
            let (value, after) = after.split_once('"').expect("unterminated attribute");
            assert!(!value.contains('<') && entity_ok(value), "bad attribute value {value:?}");
            attrs = after;
        }
        assert!(stack.is_empty() || seen_root, "two roots");
        assert!(!(stack.is_empty() && seen_root), "a second root element <{name}>");
        seen_root = true;
        if !empty {
            stack.push(name);
        }
    }
    assert!(stack.is_empty() && rest.trim().is_empty(), "unclosed {stack:?}");
    assert!(seen_root);
}

/// The value of attribute `key` in the first element of `text` that has it.
fn attr<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let start = text.find(&format!(" {key}=\""))? + key.len() + 3;
    Some(&text[start..start + text[start..].find('"')?])
}

/// A translation `x,y` (in user units) as the anchor it puts a piece at.
fn anchor_of(xy: &str) -> Cell {
    let (x, y) = xy.split_once(',').unwrap();
    let (x, y): (usize, usize) = (x.parse().unwrap(), y.parse().unwrap());
    assert_eq!((x % CELL, y % CELL), (0, 0), "{xy} is not on the grid");
    (y / CELL, x / CELL)
}

/// Each piece's group in the animation: its last key-frame anchor and its key-frame count.
fn pieces_in(svg: &str, count: usize) -> Vec<(Cell, usize)> {
    (0..count)
        .map(|i| {
            let start = svg.find(&format!("<g class=\"piece\" data-piece=\"{i}\"")).unwrap();
            let group = &svg[start..start + svg[start..].find("</g>").unwrap()];
            match group.find("<animateTransform") {
                Some(at) => {
                    let anim = &group[at..];
                    let values: Vec<&str> = attr(anim, "values").unwrap().split(';').collect();
                    assert_eq!(values.len(), attr(anim, "keyTimes").unwrap().split(';').count());
                    (anchor_of(values.last().unwrap()), values.len())
                }
                None => {
                    let xy = attr(group, "transform").unwrap();
                    (anchor_of(xy.strip_prefix("translate(").unwrap().strip_suffix(')').unwrap()), 0)
                }
            }
        })
        .collect()
}

/// Solves `path` (optionally in another metric), animates it and checks the animation; returns its size.
fn check_animation(path: &str, metric: Option<Metric>, moves_expected: usize) -> usize {
    let mut parsed = load(path);
    if let Some(m) = metric {
        parsed.puzzle.metric = m;
    }
    let puzzle: &Puzzle = &parsed.puzzle;
    let moves: Vec<Move> = solve_with(&parsed, Algo::Bfs, Backend::Sharded, 1).moves.unwrap();
    assert_eq!(moves.len(), moves_expected);
    let svg = render::animation(puzzle, &moves).unwrap();
    assert_well_formed(&svg);
    let finals = replay(puzzle, &moves).unwrap().pop().unwrap();
    let pieces = pieces_in(&svg, puzzle.pieces.len());
    for (i, &(anchor, keys)) in pieces.iter().enumerate() {
        assert_eq!(anchor, finals[i], "piece {} ends elsewhere", puzzle.pieces[i].name);
        let own: Vec<&Move> = moves.iter().filter(|m| m.piece == i).collect();
        let expected = if own.is_empty() { 0 } else { 2 + own.iter().map(|m| 1 + m.runs().len()).sum::<usize>() };
        assert_eq!(keys, expected, "key frames of piece {}", puzzle.pieces[i].name);
    }
    let highlights = svg.matches("<animate attributeName=\"stroke\"").map(|_| ()).count();
    let moving = (0..puzzle.pieces.len()).filter(|&i| moves.iter().any(|m| m.piece == i)).count();
    assert_eq!(highlights, moving);
    let highlight_keys: usize = svg
        .split("<animate attributeName=\"stroke\"")
        .skip(1)
        .map(|a| attr(a, "values").unwrap().split(';').filter(|v| *v == "#000").count())
        .sum();
    assert_eq!(highlight_keys, moves.len(), "one highlighted key frame per move");
    assert_eq!(svg.matches("class=\"counter\"").count(), moves.len() + 1);
    assert!(svg.contains(&format!(">move {0} / {0}<", moves.len())));
    assert!(!svg.contains("<script"));
    svg.len()
}

#[test]
fn pictures_klotski_free_animation_ends_on_the_replayed_board() {
    check_animation("corpora/klotski/classic.grid", None, 81);
}

#[test]
fn pictures_klotski_unit_animation_is_under_200_kb() {
    let bytes = check_animation("corpora/klotski/classic.grid", Some(Metric::Unit), 116);
    assert!(bytes < 200_000, "{bytes} bytes");
}

#[test]
fn pictures_rush_hour_animation_ends_on_the_replayed_board() {
    check_animation("corpora/rush/hardest51.rush", None, 51);
}

#[test]
fn pictures_cs351_animation_ends_on_the_replayed_board() {
    let parsed = load("corpora/cs351/proj3a.data");
    let n = solve_with(&parsed, Algo::Bfs, Backend::Sharded, 1).moves.unwrap().len();
    check_animation("corpora/cs351/proj3a.data", None, n);
}

#[test]
fn pictures_8puzzle_animation_ends_on_the_replayed_board() {
    check_animation("corpora/tiles/8puzzle_863.tiles", None, 25);
}

#[test]
fn pictures_frames_are_one_still_per_step() {
    let parsed = load("corpora/klotski/classic.grid");
    let moves = solve_with(&parsed, Algo::Bfs, Backend::Sharded, 1).moves.unwrap();
    let frames = render::frames(&parsed.puzzle, &moves).unwrap();
    assert_eq!(frames.len(), 82);
    frames.iter().for_each(|f| assert_well_formed(f));
    let finals = replay(&parsed.puzzle, &moves).unwrap().pop().unwrap();
    let last = pieces_in(&frames[81], finals.len());
    assert_eq!(last.iter().map(|&(a, _)| a).collect::<Vec<_>>(), finals);
    assert!(frames[81].contains(">move 81 / 81<"));
}

#[test]
fn pictures_draw_shows_each_tile_number_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tiles.svg");
    assert_cmd::Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["draw", "corpora/tiles/8puzzle_863.tiles", "--out"])
        .arg(&out)
        .assert()
        .code(0);
    let svg = std::fs::read_to_string(&out).unwrap();
    assert_well_formed(&svg);
    for n in 1..=8 {
        assert_eq!(svg.matches(&format!(">{n}</text>")).count(), 1, "tile {n}");
    }
}

#[test]
fn pictures_escape_names() {
    assert_eq!(render::escape(r#"a&b<c>"d'"#), "a&amp;b&lt;c&gt;&quot;d'");
}

#[test]
fn pictures_unwritable_path_is_named_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("missing").join("x.svg");
    let assert = assert_cmd::Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["solve", "corpora/tiles/8puzzle_863.tiles", "--svg"])
        .arg(&out)
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(stderr.contains(&out.display().to_string()), "{stderr}");
}
