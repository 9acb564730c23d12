//! CS 351 format: byte-exact output for every sample (warnings, errors, goal replacement, the
//! 61-piece limit, no solution, zero steps, the assignment's example) and the exit codes; the
//! other commands print the same warnings and errors on standard error.
//!
//! The expected files in `tests/cs351_expected/` were checked by hand move by move; the solution
//! printed is the first one a sequential BFS meets (pieces in input order; up, down, left, right;
//! shortest distance first; goal tested on generation).

use assert_cmd::Command;

fn run(file: &str) -> (String, i32) {
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["solve", &format!("corpora/cs351/{file}.data")])
        .output()
        .unwrap();
    (String::from_utf8(out.stdout).unwrap(), out.status.code().unwrap())
}

fn expected(file: &str) -> String {
    std::fs::read_to_string(format!("tests/cs351_expected/{file}.out")).unwrap()
}

#[test]
fn assignment_example_with_all_eight_pieces_takes_five_steps() {
    let (out, code) = run("proj3a");
    assert_eq!(code, 0);
    assert_eq!(out, expected("proj3a"));
    assert!(out.contains("This puzzle is solvable in 5 steps\n1. Piece 4 moves 1 space(s) up\n"));
}

#[test]
fn show_adds_the_grid_after_every_move_and_keeps_the_prescribed_lines() {
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["solve", "corpora/cs351/proj3a.data", "--show"])
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out, expected("proj3a_show"));
    // Its lines beside the grids are the prescribed output's; the grids are the start and one a move.
    let plain = expected("proj3a");
    let kept: String = out.lines().filter(|l| !l.starts_with('*')).map(|l| format!("{l}\n")).collect();
    let prescribed: String = plain.lines().filter(|l| !l.starts_with('*')).map(|l| format!("{l}\n")).collect();
    assert_eq!(kept, prescribed);
    assert_eq!(out.matches("******\n").count(), 2 * (1 + 5));
}

#[test]
fn assignment_example_as_listed_in_the_text_takes_four_steps() {
    let (out, code) = run("proj3a_as_listed");
    assert_eq!(code, 0);
    assert_eq!(out, expected("proj3a_as_listed"));
}

#[test]
fn warnings_come_in_the_prescribed_order_and_first_valid_piece_becomes_goal() {
    let (out, code) = run("warnings");
    assert_eq!(code, 0);
    assert_eq!(out, expected("warnings"));
    assert!(out.starts_with(
        "Warning: Piece with starting position of 0,1 falls outside of grid\n\
         Warning: Piece with starting position of 1,4 has invalid movement\n\
         Warning: Piece with starting position of 1,2 overlaps with other piece\n******\n*ZZ..*\n"
    ));
}

#[test]
fn no_solution_is_reported_with_exit_code_3() {
    let (out, code) = run("nosolution");
    assert_eq!(code, 3);
    assert_eq!(out, "****\n*Z.*\n*.1*\n****\nThis puzzle has no solution\n");
}

#[test]
fn bad_dimensions_print_the_prescribed_error_and_exit_2() {
    assert_eq!(run("error_rows"), ("Error: Number of rows must be greater than zero\n".to_string(), 2));
    assert_eq!(run("error_cols"), ("Error: Number of columns must be greater than zero\n".to_string(), 2));
}

#[test]
fn more_than_61_pieces_warns_once_and_keeps_the_first_61() {
    let (out, code) = run("too_many");
    assert_eq!(code, 0);
    assert_eq!(out, expected("too_many"));
    assert!(out.contains("*123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY....*"));
    assert!(out.contains("1. Piece Z moves 63 space(s) right\n"));
}

#[test]
fn goal_already_in_last_column_is_solvable_in_zero_steps() {
    let (out, code) = run("zero_steps");
    assert_eq!(code, 0);
    assert_eq!(out, "*****\n*1.Z*\n*...*\n*****\nThis puzzle is solvable in 0 steps\n*****\n*1.Z*\n*...*\n*****\n");
}

#[test]
fn printed_cs351_output_verifies_as_a_solution() {
    for file in ["proj3a", "proj3a_as_listed", "warnings", "too_many"] {
        Command::cargo_bin("slidesolve")
            .unwrap()
            .args(["verify", &format!("corpora/cs351/{file}.data"), &format!("tests/cs351_expected/{file}.out")])
            .assert()
            .success();
    }
}

/// Runs `slidesolve ARGS` and returns its exit code, standard output and standard error.
fn slidesolve(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("slidesolve").unwrap().args(args).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap(), text(out.stdout), text(out.stderr))
}

/// The warnings of `corpora/cs351/warnings.data`, a line each.
const WARNINGS: &str = "Warning: Piece with starting position of 0,1 falls outside of grid\n\
                        Warning: Piece with starting position of 1,4 has invalid movement\n\
                        Warning: Piece with starting position of 1,2 overlaps with other piece\n";

#[test]
fn draw_verify_and_enumerate_print_the_warnings_on_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("w.svg").display().to_string();
    let file = "corpora/cs351/warnings.data";
    let (code, stdout, stderr) = slidesolve(&["draw", file, "--out", &svg]);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", WARNINGS));
    let (code, stdout, stderr) = slidesolve(&["verify", file, "tests/cs351_expected/warnings.out"]);
    assert_eq!((code, stderr.as_str()), (0, WARNINGS));
    assert!(stdout.starts_with("valid: "), "{stdout}");
    let (code, stdout, stderr) = slidesolve(&["enumerate", file, "--farthest", "0"]);
    assert_eq!((code, stderr.as_str()), (0, WARNINGS));
    assert!(stdout.starts_with("corpora/cs351/warnings.data: straight metric\nstates: "), "{stdout}");
    let (code, stdout, stderr) = slidesolve(&["enumerate", file, "--farthest", "0", "--json"]);
    assert_eq!((code, stderr.as_str()), (0, WARNINGS));
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let listed: Vec<&str> = json["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert_eq!(listed, WARNINGS.lines().collect::<Vec<_>>());
    // `solve` prints them on standard output alone, as the course's output.
    let (code, stdout, stderr) = slidesolve(&["solve", file]);
    assert_eq!((code, stdout, stderr.as_str()), (0, expected("warnings"), ""));
}

#[test]
fn prescribed_errors_go_to_standard_error_naming_file_line_and_column_except_for_solve() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("e.svg").display().to_string();
    let none = dir.path().join("none.data");
    std::fs::write(&none, "2 2\n3 3 1 1 b\n1 1 1 1 q\n").unwrap();
    let none = none.display().to_string();
    let cases = [
        (
            "corpora/cs351/error_rows.data".to_string(),
            "error: corpora/cs351/error_rows.data: line 1, column 1: \
             Error: Number of rows must be greater than zero\n"
                .to_string(),
        ),
        (
            "corpora/cs351/error_cols.data".to_string(),
            "error: corpora/cs351/error_cols.data: line 1, column 3: \
             Error: Number of columns must be greater than zero\n"
                .to_string(),
        ),
        (
            none.clone(),
            format!(
                "Warning: Piece with starting position of 3,3 falls outside of grid\n\
                 Warning: Piece with starting position of 1,1 has invalid movement\n\
                 error: {none}: Error: No valid pieces in the puzzle\n"
            ),
        ),
    ];
    for (file, message) in &cases {
        for args in [
            vec!["draw", file, "--out", &svg],
            vec!["verify", file, "Z:R"],
            vec!["enumerate", file],
            vec!["enumerate", file, "--json"],
        ] {
            assert_eq!(slidesolve(&args), (2, String::new(), message.clone()), "{args:?}");
        }
    }
    // `solve` keeps the course's exact text, on standard output.
    let prescribed = [
        "Error: Number of rows must be greater than zero\n",
        "Error: Number of columns must be greater than zero\n",
        "Warning: Piece with starting position of 3,3 falls outside of grid\n\
         Warning: Piece with starting position of 1,1 has invalid movement\n\
         Error: No valid pieces in the puzzle\n",
    ];
    for ((file, _), text) in cases.iter().zip(prescribed) {
        for args in [vec!["solve", file], vec!["solve", file, "--json"]] {
            assert_eq!(slidesolve(&args), (2, text.to_string(), String::new()), "{args:?}");
        }
    }
}
