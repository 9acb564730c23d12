//! Every legal placement of a puzzle's piece set (reachable from the start or not) and the
//! connected components of the move graph among them: the kind of table published for Klotski
//! (65,880 placements of the classic piece set).

use crate::domain::{CompileError, Domain, DomainTask, with_domain};
use crate::puzzle::Puzzle;
use hashbrown::HashMap;
use serde::Serialize;
use std::ops::ControlFlow;

/// The components of the state graph over all legal placements.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Components {
    /// Legal placements of the piece set (identical pieces interchangeable unless `--distinct`).
    pub placements: u64,
    /// Connected components (moves are reversible, so these are the classes of mutually reachable states).
    pub components: u64,
    /// Size of the largest component.
    pub largest: u64,
    /// Size of the component holding the start.
    pub start_component: u64,
    /// Components with exactly one state (positions where nothing can move).
    pub isolated: u64,
}

/// Why components could not be counted.
#[derive(Debug, thiserror::Error)]
pub enum ComponentsError {
    /// The puzzle does not compile.
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// The placements and their union-find would not fit in the memory budget.
    #[error(transparent)]
    Memory(#[from] crate::memory::TooLarge),
    /// The domain cannot list its placements (sliding tiles: every permutation).
    #[error("--components lists placements of block pieces; for sliding tiles every permutation is a placement")]
    Unsupported,
}

/// Lists every legal placement and joins placements one move apart (union-find); the move tables
/// must fit in `memory_limit` bytes.
pub fn components(puzzle: &Puzzle, memory_limit: u64) -> Result<Components, ComponentsError> {
    Ok(with_domain(puzzle, memory_limit, Task { memory_limit })?.ok_or(ComponentsError::Unsupported)??)
}

/// The component count of a domain whose placements and their tables fit in `memory_limit` bytes.
struct Task {
    memory_limit: u64,
}

impl DomainTask for Task {
    type Output = Option<Result<Components, crate::memory::TooLarge>>;
    fn run<D: Domain>(self, domain: &D) -> Self::Output {
        // Per placement: its key, a hash-map entry (key, index, control byte, slack) and a parent.
        let per_placement = 3 * std::mem::size_of::<D::Key>() as u64 + 16;
        let most = (self.memory_limit / per_placement).min(u32::MAX as u64) as usize;
        let mut all: Vec<D::Key> = Vec::new();
        let listed = domain.for_each_placement(&mut |k| {
            all.push(k);
            if all.len() > most { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        });
        if !listed {
            return None;
        }
        if all.len() > most {
            let what = format!("the list of all placements (more than {most})");
            let bytes = crate::memory::product(&[all.len()], per_placement).unwrap_or(u64::MAX);
            return Some(Err(crate::memory::TooLarge { what, bytes, limit: self.memory_limit }));
        }
        let index: HashMap<D::Key, u32> = all.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
        let mut parent: Vec<u32> = (0..all.len() as u32).collect();
        fn root(parent: &mut [u32], mut i: u32) -> u32 {
            while parent[i as usize] != i {
                parent[i as usize] = parent[parent[i as usize] as usize];
                i = parent[i as usize];
            }
            i
        }
        let mut scratch = domain.scratch();
        for (i, key) in all.iter().enumerate() {
            domain.for_each_successor(key, &mut scratch, |child| {
                let j = *index.get(&child).expect("a move from a legal placement reaches a legal placement");
                let (a, b) = (root(&mut parent, i as u32), root(&mut parent, j));
                if a != b {
                    parent[a.max(b) as usize] = a.min(b);
                }
            });
        }
        let mut size: HashMap<u32, u64> = HashMap::new();
        for i in 0..all.len() as u32 {
            *size.entry(root(&mut parent, i)).or_insert(0) += 1;
        }
        let start = index.get(&domain.start()).map(|&s| root(&mut parent, s));
        Some(Ok(Components {
            placements: all.len() as u64,
            components: size.len() as u64,
            largest: size.values().copied().max().unwrap_or(0),
            start_component: start.map_or(0, |s| size[&s]),
            isolated: size.values().filter(|&&n| n == 1).count() as u64,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::grid;

    #[test]
    fn a_small_board_has_the_placements_a_hand_count_gives() {
        // On a 2x2 board: A (named by the goal, so distinct) in any of 4 cells and the identical
        // B and C on 2 of the other 3: 4 * 3 = 12 placements. One blank on a 4-cycle keeps the
        // cyclic order, which B = C makes unique: one component.
        let p = grid::parse("goal: A at 1,1\nboard:\nAB\nC.\n", &Default::default()).unwrap().puzzle;
        assert_eq!(
            components(&p, u64::MAX).unwrap(),
            Components { placements: 12, components: 1, largest: 12, start_component: 12, isolated: 0 }
        );
        // Two pieces that may not move: every placement is its own component.
        let p = grid::parse("moves: A=n B=n\ngoal: A at 1,1\nboard:\nAB\n..\n", &Default::default()).unwrap().puzzle;
        assert_eq!(
            components(&p, u64::MAX).unwrap(),
            Components { placements: 1, components: 1, largest: 1, start_component: 1, isolated: 1 }
        );
    }
}
