//! Runs over MPI (built only with `--features mpi`; needs Open MPI's `mpirun`): the binary under
//! `mpirun -np 1/2/4 --oversubscribe` gives the same layer tables and batch rows as one process.

use assert_cmd::Command;
use slidesolve::batch::record::{Row, read_rows};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Runs the binary as `ranks` MPI ranks (`env`: extra variables); returns exit code, stdout,
/// stderr. A run that hangs fails the test after two minutes instead of blocking the suite.
fn mpirun(ranks: usize, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let binary = assert_cmd::cargo::cargo_bin("slidesolve");
    let out = Command::new("mpirun")
        .args(["-np", &ranks.to_string(), "--oversubscribe"])
        .arg(binary)
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .envs(env.iter().copied())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    let (stdout, stderr) = (text(out.stdout), text(out.stderr));
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// Runs the binary as one plain process (no launcher).
fn plain(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("slidesolve").unwrap().args(args).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
}

/// The `enumerate --out` table of `args` in one process, then under 1, 2 and 4 ranks (the last
/// also with exchange rounds of 64 words, so every layer's exchange is split many times); all
/// must be byte-identical, as must the totals printed; every run exits with `expected_code`.
fn same_table_on_any_rank_count(args: &[&str], expected_code: i32) -> String {
    let dir = tempfile::tempdir().unwrap();
    let csv = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let one = csv("one.csv");
    let (code, text) = plain(&[args, &["--out", &one]].concat());
    assert_eq!(code, expected_code, "{text}");
    let expected = std::fs::read_to_string(&one).unwrap();
    let totals = |text: &str| {
        text.lines().filter(|l| l.starts_with("states:") || l.starts_with("max depth:")).collect::<Vec<_>>().join("\n")
    };
    let runs: [(usize, &[(&str, &str)]); 4] =
        [(1, &[]), (2, &[]), (4, &[]), (4, &[("SLIDESOLVE_EXCHANGE_ROUND", "64")])];
    for (i, (ranks, env)) in runs.into_iter().enumerate() {
        let path = csv(&format!("ranks{i}.csv"));
        let (code, stdout, stderr) = mpirun(ranks, &[args, &["--out", &path]].concat(), env);
        assert_eq!(code, expected_code, "{ranks} ranks: {stderr}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), expected, "{ranks} ranks {env:?}");
        assert_eq!(totals(&stdout), totals(&text), "{ranks} ranks");
        assert_eq!(stdout.lines().filter(|l| l.starts_with("states:")).count(), 1, "only rank 0 reports");
    }
    expected
}

/// The `depth,states` rows of a published table in `corpora/tables`.
fn published(name: &str) -> String {
    let text = std::fs::read_to_string(format!("corpora/tables/{name}")).unwrap();
    text.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect()
}

#[test]
fn tile_tables_are_the_same_on_one_two_and_four_ranks() {
    assert_eq!(same_table_on_any_rank_count(&["enumerate", "--tiles", "3x3"], 0), published("A089473.csv"));
    assert_eq!(same_table_on_any_rank_count(&["enumerate", "--tiles", "2x5"], 0), published("A090036.csv"));
}

#[test]
fn block_tables_are_the_same_on_one_two_and_four_ranks() {
    let klotski = same_table_on_any_rank_count(&["enumerate", "corpora/klotski/classic.grid"], 0);
    assert_eq!(klotski.lines().count() - 1, 125, "Klotski (free metric): 25,955 states in layers 0 to 124");
    let states: u64 = klotski.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(states, 25_955);
    same_table_on_any_rank_count(&["enumerate", "corpora/rush/hardest51.rush"], 0);
    same_table_on_any_rank_count(&["enumerate", "corpora/blocks/dlaa.grid"], 0);
}

#[test]
fn a_state_limit_stops_every_rank_in_the_same_layer() {
    // 3x4 tiles (perfect-hash engine): layers 0-21 hold 810,424 states, layer 22 crosses 10^6.
    let tiles = same_table_on_any_rank_count(&["enumerate", "--tiles", "3x4", "--max-states", "1000000"], 1);
    assert_eq!((tiles.lines().count(), tiles.lines().last()), (1 + 22, Some("21,323206")));
    // Klotski (frontier engine): the 9,189 states of layers 0-40; layer 41 crosses 10,000.
    let klotski =
        same_table_on_any_rank_count(&["enumerate", "corpora/klotski/classic.grid", "--max-states", "10000"], 1);
    assert_eq!((klotski.lines().count(), klotski.lines().last()), (1 + 41, Some("40,1038")));
}

/// Rows by id without what may differ between runs (times, peak bytes, threads).
fn outcomes(path: &Path) -> BTreeMap<String, Row> {
    read_rows(path).unwrap().into_iter().map(|r| (r.id.clone(), r.outcome())).collect()
}

#[test]
fn a_batch_over_ranks_writes_the_rows_of_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let one = path("one.csv");
    let (code, _) = plain(&["batch", "corpora/mixed", "--quiet", "--out", one.to_str().unwrap()]);
    assert_eq!(code, 0);
    let expected = outcomes(&one);
    assert_eq!(expected.len(), 61);
    for ranks in [2, 4] {
        let out = path(&format!("ranks{ranks}.csv"));
        let (code, stdout, stderr) = mpirun(
            ranks,
            &["batch", "corpora/mixed", "--quiet", "--threads", "1", "--out", out.to_str().unwrap()],
            &[],
        );
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains(&format!("{ranks} ranks, 1 threads on rank 0")), "{stdout}");
        assert_eq!(outcomes(&out), expected, "{ranks} ranks");
        assert_eq!(read_rows(&out).unwrap().len(), 61, "each puzzle once");
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.with_extension("csv.json")).unwrap()).unwrap();
        assert_eq!(meta["ranks"], ranks);
        let given: Vec<slidesolve::batch::metadata::GivenIds> = serde_json::from_value(meta["ids"].clone()).unwrap();
        assert_eq!(given.iter().map(|run| run.count().unwrap()).sum::<u64>(), 61, "ids given, as runs of lines");
    }

    // Resume over 3 ranks: half the rows and a torn line, as a killed run leaves them.
    let torn = path("torn.csv");
    let text = std::fs::read_to_string(&one).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut partial: String = lines[..30].iter().map(|l| format!("{l}\n")).collect();
    partial.push_str(&lines[30][..20]);
    std::fs::write(&torn, partial).unwrap();
    let (code, stdout, stderr) =
        mpirun(3, &["batch", "corpora/mixed", "--resume", "--out", torn.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("this run: 32 puzzles in "), "{stdout}");
    assert_eq!(outcomes(&torn), expected);
    assert_eq!(read_rows(&torn).unwrap().len(), 61, "no duplicates");
}

#[test]
fn refused_batches_end_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    std::fs::write(&out, "something\n").unwrap();
    // Rank 0 refuses to overwrite; the other ranks must stop too (the timeout catches a hang).
    let (code, _, stderr) = mpirun(2, &["batch", "corpora/tiles", "--out", out.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.matches("already exists").count(), 1, "only rank 0 reports: {stderr}");
    let missing = dir.path().join("no/such/dir.csv");
    let (code, _, stderr) = mpirun(3, &["batch", "corpora/tiles", "--out", missing.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn a_resumed_batch_reports_and_records_this_runs_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rr.csv");
    let args = |extra: &[&str]| -> Vec<String> {
        let fixed = ["batch", "corpora/mixed/rush10.txt", "--quiet", "--threads", "1", "--out", out.to_str().unwrap()];
        fixed.iter().chain(extra).map(|a| a.to_string()).collect()
    };
    let run = |ranks: usize, extra: &[&str]| {
        let a = args(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        if ranks == 0 {
            let (code, stdout) = plain(&a);
            (code, stdout, String::new())
        } else {
            mpirun(ranks, &a, &[])
        }
    };
    let record = || -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(slidesolve::batch::metadata::path_for(&out)).unwrap()).unwrap()
    };
    let (code, stdout, stderr) = run(2, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(" puzzles/s, 2 ranks, 1 threads on rank 0); results in "), "{stdout}");
    // Killed after four rows, resumed on three ranks, then (nothing left) in one process.
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::write(&out, text.lines().take(5).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let (code, stdout, stderr) = run(3, &["--resume"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("this run: 6 puzzles in "), "{stdout}");
    assert!(stdout.contains(" puzzles/s, 3 ranks, 1 threads on rank 0); results in "), "{stdout}");
    let (code, stdout, _) = run(0, &["--resume"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.starts_with("this run: 0 puzzles in ") && stdout.contains(" puzzles/s, 1 threads); results in "));
    let json = record();
    assert_eq!((&json["ranks"], &json["threads"]), (&2.into(), &1.into()), "the first sitting's: {json}");
    let sittings: Vec<(u64, u64)> = json["resumed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["ranks"].as_u64().unwrap(), s["threads"].as_u64().unwrap()))
        .collect();
    assert_eq!(sittings, [(3, 1), (1, 1)]);
    assert_eq!(read_rows(&out).unwrap().len(), 10);
}

#[test]
fn a_file_that_does_not_load_is_reported_once() {
    // Every rank reads the file and fails alike; each used to print the same error.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.grid");
    std::fs::write(&file, "goal: Z at 0,0\nboard:\nAB.\n").unwrap();
    let (code, _, stderr) = mpirun(3, &["enumerate", file.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.matches("line 1: no piece named 'Z' on the board\n").count(), 1, "{stderr}");
}

/// The `error:` lines of a run's standard error (without the launcher's report of the ranks that
/// exited with a non-zero code).
fn errors(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("error: ")).collect()
}

#[test]
fn an_output_that_cannot_be_written_ends_every_rank_before_the_search() {
    // Rank 0 used to find it out after the other ranks had started the search, and the job hung:
    // rank 0 in MPI's finalize, the others in the search's first all-reduce.
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let missing = format!("{folder}/nodir/x.csv");
    let cases = [
        (missing.as_str(), format!("error: cannot write {missing}: {folder}/nodir does not exist")),
        (folder, format!("error: {folder} is a directory; --out takes the name of the layer table CSV")),
        ("/dev/full", "error: cannot write /dev/full: No space left on device (os error 28)".to_string()),
    ];
    let puzzles: [&[&str]; 2] = [&["--tiles", "2x3"], &["corpora/klotski/classic.grid", "--components"]];
    for puzzle in puzzles {
        for (out, message) in &cases {
            for ranks in [2, 3] {
                let args = [&["enumerate"][..], puzzle, &["--out", out]].concat();
                let (code, stdout, stderr) = mpirun(ranks, &args, &[]);
                assert_eq!(
                    (code, stdout.as_str(), errors(&stderr)),
                    (2, "", vec![message.as_str()]),
                    "{ranks} ranks, {args:?}: {stderr}"
                );
            }
        }
    }
    assert!(!Path::new(&missing).exists());
}

#[test]
fn a_bad_tile_goal_is_reported_once_and_every_rank_exits_2() {
    for goal in ["Q", "1 2 3", "1 1 2 3 4 5", "-"] {
        let args = ["enumerate", "--tiles", "2x3", "--goal", goal];
        let alone = Command::cargo_bin("slidesolve").unwrap().args(args).output().unwrap();
        assert_eq!(alone.status.code(), Some(2), "{goal}");
        let message = String::from_utf8(alone.stderr).unwrap();
        assert!(message.starts_with("error: --goal: "), "{message}");
        for ranks in [2, 3] {
            let (code, stdout, stderr) = mpirun(ranks, &args, &[]);
            assert_eq!((code, stdout.as_str(), errors(&stderr)), (2, "", vec![message.trim_end()]), "{ranks} ranks");
        }
    }
}

#[test]
fn components_refused_for_memory_exit_2_on_any_rank_count() {
    // Rank 0 refuses the count (exit 2) while the other ranks' tables stopped at the same memory
    // limit (exit 1): the run used to end with 1 under mpirun.
    let args = ["enumerate", "corpora/klotski/classic.grid", "--components", "--max-memory", "20K", "--farthest", "0"];
    let alone = Command::cargo_bin("slidesolve").unwrap().args(args).output().unwrap();
    assert_eq!(alone.status.code(), Some(2));
    let message = String::from_utf8(alone.stderr).unwrap();
    assert_eq!(
        message,
        "error: corpora/klotski/classic.grid: the tables of all layouts (more than 269 of them) would need 20520 B \
         (more than the memory limit of 20480 B)\n"
    );
    for ranks in [2, 3] {
        let (code, _, stderr) = mpirun(ranks, &args, &[]);
        assert_eq!((code, errors(&stderr)), (2, vec![message.trim_end()]), "{ranks} ranks: {stderr}");
    }
}

#[test]
fn a_small_tile_table_needs_no_more_memory_on_several_ranks() {
    // One process counts 3x3 in 80,640 bytes; the ranks used to plan 172 MB each for exchange
    // buffers, so a budget one process fits sent them to the frontier engine, which stopped early.
    let table =
        same_table_on_any_rank_count(&["enumerate", "--tiles", "3x3", "--max-memory", "81K", "--farthest", "0"], 0);
    assert_eq!(table, published("A089473.csv"));
    let args = ["enumerate", "--tiles", "3x3", "--max-memory", "200K", "--farthest", "0", "--engine", "perfect"];
    for ranks in [2, 3] {
        let (code, stdout, stderr) = mpirun(ranks, &args, &[]);
        assert_eq!(code, 0, "{ranks} ranks: {stderr}");
        assert!(stdout.contains("states: 181440\n") && !stdout.contains("stopped early"), "{stdout}");
    }
}

/// Runs `args` as one plain process (`ranks` 0) or as `ranks` MPI ranks, checks that it exits 0,
/// and returns its stdout.
fn family_ok(ranks: usize, args: &[&str]) -> String {
    let (code, stdout, stderr) = if ranks == 0 {
        let (code, stdout) = plain(args);
        (code, stdout, String::new())
    } else {
        mpirun(ranks, args, &[])
    };
    assert_eq!(code, 0, "{ranks} ranks: {stderr}");
    stdout
}

/// `family` of rush4x4 under `--db`, one thread a rank, writing into `out` (the database is
/// `out/family.db`), then `extra`.
fn rush4x4_args(out: &Path, extra: &[&str]) -> Vec<String> {
    let db = out.join("family.db");
    let fixed = ["family", "corpora/families/rush4x4.family", "--json", "--threads", "1"];
    let files = ["--out", out.to_str().unwrap(), "--db", db.to_str().unwrap()];
    fixed.iter().chain(&files).chain(extra).map(|a| a.to_string()).collect()
}

/// The files of a `family` run in `dir`: components.csv, classes.csv and the `--db` file.
fn family_files(dir: &Path) -> [String; 3] {
    ["components.csv", "classes.csv", "family.db"].map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
}

/// The `--json` summary without what may differ between runs (times, peak bytes, rank count).
fn family_totals(stdout: &str) -> serde_json::Value {
    let mut json: serde_json::Value = serde_json::from_str(stdout).unwrap();
    for field in ["wall_s", "peak_bytes", "ranks"] {
        json.as_object_mut().unwrap().remove(field).unwrap();
    }
    json
}

#[test]
fn a_family_over_ranks_writes_the_files_of_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let run = |ranks: usize, sub: &str, extra: &[&str]| {
        let out = dir.path().join(sub);
        std::fs::create_dir_all(&out).unwrap();
        let args = rush4x4_args(&out, extra);
        let stdout = family_ok(ranks, &args.iter().map(String::as_str).collect::<Vec<_>>());
        (out, stdout)
    };
    let (one, text) = run(0, "one", &[]);
    let expected = family_files(&one);
    assert_eq!(expected[1].lines().count(), 163, "162 classes and the header");
    assert_eq!(expected[2].lines().count(), 32, "32 database lines");
    let totals = family_totals(&text);
    assert_eq!(totals["database_lines"], 32);
    for ranks in [1, 2, 4] {
        let (out, stdout) = run(ranks, &format!("ranks{ranks}"), &[]);
        assert_eq!(family_files(&out), expected, "{ranks} ranks");
        assert_eq!(family_totals(&stdout), totals, "{ranks} ranks");
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(json["ranks"], ranks);
    }

    // Resume over 3 ranks: a run killed after 100 classes, with two component rows and a torn
    // database line of the next one already written.
    let partial = dir.path().join("partial");
    std::fs::create_dir_all(&partial).unwrap();
    let classes: Vec<&str> = expected[1].lines().take(101).collect();
    let done: std::collections::HashSet<&str> = classes[1..].iter().map(|c| c.split(',').next().unwrap()).collect();
    let components: Vec<&str> = expected[0].lines().collect();
    let kept = 1 + components[1..].iter().take_while(|l| done.contains(l.split(',').nth(1).unwrap())).count();
    std::fs::write(partial.join("classes.csv"), classes.join("\n") + "\n").unwrap();
    std::fs::write(partial.join("components.csv"), components[..kept + 2].join("\n") + "\n").unwrap();
    let lines_done: usize = classes[1..].iter().map(|c| c.rsplit(',').next().unwrap().parse::<usize>().unwrap()).sum();
    let db: Vec<&str> = expected[2].lines().take(lines_done).collect();
    std::fs::write(partial.join("family.db"), db.join("\n") + "\n" + "12 ooBB").unwrap();
    std::fs::copy(one.join("run.json"), partial.join("run.json")).unwrap();
    let (resumed, stdout) = run(3, "partial", &["--resume"]);
    assert_eq!(family_files(&resumed), expected);
    assert_eq!(family_totals(&stdout), totals);
}

#[test]
fn a_family_timeout_stops_every_rank_and_a_resume_ends_as_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let run = |ranks: usize, sub: &str, extra: &[&str]| {
        let out = dir.path().join(sub);
        let args = rush4x4_args(&out, extra);
        let (code, stdout, stderr) = mpirun(ranks, &args.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
        (code, stdout, stderr, out)
    };
    let (code, stdout, stderr, one) = run(1, "one", &[]);
    assert_eq!(code, 0, "{stderr}");
    let (expected, totals) = (family_files(&one), family_totals(&stdout));
    let (code, stdout, stderr, stopped) = run(3, "stopped", &["--timeout", "0"]);
    assert_eq!(code, 1, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["stopped"], "class A=1 empty=14: time limit reached");
    assert_eq!(json["layouts"], 0);
    assert_eq!(family_files(&stopped)[2], "");
    let (code, stdout, stderr, _) = run(3, "stopped", &["--resume"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!((family_files(&stopped), family_totals(&stdout)), (expected, totals));
}

#[test]
fn refused_and_failed_families_end_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.family");
    std::fs::write(&bad, "goal: A at 0,0\nkind: A 1x1 q 1\nboard:\n..\n").unwrap();
    let (code, _, stderr) = mpirun(3, &["family", bad.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.matches("line 2").count(), 1, "only rank 0 reports: {stderr}");
    // Results an earlier run left, without --resume or --force: rank 0 refuses once, nothing is
    // touched and every rank ends.
    let out = dir.path().join("earlier");
    let args = rush4x4_args(&out, &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    family_ok(0, &args);
    let files = family_files(&out);
    let (code, stdout, stderr) = mpirun(2, &[&args[..], &["--timeout", "0"]].concat(), &[]);
    let refusal = format!(
        "error: {} already exists; use --resume to continue it or --force to overwrite it\n",
        out.join("classes.csv").display()
    );
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert_eq!(stderr.matches(&refusal).count(), 1, "only rank 0 reports: {stderr}");
    assert_eq!(family_files(&out), files);
    // A class over the memory limit fails on whichever rank took it; the message is one process's.
    let args = ["family", "corpora/families/klotski-classic.family", "--max-memory", "1M", "--threads", "1"];
    let one = Command::cargo_bin("slidesolve").unwrap().args(args).output().unwrap();
    assert_eq!(one.status.code(), Some(2));
    let message = String::from_utf8(one.stderr).unwrap();
    assert!(message.contains("class A=1 V=4 H=1 S=4 empty=2"), "{message}");
    for ranks in [2, 4] {
        let (code, _, stderr) = mpirun(ranks, &args, &[]);
        assert_eq!(code, 2, "{ranks} ranks: {stderr}");
        assert_eq!(stderr.matches(message.trim()).count(), 1, "{ranks} ranks: {stderr}");
    }
}

/// A budget the largest class fits, over two ranks of four threads: the classes over a thread's
/// quarter run again with the whole budget, and the files are those of one process on one thread.
#[test]
fn a_class_over_its_share_of_a_ranks_budget_runs_with_the_whole_budget() {
    let dir = tempfile::tempdir().unwrap();
    let run = |ranks: usize, sub: &str, threads: &str, budget: &str| {
        let out = dir.path().join(sub);
        std::fs::create_dir_all(&out).unwrap();
        let args = [
            &["family", "corpora/families/walled-4x4.family", "--json", "--threads", threads][..],
            &["--max-memory", budget, "--out", out.to_str().unwrap()],
        ]
        .concat();
        let stdout = family_ok(ranks, &args);
        (out, stdout)
    };
    let files = |dir: &Path| ["components.csv", "classes.csv"].map(|f| std::fs::read_to_string(dir.join(f)).unwrap());
    let (one, text) = run(0, "one", "1", "1G");
    let peak = serde_json::from_str::<serde_json::Value>(&text).unwrap()["peak_bytes"].as_u64().unwrap();
    let budget = peak.to_string();
    let (tight, tight_text) = run(0, "tight", "1", &budget);
    assert_eq!(files(&tight), files(&one));
    let (ranks, stdout) = run(2, "ranks", "4", &budget);
    assert_eq!(files(&ranks), files(&one));
    assert_eq!(family_totals(&stdout), family_totals(&tight_text));
}

#[test]
fn ranks_on_one_node_share_its_memory_and_one_warning_says_so() {
    use crate::common::warned_budget;
    let args = ["enumerate", "--tiles", "2x3", "--max-memory", "1000T"];
    let (code, _, alone) = mpirun(1, &args, &[]);
    assert_eq!(code, 0, "{alone}");
    let (code, stdout, shared) = mpirun(2, &args, &[]);
    assert_eq!(code, 0, "{shared}");
    assert!(stdout.contains("states: 360"), "{stdout}");
    assert_eq!(shared.matches("warning: --max-memory 1000T").count(), 1, "{shared}");
    assert!(shared.contains("shared by the 2 ranks on this node, and ulimit -v); the budget is "), "{shared}");
    let ratio = warned_budget(&alone) / warned_budget(&shared);
    assert!((1.95..2.05).contains(&ratio), "{alone}{shared}");
}

#[test]
fn usage_errors_and_one_process_subcommands_are_refused_once_under_several_ranks() {
    let (code, stdout, stderr) = mpirun(2, &["solve", "corpora/tiles/8puzzle_863.tiles"], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    let refusal = "error: solve runs as one process: start it without mpirun or srun (batch, enumerate and family \
                   share their work among MPI ranks)\n";
    assert_eq!(stderr.matches(refusal).count(), 1, "{stderr}");
    let (code, _, stderr) = mpirun(2, &["batch", "corpora/tiles", "--bogus"], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.matches("error: unexpected argument '--bogus' found").count(), 1, "{stderr}");
    let (code, stdout, _) = mpirun(1, &["solve", "corpora/tiles/8puzzle_863.tiles"], &[]);
    assert_eq!(code, 0);
    assert!(stdout.contains(": solved in 25 moves"), "{stdout}");
}
