//! `peak_bytes` counts everything a run holds at once: the pattern databases beside the search
//! that reads them, the tables of `enumerate --components` beside the layer table, and the tables
//! of a family's class that a limit stopped.

use super::bounded_alloc;
use assert_cmd::Command;
use serde_json::Value;
use slidesolve::family::{self, FamilyError, Method, Settings, spec};
use slidesolve::search::LimitHit;

/// The `--json` object `slidesolve ARGS` printed, and its exit code.
fn json_of(args: &[&str]) -> (Option<i32>, Value) {
    let out = Command::cargo_bin("slidesolve").unwrap().args(args).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"));
    (out.status.code(), json)
}

/// Its `peak_bytes` field.
fn peak(json: &Value) -> u64 {
    json["peak_bytes"].as_u64().unwrap()
}

#[test]
fn a_search_guided_by_pattern_databases_counts_them() {
    // One exact group of the 8 tiles of a 3x3 board: 9!/1! placements, a byte each.
    let table = 362_880;
    let cache = tempfile::tempdir().unwrap();
    let file = "corpora/tiles/8puzzle_283.tiles";
    for algo in ["astar", "idastar"] {
        let solve = |heuristic: &str| {
            let cache = cache.path().to_str().unwrap();
            let args = ["solve", file, "--algo", algo, "--heuristic", heuristic, "--pdb-cache", cache, "--json"];
            let (code, json) = json_of(&args);
            assert_eq!((code, json["moves"].as_u64()), (Some(0), Some(5)), "{algo} {heuristic}");
            peak(&json)
        };
        let (manhattan, pdb) = (solve("manhattan"), solve("pdb"));
        assert!(manhattan < table, "{algo}: {manhattan}");
        // The same search (both heuristics are exact enough to expand the same few states), plus the table.
        assert_eq!(pdb, manhattan + table, "{algo}");
    }
}

#[test]
fn enumerate_components_counts_the_tables_of_all_placements() {
    let file = "corpora/klotski/classic.grid";
    let (code, without) = json_of(&["enumerate", file, "--farthest", "0", "--json"]);
    assert_eq!(code, Some(0));
    let (code, with) = json_of(&["enumerate", file, "--farthest", "0", "--components", "--json"]);
    assert_eq!((code, &with["components"]["placements"]), (Some(0), &Value::from(65_880)));
    // Each placement's key (at least a byte), hash-map entry and queue slot: 5 keys and 36 bytes.
    let tables = 65_880 * (5 + 36);
    assert!(peak(&with) >= tables, "{} under {tables}", peak(&with));
    assert!(peak(&with) > peak(&without), "{} not over {}", peak(&with), peak(&without));
    assert_eq!(with["layers"], without["layers"]);
}

#[test]
fn a_family_class_stopped_by_a_limit_counts_in_the_family_peak() {
    // The one class of classic Klotski (65,880 layouts) lists its layouts, then cannot have its
    // hash map of them (about 2 MiB in one block): this thread's allocations of more than eight
    // times 192 KiB fail, a deterministic stand-in for memory the process cannot have.
    let text = std::fs::read_to_string("corpora/families/klotski-classic.family").unwrap();
    let spec = spec::parse(&text).unwrap();
    let classes = family::classes(&spec, u64::MAX, None).unwrap();
    assert_eq!(classes.len(), 1);
    let settings = Settings {
        memory_limit: 1 << 30,
        database: false,
        method: Method::Whole,
        solvable_only: false,
        layouts: false,
        deadline: None,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let (ran, _) = pool
        .install(|| bounded_alloc::measured(192 << 10, || family::run(&spec, &classes, settings, &mut |_, _| Ok(()))));
    let held = match &ran.outcome {
        Err(e @ FamilyError::Stopped(class, LimitHit::Memory, _)) => {
            assert_eq!(class, "A=1 V=4 H=1 S=4 empty=2");
            e.held().unwrap()
        }
        other => panic!("{other:?}"),
    };
    // The layouts' tables as checked against the budget (a key of at least a byte each), and the
    // ledger's 96 bytes for the class.
    assert!(held >= 65_880 * (5 + 36), "{held}");
    assert_eq!(ran.peak_bytes, held + 96);
}
