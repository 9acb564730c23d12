//! The test binary's allocator: the system allocator, plus a per-thread count of live bytes that a
//! fuzz case arms, so a case that holds more than its bound is caught and reported with its input
//! (and a single request far beyond it fails at once instead of exhausting the machine).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator with an optional per-thread bound on live bytes.
pub struct Bounded;

thread_local! {
    /// Live bytes allocated by this thread since the bound was armed (frees on other threads are
    /// not seen, so this can only over-count).
    static LIVE: Cell<usize> = const { Cell::new(0) };
    /// The highest `LIVE` since armed.
    static PEAK: Cell<usize> = const { Cell::new(0) };
    /// The armed bound, 0 when off.
    static BOUND: Cell<usize> = const { Cell::new(0) };
}

/// A single request this many times the bound fails outright (the process aborts with the size).
const REFUSE_FACTOR: usize = 8;

fn admit(size: usize) -> bool {
    let bound = BOUND.try_with(Cell::get).unwrap_or(0);
    if bound == 0 {
        return true;
    }
    if size > bound.saturating_mul(REFUSE_FACTOR) {
        return false;
    }
    let _ = LIVE.try_with(|live| {
        let now = live.get().saturating_add(size);
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
    true
}

fn release(size: usize) {
    if BOUND.try_with(Cell::get).unwrap_or(0) != 0 {
        let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(size)));
    }
}

// SAFETY: every call is forwarded to `System` with the caller's arguments; the bookkeeping touches
// only const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !admit(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !admit(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        release(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() && !admit(new_size - layout.size()) {
            return std::ptr::null_mut();
        }
        if new_size < layout.size() {
            release(layout.size() - new_size);
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Runs `f` with this thread's live bytes bounded by `bound`; returns its result and the peak of
/// live bytes it reached (over the bound means the case held too much).
pub fn measured<R>(bound: usize, f: impl FnOnce() -> R) -> (R, usize) {
    /// Disarms the bound however `f` ends (a panic unwinds through it too).
    struct Disarm;
    impl Drop for Disarm {
        fn drop(&mut self) {
            BOUND.with(|b| b.set(0));
        }
    }
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    BOUND.with(|b| b.set(bound));
    let disarm = Disarm;
    let result = f();
    drop(disarm);
    (result, PEAK.with(Cell::get))
}
