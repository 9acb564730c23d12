//! Seeded random puzzle generation (reproducible: ChaCha8, whose output is fixed by its crate).

use crate::format::tiles::TileLayout;
use crate::parity::layouts_connected;
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

/// Whether `layout` can reach `goal` (same shape).
pub fn same_parity_class(layout: &TileLayout, goal: &TileLayout) -> bool {
    layouts_connected(&layout.cells, &goal.cells, layout.rows, layout.cols)
}

/// `count` random layouts that can reach `goal`, drawn with `seed`.
pub fn random_tiles(goal: &TileLayout, count: usize, seed: u64, sampling: TileSampling) -> Vec<TileLayout> {
    random_tile_stream(goal, seed, sampling).take(count).collect()
}

/// An endless stream of random layouts that can reach `goal`, drawn with `seed`: the same layouts,
/// in the same order, as [`random_tiles`], one at a time (a big board's batch need not fit in memory).
pub fn random_tile_stream(goal: &TileLayout, seed: u64, sampling: TileSampling) -> impl Iterator<Item = TileLayout> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    std::iter::repeat_with(move || match sampling {
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
}

/// The goal after `steps` random blank moves, each uniform over the moves that do not undo the one
/// before.
fn random_walk(goal: &TileLayout, steps: usize, rng: &mut ChaCha8Rng) -> TileLayout {
    let mut layout = goal.clone();
    let (rows, cols) = (layout.rows, layout.cols);
    let mut blank = layout.cells.iter().position(|&t| t == 0).expect("one blank");
    let mut last: Option<Dir> = None;
    for _ in 0..steps {
        let mut options = [Dir::Up; 4];
        let mut count = 0;
        for d in Dir::ALL {
            let open = match d {
                Dir::Up => blank >= cols,
                Dir::Down => blank + cols < rows * cols,
                Dir::Left => blank % cols > 0,
                Dir::Right => blank % cols + 1 < cols,
            };
            if open && Some(d.opposite()) != last {
                options[count] = d;
                count += 1;
            }
        }
        let d = options[rng.random_range(0..count)];
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
