//! Limits hold: a state or memory limit stops a search (and an enumeration) inside the level that
//! crosses it, close to the limit; a deadline already past stops every search at once, the
//! pattern-database build included; stopped depth-first searches report the nodes they expanded.

use slidesolve::enumerate::{TableEngine, enumerate, table};
use slidesolve::format::{self, ParseOptions, Parsed};
use slidesolve::heuristic::HeuristicKind;
use slidesolve::heuristic::pdb::PdbOptions;
use slidesolve::search::frontier::EngineOptions;
use slidesolve::search::visited::Backend;
use slidesolve::search::{LimitHit, Limits, with_threads};
use slidesolve::solve::{Algo, Report, SolveError, SolveOptions, Status, solve};
use std::path::Path;
use std::time::Instant;

/// A 15-puzzle about 50 moves from its goal: BFS passes a million states long before solving it.
const HARD_15: &str = "size: 4x4\n15 14 13 12 11 10 9 8 7 6 5 4 3 1 2 0\n";

/// CS 351, 4 × 256 cells, 8 single-cell pieces; the goal piece moves only vertically, so it never
/// reaches the last column. Level 2 holds 571,564 states, made from ~1,100 children a parent.
const HUGE_LEVEL: &str =
    "4 256\n1 1 1 1 v\n2 2 1 1 b\n3 3 1 1 b\n4 4 1 1 b\n1 9 1 1 b\n2 19 1 1 b\n3 29 1 1 b\n4 39 1 1 b\n";

fn parse(name: &str, text: &str) -> Parsed {
    let fmt = format::detect(Some(Path::new(name)), text);
    format::parse(fmt, text, &ParseOptions::default()).unwrap()
}

fn solve_within(parsed: &Parsed, algo: Algo, limits: Limits, backend: Backend, threads: usize) -> Report {
    let options = SolveOptions {
        algo,
        limits,
        engine: EngineOptions { backend, ..EngineOptions::default() },
        ..SolveOptions::default()
    };
    with_threads(threads, || solve(&parsed.puzzle, &options)).unwrap()
}

fn states(n: u64) -> Limits {
    Limits { max_states: Some(n), ..Limits::default() }
}

fn past() -> Limits {
    Limits { deadline: Some(Instant::now()), ..Limits::default() }
}

/// Stopped by the state limit, with more than `n` states stored and at most 5 % more.
fn assert_stopped_near(report: &Report, n: u64, what: &str) {
    assert_eq!(report.status, Status::Limit, "{what}: {:?}", report.message);
    let stored = report.stats.stored;
    assert!(stored > n && stored * 100 <= n * 105, "{what}: stored {stored} for a limit of {n}");
    assert_eq!(report.message.as_deref(), Some(format!("state limit reached after {stored} states").as_str()));
}

#[test]
fn a_state_limit_stops_bfs_inside_the_level_that_crosses_it() {
    let n = 400_000;
    for (name, text) in [("hard.tiles", HARD_15), ("huge.data", HUGE_LEVEL)] {
        let parsed = parse(name, text);
        for backend in [Backend::Sharded, Backend::DashMap] {
            for threads in [1, 2, 8] {
                let report = solve_within(&parsed, Algo::Bfs, states(n), backend, threads);
                assert_stopped_near(&report, n, &format!("{name}, {backend}, {threads} threads"));
            }
        }
    }
}

#[test]
fn a_state_limit_stops_the_other_searches_that_store_states() {
    let n = 300_000;
    let parsed = parse("hard.tiles", HARD_15);
    for algo in [Algo::Bidir, Algo::Reference, Algo::Astar, Algo::Greedy] {
        let report = solve_within(&parsed, algo, states(n), Backend::Sharded, 2);
        if algo == Algo::Greedy {
            // Greedy search finds some solution long before 300,000 states.
            assert_eq!(report.status, Status::Solved);
            continue;
        }
        assert_stopped_near(&report, n, &algo.to_string());
    }
    // One parent adds about 1,100 states here; the reference BFS checks before every parent.
    let huge = parse("huge.data", HUGE_LEVEL);
    assert_stopped_near(&solve_within(&huge, Algo::Reference, states(n), Backend::Sharded, 1), n, "reference");
}

#[test]
fn a_state_limit_stops_an_enumeration_inside_a_level() {
    let n = 250_000;
    let parsed = parse("huge.data", HUGE_LEVEL);
    let e = slidesolve::domain::with_domain(&parsed.puzzle, u64::MAX, Enumerate(states(n))).unwrap();
    assert_eq!(e.0, Some(LimitHit::States));
    // Levels 0 and 1 complete (1 + 1,115 states); level 2 stopped at about n states.
    assert_eq!(e.1, vec![1, 1115]);
    assert!(e.2 > n && e.2 * 100 <= n * 105, "stored {}", e.2);
}

/// Enumerates a domain within limits: the limit hit, the complete layers and the states stored.
struct Enumerate(Limits);

impl slidesolve::domain::DomainTask for Enumerate {
    type Output = (Option<LimitHit>, Vec<u64>, u64);
    fn run<D: slidesolve::domain::Domain>(self, domain: &D) -> Self::Output {
        let e = with_threads(2, || enumerate(domain, &self.0, EngineOptions::default(), &mut |_, _| {}));
        (e.stopped, e.layers, e.stats.stored)
    }
}

#[test]
fn a_memory_limit_bounds_every_byte_the_frontier_engine_holds() {
    let budget = 24 << 20;
    let limits = Limits { max_memory: Some(budget), ..Limits::default() };
    for (name, text) in [("hard.tiles", HARD_15), ("huge.data", HUGE_LEVEL)] {
        let parsed = parse(name, text);
        for (algo, threads) in [(Algo::Bfs, 1), (Algo::Bfs, 2), (Algo::Bfs, 8), (Algo::Bidir, 2), (Algo::Reference, 1)]
        {
            if algo == Algo::Bidir && name == "huge.data" {
                continue;
            }
            let report = solve_within(&parsed, algo, limits.clone(), Backend::Sharded, threads);
            assert_eq!(report.status, Status::Limit, "{name} {algo}");
            assert!(report.message.as_deref().unwrap().starts_with("memory limit reached after "));
            let peak = report.stats.peak_bytes;
            assert!(peak <= budget && peak >= budget / 8, "{name} {algo} {threads}: peak {peak}");
        }
    }
}

#[test]
fn a_level_whose_parallel_build_is_over_the_memory_limit_is_built_in_one_chunk() {
    // unit-rush-5x5 peaks at 15.0 MB on one thread; two threads' buffers of candidates take about
    // twice that, and used to stop at 158,318 states under this budget.
    let text = std::fs::read_to_string("corpora/bench/unit-rush-5x5.grid").unwrap();
    let parsed = parse("unit-rush-5x5.grid", &text);
    let limits = Limits { max_memory: Some(20 << 20), ..Limits::default() };
    let run = |threads| {
        with_threads(threads, || {
            table(&parsed.puzzle, &limits, EngineOptions::default(), 1, TableEngine::Frontier, &mut |_, _| {})
        })
        .unwrap()
    };
    let one = run(1);
    assert_eq!((one.stopped, one.states()), (None, 2_130_243));
    for threads in [2, 8] {
        let t = run(threads);
        assert_eq!((t.stopped, &t.layers, &t.farthest), (None, &one.layers, &one.farthest), "{threads} threads");
        assert!(t.stats.peak_bytes <= 20 << 20, "{threads} threads: {}", t.stats.peak_bytes);
    }
}

#[test]
fn a_state_limit_stops_at_the_same_point_on_any_number_of_threads() {
    // klotski-5x5's first 32 levels hold 1,040,745 states, 33 hold 1,231,647. Two threads' chunks
    // find level 31's states more than once, and their candidates used to pass the limit before
    // the level's distinct states did: they kept 31 levels where one thread keeps 32.
    let text = std::fs::read_to_string("corpora/bench/klotski-5x5.grid").unwrap();
    let parsed = parse("klotski-5x5.grid", &text);
    let limits = states(1_100_000);
    let run = |threads, backend| {
        let options = EngineOptions { backend, ..EngineOptions::default() };
        with_threads(threads, || table(&parsed.puzzle, &limits, options, 1, TableEngine::Frontier, &mut |_, _| {}))
            .unwrap()
    };
    let one = run(1, Backend::Sharded);
    assert_eq!(
        (one.stopped, one.layers.len(), one.layers.iter().sum::<u64>()),
        (Some(LimitHit::States), 32, 1_040_745)
    );
    let counts = |s: &slidesolve::search::Stats| (s.stored, s.expanded, s.generated);
    // The DashMap backend rebuilds the level too (its chunks' shared map counted them in the order
    // the threads came), so both backends stop at one point.
    for (threads, backend) in
        [(2, Backend::Sharded), (8, Backend::Sharded), (1, Backend::DashMap), (2, Backend::DashMap)]
    {
        let t = run(threads, backend);
        assert_eq!((t.stopped, &t.layers), (one.stopped, &one.layers), "{threads} threads, {backend}");
        assert_eq!(counts(&t.stats), counts(&one.stats), "{threads} threads, {backend}");
    }
    // A solve reports the same counts, whatever the threads and the backend.
    let solved: Vec<_> = [(1, Backend::Sharded), (2, Backend::Sharded), (8, Backend::Sharded), (2, Backend::DashMap)]
        .map(|(threads, backend)| {
            let r = solve_within(&parsed, Algo::Bfs, states(300_000), backend, threads);
            (r.status, r.message, r.stats.depth, counts(&r.stats))
        })
        .into();
    assert_eq!(solved[0].3.0, 300_366);
    assert!(solved.iter().all(|s| *s == solved[0]), "{solved:?}");
}

#[test]
fn a_past_deadline_stops_every_search_before_its_first_level() {
    let parsed = parse("hard.tiles", HARD_15);
    for (algo, stored) in [(Algo::Bfs, 1), (Algo::Bidir, 2), (Algo::Reference, 1), (Algo::Astar, 1)] {
        let report = solve_within(&parsed, algo, past(), Backend::Sharded, 2);
        assert_eq!(report.status, Status::Timeout, "{algo}");
        assert_eq!(report.stats.counts(), (0, 0, 0, stored), "{algo}");
    }
    let huge = parse("huge.data", HUGE_LEVEL);
    let e = slidesolve::domain::with_domain(&huge.puzzle, u64::MAX, Enumerate(past())).unwrap();
    assert_eq!(e, (Some(LimitHit::Time), vec![1], 1));
}

#[test]
fn a_past_deadline_stops_compiling_a_large_board_before_its_tables_are_built() {
    // One square on a 100x100 board: 10,000 placements, more than the compile handles between two
    // looks at the clock (a 3000x3000 board took 14.8 s to compile before its first look).
    let rows: Vec<String> =
        (0..100).map(|r| if r == 0 { format!("A{}", ".".repeat(99)) } else { ".".repeat(100) }).collect();
    let parsed = parse("big.grid", &format!("goal: A at 99,99\nboard:\n{}\n", rows.join("\n")));
    let report = solve_within(&parsed, Algo::Bfs, past(), Backend::Sharded, 1);
    assert_eq!(report.status, Status::Timeout);
    assert_eq!(report.message.as_deref(), Some("time limit reached while compiling the move tables"));
    let mut layers = Vec::new();
    let t =
        table(&parsed.puzzle, &past(), EngineOptions::default(), 1, TableEngine::Auto, &mut |d, n| layers.push((d, n)))
            .unwrap();
    assert_eq!(
        (t.stopped, t.layers, t.farthest, layers),
        (Some(LimitHit::Time), vec![1], vec![parsed.puzzle.start.clone()], vec![(0, 1)])
    );
    let stopped = slidesolve::enumerate::components::components(&parsed.puzzle, &past()).unwrap_err();
    assert_eq!(
        stopped.to_string(),
        "time limit reached while counting the components of all legal placements (0 placements listed)"
    );
    // With time to spare the same board solves: 198 moves of one square.
    let report = solve_within(&parsed, Algo::Bfs, Limits::default(), Backend::Sharded, 1);
    assert_eq!((report.status, report.moves.map(|m| m.len())), (Status::Solved, Some(198)));
}

#[test]
fn stopped_depth_first_searches_report_the_nodes_they_expanded() {
    let parsed = parse("hard.tiles", HARD_15);
    for algo in [Algo::Iddfs, Algo::Dfs, Algo::Idastar] {
        let report = solve_within(&parsed, algo, past(), Backend::Sharded, 1);
        assert_eq!(report.status, Status::Timeout, "{algo}");
        let expanded = report.stats.expanded;
        assert!(expanded > 0, "{algo}");
        let message = format!("time limit reached after {expanded} expanded nodes");
        assert_eq!(report.message.as_deref(), Some(message.as_str()), "{algo}");
        // They store no states: the state limit counts the nodes they expand, tested at each.
        let report = solve_within(&parsed, algo, states(10), Backend::Sharded, 1);
        assert_eq!(report.status, Status::Limit, "{algo}");
        // The node past the limit (IDDFS counts the start of its pass as well).
        let expanded = report.stats.expanded;
        assert!((11..=12).contains(&expanded), "{algo}: {expanded}");
        let message = format!("state limit reached after {expanded} expanded nodes");
        assert_eq!(report.message.as_deref(), Some(message.as_str()), "{algo}");
    }
}

#[test]
fn a_depth_first_search_grows_its_stack_within_the_memory_limit() {
    // With a depth bound far past its default, DFS walks millions of nodes deep; its two buffers
    // grew by doubling unchecked between the limit's looks every 4,096 nodes: a peak of 589,824
    // bytes under a limit of 300 KiB, 469,762,048 under 300 MiB, and an abort under `ulimit -v`
    // (a whole batch lost). They grow only within the budget now.
    let parsed = parse("hard.tiles", HARD_15);
    for limit in [300 << 10, 3 << 20, 100 << 20] {
        let limits = Limits { max_memory: Some(limit), ..Limits::default() };
        let options = SolveOptions { algo: Algo::Dfs, depth: 100_000_000, limits, ..SolveOptions::default() };
        let report = with_threads(1, || solve(&parsed.puzzle, &options)).unwrap();
        assert_eq!(report.status, Status::Limit, "{limit}");
        let expanded = report.stats.expanded;
        let message = format!("memory limit reached after {expanded} expanded nodes");
        assert_eq!(report.message.as_deref(), Some(message.as_str()));
        assert!(report.stats.peak_bytes <= limit && report.stats.peak_bytes * 2 > limit, "{limit}: {:?}", report.stats);
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hard.tiles");
    std::fs::write(&file, HARD_15).unwrap();
    let args = format!("solve {} --algo dfs --depth 100000000", file.display());
    let (code, stdout, stderr) = run_within_address_space(400 << 10, &args, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.starts_with("warning: --max-memory 1000T is more than this process can have"), "{stderr}");
    assert!(stdout.contains("hard.tiles: limit (memory limit reached after "), "{stdout}");
}

fn pdb_options(limits: Limits, tag: &str) -> SolveOptions {
    let dir = std::env::temp_dir().join(format!("slidesolve-limits-{tag}-{}", std::process::id()));
    SolveOptions {
        algo: Algo::Astar,
        heuristic: Some(HeuristicKind::Pdb),
        limits,
        pdb: PdbOptions { cache_dir: Some(dir), ..PdbOptions::default() },
        ..SolveOptions::default()
    }
}

#[test]
fn the_pattern_database_build_keeps_the_deadline_and_the_memory_budget() {
    let parsed = parse("p.tiles", "8 6 7\n2 5 4\n3 0 1\n");
    let report = solve(&parsed.puzzle, &pdb_options(past(), "deadline")).unwrap();
    assert_eq!(report.status, Status::Timeout);
    assert_eq!(report.message.as_deref(), Some("time limit reached while building the pattern database"));
    let tiny = Limits { max_memory: Some(1 << 20), ..Limits::default() };
    let Err(SolveError::Pdb(message)) = solve(&parsed.puzzle, &pdb_options(tiny, "memory")) else {
        panic!("a table over the budget is an error")
    };
    assert_eq!(
        message,
        "the pattern database for tiles [1, 2, 3, 4, 5, 6, 7, 8] would need 3.5 MiB (more than the memory limit of 1.0 MiB)"
    );
}

#[test]
fn the_perfect_hash_enumerator_refuses_an_array_over_the_budget() {
    let parsed = parse("p.tiles", "size: 3x4\n1 2 3 4 5 6 7 8 9 10 11 0\n");
    let limits = Limits { max_memory: Some(1 << 20), ..Limits::default() };
    let e = table(&parsed.puzzle, &limits, EngineOptions::default(), 1, TableEngine::Perfect, &mut |_, _| {});
    let message = e.err().map(|e| e.to_string());
    assert_eq!(
        message.as_deref(),
        Some("the perfect-hash engine needs 79833600 bytes for 12 cells, more than --max-memory")
    );
    // Auto falls back to the frontier engine, which stops at the budget.
    let t = table(&parsed.puzzle, &limits, EngineOptions::default(), 1, TableEngine::Auto, &mut |_, _| {}).unwrap();
    assert_eq!(t.stopped, Some(LimitHit::Memory));
    assert!(t.stats.peak_bytes <= 1 << 20);
}

#[test]
fn a_state_limit_or_a_deadline_stops_the_perfect_hash_enumerator_inside_a_layer() {
    let parsed = parse("p.tiles", "size: 3x4\n1 2 3 4 5 6 7 8 9 10 11 0\n");
    let run = |limits: &Limits, threads| {
        with_threads(threads, || {
            table(&parsed.puzzle, limits, EngineOptions::default(), 1, TableEngine::Perfect, &mut |_, _| {})
        })
        .unwrap()
    };
    let whole = run(&Limits::default(), 2);
    assert_eq!((whole.stopped, whole.states()), (None, 239_500_800));
    // The layer that crosses the limit is dropped, wherever its pass stopped: the table keeps the
    // longest run of layers whose states stay within it, on any number of threads.
    for n in [0, 1, 1_000_000, 239_500_799] {
        let kept = whole.layers.iter().scan(0, |sum, &l| Some(*sum + l).inspect(|&s| *sum = s)).take_while(|&s| s <= n);
        let kept = kept.count().max(1);
        for threads in [1, 2, 8] {
            let t = run(&states(n), threads);
            assert_eq!(t.stopped, Some(LimitHit::States), "{n} on {threads} threads");
            assert_eq!(t.layers, whole.layers[..kept], "{n} on {threads} threads");
            assert_eq!(t.farthest_count, whole.layers[kept - 1]);
            assert_eq!(t.farthest.len(), 1);
        }
    }
    assert_eq!(run(&states(239_500_800), 2).stopped, None);
    // A deadline already past: the start layer alone.
    let t = run(&past(), 2);
    assert_eq!((t.stopped, t.layers), (Some(LimitHit::Time), vec![1]));
}

#[test]
fn without_max_memory_the_budget_is_the_default_one() {
    assert_eq!(Limits::default().memory(), slidesolve::memory::default_limit());
    assert_eq!(states(5).less(2, 100).max_states, Some(3));
}

#[test]
fn memory_the_process_cannot_have_stops_the_search_at_the_memory_limit() {
    // Under a 768 MiB address space, --max-memory 1000T is lowered to all of it; the binary, the
    // stacks and the allocator's reservations take part of that, so a search's tables fail to grow
    // before the budget is reached. A failed growth stops the search as the memory limit does
    // (exit 1), where it used to abort the process: the frontier engine on one thread and on two
    // (level arrays, sets, buckets), the reference BFS, A* and greedy (their tables and queues),
    // and an enumeration, which used to copy its last level at the end.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("huge.data");
    std::fs::write(&data, HUGE_LEVEL).unwrap();
    let data = data.display();
    let runs = [
        (format!("solve {data} --threads 1"), "huge.data: limit (memory limit reached after "),
        (format!("solve {data} --threads 2"), "huge.data: limit (memory limit reached after "),
        (format!("solve {data} --algo reference"), "huge.data: limit (memory limit reached after "),
        (format!("solve {data} --algo astar"), "huge.data: limit (memory limit reached after "),
        (format!("solve {data} --algo greedy"), "huge.data: limit (memory limit reached after "),
        ("enumerate --tiles 3x4 --engine frontier --threads 2".to_string(), "stopped early: memory limit reached;"),
    ];
    for (args, says) in runs {
        let (code, stdout, stderr) = run_within_address_space(786432, &args, &[]);
        assert_eq!(code, Some(1), "{args}: {stdout}{stderr}");
        assert!(stdout.contains(says), "{args}: {stdout}");
        assert!(stderr.starts_with("warning: --max-memory 1000T is more than this process can have"), "{stderr}");
    }
}

/// Writes Korf's first 15-puzzle (blank first) into `dir`; its path.
fn korf1(dir: &Path) -> std::path::PathBuf {
    let file = dir.join("korf1.tiles");
    std::fs::write(&file, "goal: blank-first\n14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3\n").unwrap();
    file
}

/// Runs `slidesolve ARGS --max-memory 1000T` under `ulimit -v KB` (and the environment `env`):
/// exit code, standard output, standard error.
fn run_within_address_space(kb: u64, args: &str, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let bin = assert_cmd::cargo::cargo_bin("slidesolve");
    let command = format!("ulimit -v {kb} && exec {} {args} --max-memory 1000T", bin.display());
    let run = std::process::Command::new("sh").args(["-c", &command]).envs(env.iter().copied()).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (run.status.code(), text(&run.stdout), text(&run.stderr))
}

#[test]
fn a_parallel_search_stops_at_the_memory_limit_under_any_address_space() {
    // Korf's first 15-puzzle on two threads under address spaces where, on the 2-core VM, the new
    // level's arrays (allocated after the level before is freed) could not be had (128 MiB), a
    // shard's position table could not grow past its planned capacity (384 MiB) and a chunk's
    // recent-candidate slots (64 KiB) could not be had (352 MiB): each aborted. Each stops at the
    // memory limit now; the other sizes guard the same paths wherever the failures fall elsewhere.
    let dir = tempfile::tempdir().unwrap();
    let file = korf1(dir.path());
    for mib in [128, 288, 320, 352, 384, 416] {
        let (code, stdout, stderr) =
            run_within_address_space(mib << 10, &format!("solve {} --threads 2", file.display()), &[]);
        assert_eq!(code, Some(1), "{mib} MiB: {stdout}{stderr}");
        assert!(stdout.contains("korf1.tiles: limit (memory limit reached after "), "{mib} MiB: {stdout}");
    }
}

#[test]
fn a_pattern_database_the_process_cannot_hold_stops_the_build() {
    // The 6-6-3 tables of the 15-puzzle need 92 MB for each six-tile build: within a 100 MiB budget,
    // but not beside the binary and its allocator in a 100 MiB address space. The build used to
    // abort on its state array; it stops at the memory limit.
    let dir = tempfile::tempdir().unwrap();
    let file = korf1(dir.path());
    let args = format!(
        "solve {} --algo idastar --heuristic pdb --pdb-cache {}",
        file.display(),
        dir.path().join("cache").display()
    );
    let (code, stdout, stderr) = run_within_address_space(100 << 10, &args, &[]);
    // The build runs on a pool of its own; where even its threads' stacks do not fit (the debug
    // binary, larger, leaves less room: CI saw it), the build cannot start and says so instead.
    let stopped = code == Some(1)
        && stdout.contains("korf1.tiles: limit (memory limit reached while building the pattern database)");
    let unstarted =
        code == Some(2) && stderr.contains("korf1.tiles: pattern database: Resource temporarily unavailable");
    assert!(stopped || unstarted, "{code:?}: {stdout}{stderr}");
}

#[test]
fn threads_that_cannot_start_leave_the_run_on_the_calling_thread() {
    // A thread stack larger than any address space: the pool's threads cannot start, as under a
    // tight `ulimit -v`. That used to panic at the first parallel step (rayon's global pool, the
    // fallback, could not start either); the run says so and goes on alone, with the same answer.
    let huge_stacks = [("RUST_MIN_STACK", "1000000000000000")];
    let (code, stdout, stderr) =
        run_within_address_space(u32::MAX as u64, "solve corpora/tiles/8puzzle_123.tiles --threads 2", &huge_stacks);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("solved in 3 moves"), "{stdout}");
    assert!(stderr.contains("warning: cannot start 2 threads ("), "{stderr}");
    assert!(stderr.contains("); running on this thread alone"), "{stderr}");
    let (code, stdout, stderr) = run_within_address_space(
        u32::MAX as u64,
        "family corpora/families/klotski-classic.family --json",
        &huge_stacks,
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains(r#""layouts":65880,"#) && stdout.contains(r#""components":898,"#), "{stdout}");
    assert!(stderr.contains("warning: cannot start a thread per core ("), "{stderr}");
}

/// Runs `slidesolve ARGS --json`: its exit code and the JSON it printed.
fn json_run(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = assert_cmd::Command::cargo_bin("slidesolve").unwrap().args(args).arg("--json").output().unwrap();
    let json =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), json)
}

#[test]
fn a_deadline_stops_the_perfect_hash_enumerator_while_its_array_is_set_up_or_searched() {
    // 1x12: an 80 MB array (set up between looks at the clock; it used to be written in full
    // first) and twelve layers of one state, each pass a scan of the whole array: a deadline of
    // 10 ms falls in the setting up or in an early pass. The table keeps the layers before it, the
    // start layer always.
    let (code, v) =
        json_run(&["enumerate", "--tiles", "1x12", "--engine", "perfect", "--threads", "1", "--timeout", "0.01"]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!((v["complete"].as_bool(), v["stopped"].as_str()), (Some(false), Some("time limit reached")));
    let layers: Vec<u64> = serde_json::from_value(v["layers"].clone()).unwrap();
    assert!((1..12).contains(&layers.len()) && layers.iter().all(|&n| n == 1), "{layers:?}");
    assert_eq!(v["states"].as_u64(), Some(layers.len() as u64));
}

#[test]
fn a_deadline_stops_a_pattern_database_build_while_its_tables_are_set_up_or_searched() {
    // Korf's first 15-puzzle: each six-tile table is a 92 MB array, set up and searched between
    // looks at the clock; a stopped build saves no table.
    let dir = tempfile::tempdir().unwrap();
    let file = korf1(dir.path());
    let cache = dir.path().join("cache");
    let args = ["solve", file.to_str().unwrap(), "--algo", "idastar", "--heuristic", "pdb", "--threads", "1"];
    let (code, v) = json_run(&[&args[..], &["--pdb-cache", cache.to_str().unwrap(), "--timeout", "0.01"]].concat());
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["status"].as_str(), Some("timeout"));
    assert_eq!(v["message"].as_str(), Some("time limit reached while building the pattern database"));
    assert_eq!((v["moves"].as_u64(), v["nodes_expanded"].as_u64()), (None, Some(0)));
    let saved = std::fs::read_dir(&cache).map_or(0, |d| d.count());
    assert_eq!(saved, 0, "a stopped build saves no table");
}

#[test]
fn a_deadline_stops_a_family_class_while_its_table_of_layouts_is_set_up_or_searched() {
    // One class of 1,999,200 layouts (a 64 MiB table, set up between looks at the clock, where its
    // first entries had set up all its pages at once): the class is stopped, not written.
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("k5.family");
    let text = "metric: free\ngoal: A at 3,1\nkind: A 2x2 b 1\nkind: V 2x1 b 1\nkind: H 1x2 b 1\nkind: S 1x1 b 3\n\
                board:\n.....\n.....\n.....\n.....\n.....\n";
    std::fs::write(&spec, text).unwrap();
    let (code, v) = json_run(&["family", spec.to_str().unwrap(), "--threads", "1", "--timeout", "0.05"]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["stopped"].as_str(), Some("class A=1 V=1 H=1 S=3 empty=14: time limit reached"));
    assert_eq!((v["classes"].as_u64(), v["layouts"].as_u64(), v["components"].as_u64()), (Some(0), Some(0), Some(0)));
}

#[test]
fn a_deadline_stops_compiling_one_large_piece_at_its_first_placement() {
    // One 100x100 piece on a 101x101 board: four placements of 10,000 cells each. The clock is
    // looked at by the cells of the placements handled, so the first placement looks at it (by
    // placements alone a compile of so few never did: a 799x799 piece compiled 8 s past a
    // `--timeout 0.5`). A deadline already past makes the outcome independent of the host's speed.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.grid");
    let rows: Vec<String> = (0..101).map(|r| if r < 100 { "A".repeat(100) + "." } else { ".".repeat(101) }).collect();
    std::fs::write(&path, format!("goal: A at 1,1\nboard:\n{}\n", rows.join("\n"))).unwrap();
    let file = path.to_str().unwrap();
    let compiling = "time limit reached while compiling the move tables";
    let (code, v) = json_run(&["solve", file, "--threads", "1", "--timeout", "0"]);
    assert_eq!((code, v["status"].as_str(), v["message"].as_str()), (Some(1), Some("timeout"), Some(compiling)));
    let (code, v) = json_run(&["enumerate", file, "--threads", "1", "--timeout", "0"]);
    assert_eq!((code, &v["complete"], &v["layers"]), (Some(1), &false.into(), &serde_json::json!([1])), "{v}");
    let csv = dir.path().join("rows.csv");
    let out = assert_cmd::Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["batch", file, "--out", csv.to_str().unwrap(), "--quiet", "--threads", "1", "--timeout", "0"])
        .output()
        .unwrap();
    // A batch that ran its puzzles exits 0 whatever their rows say.
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = std::fs::read_to_string(&csv).unwrap();
    let row = rows.lines().nth(1).unwrap();
    assert!(row.contains(",timeout,") && row.ends_with(compiling), "{row}");
}
