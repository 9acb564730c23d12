//! One value per worker thread of the current rayon pool, kept across the many small tasks each
//! thread runs: search tables that a task would otherwise allocate and grow again.

use std::sync::{Mutex, PoisonError};

/// One `T` per thread of the pool it was made in.
pub(super) struct ThreadSlots<T>(Vec<Mutex<T>>);

impl<T> ThreadSlots<T> {
    /// One value per thread of the current pool, each made by `make`.
    pub(super) fn new(make: impl FnMut() -> T) -> Self {
        let threads = rayon::current_num_threads().max(1);
        ThreadSlots(std::iter::repeat_with(make).take(threads).map(Mutex::new).collect())
    }

    /// Runs `f` on the calling thread's value (a thread outside the pool shares the first).
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let thread = rayon::current_thread_index().unwrap_or(0) % self.0.len();
        f(&mut self.0[thread].lock().unwrap_or_else(PoisonError::into_inner))
    }
}
