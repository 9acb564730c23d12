//! The `solve` and `verify` commands: exact output text, JSON fields and exit codes.

use assert_cmd::Command;
use serde_json::Value;

fn slidesolve(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("slidesolve").unwrap().args(args).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap(), text(out.stdout), text(out.stderr))
}

/// Output without the timing-dependent `stats:` line.
fn without_stats(s: &str) -> String {
    s.lines().filter(|l| !l.starts_with("stats:")).map(|l| format!("{l}\n")).collect()
}

#[test]
fn solve_show_prints_a_flip_book() {
    let (code, out, _) = slidesolve(&["solve", "corpora/tiles/8puzzle_123.tiles", "--show"]);
    assert_eq!(code, 0);
    assert_eq!(
        without_stats(&out),
        "corpora/tiles/8puzzle_123.tiles: solved in 3 moves (unit metric, bfs)\n\
         start:\n1 2 3\n5 6 .\n7 8 4\n\n\
         \x20  1. 6 right 1\n1 2 3\n5 . 6\n7 8 4\n\n\
         \x20  2. 8 up 1\n1 2 3\n5 8 6\n7 . 4\n\n\
         \x20  3. 7 right 1\n1 2 3\n5 8 6\n. 7 4\n\n\
         solution: 6:R 8:U 7:R\n"
    );
    assert!(out.contains("stats: depth 3, expanded 7, generated 20, stored 15, peak "));
}

#[test]
fn solve_json_reports_counts_and_a_verifiable_solution() {
    let (code, out, _) = slidesolve(&["solve", "corpora/klotski/classic.grid", "--json", "--threads", "2"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["status"], "solved");
    assert_eq!(v["moves"], 81);
    assert_eq!(v["metric"], "free");
    assert_eq!(v["nodes_expanded"], 23_691);
    assert_eq!(v["states_generated"], 55_753);
    assert_eq!(v["states_stored"], 23_845);
    assert!(v["wall_s"].as_f64().unwrap() >= 0.0);
    let solution = v["solution"].as_str().unwrap();
    let (code, out, _) = slidesolve(&["verify", "corpora/klotski/classic.grid", solution]);
    assert_eq!((code, out.as_str()), (0, "valid: the goal is reached in 81 moves (free metric)\n"));
}

#[test]
fn unsolvable_exits_3_and_limits_exit_1() {
    let (code, out, _) = slidesolve(&["solve", "corpora/tiles/8puzzle_unsolvable.tiles", "--json"]);
    assert_eq!(code, 3);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["status"].as_str(), v["message"].as_str()),
        (Some("unsolvable"), Some("unsolvable by permutation parity"))
    );
    let (code, out, _) = slidesolve(&["solve", "corpora/klotski/classic.grid", "--max-states", "1000", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["status"], "limit");
    let (code, out, _) = slidesolve(&["solve", "corpora/klotski/classic.grid", "--max-memory", "64K", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["status"], "limit");
    let (code, out, _) = slidesolve(&["solve", "corpora/klotski/classic.grid", "--timeout", "0", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["status"], "timeout");
}

#[test]
fn enumerate_stops_at_its_limits_and_keeps_the_complete_layers() {
    let dir = std::env::temp_dir().join(format!("slidesolve-enumerate-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("layers.csv");
    // 3x4 tiles: layers 0-21 hold 810,424 states, layer 22 another 515,778; both engines stop in
    // layer 22 and keep the 22 layers before it.
    for engine in ["perfect", "frontier"] {
        let args = ["enumerate", "--tiles", "3x4", "--engine", engine, "--max-states", "1000000", "--json"];
        let (code, out, _) = slidesolve(&[&args[..], &["--out", csv.to_str().unwrap()]].concat());
        assert_eq!(code, 1, "{engine}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!((v["complete"].as_bool(), v["stopped"].as_str()), (Some(false), Some("state limit reached")));
        assert_eq!((v["states"].as_u64(), v["max_depth"].as_u64()), (Some(810_424), Some(21)), "{engine}");
        let written = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(written.lines().count(), 1 + 22, "{engine}");
        assert_eq!(written.lines().last(), Some("21,323206"), "{engine}");
    }
    let (code, out, _) =
        slidesolve(&["enumerate", "corpora/klotski/classic.grid", "--timeout", "0", "--farthest", "0"]);
    assert_eq!(code, 1);
    assert!(out.starts_with("corpora/klotski/classic.grid: free metric\nstopped early: time limit reached; the table below is partial\nstates: 1\n"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn components_of_a_long_board_are_listed_without_a_deep_stack() {
    // The listing decided the board cell by cell in a recursion as deep as its open cells: a
    // board of 10,000 cells overflowed the stack (abort, exit 134), and each layout walked every
    // empty cell after its last piece (time quadratic in the cells).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.grid");
    std::fs::write(&file, format!("goal: A reaches right\nboard:\nA{}\n", ".".repeat(99_999))).unwrap();
    let (code, stdout, _) = slidesolve(&["enumerate", file.to_str().unwrap(), "--components", "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!((v["states"].as_u64(), v["max_depth"].as_u64()), (Some(100_000), Some(99_999)));
    assert_eq!(v["components"]["placements"].as_u64(), Some(100_000));
    assert_eq!(v["components"]["components"].as_u64(), Some(1));
}

#[test]
fn enumerate_components_keep_the_state_and_time_limits() {
    // Classic Klotski: 25,955 reachable states, 65,880 legal placements.
    let run = |limit: &[&str]| {
        let args = [&["enumerate", "corpora/klotski/classic.grid", "--components", "--json"], limit].concat();
        let (code, out, _) = slidesolve(&args);
        let v: Value = serde_json::from_str(&out).unwrap();
        (code, v["complete"].as_bool(), v["components"]["placements"].as_u64(), v["components_stopped"].clone())
    };
    assert_eq!(run(&[]), (0, Some(true), Some(65_880), Value::Null));
    let stopped = |hit: &str, listed: u64| {
        Value::from(format!("{hit} while counting the components of all legal placements ({listed} placements listed)"))
    };
    assert_eq!(run(&["--max-states", "30000"]), (1, Some(true), None, stopped("state limit reached", 30_001)));
    // The clock is looked at before the first placement is listed, then every 16,384 steps.
    assert_eq!(run(&["--timeout", "0"]), (1, Some(false), None, stopped("time limit reached", 0)));
    let (code, out, _) =
        slidesolve(&["enumerate", "corpora/klotski/classic.grid", "--components", "--max-states", "30000"]);
    assert_eq!(code, 1);
    assert!(out.contains("\nall legal placements: stopped early: state limit reached while counting the components of all legal placements (30001 placements listed)\n"), "{out}");
}

#[test]
fn metric_override_changes_the_optimum() {
    let (_, out, _) = slidesolve(&["solve", "corpora/klotski/classic.grid", "--metric", "straight", "--json"]);
    let straight = serde_json::from_str::<Value>(&out).unwrap()["moves"].as_u64().unwrap();
    let (_, out, _) = slidesolve(&["solve", "corpora/klotski/classic.grid", "--metric", "unit", "--json"]);
    let unit = serde_json::from_str::<Value>(&out).unwrap()["moves"].as_u64().unwrap();
    assert_eq!((straight, unit), (90, 116));
}

#[test]
fn verify_names_the_illegal_move() {
    let (code, out, _) = slidesolve(&["verify", "corpora/tiles/8puzzle_123.tiles", "6:R 6:U"]);
    assert_eq!((code, out.as_str()), (1, "invalid: move 2 (6): step 1 (up) runs into piece 3\n"));
    let (code, out, _) = slidesolve(&["verify", "corpora/tiles/8puzzle_123.tiles", "6:R"]);
    assert_eq!((code, out.as_str()), (1, "invalid: every move is legal but the goal is not reached after 1 move\n"));
    let (code, out, _) = slidesolve(&["verify", "corpora/tiles/8puzzle_123.tiles", "6:RR"]);
    assert_eq!((code, out.as_str()), (1, "invalid: move 1 (6): a unit move cannot take the path 6:R2\n"));
    let (code, out, _) = slidesolve(&["verify", "corpora/rush/hardest51.rush", "A:U"]);
    assert_eq!((code, out.as_str()), (1, "invalid: move 1 (A): the piece cannot move up\n"));
    let (code, _, err) = slidesolve(&["verify", "corpora/tiles/8puzzle_123.tiles", "9:L"]);
    assert_eq!((code, err.as_str()), (2, "error: solution: line 1: unknown piece '9'\n"));
}

#[test]
fn verify_reads_a_run_alike_however_written_and_escapes_what_it_quotes() {
    let tiles = "corpora/tiles/8puzzle_123.tiles";
    for run in ["6:R3", "6:RRR", "6:RR2"] {
        let (code, _, err) = slidesolve(&["verify", tiles, run]);
        let expected = format!("error: solution: line 1: '{run}' moves further than any move on a 3x3 board can\n");
        assert_eq!((code, err), (2, expected));
    }
    // ESC and NUL in a solution are written as escapes, not sent to the terminal.
    let (code, _, err) = slidesolve(&["verify", tiles, "6:R\u{1b}[31mX"]);
    let expected = "error: solution: line 1: cannot read move '6:R\\u{1b}[31mX' (expected NAME:STEPS such as A:R2)\n";
    assert_eq!((code, err.as_str()), (2, expected));
    // The multi-tile metric, which `solve` refuses, is refused by `verify` and `draw` alike.
    let svg = tempfile::tempdir().unwrap().path().join("x.svg");
    let refusal = format!(
        "error: {tiles}: the straight (multi-tile) metric for sliding tiles is available in 'enumerate' only; \
         use --metric unit\n"
    );
    for command in [&["verify", tiles, "6:R 8:U 7:R"][..], &["draw", tiles, "--out", svg.to_str().unwrap()]] {
        let args: Vec<&str> = command.iter().chain(&["--metric", "straight"]).copied().collect();
        let (code, out, err) = slidesolve(&args);
        assert_eq!((code, out.as_str(), err.as_str()), (2, "", refusal.as_str()), "{command:?}");
    }
}

#[test]
fn solve_reads_a_one_puzzle_file_written_by_gen() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("one.tiles");
    let (code, out, _) = slidesolve(&["gen", "tiles", "3x3", "--count", "1", "--seed", "4"]);
    assert_eq!(code, 0);
    std::fs::write(&file, out).unwrap();
    let (code, out, _) = slidesolve(&["solve", file.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["status"], "solved");
    let (code, _, err) = slidesolve(&["solve", "corpora/tiles/korf100.txt"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "line 4: the file holds 100 puzzles, one per line; solve one at a time or run 'batch' on the file"
        ),
        "{err}"
    );
}

#[test]
fn verify_reads_the_solution_solve_prints_for_a_piece_named_star() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("star.grid");
    std::fs::write(&file, "goal: * at 0,2\nboard:\n*..\n").unwrap();
    let file = file.to_str().unwrap();
    let (code, out, _) = slidesolve(&["solve", file]);
    assert_eq!(code, 0);
    assert!(out.contains("\nsolution: *:R *:R\n"), "{out}");
    let (code, out, _) = slidesolve(&["verify", file, "*:R *:R"]);
    assert_eq!((code, out.as_str()), (0, "valid: the goal is reached in 2 moves (unit metric)\n"));
    let (code, out, _) = slidesolve(&["verify", file, "*:R"]);
    assert_eq!((code, out.as_str()), (1, "invalid: every move is legal but the goal is not reached after 1 move\n"));
}

#[test]
fn solve_reads_a_single_puzzle_line_that_ends_with_its_optimum() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("one.tiles");
    // An 8-puzzle two moves from the goal, with its optimum, under a `goal:` line (Korf's layout).
    std::fs::write(&file, "goal: blank-last\n1 2 3 4 5 6 0 7 8 2\n").unwrap();
    let (code, out, _) = slidesolve(&["solve", file.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{out}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((&json["status"], &json["moves"], &json["expected"]), (&"solved".into(), &2.into(), &2.into()));
    assert_eq!(json["solution"], "7:L 8:L");
    // The first Korf instance alone: a 4 x 4 puzzle whose optimum is 57.
    let korf = std::fs::read_to_string("corpora/tiles/korf100.txt").unwrap();
    let first_two: Vec<&str> = korf.lines().filter(|l| !l.starts_with(';')).take(2).collect();
    std::fs::write(&file, first_two.join("\n") + "\n").unwrap();
    let (code, out, _) = slidesolve(&["solve", file.to_str().unwrap(), "--json", "--max-states", "1"]);
    assert_eq!(code, 1, "{out}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&json["status"], &json["rows"], &json["cols"], &json["expected"]),
        (&"limit".into(), &4.into(), &4.into(), &57.into())
    );
}

#[test]
fn enumerate_reads_a_grid_file_without_a_goal() {
    // Two 1x1 pieces on a 2x3 board. Without a goal, no piece is named, so the two are identical
    // and merge: the 15 ways to place two alike squares. A goal naming A keeps it apart: 30.
    let dir = tempfile::tempdir().unwrap();
    let (plain, named) = (dir.path().join("plain.grid"), dir.path().join("named.grid"));
    std::fs::write(&plain, "board:\nAB.\n...\n").unwrap();
    std::fs::write(&named, "goal: A at 1,2\nboard:\nAB.\n...\n").unwrap();
    let states = |file: &std::path::Path, extra: &[&str]| {
        let (code, out, err) = slidesolve(&[&["enumerate", file.to_str().unwrap(), "--json"], extra].concat());
        assert_eq!((code, err.as_str()), (0, ""), "{out}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        json["states"].as_u64().unwrap()
    };
    assert_eq!(states(&plain, &[]), 15);
    assert_eq!(states(&named, &[]), 30);
    assert_eq!(states(&plain, &["--goal", "B reaches right"]), 30);
    // solve, verify and draw still need the goal.
    let (code, _, err) = slidesolve(&["solve", plain.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.ends_with("no goal: add 'goal:' or a 'target:' block\n"), "{err}");
}
