//! The arguments several subcommands share (puzzle file and overrides, search and engine settings),
//! their value parsers, and loading a puzzle file.

use clap::Args;
use slidesolve::format::{self, Format, ParseOptions, Parsed};
use slidesolve::heuristic::HeuristicKind;
use slidesolve::heuristic::pdb::{Partition, PdbOptions};
use slidesolve::puzzle::{Family, Metric};
use slidesolve::search::Limits;
use slidesolve::search::frontier::EngineOptions;
use slidesolve::search::visited::Backend;
use slidesolve::solve::{Algo, SolveError, SolveOptions};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::stdio::{errln, outln};
use anyhow::Result;

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
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// When a search or an enumeration stops early (shared by `solve`, `batch` and `enumerate`; in a
/// batch each puzzle has its own).
#[derive(Args, Clone)]
pub struct LimitArgs {
    /// Stop after storing this many states (a batch: each puzzle; enumerate: its table keeps the
    /// layers before the one that crosses N).
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Stop (a puzzle) before the search structures exceed this size (e.g. 512M, 8G).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_memory: Option<ByteSize>,
    /// Stop (a puzzle) after this many seconds (a decimal number from 0 to 1e9).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
}

impl LimitArgs {
    /// The limits, with the deadline `--timeout` after `start` (none without a start).
    pub fn limits(&self, start: Option<Instant>) -> Limits {
        let deadline = start.zip(self.timeout).map(|(s, t)| s + t);
        Limits { max_states: self.max_states, max_memory: bytes_of(&self.max_memory), deadline }
    }
}

impl SearchArgs {
    /// The solve options, without a deadline (see [`LimitArgs::timeout`]).
    pub fn options(&self) -> SolveOptions {
        SolveOptions {
            algo: self.algo,
            limits: self.limits.limits(None),
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
}

/// Settings of the parallel search engine.
#[derive(Args, Clone)]
pub struct EngineArgs {
    /// Worker threads, at most 1024 (default, or 0: one per core).
    #[arg(long, default_value_t = 0, value_parser = parse_threads)]
    pub threads: usize,
    /// Visited-set backend: sharded (default) or dashmap.
    #[arg(long, default_value = "sharded")]
    pub visited: Backend,
    /// Print one line per BFS level (level, frontier size, new states, time) to standard error.
    #[arg(long)]
    pub trace: bool,
}

impl EngineArgs {
    /// The engine options these settings describe (paths kept).
    pub fn options(&self) -> EngineOptions {
        EngineOptions { backend: self.visited, keep_paths: true, trace: self.trace, ..EngineOptions::default() }
    }
}

/// The most worker threads `--threads` takes: far more than any machine has cores, far fewer
/// than the tens of thousands that take seconds and gigabytes just to start.
pub const MAX_THREADS: usize = 1024;

/// The longest `--timeout`, in seconds (about 31 years): a deadline this far ahead is still a
/// valid instant, where `inf` or `1e30` would overflow the clock.
pub const MAX_TIMEOUT_SECS: f64 = 1e9;

/// Parses `--threads`: 0 (one per core) to [`MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n <= MAX_THREADS => Ok(n),
        Ok(_) => Err(format!("at most {MAX_THREADS} worker threads (0: one per core)")),
        Err(_) => Err(format!("not a thread count (0 to {MAX_THREADS})")),
    }
}

/// Parses a number of seconds such as `30` or `0.5`: finite, from 0 to [`MAX_TIMEOUT_SECS`].
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(secs) if (0.0..=MAX_TIMEOUT_SECS).contains(&secs) => Ok(Duration::from_secs_f64(secs)),
        Ok(_) => Err(format!("a time limit is a number of seconds from 0 to {MAX_TIMEOUT_SECS:e}")),
        Err(_) => Err("not a number of seconds".to_string()),
    }
}

/// Parses a tile board size `RxC` (R rows, C columns, each at least `min_side`) of 2 to
/// `max_cells` cells, in checked arithmetic; `what` names the command whose bounds they are.
pub fn parse_board(s: &str, (min_side, max_cells): (usize, usize), what: &str) -> Result<(usize, usize), String> {
    let (r, c) = s.split_once(['x', 'X']).ok_or_else(|| format!("'{s}': expected RxC such as 3x4"))?;
    // A count too large for any integer is simply over the bounds, said below.
    let count = |t: &str, what: &str| match t.trim().parse::<usize>() {
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Ok(usize::MAX),
        parsed => parsed.map_err(|_| format!("'{s}': bad {what} count")),
    };
    let (r, c) = (count(r, "row")?, count(c, "column")?);
    match r.checked_mul(c) {
        Some(cells) if r.min(c) >= min_side && (2..=max_cells).contains(&cells) => Ok((r, c)),
        _ if min_side > 1 => {
            Err(format!("{what} takes a board of at least {min_side}x{min_side} and at most {max_cells} cells"))
        }
        _ => Err(format!("{what} takes a board of 2 to {max_cells} cells")),
    }
}

/// A byte size as given on the command line (`--max-memory 8G`).
#[derive(Clone, Debug)]
pub struct ByteSize {
    /// Its bytes.
    pub bytes: u64,
    /// Its text, for messages.
    pub text: String,
}

/// The bytes of a size, if any.
pub fn bytes_of(size: &Option<ByteSize>) -> Option<u64> {
    size.as_ref().map(|s| s.bytes)
}

/// Parses a byte size such as `1024`, `1e9`, `512K`, `64M`, `1.5G` (binary units); a size above
/// what the process can have is lowered to that later ([`memory_budget`] says so).
pub fn parse_bytes(s: &str) -> Result<ByteSize, String> {
    Ok(ByteSize { bytes: size(s)?, text: s.to_string() })
}

/// The budget of each of `sharing` puzzles that run at once (1 outside a batch) under
/// `--max-memory` (`given`; `None` without one): its bytes, lowered to what the process can have
/// ([`slidesolve::memory::available`]) divided among them, which a warning on standard error
/// says (on the first MPI rank only: the others print nothing).
pub fn memory_budget(given: Option<&ByteSize>, sharing: usize) -> Option<u64> {
    let given = given?;
    let can = slidesolve::memory::available();
    let budget = given.bytes.min(can / sharing.max(1) as u64);
    if budget < given.bytes && slidesolve::distributed::launched_rank() == 0 {
        let limits = match slidesolve::distributed::ranks_on_this_node() {
            1 => "the least of RAM, the cgroup's memory.max and ulimit -v".to_string(),
            ranks => format!(
                "the least of RAM and the cgroup's memory.max, shared by the {ranks} ranks on this node, and ulimit -v"
            ),
        };
        let (text, each) = (&given.text, slidesolve::memory::human(budget));
        match sharing {
            0 | 1 => errln!(
                "warning: --max-memory {text} is more than this process can have ({each}: {limits}); the budget is {each}"
            ),
            n => errln!(
                "warning: --max-memory {text} is more than each of the {n} puzzles that run at once can have ({each}: {}, {limits}, \
                 divided among them); the budget is {each} a puzzle",
                slidesolve::memory::human(can)
            ),
        }
    }
    Some(budget)
}

/// The bytes of a size such as `1e9` or `1.5G`.
fn size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    // A plain number, exponent included (`1e9`); otherwise a number and a unit.
    let split =
        if s.parse::<f64>().is_ok() { s.len() } else { s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len()) };
    let (digits, unit) = s.split_at(split);
    let value: f64 = digits
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("'{s}' is not a size such as 512M or 8G"))?;
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
    /// Printed to standard output verbatim (CS 351 prescribed errors of [`Purpose::Solve`]),
    /// else to standard error.
    stdout: bool,
    message: String,
}

/// What a command loads a puzzle for, which decides where the text the CS 351 course prescribes
/// goes (the warnings of the pieces it drops and its `Error: ...` lines) and whether a grid file
/// must give a goal.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `solve`: the course text on standard output, whose text is the course's expected output
    /// (it prints the warnings with its output); a goal to reach.
    Solve,
    /// `verify` and `draw`: the course text on standard error, apart from the command's own
    /// output (the warnings as the file loads, the errors as any other, naming the file and
    /// line); a goal to reach or to draw.
    Check,
    /// `enumerate`: the course text as for `Check`; no goal needed, since no state is tested.
    Enumerate,
}

/// Reads, detects and parses a puzzle file, applying overrides; the file and the board it
/// describes must fit in the memory budget (`max_memory`, else the default). The file's warnings
/// and prescribed errors go, and its goal is needed, as `purpose` says.
pub fn load(args: &PuzzleArgs, max_memory: Option<u64>, purpose: Purpose) -> Result<Parsed, LoadError> {
    let name = args.file.display().to_string();
    let overrides = &args.overrides;
    let bytes = format::read_file(&args.file, max_memory)
        .map_err(|e| LoadError { stdout: false, message: format!("error: cannot read {name}: {e}") })?;
    let fail = |e: format::ParseError| {
        let stdout = e.prescribed && purpose == Purpose::Solve;
        let error = if stdout { e.message.clone() } else { format!("error: {name}: {e}") };
        let message = e.warnings.iter().chain([&error]).map(String::as_str).collect::<Vec<_>>().join("\n");
        LoadError { stdout, message }
    };
    let text = format::decode_text(&bytes).map_err(fail)?;
    let fmt = overrides.format.unwrap_or_else(|| format::detect(Some(&args.file), text));
    let goal_optional = purpose == Purpose::Enumerate;
    let options = ParseOptions { goal: overrides.goal.clone(), max_memory, goal_optional };
    let mut parsed = format::parse(fmt, text, &options).map_err(fail)?;
    overrides.apply(&mut parsed);
    // A move list of single tiles cannot express a multi-tile move, so `verify` and `draw` refuse
    // that metric as `solve` does.
    let puzzle = &parsed.puzzle;
    if purpose == Purpose::Check && puzzle.family == Family::Tiles && puzzle.metric == Metric::Straight {
        return Err(LoadError { stdout: false, message: format!("error: {name}: {}", SolveError::MultiTile) });
    }
    // Over several MPI ranks, the first alone speaks.
    if purpose != Purpose::Solve && slidesolve::distributed::launched_rank() == 0 {
        for warning in &parsed.warnings {
            errln!("{warning}");
        }
    }
    Ok(parsed)
}

/// Prints a load error where it belongs and returns the bad-input exit code. Over MPI ranks, which
/// all read the same file and fail alike, the first alone says it.
pub fn report_load_error(e: LoadError) -> Result<i32> {
    if slidesolve::distributed::launched_rank() != 0 {
        return Ok(super::EXIT_BAD_INPUT);
    }
    if e.stdout {
        outln!("{}", e.message)?;
    } else {
        errln!("{}", e.message);
    }
    Ok(super::EXIT_BAD_INPUT)
}
