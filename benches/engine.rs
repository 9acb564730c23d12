//! Side by side on the same domain code: our frontier BFS (1 and 2 threads) vs the `pathfinding`
//! crate's `bfs` / `bfs_bidirectional`. Throughput is in states: for full searches, every
//! reachable state; for solves, the states our BFS stores (the same for all contenders' work up
//! to the goal level). Run: `cargo bench --bench engine`; `scripts/bench_engine.sh` records results.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use slidesolve::domain::cells::Dense;
use slidesolve::domain::{Blocks, Domain, Tiles};
use slidesolve::format::{self, ParseOptions};
use slidesolve::puzzle::Puzzle;
use slidesolve::search::Limits;
use slidesolve::search::bfs::bfs;
use slidesolve::search::bidir::bidirectional;
use slidesolve::search::frontier::EngineOptions;
use slidesolve::search::{Outcome, with_threads};
use std::cell::RefCell;
use std::path::Path;

fn load(path: &str) -> Puzzle {
    let text = std::fs::read_to_string(path).unwrap();
    let fmt = format::detect(Some(Path::new(path)), &text);
    format::parse(fmt, &text, &ParseOptions::default()).unwrap().puzzle
}

/// A tile puzzle whose goal is unreachable (two tiles swapped), so BFS visits every state.
fn full_tiles(rows: usize, cols: usize) -> Puzzle {
    use format::tiles::{TileLayout, puzzle_from};
    let start = TileLayout::blank_last(rows, cols);
    let mut goal = start.clone();
    goal.cells.swap(0, 1);
    puzzle_from(&start, &goal)
}

fn successors<D: Domain>(domain: &D, scratch: &RefCell<D::Scratch>, key: &D::Key) -> Vec<D::Key> {
    let mut out = Vec::with_capacity(8);
    domain.for_each_successor(key, &mut scratch.borrow_mut(), |c| out.push(c));
    out
}

/// Our BFS on `threads` threads; returns the states stored.
fn ours<D: Domain>(domain: &D, threads: usize) -> u64 {
    with_threads(threads, || bfs(domain, &Limits::default(), EngineOptions::default()).stats.stored)
}

/// `pathfinding::bfs` on the same successor function.
fn theirs<D: Domain>(domain: &D) -> Option<usize> {
    let scratch = RefCell::new(domain.scratch());
    pathfinding::prelude::bfs(&domain.start(), |k| successors(domain, &scratch, k), |k| domain.is_goal(k))
        .map(|p| p.len())
}

fn compare<D: Domain>(c: &mut Criterion, name: &str, domain: &D, samples: usize) {
    let states = ours(domain, 1);
    let mut group = c.benchmark_group(name);
    group.sample_size(samples).throughput(Throughput::Elements(states));
    for threads in [1, 2] {
        group.bench_function(BenchmarkId::new("slidesolve", format!("{threads}t")), |b| {
            b.iter(|| ours(domain, threads))
        });
    }
    group.bench_function(BenchmarkId::new("pathfinding", "bfs"), |b| b.iter(|| theirs(domain)));
    group.finish();
}

fn engine(c: &mut Criterion) {
    compare(c, "tiles_3x3_full", &Tiles::<u64>::compile(&full_tiles(3, 3)), 10);
    compare(c, "tiles_2x5_full", &Tiles::<u64>::compile(&full_tiles(2, 5)), 10);
    compare(
        c,
        "klotski_free",
        &Blocks::<u64, Dense<u64>>::compile(&load("corpora/klotski/classic.grid"), u64::MAX).unwrap(),
        20,
    );
    compare(
        c,
        "dlaa_unit",
        &Blocks::<u64, Dense<u128>>::compile(&load("corpora/blocks/dlaa.grid"), u64::MAX).unwrap(),
        20,
    );
    compare(
        c,
        "rush_51",
        &Blocks::<u64, Dense<u64>>::compile(&load("corpora/rush/hardest51.rush"), u64::MAX).unwrap(),
        20,
    );

    let domain = Tiles::<u64>::compile(&load("corpora/tiles/8puzzle_863.tiles"));
    let scratch = RefCell::new(domain.scratch());
    let mut group = c.benchmark_group("tiles_3x3_bidir_863");
    group.sample_size(20);
    group.bench_function(BenchmarkId::new("slidesolve", "bidir"), |b| {
        b.iter(|| match bidirectional(&domain, &Limits::default(), EngineOptions::default()).unwrap().outcome {
            Outcome::Found(p) => p.len(),
            _ => 0,
        })
    });
    let goal = domain.goal_key().unwrap();
    group.bench_function(BenchmarkId::new("pathfinding", "bfs_bidirectional"), |b| {
        b.iter(|| {
            let next = |k: &u64| successors(&domain, &scratch, k);
            pathfinding::prelude::bfs_bidirectional(&domain.start(), &goal, next, next).map(|p| p.len())
        })
    });
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
