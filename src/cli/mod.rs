//! Command-line definitions (clap) and the glue from arguments to library calls, one file per
//! subcommand; `args` holds what several subcommands share.
//!
//! Exit codes: 0 solved (or valid), 3 proven unsolvable, 2 bad input or usage, 1 anything else.

mod args;
mod batch;
mod draw;
mod enumerate;
mod family;
mod gallery;
mod r#gen;
mod layer_progress;
mod merge;
mod output;
mod plot;
mod solve;
mod stdio;
mod verify;

use clap::{Parser, Subcommand};
use stdio::errln;

/// Exit code: solved, or a valid solution.
pub const EXIT_OK: i32 = 0;
/// Exit code: anything else (limits, invalid solution, internal errors).
pub const EXIT_OTHER: i32 = 1;
/// Exit code: bad input or usage.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code: proven unsolvable.
pub const EXIT_UNSOLVABLE: i32 = 3;

#[derive(Parser)]
#[command(name = "slidesolve", version, about = "A parallel solver for sliding-block puzzles")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve one puzzle and print a solution (a shortest one unless --algo says otherwise).
    Solve(solve::SolveArgs),
    /// Draw a puzzle's start position as SVG.
    Draw(draw::DrawArgs),
    /// Check a solution by replaying it on the puzzle.
    Verify(verify::VerifyArgs),
    /// Count every state reachable from the start, layer by layer.
    Enumerate(enumerate::EnumerateArgs),
    /// Every layout of a family of piece sets: components, goal distances, hardest layouts.
    Family(family::FamilyArgs),
    /// Solve a whole corpus into a results CSV (with progress, resume, limits and shards).
    Batch(batch::BatchArgs),
    /// Join the results CSVs of shards into one, sorted by id; checks duplicates and gaps.
    Merge(merge::MergeArgs),
    /// Draw SVG charts of a results CSV.
    Plot(plot::PlotArgs),
    /// Generate seeded random puzzles.
    #[command(subcommand)]
    Gen(r#gen::GenCommand),
}

impl Command {
    /// The subcommand's name when it runs as one process only (`batch`, `enumerate` and `family`
    /// share their work among MPI ranks).
    fn single_process(&self) -> Option<&'static str> {
        match self {
            Command::Batch(_) | Command::Enumerate(_) | Command::Family(_) => None,
            Command::Solve(_) => Some("solve"),
            Command::Draw(_) => Some("draw"),
            Command::Verify(_) => Some("verify"),
            Command::Merge(_) => Some("merge"),
            Command::Plot(_) => Some("plot"),
            Command::Gen(_) => Some("gen"),
        }
    }
}

/// Reports bad input (`error: MESSAGE` on standard error) and returns its exit code. Over MPI
/// ranks, which all check the same input and refuse it alike, the first alone says it.
pub fn bad_input(message: impl std::fmt::Display) -> i32 {
    if slidesolve::distributed::launched_rank() == 0 {
        errln!("error: {message}");
    }
    EXIT_BAD_INPUT
}

/// Refuses, before anything is written, an output path given to `flag` that cannot be `what` (a
/// file): a directory, or a file in a directory that does not exist (named here, not via an OS
/// error).
pub fn check_out(out: &std::path::Path, flag: &str, what: &str) -> Result<(), String> {
    if out.is_dir() {
        return Err(format!("{} is a directory; {flag} takes the name of {what}", out.display()));
    }
    match out.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => {
            let why = if dir.exists() { "is not a directory" } else { "does not exist" };
            Err(format!("cannot write {}: {} {why}", out.display(), dir.display()))
        }
        _ => Ok(()),
    }
}

/// Whether `path` holds an earlier run's results (a file with any bytes); an error, saying how to
/// go on, when it does and the run neither continues them (`--resume`) nor overwrites them
/// (`--force`). `resumable`: whether this run could take `--resume` (the hint then offers it).
pub fn existing_results(path: &std::path::Path, resume: bool, force: bool, resumable: bool) -> Result<bool, String> {
    let held = std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
    if held && !resume && !force {
        let how = if resumable {
            "use --resume to continue it or --force to overwrite it"
        } else {
            "use --force to overwrite it (only a run with --out DIR can --resume)"
        };
        return Err(format!("{} already exists; {how}", path.display()));
    }
    Ok(held)
}

/// Writes `text` as the whole file at `path`, complete or not at all
/// ([`slidesolve::format::write_whole`]); the error names the path.
pub fn write_file(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    Ok(slidesolve::format::write_whole(path, |out| out.write_all(text.as_bytes()))?)
}

/// Runs the command line and returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Said once, not by every MPI rank (all of them exit with its code).
            if slidesolve::distributed::launched_rank() == 0 {
                let _ = e.print();
            }
            return if e.use_stderr() { EXIT_BAD_INPUT } else { EXIT_OK };
        }
    };
    // Every rank would run the whole job, print it and write its files: refused on every rank,
    // said once.
    if let Some(name) = cli.command.single_process().filter(|_| slidesolve::distributed::is_cluster()) {
        if slidesolve::distributed::is_leader() {
            errln!(
                "error: {name} runs as one process: start it without mpirun or srun (batch, enumerate and family \
                 share their work among MPI ranks)"
            );
        }
        return EXIT_BAD_INPUT;
    }
    let result = match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Draw(args) => draw::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Enumerate(args) => enumerate::run(args),
        Command::Family(args) => family::run(args),
        Command::Batch(args) => batch::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Plot(args) => plot::run(args),
        Command::Gen(command) => r#gen::run(command),
    };
    let code = result.unwrap_or_else(|e| {
        errln!("error: {e:#}");
        EXIT_OTHER
    });
    // Over MPI ranks each rank ends with the code of the whole run, whatever part it had.
    slidesolve::distributed::exit_code_of_all(code)
}
