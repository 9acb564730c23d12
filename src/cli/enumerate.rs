//! `slidesolve enumerate`: counts a whole state space layer by layer.

use super::args::{
    EngineArgs, LimitArgs, Overrides, Purpose, PuzzleArgs, load, memory_budget, parse_board, report_load_error,
};
use super::stdio::{out, outln};
use super::{EXIT_BAD_INPUT, EXIT_OK, EXIT_OTHER, bad_input, check_out, layer_progress, output};
use anyhow::{Context, Result};
use clap::Args;
use slidesolve::enumerate::TableEngine;
use slidesolve::enumerate::components::ComponentsError;
use slidesolve::format::{self, Parsed};
use slidesolve::search::frontier::EngineOptions;
use slidesolve::search::with_threads;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The largest board `enumerate --tiles` takes (the enumerators refuse more long before, by memory).
const ENUMERATE_MAX_CELLS: usize = 64;

/// Arguments of `enumerate`.
#[derive(Args)]
pub struct EnumerateArgs {
    /// The puzzle file (or use --tiles).
    #[arg(required_unless_present = "tiles", conflicts_with = "tiles")]
    file: Option<PathBuf>,
    /// Enumerate the R×C tile puzzle from its goal layout (R rows, C columns), e.g. 3x4.
    #[arg(long, value_name = "RxC", value_parser = |s: &str| parse_board(s, (1, ENUMERATE_MAX_CELLS), "enumerate --tiles"))]
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
    #[command(flatten)]
    limits: LimitArgs,
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

/// Runs `enumerate` and returns the exit code.
pub fn run(args: EnumerateArgs) -> Result<i32> {
    // Over several MPI ranks every rank counts, rank 0 alone reports and writes files. No rank
    // starts the search, whose collective steps every rank must reach, before every rank has
    // loaded the puzzle and rank 0 has opened its output: one that cannot stops them all.
    let all_ready = slidesolve::distributed::all_ready;
    let max_memory = memory_budget(args.limits.max_memory.as_ref(), 1);
    let loaded = load_puzzle(&args, max_memory);
    let all_loaded = all_ready(loaded.is_ok());
    let (parsed, name) = match loaded {
        Err(refused) => return refused,
        Ok((_, name)) if !all_loaded => {
            return Ok(bad_input(format!("another rank could not load {name} (is the file system shared?)")));
        }
        Ok(loaded) => loaded,
    };
    let leader = slidesolve::distributed::is_leader();
    // The layer table is written as each layer is counted, so a long run that is killed keeps the
    // layers it finished, and a path that cannot be written fails before the work, not after.
    let plot_ready = match &args.plot {
        Some(svg) if leader => check_out(svg, "--plot", "the chart's SVG file"),
        _ => Ok(()),
    };
    let layer_csv = plot_ready.and_then(|()| match &args.out {
        Some(out) if leader => open_layer_csv(out).map(Some),
        _ => Ok(None),
    });
    let output_ready = all_ready(layer_csv.is_ok());
    let mut layer_csv = match layer_csv {
        Err(message) => return Ok(bad_input(message)),
        Ok(_) if !output_ready => return Ok(EXIT_BAD_INPUT),
        Ok(file) => file,
    };
    let limits = args.limits.limits(Some(std::time::Instant::now()));
    let mut options = EngineOptions { keep_paths: false, ..args.engine.options() };
    options.trace &= leader;
    let mut write_error = None;
    let expected = slidesolve::enumerate::expected_states(&parsed.puzzle);
    let mut progress = layer_progress::LayerProgress::new(expected, options.trace || !leader);
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
        return Err(e).with_context(|| format!("cannot write {}", out.display()));
    }
    let mut table = match table {
        Ok(t) => t,
        Err(e) => {
            // Refused as bad input, the run leaves no layer table behind.
            if let (Some(_), Some(out)) = (layer_csv.take(), &args.out) {
                let _ = std::fs::remove_file(out);
            }
            return Ok(bad_input(format!("{name}: {e}")));
        }
    };
    if !leader {
        return Ok(if table.stopped.is_some() { EXIT_OTHER } else { EXIT_OK });
    }
    if let Some(svg) = &args.plot {
        let title = format!("{name}: {} states by depth ({} metric)", table.states(), parsed.puzzle.metric);
        let (bars, width) = slidesolve::plot::per_bar(&table.layers);
        // The error names the file.
        slidesolve::plot::bar_chart(svg, &title, ("depth", "states"), &bars, width)?;
    }
    // The count runs after the search's structures are freed, beside the table alone.
    let mut counted = |peak_bytes: u64| {
        let beside = peak_bytes.saturating_add(table.bytes());
        table.stats.peak_bytes = table.stats.peak_bytes.max(beside);
    };
    let components = match args.components {
        true => match slidesolve::enumerate::components::components(&parsed.puzzle, &limits) {
            Ok((c, peak_bytes)) => {
                counted(peak_bytes);
                Some(Ok(c))
            }
            Err(e @ ComponentsError::Stopped { peak_bytes, .. }) => {
                counted(peak_bytes);
                Some(Err(e.to_string()))
            }
            Err(e) => {
                // Refused as bad input, the run leaves none of the files it wrote.
                for path in [&args.out, &args.plot].into_iter().flatten() {
                    let _ = std::fs::remove_file(path);
                }
                return Ok(bad_input(format!("{name}: {e}")));
            }
        },
        false => None,
    };
    let components_stopped = matches!(components, Some(Err(_)));
    let view = output::EnumerateView { name: &name, parsed: &parsed, table: &table, components: components.as_ref() };
    if args.json {
        outln!("{}", view.json())?;
    } else {
        out!("{}", view.text())?;
    }
    Ok(if table.stopped.is_some() || components_stopped { EXIT_OTHER } else { EXIT_OK })
}

/// Reads the puzzle file (within the budget `max_memory`), or builds the `--tiles` puzzle from its
/// `--goal`, with the name the output gives it; a puzzle that does not load is reported ([`bad_input`]) and the exit code is
/// the error.
fn load_puzzle(args: &EnumerateArgs, max_memory: Option<u64>) -> Result<(Parsed, String), Result<i32>> {
    match (&args.file, args.tiles) {
        (Some(file), _) => {
            let puzzle = PuzzleArgs { file: file.clone(), overrides: args.overrides.clone() };
            match load(&puzzle, max_memory, Purpose::Enumerate) {
                Ok(p) => Ok((p, file.display().to_string())),
                Err(e) => Err(report_load_error(e)),
            }
        }
        (None, Some((rows, cols))) => {
            let start = format::tiles::TileLayout::blank_last(rows, cols);
            let goal = match &args.overrides.goal {
                Some(g) => {
                    format::tiles::parse_goal(g, &start, 0).map_err(|e| Ok(bad_input(format!("--goal: {e}"))))?
                }
                None => start.clone(),
            };
            let mut parsed =
                Parsed { puzzle: format::tiles::puzzle_from(&goal, &goal), warnings: Vec::new(), expected: None };
            args.overrides.apply(&mut parsed);
            Ok((parsed, format!("{rows}x{cols} tiles")))
        }
        (None, None) => unreachable!("clap requires FILE or --tiles"),
    }
}

/// Creates the layer table's CSV at `out` with its header line; the error says why it cannot be
/// written.
fn open_layer_csv(out: &Path) -> Result<File, String> {
    check_out(out, "--out", "the layer table CSV")?;
    let cannot_write = |e: std::io::Error| format!("cannot write {}: {e}", out.display());
    let mut file = File::create(out).map_err(cannot_write)?;
    file.write_all(b"depth,states\n").map_err(cannot_write)?;
    Ok(file)
}
