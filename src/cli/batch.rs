//! `slidesolve batch`: solves a whole corpus into a results CSV.

use super::args::{Overrides, SearchArgs, bytes_of, memory_budget};
use super::stdio::{errln, out, outln};
use super::{EXIT_OK, EXIT_OTHER, bad_input, check_out};
use anyhow::{Context, Result};
use clap::Args;
use slidesolve::batch::corpus::{self, CorpusOptions, Entry, Shard};
use slidesolve::batch::metadata::{self, GivenIds, Metadata, Resumed, Sitting};
use slidesolve::batch::progress::{Progress, ProgressMode};
use slidesolve::batch::record::{for_each_row, read_rows};
use slidesolve::batch::resume::{self, Recorded};
use slidesolve::batch::run::BatchOptions;
use slidesolve::batch::summary::Tally;
use slidesolve::format::ParseOptions;
use slidesolve::plural::Count;
use slidesolve::search::Workers;
use slidesolve::solve::Algo;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `batch`.
#[derive(Args)]
pub struct BatchArgs {
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
    /// After the run, draw the K deepest solutions (animated SVG) into CSV-STEM-deepest/.
    #[arg(long, value_name = "K", value_parser = slidesolve::render::gallery::parse_count)]
    draw_deepest: Option<usize>,
}

/// Refuses a results CSV that exists and is not a regular file (`/dev/null`, a FIFO, a terminal):
/// the rows are read back from it for the summary and kept in it for `--resume`, and its record
/// would be written beside it (`/dev/null.json`).
fn regular_out(out: &Path) -> Result<(), String> {
    match std::fs::metadata(out) {
        Ok(m) if !m.is_file() => Err(format!(
            "{} is not a regular file; --out takes a results CSV that the run reads back and can resume",
            out.display()
        )),
        _ => Ok(()),
    }
}

/// Runs `batch` and returns the exit code.
pub fn run(args: BatchArgs) -> Result<i32> {
    // Rank 0 of several: the other ranks wait at the gate until the checks below have passed.
    #[cfg(feature = "mpi")]
    let mut gate = match slidesolve::distributed::queue::role() {
        slidesolve::distributed::queue::Role::Work(mpi) => return Ok(work(&args, mpi)),
        slidesolve::distributed::queue::Role::Lead(gate) => gate,
    };
    let summary_ready = match &args.summary_json {
        Some(path) => check_out(path, "--summary-json", "the summary's JSON file"),
        None => Ok(()),
    };
    let out_ready = check_out(&args.out, "--out", "the results CSV").and_then(|()| regular_out(&args.out));
    if let Err(message) = out_ready.and(summary_ready) {
        return Ok(bad_input(message));
    }
    // The threads are started first, and the run is set up and reported with those that started.
    let pool = Workers::start(worker_count(&args));
    let options = batch_options(&args, pool.threads());
    let entries = match corpus::load(&args.inputs, &corpus_options(&args, &options)) {
        Ok(e) => e,
        Err(e) => return Ok(bad_input(e)),
    };
    let corpus_puzzles = entries.len();
    let selected = select(entries, args.shard);
    let out = &args.out;
    if let Err(message) = super::existing_results(out, args.resume, args.force, true) {
        return Ok(bad_input(message));
    }
    let mut done = std::collections::HashSet::new();
    if args.resume {
        let read = for_each_row(out, |row| {
            done.try_reserve(1)?;
            done.insert(row.id);
            Ok(())
        });
        if let Err(e) = read {
            return Ok(bad_input(format!("cannot resume: {e}")));
        }
    }
    // A resumed file's rows must all come from the same settings and the same puzzles: refuse
    // others before writing.
    let meta_path = metadata::path_for(out);
    let settings = settings(&args);
    let shard = args.shard.map(|s| s.to_string());
    let ids = GivenIds::runs(selected.iter().map(|e| (&*e.source, e.line.map(|l| l.get() as u64))));
    let this_run = resume::Run { settings: &settings, shard: shard.as_deref(), corpus_puzzles, ids: &ids };
    let unchecked = || {
        errln!(
            "warning: {} keeps no settings (missing, unreadable or from an older build): cannot check \
             that the rows already in {} were computed as this run computes them",
            meta_path.display(),
            out.display()
        )
    };
    let recorded = if args.resume {
        let default_heuristic = || metadata::default_heuristic_of(&selected);
        match resume::recorded(&meta_path, &this_run, !done.is_empty(), default_heuristic) {
            Err(why) => {
                return Ok(bad_input(format!(
                    "cannot resume: {}: {why}; resume it as it was started, or start over with --force or another --out",
                    meta_path.display()
                )));
            }
            Ok(Recorded::Same(record)) => Some(record),
            Ok(Recorded::NoSettings(record)) => {
                unchecked();
                Some(record)
            }
            Ok(Recorded::Missing) => {
                unchecked();
                None
            }
            Ok(Recorded::NoRows(why)) => {
                if let Some(why) = why {
                    errln!(
                        "warning: {}: {why}; {} holds no row of it, so this run starts it over",
                        meta_path.display(),
                        out.display()
                    );
                }
                None
            }
        }
    } else {
        None
    };
    // Positions in `selected`, not copies of its entries: a corpus of millions is held once.
    let todo: Vec<usize> = (0..selected.len()).filter(|&i| !done.contains(&selected[i].id())).collect();
    let resumed = !done.is_empty();
    drop(done);
    #[cfg(feature = "mpi")]
    if let Some(gate) = &mut gate
        && !gate.open()
    {
        return Ok(bad_input("another rank could not read the corpus (is the file system shared?)"));
    }

    let threads = options.threads;
    let sitting = Sitting::now(std::env::args().collect(), threads);
    let workers = match sitting.ranks {
        1 => format!("{threads} threads"),
        ranks => format!("{ranks} ranks, {threads} threads on rank 0"),
    };
    let mut meta = match recorded {
        Some(mut m) => {
            m.resumed.push(Resumed::Sitting(sitting));
            m
        }
        None => Metadata::now(sitting),
    };
    // A record's settings describe its rows (those of this run compute them alike), as written.
    meta.settings.get_or_insert(settings);
    meta.shard = shard;
    meta.corpus_puzzles = corpus_puzzles;
    meta.ids = ids;
    // The CSV the user named first, then its record: either that cannot be written is refused as
    // bad input.
    let writer = match resume::start(out, args.resume, &meta_path, &meta) {
        Ok(writer) => std::sync::Mutex::new(writer),
        Err(e) => return Ok(bad_input(e)),
    };
    let mode = if args.quiet { ProgressMode::Quiet } else { ProgressMode::Auto };
    if !args.quiet && resumed {
        let all = Count(selected.len(), "puzzle");
        errln!("resuming: {} of {all} already in {}", selected.len() - todo.len(), out.display());
    }
    let progress = Progress::new(todo.len() as u64, mode);
    let clock = Instant::now();
    let sink = |row| {
        writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner).write(&row)?;
        progress.record(&row);
        Ok::<(), std::io::Error>(())
    };
    #[cfg(feature = "mpi")]
    if let Some(gate) = gate {
        let puzzles = slidesolve::distributed::batch::Puzzles { entries: &selected, options: &options };
        pool.run(|| gate.lead(&puzzles, &todo, |_, row| sink(row)))
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    if !slidesolve::distributed::is_cluster() {
        pool.run(|| slidesolve::batch::run::run(&selected, &todo, &options, sink))
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    progress.finish();
    let elapsed = clock.elapsed().as_secs_f64();

    // The rows are read back a row at a time: a corpus of millions is never held whole.
    let mut tally = Tally::default();
    for_each_row(out, |row| Ok(tally.add(&row)?))?;
    let summary = tally.finish();
    meta.finish(&summary);
    meta.write(&meta_path)?;
    if let Some(path) = &args.summary_json {
        let json = serde_json::to_string_pretty(&summary)? + "\n";
        super::write_file(path, &json)?;
    }
    outln!(
        "this run: {} in {elapsed:.2} s ({:.1} puzzles/s, {workers}); results in {}",
        Count(todo.len(), "puzzle"),
        todo.len() as f64 / elapsed.max(1e-9),
        out.display()
    )?;
    out!("{summary}")?;
    let drawn = match args.draw_deepest {
        Some(k) => super::gallery::deepest(&read_rows(out)?, &selected, k, out)?,
        None => true,
    };
    Ok(if summary.mismatches.is_empty() && drawn { EXIT_OK } else { EXIT_OTHER })
}

/// A rank other than 0 of an MPI run: reads the corpus and solves what rank 0 hands it; rank 0
/// writes the results and reports.
#[cfg(feature = "mpi")]
fn work(args: &BatchArgs, mpi: &slidesolve::distributed::queue::Mpi) -> i32 {
    use slidesolve::distributed::{batch::Puzzles, queue};
    let pool = Workers::start(worker_count(args));
    let options = batch_options(args, pool.threads());
    let entries = corpus::load(&args.inputs, &corpus_options(args, &options)).ok().map(|e| select(e, args.shard));
    let puzzles = entries.as_deref().map(|entries| Puzzles { entries, options: &options });
    pool.run(|| queue::follow(mpi, puzzles.as_ref()));
    EXIT_OK
}

/// How the corpus files are read: each puzzle within the budget `options` gives it.
fn corpus_options(args: &BatchArgs, options: &BatchOptions) -> CorpusOptions {
    let overrides = &args.overrides;
    CorpusOptions {
        format: overrides.format,
        parse: ParseOptions {
            goal: overrides.goal.clone(),
            max_memory: options.solve.limits.max_memory,
            goal_optional: false,
        },
        metric: overrides.metric,
        distinct: overrides.distinct,
        outputs: [Some(args.out.clone()), args.summary_json.clone()].into_iter().flatten().collect(),
    }
}

/// The entries of the run's shard (all of them without `--shard`), in corpus order.
fn select(entries: Vec<Entry>, shard: Option<Shard>) -> Vec<Entry> {
    entries.into_iter().enumerate().filter(|(i, _)| shard.is_none_or(|s| s.takes(*i))).map(|(_, e)| e).collect()
}

/// The settings that decide the rows, by flag (see [`metadata::Settings`]):
/// every override and search setting given, and those with defaults at their value.
fn settings(args: &BatchArgs) -> metadata::Settings {
    let (given, search) = (&args.overrides, &args.search);
    [
        ("--format", given.format.map(|f| f.to_string())),
        ("--metric", given.metric.map(|m| m.to_string())),
        ("--goal", given.goal.clone()),
        ("--distinct", given.distinct.then(String::new)),
        ("--algo", Some(search.algo.to_string())),
        ("--heuristic", search.heuristic.map(|h| h.to_string())),
        ("--depth", (search.algo == Algo::Dfs).then(|| search.depth.to_string())),
        ("--pdb-partition", Some(search.pdb_partition.to_string())),
        ("--no-reflect", search.no_reflect.then(String::new)),
        ("--max-states", search.limits.max_states.map(|n| n.to_string())),
        ("--max-memory", bytes_of(&search.limits.max_memory).map(|n| n.to_string())),
        ("--timeout", search.limits.timeout.map(|t| t.as_secs_f64().to_string())),
        ("--no-verify", args.no_verify.then(String::new)),
    ]
    .into_iter()
    .filter_map(|(flag, value)| value.map(|v| (flag.to_string(), v)))
    .collect()
}

/// The address space a worker of a batch takes beside the program and the other workers, before
/// its puzzle's budget: its stack and the allocator's heap for it. Measured: one worker's batch of
/// 8-puzzle A* searches peaks at 70 MB of address space under `ulimit -v 128M`, two at 101 MB, and
/// two workers under 64 MiB abort on a failed small allocation whatever their budgets, while 96 MiB
/// holds two (`results/hardening/2026-11-28-stop53-id-runs.md`).
const WORKER_ADDRESS_SPACE: u64 = 48 << 20;

/// `threads` workers, or fewer under an address-space limit (`limit` bytes) that cannot hold them
/// ([`WORKER_ADDRESS_SPACE`] each), at least one.
fn workers_within(threads: usize, limit: Option<u64>) -> usize {
    let most = limit.map_or(usize::MAX, |bytes| usize::try_from(bytes / WORKER_ADDRESS_SPACE).unwrap_or(usize::MAX));
    threads.min(most).max(1)
}

/// The workers the run asks for: `--threads` (0: one per core), or fewer under an address-space
/// limit that cannot hold them ([`workers_within`], which a warning says).
fn worker_count(args: &BatchArgs) -> usize {
    let asked = match args.search.engine.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let limit = slidesolve::memory::address_space();
    let threads = workers_within(asked, limit);
    if threads < asked {
        let limit = slidesolve::memory::human(limit.unwrap_or(0));
        errln!(
            "warning: {limit} of address space (ulimit -v) holds {threads} of the {asked} workers asked; the batch runs {threads}"
        );
    }
    threads
}

/// How each puzzle of the run is read and solved, on `threads` workers.
fn batch_options(args: &BatchArgs, threads: usize) -> BatchOptions {
    let mut solve = args.search.options();
    // Up to one puzzle per thread runs at once: without --max-memory they share the default budget
    // instead of each taking all of it, and a --max-memory is lowered to their share of what the
    // process can have, so that the puzzles together cannot exhaust it.
    solve.limits.max_memory = Some(
        memory_budget(args.search.limits.max_memory.as_ref(), threads)
            .unwrap_or_else(|| slidesolve::memory::default_limit() / threads as u64),
    );
    solve.verify = !args.no_verify;
    solve.pdb.progress = !args.quiet && slidesolve::distributed::is_leader();
    BatchOptions { solve, timeout: args.search.limits.timeout, threads }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_space_limit_caps_the_workers() {
        let mib = 1u64 << 20;
        assert_eq!(workers_within(2, Some(64 * mib)), 1);
        assert_eq!(workers_within(2, Some(96 * mib)), 2);
        assert_eq!(workers_within(16, Some(200 * mib)), 4);
        assert_eq!(workers_within(3, Some(10)), 1);
        assert_eq!(workers_within(4, None), 4);
    }
}
