//! Jobs on the threads of the rayon pool, in rounds, where a job may need the process (an MPI
//! rank, in [`crate::distributed`]) to itself: `family` runs its piece-count classes so, each
//! within a share of the memory budget, and one that needs more runs alone with the whole budget.

use rayon::prelude::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a job done beside others ended.
pub enum Done<O> {
    /// Its output.
    Output(O),
    /// It needs the process to itself: no more jobs start, and once the jobs beside it are done it
    /// runs alone.
    Alone,
}

/// Does jobs on `threads` threads of the pool, in rounds. Thread `t` takes and does one job
/// beside the others with `step(t)` (`None`: it has no more) and hands its output to
/// `keep(t, position, output)`, until a job needs the process to itself ([`Done::Alone`]); then no
/// thread takes another, and once the jobs in flight are done, those jobs run alone
/// (`alone(position)`) in position order and the next round starts. Returns after a round
/// without such a job. No thread waits for another inside a job (one that stole work inside a
/// job could wait for itself): a round ends when the pool's loop over the threads does.
pub fn in_rounds<O: Send>(
    threads: usize,
    step: impl Fn(usize) -> Option<(usize, Done<O>)> + Sync,
    keep: impl Fn(usize, usize, O) + Sync,
    alone: impl Fn(usize) -> O,
) {
    loop {
        let (pause, held) = (AtomicBool::new(false), Mutex::new(Vec::new()));
        (0..threads.max(1)).into_par_iter().with_max_len(1).for_each(|t| {
            while !pause.load(Ordering::Relaxed) {
                match step(t) {
                    None => break,
                    Some((i, Done::Output(output))) => keep(t, i, output),
                    Some((i, Done::Alone)) => {
                        pause.store(true, Ordering::Relaxed);
                        held.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((i, t));
                    }
                }
            }
        });
        let mut held = held.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        if held.is_empty() {
            return;
        }
        held.sort_unstable();
        for (i, t) in held {
            keep(t, i, alone(i));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Jobs 0..40 on four threads, every seventh needing the process to itself: each of those runs
    /// alone, after the jobs in flight beside it are done, and every job's output is kept once.
    #[test]
    fn a_job_that_needs_the_rank_runs_when_no_other_is_in_flight() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        let (next, in_flight) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let (kept, alone) = (Mutex::new(Vec::new()), Mutex::new(Vec::new()));
        let step = |_| {
            let i = next.fetch_add(1, Ordering::SeqCst);
            (i < 40).then(|| {
                in_flight.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(2));
                in_flight.fetch_sub(1, Ordering::SeqCst);
                (i, if i % 7 == 3 { Done::Alone } else { Done::Output(10 * i) })
            })
        };
        let run_alone = |i| {
            alone.lock().unwrap().push((i, in_flight.load(Ordering::SeqCst)));
            10 * i + 1
        };
        pool.install(|| in_rounds(4, step, |_, i, output| kept.lock().unwrap().push((i, output)), run_alone));
        let mut kept = kept.into_inner().unwrap();
        kept.sort_unstable();
        let expected: Vec<(usize, usize)> = (0..40).map(|i| (i, 10 * i + usize::from(i % 7 == 3))).collect();
        assert_eq!(kept, expected);
        assert_eq!(alone.into_inner().unwrap(), [3, 10, 17, 24, 31, 38].map(|i| (i, 0)));
    }
}
