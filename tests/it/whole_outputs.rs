//! Whole-file outputs (`draw`'s SVG, `solve --svg` and `--frames`, `plot`'s charts, `merge`'s CSV)
//! are complete or not written: a write that fails part-way (here: past a file-size limit, `ulimit
//! -f`) leaves no truncated file and no temporary file, keeps what was at the path before, and the
//! error names the path.

use std::path::Path;

/// A results CSV of 55 KB, more than the file-size limits below let through.
const RESULTS: &str = "results/rush/2026-11-30-vm-1t.csv";

/// Runs `slidesolve ARGS` in `dir` with files limited to `blocks` KiB (`SIGXFSZ` ignored, so a
/// write past the limit fails with `EFBIG` instead of killing the process): exit code and
/// standard error.
fn run_with_file_limit(dir: &Path, blocks: u32, args: &str) -> (Option<i32>, String) {
    let bin = assert_cmd::cargo::cargo_bin("slidesolve");
    let root = std::env::current_dir().unwrap();
    let command = format!("trap '' XFSZ; ulimit -f {blocks} && exec {} {args}", bin.display());
    let run =
        std::process::Command::new("bash").args(["-c", &command]).current_dir(dir).env("ROOT", root).output().unwrap();
    (run.status.code(), String::from_utf8_lossy(&run.stderr).into_owned())
}

/// The names of the files in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn a_drawing_that_cannot_be_written_whole_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stderr) = run_with_file_limit(dir.path(), 2, "draw $ROOT/corpora/klotski/classic.grid --out t.svg");
    assert_eq!((code, stderr.as_str()), (Some(1), "error: cannot write t.svg: File too large (os error 27)\n"));
    assert!(names_in(dir.path()).is_empty(), "{:?}", names_in(dir.path()));
}

#[test]
fn a_failed_write_keeps_the_file_it_would_have_replaced() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.svg"), "the old picture").unwrap();
    let (code, stderr) = run_with_file_limit(dir.path(), 2, "draw $ROOT/corpora/klotski/classic.grid --out t.svg");
    assert_eq!((code, stderr.as_str()), (Some(1), "error: cannot write t.svg: File too large (os error 27)\n"));
    assert_eq!(names_in(dir.path()), ["t.svg"]);
    assert_eq!(std::fs::read_to_string(dir.path().join("t.svg")).unwrap(), "the old picture");
    // Within the limit it is replaced whole.
    let (code, stderr) = run_with_file_limit(dir.path(), 64, "draw $ROOT/corpora/klotski/classic.grid --out t.svg");
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert_eq!(names_in(dir.path()), ["t.svg"]);
    assert!(std::fs::read_to_string(dir.path().join("t.svg")).unwrap().ends_with("</svg>\n"));
}

#[test]
fn a_solve_animation_that_cannot_be_written_whole_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let args = "solve $ROOT/corpora/klotski/classic.grid --svg a.svg --frames frames";
    let (code, stderr) = run_with_file_limit(dir.path(), 4, args);
    assert_eq!((code, stderr.as_str()), (Some(1), "error: cannot write a.svg: File too large (os error 27)\n"));
    assert!(names_in(dir.path()).is_empty(), "{:?}", names_in(dir.path()));
}

#[test]
fn merged_results_that_cannot_be_written_whole_keep_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("all.csv"), "the old rows\n").unwrap();
    let (code, stderr) = run_with_file_limit(dir.path(), 4, &format!("merge $ROOT/{RESULTS} --out all.csv"));
    assert_eq!((code, stderr.as_str()), (Some(1), "error: cannot write all.csv: File too large (os error 27)\n"));
    assert_eq!(names_in(dir.path()), ["all.csv"]);
    assert_eq!(std::fs::read_to_string(dir.path().join("all.csv")).unwrap(), "the old rows\n");
}

#[test]
fn a_chart_that_cannot_be_written_whole_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stderr) = run_with_file_limit(dir.path(), 4, &format!("plot $ROOT/{RESULTS} --out charts"));
    let histogram = "charts/moves_histogram.svg";
    assert_eq!(
        (code, stderr.as_str()),
        (Some(1), format!("error: cannot write {histogram}: File too large (os error 27)\n").as_str())
    );
    assert!(names_in(&dir.path().join("charts")).is_empty(), "{:?}", names_in(&dir.path().join("charts")));
}

#[test]
fn a_link_is_written_through_and_a_device_or_pipe_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let draw = |out: &str| {
        let (code, stderr) =
            run_with_file_limit(dir.path(), 64, &format!("draw $ROOT/corpora/klotski/classic.grid --out {out}"));
        assert_eq!((code, stderr.as_str()), (Some(0), ""), "draw --out {out}");
    };
    // A link to a file, and a link to a file not there yet: the link stays, the file it names
    // gets the picture.
    std::fs::create_dir(dir.path().join("pictures")).unwrap();
    std::fs::write(dir.path().join("pictures/old.svg"), "the old picture").unwrap();
    std::os::unix::fs::symlink("pictures/old.svg", dir.path().join("link.svg")).unwrap();
    std::os::unix::fs::symlink("pictures/new.svg", dir.path().join("dangling.svg")).unwrap();
    draw("link.svg");
    draw("dangling.svg");
    for (link, file) in [("link.svg", "pictures/old.svg"), ("dangling.svg", "pictures/new.svg")] {
        assert!(std::fs::symlink_metadata(dir.path().join(link)).unwrap().file_type().is_symlink());
        assert!(std::fs::read_to_string(dir.path().join(file)).unwrap().ends_with("</svg>\n"));
    }
    assert_eq!(names_in(&dir.path().join("pictures")), ["new.svg", "old.svg"]);
    // A named pipe (read beside the write) and /dev/null (through a link in the directory, so
    // that a mistake would replace the link, not the device) are written, not replaced.
    let fifo = dir.path().join("pipe.svg");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap());
    draw("pipe.svg");
    assert!(reader.join().unwrap().ends_with("</svg>\n"));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(dir.path().join("pipe.svg")).unwrap().file_type().is_fifo());
    std::os::unix::fs::symlink("/dev/null", dir.path().join("null.svg")).unwrap();
    draw("null.svg");
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    assert!(std::fs::symlink_metadata(dir.path().join("null.svg")).unwrap().file_type().is_symlink());
}
