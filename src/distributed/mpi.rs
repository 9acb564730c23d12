//! [`Comm`] over the system's MPI library (the `mpi` crate, rsmpi).

use super::Comm;
use mpi::Threading;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use std::sync::OnceLock;
use std::time::Duration;

/// The MPI world. Calls are serialised by the callers (`MPI_THREAD_SERIALIZED`): the engines call
/// it between parallel passes, the work queue ([`super::queue`]) under its own lock.
pub struct Mpi {
    rank: usize,
    size: usize,
}

impl Mpi {
    fn world() -> SimpleCommunicator {
        SimpleCommunicator::world()
    }

    /// Sends `bytes` to rank `to` with message tag `tag`.
    pub fn send(&self, to: usize, tag: i32, bytes: &[u8]) {
        Mpi::world().process_at_rank(to as i32).send_with_tag(bytes, tag);
    }

    /// Waits for the next message from rank `from` (any rank when `None`), polling every
    /// millisecond instead of spinning, so a waiting rank leaves its core to the solvers;
    /// returns its source, tag and bytes.
    pub fn receive(&self, from: Option<usize>) -> (usize, i32, Vec<u8>) {
        let world = Mpi::world();
        loop {
            let probe = match from {
                Some(r) => world.process_at_rank(r as i32).immediate_matched_probe(),
                None => world.any_process().immediate_matched_probe(),
            };
            if let Some(probed) = probe {
                let (bytes, status) = probed.matched_receive_vec::<u8>();
                return (status.source_rank() as usize, status.tag(), bytes);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Counts and displacements as MPI takes them (32-bit).
fn layout(counts: &[usize]) -> (Vec<i32>, Vec<i32>) {
    let counts: Vec<i32> =
        counts.iter().map(|&c| i32::try_from(c).expect("exchange rounds keep counts below 2^31")).collect();
    let displs = counts
        .iter()
        .scan(0i32, |at, &c| {
            let d = *at;
            *at = at.checked_add(c).expect("one round's buffer stays below 2^31 words");
            Some(d)
        })
        .collect();
    (counts, displs)
}

impl Comm for Mpi {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn sum(&self, values: &mut [u64]) {
        let send = values.to_vec();
        Mpi::world().all_reduce_into(&send[..], values, SystemOperation::sum());
    }
    fn max(&self, values: &mut [u64]) {
        let send = values.to_vec();
        Mpi::world().all_reduce_into(&send[..], values, SystemOperation::max());
    }
    fn all_to_all(&self, data: &[u64], counts: &[usize]) -> Vec<u64> {
        let world = Mpi::world();
        let send_counts: Vec<u64> = counts.iter().map(|&c| c as u64).collect();
        let mut receive_counts = vec![0u64; self.size];
        world.all_to_all_into(&send_counts[..], &mut receive_counts[..]);
        let receive_counts: Vec<usize> = receive_counts.into_iter().map(|c| c as usize).collect();
        let (sc, sd) = layout(counts);
        let (rc, rd) = layout(&receive_counts);
        let mut received = vec![0u64; receive_counts.iter().sum()];
        {
            let send = Partition::new(data, sc, sd);
            let mut receive = PartitionMut::new(&mut received[..], rc, rd);
            world.all_to_all_varcount_into(&send, &mut receive);
        }
        received
    }
    fn all_gather(&self, local: &[u64]) -> Vec<u64> {
        let world = Mpi::world();
        let mut counts = vec![0u64; self.size];
        world.all_gather_into(&(local.len() as u64), &mut counts[..]);
        let counts: Vec<usize> = counts.into_iter().map(|c| c as usize).collect();
        let (c, d) = layout(&counts);
        let mut all = vec![0u64; counts.iter().sum()];
        {
            let mut receive = PartitionMut::new(&mut all[..], c, d);
            world.all_gather_varcount_into(local, &mut receive);
        }
        all
    }
}

/// The MPI world of this process, when it joined one with more than one rank.
static MPI: OnceLock<Mpi> = OnceLock::new();

/// The MPI world, when this process is one of several ranks.
pub fn cluster() -> Option<&'static Mpi> {
    MPI.get()
}

/// Initialises MPI when the launcher started several ranks and installs the world in `slot`.
pub(super) fn join(slot: &OnceLock<Box<dyn Comm + Send>>) -> Option<Universe> {
    if super::launched_ranks() <= 1 {
        return None;
    }
    let (universe, _provided) = mpi::initialize_with_threading(Threading::Serialized)?;
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    if size > 1 {
        let _ = MPI.set(Mpi { rank, size });
        let _ = slot.set(Box::new(Mpi { rank, size }));
    }
    Some(universe)
}
