//! The command line under hostile conditions: out-of-range options are usage errors, closed or
//! full output streams never panic or change a result, and every bad input or output path is
//! exit 2 with a message naming it.

use assert_cmd::Command;
use slidesolve::batch::record::read_rows;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

/// A small puzzle every test can solve quickly.
const EIGHT: &str = "corpora/tiles/8puzzle_863.tiles";

/// Runs slidesolve with `args` (and `stdin`); returns the exit code, standard output and error.
fn run_with(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let out = Command::cargo_bin("slidesolve").unwrap().args(args).write_stdin(stdin).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap(), text(out.stdout), text(out.stderr))
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_with(args, b"")
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Asserts a clap usage error: exit 2 and this first line.
fn assert_usage_error(args: &[&str], first_line: &str) {
    let (code, stdout, stderr) = run(args);
    assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().next(), Some(first_line), "{args:?}");
}

#[test]
fn timeouts_must_be_finite_non_negative_and_at_most_1e9_seconds() {
    for bad in ["inf", "1e30", "NaN", "-1", "1e10"] {
        let arg = format!("--timeout={bad}");
        assert_usage_error(
            &["solve", EIGHT, &arg],
            &format!(
                "error: invalid value '{bad}' for '--timeout <SECS>': a time limit is a number of seconds from 0 to 1e9"
            ),
        );
    }
    assert_usage_error(
        &["enumerate", "--tiles", "2x3", "--timeout=-0.5"],
        "error: invalid value '-0.5' for '--timeout <SECS>': a time limit is a number of seconds from 0 to 1e9",
    );
    assert_usage_error(
        &["batch", EIGHT, "--out", "x.csv", "--timeout", "soon"],
        "error: invalid value 'soon' for '--timeout <SECS>': not a number of seconds",
    );
    assert_usage_error(
        &["family", "corpora/families/dominoes-3x3.family", "--timeout", "1e10"],
        "error: invalid value '1e10' for '--timeout <SECS>': a time limit is a number of seconds from 0 to 1e9",
    );
    let (code, stdout, _) = run(&["solve", EIGHT, "--timeout", "1e9"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains(": solved in 25 moves (unit metric, bfs)\n"), "{stdout}");
}

#[test]
fn memory_sizes_are_non_negative_numbers_with_binary_units() {
    for (bad, why) in [
        ("-1", "'-1' is not a size such as 512M or 8G"),
        ("inf", "'inf' is not a size such as 512M or 8G"),
        ("NaN", "'NaN' is not a size such as 512M or 8G"),
        ("8X", "'8X': unknown unit 'X' (use K, M, G or T)"),
        ("", "'' is not a size such as 512M or 8G"),
    ] {
        let arg = format!("--max-memory={bad}");
        assert_usage_error(
            &["solve", EIGHT, &arg],
            &format!("error: invalid value '{bad}' for '--max-memory <BYTES>': {why}"),
        );
    }
    // 1 KiB does not hold the 8-puzzle's model (exit 2), 3 KiB not its search (exit 1); 1e9
    // bytes, 1.5G and 2GiB are plenty.
    let (code, _, stderr) = run(&["solve", EIGHT, "--max-memory", "1K"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.ends_with("a tile puzzle of 3 x 3 cells would need 1.4 KiB (more than the memory limit of 1.0 KiB)\n"),
        "{stderr}"
    );
    let (code, stdout, _) = run(&["solve", EIGHT, "--max-memory", "3K"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains(": limit (memory limit reached after "), "{stdout}");
    for good in ["1e9", "1.5G", "2GiB"] {
        let (code, stdout, _) = run(&["solve", EIGHT, "--max-memory", good]);
        assert_eq!(code, 0, "{good}: {stdout}");
        assert!(stdout.contains(": solved in 25 moves (unit metric, bfs)\n"), "{stdout}");
    }
}

/// Without the `mpi` feature a launcher's environment starts no MPI, so it can be set by hand: the
/// process then takes the memory share of one of four ranks on its node, and only rank 0 warns.
#[cfg(not(feature = "mpi"))]
#[test]
fn ranks_launched_on_one_node_share_its_memory_and_only_the_first_warns() {
    use crate::common::warned_budget;
    let args = ["solve", EIGHT, "--max-memory", "1000T"];
    let (code, _, alone) = run(&args);
    assert_eq!(code, 0, "{alone}");
    let as_rank = |rank: &str| {
        let out = Command::cargo_bin("slidesolve")
            .unwrap()
            .args(args)
            .env("OMPI_COMM_WORLD_SIZE", "4")
            .env("OMPI_COMM_WORLD_LOCAL_SIZE", "4")
            .env("OMPI_COMM_WORLD_RANK", rank)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(String::from_utf8(out.stdout).unwrap().contains(": solved in 25 moves"));
        String::from_utf8(out.stderr).unwrap()
    };
    let first = as_rank("0");
    assert!(first.contains("shared by the 4 ranks on this node, and ulimit -v); the budget is "), "{first}");
    // A quarter of what one process has, unless an address-space limit (not shared) is lower.
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    if limits.lines().any(|l| l.starts_with("Max address space") && l.contains("unlimited")) {
        let ratio = warned_budget(&alone) / warned_budget(&first);
        assert!((3.9..4.1).contains(&ratio), "{alone}{first}");
    }
    assert_eq!(as_rank("1"), "", "only the first rank warns");
}

#[test]
fn thread_counts_above_1024_are_usage_errors() {
    let family = vec!["family", "corpora/families/dominoes-3x3.family"];
    for command in
        [vec!["solve", EIGHT], vec!["enumerate", "--tiles", "2x3"], vec!["batch", EIGHT, "--out", "x.csv"], family]
    {
        let mut args = command.clone();
        args.extend(["--threads", "5000"]);
        assert_usage_error(
            &args,
            "error: invalid value '5000' for '--threads <THREADS>': at most 1024 worker threads (0: one per core)",
        );
    }
    let (code, stdout, _) = run(&["enumerate", "--tiles", "2x3", "--threads", "1024"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("states: 360\n"), "{stdout}");
}

#[test]
fn board_sizes_are_checked_without_overflow() {
    let wrapping = "4294967299x18446744069414584323";
    assert_usage_error(
        &["gen", "tiles", wrapping],
        &format!(
            "error: invalid value '{wrapping}' for '<SIZE>': gen tiles takes a board of at least 2x2 and at most 1048576 cells"
        ),
    );
    assert_usage_error(
        &["enumerate", "--tiles", wrapping],
        &format!(
            "error: invalid value '{wrapping}' for '--tiles <RxC>': enumerate --tiles takes a board of 2 to 64 cells"
        ),
    );
    // Counts past any integer are over the bounds too, not unreadable.
    for huge in ["99999999999999999999x1", "2x99999999999999999999"] {
        assert_usage_error(
            &["enumerate", "--tiles", huge],
            &format!(
                "error: invalid value '{huge}' for '--tiles <RxC>': enumerate --tiles takes a board of 2 to 64 cells"
            ),
        );
    }
    assert_usage_error(
        &["enumerate", "--tiles", "3xz"],
        "error: invalid value '3xz' for '--tiles <RxC>': '3xz': bad column count",
    );
    assert_usage_error(
        &["enumerate", "--tiles", "9x9"],
        "error: invalid value '9x9' for '--tiles <RxC>': enumerate --tiles takes a board of 2 to 64 cells",
    );
    for size in ["1x1", "1x5", "5x1"] {
        assert_usage_error(
            &["gen", "tiles", size],
            &format!(
                "error: invalid value '{size}' for '<SIZE>': gen tiles takes a board of at least 2x2 and at most 1048576 cells"
            ),
        );
    }
}

#[test]
fn gen_makes_boards_past_64_cells_for_the_constructive_solver() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.tiles");
    let (code, stdout, stderr) = run(&["gen", "tiles", "20x30", "--count", "2", "--seed", "5"]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[..2],
        ["; slidesolve gen tiles 20x30 --count 2 --seed 5 (uniform over solvable layouts)", "size: 20x30"]
    );
    assert_eq!(lines.len(), 4);
    let mut cells: Vec<u32> = lines[2].split(' ').map(|t| t.parse().unwrap()).collect();
    cells.sort();
    assert_eq!(cells, (0..600).collect::<Vec<u32>>(), "a permutation of the 600 cells");
    std::fs::write(&file, &stdout).unwrap();
    let (code, stdout, stderr) =
        run(&["batch", path(&file), "--out", path(&dir.path().join("r.csv")), "--algo", "constructive"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("2 puzzles: 2 solved, 0 unsolvable, 0 timeout, 0 limit, 0 error\n"), "{stdout}");
}

#[test]
fn a_random_walk_is_reproducible_and_bounded() {
    let (code, stdout, stderr) = run(&["gen", "tiles", "3x3", "--walk", "12", "--count", "3", "--seed", "2"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "; slidesolve gen tiles 3x3 --count 3 --seed 2 (random walk of 12 moves from the goal)\nsize: 3x3\n\
         1 3 8 4 2 5 0 7 6\n4 1 3 8 7 5 2 6 0\n4 1 2 7 3 6 0 8 5\n"
    );
    // Each is at most 12 moves from the goal, with the walk's parity.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("walk.tiles");
    for line in stdout.lines().skip(2) {
        std::fs::write(&file, format!("size: 3x3\n{line}\n")).unwrap();
        let (code, out, stderr) = run(&["solve", path(&file), "--json"]);
        assert_eq!(code, 0, "{stderr}");
        let moves: serde_json::Value = serde_json::from_str(&out).unwrap();
        let moves = moves["moves"].as_u64().unwrap();
        assert!(moves <= 12 && moves.is_multiple_of(2), "{moves}");
    }
    // A walk that would not end in any lifetime (it used to run silently for ever) is a usage error.
    for moves in ["1000000001", "18446744073709551615", "x"] {
        assert_usage_error(
            &["gen", "tiles", "2x2", "--walk", moves],
            &format!(
                "error: invalid value '{moves}' for '--walk <MOVES>': a walk is a number of moves from 0 to 1000000000"
            ),
        );
    }
}

#[test]
fn gen_with_count_0_writes_only_the_header() {
    let (code, stdout, _) = run(&["gen", "tiles", "2x5", "--count", "0"]);
    assert_eq!(code, 0);
    assert_eq!(stdout, "; slidesolve gen tiles 2x5 --count 0 --seed 1 (uniform over solvable layouts)\nsize: 2x5\n");
}

#[test]
fn a_reader_that_goes_away_ends_the_output_quietly() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_slidesolve"))
        .args(["gen", "tiles", "3x3", "--count", "1000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("; slidesolve gen tiles 3x3 --count 1000000"), "{first}");
    // The reader is dropped here: the next writes meet a broken pipe.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slidesolve"))
        .args(["solve", EIGHT])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cannot write to standard output: No space left on device (os error 28)\n"
    );
}

#[test]
fn a_closed_standard_error_does_not_change_batch_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (traced, plain) = (dir.path().join("traced.csv"), dir.path().join("plain.csv"));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_slidesolve"))
        .args(["batch", "corpora/mixed", "--out", path(&traced), "--trace", "--threads", "2"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let (code, _, _) = run(&["batch", "corpora/mixed", "--out", path(&plain), "--quiet", "--threads", "2"]);
    assert_eq!(code, 0);
    let outcomes =
        |p: &Path| read_rows(p).unwrap().into_iter().map(|r| (r.id.clone(), r.outcome())).collect::<Vec<_>>();
    let (mut a, mut b) = (outcomes(&traced), outcomes(&plain));
    a.sort_by(|x, y| x.0.cmp(&y.0));
    b.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(a.len(), 61);
    assert_eq!(a, b);
}

#[test]
fn batch_trace_lines_carry_the_puzzle_id() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    let (code, _, stderr) = run(&["batch", EIGHT, "--out", path(&out), "--trace", "--quiet"]);
    assert_eq!(code, 0);
    let levels: Vec<&str> = stderr.lines().filter(|l| l.contains("frontier")).collect();
    assert_eq!(levels.len(), 25, "{stderr}");
    for (depth, line) in levels.iter().enumerate() {
        assert!(line.starts_with(&format!("{EIGHT}: level {depth:>4}: frontier ")), "{line}");
    }
    // The 8-puzzle's 9!/2 states fit a bit array of 22,680 bytes, which the search switches to
    // once its level sets would take more.
    let switch: Vec<&str> = stderr.lines().filter(|l| l.contains("bit array")).collect();
    assert_eq!(switch, [format!("{EIGHT}: level   13: visited states now in a bit array of 22680 bytes")], "{stderr}");
}

#[test]
fn a_file_without_puzzles_is_one_error_row() {
    let dir = tempfile::tempdir().unwrap();
    let (file, out) = (dir.path().join("none.tiles"), dir.path().join("r.csv"));
    std::fs::write(&file, "; slidesolve gen tiles 2x5 --count 0 --seed 1 (uniform over solvable layouts)\nsize: 2x5\n")
        .unwrap();
    let (code, stdout, _) = run(&["batch", path(&file), EIGHT, "--out", path(&out), "--quiet"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("2 puzzles: 1 solved, 0 unsolvable, 0 timeout, 0 limit, 1 error\n"), "{stdout}");
    let rows = read_rows(&out).unwrap();
    let row = rows.iter().find(|r| r.source == path(&file)).unwrap();
    assert_eq!((row.id.as_str(), row.status.as_str()), (path(&file), "error"));
    assert_eq!(row.message, format!("{}: no puzzles in it", path(&file)));
}

#[test]
fn plot_refuses_a_missing_or_empty_csv_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let svgs = dir.path().join("svgs");
    let (code, stdout, stderr) = run(&["plot", "/nonexistent.csv", "--out", path(&svgs)]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(stderr, "error: cannot read /nonexistent.csv: No such file or directory (os error 2)\n");
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let (code, _, stderr) = run(&["plot", path(&empty), "--out", path(&svgs)]);
    assert_eq!((code, stderr), (2, format!("error: {}: no result rows in it\n", path(&empty))));
    assert!(!svgs.exists());
}

#[test]
fn merge_skips_a_last_row_without_its_newline_and_names_it_as_a_gap() {
    // A batch writes each row with its newline at once: a last line without one is a row a killed
    // run was writing (a cut inside its message leaves every field there), so it is not merged.
    let dir = tempfile::tempdir().unwrap();
    let (csv, merged) = (dir.path().join("r.csv"), dir.path().join("m.csv"));
    let args = ["batch", "corpora/mixed/2x5.tiles", EIGHT, "--out", path(&csv), "--quiet", "--threads", "1"];
    let (code, _, _) = run(&args);
    assert_eq!(code, 0);
    let rows = read_rows(&csv).unwrap();
    let last = &rows.last().unwrap().id;
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, text.trim_end_matches('\n')).unwrap();
    let (code, stdout, stderr) = run(&["merge", path(&csv), "--out", path(&merged)]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.starts_with(&format!("{} rows from 1 file written to {}\n", rows.len() - 1, path(&merged))));
    assert!(format!("{stdout}{stderr}").contains(&format!("gap: {last} has no row")), "{stdout}{stderr}");
    assert_eq!(read_rows(&merged).unwrap(), rows[..rows.len() - 1]);
}

#[test]
fn merge_and_resume_refuse_a_results_file_that_does_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, merged) = (dir.path().join("r.csv"), dir.path().join("m.csv"));
    let (code, _, _) = run(&["batch", EIGHT, "--out", path(&csv), "--quiet"]);
    assert_eq!(code, 0);
    // Metadata that does not read: the merge goes on, and says that gaps are not checked.
    std::fs::write(dir.path().join("r.csv.json"), "{").unwrap();
    let (code, _, stderr) = run(&["merge", path(&csv), "--out", path(&merged)]);
    let want = format!(
        "warning: {}.json: EOF while parsing an object at line 1 column 1; the gaps of its results file are not checked\n",
        path(&csv)
    );
    assert_eq!((code, stderr), (0, want));
    // Inputs that are missing, a directory, not a results file or with a row that does not
    // read are bad input (exit 2), for merge as for batch --resume.
    let other = dir.path().join("other.csv");
    std::fs::write(&other, "id,moves\n1,2\n").unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    let short = dir.path().join("short.csv");
    std::fs::write(&short, format!("{text}x,y,tiles\n")).unwrap();
    let cases = [
        (dir.path().join("missing.csv"), "no such file".to_string()),
        (dir.path().to_path_buf(), "not a file".to_string()),
        (other.clone(), "not a slidesolve results file (its header is 'id,moves')".to_string()),
        (short.clone(), "row 3: CSV error: record 2 (line: 3, byte: ".to_string()),
    ];
    for (input, why) in &cases {
        let (code, stdout, stderr) = run(&["merge", path(&csv), path(input), "--out", path(&merged)]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
        assert!(stderr.starts_with(&format!("error: {}: {why}", path(input))), "{stderr}");
    }
    for input in [&other, &short] {
        let (code, _, stderr) = run(&["batch", EIGHT, "--out", path(input), "--quiet", "--resume"]);
        assert_eq!(code, 2, "{stderr}");
        let line = stderr.lines().find(|l| l.starts_with("error: ")).unwrap();
        assert!(line.starts_with(&format!("error: cannot resume: {}: ", path(input))), "{stderr}");
    }
}

#[test]
fn merge_refuses_an_empty_file_and_a_row_of_unknown_status_and_keeps_a_header_only_file() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, merged) = (dir.path().join("r.csv"), dir.path().join("m.csv"));
    let (code, _, _) = run(&["batch", EIGHT, "--out", path(&csv), "--quiet"]);
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(&csv).unwrap();
    let header = text.lines().next().unwrap();
    // A batch writes the header before any row: an empty file is not a results file, while one
    // with the header only is a batch that finished no puzzle.
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let (code, stdout, stderr) = run(&["merge", path(&csv), path(&empty), "--out", path(&merged)]);
    let want = format!("error: {}: not a slidesolve results file (it has no header line)\n", path(&empty));
    assert_eq!((code, stdout.as_str(), stderr), (2, "", want));
    assert!(!merged.exists());
    let header_only = dir.path().join("header.csv");
    std::fs::write(&header_only, format!("{header}\n")).unwrap();
    let (code, stdout, stderr) = run(&["merge", path(&csv), path(&header_only), "--out", path(&merged)]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(stdout, format!("1 row from 2 files written to {}\n", path(&merged)));
    std::fs::remove_file(&merged).unwrap();
    // A status no batch writes is refused, by merge as by batch --resume, naming file and row.
    let odd = dir.path().join("odd.csv");
    std::fs::write(&odd, text.replacen(",solved,", ",done,", 1)).unwrap();
    let why = format!(
        "{}: row 2: status 'done' is not one a batch writes (solved, unsolvable, timeout, limit, error)",
        path(&odd)
    );
    let (code, stdout, stderr) = run(&["merge", path(&odd), "--out", path(&merged)]);
    assert_eq!((code, stdout.as_str(), stderr), (2, "", format!("error: {why}\n")));
    assert!(!merged.exists());
    let (code, _, stderr) = run(&["batch", EIGHT, "--out", path(&odd), "--quiet", "--resume"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.ends_with(&format!("error: cannot resume: {why}\n")), "{stderr}");
    // So is a time that is not a number of seconds.
    let column = header.split(',').position(|c| c == "wall_s").unwrap();
    for bad in ["NaN", "-1", "inf"] {
        let rows: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, line)| {
                let mut fields: Vec<&str> = line.split(',').collect();
                if i == 1 {
                    fields[column] = bad;
                }
                fields.join(",")
            })
            .collect();
        std::fs::write(&odd, rows.join("\n") + "\n").unwrap();
        let (code, stdout, stderr) = run(&["merge", path(&odd), "--out", path(&merged)]);
        let why = format!("{}: row 2: wall_s '{bad}' is not a number of seconds", path(&odd));
        assert_eq!((code, stdout.as_str(), stderr), (2, "", format!("error: {why}\n")));
    }
    assert!(!merged.exists());
    // A torn last line, its status cut short, is still skipped rather than refused.
    let torn = dir.path().join("torn.csv");
    std::fs::write(&torn, format!("{text}x,s.txt,tiles,3,3,8,unit,bfs,2,sol")).unwrap();
    let (code, stdout, stderr) = run(&["merge", path(&torn), "--out", path(&merged)]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(stdout, format!("1 row from 1 file written to {}\n", path(&merged)));
    let (code, _, stderr) = run(&["batch", EIGHT, "--out", path(&torn), "--quiet", "--resume"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read_rows(&torn).unwrap().len(), 1);
}

#[test]
fn merge_refuses_inputs_whose_metadata_disagree_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let rush = "corpora/mixed/rush10.txt";
    let out = |name: &str| dir.path().join(name);
    let runs: [(&str, &[&str]); 6] = [
        ("a.csv", &[rush, "--shard", "1/2"]),
        ("b.csv", &[rush, "--shard", "2/2"]),
        ("c.csv", &[rush, "--shard", "2/3"]),
        ("d.csv", &[rush]),
        ("e.csv", &["corpora/mixed/2x5.tiles", "--shard", "2/2"]),
        ("f.csv", &[rush, "--shard", "2/2", "--max-states", "1000000"]),
    ];
    for (name, args) in runs {
        let (code, _, stderr) = run(&[&["batch", "--quiet", "--out", path(&out(name))][..], args].concat());
        assert_eq!(code, 0, "{name}: {stderr}");
    }
    let merged = out("m.csv");
    let merge = |a: &str, b: &str| run(&["merge", path(&out(a)), path(&out(b)), "--out", path(&merged)]);
    let meta = |name: &str| format!("{}.json", path(&out(name)));
    let (a, c, d, e, f) = (meta("a.csv"), meta("c.csv"), meta("d.csv"), meta("e.csv"), meta("f.csv"));
    let cases = [
        ("c.csv", format!("{a} says shard 1/2, {c} says shard 2/3: the inputs are not shards of one split")),
        ("d.csv", format!("{a} says shard 1/2, {d} says no shard: the inputs are not shards of one split")),
        ("e.csv", format!("{a} says the corpus has 10 puzzles, {e} says 4: the inputs are not of one corpus")),
        (
            "f.csv",
            format!(
                "{a} says its rows were computed without --max-states, {f} says with --max-states 1000000: rows \
                 of different settings are not merged"
            ),
        ),
        ("a.csv", format!("{a} and {a} both say shard 1/2: its rows would be merged twice")),
    ];
    for (other, why) in cases {
        let (code, stdout, stderr) = merge("a.csv", other);
        assert_eq!((code, stdout.as_str(), stderr), (2, "", format!("error: {why}\n")), "{other}");
        assert!(!merged.exists(), "{other}");
    }
    let (code, stdout, stderr) = merge("a.csv", "b.csv");
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    // Metadata that keeps no settings (written before they were kept) is not compared on them.
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    json.as_object_mut().unwrap().remove("settings");
    std::fs::write(&f, json.to_string()).unwrap();
    let (code, _, stderr) = merge("a.csv", "f.csv");
    assert_eq!((code, stderr.as_str()), (0, ""));
}

#[test]
fn merge_names_ten_duplicate_ids_and_counts_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, merged) = (dir.path().join("r.csv"), dir.path().join("m.csv"));
    let (code, _, _) = run(&["batch", EIGHT, "--out", path(&csv), "--quiet"]);
    assert_eq!(code, 0);
    std::fs::remove_file(dir.path().join("r.csv.json")).unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    let (header, row) = text.split_once('\n').unwrap();
    let rows: String = (1..=12).map(|i| row.replacen(EIGHT, &format!("x.txt:{i}"), 1)).collect();
    std::fs::write(&csv, format!("{header}\n{rows}")).unwrap();
    let (code, stdout, stderr) = run(&["merge", path(&csv), path(&csv), "--out", path(&merged)]);
    assert_eq!(code, 1);
    assert_eq!(stdout, format!("12 rows from 2 files written to {}\n", path(&merged)));
    let mut want: String =
        (1..=10).map(|i| format!("duplicate: x.txt:{i} appears in more than one row (the first is kept)\n")).collect();
    want.push_str("duplicate: 2 more ids appear in more than one row (12 in all)\n");
    assert_eq!(stderr, want);
}

#[test]
fn batch_refuses_a_directory_or_a_missing_directory_as_output_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out");
    std::fs::create_dir(&target).unwrap();
    let (code, _, stderr) = run(&["batch", EIGHT, "--out", path(&target), "--force"]);
    assert_eq!(
        (code, stderr),
        (2, format!("error: {} is a directory; --out takes the name of the results CSV\n", path(&target)))
    );
    assert!(!dir.path().join("out.json").exists());
    let missing = dir.path().join("nodir").join("r.csv");
    let (code, _, stderr) = run(&["batch", EIGHT, "--out", path(&missing)]);
    let expected =
        format!("error: cannot write {}: {} does not exist\n", path(&missing), path(&dir.path().join("nodir")));
    assert_eq!((code, stderr), (2, expected));
}

#[test]
fn batch_names_the_csv_it_cannot_write_before_its_metadata() {
    // /proc takes no new files: the CSV is named, not its `.json`, and it is bad input.
    let (code, stdout, stderr) = run(&["batch", EIGHT, "--out", "/proc/x.csv"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(stderr, "error: cannot write /proc/x.csv: No such file or directory (os error 2)\n");
    // A CSV that can be written beside a `.json` that cannot (a directory of that name).
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let json = dir.path().join("r.csv.json");
    std::fs::create_dir(&json).unwrap();
    let (code, stdout, stderr) = run(&["batch", EIGHT, "--out", path(&csv), "--quiet"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(stderr, format!("error: cannot write {}: Is a directory (os error 21)\n", path(&json)));
}

#[test]
fn verify_names_a_missing_solution_file() {
    for name in ["missing.txt", "dir/moves"] {
        let (code, stdout, stderr) = run(&["verify", EIGHT, name]);
        assert_eq!((code, stdout.as_str()), (2, ""));
        assert_eq!(stderr, format!("error: cannot read {name}: No such file or directory (os error 2)\n"));
    }
    let (code, _, stderr) = run(&["verify", EIGHT, "1:X"]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: solution: "), "{stderr}");
}

#[test]
fn batch_reads_standard_input_as_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    let puzzle = std::fs::read(EIGHT).unwrap();
    let (code, stdout, stderr) = run_with(&["batch", "/dev/stdin", "--out", path(&out), "--quiet"], &puzzle);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1 puzzle: 1 solved,"), "{stdout}");
    let rows = read_rows(&out).unwrap();
    assert_eq!((rows[0].id.as_str(), rows[0].moves), ("/dev/stdin", Some(25)));
}

#[test]
fn an_empty_run_takes_zero_seconds_not_minus_zero() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    let (code, stdout, _) = run(&["batch", EIGHT, "--out", path(&out), "--quiet", "--shard", "2/2"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("0 puzzles: 0 solved, 0 unsolvable, 0 timeout, 0 limit, 0 error\n"), "{stdout}");
    assert!(stdout.contains("time: 0.000 s in total, median 0.0000 s per puzzle\n"), "{stdout}");
}

#[test]
fn a_straight_metric_table_that_cannot_run_says_why() {
    let why = |args: &[&str]| {
        let (code, _, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}");
        stderr.trim_end().to_string()
    };
    let needs = "the straight (multi-tile) metric for sliding tiles needs the perfect-hash engine";
    assert_eq!(
        why(&["enumerate", "--tiles", "3x4", "--metric", "straight", "--max-memory", "10M"]),
        format!(
            "error: 3x4 tiles: {needs} (the perfect-hash engine needs 79833600 bytes for 12 cells, more than --max-memory)"
        )
    );
    assert_eq!(
        why(&["enumerate", "--tiles", "3x3", "--metric", "straight", "--engine", "frontier"]),
        format!("error: 3x3 tiles: {needs} (not --engine frontier)")
    );
    assert_eq!(
        why(&["enumerate", "--tiles", "4x4", "--metric", "straight"]),
        format!("error: 4x4 tiles: {needs} (boards of 3 to 14 cells)")
    );
}

#[test]
fn a_goal_option_that_does_not_read_is_blamed_on_the_option_not_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let grid = dir.path().join("a2.grid");
    let tiles = dir.path().join("t1.tiles");
    std::fs::write(&grid, "goal: A at 0,2\nboard:\nA..\n").unwrap();
    std::fs::write(&tiles, "1 2 3\n4 5 6\n7 8 0\n").unwrap();
    for (file, goal, message) in [
        (&grid, "B at 0,1", "--goal: no piece named 'B' on the board"),
        (&tiles, "1 2 3", "--goal: 3 tiles, but the puzzle is 3x3 (9 cells)"),
        (&tiles, "1 2 3 4", "--goal: 4 tiles, but the puzzle is 3x3 (9 cells)"),
        (&tiles, "1 2/3 0", "--goal: the goal is 2x2 but the puzzle is 3x3"),
    ] {
        for command in ["solve", "enumerate"] {
            let (code, _, stderr) = run(&[command, path(file), "--goal", goal]);
            assert_eq!((code, stderr), (2, format!("error: {}: {message}\n", path(file))), "{command} {goal}");
        }
    }
}
