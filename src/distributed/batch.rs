//! The batch work queue over MPI: rank 0 hands out puzzles one at a time to whichever thread of
//! whichever rank asks next (a hard puzzle stalls only the thread that took it), solves puzzles
//! itself with its own threads, and receives every other rank's rows to write them.
//!
//! Every rank reads the corpus itself (the same inputs on a shared file system give the same
//! entries in the same order); a puzzle travels as its position in that list plus its id, which
//! the worker checks. A row travels back as JSON.

use super::Comm;
pub use super::mpi::Mpi;
use crate::batch::corpus::Entry;
use crate::batch::record::Row;
use crate::batch::run::{BatchOptions, prepare_all, solve_entry};
use rayon::prelude::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Worker to rank 0: "give me a puzzle": the worker's number of requesting threads (8 bytes, little
/// endian), then the row of its previous puzzle (JSON) if any.
const REQUEST: i32 = 1;
/// Rank 0 to a worker: the entry's position (8 bytes, little endian) and id; empty: no more work.
const ASSIGN: i32 = 2;

/// One worker thread's request: sends the finished row (if any) and waits for the next entry's
/// position, checked against the worker's own corpus.
fn request(mpi: &Mpi, link: &Mutex<()>, requesters: usize, finished: Option<&Row>) -> Option<(usize, String)> {
    let mut payload = (requesters as u64).to_le_bytes().to_vec();
    if let Some(row) = finished {
        payload.extend(serde_json::to_vec(row).expect("a row serialises"));
    }
    let _serialised = link.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    mpi.send(0, REQUEST, &payload);
    let (_, _, bytes) = mpi.receive(Some(0));
    let (index, id) = bytes.split_at_checked(8)?;
    let index = u64::from_le_bytes(index.try_into().ok()?) as usize;
    Some((index, String::from_utf8_lossy(id).into_owned()))
}

/// The row of an entry whose id differs from the one rank 0 sent: the ranks read different
/// corpora (no shared file system, or files that changed while the run started).
fn mismatch_row(id: &str, options: &BatchOptions, rank: usize) -> Row {
    let entry = Entry {
        id: id.to_string(),
        source: id.to_string(),
        puzzle: Err(format!("rank {rank} read a different corpus than rank 0 (is the file system shared?)")),
    };
    solve_entry(&entry, options)
}

/// A worker rank (not 0): solves the entries rank 0 assigns, `options.threads` at a time, until
/// rank 0 says there is no more work.
pub fn work(mpi: &Mpi, entries: &[Entry], options: &BatchOptions) {
    let link = Mutex::new(());
    let requesters = options.threads.max(1);
    (0..requesters).into_par_iter().with_max_len(1).for_each(|_| {
        let mut finished: Option<Row> = None;
        while let Some((index, id)) = request(mpi, &link, requesters, finished.as_ref()) {
            let row = match entries.get(index).filter(|e| e.id == id) {
                Some(entry) => {
                    prepare_all(std::slice::from_ref(entry), options);
                    solve_entry(entry, options)
                }
                None => mismatch_row(&id, options, mpi.rank()),
            };
            finished = Some(row);
        }
    });
}

/// The queue of positions still to hand out, shared by rank 0's own threads and the workers.
struct Queue<'a> {
    todo: &'a [usize],
    next: AtomicUsize,
    stopped: AtomicBool,
}

impl Queue<'_> {
    fn take(&self) -> Option<usize> {
        if self.stopped.load(Ordering::Relaxed) {
            return None;
        }
        self.todo.get(self.next.fetch_add(1, Ordering::Relaxed)).copied()
    }
}

/// Rank 0: solves `entries[i]` for every `i` in `todo` across all ranks, calling `sink` (from
/// several threads) with each row as it arrives; stops handing out work at the first error
/// `sink` returns, and returns it once every worker has been released.
pub fn lead<E: Send>(
    mpi: &Mpi,
    entries: &[Entry],
    todo: &[usize],
    options: &BatchOptions,
    sink: impl Fn(Row) -> Result<(), E> + Sync + Send,
) -> Result<(), E> {
    let queue = Queue { todo, next: AtomicUsize::new(0), stopped: AtomicBool::new(false) };
    let first_error = Mutex::new(None);
    let deliver = |row: Row| {
        if let Err(e) = sink(row) {
            queue.stopped.store(true, Ordering::Relaxed);
            first_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(e);
        }
    };
    std::thread::scope(|scope| {
        scope.spawn(|| {
            serve(
                mpi,
                || queue.take().map(|i| (i, entries[i].id.as_str())),
                |worker, row| match serde_json::from_slice(row) {
                    Ok(row) => deliver(row),
                    Err(e) => panic!("rank {worker} sent a row that does not parse: {e}"),
                },
            )
        });
        (0..options.threads.max(1)).into_par_iter().with_max_len(1).for_each(|_| {
            while let Some(i) = queue.take() {
                prepare_all(std::slice::from_ref(&entries[i]), options);
                deliver(solve_entry(&entries[i], options));
            }
        });
    });
    match first_error.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Rank 0's side of the protocol: answers every request with the next entry (`next`), hands the
/// rows that come with them to `deliver`, and returns once every requesting thread of every worker
/// has been told there is no more work.
fn serve<'a>(mpi: &Mpi, mut next: impl FnMut() -> Option<(usize, &'a str)>, mut deliver: impl FnMut(usize, &[u8])) {
    // Per worker: its requesting threads (known from its first request) and how many were released.
    let mut requesters = vec![None; mpi.size()];
    let mut released = vec![0usize; mpi.size()];
    let done = |requesters: &[Option<usize>], released: &[usize]| {
        (1..mpi.size()).all(|w| requesters[w].is_some_and(|n| released[w] >= n))
    };
    while !done(&requesters, &released) {
        let (worker, _, bytes) = mpi.receive(None);
        let Some((count, row)) = bytes.split_at_checked(8) else {
            panic!("rank {worker} sent a request without its thread count");
        };
        requesters[worker] = Some(u64::from_le_bytes(count.try_into().expect("8 bytes")) as usize);
        if !row.is_empty() {
            deliver(worker, row);
        }
        match next() {
            Some((i, id)) => {
                let mut message = (i as u64).to_le_bytes().to_vec();
                message.extend_from_slice(id.as_bytes());
                mpi.send(worker, ASSIGN, &message);
            }
            None => {
                mpi.send(worker, ASSIGN, &[]);
                released[worker] += 1;
            }
        }
    }
}

/// Rank 0 when it cannot start the run after all (its output could not be opened): answers every
/// worker's requests with "no more work", so no rank waits forever.
pub fn release(mpi: &Mpi) {
    serve(mpi, || None, |_, _| {});
}

/// Rank 0's side of the start of a run: the other ranks wait until rank 0 has checked its inputs
/// and output ([`Gate::open`]); dropped unopened (rank 0 refused the run) it tells them to stop,
/// dropped open but unused (rank 0 could not write its output) it releases their requests.
pub struct Gate {
    mpi: &'static Mpi,
    state: GateState,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum GateState {
    Closed,
    Open,
    Served,
}

/// A rank's vote at the gate: 0 ready, 1 not.
fn vote(mpi: &Mpi, ready: bool) -> bool {
    let mut verdict = [u64::from(!ready)];
    super::Comm::max(mpi, &mut verdict);
    verdict[0] == 0
}

impl Gate {
    /// The gate of rank 0, closed.
    pub fn new(mpi: &'static Mpi) -> Gate {
        Gate { mpi, state: GateState::Closed }
    }

    /// Rank 0 is ready: returns whether every other rank read its corpus too.
    pub fn open(&mut self) -> bool {
        let all = vote(self.mpi, true);
        self.state = if all { GateState::Open } else { GateState::Served };
        all
    }

    /// Runs the batch over all ranks ([`lead`]).
    pub fn lead<E: Send>(
        mut self,
        entries: &[Entry],
        todo: &[usize],
        options: &BatchOptions,
        sink: impl Fn(Row) -> Result<(), E> + Sync + Send,
    ) -> Result<(), E> {
        self.state = GateState::Served;
        lead(self.mpi, entries, todo, options, sink)
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        match self.state {
            GateState::Closed => {
                vote(self.mpi, false);
            }
            GateState::Open => release(self.mpi),
            GateState::Served => {}
        }
    }
}

/// A rank other than 0: waits at rank 0's gate with its own corpus (`None` when it could not read
/// it), then solves what rank 0 hands out ([`work`]) if every rank is ready.
pub fn follow(mpi: &Mpi, entries: Option<&[Entry]>, options: &BatchOptions) {
    if vote(mpi, entries.is_some())
        && let Some(entries) = entries
    {
        work(mpi, entries, options);
    }
}
