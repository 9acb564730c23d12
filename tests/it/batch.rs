//! The `batch` and `merge` commands: statuses on a mixed corpus, kill-and-resume, shards, and
//! thread-count independence.

use assert_cmd::Command;
use slidesolve::batch::corpus::id_order;
use slidesolve::batch::record::{Row, read_rows};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn slidesolve(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("slidesolve").unwrap().args(args).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap(), text(out.stdout), text(out.stderr))
}

/// Runs `batch` with extra arguments into `out`; returns the exit code and standard output.
fn batch(inputs: &[&str], out: &Path, extra: &[&str]) -> (i32, String) {
    let out = out.to_str().unwrap();
    let args: Vec<&str> =
        ["batch"].iter().chain(inputs).chain(&["--out", out, "--quiet"]).chain(extra).copied().collect();
    let (code, stdout, stderr) = slidesolve(&args);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (code, stdout)
}

/// Rows by id, without measurements (wall time, peak bytes) and thread counts.
fn outcomes(path: &Path) -> BTreeMap<String, Row> {
    read_rows(path).unwrap().into_iter().map(|r| (r.id.clone(), r.outcome())).collect()
}

/// Asserts two result sets are equal, naming the first difference (not printing both sets).
fn same(a: &BTreeMap<String, Row>, b: &BTreeMap<String, Row>) {
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (id, row) in a {
        assert_eq!(row, &b[id], "{id}");
    }
}

fn temp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.csv");
    (dir, path)
}

#[test]
fn a_mixed_corpus_gets_the_right_status_for_every_puzzle() {
    let (_dir, out) = temp();
    let (code, stdout) = batch(&["corpora/mixed"], &out, &["--threads", "2"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("61 puzzles: 57 solved, 2 unsolvable, 0 timeout, 0 limit, 2 error\n"), "{stdout}");
    assert!(stdout.contains("known optima: 10 checked, 0 mismatches\n"), "{stdout}");
    assert!(stdout.contains("deepest solution: 81 moves (corpora/mixed/klotski.grid)\n"), "{stdout}");
    let rows = outcomes(&out);
    assert_eq!(rows.len(), 61);
    let status = |id: &str| rows[id].status.as_str();
    assert_eq!(status("corpora/mixed/8puzzles.tiles:44"), "unsolvable");
    assert_eq!(rows["corpora/mixed/8puzzles.tiles:44"].message, "unsolvable by permutation parity");
    assert_eq!(status("corpora/mixed/stuck.grid"), "unsolvable");
    assert_eq!(status("corpora/mixed/8puzzles.tiles:46"), "error");
    assert_eq!(
        rows["corpora/mixed/8puzzles.tiles:46"].message,
        "corpora/mixed/8puzzles.tiles: line 46: tile 7 appears twice"
    );
    assert_eq!(status("corpora/mixed/broken.grid"), "error");
    assert!(rows["corpora/mixed/broken.grid"].message.starts_with("corpora/mixed/broken.grid: line 2"));
    let klotski = &rows["corpora/mixed/klotski.grid"];
    assert_eq!((klotski.status.as_str(), klotski.moves, klotski.family.as_str()), ("solved", Some(81), "grid"));
    assert_eq!(rows["corpora/mixed/proj3a.data"].moves, Some(5));
    for r in rows.values().filter(|r| r.source.ends_with("rush10.txt")) {
        assert_eq!((r.status.as_str(), r.metric.as_str()), ("solved", "straight"));
        assert_eq!(r.moves, r.expected, "{}", r.id);
    }
    // Every solution string is accepted by `verify` on its puzzle.
    let (code, stdout, _) = slidesolve(&["verify", "corpora/mixed/klotski.grid", &klotski.solution]);
    assert_eq!((code, stdout.as_str()), (0, "valid: the goal is reached in 81 moves (free metric)\n"));
}

/// Runs `batch` on `inputs` into `out` with a deadline (a file the walk opens by mistake, such
/// as a FIFO, would block it forever); returns the exit code and standard output.
fn batch_within_a_minute(inputs: &[&Path], out: &Path) -> (i32, String) {
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .arg("batch")
        .args(inputs)
        .args(["--quiet", "--out"])
        .arg(out)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    (out.status.code().expect("batch ended before its deadline"), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn a_fifo_in_a_directory_is_an_error_row_and_is_never_opened() {
    let (dir, out) = temp();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::copy("corpora/tiles/8puzzle_123.tiles", corpus.join("a.tiles")).unwrap();
    let fifo = corpus.join("f.grid");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let (code, stdout) = batch_within_a_minute(&[&corpus], &out);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("2 puzzles: 1 solved, 0 unsolvable, 0 timeout, 0 limit, 1 error\n"), "{stdout}");
    let rows = outcomes(&out);
    let fifo = fifo.display().to_string();
    assert_eq!(rows[&fifo].status, "error");
    assert_eq!(
        rows[&fifo].message,
        format!("{fifo}: not a regular file, so it is not read (name it on its own to read it)")
    );
}

#[test]
fn a_directory_reached_again_through_a_link_is_not_walked_again() {
    let (dir, out) = temp();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir_all(corpus.join("sub")).unwrap();
    std::fs::copy("corpora/tiles/8puzzle_123.tiles", corpus.join("a.tiles")).unwrap();
    std::fs::copy("corpora/tiles/8puzzle_283.tiles", corpus.join("sub/b.tiles")).unwrap();
    // A loop back to the top, and a link to a file, which is read under its own name.
    std::os::unix::fs::symlink("..", corpus.join("sub/loop")).unwrap();
    std::os::unix::fs::symlink("../a.tiles", corpus.join("sub/link.tiles")).unwrap();
    let ids = |rows: BTreeMap<String, Row>| rows.into_keys().collect::<Vec<_>>();
    let expected: Vec<String> =
        ["a.tiles", "sub/b.tiles", "sub/link.tiles"].iter().map(|f| corpus.join(f).display().to_string()).collect();
    let (code, stdout) = batch_within_a_minute(&[&corpus], &out);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("3 puzzles: 3 solved, 0 unsolvable, 0 timeout, 0 limit, 0 error\n"), "{stdout}");
    assert_eq!(ids(outcomes(&out)), expected);
    // A pattern that descends (`**`) does not follow the loop either.
    std::fs::remove_file(&out).unwrap();
    let pattern = corpus.join("**").join("*.tiles");
    let (code, stdout) = batch_within_a_minute(&[&pattern], &out);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(ids(outcomes(&out)), expected);
}

#[test]
fn results_written_inside_the_corpus_are_not_read_back_as_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::copy("corpora/tiles/8puzzle_123.tiles", corpus.join("a.tiles")).unwrap();
    // A results file and a summary whose names end in a puzzle extension, inside the corpus.
    let out = corpus.join("results.txt");
    let summary = corpus.join("summary.txt");
    let corpus_arg = corpus.to_str().unwrap();
    for extra in [&[][..], &["--force"]] {
        let args: Vec<&str> = ["--summary-json", summary.to_str().unwrap()].iter().chain(extra).copied().collect();
        let (code, stdout) = batch(&[corpus_arg], &out, &args);
        assert_eq!(code, 0, "{stdout}");
        let ids: Vec<String> = outcomes(&out).into_keys().collect();
        assert_eq!(ids, [corpus.join("a.tiles").display().to_string()], "{stdout}");
    }
    // Named on its own, the results file is read (and is no puzzle).
    let other = dir.path().join("other.csv");
    let (code, _) = batch(&[out.to_str().unwrap()], &other, &[]);
    assert_eq!(code, 0);
    assert_eq!(outcomes(&other).into_values().map(|r| r.status).collect::<Vec<_>>(), ["error"]);
}

#[test]
fn metadata_is_written_next_to_the_results() {
    let (_dir, out) = temp();
    let summary = out.with_extension("summary.json");
    batch(
        &["corpora/mixed/stuck.grid", "corpora/mixed/rush10.txt"],
        &out,
        &["--summary-json", summary.to_str().unwrap()],
    );
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{}.json", out.display())).unwrap()).unwrap();
    for key in ["slidesolve_version", "git_commit", "rustc_version", "cpu_model", "os", "started", "finished"] {
        assert!(meta[key].as_str().is_some_and(|v| !v.is_empty()), "{key}: {meta}");
    }
    assert!(meta["cores"].as_u64().unwrap() >= 1 && meta["ram_bytes"].as_u64().unwrap() > 0);
    assert_eq!(meta["corpus_puzzles"], 11);
    assert_eq!(meta["command_line"][1], "batch");
    let s: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(summary).unwrap()).unwrap();
    assert_eq!((s["puzzles"].as_u64(), s["solved"].as_u64(), s["unsolvable"].as_u64()), (Some(11), Some(10), Some(1)));
}

#[test]
fn an_existing_output_is_never_overwritten_by_accident() {
    let (_dir, out) = temp();
    batch(&["corpora/mixed/stuck.grid"], &out, &[]);
    let (code, _, stderr) = slidesolve(&["batch", "corpora/mixed/stuck.grid", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("already exists; use --resume to continue it or --force to overwrite it"), "{stderr}");
    let (code, _, stderr) = slidesolve(&["batch", "no/such/dir", "--out", out.to_str().unwrap(), "--force"]);
    assert_eq!((code, stderr.as_str()), (2, "error: no/such/dir: no such file or directory\n"));
    // A device is no results file: its rows could not be read back, its record not kept beside it.
    let (code, _, stderr) = slidesolve(&["batch", "corpora/mixed/stuck.grid", "--out", "/dev/null"]);
    let expected = "error: /dev/null is not a regular file; --out takes a results CSV that the run reads back and \
                    can resume\n";
    assert_eq!((code, stderr.as_str()), (2, expected));
}

#[test]
fn glob_patterns_and_overrides_apply_to_every_puzzle() {
    let (_dir, out) = temp();
    batch(&["corpora/mixed/*.grid"], &out, &["--metric", "straight"]);
    let rows = outcomes(&out);
    assert_eq!(
        rows.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "corpora/mixed/broken.grid",
            "corpora/mixed/irregular.grid",
            "corpora/mixed/klotski.grid",
            "corpora/mixed/stuck.grid"
        ]
    );
    assert_eq!(rows["corpora/mixed/klotski.grid"].moves, Some(90), "Klotski in the straight metric");
    assert!(rows.values().filter(|r| r.status != "error").all(|r| r.metric == "straight"));
}

#[test]
fn one_and_two_threads_give_the_same_rows() {
    let (_dir, one) = temp();
    let two = one.with_extension("two.csv");
    batch(&["corpora/mixed"], &one, &["--threads", "1"]);
    batch(&["corpora/mixed"], &two, &["--threads", "2"]);
    same(&outcomes(&one), &outcomes(&two));
}

#[test]
fn a_killed_run_resumes_to_the_same_rows_as_a_clean_run() {
    let (_dir, clean) = temp();
    batch(&["corpora/mixed"], &clean, &["--threads", "1"]);
    let expected = outcomes(&clean);

    // A real kill -9 part-way through.
    let killed = clean.with_extension("killed.csv");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("slidesolve"))
        .args(["batch", "corpora/mixed", "--threads", "1", "--quiet", "--out", killed.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let (code, stdout) = batch(&["corpora/mixed"], &killed, &["--resume", "--threads", "2"]);
    assert_eq!(code, 0, "{stdout}");
    same(&outcomes(&killed), &expected);

    // A kill in the middle of writing a row: half the rows and a torn line.
    let torn = clean.with_extension("torn.csv");
    let text = std::fs::read_to_string(&clean).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut partial: String = lines[..30].iter().map(|l| format!("{l}\n")).collect();
    partial.push_str(&lines[30][..20]);
    std::fs::write(&torn, partial).unwrap();
    let (_, stdout) = batch(&["corpora/mixed"], &torn, &["--resume"]);
    assert!(stdout.starts_with("this run: 32 puzzles in "), "{stdout}");
    same(&outcomes(&torn), &expected);
    assert_eq!(read_rows(&torn).unwrap().len(), 61, "no duplicates");
}

/// The error of a resume that the record of `csv` refuses, `why` saying what differs.
fn refusal(csv: &str, why: &str) -> String {
    format!(
        "error: cannot resume: {csv}.json: the run was started {why}; resume it as it was started, or start over \
         with --force or another --out\n"
    )
}

#[test]
fn a_resume_with_other_settings_is_refused_before_anything_is_written() {
    let (_dir, out) = temp();
    let path = out.to_str().unwrap();
    let first = ["corpora/mixed/klotski.grid"];
    let all = ["corpora/mixed/klotski.grid", "corpora/mixed/rush10.txt"];
    let (code, _) = batch(&all, &out, &["--metric", "straight"]);
    assert_eq!(code, 0);
    cut_to(&out, 1);
    let (rows, record) = (std::fs::read(&out).unwrap(), std::fs::read(metadata_path(&out)).unwrap());
    let refused_on = |inputs: &[&str], extra: &[&str], why: &str| {
        let args: Vec<&str> = ["batch"]
            .iter()
            .chain(inputs)
            .chain(&["--out", path, "--quiet", "--resume"])
            .chain(extra)
            .copied()
            .collect();
        let (code, stdout, stderr) = slidesolve(&args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
        assert_eq!(stderr, refusal(path, why));
        assert_eq!(std::fs::read(&out).unwrap(), rows, "the rows are untouched");
        assert_eq!(std::fs::read(metadata_path(&out)).unwrap(), record, "the record is untouched");
    };
    let refused = |extra: &[&str], why: &str| refused_on(&all, extra, why);
    refused(&[], "with --metric straight, this one without --metric");
    refused(&["--metric", "unit"], "with --metric straight, this one with --metric unit");
    refused(&["--metric", "straight", "--no-verify"], "without --no-verify, this one with --no-verify");
    refused(&["--metric", "straight", "--timeout", "0.5"], "without --timeout, this one with --timeout 0.5");
    refused(&["--metric", "straight", "--algo", "astar"], "with --algo bfs, this one with --algo astar");
    // The same settings on part of the inputs: the rows are of other puzzles.
    refused_on(
        &first,
        &["--metric", "straight"],
        "on a corpus of 11 puzzles, this one on 1 (puzzles were added or removed, or other inputs given)",
    );

    // The same settings, some given at their defaults, and other threads and backend: it resumes.
    let same = ["--metric", "straight", "--algo", "bfs", "--threads", "1", "--visited", "dashmap"];
    let (code, stdout) = batch(&all, &out, &["--resume"].iter().chain(&same).copied().collect::<Vec<_>>());
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.starts_with("this run: 10 puzzles in "), "{stdout}");
    assert_eq!(read_rows(&out).unwrap().len(), 11);

    // A record from before settings were kept: the resume goes on, with a warning.
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(metadata_path(&out)).unwrap()).unwrap();
    json.as_object_mut().unwrap().remove("settings");
    std::fs::write(metadata_path(&out), json.to_string()).unwrap();
    let (code, stdout, stderr) = slidesolve(&["batch", all[0], all[1], "--out", path, "--quiet", "--resume"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stderr.starts_with("warning: ") && stderr.contains("keeps no settings"), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(metadata_path(&out)).unwrap()).unwrap();
    assert_eq!(json["settings"], serde_json::json!({"--algo": "bfs", "--pdb-partition": "default"}));
}

#[test]
fn a_resume_of_another_shard_or_other_puzzles_is_refused_and_one_of_the_same_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // A corpus directory of three puzzles; the run takes its first shard of two (puzzles 1 and 3)
    // and is killed after one row.
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    for name in ["8puzzle_123.tiles", "8puzzle_283.tiles", "8puzzle_863.tiles"] {
        std::fs::copy(Path::new("corpora/tiles").join(name), corpus.join(name)).unwrap();
    }
    let (out, input) = (dir.path().join("p1.csv"), corpus.to_str().unwrap());
    let path = out.to_str().unwrap();
    let (code, stdout) = batch(&[input], &out, &["--shard", "1/2"]);
    assert_eq!(code, 0, "{stdout}");
    cut_to(&out, 1);
    let (rows, record) = (std::fs::read(&out).unwrap(), std::fs::read(metadata_path(&out)).unwrap());
    let resume = |input: &str, extra: &[&str]| {
        let args: Vec<&str> =
            ["batch", input, "--out", path, "--quiet", "--resume"].iter().chain(extra).copied().collect();
        slidesolve(&args)
    };
    let refused = |extra: &[&str], why: &str| {
        assert_eq!(resume(input, extra), (2, String::new(), refusal(path, why)));
        assert_eq!(std::fs::read(&out).unwrap(), rows, "the rows are untouched");
        assert_eq!(std::fs::read(metadata_path(&out)).unwrap(), record, "the record is untouched");
    };
    // Another shard, or the whole corpus, would add rows of other puzzles to this shard's file.
    refused(&["--shard", "2/2"], "with --shard 1/2, this one with --shard 2/2");
    refused(&[], "with --shard 1/2, this one without --shard");
    // A puzzle added to the directory moves the others between the shards.
    let added = corpus.join("8puzzle_999.tiles");
    std::fs::copy("corpora/tiles/8puzzle_unsolvable.tiles", &added).unwrap();
    refused(
        &["--shard", "1/2"],
        "on a corpus of 3 puzzles, this one on 4 (puzzles were added or removed, or other inputs given)",
    );
    // As many puzzles, but not the same ones.
    std::fs::remove_file(&added).unwrap();
    let (was, renamed) = (corpus.join("8puzzle_863.tiles"), corpus.join("8puzzle_900.tiles"));
    std::fs::rename(&was, &renamed).unwrap();
    let why = format!(
        "on other puzzles: its puzzle 2 is {}, this one's is {}",
        was.to_str().unwrap(),
        renamed.to_str().unwrap()
    );
    refused(&["--shard", "1/2"], &why);
    // The same files, the directory named with a trailing slash: the same ids, and it goes on.
    std::fs::rename(&renamed, &was).unwrap();
    let (code, stdout, stderr) = resume(&format!("{input}/"), &["--shard", "1/2"]);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert!(stdout.starts_with("this run: 1 puzzle in "), "{stdout}");
    let ids: Vec<String> = read_rows(&out).unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    for name in ["8puzzle_123.tiles", "8puzzle_863.tiles"] {
        assert!(ids.contains(&corpus.join(name).to_str().unwrap().to_string()), "{ids:?}");
    }
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(metadata_path(&out)).unwrap()).unwrap();
    assert_eq!((&json["shard"], json["resumed"].as_array().unwrap().len()), (&"1/2".into(), 1), "{json}");
}

#[test]
fn a_force_stopped_before_its_record_leaves_no_old_rows_and_resumes_with_its_own_settings() {
    let (_dir, out) = temp();
    let path = out.to_str().unwrap();
    let rush = "corpora/mixed/rush10.txt";
    let (code, stdout) = batch(&[rush], &out, &["--no-verify"]);
    assert_eq!(code, 0, "{stdout}");
    let old_record = std::fs::read(metadata_path(&out)).unwrap();
    // Starting over with other settings stops where it writes its record (the path is a
    // directory): the old rows are gone already.
    std::fs::remove_file(metadata_path(&out)).unwrap();
    std::fs::create_dir(metadata_path(&out)).unwrap();
    let (code, stdout, stderr) = slidesolve(&["batch", rush, "--out", path, "--quiet", "--force"]);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert!(stderr.starts_with(&format!("error: cannot write {path}.json: ")), "{stderr}");
    assert_eq!(read_rows(&out).unwrap().len(), 0);
    // A kill at the same point leaves the old record beside the file without rows: a resume with
    // the new settings starts it over, and says so.
    std::fs::remove_dir(metadata_path(&out)).unwrap();
    std::fs::write(metadata_path(&out), &old_record).unwrap();
    let (code, stdout, stderr) = slidesolve(&["batch", rush, "--out", path, "--quiet", "--resume"]);
    let warning = format!(
        "warning: {path}.json: the run was started with --no-verify, this one without --no-verify; {path} holds no \
         row of it, so this run starts it over\n"
    );
    assert_eq!((code, stderr), (0, warning), "{stdout}");
    assert!(stdout.starts_with("this run: 10 puzzles in "), "{stdout}");
    assert_eq!(read_rows(&out).unwrap().len(), 10);
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(metadata_path(&out)).unwrap()).unwrap();
    assert_eq!(json["settings"], serde_json::json!({"--algo": "bfs", "--pdb-partition": "default"}));
    assert_eq!(json["resumed"], serde_json::json!([]), "a record of its own");
    // Its rows are now the new settings': the old ones cannot continue them.
    cut_to(&out, 4);
    let (code, stdout, stderr) = slidesolve(&["batch", rush, "--out", path, "--quiet", "--resume", "--no-verify"]);
    assert_eq!(
        (code, stdout, stderr),
        (2, String::new(), refusal(path, "without --no-verify, this one with --no-verify"))
    );
}

/// Cuts a results file to its header and its first `rows` rows, as a run killed there leaves it.
fn cut_to(out: &Path, rows: usize) {
    let text = std::fs::read_to_string(out).unwrap();
    std::fs::write(out, text.lines().take(1 + rows).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
}

#[test]
fn a_heuristic_left_out_resumes_as_the_default_of_the_run_s_puzzles_written_out() {
    let (_dir, out) = temp();
    let path = out.to_str().unwrap();
    let resume = |inputs: &[&str], extra: &[&str]| {
        let args: Vec<&str> = ["batch"]
            .iter()
            .chain(inputs)
            .chain(&["--out", path, "--quiet", "--resume", "--threads", "1"])
            .chain(extra)
            .copied()
            .collect();
        slidesolve(&args)
    };
    let settings = || -> serde_json::Value {
        serde_json::from_slice::<serde_json::Value>(&std::fs::read(metadata_path(&out)).unwrap()).unwrap()["settings"]
            .clone()
    };
    let refused =
        |heuristic: &str| refusal(path, &format!("without --heuristic, this one with --heuristic {heuristic}"));
    // Tile puzzles: the default is manhattan, and zero is another heuristic.
    let tiles = ["corpora/mixed/8puzzles.tiles", "--shard", "1/20"];
    let (code, stdout) = batch(&tiles, &out, &["--threads", "1", "--algo", "astar"]);
    assert_eq!(code, 0, "{stdout}");
    cut_to(&out, 1);
    let astar = |heuristic| ["--algo", "astar", "--heuristic", heuristic];
    assert_eq!(resume(&tiles, &astar("zero")), (2, String::new(), refused("zero")));
    // With a block puzzle beside them no one heuristic is the default of all.
    let mixed = ["corpora/mixed/8puzzles.tiles", "corpora/mixed/klotski.grid"];
    assert_eq!(resume(&mixed, &astar("manhattan")), (2, String::new(), refused("manhattan")));
    let (code, stdout, stderr) = resume(&tiles, &astar("manhattan"));
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert!(stdout.starts_with("this run: 2 puzzles in "), "{stdout}");
    assert_eq!(read_rows(&out).unwrap().len(), 3);
    // The record keeps the settings as the file's first sitting gave them.
    assert_eq!(settings(), serde_json::json!({"--algo": "astar", "--pdb-partition": "default"}));

    // Block puzzles: the default is zero, and manhattan is another heuristic.
    let rush = ["corpora/mixed/rush10.txt"];
    let (code, stdout) = batch(&rush, &out, &["--force", "--threads", "1", "--algo", "astar"]);
    assert_eq!(code, 0, "{stdout}");
    cut_to(&out, 4);
    assert_eq!(resume(&rush, &astar("manhattan")), (2, String::new(), refused("manhattan")));
    let (code, stdout, stderr) = resume(&rush, &astar("zero"));
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert!(stdout.starts_with("this run: 6 puzzles in "), "{stdout}");

    // BFS reads no heuristic and no pattern-database flag: giving them changes no row.
    let (code, stdout) = batch(&rush, &out, &["--force", "--threads", "1"]);
    assert_eq!(code, 0, "{stdout}");
    cut_to(&out, 4);
    let unread = ["--algo", "bfs", "--heuristic", "pdb", "--no-reflect", "--pdb-partition", "6-6-3"];
    let (code, stdout, stderr) = resume(&rush, &unread);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert!(stdout.starts_with("this run: 6 puzzles in "), "{stdout}");
    assert_eq!(settings(), serde_json::json!({"--algo": "bfs", "--pdb-partition": "default"}));
}

#[test]
fn a_resumed_run_reports_and_records_its_own_threads() {
    let (_dir, out) = temp();
    let rush = ["corpora/mixed/rush10.txt"];
    let (code, stdout) = batch(&rush, &out, &["--threads", "2"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains(" puzzles/s, 2 threads); results in "), "{stdout}");
    // Killed after four rows; resumed on one thread.
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::write(&out, text.lines().take(5).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let (code, stdout) = batch(&rush, &out, &["--threads", "1", "--resume"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.starts_with("this run: 6 puzzles in ") && stdout.contains(" puzzles/s, 1 threads); results in "));
    let record =
        || -> serde_json::Value { serde_json::from_slice(&std::fs::read(metadata_path(&out)).unwrap()).unwrap() };
    let json = record();
    assert_eq!((&json["threads"], &json["ranks"]), (&2.into(), &1.into()), "the first sitting's");
    let sitting = &json["resumed"][0];
    assert_eq!((&sitting["threads"], &sitting["ranks"]), (&1.into(), &1.into()), "{json}");
    assert!(sitting["command_line"].as_array().unwrap().contains(&"--resume".into()), "{json}");
    assert!(sitting["started"].as_str().is_some_and(|t| t.ends_with('Z')) && sitting["host"].is_string(), "{json}");
    // A record of an older build lists start times alone: it still reads (its settings are checked)
    // and the next sitting is added beside them.
    let mut old = json.clone();
    old["resumed"] = serde_json::json!(["2026-11-01T00:00:00Z"]);
    std::fs::write(metadata_path(&out), old.to_string()).unwrap();
    let path = out.to_str().unwrap();
    let (code, stdout, stderr) =
        slidesolve(&["batch", rush[0], "--out", path, "--quiet", "--resume", "--threads", "2"]);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert!(stdout.starts_with("this run: 0 puzzles in ") && stdout.contains(", 2 threads); results in "));
    let json = record();
    assert_eq!(json["resumed"][0], "2026-11-01T00:00:00Z");
    assert_eq!(json["resumed"][1]["threads"], 2);
}

fn metadata_path(csv: &Path) -> PathBuf {
    slidesolve::batch::metadata::path_for(csv)
}

#[test]
fn merged_shards_equal_the_unsharded_run_and_gaps_are_reported() {
    let (_dir, all) = temp();
    batch(&["corpora/mixed"], &all, &[]);
    let shards: Vec<PathBuf> = (1..=3).map(|k| all.with_extension(format!("shard{k}.csv"))).collect();
    for (k, path) in shards.iter().enumerate() {
        batch(&["corpora/mixed"], path, &["--shard", &format!("{}/3", k + 1)]);
        assert_eq!(read_rows(path).unwrap().len(), [21, 20, 20][k]);
    }
    let merged = all.with_extension("merged.csv");
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(|p| p.to_str().unwrap()));
    args.extend(["--out", merged.to_str().unwrap()]);
    let (code, stdout, stderr) = slidesolve(&args);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    same(&outcomes(&merged), &outcomes(&all));
    let ids: Vec<String> = read_rows(&merged).unwrap().into_iter().map(|r| r.id).collect();
    let mut sorted = ids.clone();
    sorted.sort_by(|a, b| id_order(a).cmp(&id_order(b)));
    assert_eq!(ids, sorted, "merged rows are sorted by id");

    let (code, _, stderr) = slidesolve(&["merge", shards[0].to_str().unwrap(), "--out", merged.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("gap: no input for shards 2/3 to 3/3\n"), "{stderr}");
    // A shard given twice is refused: its rows would be merged twice.
    let (code, _, stderr) = slidesolve(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[0].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(stderr.ends_with("both say shard 1/3: its rows would be merged twice\n"), "{stderr}");

    // A shard cut short: its metadata keeps the 21 ids it was given as runs of lines, and the
    // gaps are reported as runs that cover exactly the 16 ids without a row.
    let text = std::fs::read_to_string(&shards[0]).unwrap();
    let cut = all.with_extension("cut.csv");
    std::fs::write(&cut, text.lines().take(6).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    std::fs::copy(metadata_path(&shards[0]), metadata_path(&cut)).unwrap();
    let (code, _, stderr) = slidesolve(&["merge", cut.to_str().unwrap(), "--out", merged.to_str().unwrap()]);
    assert_eq!(code, 1);
    let covered: u64 = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("gap: corpora/"))
        .map(|gap| match gap.split_once("..") {
            None => 1,
            Some((from, to)) => {
                let first: u64 = from.rsplit(':').next().unwrap().parse().unwrap();
                let (last, step) = to.split_once(' ').unwrap();
                let step = step.strip_prefix("(step ").map_or(1, |s| s.split(')').next().unwrap().parse().unwrap());
                (last.parse::<u64>().unwrap() - first) / step + 1
            }
        })
        .sum();
    assert_eq!(covered, 16, "{stderr}");
    assert!(stderr.contains(" (step 3) have no rows\n"), "{stderr}");
}

#[test]
fn a_shard_without_metadata_that_reads_is_not_said_to_have_no_input() {
    let dir = tempfile::tempdir().unwrap();
    let part = |k: usize| dir.path().join(format!("part{k}.csv"));
    for k in 1..=3 {
        let (code, stdout) = batch(&["corpora/mixed/rush10.txt"], &part(k), &["--shard", &format!("{k}/3")]);
        assert_eq!(code, 0, "{stdout}");
    }
    // Shard 3 copied without its metadata: it may be any shard.
    let copy = dir.path().join("copy.csv");
    std::fs::copy(part(3), &copy).unwrap();
    let merged = dir.path().join("merged.csv");
    let merge = |inputs: &[&Path]| {
        let mut args = vec!["merge"];
        args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
        args.extend(["--out", merged.to_str().unwrap()]);
        slidesolve(&args)
    };
    let written =
        |rows: usize, files: usize| format!("{rows} rows from {files} files written to {}\n", merged.display());
    let unclaimed = "warning: no metadata says shard 3/3: an input without metadata may hold it, so it is not reported \
                     as missing\n";
    assert_eq!(merge(&[&part(1), &part(2), &copy]), (0, written(10, 3), unclaimed.to_string()));
    same(
        &outcomes(&merged),
        &outcomes(&part(1)).into_iter().chain(outcomes(&part(2))).chain(outcomes(&part(3))).collect(),
    );
    // So is one whose metadata does not read.
    std::fs::write(metadata_path(&copy), "{\n").unwrap();
    let unread = format!(
        "warning: {}: EOF while parsing an object at line 2 column 0; the gaps of its results file are not checked\n",
        metadata_path(&copy).display()
    );
    assert_eq!(merge(&[&part(1), &part(2), &copy]), (0, written(10, 3), format!("{unread}{unclaimed}")));
    // Rows still missing are found by the corpus size.
    let (code, stdout, stderr) = merge(&[&part(1), &copy]);
    assert_eq!((code, stdout), (1, written(7, 2)));
    assert_eq!(
        stderr,
        format!(
            "{unread}warning: no metadata says shards 2/3 to 3/3: an input without metadata may hold them, so they \
             are not reported as missing\ngap: the corpus has 10 puzzles, the merged file 7 rows\n"
        )
    );
    // Where every input has metadata, a shard without an input is a gap.
    let gap = "gap: no input for shard 3/3\ngap: the corpus has 10 puzzles, the merged file 7 rows\n";
    assert_eq!(merge(&[&part(1), &part(2)]), (1, written(7, 2), gap.to_string()));
}

#[test]
fn plot_draws_three_charts() {
    let (dir, out) = temp();
    batch(&["corpora/mixed/rush10.txt"], &out, &[]);
    let charts = dir.path().join("charts");
    let (code, stdout, _) = slidesolve(&["plot", out.to_str().unwrap(), "--out", charts.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(stdout.lines().count(), 3);
    let svg = std::fs::read_to_string(charts.join("moves_histogram.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("solution lengths (10 solved puzzles)"));
}

/// Values no chart can hold (an infinite or 1e308 time, a length of 10^8 moves, read from an
/// edited results file) neither hang the plot nor make a bar per move: at most 200 bars, each
/// labelled by its first length, and the points without a range left out.
#[test]
fn plot_draws_hostile_values_in_bounded_charts() {
    let (dir, out) = temp();
    batch(&["corpora/mixed/rush10.txt"], &out, &[]);
    let text = std::fs::read_to_string(&out).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (moves, wall) = (column("moves"), column("wall_s"));
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for (i, (m, w)) in [(None, Some("0")), (None, Some("1e308")), (Some("99999999"), None)].into_iter().enumerate() {
        let mut fields: Vec<String> = lines[i + 1].split(',').map(str::to_string).collect();
        if let Some(m) = m {
            fields[moves] = m.into();
        }
        if let Some(w) = w {
            fields[wall] = w.into();
        }
        lines[i + 1] = fields.join(",");
    }
    let edited = dir.path().join("edited.csv");
    std::fs::write(&edited, lines.join("\n") + "\n").unwrap();
    let charts = dir.path().join("charts");
    let (code, _, stderr) = slidesolve(&["plot", edited.to_str().unwrap(), "--out", charts.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let histogram = std::fs::read_to_string(charts.join("moves_histogram.svg")).unwrap();
    // The background and one rectangle a bar: 500,000 moves a bar.
    assert_eq!(histogram.matches("<rect").count(), 1 + 200);
    assert!(histogram.contains(">\n50000000\n</text>"), "{histogram}");
    // The 0 and the 1e308 seconds cannot be drawn on the log axis: the title says so (a time that
    // is not a number of seconds, NaN, infinite or negative, is refused when the file is read).
    let times = std::fs::read_to_string(charts.join("time_vs_moves.svg")).unwrap();
    assert!(times.contains("time vs moves (10 solved puzzles, 2 not drawn: 0 or beyond the log scale)"), "{times}");
    let nodes = std::fs::read_to_string(charts.join("nodes_vs_moves.svg")).unwrap();
    assert!(nodes.contains("nodes expanded vs moves (10 solved puzzles)"), "{nodes}");
}

#[test]
fn each_puzzle_gets_its_share_of_the_memory_the_process_can_have() {
    // Two puzzles run at once under a 3 GiB address space: a --max-memory of 1000T becomes 1.5 GiB
    // a puzzle, for reading and compiling as for searching, so two cannot exhaust the process.
    let (_dir, out) = temp();
    let huge = out.with_file_name("huge.data");
    std::fs::write(&huge, "255 2147483648\n1 1 1 1 b\n").unwrap();
    let bin = assert_cmd::cargo::cargo_bin("slidesolve");
    let command = format!(
        "ulimit -v 3145728 && exec {} batch {} --out {} --quiet --threads 2 --max-memory 1000T",
        bin.display(),
        huge.display(),
        out.display()
    );
    let run = std::process::Command::new("sh").args(["-c", &command]).output().unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    // The warning names the budget of a puzzle, not the whole process's.
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        "warning: --max-memory 1000T is more than each of the 2 puzzles that run at once can have (1.5 GiB: 3.0 \
         GiB, the least of RAM, the cgroup's memory.max and ulimit -v, divided among them); the budget is 1.5 GiB a \
         puzzle\n"
    );
    let rows = read_rows(&out).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].status, "error");
    assert!(
        rows[0].message.ends_with("cells would need 15.9 TiB (more than the memory limit of 1.5 GiB)"),
        "{}",
        rows[0].message
    );
}

#[test]
fn threads_that_cannot_start_are_neither_reported_nor_recorded() {
    // Under 4 GiB of address space no thread's 8 GiB stack can be mapped: the batch runs on its own
    // thread alone, and says, writes and records one thread.
    let (_dir, out) = temp();
    let bin = assert_cmd::cargo::cargo_bin("slidesolve");
    let command = format!(
        "ulimit -v 4194304 && RUST_MIN_STACK=8589934592 exec {} batch corpora/mixed/rush10.txt --out {} --quiet \
         --threads 2",
        bin.display(),
        out.display()
    );
    let run = std::process::Command::new("sh").args(["-c", &command]).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr,
        "warning: cannot start 2 threads (Resource temporarily unavailable (os error 11)); running on this thread \
         alone\n"
    );
    assert!(stdout.starts_with("this run: 10 puzzles in ") && stdout.contains(" puzzles/s, 1 threads); results in "));
    let rows = read_rows(&out).unwrap();
    assert_eq!((rows.len(), rows.iter().filter(|r| r.threads == 1).count()), (10, 10));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(metadata_path(&out)).unwrap()).unwrap();
    assert_eq!(json["threads"], 1);
}

#[test]
fn cs351_warnings_and_prescribed_errors_are_kept_in_the_message_column() {
    let (dir, out) = temp();
    let none = dir.path().join("none.data");
    std::fs::write(&none, "2 2\n3 3 1 1 b\n1 1 1 1 q\n").unwrap();
    let (none, rows_file) = (none.display().to_string(), "corpora/cs351/error_rows.data");
    batch(&["corpora/cs351/warnings.data", rows_file, &none], &out, &[]);
    let rows = outcomes(&out);
    assert_eq!(
        rows["corpora/cs351/warnings.data"].message,
        "Warning: Piece with starting position of 0,1 falls outside of grid; \
         Warning: Piece with starting position of 1,4 has invalid movement; \
         Warning: Piece with starting position of 1,2 overlaps with other piece"
    );
    assert_eq!(
        rows[rows_file].message,
        "corpora/cs351/error_rows.data: line 1, column 1: Error: Number of rows must be greater than zero"
    );
    assert_eq!(
        rows[&none].message,
        format!(
            "{none}: Error: No valid pieces in the puzzle; \
             Warning: Piece with starting position of 3,3 falls outside of grid; \
             Warning: Piece with starting position of 1,1 has invalid movement"
        )
    );
}
