//! Bad input never panics and never exhausts memory: every parser (grid, CS 351, tiles, Rush Hour,
//! family specs with their classes' listing and first-layout search, solution strings, the results CSV and its metadata that `batch --resume` reads, the classes.csv and
//! run.json that `family --resume` reads, the components.csv that `--draw-hardest` reads) and the compiler behind them are fed
//! seeded structure-aware mutations of the bundled corpus files and random bytes. Each case must
//! return (an error that names a line of its input, or a puzzle that compiles or is refused), hold
//! less than [`ALLOC_BOUND`] bytes at once, and panic nowhere.
//!
//! `SLIDESOLVE_FUZZ_CASES=N` sets the cases per target (default [`DEFAULT_CASES`]);
//! `SLIDESOLVE_FUZZ_SEED=S` another seed. A failing case is printed with its seed and index.

use crate::bounded_alloc::measured;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use slidesolve::batch::record::{Row, RowWriter, read_rows};
use slidesolve::domain::{Domain, DomainTask, with_domain};
use slidesolve::family::FamilyError;
use slidesolve::family::csv::{RunSettings, Writer};
use slidesolve::format::{self, Format, ParseError, ParseOptions};
use slidesolve::puzzle::Puzzle;
use slidesolve::search::Limits;
use slidesolve::solution::parse_solution;
use slidesolve::solve::{Algo, SolveOptions, solve};
use slidesolve::verify::verify;
use std::collections::HashSet;
use std::panic::AssertUnwindSafe;

/// Cases per target in a plain `cargo test` run.
const DEFAULT_CASES: usize = 3000;
/// The memory budget given to parsers and compile (`--max-memory` of each case).
const BUDGET: u64 = 64 << 20;
/// The most live bytes one case may hold at once.
const ALLOC_BOUND: usize = 256 << 20;

fn cases() -> usize {
    std::env::var("SLIDESOLVE_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_CASES)
}

fn seed() -> u64 {
    std::env::var("SLIDESOLVE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(20261122)
}

/// Tokens that break parsers: extreme numbers, format keywords, separators, odd characters.
const INTERESTING: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "3",
    "255",
    "256",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "4294967299",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744069414584323",
    "99999999999999999999999",
    "1e30",
    "inf",
    "NaN",
    "-0",
    ".",
    "o",
    "x",
    "#",
    "A",
    "Z",
    "h",
    "v",
    "b",
    "n",
    "board:",
    "target:",
    "goal:",
    "metric: free",
    "metric: straight",
    "moves: A=h B=n",
    "distinct: yes",
    "size: 2x5",
    "size: 4294967299x18446744069414584323",
    "size: 0x0",
    "goal: A at 9,9",
    "goal: A at 18446744073709551615,0",
    "goal: A reaches right",
    "goal: 1 2 3 4 5 6 7 8 9 0",
    "\t",
    "\r",
    "\u{0}",
    "é",
    "😀",
    ":",
    ";",
    "/",
    ",",
    "A:R1000000",
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "oooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo",
];

/// One random change to `bytes`.
fn mutate_once(rng: &mut ChaCha8Rng, bytes: &mut Vec<u8>) {
    let pos = |rng: &mut ChaCha8Rng, len: usize| if len == 0 { 0 } else { rng.random_range(0..=len) };
    match rng.random_range(0..9) {
        // Replace a whitespace-separated token with an interesting one.
        0 | 1 => {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let tokens: Vec<(usize, &str)> =
                text.split_whitespace().map(|t| (t.as_ptr() as usize - text.as_ptr() as usize, t)).collect();
            if let Some(&(at, token)) = tokens.choose(rng) {
                let new = INTERESTING.choose(rng).copied().unwrap_or("0");
                let mut out = text.as_bytes()[..at].to_vec();
                out.extend_from_slice(new.as_bytes());
                out.extend_from_slice(&text.as_bytes()[at + token.len()..]);
                *bytes = out;
            }
        }
        // Insert an interesting token (with a line break now and then).
        2 => {
            let at = pos(rng, bytes.len());
            let mut new = INTERESTING.choose(rng).copied().unwrap_or("0").as_bytes().to_vec();
            if rng.random_bool(0.3) {
                new.push(b'\n');
            }
            bytes.splice(at..at, new);
        }
        // Delete a range.
        3 => {
            let a = pos(rng, bytes.len());
            let b = (a + rng.random_range(0..16)).min(bytes.len());
            bytes.drain(a..b);
        }
        // Repeat a line up to 40 times.
        4 => {
            let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            if let Some(line) = lines.choose(rng) {
                let mut copy = line.to_vec();
                copy.push(b'\n');
                let times = rng.random_range(1..40);
                let at = pos(rng, bytes.len());
                let insert: Vec<u8> = copy.repeat(times);
                bytes.splice(at..at, insert);
            }
        }
        // Swap two lines.
        5 => {
            let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
            if lines.len() > 1 {
                let (i, j) = (rng.random_range(0..lines.len()), rng.random_range(0..lines.len()));
                lines.swap(i, j);
                *bytes = lines.join(&b'\n');
            }
        }
        // Overwrite a byte with a character the formats care about.
        6 => {
            if !bytes.is_empty() {
                let at = rng.random_range(0..bytes.len());
                bytes[at] = *b"ABCZoxX.#0123456789 \n:;,/-hvbn".choose(rng).unwrap_or(&b'.');
            }
        }
        // Truncate.
        7 => {
            let at = pos(rng, bytes.len());
            bytes.truncate(at);
        }
        // Insert random bytes.
        _ => {
            let at = pos(rng, bytes.len());
            let noise: Vec<u8> = (0..rng.random_range(1..8)).map(|_| rng.random()).collect();
            bytes.splice(at..at, noise);
        }
    }
}

/// A mutated seed, or (one case in ten) random bytes.
fn input(rng: &mut ChaCha8Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    if rng.random_bool(0.1) {
        let len = rng.random_range(0..200);
        return (0..len).map(|_| if rng.random_bool(0.5) { rng.random_range(32..127) } else { rng.random() }).collect();
    }
    let mut bytes = seeds.choose(rng).cloned().unwrap_or_default();
    for _ in 0..rng.random_range(1..5) {
        mutate_once(rng, &mut bytes);
    }
    bytes
}

/// Runs `cases()` cases of `target`; each gets its own generator, so a failure names a
/// reproducible (seed, case).
fn run(name: &str, seeds: &[Vec<u8>], target: impl Fn(&mut ChaCha8Rng, &[u8])) {
    let seed = seed();
    let n = cases();
    for case in 0..n {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (case as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let bytes = input(&mut rng, seeds);
        let (outcome, peak) =
            measured(ALLOC_BOUND, || std::panic::catch_unwind(AssertUnwindSafe(|| target(&mut rng, &bytes))));
        let show = || String::from_utf8_lossy(&bytes).chars().take(2000).collect::<String>();
        assert!(outcome.is_ok(), "fuzz {name}: panic on case {case} (seed {seed}), input:\n{}", show());
        assert!(
            peak <= ALLOC_BOUND,
            "fuzz {name}: case {case} (seed {seed}) held {peak} bytes (bound {ALLOC_BOUND}), input:\n{}",
            show()
        );
    }
    eprintln!("fuzz {name}: {n} cases, seed {seed}, no panic, every case within {ALLOC_BOUND} bytes");
}

fn read(paths: &[&str]) -> Vec<Vec<u8>> {
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            // Long corpus files contribute their first lines only.
            text.lines().take(30).collect::<Vec<_>>().join("\n").into_bytes()
        })
        .collect()
}

/// An error must name a line of the input (or 0, the whole file) and say something.
fn check_error(e: &ParseError, text: &str) {
    assert!(!e.message.is_empty(), "an empty error message");
    assert!(
        e.line <= text.lines().count() + 1,
        "error line {} beyond the input's {} lines: {e}",
        e.line,
        text.lines().count()
    );
}

/// Compiles the puzzle and walks a few hundred states of it.
struct Probe;

impl DomainTask for Probe {
    type Output = usize;
    fn run<D: Domain>(self, domain: &D) -> usize {
        let mut scratch = domain.scratch();
        let start = domain.start();
        let mut seen: HashSet<D::Key> = HashSet::from([start]);
        let mut queue = vec![start];
        let mut head = 0;
        while head < queue.len() && seen.len() < 300 {
            let key = queue[head];
            head += 1;
            let _ = domain.is_goal(&key);
            let _ = domain.anchors(&key);
            domain.for_each_successor(&key, &mut scratch, |child| {
                if seen.insert(child) {
                    queue.push(child);
                }
            });
        }
        if let Some(&last) = queue.last() {
            let _ = domain.moved_anchor(&start, &last);
        }
        seen.len()
    }
}

/// Everything a parsed puzzle goes through: drawing, compiling, moves read and replayed, and now
/// and then a bounded search.
fn exercise(rng: &mut ChaCha8Rng, puzzle: &Puzzle) {
    let _ = format::render(puzzle, &puzzle.start);
    let _ = with_domain(puzzle, BUDGET, Probe);
    let names: Vec<&str> = puzzle.pieces.iter().map(|p| p.name.as_str()).collect();
    let mut text = String::new();
    for _ in 0..rng.random_range(0..6) {
        let name = names.choose(rng).copied().unwrap_or("A");
        let count = ["", "2", "3", "10", "0", "1000000", "18446744073709551616"].choose(rng).copied().unwrap_or("");
        let dirs: String =
            (0..rng.random_range(1..4)).map(|_| *['U', 'D', 'L', 'R', 'x'].choose(rng).unwrap_or(&'U')).collect();
        text.push_str(&format!("{name}:{dirs}{count} "));
    }
    if let Ok(moves) = parse_solution(puzzle, &text) {
        let _ = verify(puzzle, &moves);
    }
    if rng.random_ratio(1, 40) {
        let algo = *[Algo::Bfs, Algo::Bidir, Algo::Astar, Algo::Reference].choose(rng).unwrap_or(&Algo::Bfs);
        let deadline = Some(std::time::Instant::now() + std::time::Duration::from_secs(2));
        let limits = Limits { max_states: Some(2000), max_memory: Some(BUDGET), deadline };
        let options = SolveOptions { algo, limits, ..SolveOptions::default() };
        let _ = solve(puzzle, &options);
    }
}

/// Parses `bytes` in `format` as one puzzle and as a multi-puzzle file, with and without a
/// `--goal`, and exercises what comes out.
fn parse_target(format: Format) -> impl Fn(&mut ChaCha8Rng, &[u8]) {
    move |rng, bytes| {
        let text = match format::decode_text(bytes) {
            Ok(text) => text,
            Err(e) => return check_error(&e, &String::from_utf8_lossy(bytes)),
        };
        let goal = rng.random_ratio(1, 5).then(|| {
            let goals =
                ["A at 0,0", "Z at 1,3", "A reaches left", "1 at 0,0", "blank-first", "A at 99,99", "B reaches up"];
            goals.choose(rng).map(|g| g.to_string()).unwrap_or_default()
        });
        let options = ParseOptions { goal, max_memory: Some(BUDGET), goal_optional: rng.random_ratio(1, 4) };
        match format::parse(format, text, &options) {
            Ok(parsed) => exercise(rng, &parsed.puzzle),
            Err(e) => check_error(&e, text),
        }
        for (_, item) in format::parse_many(format, text, &options).unwrap_or_default().into_iter().take(3) {
            match item {
                Ok(parsed) => exercise(rng, &parsed.puzzle),
                Err(e) => check_error(&e, text),
            }
        }
    }
}

#[test]
fn grid_files() {
    let seeds = read(&[
        "corpora/klotski/classic.grid",
        "corpora/blocks/dlaa.grid",
        "corpora/blocks/irregular.grid",
        "corpora/mixed/broken.grid",
        "corpora/mixed/stuck.grid",
    ]);
    run("grid", &seeds, parse_target(Format::Grid));
}

#[test]
fn cs351_files() {
    let seeds = read(&[
        "corpora/cs351/proj3a.data",
        "corpora/cs351/warnings.data",
        "corpora/cs351/too_many.data",
        "corpora/cs351/nosolution.data",
        "corpora/cs351/error_rows.data",
    ]);
    let general = parse_target(Format::Cs351);
    run("cs351", &seeds, |rng, bytes| {
        general(rng, bytes);
        if let Ok(text) = format::decode_text(bytes) {
            check_cs351_error_place(text);
        }
    });
}

/// A CS 351 error that gives a column names the first character of a token of its line (a line
/// of the input), counted in characters; a prescribed one keeps the course's `Error: ` text.
fn check_cs351_error_place(text: &str) {
    let Err(e) = format::cs351::parse(text, BUDGET) else { return };
    if e.prescribed {
        assert!(e.message.starts_with("Error: "), "{e}");
    }
    let Some(column) = e.column else { return };
    let line: Vec<char> =
        text.lines().nth(e.line.wrapping_sub(1)).unwrap_or_else(|| panic!("{e}: no such line")).chars().collect();
    let starts_token =
        line.get(column - 1).is_some_and(|c| !c.is_whitespace()) && (column == 1 || line[column - 2].is_whitespace());
    assert!(starts_token, "{e}: column {column} starts no token of {:?}", line.iter().collect::<String>());
}

#[test]
fn tile_files() {
    let mut seeds = read(&[
        "corpora/tiles/8puzzle_863.tiles",
        "corpora/tiles/8puzzle_283.tiles",
        "corpora/tiles/15puzzle_articles.tiles",
        "corpora/tiles/8puzzles_10000.tiles",
        "corpora/mixed/2x5.tiles",
    ]);
    seeds.push(b"2 5\n1 2 3 4 5\n6 7 8 9 0\ngoal: 1 2 3 4 5 6 7 8 9 0\n".to_vec());
    seeds.push(b"863.54217\n".to_vec());
    run("tiles", &seeds, parse_target(Format::Tiles));
}

#[test]
fn rush_files() {
    let seeds = read(&["corpora/rush/hardest51.rush", "corpora/rush/tuler_levels200.txt", "corpora/mixed/rush10.txt"]);
    run("rush", &seeds, parse_target(Format::Rush));
}

#[test]
fn format_detection_and_any_format() {
    let seeds = read(&[
        "corpora/klotski/classic.grid",
        "corpora/cs351/proj3a.data",
        "corpora/tiles/8puzzle_863.tiles",
        "corpora/rush/hardest51.rush",
    ]);
    run("detect", &seeds, |rng, bytes| {
        if let Ok(text) = format::decode_text(bytes) {
            parse_target(format::detect(None, text))(rng, bytes);
        }
    });
}

#[test]
fn family_specs() {
    let seeds = read(&[
        "corpora/families/klotski.family",
        "corpora/families/klotski-classic.family",
        "corpora/families/dominoes-3x3.family",
        "corpora/families/walled-4x4.family",
        "corpora/families/rush4x4.family",
        "corpora/families/rush6x6.family",
        "corpora/families/rush6x6-walls2.family",
        "corpora/families/bickford-4x4.family",
        "corpora/families/pentominoes-7x9.family",
        "corpora/families/trominoes-8x8.family",
    ]);
    run("family", &seeds, |_, bytes| {
        let text = match format::decode_text(bytes) {
            Ok(text) => text,
            Err(e) => return check_error(&e, &String::from_utf8_lossy(bytes)),
        };
        match slidesolve::family::spec::parse(text) {
            Ok(spec) => {
                // The first and last class's search for a first layout, cut short by a deadline
                // (it looks at the clock every 65,536 placements tried).
                let deadline = std::time::Instant::now() + std::time::Duration::from_millis(10);
                let listed = slidesolve::family::classes(&spec, u64::MAX, None).unwrap_or_default();
                for class in listed.first().into_iter().chain(listed.last()) {
                    let _ = slidesolve::family::class_puzzle(&spec, class, None, (1 << 22, Some(deadline)));
                }
                let _ = slidesolve::family::database_primary(&spec, true);
            }
            Err(e) => check_error(&e, text),
        }
    });
}

#[test]
fn solution_strings() {
    let puzzles: Vec<Puzzle> = [
        "corpora/klotski/classic.grid",
        "corpora/cs351/proj3a.data",
        "corpora/tiles/8puzzle_863.tiles",
        "corpora/rush/hardest51.rush",
    ]
    .iter()
    .map(|p| crate::common::load(p).puzzle)
    .collect();
    let seeds: Vec<Vec<u8>> = vec![
        b"A:R2 B:DL 7:U3".to_vec(),
        b"1. Piece 4 moves 1 space(s) left\n2. Piece Z moves 2 space(s) right\n".to_vec(),
        b"6:R 8:U 7:R".to_vec(),
        std::fs::read("tests/cs351_expected/proj3a.out").unwrap(),
    ];
    run("solutions", &seeds, |rng, bytes| {
        let puzzle = puzzles.choose(rng).unwrap_or(&puzzles[0]);
        if let Ok(moves) = parse_solution(puzzle, &String::from_utf8_lossy(bytes)) {
            let _ = verify(puzzle, &moves);
        }
    });
}

#[test]
fn results_csv_for_resume() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seed.csv");
    let mut writer = RowWriter::create(&path).unwrap();
    for (i, status) in ["solved", "unsolvable", "error"].iter().enumerate() {
        writer
            .write(&Row {
                id: format!("corpora/x.txt:{i}"),
                source: "corpora/x.txt".into(),
                family: "tiles".into(),
                rows: Some(3),
                cols: Some(3),
                pieces: Some(8),
                metric: "unit".into(),
                algo: "bfs".into(),
                threads: 2,
                status: status.to_string(),
                moves: Some(5),
                expected: None,
                nodes_expanded: 10,
                nodes_generated: 15,
                states_stored: 20,
                peak_bytes: 300,
                wall_s: 0.5,
                solution: "1:U 2:L".into(),
                message: "a, \"quoted\" text".into(),
            })
            .unwrap();
    }
    drop(writer);
    let seeds = vec![std::fs::read(&path).unwrap()];
    let case = dir.path().join("case.csv");
    run("csv", &seeds, |_, bytes| {
        std::fs::write(&case, bytes).unwrap();
        if let Err(e) = read_rows(&case) {
            assert!(e.to_string().contains("case.csv"), "the error does not name the file: {e}");
        }
    });
}

#[test]
fn batch_metadata_for_resume() {
    use slidesolve::batch::metadata::{GivenIds, Metadata, Resumed, Settings, Sitting, settings_differ};
    use slidesolve::batch::resume::{Recorded, Run, differs, recorded};
    let settings: Settings = [("--algo", "bfs"), ("--metric", "straight"), ("--timeout", "5")]
        .iter()
        .map(|(f, v)| (f.to_string(), v.to_string()))
        .collect();
    let mut record = Metadata::now(Sitting::now(vec!["slidesolve".into(), "batch".into()], 2));
    record.settings = Some(settings.clone());
    // Later sittings as older builds recorded them (a start time) and as they are recorded now.
    let later = Sitting { ranks: 3, ..Sitting::now(vec!["slidesolve".into(), "--resume".into()], 1) };
    record.resumed = vec![Resumed::Started("2026-11-30T22:00:00Z".into()), Resumed::Sitting(later)];
    record.ids = GivenIds::runs([("corpora/x.txt", Some(1)), ("corpora/x.txt", Some(2))]);
    let this_run = Run { settings: &settings, shard: None, corpus_puzzles: 0, ids: &record.ids };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv.json");
    record.write(&path).unwrap();
    let seeds = vec![std::fs::read(&path).unwrap()];
    run("results.csv.json", &seeds, |_, bytes| {
        std::fs::write(&path, bytes).unwrap();
        match recorded(&path, &this_run, true, || None) {
            // Settings that differ only where no row depends on them are the same.
            Ok(Recorded::Same(m)) => {
                assert_eq!(settings_differ(m.settings.as_ref().unwrap(), &settings, || None), None);
                assert_eq!(differs(&m, &this_run, || None), None);
            }
            Ok(Recorded::NoSettings(m)) => assert!(m.settings.is_none()),
            Ok(Recorded::Missing) => {}
            Ok(Recorded::NoRows(_)) => panic!("the file holds rows"),
            Err(why) => assert!(why.starts_with("the run"), "{why}"),
        }
        // Without rows, nothing is refused.
        assert!(matches!(recorded(&path, &this_run, false, || None), Ok(Recorded::NoRows(_))));
    });
}

#[test]
fn merge_metadata_runs_of_ids() {
    use slidesolve::batch::metadata::{GivenIds, Metadata, Sitting};
    let mut record = Metadata::now(Sitting::now(vec!["slidesolve".into(), "batch".into()], 2));
    let lines = [("corpora/x.txt", Some(1)), ("corpora/x.txt", Some(4)), ("corpora/x.txt", Some(7)), ("a.grid", None)];
    record.ids = GivenIds::runs(lines);
    record.shard = Some("1/3".into());
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let header = slidesolve::batch::record::COLUMNS.join(",");
    let row = |id: &str| format!("{id},corpora/x.txt,tiles,3,3,8,unit,bfs,1,solved,1,,1,1,1,1,0.1,1:U,\n");
    std::fs::write(&csv, format!("{header}\n{}", row("corpora/x.txt:4"))).unwrap();
    let meta = slidesolve::batch::metadata::path_for(&csv);
    record.write(&meta).unwrap();
    // A second shard whose metadata the mutated one must agree with, or be refused.
    let other = dir.path().join("s.csv");
    std::fs::write(&other, format!("{header}\n{}", row("corpora/x.txt:2"))).unwrap();
    let mut other_record = record.clone();
    other_record.ids = GivenIds::runs([("corpora/x.txt", Some(2)), ("corpora/x.txt", Some(5))]);
    other_record.shard = Some("2/3".into());
    other_record.write(&slidesolve::batch::metadata::path_for(&other)).unwrap();
    let huge = std::fs::read_to_string(&meta).unwrap().replacen("\"step\": 3", "\"step\": 1", 1).replacen(
        "7\n",
        "18446744073709551615\n",
        1,
    );
    let seeds = vec![std::fs::read(&meta).unwrap(), huge.into_bytes()];
    run("merge metadata", &seeds, |_, bytes| {
        std::fs::write(&meta, bytes).unwrap();
        // Ids as runs of lines are never spelled out: any claim costs what the rows cost.
        if let Ok(merged) = slidesolve::batch::merge::merge(std::slice::from_ref(&csv)) {
            assert_eq!(merged.rows.len(), 1);
        }
        // Two inputs: merged, or refused by an error that names a file of theirs.
        match slidesolve::batch::merge::merge(&[csv.clone(), other.clone()]) {
            Ok(merged) => assert_eq!(merged.rows.len(), 2),
            Err(e) => assert!(e.to_string().starts_with(dir.path().to_str().unwrap()), "{e}"),
        }
    });
}

#[test]
fn family_components_for_hardest_pictures() {
    let spec_text = std::fs::read_to_string("corpora/families/dominoes-3x3.family").unwrap();
    let spec = slidesolve::family::spec::parse(&spec_text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let classes = slidesolve::family::classes(&spec, u64::MAX, None).unwrap();
    let run_settings = RunSettings { spec: spec_text.clone(), database: false, solvable_only: false, components: true };
    let (mut writer, _) = Writer::open(dir.path(), false, &run_settings, None).unwrap();
    let settings = family_settings(&spec);
    for class in classes.iter().filter(|c| c.counts.iter().any(|&(k, _)| k == 1 || k == 2)).take(6) {
        writer.write(&slidesolve::family::analyse_class(&spec, class, settings).unwrap()).unwrap();
    }
    drop(writer);
    let seeds = vec![std::fs::read(dir.path().join("components.csv")).unwrap()];
    let case = tempfile::tempdir().unwrap();
    // What --draw-hardest reads: the rows, then each listed hardest layout against its class's
    // pieces (drawing and solving a legal layout are tested in `pictures`).
    let puzzles: std::collections::HashMap<String, Puzzle> = classes
        .iter()
        .filter_map(|c| {
            Some((c.describe(&spec), slidesolve::family::class_puzzle(&spec, c, None, (u64::MAX, None)).ok()?.0?))
        })
        .collect();
    run("components", &seeds, |_, bytes| {
        std::fs::write(case.path().join("components.csv"), bytes).unwrap();
        let mut records = Vec::new();
        match slidesolve::family::csv::read_components(case.path(), |r| records.push(r)) {
            Ok(()) => {
                for (record, puzzle) in records.iter().filter_map(|r| Some((r, puzzles.get(&r.class)?))) {
                    let hardest = record.row.hardest.as_deref().unwrap_or("");
                    if let Ok(anchors) = slidesolve::family::read_layout(&puzzle.board, &puzzle.pieces, hardest) {
                        assert_eq!(anchors.len(), puzzle.pieces.len());
                    }
                }
            }
            Err(e) => assert!(e.to_string().contains("components.csv"), "the error does not name the file: {e}"),
        }
    });
}

/// What the family fuzz targets analyse their classes with: every component, its layouts written,
/// within the fuzz budget.
fn family_settings(spec: &slidesolve::family::spec::FamilySpec) -> slidesolve::family::Settings {
    let method = slidesolve::family::Method::auto(spec);
    let (database, solvable_only, layouts, deadline) = (false, false, true, None);
    slidesolve::family::Settings { memory_limit: BUDGET, database, method, solvable_only, layouts, deadline }
}

#[test]
fn family_classes_and_settings_for_resume() {
    let spec_text = std::fs::read_to_string("corpora/families/dominoes-3x3.family").unwrap();
    let spec = slidesolve::family::spec::parse(&spec_text).unwrap();
    let run_settings = RunSettings { spec: spec_text.clone(), database: false, solvable_only: false, components: true };
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, _) = Writer::open(dir.path(), false, &run_settings, None).unwrap();
    let settings = family_settings(&spec);
    for class in slidesolve::family::classes(&spec, u64::MAX, None).unwrap().iter().take(5) {
        writer.write(&slidesolve::family::analyse_class(&spec, class, settings).unwrap()).unwrap();
    }
    drop(writer);
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    let (classes, settings_file, components) = (read("classes.csv"), read("run.json"), read("components.csv"));
    let case = tempfile::tempdir().unwrap();
    // One file mutated, the others kept: the run resumes (keeping the classes up to the first
    // whose rows do not match), or is refused naming the file.
    for (name, seeds) in [("classes.csv", &classes), ("run.json", &settings_file), ("components.csv", &components)] {
        run(name, std::slice::from_ref(seeds), |_, bytes| {
            std::fs::write(case.path().join("classes.csv"), &classes).unwrap();
            std::fs::write(case.path().join("run.json"), &settings_file).unwrap();
            std::fs::write(case.path().join("components.csv"), &components).unwrap();
            std::fs::write(case.path().join(name), bytes).unwrap();
            match Writer::open(case.path(), true, &run_settings, None) {
                Ok(_) => {}
                Err(FamilyError::Resume(why)) => assert!(why.contains(case.path().to_str().unwrap()), "{why}"),
                Err(e) => panic!("not a resume error: {e}"),
            }
        });
    }
}
