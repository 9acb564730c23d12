//! Search algorithms, one per file, generic over [`Domain`](crate::domain::Domain).

pub mod best_first;
pub mod bfs;
pub mod bidir;
pub mod constructive;
pub mod depth_first;
pub mod frontier;
pub mod reference;
pub mod stats;
pub mod tile_idastar;
pub mod visited;

pub use stats::Stats;

use crate::memory;
use std::fmt;
use std::time::Instant;

/// Resource limits for one search; a search that hits one stops cleanly with [`Outcome::Limit`].
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Stop after storing this many states.
    pub max_states: Option<u64>,
    /// Stop when the search structures would exceed this many bytes (None: the default budget,
    /// [`memory::default_limit`]).
    pub max_memory: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
}

/// Which limit stopped a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LimitHit {
    /// `max_states`.
    States,
    /// `max_memory`.
    Memory,
    /// The deadline.
    Time,
}

impl fmt::Display for LimitHit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LimitHit::States => "state limit reached",
            LimitHit::Memory => "memory limit reached",
            LimitHit::Time => "time limit reached",
        })
    }
}

/// A failed allocation is the memory limit: the process cannot have the bytes the budget allowed.
impl From<std::collections::TryReserveError> for LimitHit {
    fn from(_: std::collections::TryReserveError) -> Self {
        LimitHit::Memory
    }
}

/// A hash table that cannot grow is at the memory limit, as a vector is.
impl From<hashbrown::TryReserveError> for LimitHit {
    fn from(_: hashbrown::TryReserveError) -> Self {
        LimitHit::Memory
    }
}

/// Whether `deadline` (none: no deadline) has passed.
pub fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// The clock of one growing table or list of a search. A full one doubles, moving all it holds,
/// which on a table of gigabytes takes seconds in which no deadline is looked at (A* under
/// `--timeout 4` once ran 8.8 s); so a growth starts only if the deadline leaves room for twice the
/// time the last one took.
#[derive(Debug, Default)]
pub struct Growth {
    last: std::time::Duration,
}

impl Growth {
    /// Makes room for one more entry: nothing unless `full`, else `grow` (false: the memory is not
    /// there, [`LimitHit::Memory`]) if the deadline allows ([`LimitHit::Time`] if not).
    pub fn room(&mut self, full: bool, deadline: Option<Instant>, grow: impl FnOnce() -> bool) -> Result<(), LimitHit> {
        if !full {
            return Ok(());
        }
        let start = Instant::now();
        if deadline.is_some_and(|d| start + 2 * self.last >= d) {
            return Err(LimitHit::Time);
        }
        if !grow() {
            return Err(LimitHit::Memory);
        }
        self.last = start.elapsed();
        Ok(())
    }
}

impl Limits {
    /// The memory budget in bytes ([`memory::limit`]: `max_memory` lowered to what the process
    /// can have, else [`memory::default_limit`]).
    pub fn memory(&self) -> u64 {
        memory::limit(self.max_memory)
    }

    /// Whether the deadline has passed.
    pub fn timed_out(&self) -> bool {
        past(self.deadline)
    }

    /// The first limit exceeded by `stored` states in `bytes` bytes, if any.
    pub fn exceeded(&self, stored: u64, bytes: u64) -> Option<LimitHit> {
        self.over(stored, bytes).or_else(|| self.timed_out().then_some(LimitHit::Time))
    }

    /// The state or memory limit exceeded by `stored` states in `bytes` bytes, if any (the clock
    /// is not read).
    pub fn over(&self, stored: u64, bytes: u64) -> Option<LimitHit> {
        if self.max_states.is_some_and(|m| stored > m) {
            return Some(LimitHit::States);
        }
        (bytes > self.memory()).then_some(LimitHit::Memory)
    }

    /// What is left of these limits once `stored` states and `bytes` bytes are held elsewhere
    /// (e.g. by the other side of a bidirectional search).
    pub fn less(&self, stored: u64, bytes: u64) -> Limits {
        Limits {
            max_states: self.max_states.map(|m| m.saturating_sub(stored)),
            max_memory: Some(self.memory().saturating_sub(bytes)),
            deadline: self.deadline,
        }
    }
}

/// How a search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<K> {
    /// A goal was reached; the states from start to goal.
    Found(Vec<K>),
    /// Every reachable state was searched without reaching a goal.
    Exhausted,
    /// A limit stopped the search.
    Limit(LimitHit),
}

/// An outcome with its counters.
#[derive(Clone, Debug)]
pub struct SearchResult<K> {
    /// How it ended.
    pub outcome: Outcome<K>,
    /// What it did.
    pub stats: Stats,
}

/// A rayon pool whose threads have all started (a thread's start allocates, and must not meet a
/// memory the work used up): as many as asked, or, where they cannot be started (no room for
/// their stacks under `ulimit -v`, say), the calling thread alone. rayon's global pool, which the
/// work would fall back on, could not start either, and its first use would panic.
pub struct Workers {
    /// The pool; `None` when not even the calling thread alone could make one.
    pool: Option<rayon::ThreadPool>,
}

impl Workers {
    /// Starts `threads` threads (0 means one per core), or says on standard error that they cannot
    /// be started and takes the calling thread alone.
    pub fn start(threads: usize) -> Workers {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().or_else(|e| {
            let wanted = match threads {
                0 => "a thread per core".to_string(),
                n => format!("{n} threads"),
            };
            crate::traceln!("warning: cannot start {wanted} ({e}); running on this thread alone");
            rayon::ThreadPoolBuilder::new().num_threads(1).use_current_thread().build()
        });
        let pool = pool.ok();
        if let Some(pool) = &pool {
            // Every thread is up, its own allocations made, before the work can take the memory.
            pool.broadcast(|_| ());
        }
        Workers { pool }
    }

    /// How many threads run the work.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, rayon::ThreadPool::current_num_threads)
    }

    /// Runs `f` on them.
    pub fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(f),
            None => f(),
        }
    }
}

/// Runs `f` on `threads` threads (0 means one per core), all started before `f` begins, or on the
/// calling thread alone where they cannot be started ([`Workers`]).
pub fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    Workers::start(threads).run(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn never() -> bool {
        unreachable!("a table that is not full is not grown")
    }

    #[test]
    fn a_growth_starts_only_when_full_with_memory_and_twice_the_last_growths_time_left() {
        let mut growth = Growth::default();
        assert_eq!(growth.room(false, Some(Instant::now()), never), Ok(()));
        assert_eq!(growth.room(true, Some(Instant::now()), never), Err(LimitHit::Time));
        assert_eq!(growth.room(true, None, || false), Err(LimitHit::Memory));
        // A growth of 50 ms: the next needs 100 ms before the deadline.
        let slow = || {
            std::thread::sleep(Duration::from_millis(50));
            true
        };
        assert_eq!(growth.room(true, None, slow), Ok(()));
        assert!(growth.last >= Duration::from_millis(50));
        let soon = Instant::now() + Duration::from_millis(90);
        assert_eq!(growth.room(true, Some(soon), never), Err(LimitHit::Time));
        let later = Instant::now() + Duration::from_secs(3600);
        assert_eq!(growth.room(true, Some(later), || true), Ok(()));
    }
}
