//! `slidesolve family`: every layout of a family of piece sets, its components and distances.

use super::args::{ByteSize, bytes_of, memory_budget, parse_bytes, parse_seconds, parse_threads};
use super::stdio::{errln, out, outln};
use super::{EXIT_OK, EXIT_OTHER, bad_input};
use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use slidesolve::family::csv::{RunSettings, Writer, naming, sync_data};
use slidesolve::family::{self, FamilyError, Summary, spec};
use slidesolve::search::with_threads;
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `family`.
#[derive(Args)]
pub struct FamilyArgs {
    /// The family spec file.
    spec: PathBuf,
    /// Write `classes.csv` and `components.csv` (not with --no-components) into this directory, a
    /// class at a time, and `run.json`, the settings the run started with.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Do not write DIR/components.csv (only classes.csv and run.json), for families whose
    /// component rows would not fit on disk.
    #[arg(long, requires = "out", conflicts_with = "draw_hardest")]
    no_components: bool,
    /// Skip the classes already in DIR/classes.csv (continue a run that was stopped).
    #[arg(long, requires = "out", conflicts_with = "force")]
    resume: bool,
    /// Start over, overwriting the results files in DIR and the --db file an earlier run left.
    #[arg(long)]
    force: bool,
    /// Write the database lines of Fogleman's rule (`<moves> <layout> <size>`) to FILE, a class at
    /// a time, and enumerate only the layouts the rule's invariants allow.
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// The budget of the tables of all classes analysed at once (e.g. 512M, 8G): each class gets
    /// an equal share (BYTES / threads), and one that needs more runs again alone with all of it.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    max_memory: Option<ByteSize>,
    /// Stop after this many seconds (a decimal number from 0 to 1e9): the classes finished by then
    /// are written, and `--resume` goes on from the first unfinished one.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    timeout: Option<Duration>,
    /// After the run, draw the K hardest layouts and their solutions (SVG) into DIR.
    #[arg(long, value_name = "K", requires = "out", value_parser = slidesolve::render::gallery::parse_count)]
    draw_hardest: Option<usize>,
    /// How components are found: `whole` (every layout of a class at once), `seeds` (one component
    /// at a time from the layouts where no piece can step up or left) or `auto` (seeds when every
    /// kind moves along one axis or not at all, else whole).
    #[arg(long, value_enum, default_value_t = MethodArg::Auto)]
    method: MethodArg,
    /// Analyse only the solvable components (with `seeds`, searched from goal layouts alone); every
    /// count and file then covers them. Implied by `--db`.
    #[arg(long)]
    solvable_only: bool,
    /// Worker threads, at most 1024 (default, or 0: one per core).
    #[arg(long, default_value_t = 0, value_parser = parse_threads)]
    threads: usize,
}

/// The values of `--method`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum MethodArg {
    Auto,
    Whole,
    Seeds,
}

/// What every class is analysed with: the budget, the database rule, the method, the components
/// and the deadline (`--timeout` after `started`).
fn settings(args: &FamilyArgs, spec: &spec::FamilySpec, memory_limit: u64, started: Instant) -> family::Settings {
    let method = match args.method {
        MethodArg::Auto => family::Method::auto(spec),
        MethodArg::Whole => family::Method::Whole,
        MethodArg::Seeds => family::Method::Seeds,
    };
    let database = args.db.is_some();
    // Rows are only written to DIR/components.csv; their layouts are made for nothing else.
    let layouts = args.out.is_some() && !args.no_components;
    let (solvable_only, deadline) = (args.solvable_only || database, deadline(args, started));
    family::Settings { memory_limit, database, method, solvable_only, layouts, deadline }
}

/// The instant `--timeout` after `started`, when the run stops.
fn deadline(args: &FamilyArgs, started: Instant) -> Option<Instant> {
    args.timeout.map(|t| started + t)
}

/// What `--json` prints.
#[derive(serde::Serialize)]
struct Report<'a> {
    spec: String,
    metric: String,
    #[serde(flatten)]
    summary: &'a Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    database_lines: Option<u64>,
    solvable_only: bool,
    /// Why the run ended before its last class (`None`: every class is done).
    stopped: Option<String>,
    wall_s: f64,
    peak_bytes: u64,
    ranks: usize,
}

/// The text and the spec of `args`, checked for the database rule when `--db` asks for it; the
/// error names the file.
fn load(args: &FamilyArgs) -> Result<(String, spec::FamilySpec), String> {
    let name = args.spec.display();
    let bytes =
        slidesolve::format::read_file(&args.spec, bytes_of(&args.max_memory)).map_err(|e| format!("{name}: {e}"))?;
    let text = slidesolve::format::decode_text(&bytes).map_err(|e| format!("{name}: {e}"))?;
    let spec = spec::parse(text).map_err(|e| format!("{name}: {e}"))?;
    family::database_primary(&spec, args.db.is_some()).map_err(|e| format!("{name}: {e}"))?;
    Ok((text.to_string(), spec))
}

/// Makes the `--out` directory (and its parents), refusing one that exists and is not a directory
/// or cannot be made, then refuses a `--db` FILE that is a directory or lies in a directory that
/// does not exist ([`super::check_out`]): output paths that cannot be written, before any work.
fn make_outputs(args: &FamilyArgs) -> Result<(), String> {
    if let Some(dir) = &args.out {
        if dir.exists() && !dir.is_dir() {
            return Err(format!("{} is not a directory; --out takes the directory of the results", dir.display()));
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
    }
    args.db.as_ref().map_or(Ok(()), |path| super::check_out(path, "--db", "the database file"))
}

/// Refuses, before anything is written, a run that would start over on an earlier run's results
/// (`classes.csv` or `components.csv` in the `--out` directory, or the `--db` file) without
/// `--resume` or `--force` ([`super::existing_results`]).
fn check_fresh(args: &FamilyArgs) -> Result<(), String> {
    let in_out = args.out.iter().flat_map(|dir| ["classes.csv", "components.csv"].map(|file| dir.join(file)));
    for path in in_out.chain(args.db.clone()) {
        super::existing_results(&path, args.resume, args.force, args.out.is_some())?;
    }
    Ok(())
}

/// Runs `family` and returns the exit code.
pub fn run(args: FamilyArgs) -> Result<i32> {
    // Rank 0 of several: the other ranks wait at the gate until the checks below have passed.
    #[cfg(feature = "mpi")]
    let mut gate = match slidesolve::distributed::queue::role() {
        slidesolve::distributed::queue::Role::Work(mpi) => return Ok(work(&args, mpi)),
        slidesolve::distributed::queue::Role::Lead(gate) => gate,
    };
    memory_budget(args.max_memory.as_ref(), 1);
    let name = args.spec.display().to_string();
    let (spec_text, spec) = match load(&args) {
        Ok(loaded) => loaded,
        Err(message) => return Ok(bad_input(message)),
    };
    if let Err(message) = make_outputs(&args).and_then(|()| check_fresh(&args)) {
        return Ok(bad_input(message));
    }
    let started = Instant::now();
    let limit = slidesolve::memory::limit(bytes_of(&args.max_memory));
    let mut summary = Summary::default();
    let mut done = HashSet::new();
    let database = args.db.is_some();
    let solvable_only = args.solvable_only || database;
    let run_settings = RunSettings { spec: spec_text, database, solvable_only, components: !args.no_components };
    // The database lines the finished classes wrote (to keep in the --db file on --resume).
    let mut lines_done = 0;
    let mut writer = match &args.out {
        Some(dir) => {
            let database_lines = match (&args.db, args.resume) {
                (Some(path), true) => Some(whole_lines(path).with_context(|| format!("{}", path.display()))?),
                _ => None,
            };
            let (writer, finished) = match Writer::open(dir, args.resume, &run_settings, database_lines) {
                Ok(opened) => opened,
                Err(e @ FamilyError::Resume(_)) => return Ok(bad_input(e)),
                Err(e) => return Ok(bad_input(format!("{}: {e}", dir.display()))),
            };
            if finished.dropped > 0 {
                errln!(
                    "warning: {}: the last {} classes in classes.csv lack some of their component rows or \
                     database lines (the files were cut at different places, as by a power failure); they run again",
                    dir.display(),
                    finished.dropped
                );
            }
            for t in finished.classes {
                summary.add(&t);
                lines_done += t.database_lines.unwrap_or(0);
                done.insert(family::class_key(&t.class));
            }
            Some(writer)
        }
        None => None,
    };
    // Output files that cannot be written are refused as bad input, before any class is listed.
    let mut db = match &args.db {
        Some(path) => match open_db(path, args.resume.then_some(lines_done), spec.board.rows * spec.board.cols) {
            Ok(file) => Some(file),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Ok(bad_input(format!("cannot resume: {}: {e}", path.display())));
            }
            Err(e) => return Ok(bad_input(format!("cannot write {}: {e}", path.display()))),
        },
        None => None,
    };
    // A deadline that passes while the classes are listed, or matched against those an earlier
    // sitting finished, ends the run as one passing in a class.
    let (all, listed) = match family::classes(&spec, limit, deadline(&args, started)) {
        Ok(all) => (all, Ok(())),
        Err(e @ FamilyError::Unlisted(_)) => (Vec::new(), Err(e)),
        Err(e) => return Ok(bad_input(format!("{}: {e}", args.spec.display()))),
    };
    let (todo, listed) = match done.is_empty() {
        true => ((0..all.len()).collect(), listed),
        false => match family::unfinished(&spec, &all, &done, deadline(&args, started)) {
            Ok(todo) => (todo, listed),
            Err(e) => (Vec::new(), Err(e)),
        },
    };
    let mut database_lines = db.is_some().then_some(lines_done);
    let bar = progress(todo.len() as u64);
    let mut synced = Instant::now();
    let mut on_class = |_: usize, result: family::ClassResult| -> Result<(), FamilyError> {
        // The lines first: a class is done once its classes.csv row is written.
        if let (Some(file), Some(n), Some(lines), Some(path)) =
            (&mut db, &mut database_lines, &result.database, &args.db)
        {
            let mut write = || -> std::io::Result<()> {
                for line in lines {
                    writeln!(file, "{line}")?;
                }
                file.flush()
            };
            write().map_err(|e| naming(path, e))?;
            *n += lines.len() as u64;
        }
        if let Some(w) = &mut writer {
            w.write(&result)?;
        }
        if synced.elapsed() >= SYNC_EVERY {
            sync(&mut db, args.db.as_deref(), &writer)?;
            synced = Instant::now();
        }
        summary.add(&result.totals());
        if let Some(bar) = &bar {
            bar.inc(1);
            bar.set_message(result.class);
        }
        Ok(())
    };
    #[cfg(feature = "mpi")]
    if let Some(gate) = &mut gate
        && !gate.open()
    {
        return Ok(bad_input("another rank could not read the spec (is the file system shared?)"));
    }
    #[cfg(feature = "mpi")]
    let ran = match gate {
        Some(gate) => {
            let settings = settings(&args, &spec, limit, started);
            let jobs = slidesolve::distributed::family::Classes::new(&spec, &all, settings);
            with_threads(args.threads, || slidesolve::distributed::family::lead(gate, &jobs, &todo, &mut on_class))
        }
        None => local(&args, &spec, &all, &todo, (limit, started), &mut on_class),
    };
    #[cfg(not(feature = "mpi"))]
    let ran = local(&args, &spec, &all, &todo, (limit, started), &mut on_class);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    sync(&mut db, args.db.as_deref(), &writer)?;
    let family::Ran { outcome, peak_bytes } = ran;
    // A class over the budget once classes are finished (in this sitting or an earlier one) stops
    // the run as the other limits do; one before any is finished means a budget too small to start.
    let started_work = summary != Summary::default();
    let stopped = match listed.and(outcome) {
        Ok(()) => None,
        Err(e @ (FamilyError::Stopped(..) | FamilyError::Unlisted(_))) => Some(e.to_string()),
        Err(e @ FamilyError::Memory(..)) if started_work => Some(e.to_string()),
        Err(e @ FamilyError::Io(_)) => return Err(e.into()),
        Err(e) => return Ok(bad_input(format!("{name}: {e}"))),
    };
    let report = Report {
        spec: name,
        metric: spec.metric.to_string(),
        summary: &summary,
        database_lines,
        solvable_only: args.solvable_only || args.db.is_some(),
        stopped,
        wall_s: started.elapsed().as_secs_f64(),
        peak_bytes,
        ranks: slidesolve::distributed::world().size(),
    };
    if args.json {
        outln!("{}", serde_json::to_string(&report)?)?;
    } else {
        out!("{}", text(&report))?;
    }
    if report.stopped.is_some() {
        return Ok(EXIT_OTHER);
    }
    let drawn = match (args.draw_hardest, &args.out) {
        (Some(k), Some(dir)) => {
            with_threads(args.threads, || super::gallery::hardest(&spec, dir, k, limit, args.json))?
        }
        _ => true,
    };
    Ok(if drawn { EXIT_OK } else { EXIT_OTHER })
}

/// The classes at the positions `todo` of `all`, analysed in this process within `limit` bytes and
/// the deadline `--timeout` after `started`.
fn local(
    args: &FamilyArgs,
    spec: &spec::FamilySpec,
    all: &[family::Class],
    todo: &[usize],
    (limit, started): (u64, Instant),
    on_class: &mut family::OnClass,
) -> family::Ran {
    let classes: Vec<_> = todo.iter().map(|&i| all[i].clone()).collect();
    with_threads(args.threads, || family::run(spec, &classes, settings(args, spec, limit, started), on_class))
}

/// A rank other than 0 of an MPI run: reads the spec and analyses the classes rank 0 hands it;
/// rank 0 writes the results and reports.
#[cfg(feature = "mpi")]
fn work(args: &FamilyArgs, mpi: &slidesolve::distributed::queue::Mpi) -> i32 {
    use slidesolve::distributed::{family::Classes, queue};
    let spec = load(args).ok().map(|(_, spec)| spec);
    let (limit, started) = (slidesolve::memory::limit(bytes_of(&args.max_memory)), Instant::now());
    let all = spec.as_ref().and_then(|spec| family::classes(spec, limit, deadline(args, started)).ok());
    let jobs = spec
        .as_ref()
        .zip(all.as_deref())
        .map(|(spec, all)| Classes::new(spec, all, settings(args, spec, limit, started)));
    with_threads(args.threads, || queue::follow(mpi, jobs.as_ref()));
    EXIT_OK
}

/// How often the finished classes' rows are put on disk: a sync a class made runs of many small
/// classes (a 3-piece Bickford spec: 4.3 times as long) wait on the disk most of their time.
const SYNC_EVERY: Duration = Duration::from_secs(1);

/// Puts the database lines, then the component and class rows written so far on disk, in that
/// order, so that a class a power failure leaves in `classes.csv` has its lines and rows.
fn sync(
    db: &mut Option<std::io::BufWriter<std::fs::File>>,
    db_path: Option<&std::path::Path>,
    writer: &Option<Writer>,
) -> std::io::Result<()> {
    if let (Some(file), Some(path)) = (db, db_path) {
        file.flush().and_then(|()| sync_data(file.get_ref())).map_err(|e| naming(path, e))?;
    }
    writer.as_ref().map_or(Ok(()), Writer::sync)
}

/// The whole lines of the database file at `path`; 0 when there is no such file.
fn whole_lines(path: &std::path::Path) -> std::io::Result<u64> {
    match std::fs::File::open(path) {
        Ok(file) => Ok(slidesolve::family::csv::whole_lines(&file, u64::MAX)?.0),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(e),
    }
}

/// The database file, created; or, resuming after finished classes that wrote `Some(lines)`, cut
/// after those lines (the lines of a class a kill interrupted go) and appended to. Fewer lines
/// than that, or one that is not a database line of a board of `cells` cells (another file given
/// by mistake), is [`std::io::ErrorKind::InvalidData`].
fn open_db(
    path: &std::path::Path,
    resume: Option<u64>,
    cells: usize,
) -> std::io::Result<std::io::BufWriter<std::fs::File>> {
    use std::io::BufRead;
    let invalid = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidData, why);
    let mut file =
        std::fs::OpenOptions::new().create(true).read(true).write(true).truncate(resume.is_none()).open(path)?;
    if let Some(lines) = resume {
        let (kept, bytes) = slidesolve::family::csv::whole_lines(&file, lines)?;
        if kept < lines {
            return Err(invalid(format!(
                "holds {kept} whole lines, the classes finished in classes.csv wrote {lines}"
            )));
        }
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(0))?;
        let mut reader = std::io::BufReader::new(std::io::Read::take(&file, bytes));
        let (mut line, mut number) = (String::new(), 0);
        while reader.read_line(&mut line)? > 0 {
            number += 1;
            let text = line.trim_end_matches('\n');
            if let Err(why) = slidesolve::family::db::check_line(text, cells) {
                return Err(invalid(format!("line {number} is not a database line of this family ({why}): '{text}'")));
            }
            line.clear();
        }
        file.set_len(bytes)?;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0))?;
    }
    Ok(std::io::BufWriter::new(file))
}

/// A bar over the classes on a terminal.
fn progress(total: u64) -> Option<ProgressBar> {
    std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} classes  {msg}  ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar
    })
}

/// The text summary.
fn text(r: &Report) -> String {
    let s = r.summary;
    let hardest = match s.hardest_moves.zip(s.hardest_class.as_ref()) {
        Some((d, class)) => format!("{d} moves (class {class})"),
        None => "none (no goal layout)".to_string(),
    };
    format!(
        "family: {} ({} metric)\nclasses: {} with layouts, {} without\nlayouts: {}{}\ncomponents: {} ({} solvable)\n\
         largest component: {}{}\nhardest: {hardest}\n{}{}time: {:.2} s{}, held at most {}\n",
        r.spec,
        r.metric,
        s.classes,
        s.empty_classes,
        s.layouts,
        if r.solvable_only { " (in solvable components)" } else { "" },
        s.components,
        s.solvable_components,
        s.largest_component,
        s.largest_class.as_ref().map_or(String::new(), |class| format!(" (class {class})")),
        r.database_lines.map_or(String::new(), |n| format!("database lines: {n}\n")),
        r.stopped
            .as_ref()
            .map_or(String::new(), |why| format!("stopped early: {why}; the counts cover the classes before it\n")),
        r.wall_s,
        if r.ranks > 1 { format!(" on {} ranks", r.ranks) } else { String::new() },
        slidesolve::memory::human(r.peak_bytes),
    )
}
