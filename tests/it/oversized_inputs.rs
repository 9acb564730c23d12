//! Numbers and sizes from a file go through checked arithmetic and the memory budget before
//! anything is allocated; parsing and compiling are linear in the input; goals are checked against
//! the board. Each test is a reproducer from the hardening issue.

use crate::malformed_inputs::solve_bytes;
use assert_cmd::Command;
use std::io::Write;

/// Runs the binary with `args` (FILE replaced by a temporary file holding `content` with `ext`).
fn run_on(content: &str, ext: &str, args: &[&str]) -> (i32, String, String) {
    let mut file = tempfile::Builder::new().suffix(ext).tempfile().unwrap();
    file.write_all(content.as_bytes()).unwrap();
    let path = file.path().display().to_string();
    let args: Vec<String> = args.iter().map(|a| if *a == "FILE" { path.clone() } else { a.to_string() }).collect();
    let out = Command::cargo_bin("slidesolve").unwrap().args(&args).output().unwrap();
    let clean = |b: &[u8]| String::from_utf8_lossy(b).replace(&path, "FILE");
    (out.status.code().unwrap_or(-1), clean(&out.stdout), clean(&out.stderr))
}

#[test]
fn cs351_numbers_that_overflow_are_outside_the_grid() {
    let (code, stdout, _) = solve_bytes(b"2 2\n2 1 1 9223372036854775807 h\n", ".data");
    assert_eq!(code, 2);
    assert_eq!(
        stdout,
        "Warning: Piece with starting position of 2,1 falls outside of grid\nError: No valid pieces in the puzzle\n"
    );
}

#[test]
fn cs351_boards_beyond_the_memory_budget_are_refused_before_allocating() {
    let cases = [
        (
            "9223372036854775807 4\n1 1 1 1 b\n",
            "a board of 9223372036854775807 x 4 cells would need more bytes than a 64-bit count holds",
        ),
        ("255 2147483648\n1 1 1 1 b\n", "a board of 255 x 2147483648 cells would need 15.9 TiB"),
        ("40000 40000\n1 1 1 1 h\n", "a board of 40000 x 40000 cells would need 47.7 GiB"),
    ];
    for (text, message) in cases {
        let (code, _, stderr) = run_on(text, ".data", &["solve", "FILE", "--max-memory", "2G"]);
        assert_eq!(code, 2, "{text}");
        assert_eq!(stderr, format!("error: FILE: line 1: {message} (more than the memory limit of 2.0 GiB)\n"));
    }
    // Without --max-memory the budget is half of what the machine has: still refused.
    let (code, _, stderr) = run_on("255 2147483648\n1 1 1 1 b\n", ".data", &["solve", "FILE"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("would need 15.9 TiB (more than the memory limit of"), "{stderr}");
}

#[test]
fn a_grid_drawing_is_checked_against_the_budget() {
    let text = format!("goal: A at 0,0\nboard:\nA{}\n{}", ".".repeat(5000), "B\n".repeat(5000));
    let (code, _, stderr) = run_on(&text, ".grid", &["solve", "FILE", "--max-memory", "100M"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: FILE: line 3: a board of 5001 x 5001 cells would need 763.2 MiB (more than the memory limit of 100.0 MiB)\n"
    );
}

#[test]
fn a_tile_header_whose_product_wraps_is_not_a_header() {
    let (code, _, stderr) = solve_bytes(b"4294967299 18446744069414584323\n1 2 3\n4 5 6\n7 8 0\n", ".tiles");
    assert_eq!((code, stderr.as_str()), (2, "error: FILE: line 1: '4294967299' is not a tile number\n"));
}

#[test]
fn a_goal_takes_the_shape_of_its_puzzle() {
    let file = "2 5\n1 2 3 4 5\n6 7 0 8 9\ngoal: 1 2 3 4 5 6 7 8 9 0\n";
    let (code, stdout, _) = run_on(file, ".tiles", &["solve", "FILE"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("FILE: solved in 2 moves"), "{stdout}");
    let (code, stdout, _) = run_on(file, ".tiles", &["solve", "FILE", "--goal", "1 2 3 4 5 6 7 8 0 9"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("FILE: solved in 1 move"), "{stdout}");
}

#[test]
fn goals_off_the_board_or_naming_no_piece_are_bad_input() {
    let klotski = "corpora/klotski/classic.grid";
    let out =
        Command::cargo_bin("slidesolve").unwrap().args(["solve", klotski, "--goal", "A at 9,9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: {klotski}: --goal: the goal puts piece 'A' at 9,9, where it does not fit on the 5x4 board\n")
    );
    let out =
        Command::cargo_bin("slidesolve").unwrap().args(["solve", klotski, "--goal", "Q at 1,1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: {klotski}: --goal: no piece named 'Q' on the board\n")
    );
    let (code, _, stderr) = run_on("goal: A at 7,0\nboard:\nA.\n", ".grid", &["solve", "FILE"]);
    assert_eq!(
        (code, stderr.as_str()),
        (2, "error: FILE: line 1: the goal puts piece 'A' at 7,0, where it does not fit on the 1x2 board\n")
    );
}

#[test]
fn goal_overrides_apply_to_rush_hour_and_cs351_files() {
    let rush = "corpora/rush/hardest51.rush";
    let out =
        Command::cargo_bin("slidesolve").unwrap().args(["solve", rush, "--goal", "A reaches left"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&format!("{rush}: solved in 11 moves")));
    let out = Command::cargo_bin("slidesolve").unwrap().args(["solve", rush, "--goal", "A at 9,9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: {rush}: --goal: the goal puts piece 'A' at 9,9, where it does not fit on the 6x6 board\n")
    );
    let data = "corpora/cs351/proj3a.data";
    let out = Command::cargo_bin("slidesolve").unwrap().args(["solve", data, "--goal", "Y at 1,1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("error: {data}: --goal: no piece named 'Y'\n"));
}

#[test]
fn huge_runs_in_a_solution_are_refused_before_they_are_expanded() {
    let moves = format!("6:{}", "R1000000".repeat(3000));
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["verify", "corpora/tiles/8puzzle_123.tiles", &moves])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: solution: line 1: '6:R1000000R1000000R1000000R1000000R10000' moves further than any move on a 3x3 board can\n"
    );
}

#[test]
fn big_boards_parse_and_compile_in_linear_time() {
    // 1000 x 1000 tiles: the model used to be built by a search per tile (quadratic).
    let n = 1000;
    let mut text = format!("{n} {n}\n");
    for r in 0..n {
        let row: Vec<String> = (0..n).map(|c| ((r * n + c + 1) % (n * n)).to_string()).collect();
        text.push_str(&row.join(" "));
        text.push('\n');
    }
    let (code, stdout, _) = run_on(&text, ".tiles", &["solve", "FILE", "--algo", "constructive"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("FILE: solved in 0 moves"), "{}", &stdout[..stdout.len().min(200)]);
    // A 1000 x 1000 two-piece checkerboard and an empty column: its entered-cell tables were
    // quadratic in piece size. Neither piece can move, so the goal is out of reach.
    let mut grid = String::from("goal: A at 0,1\nboard:\n");
    for r in 0..n {
        grid.extend((0..n).map(|c| if (r + c) % 2 == 0 { 'A' } else { 'B' }));
        grid.push_str(".\n");
    }
    let (code, stdout, _) = run_on(&grid, ".grid", &["solve", "FILE"]);
    assert_eq!(code, 3, "{stdout}");
    assert!(stdout.starts_with("FILE: unsolvable"), "{stdout}");
}

#[test]
fn the_move_tables_of_all_pieces_together_are_checked_against_the_budget() {
    // Fuzz seed 20261202, case 32841: seven pieces on a 65,536 x 4 board. Each piece's tables fit
    // the budget alone; together they held 430 MB under a budget of 64 MiB.
    let text = "65536 4\n3 1 2 1 b\n1 1 1 1 b\n1 2 1 1 b\n2 3 2 1 b\n3 3 1 2 v\n4 1 2 1 b\n4 4 1 1 b\n";
    let (code, _, stderr) = run_on(text, ".data", &["solve", "FILE", "--max-memory", "64M"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: FILE: the move tables of piece '1' (62464+ placements of 1 cells) with those of the pieces before \
         it would need 64.1 MiB (more than the memory limit of 64.0 MiB)\n"
    );
}

/// Runs `slidesolve ARGS` under `ulimit -v KB` (FILE replaced by a temporary file holding
/// `content` with `ext`, SOLUTION by one holding `solution`): exit code, standard output, standard
/// error (the temporary paths written FILE and SOLUTION).
fn run_within_address_space(
    kb: u64,
    (content, ext): (&str, &str),
    solution: &str,
    args: &str,
) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let (file, sol) = (dir.path().join(format!("puzzle{ext}")), dir.path().join("moves.sol"));
    std::fs::write(&file, content).unwrap();
    std::fs::write(&sol, solution).unwrap();
    let (file, sol) = (file.display().to_string(), sol.display().to_string());
    let bin = assert_cmd::cargo::cargo_bin("slidesolve");
    let args = args.replace("FILE", &file).replace("SOLUTION", &sol);
    let command = format!("ulimit -v {kb} && exec {} {args}", bin.display());
    let run = std::process::Command::new("sh").args(["-c", &command]).output().unwrap();
    let clean = |b: &[u8]| String::from_utf8_lossy(b).replace(&file, "FILE").replace(&sol, "SOLUTION");
    (run.status.code(), clean(&run.stdout), clean(&run.stderr))
}

/// A 1000 x 1000 board whose piece A, a `side` x `side` block in the top left corner, is to reach
/// the right edge.
fn block_board(side: usize) -> String {
    let row = |r: usize| if r < side { "A".repeat(side) + &".".repeat(1000 - side) } else { ".".repeat(1000) };
    format!("goal: A reaches right\nboard:\n{}\n", (0..1000).map(row).collect::<Vec<_>>().join("\n"))
}

/// A 1000 x 1000 board whose piece A, one square, is to reach the right edge.
fn square_board() -> String {
    block_board(1)
}

#[test]
fn a_compile_holds_no_more_than_its_tables_estimate() {
    // A million placements of one square: the tables' estimate is 209.8 MiB. Its cell masks used
    // to grow a list by doubling (both copies held while it moved, 332 MB peak), which aborted
    // under address spaces whose budget (half) the estimate passed; they are allocated once now.
    let message = "the move tables of piece 'A' (1000000+ placements of 1 cells) would need 209.8 MiB (more than \
                   the memory limit of 195.3 MiB)";
    assert_compiles_within_its_estimate(&square_board(), &[430_000, 450_000, 500_000, 600_000], 999, 400_000, message);
}

/// Asserts that `board` is solved in `moves` moves under each address space of `fits` (KiB) and
/// refused with `message` under `refused`.
fn assert_compiles_within_its_estimate(board: &str, fits: &[u64], moves: usize, refused: u64, message: &str) {
    for &kb in fits {
        let (code, stdout, stderr) = run_within_address_space(kb, (board, ".grid"), "", "solve FILE --threads 1");
        assert_eq!((code, stderr.as_str()), (Some(0), ""), "ulimit -v {kb}");
        let solved = format!("FILE: solved in {moves} moves (unit metric, bfs)");
        assert!(stdout.starts_with(&solved), "ulimit -v {kb}: {}", &stdout[..80]);
    }
    let (code, stdout, stderr) = run_within_address_space(refused, (board, ".grid"), "", "solve FILE --threads 1");
    assert_eq!((code, stdout.as_str(), stderr), (Some(2), "", format!("error: FILE: {message}\n")));
}

#[test]
fn a_large_piece_is_estimated_by_the_words_its_masks_touch() {
    // A 3 x 3 block on the same board: 996,004 placements. Counting 16 bytes for every cell of
    // each of a placement's five masks made that 847 MiB and refused it under budgets it fits
    // (peak RSS 337 MB); a mask holds at most two words of each row of three cells, and a step
    // enters one row or one column, so the estimate is 406.5 MiB now, and it still holds.
    let message = "the move tables of piece 'A' (996004+ placements of 9 cells) would need 406.5 MiB (more than \
                   the memory limit of 390.6 MiB)";
    assert_compiles_within_its_estimate(&block_board(3), &[850_000], 997, 800_000, message);
}

#[test]
fn a_drawing_is_checked_against_the_budget_before_it_is_drawn() {
    // The picture of a million cells is 91 MB of text: it used to be built (and abort) under any
    // address space too small for it; with a budget of 80 MiB (half of 160 MiB) it is refused.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big.svg").display().to_string();
    let (code, stdout, stderr) =
        run_within_address_space(160 << 10, (&square_board(), ".grid"), "", &format!("draw FILE --out {out}"));
    assert_eq!((code, stdout.as_str()), (Some(2), ""));
    assert_eq!(
        stderr,
        "error: FILE: a picture of a 1000 x 1000 board would need 89.6 MiB (more than the memory limit of 80.0 MiB)\n"
    );
    assert!(!dir.path().join("big.svg").exists());
}

#[test]
fn solve_pictures_are_checked_against_the_budget_before_they_are_drawn() {
    // One move solves it, and its search needs little (one row is open); its pictures draw every
    // cell of a 100 x 200 board, walls too: 1.9 MB of text each.
    let text = format!(
        "metric: straight\ngoal: A reaches right\nboard:\nA{}{}\n",
        ".".repeat(199),
        format!("\n{}", "#".repeat(200)).repeat(99)
    );
    let dir = tempfile::tempdir().unwrap();
    for (flag, what) in [("--svg", "an animation of a 1-move solution"), ("--frames", "2 frames of a 1-move solution")]
    {
        let out = dir.path().join("pictures").display().to_string();
        let (code, stdout, stderr) = run_on(&text, ".grid", &["solve", "FILE", "--max-memory", "1M", flag, &out]);
        assert_eq!(code, 2, "{stdout}{stderr}");
        assert!(stdout.starts_with("FILE: solved in 1 move"), "{stdout}");
        assert!(stderr.starts_with(&format!("error: FILE: {what} would need ")), "{stderr}");
        assert!(stderr.ends_with(" (more than the memory limit of 1.0 MiB)\n"), "{stderr}");
        assert!(!dir.path().join("pictures").exists());
    }
}

#[test]
fn verify_replays_a_long_solution_without_holding_its_moves() {
    // 300,001 moves of 999 steps each (2.1 MB of text) used to be held whole, 300 MB of steps, and
    // abort under a 250 MB address space; they are replayed as they are read.
    let row = format!("goal: A reaches right\nboard:\nA{}\n", ".".repeat(999));
    let moves = format!("{}A:R999\n", "A:R999 A:L999 ".repeat(150_000));
    let (code, stdout, stderr) =
        run_within_address_space(250_000, (&row, ".grid"), &moves, "verify FILE SOLUTION --metric straight");
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (Some(0), "valid: the goal is reached in 300001 moves (straight metric)\n", "")
    );
    // A move that cannot be read is still found before any is replayed: bad input, not an illegal move.
    let moves = format!("A:L {}A:X\n", "A:R999 A:L999 ".repeat(1000));
    let (code, stdout, stderr) =
        run_within_address_space(250_000, (&row, ".grid"), &moves, "verify FILE SOLUTION --metric straight");
    assert_eq!((code, stdout.as_str()), (Some(2), ""));
    assert_eq!(stderr, "error: SOLUTION: line 1: cannot read move 'A:X' (expected NAME:STEPS such as A:R2)\n");
}

#[test]
fn verify_reads_a_long_line_of_moves_without_splitting_it_whole() {
    // 16 MB of moves on one line: the check for a CS 351 move line used to split it into 4 million
    // words first (64 MB), and the moves were held too.
    let moves = format!("{}6:R\n", "6:R 6:L ".repeat(2_000_000));
    let tiles = std::fs::read_to_string("corpora/tiles/8puzzle_123.tiles").unwrap();
    let (code, stdout, stderr) =
        run_within_address_space(160 << 10, (&tiles, ".tiles"), &moves, "verify FILE SOLUTION");
    assert_eq!((code, stderr.as_str()), (Some(1), ""));
    assert_eq!(stdout, "invalid: every move is legal but the goal is not reached after 4000001 moves\n");
}

#[test]
fn a_solution_file_beyond_the_budget_is_refused_naming_it() {
    // A sparse file of 200 MiB, over the budget (half of a 160 MiB address space): refused by its
    // size, before it is read.
    let dir = tempfile::tempdir().unwrap();
    let sparse = dir.path().join("moves.sol");
    std::fs::File::create(&sparse).unwrap().set_len(200 << 20).unwrap();
    let tiles = std::fs::read_to_string("corpora/tiles/8puzzle_123.tiles").unwrap();
    let args = format!("verify FILE {}", sparse.display());
    let (code, stdout, stderr) = run_within_address_space(160 << 10, (&tiles, ".tiles"), "", &args);
    assert_eq!((code, stdout.as_str()), (Some(2), ""));
    assert_eq!(stderr, format!("error: cannot read {}: longer than 80.0 MiB (the memory limit)\n", sparse.display()));
}
