//! Korf's 100 random 15-puzzles (blank-first goal) solved with IDA*; every length is checked
//! against the published optimum. Writes a table to `results/korf/`.
//!
//! `cargo bench --bench korf -- [--heuristic pdb|manhattan|linear-conflict] [--first N]`
//! (default: pdb, all 100). The PDB is built once into the cache (timed) and memory-mapped after.

use slidesolve::format::tiles::{TileLayout, parse_many};
use slidesolve::heuristic::pdb::PdbOptions;
use slidesolve::heuristic::{HeuristicKind, TileHeuristic};
use slidesolve::solve::{Algo, SolveOptions, Status, solve};
use std::fmt::Write as _;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let heuristic: HeuristicKind = value("--heuristic").map_or(HeuristicKind::Pdb, |h| h.parse().expect("heuristic"));
    let first: usize = value("--first").map_or(100, |n| n.parse().expect("count"));
    let goal = TileLayout::blank_first(4, 4);
    let pdb = PdbOptions { progress: true, ..PdbOptions::default() };
    let goal_bytes: Vec<u8> = goal.cells.iter().map(|&t| t as u8).collect();
    let clock = Instant::now();
    TileHeuristic::new(heuristic, 4, 4, &goal_bytes, &pdb).expect("heuristic");
    let prepare_s = clock.elapsed().as_secs_f64();

    let text = std::fs::read_to_string("corpora/tiles/korf100.txt").expect("corpora/tiles/korf100.txt");
    let mut table =
        String::from("| # | optimal | found | expanded | generated | seconds |\n|---|---|---|---|---|---|\n");
    let (mut expanded, mut generated, mut seconds, mut mismatches) = (0u64, 0u64, 0f64, 0);
    let items = parse_many(&text, None).expect("one puzzle per line");
    for (i, (_, item)) in items.into_iter().take(first).enumerate() {
        let parsed = item.expect("korf line");
        let (puzzle, optimum) = (parsed.puzzle, parsed.expected);
        let options = SolveOptions {
            algo: Algo::Idastar,
            heuristic: Some(heuristic),
            pdb: pdb.clone(),
            ..SolveOptions::default()
        };
        let report = solve(&puzzle, &options).expect("solvable");
        assert_eq!(report.status, Status::Solved);
        let found = report.moves.as_ref().map_or(0, Vec::len) as u64;
        if Some(found) != optimum {
            mismatches += 1;
        }
        let s = &report.stats;
        expanded += s.expanded;
        generated += s.generated;
        seconds += s.wall_s;
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {} | {:.3} |",
            i + 1,
            optimum.unwrap_or(0),
            found,
            s.expanded,
            s.generated,
            s.wall_s
        );
        eprintln!("#{:>3}: {found} moves (published {:?}), {} expanded, {:.3} s", i + 1, optimum, s.expanded, s.wall_s);
    }
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default().trim().to_string();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    let summary = format!(
        "# Korf's 100 — IDA* with {heuristic}\n\n- command: `cargo bench --bench korf -- --heuristic {heuristic} --first {first}`\n\
         - machine: {cpu}, {} threads available\n- heuristic ready in {prepare_s:.1} s (PDB built or loaded from the cache)\n\
         - instances: {first}, length mismatches: {mismatches}\n- total: {expanded} expanded, {generated} generated, {seconds:.1} s\n\n{table}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    std::fs::create_dir_all("results/korf").expect("results dir");
    let path = format!("results/korf/{heuristic}-{first}-{host}.md");
    std::fs::write(&path, &summary).expect("write results");
    println!("{}", summary.lines().take(8).collect::<Vec<_>>().join("\n"));
    println!("wrote {path}");
    assert_eq!(mismatches, 0, "some lengths differ from the published optima");
}
