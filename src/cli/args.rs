//! The arguments several subcommands share (puzzle file and overrides, search and engine settings),
//! their value parsers, and loading a puzzle file.

use clap::Args;
use slidesolve::format::{self, Format, ParseOptions, Parsed};
use slidesolve::heuristic::HeuristicKind;
use slidesolve::heuristic::pdb::{Partition, PdbOptions};
use slidesolve::puzzle::Metric;
use slidesolve::search::Limits;
use slidesolve::search::frontier::EngineOptions;
use slidesolve::search::visited::Backend;
use slidesolve::solve::{Algo, SolveOptions};
use std::path::PathBuf;
use std::time::Duration;

use super::EXIT_BAD_INPUT;

/// Where a puzzle comes from and what overrides its file.
#[derive(Args, Clone)]
pub struct PuzzleArgs {
    /// The puzzle file.
    pub file: PathBuf,
    #[command(flatten)]
    pub overrides: Overrides,
}

/// What overrides a puzzle file.
#[derive(Args, Clone)]
pub struct Overrides {
    /// Input format: grid, cs351, tiles or rush (default: detected).
    #[arg(long)]
    pub format: Option<Format>,
    /// Move metric: unit, straight or free (default: the file's or the format's).
    #[arg(long)]
    pub metric: Option<Metric>,
    /// Goal override: a tile layout (or blank-first / blank-last), or a grid goal such as 'A at 3,1'.
    #[arg(long)]
    pub goal: Option<String>,
    /// Keep identical pieces distinct instead of merging their states.
    #[arg(long)]
    pub distinct: bool,
}

impl Overrides {
    /// Applies the metric and `--distinct` overrides to a parsed puzzle.
    pub fn apply(&self, parsed: &mut Parsed) {
        if let Some(metric) = self.metric {
            parsed.puzzle.metric = metric;
        }
        if self.distinct {
            parsed.puzzle.merge_identical = false;
        }
    }
}

/// How to search: algorithm, heuristic, engine and limits (shared by `solve` and `batch`).
#[derive(Args, Clone)]
pub struct SearchArgs {
    /// Search algorithm: bfs, bidir, reference, dfs, iddfs, greedy, astar, idastar or constructive.
    #[arg(long, default_value = "bfs")]
    pub algo: Algo,
    /// Heuristic for greedy, astar and idastar: zero, misplaced, manhattan, linear-conflict or pdb
    /// (default: manhattan for tile puzzles).
    #[arg(long)]
    pub heuristic: Option<HeuristicKind>,
    /// Depth limit of --algo dfs.
    #[arg(long, default_value_t = 50)]
    pub depth: u32,
    /// Directory for pattern databases (default: $SLIDESOLVE_CACHE, $XDG_CACHE_HOME/slidesolve or ~/.cache/slidesolve).
    #[arg(long, value_name = "DIR")]
    pub pdb_cache: Option<PathBuf>,
    /// Pattern databases: do not also look up the mirror image of each position.
    #[arg(long)]
    pub no_reflect: bool,
    /// Pattern-database groups: sizes in goal reading order (7-8, 6-6-3, 5-5-5) or tile groups
    /// (1,2,3/4,5,6); default: groups of six (one exact group for at most 8 tiles).
    #[arg(long, value_name = "SPEC", default_value = "default")]
    pub pdb_partition: Partition,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Stop (a puzzle) after storing this many states.
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Stop (a puzzle) before the search structures exceed this size (e.g. 512M, 8G).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_memory: Option<u64>,
    /// Stop (a puzzle) after this many seconds.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
}

impl SearchArgs {
    /// The solve options, without a deadline (see [`SearchArgs::timeout`]).
    pub fn options(&self) -> SolveOptions {
        SolveOptions {
            algo: self.algo,
            limits: Limits { max_states: self.max_states, max_memory: self.max_memory, deadline: None },
            engine: self.engine.options(),
            heuristic: self.heuristic,
            depth: self.depth,
            pdb: PdbOptions {
                cache_dir: self.pdb_cache.clone(),
                progress: true,
                partition: self.pdb_partition.clone(),
                reflect: !self.no_reflect,
            },
            verify: true,
        }
    }

    /// The time limit of one puzzle, if any.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout.map(|s| Duration::from_secs_f64(s.max(0.0)))
    }
}

/// Settings of the parallel search engine.
#[derive(Args, Clone)]
pub struct EngineArgs {
    /// Worker threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Visited-set backend: sharded (default) or dashmap.
    #[arg(long, default_value = "sharded")]
    pub visited: Backend,
    /// Print one line per BFS level (level, frontier size, time) to standard error.
    #[arg(long)]
    pub trace: bool,
}

impl EngineArgs {
    /// The engine options these settings describe (paths kept).
    pub fn options(&self) -> EngineOptions {
        EngineOptions { backend: self.visited, keep_paths: true, trace: self.trace }
    }
}

/// Parses `RxC`.
pub fn parse_dims(s: &str) -> Result<(usize, usize), String> {
    let (r, c) = s
        .to_ascii_lowercase()
        .split_once('x')
        .map(|(r, c)| (r.trim().to_string(), c.trim().to_string()))
        .ok_or_else(|| format!("'{s}': expected RxC such as 3x4"))?;
    let (r, c): (usize, usize) = (
        r.parse().map_err(|_| format!("'{s}': bad row count"))?,
        c.parse().map_err(|_| format!("'{s}': bad column count"))?,
    );
    if r * c < 2 || r == 0 || c == 0 || r * c > 64 {
        return Err(format!("'{s}': a tile board needs 2 to 64 cells"));
    }
    Ok((r, c))
}

/// Parses a byte size such as `1024`, `512K`, `64M`, `8G` (binary units).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, unit) = s.split_at(s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len()));
    let value: f64 = digits.trim().parse().map_err(|_| format!("'{s}' is not a size such as 512M or 8G"))?;
    let scale: u64 = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(format!("'{s}': unknown unit '{unit}' (use K, M, G or T)")),
    };
    Ok((value * scale as f64) as u64)
}

/// A puzzle file that failed to load, with the text to print and where.
pub struct LoadError {
    /// Printed to standard output verbatim (CS 351 prescribed errors), else to standard error.
    stdout: bool,
    message: String,
}

/// Reads, detects and parses a puzzle file, applying overrides; the file and the board it
/// describes must fit in the memory budget (`max_memory`, else the default).
pub fn load(args: &PuzzleArgs, max_memory: Option<u64>) -> Result<Parsed, LoadError> {
    let name = args.file.display().to_string();
    let overrides = &args.overrides;
    let bytes = format::read_file(&args.file, max_memory)
        .map_err(|e| LoadError { stdout: false, message: format!("error: cannot read {name}: {e}") })?;
    let fail = |e: format::ParseError| LoadError {
        stdout: e.prescribed,
        message: if e.prescribed { e.message.clone() } else { format!("error: {name}: {e}") },
    };
    let text = format::decode_text(&bytes).map_err(fail)?;
    let fmt = overrides.format.unwrap_or_else(|| format::detect(Some(&args.file), text));
    let options = ParseOptions { goal: overrides.goal.clone(), max_memory };
    let mut parsed = format::parse(fmt, text, &options).map_err(fail)?;
    overrides.apply(&mut parsed);
    Ok(parsed)
}

/// Prints a load error where it belongs and returns the bad-input exit code.
pub fn report_load_error(e: LoadError) -> i32 {
    if e.stdout {
        println!("{}", e.message);
    } else {
        eprintln!("{}", e.message);
    }
    EXIT_BAD_INPUT
}
