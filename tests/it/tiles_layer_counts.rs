//! Exact state-space tables: 3×3, 2×3, 2×4 and 2×5 row by row against OEIS (corpora/tables/),
//! Klotski's 25,955 states and 65,880 placements in 898 components; `--plot`; and `gen` is
//! reproducible byte for byte.

use assert_cmd::Command;
use serde_json::Value;

fn enumerate(args: &[&str]) -> Value {
    let out = Command::cargo_bin("slidesolve").unwrap().arg("enumerate").args(args).arg("--json").output().unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A published table from `corpora/tables/` (`depth,states` rows after a comment).
fn published(name: &str) -> Vec<u64> {
    let text = std::fs::read_to_string(format!("corpora/tables/{name}.csv")).unwrap();
    text.lines().skip(2).map(|l| l.split_once(',').unwrap().1.parse().unwrap()).collect()
}

fn layers(v: &Value) -> Vec<u64> {
    serde_json::from_value(v["layers"].clone()).unwrap()
}

#[test]
fn the_8_puzzle_table_matches_oeis_a089473_on_1_and_2_threads_with_both_engines() {
    for threads in ["1", "2"] {
        for engine in ["perfect", "frontier"] {
            let v = enumerate(&["--tiles", "3x3", "--threads", threads, "--engine", engine]);
            assert_eq!(layers(&v), published("A089473"), "{engine}, {threads} threads");
            assert_eq!((v["states"].as_u64(), v["max_depth"].as_u64()), (Some(181_440), Some(31)));
            assert_eq!((v["largest_layer"].as_u64(), v["farthest_count"].as_u64()), (Some(24_047), Some(2)));
        }
    }
}

#[test]
fn small_boards_match_their_published_tables_row_by_row() {
    for (size, name) in [("2x3", "A090034"), ("2x4", "A090035"), ("2x5", "A090036"), ("5x2", "A090036")] {
        for engine in ["perfect", "frontier"] {
            let v = enumerate(&["--tiles", size, "--farthest", "0", "--engine", engine]);
            assert_eq!(layers(&v), published(name), "{size} {engine}");
        }
    }
    let v = enumerate(&["--tiles", "2x5", "--farthest", "0"]);
    assert_eq!((v["states"].as_u64(), v["max_depth"].as_u64()), (Some(1_814_400), Some(55)));
}

#[test]
fn klotski_has_25955_states_from_the_classic_start() {
    let v = enumerate(&["corpora/klotski/classic.grid", "--farthest", "0"]);
    assert_eq!(v["states"].as_u64(), Some(25_955));
}

#[test]
fn gen_is_reproducible_from_its_seed() {
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["gen", "tiles", "3x3", "--count", "2", "--seed", "1"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "; slidesolve gen tiles 3x3 --count 2 --seed 1 (uniform over solvable layouts)\nsize: 3x3\n4 0 6 3 8 2 7 1 5\n2 7 0 6 8 4 3 5 1\n"
    );
}

#[test]
fn the_bundled_8_puzzle_corpus_is_the_generator_output_for_its_seed() {
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["gen", "tiles", "3x3", "--count", "10000", "--seed", "2026"])
        .output()
        .unwrap();
    let generated = String::from_utf8(out.stdout).unwrap().replacen("; slidesolve gen", "; made by: slidesolve gen", 1);
    assert_eq!(std::fs::read_to_string("corpora/tiles/8puzzles_10000.tiles").unwrap(), generated);
}

#[test]
fn klotski_piece_set_has_65880_placements_in_898_components() {
    let v = enumerate(&["corpora/klotski/classic.grid", "--farthest", "0", "--components"]);
    let c = &v["components"];
    assert_eq!((c["placements"].as_u64(), c["components"].as_u64()), (Some(65_880), Some(898)));
    assert_eq!((c["largest"].as_u64(), c["start_component"].as_u64()), (Some(25_955), Some(25_955)));
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["enumerate", "--tiles", "2x2", "--components"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("every permutation is a placement"));
}

#[test]
fn a_grid_of_distinct_squares_lists_its_placements_and_a_refusal_leaves_no_files() {
    // Three distinct squares on a 2x2 board with a full target: searches take it for tiles, and
    // its placements are the 24 ways to put A, B and C on four cells, in two components of 12
    // (a move keeps the parity of the permutation with the blank).
    let dir = tempfile::tempdir().unwrap();
    let grid = dir.path().join("squares.grid");
    std::fs::write(&grid, "distinct: yes\nboard:\nAB\nC.\n\ntarget:\nAB\nC.\n").unwrap();
    let v = enumerate(&[grid.to_str().unwrap(), "--components"]);
    let c = &v["components"];
    assert_eq!((c["placements"].as_u64(), c["components"].as_u64()), (Some(24), Some(2)));
    assert_eq!(
        (c["largest"].as_u64(), c["start_component"].as_u64(), c["isolated"].as_u64()),
        (Some(12), Some(12), Some(0))
    );
    assert_eq!(v["states"].as_u64(), Some(12));
    let (csv, svg) = (dir.path().join("t.csv"), dir.path().join("t.svg"));
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["enumerate", "--tiles", "2x3", "--components", "--out"])
        .arg(&csv)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!csv.exists() && !svg.exists());
}

#[test]
fn plot_draws_the_layer_table() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("layers.svg");
    enumerate(&["--tiles", "3x3", "--farthest", "0", "--plot", svg.to_str().unwrap()]);
    let text = std::fs::read_to_string(svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("3x3 tiles: 181440 states by depth (unit metric)"));
    assert_eq!(text.matches("<rect").count() - 1, 32, "one bar per depth 0..=31 plus the background");
}

/// Layer counts by a plain breadth-first search over layouts from `start` (0 the blank), moving
/// one tile (`multi` false) or a run of a row or column at once — independent of both engines.
fn naive_layers(rows: usize, cols: usize, start: &[u8], multi: bool) -> Vec<u64> {
    use std::collections::HashSet;
    let start = start.to_vec();
    let mut seen: HashSet<Vec<u8>> = HashSet::from([start.clone()]);
    let mut layer = vec![start];
    let mut layers = Vec::new();
    while !layer.is_empty() {
        layers.push(layer.len() as u64);
        let mut next = Vec::new();
        for s in &layer {
            let b = s.iter().position(|&t| t == 0).unwrap();
            let (r, c) = ((b / cols) as isize, (b % cols) as isize);
            for (dr, dc) in [(-1isize, 0isize), (1, 0), (0, -1), (0, 1)] {
                let mut child = s.clone();
                let mut blank = b;
                for k in 1.. {
                    let (nr, nc) = (r + dr * k, c + dc * k);
                    if nr < 0 || nc < 0 || nr >= rows as isize || nc >= cols as isize || (!multi && k > 1) {
                        break;
                    }
                    let to = nr as usize * cols + nc as usize;
                    child.swap(blank, to);
                    blank = to;
                    if seen.insert(child.clone()) {
                        next.push(child.clone());
                    }
                }
            }
        }
        layer = next;
    }
    layers
}

#[test]
fn both_engines_and_both_metrics_match_a_plain_bfs() {
    // From the goal, and from a start of the other parity class (first two tiles swapped, blank
    // on the second row: the perfect engine stores each class in the same half of its words).
    let goal = |n: u8| (1..n).chain([0]).collect::<Vec<u8>>();
    let other = |n: u8, cols: u8| [2, 1].into_iter().chain(3..=cols).chain([0]).chain(cols + 1..n).collect::<Vec<u8>>();
    for (size, rows, cols) in [("3x3", 3, 3), ("2x4", 2, 4), ("4x2", 4, 2)] {
        let n = (rows * cols) as u8;
        for start in [goal(n), other(n, cols as u8)] {
            let text: Vec<String> = start.iter().map(|t| t.to_string()).collect();
            let layout = format!("{rows} {cols}\n{}", text.join(" "));
            let args = |extra: &[&'static str]| {
                let mut a = vec!["--tiles", size, "--goal", &layout, "--farthest", "0"];
                a.extend_from_slice(extra);
                layers(&enumerate(&a))
            };
            let unit = naive_layers(rows, cols, &start, false);
            assert_eq!(args(&[]), unit, "{size} perfect from {start:?}");
            assert_eq!(args(&["--engine", "frontier"]), unit, "{size} frontier from {start:?}");
            let multi = naive_layers(rows, cols, &start, true);
            assert_eq!(args(&["--metric", "straight"]), multi, "{size} multi-tile from {start:?}");
        }
    }
    // The 8-puzzle in the multi-tile metric: 181,440 states, diameter 24 with a single state there.
    let v = enumerate(&["--tiles", "3x3", "--farthest", "1", "--metric", "straight"]);
    assert_eq!(
        (v["states"].as_u64(), v["max_depth"].as_u64(), v["farthest_count"].as_u64()),
        (Some(181_440), Some(24), Some(1))
    );
}

#[test]
fn the_perfect_engine_says_which_boards_it_cannot_take() {
    let run = |args: &[&str]| {
        let out = Command::cargo_bin("slidesolve").unwrap().arg("enumerate").args(args).output().unwrap();
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    assert_eq!(
        run(&["--tiles", "1x2", "--engine", "perfect"]),
        (Some(2), "error: 1x2 tiles: the perfect-hash engine takes boards of 3 to 14 cells, this one has 2\n".into())
    );
    assert_eq!(
        run(&["--tiles", "2x7", "--engine", "perfect", "--max-memory", "1G"]),
        (
            Some(2),
            "error: 2x7 tiles: the perfect-hash engine needs 12454041600 bytes for 14 cells, more than --max-memory\n"
                .into()
        )
    );
    // A --max-memory above what the process can have (here 3 GiB of address space) is lowered to
    // that: the 12.5 GB table is refused instead of failing to allocate.
    let bin = assert_cmd::cargo::cargo_bin("slidesolve");
    let limited = format!(
        "ulimit -v 3145728 && exec {} enumerate --tiles 2x7 --engine perfect --max-memory 1000T",
        bin.display()
    );
    let out = std::process::Command::new("sh").args(["-c", &limited]).output().unwrap();
    assert_eq!(
        (out.status.code(), String::from_utf8(out.stderr).unwrap()),
        (
            Some(2),
            "warning: --max-memory 1000T is more than this process can have (3.0 GiB: the least of RAM, the cgroup's \
             memory.max and ulimit -v); the budget is 3.0 GiB\nerror: 2x7 tiles: the perfect-hash engine needs \
             12454041600 bytes for 14 cells, more than --max-memory, lowered to what this process can have (3.0 GiB)\n"
                .into()
        )
    );
    // The automatic choice falls back to the frontier engine for a 2-cell board.
    let v = enumerate(&["--tiles", "1x2", "--farthest", "0"]);
    assert_eq!(layers(&v), vec![1, 1]);
}

#[test]
fn the_layer_csv_is_written_as_layers_finish_and_a_bad_path_fails_first() {
    let dir = tempfile::tempdir().unwrap();
    // A run stopped by the memory limit keeps exactly the layers it reports.
    let csv = dir.path().join("layers.csv");
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args([
            "enumerate",
            "corpora/klotski/classic.grid",
            "--max-memory",
            "30K",
            "--threads",
            "2",
            "--farthest",
            "0",
            "--json",
        ])
        .arg("--out")
        .arg(&csv)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "a stopped table is not a success");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stopped"].as_str(), Some("memory limit reached"));
    let rows: Vec<u64> = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_once(',').unwrap().1.parse().unwrap())
        .collect();
    assert_eq!(rows, layers(&v));
    assert!(rows.len() > 10 && rows.len() < 125, "{} layers before the limit", rows.len());
    // An output that cannot be created or written stops the run before it starts, as bad input
    // (exit 2, as `batch --out` is refused).
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    for (path, message) in [
        (
            "/nonexistent/dir/layers.csv",
            "error: cannot write /nonexistent/dir/layers.csv: /nonexistent/dir does not exist\n".to_string(),
        ),
        (folder, format!("error: {folder} is a directory; --out takes the name of the layer table CSV\n")),
        ("/dev/full", "error: cannot write /dev/full: No space left on device (os error 28)\n".to_string()),
    ] {
        let out = Command::cargo_bin("slidesolve")
            .unwrap()
            .args(["enumerate", "--tiles", "3x3", "--out", path])
            .output()
            .unwrap();
        assert_eq!((out.status.code(), String::from_utf8(out.stderr).unwrap()), (Some(2), message));
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn the_expected_total_is_n_factorial_over_2_up_to_20_cells_and_unknown_past_u64() {
    use slidesolve::format::tiles::{TileLayout, puzzle_from};
    let expected = |rows, cols| {
        let goal = TileLayout::blank_last(rows, cols);
        slidesolve::enumerate::expected_states(&puzzle_from(&goal, &goal))
    };
    assert_eq!(expected(3, 3), Some(181_440));
    assert_eq!(expected(4, 4), Some(10_461_394_944_000));
    assert_eq!(expected(4, 5), Some(1_216_451_004_088_320_000));
    // 21!/2 and beyond wrapped around (5x5 showed 3,517,267,638,786,981,888 for 25!/2).
    assert_eq!(expected(3, 7), None);
    assert_eq!(expected(5, 5), None);
    assert_eq!(expected(8, 8), None);
}
