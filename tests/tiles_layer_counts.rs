//! Exact state-space tables: the 3×3 layer counts (OEIS A089473), the 2×5 total and diameter,
//! Klotski's 25,955 states and 65,880 placements in 898 components; `--plot`; and `gen` is
//! reproducible byte for byte.

use assert_cmd::Command;
use serde_json::Value;

fn enumerate(args: &[&str]) -> Value {
    let out = Command::cargo_bin("slidesolve").unwrap().arg("enumerate").args(args).arg("--json").output().unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// OEIS A089473: 8-puzzle positions at each distance from the solved position.
const A089473: [u64; 32] = [
    1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529, 10878, 16993, 17110,
    23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
];

#[test]
fn the_8_puzzle_table_matches_oeis_a089473_on_1_and_2_threads() {
    for threads in ["1", "2"] {
        let v = enumerate(&["--tiles", "3x3", "--threads", threads]);
        let layers: Vec<u64> = serde_json::from_value(v["layers"].clone()).unwrap();
        assert_eq!(layers, A089473);
        assert_eq!((v["states"].as_u64(), v["max_depth"].as_u64()), (Some(181_440), Some(31)));
        assert_eq!((v["largest_layer"].as_u64(), v["farthest_count"].as_u64()), (Some(24_047), Some(2)));
    }
}

#[test]
fn the_2x5_puzzle_has_1814400_states_and_diameter_55() {
    let v = enumerate(&["--tiles", "2x5", "--farthest", "0"]);
    assert_eq!((v["states"].as_u64(), v["max_depth"].as_u64()), (Some(1_814_400), Some(55)));
}

#[test]
fn klotski_has_25955_states_from_the_classic_start() {
    let v = enumerate(&["corpora/klotski/classic.grid", "--farthest", "0"]);
    assert_eq!(v["states"].as_u64(), Some(25_955));
}

#[test]
fn gen_is_reproducible_from_its_seed() {
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["gen", "tiles", "3x3", "--count", "2", "--seed", "1"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "; slidesolve gen tiles 3x3 --count 2 --seed 1 (uniform over solvable layouts)\nsize: 3x3\n4 0 6 3 8 2 7 1 5\n2 7 0 6 8 4 3 5 1\n"
    );
}

#[test]
fn the_bundled_8_puzzle_corpus_is_the_generator_output_for_its_seed() {
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["gen", "tiles", "3x3", "--count", "10000", "--seed", "2026"])
        .output()
        .unwrap();
    let generated = String::from_utf8(out.stdout).unwrap().replacen("; slidesolve gen", "; made by: slidesolve gen", 1);
    assert_eq!(std::fs::read_to_string("corpora/tiles/8puzzles_10000.tiles").unwrap(), generated);
}

#[test]
fn klotski_piece_set_has_65880_placements_in_898_components() {
    let v = enumerate(&["corpora/klotski/classic.grid", "--farthest", "0", "--components"]);
    let c = &v["components"];
    assert_eq!((c["placements"].as_u64(), c["components"].as_u64()), (Some(65_880), Some(898)));
    assert_eq!((c["largest"].as_u64(), c["start_component"].as_u64()), (Some(25_955), Some(25_955)));
    let out = Command::cargo_bin("slidesolve")
        .unwrap()
        .args(["enumerate", "--tiles", "2x2", "--components"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("every permutation is a placement"));
}

#[test]
fn plot_draws_the_layer_table() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("layers.svg");
    enumerate(&["--tiles", "3x3", "--farthest", "0", "--plot", svg.to_str().unwrap()]);
    let text = std::fs::read_to_string(svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("3x3 tiles: 181440 states by depth (unit metric)"));
    assert_eq!(text.matches("<rect").count() - 1, 32, "one bar per depth 0..=31 plus the background");
}
