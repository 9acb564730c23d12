//! Bad input never panics: a clear message naming the file, the line and the problem, exit code 2.

use assert_cmd::Command;
use std::io::Write;

/// Writes `content` to a temporary file with `ext` and runs `solve` on it.
pub(crate) fn solve_bytes(content: &[u8], ext: &str) -> (i32, String, String) {
    let mut file = tempfile::Builder::new().suffix(ext).tempfile().unwrap();
    file.write_all(content).unwrap();
    let out = Command::cargo_bin("slidesolve").unwrap().arg("solve").arg(file.path()).output().unwrap();
    let path = file.path().display().to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).replace(&path, "FILE");
    (out.status.code().unwrap(), String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

fn assert_rejected(content: &str, ext: &str, expected_message: &str) {
    let (code, _, stderr) = solve_bytes(content.as_bytes(), ext);
    assert_eq!(code, 2, "{content:?}: {stderr}");
    assert_eq!(stderr.trim_end(), format!("error: FILE: {expected_message}"), "{content:?}");
}

#[test]
fn empty_and_binary_files_in_every_format() {
    for ext in [".grid", ".data", ".tiles", ".rush", ".txt"] {
        assert_rejected("", ext, "empty file: no puzzle in it");
        assert_rejected("  \n\n", ext, "empty file: no puzzle in it");
        let (code, _, stderr) = solve_bytes(&[0x89, 0x50, 0xff, 0xfe, 0x00, 0x13], ext);
        assert_eq!((code, stderr.trim_end()), (2, "error: FILE: not a text file (invalid UTF-8 at byte 0)"));
        let (code, _, stderr) = solve_bytes(b"board:\nAB\x00C\n", ext);
        assert_eq!((code, stderr.trim_end()), (2, "error: FILE: line 2, column 3: not a text file (NUL byte)"));
    }
}

#[test]
fn a_byte_order_mark_at_the_start_is_skipped_in_every_format() {
    let samples: [(&str, &str); 4] = [
        ("goal: A at 0,1\nboard:\nA.\n", ".grid"),
        ("2 3\n1 1 1 1 b\n", ".data"),
        ("1 2 3\n4 5 6\n7 0 8\n", ".tiles"),
        ("ooooooooooooAAoooooooooooooooooooooo\n", ".rush"),
    ];
    for (text, ext) in samples {
        // The report starts with the temporary file's name, which differs from run to run.
        let run = |bytes: &[u8]| {
            let (code, stdout, stderr) = solve_bytes(bytes, ext);
            let from_name = stdout.find(&format!("{ext}: ")).map_or(stdout.as_str(), |i| &stdout[i..]).to_string();
            (code, from_name, stderr)
        };
        let plain = run(text.as_bytes());
        assert_eq!(plain.0, 0, "{ext}: {plain:?}");
        assert_eq!(run(&[b"\xef\xbb\xbf", text.as_bytes()].concat()), plain, "{ext}");
    }
}

#[test]
fn grid_format_errors_name_line_and_problem() {
    assert_rejected("goal: A at 0,0\n", ".grid", "no 'board:' block");
    assert_rejected("board:\nAA.\n", ".grid", "no goal: add 'goal:' or a 'target:' block");
    assert_rejected(
        "colour: red\nboard:\nA.\n",
        ".grid",
        "line 1, column 1: unknown key 'colour' (expected name, title, metric, goal, moves, distinct, board or target)",
    );
    assert_rejected("goal: Q at 0,0\nboard:\nA.\n", ".grid", "line 1: no piece named 'Q' on the board");
    assert_rejected(
        "goal: A at zero\nboard:\nA.\n",
        ".grid",
        "line 1: goal: expected 'X at R,C' or 'X reaches EDGE', found 'A at zero'",
    );
    assert_rejected(
        "goal: A reaches sky\nboard:\nA.\n",
        ".grid",
        "line 1: goal: unknown edge 'sky' (expected right, left, top or bottom)",
    );
    assert_rejected(
        "metric: teleport\ngoal: A at 0,1\nboard:\nA.\n",
        ".grid",
        "line 1: unknown metric 'teleport' (expected unit, straight or free)",
    );
    assert_rejected("moves: A=q\ngoal: A at 0,1\nboard:\nA.\n", ".grid", "line 1: moves: 'q' is not h, v, b or n");
    assert_rejected("goal: A at 0,1\nmoves: A=v A=h\nboard:\nA.\n", ".grid", "line 2: moves: piece 'A' given twice");
    assert_rejected(
        "goal: A at 0,1\nboard:\nA\t.\n",
        ".grid",
        "line 3, column 2: unexpected tab character (draw with spaces) in drawing",
    );
    // Noncharacters would make the SVG pictures ill-formed XML (U+FFFE, U+FFFF) or are not for
    // interchange; a control character such as NEL is refused the same way.
    for (ch, name) in [
        ('\u{fffe}', "noncharacter U+FFFE"),
        ('\u{fdd0}', "noncharacter U+FDD0"),
        ('\u{10ffff}', "noncharacter U+10FFFF"),
        ('\u{85}', "control character U+0085"),
    ] {
        assert_rejected(
            &format!("goal: A at 0,1\nboard:\nA.{ch}\n"),
            ".grid",
            &format!("line 3, column 3: unexpected {name} in drawing"),
        );
    }
    assert_rejected("goal: A at 0,1\nboard:\n...\n", ".grid", "line 3: the board has no pieces");
    assert_rejected(
        "board:\nAB.\ntarget:\nA.B\n..\n",
        ".grid",
        "line 4: target: its open cells and walls must match the board exactly",
    );
    assert_rejected(
        "board:\nAA.\n\ntarget:\nA.A\n",
        ".grid",
        "line 5: target: piece 'A' has a different shape than on the board",
    );
    assert_rejected(
        "just some words\n",
        ".grid",
        "line 1, column 1: expected 'key: value' or a 'board:' block, found 'just some words'",
    );
}

#[test]
fn cs351_format_errors_name_line_and_column() {
    assert_rejected("3 3\n1 1 1\n", ".data", "line 2, column 1: incomplete piece: expected 'row col width height dir'");
    assert_rejected("3 3\n1 x 1 1 b\n", ".data", "line 2, column 3: expected an integer column, found 'x'");
    assert_rejected(
        "three 3\n1 1 1 1 b\n",
        ".data",
        "line 1, column 1: expected an integer number of rows, found 'three'",
    );
    assert_rejected("3 3\n", ".data", "line 1: no pieces after the 'rows cols' line");
    assert_rejected("3\n3 1 1 1 1 b\n", ".data", "line 1: expected 'rows cols' on the first line");
    assert_rejected("3\nx 1 1 1 b\n", ".data", "line 1: expected 'rows cols' on the first line");
}

#[test]
fn cs351_errors_name_the_short_line_not_where_five_tokens_end() {
    let incomplete = "incomplete piece: expected 'row col width height dir'";
    // Line 2 lacks two tokens: counted in fives, the pieces end in the middle of line 3.
    assert_rejected("3 3\n1 1 1\n2 2 1 1 h\n3 3 1 1 v\n", ".data", &format!("line 2, column 1: {incomplete}"));
    // Line 2 lacks one, line 3 has one too many: the 'h' of line 3 would be a height.
    assert_rejected("3 3\n1 1 1 1\n2 2 1 1 h v\n", ".data", &format!("line 2, column 1: {incomplete}"));
    // A short last line names its first token.
    assert_rejected("3 3\n1 1 1 1 h\n  2 2 1\n", ".data", &format!("line 3, column 3: {incomplete}"));
    // A piece over two lines is allowed; its bad token is named where it is, in characters.
    assert_rejected("3 3\n1 1\n1 x h\n", ".data", "line 3, column 3: expected an integer height, found 'x'");
    assert_rejected("3 3\n1\u{a0}x 1 1 b\n", ".data", "line 2, column 3: expected an integer column, found 'x'");
}

#[test]
fn cs351_with_no_valid_piece_prints_its_warnings_and_an_error() {
    let (code, stdout, _) = solve_bytes(b"2 2\n3 3 1 1 b\n1 1 1 1 q\n", ".data");
    assert_eq!(code, 2);
    assert_eq!(
        stdout,
        "Warning: Piece with starting position of 3,3 falls outside of grid\n\
         Warning: Piece with starting position of 1,1 has invalid movement\n\
         Error: No valid pieces in the puzzle\n"
    );
}

#[test]
fn tile_format_errors() {
    assert_rejected("1 2 3\n4 5 6\n7 8 8\n", ".tiles", "line 3: tile 8 appears twice");
    assert_rejected("1 2 3\n4 5 6\n7 8 9\n", ".tiles", "line 3: tile 9 is out of range for 9 cells (tiles are 1 to 8)");
    assert_rejected(
        "1 2 3 4 5 0\n",
        ".tiles",
        "line 1: 6 tiles do not form a square; give one row per line or a 'rows cols' header",
    );
    // Four tiles and a known optimum, as in Korf's one-line form: tile 4 does not fit 2 x 2.
    assert_rejected("1 2 3 4 0\n", ".tiles", "line 1: tile 4 is out of range for 4 cells (tiles are 1 to 3)");
    // What `gen tiles 3x3 --count 0` writes: a header and no puzzle.
    assert_rejected("; slidesolve gen tiles 3x3 --count 0\nsize: 3x3\n", ".tiles", "no puzzles in it");
    assert_rejected("1 2 3\n4 5\n6 7 0\n", ".tiles", "line 2: rows have different lengths (the first has 3 tiles)");
    assert_rejected("1 2 3\n4 five 6\n7 8 0\n", ".tiles", "line 2: 'five' is not a tile number");
    assert_rejected("12345678?\n", ".tiles", "line 1, column 9: '?' is not a tile (use 1-9, a-z, and . for the blank)");
    assert_rejected(
        "goal: 1 2 3 0\n1 2 3\n4 5 6\n7 8 0\n",
        ".tiles",
        "line 1: 4 tiles, but the puzzle is 3x3 (9 cells)",
    );
    // Two numbers above rows that are not pairs: a header whose count is wrong.
    assert_rejected("3 3\n1 2 3\n4 5 6\n7 0\n", ".tiles", "line 1: the header '3 3' asks for 9 tiles, but 8 follow it");
}

#[test]
fn rush_format_errors() {
    assert_rejected(
        "AAooooooooooooooooooooooooooooooooo\n",
        ".rush",
        "line 1, column 1: a card has a square number of cells (36 for 6x6), found 35",
    );
    assert_rejected("oooooooooooooooooooooooooooooooooooo\n", ".rush", "line 1: no red car 'A'");
    assert_rejected(
        "AAoooooBooooooooBoooBooooooooooooooo\n",
        ".rush",
        "line 1: car 'B' is not a straight line of 2 or more cells",
    );
    assert_rejected(
        "AAoooooooooooooooooooooooooooooooo!o\n",
        ".rush",
        "line 1, column 35: unexpected character '!' (use o or . for empty, x for a wall, letters for cars)",
    );
    // Columns count the blanks before the card, and characters (not bytes) before the board.
    assert_rejected(
        "   AAoooooooooooooooooooooooooooooooo!o\n",
        ".rush",
        "line 1, column 38: unexpected character '!' (use o or . for empty, x for a wall, letters for cars)",
    );
    assert_rejected(
        "\t7 AAoooooooooooooooooooooooooooooooo!o\n",
        ".rush",
        "line 1, column 38: unexpected character '!' (use o or . for empty, x for a wall, letters for cars)",
    );
    assert_rejected(
        "x5 AAoooooooooooooooooooooooooooooooooo\n",
        ".rush",
        "line 1, column 1: expected the optimal move count, found 'x5'",
    );
    assert_rejected(
        "5 AAoooooooooooooooooooooooooooooooooo\n7 AAoooooooooooooooooooooooooooooooooo\n",
        ".rush",
        "line 2: the file holds 2 cards, one per line; solve one at a time or run 'batch' on the file",
    );
}

#[test]
fn a_missing_file_is_bad_input() {
    Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["solve", "no/such/file.grid"])
        .assert()
        .code(2)
        .stderr(predicates::str::starts_with("error: cannot read no/such/file.grid:"));
}

#[test]
fn bad_options_are_usage_errors() {
    for args in [vec!["solve", "corpora/klotski/classic.grid", "--metric", "warp"], vec!["solve"], vec!["frobnicate"]] {
        Command::cargo_bin("slidesolve").unwrap().args(&args).assert().code(2);
    }
}

#[test]
fn bidirectional_search_explains_that_it_needs_a_full_goal() {
    Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["solve", "corpora/klotski/classic.grid", "--algo", "bidir"])
        .assert()
        .code(2)
        .stderr("error: corpora/klotski/classic.grid: bidirectional search needs a fully specified goal (a full target layout or a tile puzzle)\n");
}
