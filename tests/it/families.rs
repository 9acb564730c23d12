//! `family`: the classic Klotski piece set's published counts; small families against a brute
//! force written plainly here (every placement by nested loops, components and goal distances by
//! hand-written breadth-first searches); every hardest layout solved again by `solve`; the same
//! files for any thread count and after a resume.

use super::common::optimum;
use assert_cmd::Command;
use serde_json::Value;
use slidesolve::domain::{Placements, with_block_tables};
use slidesolve::family::{self, spec};
use slidesolve::format::{ParseOptions, grid};
use std::collections::{HashMap, VecDeque};

fn family_json(args: &[&str]) -> Value {
    let out = Command::cargo_bin("slidesolve").unwrap().arg("family").args(args).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_classic_klotski_piece_set_has_65880_layouts_in_898_components() {
    let v = family_json(&["corpora/families/klotski-classic.family"]);
    let got = ["layouts", "classes", "components", "largest_component"].map(|k| v[k].as_u64().unwrap());
    assert_eq!(got, [65_880, 1, 898, 25_955]);
}

#[test]
fn the_families_whose_pieces_cannot_be_packed_have_no_layout() {
    // Decided, not stopped: by colourings (the trominoes, the mutilated chessboard) and by the
    // search over cells (the pentominoes).
    for (path, classes) in [
        ("corpora/families/pentominoes-6x10.family", 1),
        ("corpora/families/pentominoes-7x9.family", 1),
        ("corpora/families/trominoes-8x8.family", 21),
        ("corpora/families/dominoes-mutilated-8x8.family", 31),
    ] {
        let v = family_json(&[path]);
        let got = ["layouts", "classes", "empty_classes", "components"].map(|k| v[k].as_u64().unwrap());
        assert_eq!((got, v["stopped"].is_null()), ([0, 0, classes, 0], true), "{path}");
    }
}

/// A kind: name, cells as (row, col) offsets, movement (`b`, `h`, `v`), fewest, most.
type BruteKind = (char, Vec<(usize, usize)>, char, usize, usize);

/// A class: its description, its layouts and its components' sorted (size, goal layouts,
/// hardest distance).
type ClassCounts = (String, usize, Vec<(u64, u64, Option<u32>)>);

/// A family as the brute force sees it.
struct Brute {
    rows: usize,
    cols: usize,
    walls: Vec<(usize, usize)>,
    kinds: Vec<BruteKind>,
    min_empty: usize,
    metric: &'static str,
    /// Kind 0 must have its anchor here.
    goal: (usize, usize),
    /// The row kind 0's anchor is pinned to, if any.
    row0: Option<usize>,
    /// The anchor of kind 0 in the layouts a hardest layout is chosen from (`None`: all layouts).
    start: Option<(usize, usize)>,
}

/// Pieces of every kind by anchor cell index, each kind's anchors sorted.
type Layout = Vec<Vec<usize>>;

impl Brute {
    fn cells(&self, kind: usize, anchor: usize) -> Option<Vec<usize>> {
        let (r0, c0) = (anchor / self.cols, anchor % self.cols);
        if kind == 0 && self.row0.is_some_and(|r| r != r0) {
            return None;
        }
        let mut out = Vec::new();
        for &(dr, dc) in &self.kinds[kind].1 {
            let (r, c) = (r0 + dr, c0 + dc);
            if r >= self.rows || c >= self.cols || self.walls.contains(&(r, c)) {
                return None;
            }
            out.push(r * self.cols + c);
        }
        Some(out)
    }

    fn occupancy(&self, layout: &Layout, skip: Option<(usize, usize)>) -> Vec<bool> {
        let mut occ = vec![false; self.rows * self.cols];
        for (k, anchors) in layout.iter().enumerate() {
            for (j, &a) in anchors.iter().enumerate() {
                if skip != Some((k, j)) {
                    self.cells(k, a).unwrap().into_iter().for_each(|c| occ[c] = true);
                }
            }
        }
        occ
    }

    /// Every layout with `counts` pieces: kind by kind, each piece at an anchor after the last.
    fn layouts(&self, counts: &[usize]) -> Vec<Layout> {
        let mut out = Vec::new();
        let mut layout: Layout = vec![Vec::new(); counts.len()];
        self.place(counts, 0, &mut layout, &mut out);
        out
    }

    fn place(&self, counts: &[usize], kind: usize, layout: &mut Layout, out: &mut Vec<Layout>) {
        if kind == counts.len() {
            out.push(layout.clone());
            return;
        }
        if layout[kind].len() == counts[kind] {
            return self.place(counts, kind + 1, layout, out);
        }
        let from = layout[kind].last().map_or(0, |&a| a + 1);
        let occ = self.occupancy(layout, None);
        for a in from..self.rows * self.cols {
            if let Some(cells) = self.cells(kind, a)
                && cells.iter().all(|&c| !occ[c])
            {
                layout[kind].push(a);
                self.place(counts, kind, layout, out);
                layout[kind].pop();
            }
        }
    }

    /// Anchors one piece can move to while the others stay put.
    fn moves(&self, layout: &Layout, kind: usize, j: usize) -> Vec<usize> {
        let occ = self.occupancy(layout, Some((kind, j)));
        let fits = |a: usize| self.cells(kind, a).is_some_and(|cells| cells.iter().all(|&c| !occ[c]));
        let step = |a: usize, d: usize| -> Option<usize> {
            let (r, c) = (a / self.cols, a % self.cols);
            let allowed = match self.kinds[kind].2 {
                'h' => d >= 2,
                'v' => d < 2,
                _ => true,
            };
            let b = match d {
                0 if allowed && r > 0 => a - self.cols,
                1 if allowed && r + 1 < self.rows => a + self.cols,
                2 if allowed && c > 0 => a - 1,
                3 if allowed && c + 1 < self.cols => a + 1,
                _ => return None,
            };
            fits(b).then_some(b)
        };
        let start = layout[kind][j];
        let mut out = Vec::new();
        match self.metric {
            "unit" => (0..4).filter_map(|d| step(start, d)).for_each(|b| out.push(b)),
            "straight" => {
                for d in 0..4 {
                    let mut a = start;
                    while let Some(b) = step(a, d) {
                        out.push(b);
                        a = b;
                    }
                }
            }
            _ => {
                let mut queue = VecDeque::from([start]);
                while let Some(a) = queue.pop_front() {
                    for b in (0..4).filter_map(|d| step(a, d)) {
                        if b != start && !out.contains(&b) {
                            out.push(b);
                            queue.push_back(b);
                        }
                    }
                }
            }
        }
        out
    }

    fn neighbours(&self, layout: &Layout) -> Vec<Layout> {
        let mut out = Vec::new();
        for k in 0..layout.len() {
            for j in 0..layout[k].len() {
                for b in self.moves(layout, k, j) {
                    let mut child = layout.clone();
                    child[k][j] = b;
                    child[k].sort_unstable();
                    out.push(child);
                }
            }
        }
        out
    }

    /// Per class (described as `family` does): every component's (size, goal layouts, hardest
    /// distance), sorted.
    fn classes(&self) -> Vec<ClassCounts> {
        let open = self.rows * self.cols - self.walls.len();
        let mut all = Vec::new();
        let mut counts = vec![0; self.kinds.len()];
        loop {
            let used: usize = counts.iter().zip(&self.kinds).map(|(n, k)| n * k.1.len()).sum();
            let in_range = counts.iter().zip(&self.kinds).all(|(&n, k)| n >= k.3 && n <= k.4);
            if in_range && used + self.min_empty <= open {
                let names: String = self
                    .kinds
                    .iter()
                    .zip(&counts)
                    .filter(|&(_, &n)| n > 0)
                    .map(|(k, n)| format!("{}={n} ", k.0))
                    .collect();
                let layouts = self.layouts(&counts);
                all.push((format!("{names}empty={}", open - used), layouts.len(), self.components(&layouts)));
            }
            // The next count vector, the last kind changing fastest.
            let mut k = self.kinds.len();
            loop {
                if k == 0 {
                    return all;
                }
                k -= 1;
                if counts[k] < self.kinds[k].4 {
                    counts[k] += 1;
                    break;
                }
                counts[k] = 0;
            }
        }
    }

    fn components(&self, layouts: &[Layout]) -> Vec<(u64, u64, Option<u32>)> {
        let index: HashMap<&Layout, usize> = layouts.iter().enumerate().map(|(i, l)| (l, i)).collect();
        let edges: Vec<Vec<usize>> =
            layouts.iter().map(|l| self.neighbours(l).iter().map(|c| index[c]).collect()).collect();
        let goal = self.goal.0 * self.cols + self.goal.1;
        let mut dist = vec![None; layouts.len()];
        let mut queue: VecDeque<usize> = (0..layouts.len()).filter(|&i| layouts[i][0] == [goal]).collect();
        queue.iter().for_each(|&i| dist[i] = Some(0u32));
        while let Some(i) = queue.pop_front() {
            for &j in &edges[i] {
                if dist[j].is_none() {
                    dist[j] = Some(dist[i].unwrap() + 1);
                    queue.push_back(j);
                }
            }
        }
        let mut seen = vec![false; layouts.len()];
        let mut out = Vec::new();
        for s in 0..layouts.len() {
            if seen[s] {
                continue;
            }
            seen[s] = true;
            let mut members = vec![s];
            let mut head = 0;
            while head < members.len() {
                for &j in &edges[members[head]] {
                    if !seen[j] {
                        seen[j] = true;
                        members.push(j);
                    }
                }
                head += 1;
            }
            let goals = members.iter().filter(|&&i| dist[i] == Some(0)).count() as u64;
            let start = self.start.map(|(r, c)| [r * self.cols + c]);
            let counts = |i: usize| start.is_none_or(|s| layouts[i][0] == s);
            let hardest = members.iter().filter(|&&i| counts(i)).filter_map(|&i| dist[i]).max();
            out.push((members.len() as u64, goals, hardest));
        }
        out.sort_unstable();
        out
    }
}

const DOMINOES_3X3: &str = "corpora/families/dominoes-3x3.family";
const WALLED_4X4: &str = "corpora/families/walled-4x4.family";
const RUSH_4X4: &str = "corpora/families/rush4x4.family";
const SQUARES_3X3: &str = "metric: free\nempty: 2..\ngoal: A at 2,2\nkind: A 1x1 b 1\nkind: S 1x1 b 0..\n\
                           kind: L XX/X. b 0..1\nboard:\n...\n...\n...\n";

fn dominoes_3x3() -> Brute {
    Brute {
        rows: 3,
        cols: 3,
        walls: vec![],
        kinds: vec![
            ('A', vec![(0, 0)], 'b', 1, 1),
            ('V', vec![(0, 0), (1, 0)], 'b', 0, 2),
            ('H', vec![(0, 0), (0, 1)], 'b', 0, 2),
            ('S', vec![(0, 0)], 'b', 0, 9),
        ],
        min_empty: 1,
        metric: "unit",
        goal: (2, 2),
        row0: None,
        start: None,
    }
}

fn walled_4x4() -> Brute {
    Brute {
        rows: 4,
        cols: 4,
        walls: vec![(2, 3)],
        kinds: vec![
            ('A', vec![(0, 0), (0, 1), (1, 0), (1, 1)], 'b', 1, 1),
            ('V', vec![(0, 0), (1, 0)], 'v', 0, 2),
            ('H', vec![(0, 0), (0, 1)], 'h', 0, 2),
            ('S', vec![(0, 0)], 'b', 0, 2),
        ],
        min_empty: 2,
        metric: "straight",
        goal: (0, 2),
        row0: None,
        start: None,
    }
}

fn squares_3x3() -> Brute {
    Brute {
        rows: 3,
        cols: 3,
        walls: vec![],
        kinds: vec![
            ('A', vec![(0, 0)], 'b', 1, 1),
            ('S', vec![(0, 0)], 'b', 0, 9),
            ('L', vec![(0, 0), (0, 1), (1, 0)], 'b', 0, 1),
        ],
        min_empty: 2,
        metric: "free",
        goal: (2, 2),
        row0: None,
        start: None,
    }
}

fn rush_4x4() -> Brute {
    Brute {
        rows: 4,
        cols: 4,
        walls: vec![],
        kinds: vec![
            ('A', vec![(0, 0), (0, 1)], 'h', 1, 1),
            ('H', vec![(0, 0), (0, 1)], 'h', 0, 8),
            ('V', vec![(0, 0), (1, 0)], 'v', 0, 8),
            ('T', vec![(0, 0), (0, 1), (0, 2)], 'h', 0, 5),
            ('U', vec![(0, 0), (1, 0), (2, 0)], 'v', 0, 5),
        ],
        min_empty: 0,
        metric: "straight",
        goal: (1, 2),
        row0: Some(1),
        start: None,
    }
}

/// The library's classes analysed by `method` (with the database rule when `database`; only the
/// solvable components when `solvable_only`).
fn library(
    spec: &spec::FamilySpec,
    method: family::Method,
    (database, solvable_only): (bool, bool),
) -> Vec<family::ClassResult> {
    let settings =
        family::Settings { memory_limit: u64::MAX, database, method, solvable_only, layouts: true, deadline: None };
    family::classes(spec, u64::MAX, None)
        .unwrap()
        .iter()
        .map(|c| family::analyse_class(spec, c, settings).unwrap())
        .collect()
}

/// Both methods against the brute force, with every component and with the solvable ones only:
/// per class its description, layouts and sorted (size, goal layouts, hardest distance).
fn check_against_brute_force(text: &str, brute: Brute) {
    let spec = spec::parse(text).unwrap();
    let every = brute.classes();
    let solvable: Vec<ClassCounts> = every
        .iter()
        .map(|(class, _, cs)| {
            let cs: Vec<_> = cs.iter().copied().filter(|c| c.1 > 0).collect();
            (class.clone(), cs.iter().map(|c| c.0 as usize).sum(), cs)
        })
        .collect();
    assert!(solvable.iter().map(|c| c.2.len()).sum::<usize>() < every.iter().map(|c| c.2.len()).sum::<usize>());
    for (method, solvable_only) in
        [family::Method::Whole, family::Method::Seeds].into_iter().flat_map(|m| [(m, false), (m, true)])
    {
        let want = if solvable_only { &solvable } else { &every };
        let got: Vec<ClassCounts> = library(&spec, method, (false, solvable_only))
            .into_iter()
            .map(|r| {
                let mut cs: Vec<_> = r.components.iter().map(|c| (c.size, c.goal_layouts, c.hardest_moves)).collect();
                cs.sort_unstable();
                (r.class, r.layouts as usize, cs)
            })
            .collect();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g, w, "{method:?}, solvable only: {solvable_only}");
        }
    }
}

/// The seeds method gives every class result of the whole-class method, row for row (components in
/// the same order, the same representative and hardest layouts, the same database lines); only
/// the bytes held differ. `options`: the database rule, only solvable components.
fn check_methods_agree(text: &str, options: (bool, bool)) {
    let spec = spec::parse(text).unwrap();
    let strip = |rs: Vec<family::ClassResult>| -> Vec<family::ClassResult> {
        rs.into_iter().map(|r| family::ClassResult { peak_bytes: 0, ..r }).collect()
    };
    let whole = strip(library(&spec, family::Method::Whole, options));
    let seeds = strip(library(&spec, family::Method::Seeds, options));
    assert!(whole.iter().map(|r| r.components.len()).sum::<usize>() > 20);
    assert_eq!(whole, seeds);
}

#[test]
fn seeds_and_whole_classes_give_the_same_rows() {
    // Under the database rule, seeds are goal layouts (the primary at the right edge).
    check_methods_agree(&std::fs::read_to_string(RUSH_4X4).unwrap(), (true, true));
    for solvable_only in [false, true] {
        check_methods_agree(&std::fs::read_to_string(RUSH_4X4).unwrap(), (false, solvable_only));
        check_methods_agree(&std::fs::read_to_string(WALLED_4X4).unwrap(), (false, solvable_only));
        check_methods_agree(&std::fs::read_to_string(DOMINOES_3X3).unwrap(), (false, solvable_only));
        // Free metric and a 2x2 block, whose step left is blocked or not only once the cell below
        // its anchor's left neighbour is decided; its goal is one cell (goal seeds pin the block).
        check_methods_agree(
            &std::fs::read_to_string("corpora/families/klotski-classic.family").unwrap(),
            (false, solvable_only),
        );
    }
}

/// The seed listing forks into branches walked side by side on several threads: one, two and five
/// threads give every class the same rows (the methods' agreement above runs on the test pool).
#[test]
fn seeds_listed_on_any_number_of_threads_give_the_same_rows() {
    for (path, options) in [(RUSH_4X4, (true, true)), ("corpora/families/klotski-classic.family", (false, false))] {
        let spec = spec::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| library(&spec, family::Method::Seeds, options))
                .into_iter()
                .map(|r| family::ClassResult { peak_bytes: 0, ..r })
                .collect::<Vec<_>>()
        };
        let alone = on(1);
        assert!(alone.iter().map(|r| r.components.len()).sum::<usize>() > 20, "{path}");
        assert_eq!(on(2), alone, "{path}");
        assert_eq!(on(5), alone, "{path}");
    }
}

#[test]
fn small_families_match_a_brute_force_enumeration() {
    check_against_brute_force(&std::fs::read_to_string(DOMINOES_3X3).unwrap(), dominoes_3x3());
    check_against_brute_force(&std::fs::read_to_string(WALLED_4X4).unwrap(), walled_4x4());
    check_against_brute_force(SQUARES_3X3, squares_3x3());
    check_against_brute_force(&std::fs::read_to_string(RUSH_4X4).unwrap(), rush_4x4());
}

/// A spec's text with a `start:` line before its goal.
fn with_start(text: &str, start: &str) -> String {
    text.replacen("goal:", &format!("start: {start}\ngoal:"), 1)
}

#[test]
fn a_start_picks_each_components_hardest_among_its_layouts_as_a_brute_force_does() {
    let dominoes = with_start(&std::fs::read_to_string(DOMINOES_3X3).unwrap(), "A at 0,0");
    check_against_brute_force(&dominoes, Brute { start: Some((0, 0)), ..dominoes_3x3() });
    check_against_brute_force(&with_start(SQUARES_3X3, "A at 1,0"), Brute { start: Some((1, 0)), ..squares_3x3() });
    let klotski = std::fs::read_to_string("corpora/families/klotski-classic.family").unwrap();
    for solvable_only in [false, true] {
        check_methods_agree(&dominoes, (false, solvable_only));
        check_methods_agree(&with_start(&klotski, "A at 0,1"), (false, solvable_only));
    }
    // The classic piece set's two largest components are mirror images of 25,955 layouts each.
    // With the block where the classic puzzle starts, the hardest layout of one is 93 moves from
    // the goal (the classic start, 81 moves away, is one of its layouts) and of the other 65;
    // each hardest layout has the block there, and `solve` takes as many moves from it.
    let spec = spec::parse(&with_start(&klotski, "A at 0,1")).unwrap();
    let result = &library(&spec, family::Method::Whole, (false, false))[0];
    let mut largest: Vec<_> = result.components.iter().filter(|c| c.size == 25_955).collect();
    largest.sort_by_key(|c| c.hardest_moves);
    assert_eq!(largest.iter().map(|c| c.hardest_moves).collect::<Vec<_>>(), [Some(65), Some(93)]);
    for c in largest {
        let hardest = c.hardest.as_deref().unwrap();
        let rows: Vec<&str> = hardest.split('/').collect();
        assert!(rows[0][1..3] == *"AA" && rows[1][1..3] == *"AA", "{hardest}");
        let parsed = grid::parse(&grid_file(&spec, "A at 3,1", hardest), &ParseOptions::default()).unwrap();
        assert_eq!(optimum(&parsed), c.hardest_moves.unwrap() as usize, "{hardest}");
    }
}

/// Every fixed polyomino (rotations and reflections told apart) of at most `size` cells, as its
/// cells' (row, col) offsets from the corner of its bounding box, smallest first.
fn polyominoes(size: usize) -> Vec<Vec<(usize, usize)>> {
    let mut all = vec![vec![(0, 0)]];
    let mut last = all.clone();
    for _ in 1..size {
        let mut grown = std::collections::BTreeSet::new();
        for cells in &last {
            for &(r, c) in cells {
                for (dr, dc) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let cell = (r as isize + dr, c as isize + dc);
                    let mut next: Vec<(isize, isize)> = cells.iter().map(|&(r, c)| (r as isize, c as isize)).collect();
                    if next.contains(&cell) {
                        continue;
                    }
                    next.push(cell);
                    let (top, left) =
                        (next.iter().map(|p| p.0).min().unwrap(), next.iter().map(|p| p.1).min().unwrap());
                    let mut next: Vec<(usize, usize)> =
                        next.iter().map(|&(r, c)| ((r - top) as usize, (c - left) as usize)).collect();
                    next.sort_unstable();
                    grown.insert(next);
                }
            }
        }
        last = grown.into_iter().collect();
        all.extend(last.iter().cloned());
    }
    all
}

/// Neil Bickford's hardest "simple simple simple" 4x4 sliding block puzzles ("Sliding Block
/// Puzzles, Part 3", 2012): one goal piece that starts in the upper-left corner and must reach the
/// lower-right one, pieces of any shape, free metric. His maxima by number of pieces run 1, 4, 9,
/// 19, 36, 51, 62, 89, 132, 81, 64, 73, 61, 25, 21. With 12 or more pieces in 16 cells, at least
/// one empty, no piece has more than 4 cells, so a family per goal shape over the 28 fixed
/// polyominoes of at most 4 cells covers every such puzzle. His goal piece covers the corner cells
/// (at 7 pieces an L-tromino drawn `XX/X.` would beat his figure), so its shape covers both those
/// corners of its bounding box, and the starts are the layouts with that box in the corner.
#[test]
#[cfg_attr(debug_assertions, ignore = "16 families: 1 s in release, far slower unoptimised; the release run covers it")]
fn bickfords_4x4_maxima_for_12_to_15_pieces() {
    let shapes = polyominoes(4);
    assert_eq!(shapes.len(), 1 + 2 + 6 + 19);
    let drawing = |cells: &[(usize, usize)]| {
        let (h, w) = (cells.iter().map(|p| p.0).max().unwrap() + 1, cells.iter().map(|p| p.1).max().unwrap() + 1);
        let row = |r: usize| (0..w).map(|c| if cells.contains(&(r, c)) { 'X' } else { '.' }).collect::<String>();
        ((0..h).map(row).collect::<Vec<_>>().join("/"), h, w)
    };
    let names = "BCDEFGHIJKLMNOPQRSTUVWXYZabc";
    let mut best = [0u32; 16];
    let goals: Vec<&Vec<(usize, usize)>> =
        shapes.iter().filter(|s| s.contains(&(0, 0)) && s.contains(&(drawing(s).1 - 1, drawing(s).2 - 1))).collect();
    assert_eq!(goals.len(), 16);
    for goal in goals {
        let (goal_drawing, h, w) = drawing(goal);
        let anchor = goal[0];
        // At least 11 other pieces in at most 15 cells: each may have this many cells beyond one.
        let spare = 15 - goal.len() - 11;
        let mut text = format!(
            "metric: free\nempty: 1..\npieces: 12..\nstart: A at {},{}\ngoal: A at {},{}\nkind: A {goal_drawing} b 1\n",
            anchor.0,
            anchor.1,
            4 - h + anchor.0,
            4 - w + anchor.1
        );
        text += "kind: B X b 0..\n";
        for (name, cells) in names.chars().zip(&shapes).skip(1).filter(|(_, cells)| cells.len() - 1 <= spare) {
            text += &format!("kind: {name} {} b 0..{}\n", drawing(cells).0, spare / (cells.len() - 1));
        }
        text += "board:\n....\n....\n....\n....\n";
        let spec = spec::parse(&text).unwrap();
        for r in library(&spec, family::Method::Whole, (false, false)) {
            let pieces: usize = r
                .class
                .split_whitespace()
                .filter(|w| !w.starts_with("empty="))
                .map(|w| w.split_once('=').unwrap().1.parse::<usize>().unwrap())
                .sum();
            let hardest = r.components.iter().filter_map(|c| c.hardest_moves).max().unwrap_or(0);
            best[pieces] = best[pieces].max(hardest);
        }
    }
    assert_eq!((best[..12].iter().max(), &best[12..]), (Some(&0), &[73, 61, 25, 21][..]));
}

#[test]
fn small_family_totals_are_pinned() {
    let v = family_json(&[DOMINOES_3X3]);
    let got = ["layouts", "classes", "components", "solvable_components", "largest_component", "hardest_moves"]
        .map(|k| v[k].as_u64().unwrap());
    assert_eq!(got, [11_247, 36, 240, 97, 840, 24]);
}

/// A family layout in one-line form as a grid-format puzzle: each piece's movement is its kind's
/// (found by shape; the goal kind by name).
fn grid_file(spec: &spec::FamilySpec, goal: &str, line: &str) -> String {
    let rows: Vec<&str> = line.split('/').collect();
    let mut cells: HashMap<char, Vec<(usize, usize)>> = HashMap::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, ch) in row.chars().enumerate().filter(|(_, ch)| !matches!(ch, '.' | '#')) {
            cells.entry(ch).or_default().push((r, c));
        }
    }
    let goal_kind = goal.split_whitespace().next().unwrap().chars().next().unwrap();
    let mut moves = Vec::new();
    for (name, cells) in &cells {
        let (shape, _) = slidesolve::puzzle::Shape::from_cells(cells).unwrap();
        let kind = spec
            .kinds
            .iter()
            .find(|k| if *name == goal_kind { k.name == goal_kind } else { k.shape == shape && k.name != goal_kind })
            .unwrap();
        let code = match kind.movement {
            slidesolve::puzzle::Movement::Horizontal => "h",
            slidesolve::puzzle::Movement::Vertical => "v",
            _ => continue,
        };
        moves.push(format!("{name}={code}"));
    }
    format!("metric: {}\ngoal: {goal}\nmoves: {}\nboard:\n{}\n", spec.metric, moves.join(" "), rows.join("\n"))
}

#[test]
fn every_hardest_layout_is_solved_in_its_hardest_moves() {
    for (text, goal) in [
        (std::fs::read_to_string(DOMINOES_3X3).unwrap(), "A at 2,2"),
        (std::fs::read_to_string(WALLED_4X4).unwrap(), "A reaches right"),
        (SQUARES_3X3.to_string(), "A at 2,2"),
    ] {
        let spec = spec::parse(&text).unwrap();
        let mut solved = 0;
        for r in library(&spec, family::Method::auto(&spec), (false, false)) {
            for c in &r.components {
                let (Some(moves), Some(hardest)) = (c.hardest_moves, &c.hardest) else { continue };
                let file = grid_file(&spec, goal, hardest);
                let parsed = grid::parse(&file, &ParseOptions::default()).unwrap();
                assert_eq!(optimum(&parsed), moves as usize, "{}\n{file}", r.class);
                solved += 1;
            }
        }
        assert!(solved > 0);
    }
}

#[test]
fn the_files_are_the_same_for_any_thread_count_and_after_a_resume() {
    let dir = tempfile::tempdir().unwrap();
    let run = |sub: &str, threads: &str, resume: bool| {
        let out = dir.path().join(sub);
        let mut args = vec![DOMINOES_3X3, "--threads", threads, "--out", out.to_str().unwrap()];
        if resume {
            args.push("--resume");
        }
        family_json(&args);
        let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap();
        (read("components.csv"), read("classes.csv"))
    };
    let one = run("one", "1", false);
    assert_eq!(run("two", "2", false), one);
    // A run killed after ten classes, with two component rows of the eleventh already written.
    let partial = dir.path().join("partial");
    std::fs::create_dir_all(&partial).unwrap();
    let classes: Vec<&str> = one.1.lines().take(11).collect();
    let kept = &classes[1..];
    let done_components: Vec<&str> = one
        .0
        .lines()
        .enumerate()
        .filter(|(i, l)| *i == 0 || kept.iter().any(|c| l.split(',').nth(1) == c.split(',').next()))
        .map(|(_, l)| l)
        .collect();
    let extra: Vec<&str> = one.0.lines().skip(done_components.len()).take(2).collect();
    std::fs::write(partial.join("classes.csv"), classes[..11].join("\n") + "\n").unwrap();
    std::fs::write(partial.join("components.csv"), [done_components, extra].concat().join("\n") + "\n").unwrap();
    std::fs::copy(dir.path().join("one/run.json"), partial.join("run.json")).unwrap();
    let resumed = run("partial", "2", true);
    assert_eq!(resumed, one);
}

/// Runs `family` with `args`: its exit code, stdout and stderr.
fn family_output(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("slidesolve").unwrap().arg("family").args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// What a `family` run of rush4x4 under `--db` into `out` (database `out/family.db`) with `extra`
/// gave: its exit code, its `--json` summary without the measurements, the files it wrote
/// (components.csv, classes.csv, the database) and its stderr.
fn rush4x4_db_run(out: &std::path::Path, extra: &[&str]) -> (Option<i32>, Value, [String; 3], String) {
    let (code, stdout, stderr) = rush4x4_db_output(out, extra);
    let mut json: Value = serde_json::from_str(&stdout).unwrap();
    json.as_object_mut().unwrap().retain(|k, _| !["wall_s", "peak_bytes"].contains(&k.as_str()));
    (code, json, rush4x4_db_files(out), stderr)
}

/// The files a rush4x4 `--db` run wrote into `out`: components.csv, classes.csv, the database.
fn rush4x4_db_files(out: &std::path::Path) -> [String; 3] {
    ["components.csv", "classes.csv", "family.db"].map(|f| std::fs::read_to_string(out.join(f)).unwrap())
}

#[test]
fn an_existing_family_output_is_never_overwritten_by_accident() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ow");
    let (code, totals, whole, stderr) = rush4x4_db_run(&out, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!((whole[1].lines().count(), whole[2].lines().count()), (163, 32));
    // Run again without --resume (here stopped at once): refused, naming the first results file,
    // and nothing is touched.
    let refusal = |path: &std::path::Path| {
        format!(
            "error: {} already exists; use --resume to continue it or --force to overwrite it
",
            path.display()
        )
    };
    let (code, stdout, stderr) = rush4x4_db_output(&out, &["--timeout", "0"]);
    assert_eq!((code, stdout.as_str(), stderr), (Some(2), "", refusal(&out.join("classes.csv"))));
    assert_eq!(rush4x4_db_files(&out), whole);
    // components.csv alone, and the database file alone (without --out), are results as well.
    std::fs::remove_file(out.join("classes.csv")).unwrap();
    let (code, _, stderr) = family_output(&["corpora/families/rush4x4.family", "--out", out.to_str().unwrap()]);
    assert_eq!((code, stderr), (Some(2), refusal(&out.join("components.csv"))));
    let db = out.join("family.db");
    // Without --out the run could not resume, so only --force is offered.
    let (code, _, stderr) = family_output(&["corpora/families/rush4x4.family", "--db", db.to_str().unwrap()]);
    let only_force = format!(
        "error: {} already exists; use --force to overwrite it (only a run with --out DIR can --resume)\n",
        db.display()
    );
    assert_eq!((code, stderr), (Some(2), only_force));
    let (code, _, stderr) = family_output(&[
        "corpora/families/rush4x4.family",
        "--db",
        db.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!((code, stderr), (Some(2), refusal(&out.join("components.csv"))));
    assert_eq!(std::fs::read_to_string(&db).unwrap(), whole[2]);
    // --force starts over; --resume then ends with the files of one uninterrupted run.
    let (code, json, files, stderr) = rush4x4_db_run(&out, &["--force", "--timeout", "0"]);
    assert_eq!((code, &json["layouts"]), (Some(1), &Value::from(0)), "{stderr}");
    assert_eq!((files[1].lines().count(), files[2].as_str()), (1, ""));
    let (code, json, files, stderr) = rush4x4_db_run(&out, &["--resume"]);
    assert_eq!((code, json, files), (Some(0), totals, whole), "{stderr}");
    let (code, _, stderr) = rush4x4_db_output(&out, &["--resume", "--force"]);
    assert_eq!(code, Some(2));
    assert!(stderr.starts_with("error: the argument '--resume' cannot be used with '--force'"), "{stderr}");
}

/// A `family --json` run of rush4x4 under `--db` into `out` (database `out/family.db`) with
/// `extra`: its exit code, stdout and stderr.
fn rush4x4_db_output(out: &std::path::Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let db = out.join("family.db");
    let args =
        ["corpora/families/rush4x4.family", "--json", "--out", out.to_str().unwrap(), "--db", db.to_str().unwrap()];
    family_output(&[&args[..], extra].concat())
}

#[test]
fn a_database_run_killed_between_its_lines_and_its_class_row_resumes_to_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let run = |sub: &str, extra: &[&str]| {
        let (code, json, _, stderr) = rush4x4_db_run(&dir.path().join(sub), extra);
        assert_eq!(code, Some(0), "{stderr}");
        json
    };
    let files = |sub: &str| rush4x4_db_files(&dir.path().join(sub));
    let totals = run("whole", &[]);
    let whole = files("whole");
    assert_eq!(totals["database_lines"], 32);
    // Killed after 100 classes: their rows and lines are written, and so are two component rows,
    // the database lines and a torn line of a class whose row never came.
    let classes: Vec<&str> = whole[1].lines().take(101).collect();
    let lines_done: usize = classes[1..].iter().map(|c| c.rsplit(',').next().unwrap().parse::<usize>().unwrap()).sum();
    let next_lines: usize = whole[1].lines().nth(101).unwrap().rsplit(',').next().unwrap().parse().unwrap();
    let done: std::collections::HashSet<&str> = classes[1..].iter().map(|c| c.split(',').next().unwrap()).collect();
    let components: Vec<&str> = whole[0].lines().collect();
    let kept = 1 + components[1..].iter().take_while(|l| done.contains(l.split(',').nth(1).unwrap())).count();
    let partial = dir.path().join("partial");
    std::fs::create_dir_all(&partial).unwrap();
    std::fs::copy(dir.path().join("whole/run.json"), partial.join("run.json")).unwrap();
    std::fs::write(partial.join("classes.csv"), classes.join("\n") + "\n").unwrap();
    std::fs::write(partial.join("components.csv"), components[..kept + 2].join("\n") + "\n").unwrap();
    let db: Vec<&str> = whole[2].lines().take(lines_done + next_lines).collect();
    std::fs::write(partial.join("family.db"), db.join("\n") + "\n" + "12 ooBB").unwrap();
    assert!(lines_done > 0 && lines_done < 32, "{lines_done}");
    assert_eq!(run("partial", &["--resume"]), totals);
    assert_eq!(files("partial"), whole);
    // Resumed without --db, or with another spec, the run is refused and left as it is.
    let out = partial.to_str().unwrap();
    let (code, _, stderr) = family_output(&["corpora/families/rush4x4.family", "--out", out, "--resume"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr, format!("error: cannot resume: {out}: the run was started with --db\n"));
    let (code, _, stderr) = family_output(&[DOMINOES_3X3, "--out", out, "--resume"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("the run was started with another spec"), "{stderr}");
    assert_eq!(files("partial"), whole);
    // Another file given as the database (its lines are not this family's) is refused, as it is.
    let full: Vec<&str> = whole[2].lines().collect();
    let other = format!("{}\nhello world\n{}\n", full[0], full[2..].join("\n"));
    std::fs::write(partial.join("family.db"), &other).unwrap();
    let db_path = partial.join("family.db");
    let db_arg = db_path.to_str().unwrap();
    let (code, _, stderr) =
        family_output(&["corpora/families/rush4x4.family", "--out", out, "--db", db_arg, "--resume"]);
    assert_eq!(code, Some(2), "{stderr}");
    let want = format!(
        "error: cannot resume: {}: line 2 is not a database line of this family (2 fields where 3 are: moves, \
         layout, size): 'hello world'\n",
        db_path.display()
    );
    assert_eq!(stderr, want);
    assert_eq!(std::fs::read_to_string(&db_path).unwrap(), other);
    // A database file short of the finished classes' lines, as a power failure may leave it
    // (here: empty): the classes from the first with a line run again, to the same files.
    std::fs::write(partial.join("family.db"), "").unwrap();
    let rows: Vec<&str> = whole[1].lines().skip(1).collect();
    let again = rows.len() - rows.iter().position(|r| !r.ends_with(",0")).unwrap();
    let (code, resumed, files_now, stderr) = rush4x4_db_run(&partial, &["--resume"]);
    assert_eq!((code, resumed, &files_now), (Some(0), totals, &whole));
    let want = format!("warning: {out}: the last {again} classes in classes.csv lack some of their");
    assert!(stderr.starts_with(&want), "{stderr}");
}

#[test]
fn a_resume_refuses_finished_results_that_do_not_read_and_runs_no_class() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, whole, stderr) = rush4x4_db_run(&dir.path().join("whole"), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let case = dir.path().join("case");
    let (components, classes, db) = (case.join("components.csv"), case.join("classes.csv"), case.join("family.db"));
    // `text` with its line `n` (from 1) changed by `f`.
    let changed = |text: &str, n: usize, f: &dyn Fn(&str) -> String| -> String {
        text.lines().enumerate().map(|(i, l)| if i + 1 == n { f(l) } else { l.to_string() } + "\n").collect()
    };
    // `line` with its comma-separated field `i` replaced by `value`.
    let field = |i: usize, value: &str| {
        let value = value.to_string();
        move |line: &str| {
            let mut fields: Vec<String> = line.split(',').map(String::from).collect();
            fields[i] = value.clone();
            fields.join(",")
        }
    };
    let first_class = whole[1].lines().nth(1).unwrap().split(',').next().unwrap().to_string();
    assert_eq!(first_class, "A=1 empty=14");
    let db_line = whole[2].lines().next().unwrap().to_string();
    let layout = db_line.split(' ').nth(1).unwrap().to_string();
    let garbage = "0,A=1 empty=14,abc,xyz,1,hello,world".to_string();
    let cases: Vec<(usize, String, String)> = vec![
        (0, changed(&whole[0], 2, &|_| garbage.clone()), format!("{}: line 2: bad size: 'abc'", components.display())),
        (
            0,
            changed(&whole[0], 2, &field(3, "-1")),
            format!("{}: line 2: bad goal_layouts: '-1'", components.display()),
        ),
        (
            0,
            changed(&whole[0], 2, &field(6, "abcd/efgh")),
            format!(
                "{}: line 2: bad representative: 'abcd/efgh' is not a layout of 4 rows of 4 cells",
                components.display()
            ),
        ),
        (
            1,
            changed(&whole[1], 2, &field(0, "Q=1 empty=14")),
            format!("{}: line 2: 'Q=1 empty=14' is not a class of this family", classes.display()),
        ),
        (
            2,
            changed(&whole[2], 1, &|_| format!("99999999999999999999 {layout} 5")),
            format!(
                "{}: line 1 is not a database line of this family (moves '99999999999999999999' is not a count of \
                 at most 4294967295): '99999999999999999999 {layout} 5'",
                db.display()
            ),
        ),
        (
            2,
            changed(&whole[2], 1, &|_| format!("05 {layout} 99999999999999999999999")),
            format!(
                "{}: line 1 is not a database line of this family (size '99999999999999999999999' is not a count \
                 of at most 18446744073709551615): '05 {layout} 99999999999999999999999'",
                db.display()
            ),
        ),
    ];
    for (file, text, why) in cases {
        std::fs::create_dir_all(&case).unwrap();
        std::fs::copy(dir.path().join("whole/run.json"), case.join("run.json")).unwrap();
        let mut files = whole.clone();
        files[file] = text;
        for (path, text) in [&components, &classes, &db].into_iter().zip(&files) {
            std::fs::write(path, text).unwrap();
        }
        let (code, stdout, stderr) = rush4x4_db_output(&case, &["--resume"]);
        assert_eq!((code, stdout.as_str(), stderr), (Some(2), "", format!("error: cannot resume: {why}\n")));
        assert_eq!(rush4x4_db_files(&case), files);
        assert_eq!(std::fs::read_dir(&case).unwrap().count(), 4, "no other file is left");
        std::fs::remove_dir_all(&case).unwrap();
    }
}

#[test]
fn a_run_whose_classes_name_kinds_without_pieces_resumes() {
    // Earlier versions wrote a class as every kind's count, zeros included: a run they left
    // resumes, its rows as they are, and the classes it finished are not run again.
    let dir = tempfile::tempdir().unwrap();
    let (code, totals, whole, stderr) = rush4x4_db_run(&dir.path().join("whole"), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let old_form = |class: &str| {
        let counts: std::collections::HashMap<&str, &str> =
            class.split_whitespace().filter_map(|w| w.split_once('=')).collect();
        let kinds = ["A", "H", "V", "T", "U"].map(|k| format!("{k}={}", counts.get(k).unwrap_or(&"0")));
        format!("{} empty={}", kinds.join(" "), counts["empty"])
    };
    assert_eq!(old_form("A=1 V=2 empty=8"), "A=1 H=0 V=2 T=0 U=0 empty=8");
    let with_class = |line: &str, field: usize, f: &dyn Fn(&str) -> String| {
        let mut fields: Vec<String> = line.split(',').map(String::from).collect();
        fields[field] = f(&fields[field]);
        fields.join(",")
    };
    let classes: Vec<String> = whole[1]
        .lines()
        .take(101)
        .enumerate()
        .map(|(i, l)| if i == 0 { l.into() } else { with_class(l, 0, &old_form) })
        .collect();
    let done: std::collections::HashSet<String> =
        whole[1].lines().skip(1).take(100).map(|l| l.split(',').next().unwrap().to_string()).collect();
    let lines_done: usize =
        whole[1].lines().skip(1).take(100).map(|c| c.rsplit(',').next().unwrap().parse::<usize>().unwrap()).sum();
    let mut components = vec![whole[0].lines().next().unwrap().to_string()];
    components.extend(
        whole[0]
            .lines()
            .skip(1)
            .take_while(|l| done.contains(l.split(',').nth(1).unwrap()))
            .map(|l| with_class(l, 1, &old_form)),
    );
    let partial = dir.path().join("partial");
    std::fs::create_dir_all(&partial).unwrap();
    std::fs::copy(dir.path().join("whole/run.json"), partial.join("run.json")).unwrap();
    std::fs::write(partial.join("classes.csv"), classes.join("\n") + "\n").unwrap();
    std::fs::write(partial.join("components.csv"), components.join("\n") + "\n").unwrap();
    let db: Vec<&str> = whole[2].lines().take(lines_done).collect();
    std::fs::write(partial.join("family.db"), db.join("\n") + "\n").unwrap();
    assert!(lines_done > 0 && lines_done < 32 && components.len() > 100, "{lines_done}");
    let (code, resumed, files, stderr) = rush4x4_db_run(&partial, &["--resume"]);
    assert_eq!((code, resumed), (Some(0), totals), "{stderr}");
    // Read back as the classes they name, the files are the uninterrupted run's.
    let keyed = |text: &str, field: usize| -> Vec<String> {
        text.lines().map(|l| with_class(l, field, &|c: &str| slidesolve::family::class_key(c))).collect()
    };
    assert_eq!(
        (keyed(&files[0], 1), keyed(&files[1], 0), &files[2]),
        (keyed(&whole[0], 1), keyed(&whole[1], 0), &whole[2])
    );
    assert_ne!(files[1], whole[1]);
}

#[test]
fn a_run_stopped_by_its_timeout_leaves_no_unfinished_class_and_resumes_to_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let run = |sub: &str, extra: &[&str]| rush4x4_db_run(&dir.path().join(sub), extra);
    let (code, totals, whole, _) = run("whole", &[]);
    assert_eq!((code, &totals["stopped"], &totals["database_lines"]), (Some(0), &Value::Null, &32.into()));
    // A deadline already past stops the first class: nothing is counted and only headers are written.
    let (code, stopped, files, stderr) = run("partial", &["--timeout", "0"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stopped["stopped"], "class A=1 empty=14: time limit reached");
    assert_eq!(
        (&stopped["layouts"], &stopped["classes"], &stopped["database_lines"]),
        (&0.into(), &0.into(), &0.into())
    );
    let header = |text: &str| text.lines().take(1).map(|l| format!("{l}\n")).collect::<String>();
    assert_eq!(files, [header(&whole[0]), header(&whole[1]), String::new()]);
    // The text report says where it stopped (resumed with the settings it started with).
    let out = dir.path().join("partial");
    let (code, text, _) = family_output(&[
        "corpora/families/rush4x4.family",
        "--out",
        out.to_str().unwrap(),
        "--db",
        out.join("family.db").to_str().unwrap(),
        "--resume",
        "--timeout",
        "0",
    ]);
    assert_eq!(code, Some(1));
    assert!(
        text.contains(
            "stopped early: class A=1 empty=14: time limit reached; the counts cover the classes before it\n"
        ),
        "{text}"
    );
    // Resumed without a deadline, the run ends as the uninterrupted one did.
    let (code, resumed, files, _) = run("partial", &["--resume"]);
    assert_eq!((code, resumed, files), (Some(0), totals, whole));
}

#[test]
fn a_deadline_stops_a_long_listing_of_classes_as_it_stops_a_class() {
    // 30 kinds of two cells with open counts on 64 cells: about 2 x 10^17 classes, so many that
    // listing the first million (the most a run takes) outlasts a deadline already past.
    let dir = tempfile::tempdir().unwrap();
    let kinds: String =
        (0..30).map(|k| format!("kind: {} X{}X b 0..\n", (b'a' + k as u8) as char, ".".repeat(k))).collect();
    let spec = dir.path().join("many.family");
    std::fs::write(&spec, format!("goal: A at 0,0\nkind: A 1x1 b 1\n{kinds}board:\n{}", "........\n".repeat(8)))
        .unwrap();
    let out = dir.path().join("out");
    let args = [spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--timeout", "0"];
    let (code, text, stderr) = family_output(&args);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(text.contains("classes: 0 with layouts, 0 without\n"), "{text}");
    assert!(text.contains("stopped early: listing the classes: time limit reached;"), "{text}");
    let (code, json, stderr) = family_output(&[&args[..], &["--resume", "--json"]].concat());
    assert_eq!(code, Some(1), "{stderr}");
    let json: Value = serde_json::from_str(&json).unwrap();
    assert_eq!((&json["stopped"], &json["classes"]), (&"listing the classes: time limit reached".into(), &0.into()));
    // Given the time, the listing ends at the most classes a run takes, an input error.
    let (code, _, stderr) = family_output(&[&args[..3], &["--force"]].concat());
    assert_eq!(code, Some(2));
    assert!(stderr.contains("the count ranges allow more than 1048576 piece-count classes"), "{stderr}");
}

#[test]
fn a_past_deadline_stops_a_class_in_either_analysis_and_in_the_database_tests() {
    use slidesolve::family::{db, graph::Analyse, seeds::AnalyseBySeeds};
    use slidesolve::search::LimitHit;
    let card = "oBBBCCooFoDDooFAAHooFooHooGEEEooGooo";
    let puzzle = slidesolve::format::rush::parse_line(card, 1).unwrap().puzzle;
    let primary = puzzle.piece_index("A").unwrap();
    let past = Some(std::time::Instant::now());
    let whole = |deadline| Analyse { moved: true, deadline, ..Analyse::within(u64::MAX) };
    let by_seeds = |deadline| AnalyseBySeeds {
        memory_limit: u64::MAX,
        order: None,
        invariant: None,
        starts: None,
        moved: true,
        solvable_only: true,
        row_chars: 0,
        deadline,
    };
    let analyse = |task: Analyse| {
        with_block_tables(&puzzle, u64::MAX, Placements::Reachable, None, task).unwrap().unwrap().unwrap()
    };
    // The clock is read before the first layout is listed, and then every 16,384 steps.
    let stopped = analyse(whole(past));
    assert_eq!((stopped.stopped, stopped.layouts, stopped.components.len()), (Some(LimitHit::Time), 0, 0));
    let stopped =
        with_block_tables(&puzzle, u64::MAX, Placements::Reachable, None, by_seeds(past)).unwrap().unwrap().unwrap();
    assert_eq!((stopped.stopped, stopped.layouts, stopped.components.len()), (Some(LimitHit::Time), 0, 0));
    let all =
        with_block_tables(&puzzle, u64::MAX, Placements::Reachable, None, by_seeds(None)).unwrap().unwrap().unwrap();
    assert_eq!(all.stopped, None);
    let solvable = analyse(whole(None)).solvable_only();
    assert_eq!((all.layouts, &all.components), (solvable.layouts, &solvable.components));
    let component = &all.components[all.start_component.unwrap()];
    let stopped = db::lines(&puzzle, primary, std::slice::from_ref(component), ("card", u64::MAX, past));
    assert_eq!(stopped.unwrap_err().to_string(), "class card: time limit reached");
}

#[test]
fn a_bad_spec_is_bad_input_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.family");
    std::fs::write(&path, "goal: A at 0,0\nkind: A 1x1 q 1\nboard:\n..\n").unwrap();
    let out = Command::cargo_bin("slidesolve").unwrap().arg("family").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2"), "{}", String::from_utf8_lossy(&out.stderr));
    // A goal no layout can meet (here on a wall) is refused before any layout is listed.
    std::fs::write(&path, "metric: free\ngoal: A at 0,1\nkind: A 1x1 b 1\nboard:\n.#\n").unwrap();
    let out = Command::cargo_bin("slidesolve").unwrap().arg("family").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).replace(&path.display().to_string(), "FILE");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr.trim_end(),
        "error: FILE: line 2: goal: kind A at 0,1 does not fit on the open cells of the 1x2 board"
    );
    // The database rule picks its own hardest layouts: a spec with a start cannot use it.
    std::fs::write(&path, format!("start: A at 1,0\n{}", std::fs::read_to_string(RUSH_4X4).unwrap())).unwrap();
    let db = dir.path().join("db.txt");
    let out = Command::cargo_bin("slidesolve").unwrap().arg("family").arg(&path).arg("--db").arg(&db).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).replace(&path.display().to_string(), "FILE");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr.trim_end(),
        "error: FILE: the database rule picks its own hardest layouts; a spec with 'start:' cannot use it"
    );
}

/// The database line the rule gives the cluster of a Rush Hour card's layout. The card's walls
/// (`x`, closed cells of its board) become immovable 1x1 pieces, as in the wall family
/// (`rush6x6-walls2.family`), where each takes a letter.
fn database_line(card: &str) -> Option<String> {
    use slidesolve::family::{db, graph::Analyse};
    use slidesolve::puzzle::{Movement, Piece, Shape};
    let mut puzzle = slidesolve::format::rush::parse_line(card, 1).unwrap().puzzle;
    let cols = puzzle.board.cols;
    for i in 0..puzzle.board.cell_count() {
        if !puzzle.board.open[i] {
            puzzle.board.open[i] = true;
            let wall = Piece { name: format!("x{i}"), shape: Shape::rectangle(1, 1), movement: Movement::None };
            puzzle.pieces.push(wall);
            puzzle.start.push((i / cols, i % cols));
        }
    }
    let primary = puzzle.piece_index("A").unwrap();
    let ranker = db::Ranker::new(&puzzle);
    let rank = |anchors: &[(usize, usize)]| ranker.rank(anchors);
    let eligible = |anchors: &[(usize, usize)]| db::invariants_hold(&puzzle, primary, anchors);
    let analyse = Analyse { order: Some(&rank), invariant: Some(&eligible), moved: true, ..Analyse::within(u64::MAX) };
    let analysis =
        with_block_tables(&puzzle, u64::MAX, Placements::Reachable, None, analyse).unwrap().unwrap().unwrap();
    let component = &analysis.components[analysis.start_component?];
    db::lines(&puzzle, primary, std::slice::from_ref(component), ("card", u64::MAX, None)).unwrap().0.pop()
}

#[test]
fn every_sample_line_of_foglemans_database_is_reproduced_from_its_cluster() {
    let text = std::fs::read_to_string("corpora/rush/tuler_rush_sample46.txt").unwrap();
    assert_eq!(text.lines().count(), 46);
    for line in text.lines() {
        assert_eq!(database_line(line).as_deref(), Some(line));
    }
}

#[test]
fn every_level_of_the_public_level_list_is_its_clusters_database_line() {
    // tuler/rush-hour's `levels.txt` holds lines of the public database with walls (132 of its
    // 200 have one or two); its first line is not its cluster's (2 moves solve it, not 5).
    let text = std::fs::read_to_string("corpora/rush/tuler_levels200.txt").unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!((lines.len(), lines.iter().filter(|l| l.contains('x')).count()), (200, 132));
    assert_eq!(database_line(lines[0]).as_deref(), Some("02 oooooooooooBAAoooBoooooooooooooooooo 23"));
    for line in &lines[1..] {
        assert_eq!(database_line(line).as_deref(), Some(*line));
    }
}

#[test]
fn a_cluster_with_a_filled_line_has_no_database_line() {
    // Row 0 filled by two trucks, column 5 by two vertical trucks; otherwise a one-move puzzle,
    // which the database would keep (checked with the filled line emptied).
    assert_eq!(database_line("BBBCCCooooooAAoooooooooooooooooooooo"), None);
    assert_eq!(database_line("oooooBoooooBAAoooBoooooCoooooCoooooC"), None);
    assert_eq!(
        database_line("ooooooooooooAAoooooooooooooooooooooo").as_deref(),
        Some("01 ooooooooooooAAoooooooooooooooooooooo 5")
    );
}

#[test]
#[ignore = "79 million layouts, 42 million of them solvable, about half a minute in release: run with --ignored"]
fn the_published_hardest_rush_hour_line_comes_out_of_its_class() {
    // The class of Fogleman's hardest puzzle without walls (51 moves, a cluster of 4,780): the
    // rush6x6 spec with the counts of that card (A, four cars and a truck lying, five cars and
    // two trucks standing), analysed from seeds under the database rule: of its 79,003,602
    // layouts, the 41,607,671 in its 240,860 solvable components.
    let text = std::fs::read_to_string("corpora/families/rush6x6.family").unwrap();
    let spec = spec::parse(&text).unwrap();
    let class = family::classes(&spec, u64::MAX, None)
        .unwrap()
        .into_iter()
        .find(|c| c.counts == [(0, 1), (1, 4), (2, 5), (3, 1), (4, 2)])
        .unwrap();
    let settings = family::Settings {
        memory_limit: 4 << 30,
        database: true,
        method: family::Method::Seeds,
        solvable_only: true,
        layouts: false,
        deadline: None,
    };
    let r = family::analyse_class(&spec, &class, settings).unwrap();
    assert_eq!((r.layouts, r.components.len(), r.database.as_ref().unwrap().len()), (41_607_671, 240_860, 1_111));
    let hardest = r.database.as_ref().unwrap().iter().max_by_key(|l| l[..2].parse::<u32>().unwrap()).unwrap();
    assert_eq!(hardest, "51 GBBoLoGHIoLMGHIAAMCCCKoMooJKDDEEJFFo 4780");
}

#[test]
fn without_components_a_run_writes_and_resumes_the_same_classes_and_lines() {
    let dir = tempfile::tempdir().unwrap();
    let run = |sub: &str, extra: &[&str]| {
        let out = dir.path().join(sub);
        let db = out.join("family.db");
        let (out, db) = (out.to_str().unwrap(), db.to_str().unwrap());
        let args = [&["corpora/families/rush4x4.family", "--out", out, "--db", db][..], extra].concat();
        let (code, _, stderr) = family_output(&args);
        (code, stderr)
    };
    let read = |sub: &str, file: &str| std::fs::read_to_string(dir.path().join(sub).join(file)).ok();
    assert_eq!(run("with", &[]).0, Some(0));
    assert_eq!(run("without", &["--no-components"]).0, Some(0));
    assert_eq!(read("without", "components.csv"), None);
    for file in ["classes.csv", "family.db"] {
        assert_eq!(read("without", file), read("with", file), "{file}");
    }
    // Killed after 100 classes, then resumed.
    let classes = read("with", "classes.csv").unwrap();
    let classes: Vec<&str> = classes.lines().take(101).collect();
    let lines: usize = classes[1..].iter().map(|c| c.rsplit(',').next().unwrap().parse::<usize>().unwrap()).sum();
    let db = read("with", "family.db").unwrap();
    std::fs::write(dir.path().join("without/classes.csv"), classes.join("\n") + "\n").unwrap();
    std::fs::write(dir.path().join("without/family.db"), db.lines().take(lines).collect::<Vec<_>>().join("\n") + "\n")
        .unwrap();
    let (code, stderr) = run("without", &["--resume"]);
    assert_eq!(code, Some(2));
    assert!(stderr.ends_with(": the run was started with --no-components\n"), "{stderr}");
    assert_eq!(run("without", &["--resume", "--no-components"]).0, Some(0));
    assert_eq!(read("without", "components.csv"), None);
    for file in ["classes.csv", "family.db"] {
        assert_eq!(read("without", file), read("with", file), "{file}");
    }
    // Pictures need the component rows.
    let (code, stderr) = run("without", &["--no-components", "--draw-hardest", "2"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

#[test]
fn the_seeds_of_a_class_count_against_the_memory_limit() {
    // Immovable pieces: every one of the 16 × C(15,3) = 7,280 layouts is a seed and a component of
    // its own, so the listed seeds (a key twice while they are listed and joined) pass 32 KiB before any
    // component does.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("still.family");
    std::fs::write(&path, "goal: A at 0,0\nkind: A 1x1 n 1\nkind: W 1x1 n 3\nboard:\n....\n....\n....\n....\n")
        .unwrap();
    let run = |limit: &str| {
        let out = Command::cargo_bin("slidesolve")
            .unwrap()
            .args(["family", path.to_str().unwrap(), "--method", "seeds", "--threads", "1", "--max-memory", limit])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, _, stderr) = run("32K");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "class A=1 W=3 empty=12: the seeds of the class (2049 listed) would need 32784 B (more than the memory limit of 32768 B)"
        ),
        "{stderr}"
    );
    let (code, stdout, stderr) = run("64M");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("layouts: 7280\ncomponents: 7280 (455 solvable)"), "{stdout}");
}

/// A class over `--max-memory` once classes are finished stops the run as `--timeout` does: the
/// summary of the classes before it, the class's message as the reason, exit 1, and `--resume`
/// goes on from it. (A class over it before any is finished is refused, exit 2: above.)
#[test]
fn a_class_over_the_memory_limit_after_finished_classes_stops_the_run() {
    // Immovable pieces, 0 to 3 of them beside A: 16, 240, 1,680 and 7,280 layouts, each a
    // component of its own; the third class's components are over 64 KiB.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("still.family");
    std::fs::write(&path, "goal: A at 0,0\nkind: A 1x1 n 1\nkind: W 1x1 n 0..3\nboard:\n....\n....\n....\n....\n")
        .unwrap();
    let (spec, out) = (path.to_str().unwrap(), dir.path().join("out"));
    let run = |extra: &[&str]| family_output(&[&[spec, "--method", "seeds", "--threads", "1"][..], extra].concat());
    let why = "class A=1 W=2 empty=13: the tables of a component and 1680 components found would need 448.0 KiB \
               (more than the memory limit of 64.0 KiB)";
    let (code, stdout, stderr) = run(&["--max-memory", "64K"]);
    assert_eq!((code, stderr.as_str()), (Some(1), ""));
    let summary = format!(
        "classes: 2 with layouts, 0 without\nlayouts: 256\ncomponents: 256 (16 solvable)\nlargest component: 1 \
         (class A=1 empty=15)\nhardest: 0 moves (class A=1 empty=15)\nstopped early: {why}; the counts cover the \
         classes before it\n"
    );
    assert!(stdout.contains(&summary), "{stdout}");
    let (code, stdout, _) = run(&["--max-memory", "64K", "--json"]);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!((code, &json["stopped"], &json["classes"]), (Some(1), &Value::from(why), &Value::from(2)));
    // The two classes are written, and a larger budget goes on from the third.
    let out = out.to_str().unwrap();
    assert_eq!(run(&["--max-memory", "64K", "--out", out, "--no-components"]).0, Some(1));
    let classes = std::fs::read_to_string(dir.path().join("out/classes.csv")).unwrap();
    assert_eq!(classes.lines().count(), 3, "{classes}");
    let (code, stdout, stderr) = run(&["--out", out, "--no-components", "--resume"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("classes: 4 with layouts, 0 without\nlayouts: 9216\n"), "{stdout}");
}

/// `--max-memory` bounds the tables of every class analysed side by side, not of each class: on
/// four threads each class gets a quarter, and a class that needs more runs again alone with the
/// whole budget (and, where its searches side by side on every thread still need more, on one
/// thread), so a budget that the largest class fits gives the one-thread results, and a smaller
/// one the one-thread error. Both methods: the whole-class tables, and the seeds searches, which
/// split their budget among the threads.
#[test]
fn the_memory_budget_holds_for_the_classes_side_by_side() {
    for (path, method) in [
        ("corpora/families/walled-4x4.family", family::Method::Whole),
        ("corpora/families/rush4x4.family", family::Method::Seeds),
    ] {
        let spec = spec::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let classes = family::classes(&spec, u64::MAX, None).unwrap();
        let settings = |memory_limit| family::Settings {
            memory_limit,
            database: false,
            method,
            solvable_only: false,
            layouts: true,
            deadline: None,
        };
        let run = |limit: u64, threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut got = Vec::new();
            let peak = pool.install(|| {
                family::run(&spec, &classes, settings(limit), &mut |_, r| {
                    got.push(r);
                    Ok(())
                })
            });
            (peak, got)
        };
        let (_, alone) = run(u64::MAX, 1);
        let largest = alone.iter().map(|r| r.peak_bytes).max().unwrap();
        let over_a_quarter = alone.iter().filter(|r| r.peak_bytes > largest / 4).count();
        assert!(over_a_quarter >= 3, "{path}: {over_a_quarter} classes need more than a quarter of the budget");
        let results: u64 = alone.iter().map(|r| r.bytes()).sum();
        let rows =
            |rs: &[family::ClassResult]| rs.iter().map(|r| (r.class.clone(), r.components.clone())).collect::<Vec<_>>();
        for threads in [2, 4] {
            let (peak, side_by_side) = run(largest, threads);
            assert_eq!(rows(&side_by_side), rows(&alone), "{path} on {threads} threads");
            // The tables side by side stay within the budget; the results waiting to be written
            // and the ledger (96 bytes a class) come on top.
            let (peak, ledger) = (peak.outcome.map(|()| peak.peak_bytes).unwrap(), 96 * classes.len() as u64);
            assert!(peak <= largest + results + ledger, "{path}: peak {peak} over {largest} + {results} + {ledger}");
            assert!(peak >= largest, "{path}: peak {peak} under the largest class's {largest}");
        }
        let (one_thread, _) = run(largest / 8, 1);
        let message = one_thread.outcome.unwrap_err().to_string();
        assert!(message.contains("would need"), "{path}: {message}");
        for threads in [2, 4] {
            let (side_by_side, _) = run(largest / 8, threads);
            assert_eq!(side_by_side.outcome.unwrap_err().to_string(), message, "{path} on {threads} threads");
        }
    }
}

/// Under a 128 MiB address space, `--max-memory 1000T` is lowered to all of it; the binary, the
/// stacks and the allocator's reservations take part of that, so a class's tables, or the small
/// allocations beside them (result rows, layouts), fail before the budget says they should. A
/// failed allocation stops the class at the memory limit (exit 1, the classes before it written,
/// resumable), where it used to abort the process: the whole-class analysis (Klotski) and the seeds
/// searches (Rush Hour with walls), each analysed beside another class and then alone.
#[test]
fn memory_the_process_cannot_have_stops_a_family_at_a_class_and_the_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("slidesolve");
    let limited = |args: &str| {
        let command = format!("ulimit -v 131072 && exec {} family {args} --max-memory 1000T", bin.display());
        let run = std::process::Command::new("sh").args(["-c", &command]).output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
        assert_eq!(run.status.code(), Some(1), "{args}: {stdout}{stderr}");
        assert!(stdout.contains(": memory limit reached; the counts cover the classes before it"), "{args}: {stdout}");
        assert!(stderr.starts_with("warning: --max-memory 1000T is more than this process can have"), "{stderr}");
    };
    limited(&format!("corpora/families/klotski.family --out {out}"));
    limited("corpora/families/rush6x6-walls2.family");
    // The classes written before the stop are kept; the rest, with memory enough, give the
    // family's published totals (results/families/klotski.md).
    let (code, stdout, stderr) = family_output(&["corpora/families/klotski.family", "--out", out, "--resume"]);
    assert_eq!(code, Some(0), "{stderr}");
    let totals = "layouts: 29334498\ncomponents: 25422 (1981 solvable)\nlargest component: 964656 (class A=1 V=1 \
                  H=1 S=6 empty=6)\nhardest: 138 moves (class A=1 V=3 H=2 S=4 empty=2)\n";
    assert!(stdout.contains(totals), "{stdout}");
}

#[test]
fn a_run_stopped_before_its_first_class_resumes_only_with_the_settings_it_started_with() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r5");
    let (code, stopped, files, stderr) = rush4x4_db_run(&out, &["--timeout", "0"]);
    assert_eq!((code, &stopped["classes"]), (Some(1), &0.into()), "{stderr}");
    assert_eq!(files[1], "class,layouts,components,largest,solvable,hardest_moves,database_lines\n");
    let run_json = std::fs::read_to_string(out.join("run.json")).unwrap();
    // Without --db, or with another spec: refused, and run.json is left as it is.
    let dir_arg = out.to_str().unwrap();
    let (code, stdout, stderr) =
        family_output(&["corpora/families/rush4x4.family", "--out", dir_arg, "--resume", "--threads", "1"]);
    assert_eq!(
        (code, stdout.as_str(), stderr),
        (Some(2), "", format!("error: cannot resume: {dir_arg}: the run was started with --db\n"))
    );
    let (code, _, stderr) = family_output(&[DOMINOES_3X3, "--out", dir_arg, "--resume"]);
    let want = format!(
        "error: cannot resume: {dir_arg}: the run was started with another spec (the one in {})\n",
        out.join("run.json").display()
    );
    assert_eq!((code, stderr), (Some(2), want));
    assert_eq!(std::fs::read_to_string(out.join("run.json")).unwrap(), run_json);
    // With its settings, it resumes to the files of an uninterrupted run.
    let (code, resumed, files, stderr) = rush4x4_db_run(&out, &["--resume"]);
    assert_eq!((code, &resumed["database_lines"], &resumed["classes"]), (Some(0), &32.into(), &93.into()), "{stderr}");
    assert_eq!((files[1].lines().count(), files[2].lines().count()), (163, 32));
}

#[test]
fn family_output_paths_that_cannot_be_written_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(path("afile"), "kept\n").unwrap();
    std::fs::create_dir(path("dbdir")).unwrap();
    let spec = "corpora/families/rush4x4.family";
    let refused = |args: &[&str], want: String| {
        let (code, stdout, stderr) = family_output(&[&[spec][..], args].concat());
        assert_eq!((code, stdout.as_str(), stderr), (Some(2), "", want), "{args:?}");
    };
    let (afile, dbdir, out) = (path("afile"), path("dbdir"), path("out"));
    refused(
        &["--out", &afile],
        format!("error: {afile} is not a directory; --out takes the directory of the results\n"),
    );
    let below = format!("{afile}/x");
    refused(&["--out", &below], format!("error: cannot write {below}: Not a directory (os error 20)\n"));
    let missing = format!("{}/x.db", path("nod"));
    let want = format!("error: cannot write {missing}: {} does not exist\n", path("nod"));
    refused(&["--out", &out, "--db", &missing], want);
    let want = format!("error: {dbdir} is a directory; --db takes the name of the database file\n");
    refused(&["--db", &dbdir], want.clone());
    refused(&["--db", &dbdir, "--force"], want);
    refused(&["--db", "/proc/x.db"], "error: cannot write /proc/x.db: No such file or directory (os error 2)\n".into());
    // Nothing was written (but the --out directory, made before the --db FILE is checked).
    assert_eq!(std::fs::read_to_string(&afile).unwrap(), "kept\n");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(&dbdir).unwrap().count(), 0);
}

#[test]
fn the_classes_of_the_largest_and_hardest_components_are_null_when_there_are_none() {
    // No layout at all: no component, nothing solvable.
    let v = family_json(&["corpora/families/pentominoes-6x10.family"]);
    let got = ["largest_component", "largest_class", "hardest_moves", "hardest_class"].map(|k| v[k].clone());
    assert_eq!(got, [0.into(), Value::Null, Value::Null, Value::Null]);
    let v = family_json(&["corpora/families/klotski-classic.family"]);
    let got = ["largest_class", "hardest_moves", "hardest_class"].map(|k| v[k].clone());
    let class = Value::from("A=1 V=4 H=1 S=4 empty=2");
    assert_eq!(got, [class.clone(), 93.into(), class]);
}

#[test]
fn family_help_says_what_max_memory_and_out_mean() {
    let out = Command::cargo_bin("slidesolve").unwrap().args(["family", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let after = |option: &str| help.lines().find_map(|l| l.trim_start().strip_prefix(option)).unwrap().trim_start();
    assert_eq!(
        after("--out <DIR>"),
        "Write `classes.csv` and `components.csv` (not with --no-components) into this directory, a class at a \
         time, and `run.json`, the settings the run started with"
    );
    assert_eq!(
        after("--max-memory <BYTES>"),
        "The budget of the tables of all classes analysed at once (e.g. 512M, 8G): each class gets an equal \
         share (BYTES / threads), and one that needs more runs again alone with all of it"
    );
}
