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
    let highlights = svg.matches("<animate attributeName=\"stroke-opacity\"").count();
    let moving = (0..puzzle.pieces.len()).filter(|&i| moves.iter().any(|m| m.piece == i)).count();
    assert_eq!(highlights, moving);
    assert_eq!(svg.matches("class=\"highlight\"").count(), moving);
    let highlight_keys: usize = svg
        .split("<animate attributeName=\"stroke-opacity\"")
        .skip(1)
        .map(|a| attr(a, "values").unwrap().split(';').filter(|v| *v == "1").count())
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

/// `solve --frames DIR` into a directory an earlier, longer solution filled leaves this
/// solution's frames alone: the stale ones go, other files stay.
#[test]
fn pictures_frames_of_a_shorter_solution_replace_the_longer_ones() {
    let dir = tempfile::tempdir().unwrap();
    let frames = dir.path().join("frames");
    let solve = |file: &str| {
        assert_cmd::Command::cargo_bin("slidesolve")
            .unwrap()
            .args(["solve", file, "--frames", frames.to_str().unwrap()])
            .assert()
            .success();
        let mut names: Vec<String> =
            std::fs::read_dir(&frames).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    };
    assert_eq!(solve("corpora/klotski/classic.grid").len(), 82);
    std::fs::write(frames.join("notes.txt"), "mine").unwrap();
    let short = dir.path().join("short.grid");
    std::fs::write(&short, "goal: A at 0,2\nboard:\nA..\n").unwrap();
    assert_eq!(solve(short.to_str().unwrap()), ["notes.txt", "step-000.svg", "step-001.svg", "step-002.svg"]);
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

/// Runs slidesolve with `args`; returns (exit code, stdout, stderr).
fn slidesolve(args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::cargo_bin("slidesolve").unwrap().args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// The rows of a CSV file, header first.
fn csv_rows(path: &std::path::Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_path(path).unwrap();
    reader.records().map(|r| r.unwrap().iter().map(String::from).collect()).collect()
}

/// Every file of a gallery directory by name, with its bytes.
fn files_in(dir: &std::path::Path, prefix: &str) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .map(|p| (p.file_name().unwrap().to_string_lossy().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// Checks a family run's hardest gallery against its components.csv: the right components, in
/// order, each still starting on its hardest layout and each animation as long as its distance and
/// ending on a goal layout. Returns the number of pictures.
fn check_hardest(spec_path: &str, dir: &std::path::Path, k: usize) -> usize {
    use slidesolve::family::{class_puzzle, classes, read_layout, spec};
    let spec = spec::parse(&std::fs::read_to_string(spec_path).unwrap()).unwrap();
    let components = csv_rows(&dir.join("components.csv"));
    let mut solvable: Vec<(u32, u64, &Vec<String>)> = components[1..]
        .iter()
        .filter(|r| !r[4].is_empty())
        .map(|r| (r[4].parse().unwrap(), r[0].parse().unwrap(), r))
        .collect();
    solvable.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    solvable.truncate(k);
    let index = csv_rows(&dir.join("hardest.csv"));
    assert_eq!(index[0], ["rank", "component", "class", "hardest_moves", "picture"]);
    assert_eq!(index.len() - 1, solvable.len());
    let width = solvable.len().to_string().len().max(3);
    for (rank, (row, &(moves, component, record))) in index[1..].iter().zip(&solvable).enumerate() {
        let rank = rank + 1;
        assert_eq!(row[..4], [rank.to_string(), component.to_string(), record[1].clone(), moves.to_string()]);
        let still = format!("hardest-{rank:0width$}-component-{component}.svg");
        let solution = format!("hardest-{rank:0width$}-component-{component}-solution.svg");
        assert_eq!(row[4], format!("{still} {solution}"));
        let class =
            classes(&spec, u64::MAX, None).unwrap().into_iter().find(|c| c.describe(&spec) == record[1]).unwrap();
        let mut puzzle = class_puzzle(&spec, &class, None, (u64::MAX, None)).unwrap().0.unwrap();
        puzzle.start = read_layout(&puzzle.board, &puzzle.pieces, &record[5]).unwrap();
        let still = std::fs::read_to_string(dir.join(still)).unwrap();
        assert_well_formed(&still);
        assert!(still.contains("class=\"goal\"") && still.contains(&format!(">#{component}: {moves} moves<")));
        let at: Vec<Cell> = pieces_in(&still, puzzle.pieces.len()).iter().map(|p| p.0).collect();
        assert_eq!(at, puzzle.start);
        let animation = std::fs::read_to_string(dir.join(solution)).unwrap();
        assert_well_formed(&animation);
        assert!(animation.contains(&format!(">move {moves} / {moves}<")), "component {component}");
        assert_eq!(animation.matches("class=\"counter\"").count(), moves as usize + 1);
        let finals: Vec<Cell> = pieces_in(&animation, puzzle.pieces.len()).iter().map(|p| p.0).collect();
        assert!(puzzle.is_goal(&finals), "component {component} does not end on a goal layout");
    }
    solvable.len()
}

#[test]
fn pictures_family_draws_the_hardest_components_the_same_for_any_threads() {
    let dirs: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    for (threads, dir) in ["1", "2"].iter().zip(&dirs) {
        let out = dir.path().to_str().unwrap();
        let spec = "corpora/families/klotski-classic.family";
        let (code, stdout, stderr) =
            slidesolve(&["family", spec, "--out", out, "--draw-hardest", "3", "--threads", threads]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.ends_with(&format!("pictures: 3 of 3 hardest layouts in {out}, listed in {out}/hardest.csv\n")));
        assert_eq!(check_hardest(spec, dir.path(), 3), 3);
    }
    let index = csv_rows(&dirs[0].path().join("hardest.csv"));
    assert_eq!(index[1][3], "93", "the published hardest classic Klotski layout needs 93 moves");
    assert_eq!(files_in(dirs[0].path(), "hardest"), files_in(dirs[1].path(), "hardest"));
}

#[test]
fn pictures_family_resumed_draws_what_an_uninterrupted_run_draws() {
    let whole = tempfile::tempdir().unwrap();
    let spec = "corpora/families/walled-4x4.family";
    let args = |dir: &tempfile::TempDir, extra: &[&str]| {
        let mut a = vec!["family", spec, "--out", dir.path().to_str().unwrap(), "--draw-hardest", "5"];
        a.extend_from_slice(extra);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let run = |a: Vec<String>| slidesolve(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run(args(&whole, &[])).0, 0);
    assert_eq!(check_hardest(spec, whole.path(), 5), 5);
    // A killed run: the last half of the classes never finished.
    let cut = tempfile::tempdir().unwrap();
    let classes = std::fs::read_to_string(whole.path().join("classes.csv")).unwrap();
    let lines: Vec<&str> = classes.lines().collect();
    std::fs::write(cut.path().join("classes.csv"), lines[..lines.len() / 2].join("\n") + "\n").unwrap();
    for file in ["components.csv", "run.json"] {
        std::fs::copy(whole.path().join(file), cut.path().join(file)).unwrap();
    }
    let (code, _, stderr) = run(args(&cut, &["--resume"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(files_in(whole.path(), "hardest"), files_in(cut.path(), "hardest"));
}

#[test]
fn pictures_family_asked_for_more_than_there_are_draws_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let spec = "corpora/families/dominoes-3x3.family";
    let (code, stdout, stderr) = slidesolve(&["family", spec, "--out", out, "--draw-hardest", "1000", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with('{') && !stdout.contains("pictures:"), "JSON stays JSON: {stdout}");
    let n = check_hardest(spec, dir.path(), 1000);
    assert!(n > 3 && n < 1000, "{n}");
    assert_eq!(files_in(dir.path(), "hardest-").len(), 2 * n);
    // A second run with fewer pictures removes the first run's extra ones.
    assert_eq!(slidesolve(&["family", spec, "--out", out, "--draw-hardest", "2", "--force"]).0, 0);
    assert_eq!(files_in(dir.path(), "hardest-").len(), 4);
    assert_eq!(check_hardest(spec, dir.path(), 2), 2);
}

/// Checks a batch's deepest gallery against its results CSV: the right rows, in order, each
/// animation ending where the row's solution, replayed, leaves the puzzle.
fn check_deepest(csv_path: &std::path::Path, k: usize) -> usize {
    use slidesolve::batch::corpus::id_order;
    use slidesolve::solution::parse_solution;
    let rows = slidesolve::batch::record::read_rows(csv_path).unwrap();
    let mut solved: Vec<_> = rows.iter().filter(|r| r.status == "solved").collect();
    solved.sort_by(|a, b| b.moves.cmp(&a.moves).then((id_order(&a.id), &a.id).cmp(&(id_order(&b.id), &b.id))));
    solved.truncate(k);
    let dir = slidesolve::batch::deepest::dir_for(csv_path);
    let index = csv_rows(&dir.join("deepest.csv"));
    assert_eq!(index[0], ["rank", "id", "moves", "picture"]);
    assert_eq!(index.len() - 1, solved.len());
    for (i, (entry, row)) in index[1..].iter().zip(&solved).enumerate() {
        assert_eq!(entry[..3], [(i + 1).to_string(), row.id.clone(), row.moves.unwrap().to_string()]);
        let svg = std::fs::read_to_string(dir.join(&entry[3])).unwrap();
        assert_well_formed(&svg);
        let (file, line) = id_order(&row.id);
        let parsed = if file == row.id {
            load(file)
        } else {
            let text = std::fs::read_to_string(file).unwrap();
            let format = slidesolve::format::detect(Some(std::path::Path::new(file)), &text);
            let items = slidesolve::format::parse_many(format, &text, &Default::default()).unwrap();
            items.into_iter().find(|(l, _)| *l as u64 == line).unwrap().1.unwrap()
        };
        let moves = parse_solution(&parsed.puzzle, &row.solution).unwrap();
        let finals = replay(&parsed.puzzle, &moves).unwrap().pop().unwrap();
        let at: Vec<Cell> = pieces_in(&svg, finals.len()).iter().map(|p| p.0).collect();
        assert_eq!(at, finals, "{}", row.id);
        let n = moves.len();
        assert!(svg.contains(&format!(">move {n} / {n}<")));
    }
    solved.len()
}

#[test]
fn pictures_batch_draws_the_deepest_solutions_the_same_for_any_threads_and_after_a_resume() {
    let dir = tempfile::tempdir().unwrap();
    let csv = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (name, threads) in [("one.csv", "1"), ("two.csv", "2")] {
        let (code, stdout, stderr) = slidesolve(&[
            "batch",
            "corpora/rush",
            "--out",
            &csv(name),
            "--quiet",
            "--draw-deepest",
            "4",
            "--threads",
            threads,
        ]);
        // Card 1 of tuler_levels200.txt is a known mismatch of the corpus: exit 1.
        assert_eq!(code, 1, "{stderr}");
        let gallery = csv(name).replace(".csv", "-deepest");
        assert!(
            stdout
                .contains(&format!("pictures: 4 of 4 deepest solutions in {gallery}, listed in {gallery}/deepest.csv"))
        );
        assert_eq!(check_deepest(std::path::Path::new(&csv(name)), 4), 4);
    }
    let gallery = |name: &str| files_in(&dir.path().join(name), "deepest-");
    assert_eq!(gallery("one-deepest"), gallery("two-deepest"));
    assert_eq!(gallery("one-deepest").len(), 4);
    // A killed run: only its first 100 rows were written.
    let text = std::fs::read_to_string(csv("one.csv")).unwrap();
    let cut: Vec<&str> = text.lines().take(101).collect();
    std::fs::write(csv("cut.csv"), cut.join("\n") + "\n").unwrap();
    let (_, _, stderr) =
        slidesolve(&["batch", "corpora/rush", "--out", &csv("cut.csv"), "--resume", "--draw-deepest", "4"]);
    assert!(stderr.contains("resuming: 100 of 247"), "{stderr}");
    assert_eq!(gallery("one-deepest"), gallery("cut-deepest"));
}

#[test]
fn pictures_batch_with_fewer_solved_puzzles_than_asked_draws_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    let out = out.to_str().unwrap();
    let (code, stdout, stderr) = slidesolve(&[
        "batch",
        "corpora/tiles/8puzzle_863.tiles",
        "corpora/tiles/8puzzle_unsolvable.tiles",
        "corpora/cs351/proj3a.data",
        "--out",
        out,
        "--draw-deepest",
        "5",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("pictures: 2 of 5 deepest solutions"), "{stdout}");
    assert_eq!(check_deepest(std::path::Path::new(out), 5), 2);
}

#[test]
fn pictures_batch_draws_a_solution_that_moves_a_piece_named_star() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = dir.path().join("star.grid");
    std::fs::write(&puzzle, "goal: * at 0,2\nboard:\n*..\n").unwrap();
    let out = dir.path().join("r.csv");
    let (code, stdout, stderr) =
        slidesolve(&["batch", puzzle.to_str().unwrap(), "--out", out.to_str().unwrap(), "--draw-deepest", "1"]);
    assert_eq!(code, 0, "{stderr}");
    let gallery = dir.path().join("r-deepest").display().to_string();
    assert!(
        stdout.contains(&format!("pictures: 1 of 1 deepest solutions in {gallery}, listed in {gallery}/deepest.csv\n")),
        "{stdout}"
    );
    assert_eq!(check_deepest(&out, 1), 1);
}

#[test]
fn pictures_bad_counts_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    let out = out.to_str().unwrap();
    for k in ["0", "1001", "-1", "x", "99999999999999999999999", ""] {
        let (code, _, stderr) =
            slidesolve(&["batch", "corpora/tiles/8puzzle_123.tiles", "--out", out, &format!("--draw-deepest={k}")]);
        assert_eq!(code, 2, "batch --draw-deepest {k}: {stderr}");
        assert!(stderr.contains("--draw-deepest") && !stderr.contains("panicked"), "{stderr}");
        let spec = "corpora/families/dominoes-3x3.family";
        let (code, _, stderr) = slidesolve(&["family", spec, "--out", out, &format!("--draw-hardest={k}")]);
        assert_eq!(code, 2, "family --draw-hardest {k}: {stderr}");
        assert!(stderr.contains("--draw-hardest") && !stderr.contains("panicked"), "{stderr}");
    }
    assert!(!std::path::Path::new(out).exists(), "nothing runs on a usage error");
    let (code, _, stderr) = slidesolve(&["family", "corpora/families/dominoes-3x3.family", "--draw-hardest", "2"]);
    assert_eq!(code, 2, "--draw-hardest needs --out: {stderr}");
}

/// The bounds the memory budget is checked with hold every picture's text, and the text is built
/// in the room reserved for that bound (it never moves while it grows, which held it twice).
#[test]
fn pictures_fit_the_bounds_their_memory_check_uses() {
    let files = [
        "corpora/klotski/classic.grid",
        "corpora/rush/hardest51.rush",
        "corpora/cs351/proj3a.data",
        "corpora/tiles/8puzzle_863.tiles",
    ];
    for file in files {
        let parsed = load(file);
        let puzzle = &parsed.puzzle;
        let moves = solve_with(&parsed, Algo::Bfs, Backend::Sharded, 1).moves.unwrap();
        let (still, _) = render::start_still(puzzle, true, u64::MAX).unwrap();
        let boards = if still.contains(">goal<") { 2 } else { 1 };
        assert!(still.len() as u64 <= render::scene_bytes(puzzle, boards).unwrap(), "{file}");
        let animation = render::animation(puzzle, &moves).unwrap();
        assert!(animation.len() as u64 <= render::animation_bytes(puzzle, &moves).unwrap(), "{file}");
        let frames = render::frames(puzzle, &moves).unwrap();
        let total: u64 = frames.iter().map(|f| f.len() as u64).sum();
        assert!(total <= render::frames_bytes(puzzle, &moves).unwrap(), "{file}");
    }
    // A big board with a goal layout: the bound is close to the text, and nothing beside it grows.
    let text =
        format!("goal: A at 299,298\nboard:\nAA{}\n{}", ".".repeat(298), format!("{}\n", ".".repeat(300)).repeat(299));
    let parsed = slidesolve::format::grid::parse(&text, &Default::default()).unwrap();
    let bound = render::scene_bytes(&parsed.puzzle, 1).unwrap();
    let ((still, beside), peak) =
        crate::bounded_alloc::measured(bound as usize, || render::start_still(&parsed.puzzle, true, bound).unwrap());
    assert!(!beside);
    assert!(still.len() as u64 <= bound && bound <= still.len() as u64 * 11 / 10, "{} of {bound}", still.len());
    assert!(peak as u64 <= bound + (1 << 16), "{peak} of {bound}");
    let refused = render::start_still(&parsed.puzzle, false, bound - 1).unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "a picture of a 300 x 300 board would need {} (more than the memory limit of {})",
            slidesolve::memory::over(bound, bound - 1).0,
            slidesolve::memory::over(bound, bound - 1).1
        )
    );
}

#[test]
fn pictures_line_counts_only_the_pictures_drawn() {
    let dir = tempfile::tempdir().unwrap();
    // batch: the deepest rows of the resumed CSV are not among this run's inputs (a resume with
    // other inputs is refused, unless the CSV has no record to check them against).
    let csv_path = dir.path().join("dd.csv");
    let csv = csv_path.to_str().unwrap();
    let quiet = ["--quiet", "--threads", "1"];
    let (code, _, stderr) =
        slidesolve(&[&["batch", "corpora/mixed/rush10.txt", "--out", csv][..], &quiet[..]].concat());
    assert_eq!(code, 0, "{stderr}");
    std::fs::remove_file(slidesolve::batch::metadata::path_for(&csv_path)).unwrap();
    let resumed = ["batch", "corpora/tiles/8puzzle_123.tiles", "--out", csv, "--resume", "--draw-deepest", "2"];
    let (code, stdout, stderr) = slidesolve(&[&resumed[..], &quiet[..]].concat());
    let gallery = dir.path().join("dd-deepest").display().to_string();
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout
            .ends_with(&format!("pictures: 0 of 2 deepest solutions in {gallery}, listed in {gallery}/deepest.csv\n")),
        "{stdout}"
    );
    let not_drawn = |line: u32| {
        format!("error: cannot draw corpora/mixed/rush10.txt:{line}: not a puzzle of this run's inputs, so not drawn\n")
    };
    let unchecked = format!(
        "warning: {csv}.json keeps no settings (missing, unreadable or from an older build): cannot check that \
         the rows already in {csv} were computed as this run computes them\n"
    );
    assert_eq!(stderr, unchecked + &not_drawn(6) + &not_drawn(7));
    assert_eq!(files_in(std::path::Path::new(&gallery), "deepest-").len(), 0);
    // family: the hardest component's moves, altered in components.csv, are not what the solver finds.
    let out = dir.path().join("fam");
    let out = out.to_str().unwrap();
    let spec = "corpora/families/dominoes-3x3.family";
    assert_eq!(slidesolve(&["family", spec, "--out", out, "--threads", "1"]).0, 0);
    let path = dir.path().join("fam/components.csv");
    let mut rows = csv_rows(&path);
    let first = (1..rows.len()).max_by_key(|&i| (rows[i][4].parse::<u32>().ok(), std::cmp::Reverse(i))).unwrap();
    let moves: u32 = rows[first][4].parse().unwrap();
    rows[first][4] = (moves + 1).to_string();
    let mut writer = csv::Writer::from_path(&path).unwrap();
    rows.iter().for_each(|row| writer.write_record(row).unwrap());
    writer.flush().unwrap();
    let (code, stdout, stderr) =
        slidesolve(&["family", spec, "--out", out, "--resume", "--draw-hardest", "2", "--threads", "1"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.ends_with(&format!("pictures: 1 of 2 hardest layouts in {out}, listed in {out}/hardest.csv\n")));
    let component = &rows[first][0];
    let want = format!(
        "error: cannot draw component {component}: the solver needs {moves} moves where components.csv says {}\n",
        moves + 1
    );
    assert_eq!(stderr, want);
}
