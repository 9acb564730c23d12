//! The counters every search reports.

use serde::Serialize;

/// What one search did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Depth of the solution, or of the deepest level reached.
    pub depth: u32,
    /// States whose successors were generated.
    pub expanded: u64,
    /// Successors generated (before duplicate detection; BFS asks the domain for those of a
    /// state given its parent, see [`Domain::for_each_successor_from`](crate::domain::Domain::for_each_successor_from)).
    pub generated: u64,
    /// Distinct states stored; for a level-by-level search stopped by a limit inside a level, also
    /// the states of that level found when it stopped (when parallel chunks were stopped by the
    /// clock or the memory limit, their candidates, some of which may repeat a state).
    pub stored: u64,
    /// Peak bytes held by the search structures and the tables held beside them (pattern
    /// databases, the components of all placements).
    pub peak_bytes: u64,
    /// Wall-clock seconds.
    pub wall_s: f64,
}

/// The counts-only part of [`Stats`], for comparing runs whose times differ.
pub type Counts = (u32, u64, u64, u64);

impl Stats {
    /// Depth, expanded, generated and stored: everything that must not depend on threads.
    pub fn counts(&self) -> Counts {
        (self.depth, self.expanded, self.generated, self.stored)
    }
}
