//! A work queue over MPI: rank 0 hands out jobs one at a time to whichever thread of whichever
//! rank asks next (a long job stalls only the thread that took it), does jobs itself with its own
//! threads, and receives every other rank's outputs to write them. `batch` hands out puzzles
//! ([`super::batch`]), `family` piece-count classes ([`super::family`]).
//!
//! Every rank builds the list of jobs itself (the same inputs on a shared file system give the
//! same list in the same order); a job travels as its position in that list plus its name, which
//! the worker checks. An output travels back as JSON, with the job's position.

use super::Comm;
pub use super::mpi::Mpi;
use crate::rounds::{Done, in_rounds};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Worker to rank 0: "give me a job": the worker's number of requesting threads (8 bytes, little
/// endian), then the position (8 bytes) and output (JSON) of its previous job if any.
const REQUEST: i32 = 1;
/// Rank 0 to a worker: the job's position (8 bytes, little endian) and name; empty: no more work.
const ASSIGN: i32 = 2;

/// What the ranks do: a list of jobs every rank builds alike, named so a worker can check that its
/// list is rank 0's.
pub trait Jobs: Sync {
    /// What one job gives back (it travels to rank 0 as JSON).
    type Output: serde::Serialize + serde::de::DeserializeOwned + Send;
    /// Threads of this rank that take jobs.
    fn threads(&self) -> usize;
    /// The name of job `i` (`None`: there is no such job here).
    fn name(&self, i: usize) -> Option<String>;
    /// Does job `i` beside the jobs the rank's other threads hold.
    fn run(&self, i: usize) -> Done<Self::Output>;
    /// Does job `i` with the rank to itself, after [`Jobs::run`] found that it needs it
    /// ([`Done::Alone`]).
    fn run_alone(&self, i: usize) -> Self::Output;
    /// The output of a job whose name here differs from `name`, the one rank 0 sent: the ranks
    /// built different lists (no shared file system, or files that changed while the run started).
    fn mismatch(&self, name: &str, rank: usize) -> Self::Output;
}

/// What a worker rank reports when its list differs from rank 0's.
pub fn mismatch_message(rank: usize) -> String {
    format!("rank {rank} read different inputs than rank 0 (is the file system shared?)")
}

/// One worker thread's request: sends the finished output (if any) and waits for the next job's
/// position and name.
fn request<O: serde::Serialize>(
    mpi: &Mpi,
    link: &Mutex<()>,
    requesters: usize,
    finished: Option<&(usize, O)>,
) -> Option<(usize, String)> {
    let mut payload = (requesters as u64).to_le_bytes().to_vec();
    if let Some((index, output)) = finished {
        payload.extend((*index as u64).to_le_bytes());
        payload.extend(serde_json::to_vec(output).expect("an output serialises"));
    }
    let _serialised = link.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    mpi.send(0, REQUEST, &payload);
    let (_, _, bytes) = mpi.receive(Some(0));
    let (index, name) = bytes.split_at_checked(8)?;
    let index = u64::from_le_bytes(index.try_into().ok()?) as usize;
    Some((index, String::from_utf8_lossy(name).into_owned()))
}

/// One requesting thread of a worker rank.
struct Requester<O> {
    /// The position and output of its last job, which its next request carries.
    finished: Option<(usize, O)>,
    /// Whether rank 0 said there is no more work.
    released: bool,
}

/// A worker rank (not 0): does the jobs rank 0 assigns, `jobs.threads()` at a time, until rank 0
/// says there is no more work ([`in_rounds`]: a thread that stops for a job run alone keeps its
/// output for its next request).
pub fn work<J: Jobs>(mpi: &Mpi, jobs: &J) {
    let link = Mutex::new(());
    let requesters = jobs.threads().max(1);
    let threads: Vec<Mutex<Requester<J::Output>>> =
        (0..requesters).map(|_| Mutex::new(Requester { finished: None, released: false })).collect();
    let lock = |t: usize| threads[t].lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let step = |t: usize| {
        let mut me = lock(t);
        if me.released {
            return None;
        }
        let Some((index, name)) = request(mpi, &link, requesters, me.finished.take().as_ref()) else {
            me.released = true;
            return None;
        };
        drop(me);
        Some(match jobs.name(index) {
            Some(own) if own == name => (index, jobs.run(index)),
            _ => (index, Done::Output(jobs.mismatch(&name, mpi.rank()))),
        })
    };
    in_rounds(requesters, step, |t, index, output| lock(t).finished = Some((index, output)), |i| jobs.run_alone(i));
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

/// Rank 0: does job `i` for every `i` in `todo` (handed out in that order) across all ranks,
/// calling `sink` (from several threads) with each position and output as it arrives; stops
/// handing out work at the first error `sink` returns, and returns it once every worker has been
/// released.
pub fn lead<J: Jobs, E: Send>(
    mpi: &Mpi,
    jobs: &J,
    todo: &[usize],
    sink: impl Fn(usize, J::Output) -> Result<(), E> + Sync + Send,
) -> Result<(), E> {
    let queue = Queue { todo, next: AtomicUsize::new(0), stopped: AtomicBool::new(false) };
    let first_error = Mutex::new(None);
    let deliver = |index: usize, output: J::Output| {
        if let Err(e) = sink(index, output) {
            queue.stopped.store(true, Ordering::Relaxed);
            first_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(e);
        }
    };
    std::thread::scope(|scope| {
        scope.spawn(|| {
            serve(
                mpi,
                || queue.take().map(|i| (i, jobs.name(i).expect("rank 0 hands out its own jobs"))),
                |worker, index, output| match serde_json::from_slice(output) {
                    Ok(output) => deliver(index, output),
                    Err(e) => panic!("rank {worker} sent an output that does not parse: {e}"),
                },
            )
        });
        in_rounds(
            jobs.threads(),
            |_| queue.take().map(|i| (i, jobs.run(i))),
            |_, i, output| deliver(i, output),
            |i| jobs.run_alone(i),
        );
    });
    match first_error.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Rank 0's side of the protocol: answers every request with the next job (`next`), hands the
/// outputs that come with them to `deliver` (worker, position, JSON), and returns once every
/// requesting thread of every worker has been told there is no more work.
fn serve(mpi: &Mpi, mut next: impl FnMut() -> Option<(usize, String)>, mut deliver: impl FnMut(usize, usize, &[u8])) {
    // Per worker: its requesting threads (known from its first request) and how many were released.
    let mut requesters = vec![None; mpi.size()];
    let mut released = vec![0usize; mpi.size()];
    let done = |requesters: &[Option<usize>], released: &[usize]| {
        (1..mpi.size()).all(|w| requesters[w].is_some_and(|n| released[w] >= n))
    };
    while !done(&requesters, &released) {
        let (worker, _, bytes) = mpi.receive(None);
        let Some((count, finished)) = bytes.split_at_checked(8) else {
            panic!("rank {worker} sent a request without its thread count");
        };
        requesters[worker] = Some(u64::from_le_bytes(count.try_into().expect("8 bytes")) as usize);
        if let Some((index, output)) = finished.split_at_checked(8) {
            deliver(worker, u64::from_le_bytes(index.try_into().expect("8 bytes")) as usize, output);
        }
        match next() {
            Some((i, name)) => {
                let mut message = (i as u64).to_le_bytes().to_vec();
                message.extend_from_slice(name.as_bytes());
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
    serve(mpi, || None, |_, _, _| {});
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

/// This process's part in a run of the queue.
pub enum Role {
    /// A rank other than 0: does what rank 0 hands out.
    Work(&'static Mpi),
    /// Rank 0, with the gate the other ranks wait at (`None`: the only process).
    Lead(Option<Gate>),
}

/// This process's part: rank 0 of several holds the other ranks at its gate until its checks
/// have passed.
pub fn role() -> Role {
    match super::cluster() {
        Some(mpi) if !super::is_leader() => Role::Work(mpi),
        mpi => Role::Lead(mpi.map(Gate::new)),
    }
}

impl Gate {
    /// The gate of rank 0, closed.
    pub fn new(mpi: &'static Mpi) -> Gate {
        Gate { mpi, state: GateState::Closed }
    }

    /// Rank 0 is ready: returns whether every other rank read its inputs too.
    pub fn open(&mut self) -> bool {
        let all = super::all_ready(true);
        self.state = if all { GateState::Open } else { GateState::Served };
        all
    }

    /// Runs the jobs over all ranks ([`lead`]).
    pub fn lead<J: Jobs, E: Send>(
        mut self,
        jobs: &J,
        todo: &[usize],
        sink: impl Fn(usize, J::Output) -> Result<(), E> + Sync + Send,
    ) -> Result<(), E> {
        self.state = GateState::Served;
        lead(self.mpi, jobs, todo, sink)
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        match self.state {
            GateState::Closed => {
                super::all_ready(false);
            }
            GateState::Open => release(self.mpi),
            GateState::Served => {}
        }
    }
}

/// A rank other than 0: waits at rank 0's gate with its own jobs (`None` when it could not read
/// its inputs), then does what rank 0 hands out ([`work`]) if every rank is ready.
pub fn follow<J: Jobs>(mpi: &Mpi, jobs: Option<&J>) {
    if super::all_ready(jobs.is_some())
        && let Some(jobs) = jobs
    {
        work(mpi, jobs);
    }
}
