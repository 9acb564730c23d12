//! What changes when work spans several processes (MPI ranks): who owns which state, the
//! per-level all-to-all exchange in bounded rounds, and (with the `mpi` feature) the work queue
//! that hands out the puzzles of a batch and the classes of a family.
//!
//! The engines talk to the other ranks only through [`Comm`]. In one process it is [`Local`]: one
//! rank that owns everything, whose exchanges hand the data back and whose sums are the values
//! themselves, so a laptop and a cluster run the same code. With the cargo feature `mpi`, a
//! program started by `mpirun`/`srun` with more than one rank gets the MPI world instead
//! ([`init`]).
//!
//! - [`Slices`]: contiguous ownership of an index range (the perfect-hash tile arrays).
//! - [`hash_owner`]: hash ownership of packed keys (the frontier BFS, [`bfs`]).
//! - [`exchange`]: an all-to-all of `u64` words in rounds that deliver at most [`max_round`] words
//!   to a rank, so MPI's 32-bit counts never overflow and buffers stay bounded.

#[cfg(feature = "mpi")]
pub mod batch;
pub mod bfs;
#[cfg(feature = "mpi")]
pub mod family;
#[cfg(feature = "mpi")]
mod mpi;
#[cfg(feature = "mpi")]
pub mod queue;

use std::sync::OnceLock;

/// The collective operations the distributed engines need.
pub trait Comm: Sync {
    /// This process's rank, `0..size()`.
    fn rank(&self) -> usize;
    /// Number of ranks.
    fn size(&self) -> usize;
    /// Replaces every value by its sum over all ranks (all-reduce).
    fn sum(&self, values: &mut [u64]);
    /// Replaces every value by its maximum over all ranks (all-reduce).
    fn max(&self, values: &mut [u64]);
    /// One all-to-all round: `data` holds the words for rank 0, then rank 1, …, `counts[r]` of
    /// them for rank `r` (each below 2^31); returns the words received, in source-rank order.
    fn all_to_all(&self, data: &[u64], counts: &[usize]) -> Vec<u64>;
    /// The concatenation of every rank's `local` words, in rank order (at most 2^31 words each).
    fn all_gather(&self, local: &[u64]) -> Vec<u64>;
}

/// The one-process world: rank 0 of 1.
#[derive(Clone, Copy, Debug, Default)]
pub struct Local;

impl Comm for Local {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn sum(&self, _values: &mut [u64]) {}
    fn max(&self, _values: &mut [u64]) {}
    fn all_to_all(&self, data: &[u64], _counts: &[usize]) -> Vec<u64> {
        data.to_vec()
    }
    fn all_gather(&self, local: &[u64]) -> Vec<u64> {
        local.to_vec()
    }
}

static WORLD: OnceLock<Box<dyn Comm + Send>> = OnceLock::new();

/// The world this process belongs to: the MPI world after [`init`] found several ranks, else
/// [`Local`].
pub fn world() -> &'static dyn Comm {
    match WORLD.get() {
        Some(world) => world.as_ref(),
        None => &Local,
    }
}

/// Whether this process is one of several ranks.
pub fn is_cluster() -> bool {
    world().size() > 1
}

/// Whether this process is rank 0, the one that reads and writes the user's files.
pub fn is_leader() -> bool {
    world().rank() == 0
}

/// Whether every rank is ready to go on: each says whether it is (an all-reduce that every rank
/// must reach, ready or not, so that a rank that cannot start stops the others instead of leaving
/// them waiting in the search); in one process, `ready` itself.
pub fn all_ready(ready: bool) -> bool {
    let mut not_ready = [u64::from(!ready)];
    world().max(&mut not_ready);
    not_ready[0] == 0
}

/// The exit code of the whole run: the largest any rank ends with (an all-reduce every rank must
/// reach), so that every rank, and so the launcher, ends with the same; in one process, `code`.
pub fn exit_code_of_all(code: i32) -> i32 {
    let mut largest = [u64::try_from(code).unwrap_or(0)];
    world().max(&mut largest);
    i32::try_from(largest[0]).unwrap_or(code)
}

#[cfg(feature = "mpi")]
pub use mpi::cluster;

/// Keeps MPI initialised while it lives; dropping it finalises MPI (every rank must drop it
/// before exiting, or `mpirun` reports an abnormal end).
pub struct Session {
    #[cfg(feature = "mpi")]
    _universe: Option<::mpi::environment::Universe>,
}

/// Joins the MPI world when the process was started by `mpirun`/`srun` with more than one rank
/// (and the `mpi` feature is built in); otherwise the process stays [`Local`] and MPI is never
/// touched.
pub fn init() -> Session {
    #[cfg(feature = "mpi")]
    {
        Session { _universe: mpi::join(&WORLD) }
    }
    #[cfg(not(feature = "mpi"))]
    Session {}
}

/// Ranks launched together, as the launcher's environment tells (Open MPI, MPICH/PMI, Slurm's
/// `srun`); 1 outside a launcher.
pub fn launched_ranks() -> usize {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"]
        .iter()
        .filter_map(|name| std::env::var(name).ok()?.trim().parse::<usize>().ok())
        .max()
        .unwrap_or(1)
}

/// This process's rank as the launcher's environment tells (`OMPI_COMM_WORLD_RANK`, `PMI_RANK`,
/// `SLURM_PROCID`); 0 outside a launcher. With the `mpi` feature it equals the world rank
/// ([`is_leader`]); without it, a launcher still starts several processes, each one running alone,
/// and this says which one is first, so that what they would all say alike (the `--max-memory`
/// warning, usage errors) is said once.
pub fn launched_rank() -> usize {
    if launched_ranks() <= 1 {
        return 0;
    }
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"]
        .iter()
        .find_map(|name| std::env::var(name).ok()?.trim().parse::<usize>().ok())
        .unwrap_or(0)
}

/// Ranks of this launch that run on this process's node, as the launcher's environment tells
/// (Open MPI's `OMPI_COMM_WORLD_LOCAL_SIZE`, MPICH's `MPI_LOCALNRANKS`, else the most tasks Slurm
/// puts on one node of the step, from `SLURM_STEP_TASKS_PER_NODE`); 1 outside a launcher or when
/// none of these is set. They share the node's memory ([`crate::memory::available`]).
pub fn ranks_on_this_node() -> usize {
    let launched = launched_ranks();
    if launched <= 1 {
        return 1;
    }
    let var = |name: &str| std::env::var(name).ok();
    let local = ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"]
        .iter()
        .find_map(|name| var(name)?.trim().parse::<usize>().ok())
        .or_else(|| most_tasks_per_node(&var("SLURM_STEP_TASKS_PER_NODE")?));
    // A node never holds more ranks than were launched. Without a count the process counts as
    // alone: the cap it sets could not be raised by `--max-memory`, whereas a budget can be lowered.
    local.unwrap_or(1).clamp(1, launched)
}

/// The most tasks on one node in Slurm's tasks-per-node list, such as `2(x3),1` (three nodes with
/// two tasks, one with one); `None` when the list does not read.
fn most_tasks_per_node(list: &str) -> Option<usize> {
    list.split(',')
        .map(|entry| {
            let count = entry.split_once('(').map_or(entry, |(count, _)| count);
            count.trim().parse::<usize>().ok()
        })
        .try_fold(0, |most, count| Some(most.max(count?)))
        .filter(|&most| most > 0)
}

/// Contiguous ownership of the indices `0..total`: rank `r` owns `range(r)`, the ranges in rank
/// order and of equal length (the last may be shorter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slices {
    /// Number of indices.
    pub total: u64,
    /// Indices per rank (the last rank may hold fewer).
    pub per_rank: u64,
}

impl Slices {
    /// `total` indices split over `ranks` ranks.
    pub fn new(total: u64, ranks: usize) -> Slices {
        Slices { total, per_rank: total.div_ceil(ranks.max(1) as u64).max(1) }
    }

    /// The indices rank `rank` owns.
    pub fn range(&self, rank: usize) -> std::ops::Range<u64> {
        let start = (rank as u64).saturating_mul(self.per_rank).min(self.total);
        start..start.saturating_add(self.per_rank).min(self.total)
    }

    /// The rank that owns `index`.
    #[inline]
    pub fn owner(&self, index: u64) -> usize {
        (index / self.per_rank) as usize
    }
}

/// The rank that owns a key with hash `mix` (a well-mixed 64-bit hash) among `ranks` ranks.
#[inline]
pub fn hash_owner(mix: u64, ranks: usize) -> usize {
    // The high bits: the low ones already pick the shard inside a rank.
    (((mix >> 32) * ranks as u64) >> 32) as usize
}

/// The most words one round of [`exchange`] delivers to one rank from all the others together:
/// `SLIDESOLVE_EXCHANGE_ROUND` when set (tests use a small value to exercise the splitting), else
/// 2^24 (128 MiB), far below MPI's 2^31 limit on a count.
pub fn max_round() -> usize {
    const DEFAULT: usize = 1 << 24;
    static ROUND: OnceLock<usize> = OnceLock::new();
    *ROUND.get_or_init(|| {
        std::env::var("SLIDESOLVE_EXCHANGE_ROUND")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .map_or(DEFAULT, |n| n.min(i32::MAX as usize))
    })
}

/// The most words one round of [`exchange`] carries from one rank to another among `ranks` ranks:
/// an equal share of [`max_round`] (at least one word).
pub fn max_round_from_each(ranks: usize) -> usize {
    (max_round() / ranks.max(1)).max(1)
}

/// Sends `outgoing[r]` to rank `r` and hands what the ranks sent here to `deliver`, one part per
/// all-to-all round, in source-rank order within a round. A round carries at most
/// [`max_round_from_each`] words from one rank to another, so a rank holds at most [`max_round`]
/// received words at once and MPI's 32-bit counts never overflow; every rank takes part in the same
/// number of rounds (the largest message decides). Returns the words this rank sent to others.
pub fn exchange(comm: &dyn Comm, outgoing: &[Vec<u64>], mut deliver: impl FnMut(&[u64])) -> u64 {
    let ranks = comm.size();
    debug_assert_eq!(outgoing.len(), ranks);
    if ranks == 1 {
        deliver(&outgoing[0]);
        return 0;
    }
    let limit = max_round_from_each(ranks);
    let mut rounds = [outgoing.iter().map(|v| v.len().div_ceil(limit) as u64).max().unwrap_or(0)];
    comm.max(&mut rounds);
    let sent = outgoing.iter().enumerate().filter(|&(r, _)| r != comm.rank()).map(|(_, v)| v.len() as u64).sum();
    let mut data = Vec::new();
    let mut counts = vec![0usize; ranks];
    for round in 0..rounds[0] as usize {
        data.clear();
        for (r, words) in outgoing.iter().enumerate() {
            let part = words.get(round * limit..).map_or(&[][..], |rest| &rest[..rest.len().min(limit)]);
            counts[r] = part.len();
            data.extend_from_slice(part);
        }
        deliver(&comm.all_to_all(&data, &counts));
    }
    sent
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_the_range_in_rank_order() {
        for (total, ranks) in [(10u64, 3usize), (7, 7), (5, 8), (1, 1), (20_000_000, 4)] {
            let s = Slices::new(total, ranks);
            let mut next = 0;
            for r in 0..ranks {
                let range = s.range(r);
                assert_eq!(range.start, next);
                for i in [range.start, range.end.saturating_sub(1)].into_iter().filter(|i| range.contains(i)) {
                    assert_eq!(s.owner(i), r);
                }
                next = range.end;
            }
            assert_eq!(next, total);
        }
    }

    #[test]
    fn slurm_task_lists_give_the_most_tasks_on_a_node() {
        assert_eq!(most_tasks_per_node("4"), Some(4));
        assert_eq!(most_tasks_per_node("2(x3),1"), Some(2));
        assert_eq!(most_tasks_per_node("1,3(x2)"), Some(3));
        assert_eq!(most_tasks_per_node(""), None);
        assert_eq!(most_tasks_per_node("2(x3),x"), None);
        assert_eq!(most_tasks_per_node("0"), None);
    }

    #[test]
    fn hash_owners_are_in_range_and_spread() {
        let mut seen = [0u32; 5];
        for i in 0..10_000u64 {
            seen[hash_owner(crate::domain::key::splitmix(i), 5)] += 1;
        }
        assert!(seen.iter().all(|&n| (1_800..2_200).contains(&n)), "{seen:?}");
    }

    #[test]
    fn one_process_exchanges_hand_the_words_back() {
        let mut received = Vec::new();
        let sent = exchange(&Local, &[vec![3, 1, 2]], |words| received.extend_from_slice(words));
        assert_eq!((received, sent), (vec![3, 1, 2], 0));
        let mut v = [5, 6];
        Local.sum(&mut v);
        assert_eq!(v, [5, 6]);
        assert_eq!(Local.all_gather(&[9]), vec![9]);
    }
}
