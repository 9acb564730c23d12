//! Seeded random puzzle generation (reproducible: ChaCha8, whose output is fixed by its crate).

use crate::format::tiles::TileLayout;
use crate::puzzle::Dir;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How random tile layouts are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileSampling {
    /// Uniform over the layouts that can reach the goal.
    Uniform,
    /// A random walk of this many blank moves from the goal (never undoing the previous move).
    Walk(usize),
}

/// Whether `layout` can reach `goal` (same shape, both boards at least 2×2).
pub fn same_parity_class(layout: &TileLayout, goal: &TileLayout) -> bool {
    let n = layout.cells.len();
    let mut goal_pos = vec![0usize; n];
    for (i, &t) in goal.cells.iter().enumerate() {
        goal_pos[t as usize] = i;
    }
    let mut perm: Vec<usize> = layout.cells.iter().map(|&t| goal_pos[t as usize]).collect();
    let mut swaps = 0;
    for i in 0..n {
        while perm[i] != i {
            let j = perm[i];
            perm.swap(i, j);
            swaps += 1;
        }
    }
    let blank = |l: &TileLayout| l.cells.iter().position(|&t| t == 0).expect("one blank");
    let (a, b) = (blank(layout), blank(goal));
    let cols = layout.cols;
    let distance = (a / cols).abs_diff(b / cols) + (a % cols).abs_diff(b % cols);
    swaps % 2 == distance % 2
}

/// `count` random layouts that can reach `goal`, drawn with `seed`.
pub fn random_tiles(goal: &TileLayout, count: usize, seed: u64, sampling: TileSampling) -> Vec<TileLayout> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| match sampling {
            TileSampling::Uniform => {
                let mut layout = goal.clone();
                layout.cells.shuffle(&mut rng);
                if !same_parity_class(&layout, goal) {
                    let tiles: Vec<usize> = (0..layout.cells.len()).filter(|&i| layout.cells[i] != 0).take(2).collect();
                    layout.cells.swap(tiles[0], tiles[1]);
                }
                layout
            }
            TileSampling::Walk(steps) => random_walk(goal, steps, &mut rng),
        })
        .collect()
}

fn random_walk(goal: &TileLayout, steps: usize, rng: &mut ChaCha8Rng) -> TileLayout {
    let mut layout = goal.clone();
    let (rows, cols) = (layout.rows, layout.cols);
    let mut blank = layout.cells.iter().position(|&t| t == 0).expect("one blank");
    let mut last: Option<Dir> = None;
    for _ in 0..steps {
        let options: Vec<Dir> = Dir::ALL
            .into_iter()
            .filter(|&d| Some(d.opposite()) != last)
            .filter(|&d| match d {
                Dir::Up => blank >= cols,
                Dir::Down => blank + cols < rows * cols,
                Dir::Left => blank % cols > 0,
                Dir::Right => blank % cols + 1 < cols,
            })
            .collect();
        let d = options[rng.random_range(0..options.len())];
        let next = match d {
            Dir::Up => blank - cols,
            Dir::Down => blank + cols,
            Dir::Left => blank - 1,
            Dir::Right => blank + 1,
        };
        layout.cells.swap(blank, next);
        blank = next;
        last = Some(d);
    }
    layout
}
