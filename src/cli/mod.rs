//! Command-line definitions (clap) and the glue from arguments to library calls.
//!
//! Exit codes: 0 solved (or valid), 3 proven unsolvable, 2 bad input or usage, 1 anything else.

mod layer_progress;
mod output;

use anyhow::{Context, Result, anyhow};
use clap::{Args, Parser, Subcommand};
use slidesolve::batch::corpus::{self, CorpusOptions, Shard};
use slidesolve::batch::metadata::{self, Metadata};
use slidesolve::batch::progress::{Progress, ProgressMode};
use slidesolve::batch::record::{RowWriter, read_rows};
use slidesolve::batch::run::BatchOptions;
use slidesolve::batch::summary::Summary;
use slidesolve::enumerate::TableEngine;
use slidesolve::format::{self, Format, ParseOptions, Parsed};
use slidesolve::generate::{TileSampling, random_tiles};
use slidesolve::heuristic::HeuristicKind;
use slidesolve::heuristic::pdb::{Partition, PdbOptions};
use slidesolve::puzzle::Metric;
use slidesolve::search::frontier::EngineOptions;
use slidesolve::search::visited::Backend;
use slidesolve::search::{Limits, with_threads};
use slidesolve::solution::parse_solution;
use slidesolve::solve::{Algo, SolveOptions, Status, solve};
use slidesolve::verify::verify;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    /// Solve one puzzle and print an optimal solution.
    Solve(SolveArgs),
    /// Check a solution by replaying it on the puzzle.
    Verify(VerifyArgs),
    /// Count every state reachable from the start, layer by layer.
    Enumerate(EnumerateArgs),
    /// Solve a whole corpus into a results CSV (with progress, resume, limits and shards).
    Batch(BatchArgs),
    /// Join the results CSVs of shards into one, sorted by id; checks duplicates and gaps.
    Merge(MergeArgs),
    /// Draw SVG charts of a results CSV.
    Plot(PlotArgs),
    /// Generate seeded random puzzles.
    #[command(subcommand)]
    Gen(GenCommand),
}

#[derive(Args)]
struct BatchArgs {
    /// Puzzle files, directories (walked recursively) or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<String>,
    /// The results CSV; the run's metadata goes to the same name plus `.json`.
    #[arg(long, value_name = "CSV")]
    out: PathBuf,
    #[command(flatten)]
    overrides: Overrides,
    #[command(flatten)]
    search: SearchArgs,
    /// Skip the puzzles whose ids are already in the output and append the rest.
    #[arg(long, conflicts_with = "force")]
    resume: bool,
    /// Overwrite an existing output file.
    #[arg(long)]
    force: bool,
    /// Take only the puzzles whose 1-based position in the corpus is K modulo N.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Do not replay solutions on the puzzle model before writing them.
    #[arg(long)]
    no_verify: bool,
    /// Also write the summary as JSON to this file.
    #[arg(long, value_name = "FILE")]
    summary_json: Option<PathBuf>,
    /// No progress output.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
struct MergeArgs {
    /// Results CSVs (with their `.json` metadata beside them, when present).
    #[arg(required = true, value_name = "CSV")]
    inputs: Vec<PathBuf>,
    /// The merged CSV.
    #[arg(long, value_name = "CSV")]
    out: PathBuf,
}

#[derive(Args)]
struct PlotArgs {
    /// A results CSV.
    csv: PathBuf,
    /// Directory for the SVG files (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(Subcommand)]
enum GenCommand {
    /// Random sliding-tile puzzles, one per line (after a `size: RxC` line).
    Tiles(GenTilesArgs),
}

#[derive(Args)]
struct GenTilesArgs {
    /// Board size, R rows by C columns (e.g. 3x3, 4x4, 2x5).
    #[arg(value_parser = parse_dims)]
    size: (usize, usize),
    /// Number of puzzles.
    #[arg(long, default_value_t = 1)]
    count: usize,
    /// Random seed (the same seed gives the same puzzles on every machine).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Draw by a random walk of this many moves from the goal instead of uniformly.
    #[arg(long, value_name = "MOVES")]
    walk: Option<usize>,
    /// Goal layout (default: 1…N-1 then the blank; or blank-first).
    #[arg(long)]
    goal: Option<String>,
}

/// Where a puzzle comes from and what overrides its file.
#[derive(Args, Clone)]
struct PuzzleArgs {
    /// The puzzle file.
    file: PathBuf,
    #[command(flatten)]
    overrides: Overrides,
}

/// What overrides a puzzle file.
#[derive(Args, Clone)]
struct Overrides {
    /// Input format: grid, cs351, tiles or rush (default: detected).
    #[arg(long)]
    format: Option<Format>,
    /// Move metric: unit, straight or free (default: the file's or the format's).
    #[arg(long)]
    metric: Option<Metric>,
    /// Goal override: a tile layout (or blank-first / blank-last), or a grid goal such as 'A at 3,1'.
    #[arg(long)]
    goal: Option<String>,
    /// Keep identical pieces distinct instead of merging their states.
    #[arg(long)]
    distinct: bool,
}

#[derive(Args)]
struct SolveArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    #[command(flatten)]
    search: SearchArgs,
    /// Print the board after every move.
    #[arg(long)]
    show: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// How to search: algorithm, heuristic, engine and limits (shared by `solve` and `batch`).
#[derive(Args, Clone)]
struct SearchArgs {
    /// Search algorithm: bfs, bidir, reference, dfs, iddfs, greedy, astar, idastar or constructive.
    #[arg(long, default_value = "bfs")]
    algo: Algo,
    /// Heuristic for greedy, astar and idastar: zero, misplaced, manhattan, linear-conflict or pdb
    /// (default: manhattan for tile puzzles).
    #[arg(long)]
    heuristic: Option<HeuristicKind>,
    /// Depth limit of --algo dfs.
    #[arg(long, default_value_t = 50)]
    depth: u32,
    /// Directory for pattern databases (default: $SLIDESOLVE_CACHE, $XDG_CACHE_HOME/slidesolve or ~/.cache/slidesolve).
    #[arg(long, value_name = "DIR")]
    pdb_cache: Option<PathBuf>,
    /// Pattern databases: do not also look up the mirror image of each position.
    #[arg(long)]
    no_reflect: bool,
    /// Pattern-database groups: sizes in goal reading order (7-8, 6-6-3, 5-5-5) or tile groups
    /// (1,2,3/4,5,6); default: groups of six (one exact group for at most 8 tiles).
    #[arg(long, value_name = "SPEC", default_value = "default")]
    pdb_partition: Partition,
    #[command(flatten)]
    engine: EngineArgs,
    /// Stop (a puzzle) after storing this many states.
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    /// Stop (a puzzle) before the search structures exceed this size (e.g. 512M, 8G).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    max_memory: Option<u64>,
    /// Stop (a puzzle) after this many seconds.
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
}

impl SearchArgs {
    /// The solve options, without a deadline (see [`SearchArgs::timeout`]).
    fn options(&self) -> SolveOptions {
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

    fn timeout(&self) -> Option<Duration> {
        self.timeout.map(|s| Duration::from_secs_f64(s.max(0.0)))
    }
}

/// Settings of the parallel search engine.
#[derive(Args, Clone)]
struct EngineArgs {
    /// Worker threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Visited-set backend: sharded (default) or dashmap.
    #[arg(long, default_value = "sharded")]
    visited: Backend,
    /// Print one line per BFS level (level, frontier size, time) to standard error.
    #[arg(long)]
    trace: bool,
}

impl EngineArgs {
    fn options(&self) -> EngineOptions {
        EngineOptions { backend: self.visited, keep_paths: true, trace: self.trace }
    }
}

#[derive(Args)]
struct EnumerateArgs {
    /// The puzzle file (or use --tiles).
    #[arg(required_unless_present = "tiles", conflicts_with = "tiles")]
    file: Option<PathBuf>,
    /// Enumerate the R×C tile puzzle from its goal layout (R rows, C columns), e.g. 3x4.
    #[arg(long, value_name = "RxC", value_parser = parse_dims)]
    tiles: Option<(usize, usize)>,
    #[command(flatten)]
    overrides: Overrides,
    #[command(flatten)]
    engine: EngineArgs,
    /// Write the layer table as CSV (`depth,states`) to this file.
    #[arg(long, value_name = "CSV")]
    out: Option<PathBuf>,
    /// Print up to K farthest states.
    #[arg(long, value_name = "K", default_value_t = 1)]
    farthest: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Stop before the search structures exceed this size (e.g. 512M, 8G).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    max_memory: Option<u64>,
    /// Draw the layer sizes as an SVG bar chart.
    #[arg(long, value_name = "SVG")]
    plot: Option<PathBuf>,
    /// Also list every legal placement of the piece set (block puzzles) and count its components.
    #[arg(long)]
    components: bool,
    /// Enumerator: auto (perfect-hash bit arrays for tile puzzles of 3 to 14 cells, else the
    /// frontier BFS), perfect or frontier.
    #[arg(long = "engine", value_name = "ENGINE", default_value = "auto")]
    engine_kind: TableEngine,
}

/// Parses `RxC`.
fn parse_dims(s: &str) -> Result<(usize, usize), String> {
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

#[derive(Args)]
struct VerifyArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// The solution: a file, `-` for standard input, or the moves themselves ('A:R2 B:DL').
    solution: String,
}

/// Parses a byte size such as `1024`, `512K`, `64M`, `8G` (binary units).
fn parse_bytes(s: &str) -> Result<u64, String> {
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
struct LoadError {
    /// Printed to standard output verbatim (CS 351 prescribed errors), else to standard error.
    stdout: bool,
    message: String,
}

/// Reads, detects and parses a puzzle file, applying overrides.
fn load(args: &PuzzleArgs) -> Result<Parsed, LoadError> {
    let name = args.file.display().to_string();
    let overrides = &args.overrides;
    let bytes = std::fs::read(&args.file)
        .map_err(|e| LoadError { stdout: false, message: format!("error: cannot read {name}: {e}") })?;
    let fail = |e: format::ParseError| LoadError {
        stdout: e.prescribed,
        message: if e.prescribed { e.message.clone() } else { format!("error: {name}: {e}") },
    };
    let text = format::decode_text(&bytes).map_err(fail)?;
    let fmt = overrides.format.unwrap_or_else(|| format::detect(Some(&args.file), text));
    let options = ParseOptions { goal: overrides.goal.clone(), max_memory: None };
    let mut parsed = format::parse(fmt, text, &options).map_err(fail)?;
    overrides.apply(&mut parsed);
    Ok(parsed)
}

impl Overrides {
    fn apply(&self, parsed: &mut Parsed) {
        if let Some(metric) = self.metric {
            parsed.puzzle.metric = metric;
        }
        if self.distinct {
            parsed.puzzle.merge_identical = false;
        }
    }
}

/// Runs the command line and returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_BAD_INPUT } else { EXIT_OK };
        }
    };
    let result = match cli.command {
        Command::Solve(args) => run_solve(args),
        Command::Verify(args) => run_verify(args),
        Command::Enumerate(args) => run_enumerate(args),
        Command::Batch(args) => run_batch(args),
        Command::Merge(args) => run_merge(args),
        Command::Plot(args) => run_plot(args),
        Command::Gen(GenCommand::Tiles(args)) => run_gen_tiles(args),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        EXIT_OTHER
    })
}

fn report_load_error(e: LoadError) -> i32 {
    if e.stdout {
        println!("{}", e.message);
    } else {
        eprintln!("{}", e.message);
    }
    EXIT_BAD_INPUT
}

fn run_solve(args: SolveArgs) -> Result<i32> {
    let parsed = match load(&args.puzzle) {
        Ok(p) => p,
        Err(e) => return Ok(report_load_error(e)),
    };
    let mut options = args.search.options();
    options.limits.deadline = args.search.timeout().map(|t| Instant::now() + t);
    let report = match with_threads(args.search.engine.threads, || solve(&parsed.puzzle, &options)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}: {e}", args.puzzle.file.display());
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let file = args.puzzle.file.display().to_string();
    let view = output::SolveView { file: &file, parsed: &parsed, report: &report, algo: args.search.algo };
    if args.json {
        println!("{}", view.json());
    } else {
        print!("{}", view.text(args.show));
    }
    Ok(match report.status {
        Status::Solved => EXIT_OK,
        Status::Unsolvable => EXIT_UNSOLVABLE,
        Status::Timeout | Status::Limit | Status::Error => EXIT_OTHER,
    })
}

fn run_verify(args: VerifyArgs) -> Result<i32> {
    let parsed = match load(&args.puzzle) {
        Ok(p) => p,
        Err(e) => return Ok(report_load_error(e)),
    };
    let text = if args.solution == "-" {
        std::io::read_to_string(std::io::stdin()).context("cannot read the solution from standard input")?
    } else if std::path::Path::new(&args.solution).is_file() {
        std::fs::read_to_string(&args.solution).with_context(|| format!("cannot read {}", args.solution))?
    } else {
        args.solution.clone()
    };
    let moves = match parse_solution(&parsed.puzzle, &text) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: solution: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    match verify(&parsed.puzzle, &moves) {
        Ok(_) => {
            println!("valid: {} moves reach the goal ({} metric)", moves.len(), parsed.puzzle.metric);
            Ok(EXIT_OK)
        }
        Err(e) => {
            println!("invalid: {e}");
            Ok(EXIT_OTHER)
        }
    }
    .map_err(|e: anyhow::Error| anyhow!(e))
}

fn run_enumerate(args: EnumerateArgs) -> Result<i32> {
    let (parsed, name) = match (&args.file, args.tiles) {
        (Some(file), _) => match load(&PuzzleArgs { file: file.clone(), overrides: args.overrides.clone() }) {
            Ok(p) => (p, file.display().to_string()),
            Err(e) => return Ok(report_load_error(e)),
        },
        (None, Some((rows, cols))) => {
            let start = format::tiles::TileLayout::blank_last(rows, cols);
            let goal = match &args.overrides.goal {
                Some(g) => match format::tiles::parse_goal(g, &start, 0) {
                    Ok(g) => g,
                    Err(e) => {
                        eprintln!("error: --goal: {e}");
                        return Ok(EXIT_BAD_INPUT);
                    }
                },
                None => start.clone(),
            };
            let mut parsed =
                Parsed { puzzle: format::tiles::puzzle_from(&goal, &goal), warnings: Vec::new(), expected: None };
            args.overrides.apply(&mut parsed);
            (parsed, format!("{rows}x{cols} tiles"))
        }
        (None, None) => unreachable!("clap requires FILE or --tiles"),
    };
    let limits = Limits { max_memory: args.max_memory, ..Limits::default() };
    let options = EngineOptions { keep_paths: false, ..args.engine.options() };
    // The layer table is written as each layer is counted, so a long run that is killed keeps the
    // layers it finished, and a path that cannot be written fails before the work, not after.
    let cannot_write = |path: &std::path::Path| format!("cannot write {}", path.display());
    let mut layer_csv = match &args.out {
        Some(out) => {
            let mut file = std::fs::File::create(out).with_context(|| cannot_write(out))?;
            file.write_all(b"depth,states\n").with_context(|| cannot_write(out))?;
            Some(file)
        }
        None => None,
    };
    let mut write_error = None;
    let expected = slidesolve::enumerate::expected_states(&parsed.puzzle);
    let mut progress = layer_progress::LayerProgress::new(expected, options.trace);
    let table = with_threads(args.engine.threads, || {
        let mut on_layer = |depth, states| {
            progress.layer(depth, states);
            if let Some(file) = &mut layer_csv
                && let Err(e) = writeln!(file, "{depth},{states}")
            {
                write_error.get_or_insert(e);
            }
        };
        slidesolve::enumerate::table(&parsed.puzzle, &limits, options, args.farthest, args.engine_kind, &mut on_layer)
    });
    progress.finish();
    if let (Some(e), Some(out)) = (write_error, &args.out) {
        return Err(e).with_context(|| cannot_write(out));
    }
    let table = match table {
        Ok(t) => t,
        Err(e) => {
            if let Some(out) = &args.out {
                let _ = std::fs::remove_file(out);
            }
            eprintln!("error: {name}: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    if let Some(svg) = &args.plot {
        let title = format!("{name}: {} states by depth ({} metric)", table.states(), parsed.puzzle.metric);
        slidesolve::plot::bar_chart(svg, &title, "depth", "states", &table.layers)
            .with_context(|| format!("cannot write {}", svg.display()))?;
    }
    let components = match args.components {
        true => match slidesolve::enumerate::components::components(
            &parsed.puzzle,
            slidesolve::memory::limit(args.max_memory),
        ) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("error: {name}: {e}");
                return Ok(EXIT_BAD_INPUT);
            }
        },
        false => None,
    };
    let view =
        output::EnumerateView { name: &name, puzzle: &parsed.puzzle, table: &table, components: components.as_ref() };
    if args.json {
        println!("{}", view.json());
    } else {
        print!("{}", view.text());
    }
    Ok(if table.stopped.is_some() { EXIT_OTHER } else { EXIT_OK })
}

fn run_gen_tiles(args: GenTilesArgs) -> Result<i32> {
    let (rows, cols) = args.size;
    if rows < 2 || cols < 2 {
        eprintln!("error: gen tiles needs a board of at least 2x2");
        return Ok(EXIT_BAD_INPUT);
    }
    let standard = format::tiles::TileLayout::blank_last(rows, cols);
    let goal = match &args.goal {
        Some(g) => match format::tiles::parse_goal(g, &standard, 0) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("error: --goal: {e}");
                return Ok(EXIT_BAD_INPUT);
            }
        },
        None => standard,
    };
    let sampling = args.walk.map_or(TileSampling::Uniform, TileSampling::Walk);
    let how = match sampling {
        TileSampling::Uniform => "uniform over solvable layouts".to_string(),
        TileSampling::Walk(k) => format!("random walk of {k} moves from the goal"),
    };
    let mut out = format!("; slidesolve gen tiles {rows}x{cols} --count {} --seed {} ({how})\n", args.count, args.seed);
    out.push_str(&format!("size: {rows}x{cols}\n"));
    if args.goal.is_some() {
        let cells: Vec<String> = goal.cells.iter().map(u32::to_string).collect();
        out.push_str(&format!("goal: {}\n", cells.join(" ")));
    }
    for layout in random_tiles(&goal, args.count, args.seed, sampling) {
        let cells: Vec<String> = layout.cells.iter().map(u32::to_string).collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
    }
    print!("{out}");
    Ok(EXIT_OK)
}

fn run_batch(args: BatchArgs) -> Result<i32> {
    let overrides = &args.overrides;
    let corpus_options = CorpusOptions {
        format: overrides.format,
        parse: ParseOptions { goal: overrides.goal.clone(), max_memory: None },
        metric: overrides.metric,
        distinct: overrides.distinct,
    };
    let entries = match corpus::load(&args.inputs, &corpus_options) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let corpus_puzzles = entries.len();
    let selected: Vec<_> = entries
        .into_iter()
        .enumerate()
        .filter(|(i, _)| args.shard.is_none_or(|s| s.takes(*i)))
        .map(|(_, e)| e)
        .collect();
    let out = &args.out;
    let exists = std::fs::metadata(out).is_ok_and(|m| m.len() > 0);
    if exists && !args.resume && !args.force {
        eprintln!("error: {} already exists; use --resume to continue it or --force to overwrite it", out.display());
        return Ok(EXIT_BAD_INPUT);
    }
    let done: std::collections::HashSet<String> =
        if args.resume { read_rows(out)?.into_iter().map(|r| r.id).collect() } else { Default::default() };
    let todo: Vec<_> = selected.iter().filter(|e| !done.contains(&e.id)).cloned().collect();

    let threads = match args.search.engine.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let meta_path = metadata::path_for(out);
    let command_line: Vec<String> = std::env::args().collect();
    let mut meta = match Metadata::read(&meta_path) {
        Ok(mut m) if args.resume => {
            m.resumed.push(metadata::timestamp());
            m
        }
        _ => Metadata::now(command_line, threads),
    };
    meta.shard = args.shard.map(|s| s.to_string());
    meta.corpus_puzzles = corpus_puzzles;
    meta.ids = selected.iter().map(|e| e.id.clone()).collect();
    meta.write(&meta_path).with_context(|| format!("cannot write {}", meta_path.display()))?;

    let writer = if args.resume { RowWriter::append(out) } else { RowWriter::create(out) }
        .with_context(|| format!("cannot write {}", out.display()))?;
    let writer = std::sync::Mutex::new(writer);
    let mode = if args.quiet { ProgressMode::Quiet } else { ProgressMode::Auto };
    if !args.quiet && !done.is_empty() {
        eprintln!(
            "resuming: {} of {} puzzles already in {}",
            selected.len() - todo.len(),
            selected.len(),
            out.display()
        );
    }
    let progress = Progress::new(todo.len() as u64, mode);
    let mut solve = args.search.options();
    solve.verify = !args.no_verify;
    solve.pdb.progress = !args.quiet;
    let options = BatchOptions { solve, timeout: args.search.timeout(), threads };
    let clock = Instant::now();
    with_threads(threads, || {
        slidesolve::batch::run::run(&todo, &options, |row| {
            writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner).write(&row)?;
            progress.record(&row);
            Ok::<(), std::io::Error>(())
        })
    })
    .with_context(|| format!("cannot write {}", out.display()))?;
    progress.finish();
    let elapsed = clock.elapsed().as_secs_f64();

    let rows = read_rows(out)?;
    let summary = Summary::of(&rows);
    meta.finish(&summary);
    meta.write(&meta_path).with_context(|| format!("cannot write {}", meta_path.display()))?;
    if let Some(path) = &args.summary_json {
        let json = serde_json::to_string_pretty(&summary)? + "\n";
        std::fs::write(path, json).with_context(|| format!("cannot write {}", path.display()))?;
    }
    println!(
        "this run: {} puzzles in {elapsed:.2} s ({:.1} puzzles/s, {threads} threads); results in {}",
        todo.len(),
        todo.len() as f64 / elapsed.max(1e-9),
        out.display()
    );
    print!("{summary}");
    Ok(if summary.mismatches.is_empty() { EXIT_OK } else { EXIT_OTHER })
}

fn run_merge(args: MergeArgs) -> Result<i32> {
    let merged = slidesolve::batch::merge::merge(&args.inputs)?;
    let mut writer = RowWriter::create(&args.out).with_context(|| format!("cannot write {}", args.out.display()))?;
    for row in &merged.rows {
        writer.write(row)?;
    }
    println!("{} rows from {} files written to {}", merged.rows.len(), args.inputs.len(), args.out.display());
    for id in &merged.duplicates {
        eprintln!("duplicate: {id} appears in more than one row (the first is kept)");
    }
    for shard in &merged.missing_shards {
        eprintln!("gap: no input for shard {shard}");
    }
    for id in &merged.missing {
        eprintln!("gap: {id} has no row");
    }
    if let Some(n) = merged.corpus_puzzles
        && n != merged.rows.len()
    {
        eprintln!("gap: the corpus has {n} puzzles, the merged file {} rows", merged.rows.len());
    }
    Ok(if merged.is_clean() { EXIT_OK } else { EXIT_OTHER })
}

fn run_plot(args: PlotArgs) -> Result<i32> {
    let rows = read_rows(&args.csv)?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let written = slidesolve::plot::results_charts(&rows, &args.out)?;
    for path in written {
        println!("{}", path.display());
    }
    Ok(EXIT_OK)
}
