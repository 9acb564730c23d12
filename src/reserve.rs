//! A reserve of memory held from the start and given back the moment an allocation fails, so that
//! the small allocations a stopping run still makes (its messages, its result rows) succeed
//! instead of aborting the process; and the count of failed allocations, which long computations
//! watch ([`Watch`]) to stop at the memory limit although the failure was a small allocation that
//! no size check saw coming (the budget counts tables, not every string and list beside them).
//! Until the reserve is taken again, allocations larger than [`SMALL`] are refused, so that the
//! room it left goes to the small allocations it is kept for, not to a table growing on another
//! thread.
//!
//! The binary wraps its allocator in [`WithReserve`] and calls [`rearm`] at start; a library user
//! with another allocator simply has no reserve, and [`failures`] stays 0.

use std::alloc::{GlobalAlloc, Layout};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};

/// The most the reserve holds: 16 MiB, or a sixteenth of what the process may have if that is less.
pub const MOST: usize = 16 << 20;

/// The largest allocation the reserve serves: a failed table growth (larger) is left to fail, so
/// that the code which asked for it stops (`try_reserve`), and the reserve stays for the strings
/// and small lists made while it does.
pub const SMALL: usize = 64 << 10;

/// The reserve's block (null when spent or never armed).
static BLOCK: AtomicPtr<u8> = AtomicPtr::new(null_mut());
/// Whether the reserve was given back and not taken again: its room is then kept for small
/// allocations, and one of more than [`SMALL`] bytes fails at once (it would take the room and
/// leave the small ones of another thread, a moment later, to abort).
static SPENT: AtomicBool = AtomicBool::new(false);
/// Failed allocations seen so far.
static FAILURES: AtomicU64 = AtomicU64::new(0);

/// The size of the reserve's block in bytes (fixed at the first call).
fn block_bytes() -> usize {
    static BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| (crate::memory::available() / 16).min(MOST as u64).max(4096) as usize)
}

/// Maps the reserve's block: an anonymous mapping of its own, straight from the kernel (not from
/// the C allocator, which on glibc gives every thread that first calls it an arena of 64 MiB of
/// address space, enough to fill a tight `ulimit -v` by itself); null if it cannot be had. Its
/// pages are never touched, so it holds address space, not memory.
fn map_block() -> *mut u8 {
    // SAFETY: a new private anonymous mapping at an address the kernel chooses; nothing else is
    // affected.
    let block = unsafe {
        libc::mmap(
            null_mut(),
            block_bytes(),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if block == libc::MAP_FAILED { null_mut() } else { block.cast() }
}

/// Unmaps a block of [`map_block`], handing its address space back at once, from any thread.
///
/// # Safety
/// `block` came from [`map_block`] and is unmapped once.
unsafe fn unmap_block(block: *mut u8) {
    // SAFETY: the caller's contract; the block is never used after this.
    unsafe { libc::munmap(block.cast(), block_bytes()) };
}

/// A global allocator: `A`, which counts every failed allocation and, for one of at most
/// [`SMALL`] bytes, gives back the reserve and tries once more; while the reserve is spent, an
/// allocation of more than [`SMALL`] bytes fails (and is counted) without asking `A`.
pub struct WithReserve<A>(pub A);

impl<A: GlobalAlloc> WithReserve<A> {
    /// Whether an allocation of `bytes` is refused: the reserve is spent and it is not small.
    #[inline]
    fn refused(&self, bytes: usize) -> bool {
        let refused = bytes > SMALL && SPENT.load(Ordering::Relaxed);
        if refused {
            FAILURES.fetch_add(1, Ordering::Relaxed);
        }
        refused
    }

    /// Counts a failed allocation of `bytes` and, if it is small, frees the reserve's block if it
    /// holds one; whether it did.
    fn give_back(&self, bytes: usize) -> bool {
        FAILURES.fetch_add(1, Ordering::Relaxed);
        if bytes > SMALL {
            return false;
        }
        let block = BLOCK.swap(null_mut(), Ordering::AcqRel);
        if block.is_null() {
            return false;
        }
        SPENT.store(true, Ordering::Relaxed);
        // SAFETY: [`rearm`] mapped the block, and it is unmapped once: the swap took it.
        unsafe { unmap_block(block) };
        true
    }
}

// SAFETY: every call is passed on to `A` unchanged or refused (null, which an allocator may answer
// to any request); a failed one is repeated once after the reserve is freed, which the contract
// allows (a failed or refused `realloc` leaves the old block as it was).
unsafe impl<A: GlobalAlloc> GlobalAlloc for WithReserve<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if self.refused(layout.size()) {
            return null_mut();
        }
        let p = unsafe { self.0.alloc(layout) };
        if p.is_null() && self.give_back(layout.size()) { unsafe { self.0.alloc(layout) } } else { p }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if self.refused(layout.size()) {
            return null_mut();
        }
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if p.is_null() && self.give_back(layout.size()) { unsafe { self.0.alloc_zeroed(layout) } } else { p }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { self.0.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() && self.refused(new_size) {
            return null_mut();
        }
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if p.is_null() && self.give_back(new_size) { unsafe { self.0.realloc(ptr, layout, new_size) } } else { p }
    }
}

/// Takes the reserve again if it was spent (or never taken) and the memory can be had now; whether
/// the reserve is held. Its block is a mapping of its own (`map_block`), so that unmapping it
/// from any thread hands its address space back at once (a block of the global allocator freed by
/// another thread than its owner's may wait for the owner, and one freed into it may not serve
/// the small allocation retried next: `results/hardening/2026-11-28-stop52-batch-entries.md`).
pub fn rearm() -> bool {
    if !BLOCK.load(Ordering::Acquire).is_null() {
        return true;
    }
    let block = map_block();
    if block.is_null() {
        return false;
    }
    if BLOCK.compare_exchange(null_mut(), block, Ordering::AcqRel, Ordering::Acquire).is_err() {
        // Another thread armed it first.
        // SAFETY: mapped just above, and not shared.
        unsafe { unmap_block(block) };
    }
    SPENT.store(false, Ordering::Relaxed);
    true
}

/// Failed allocations seen so far (0 without [`WithReserve`] as the global allocator).
pub fn failures() -> u64 {
    FAILURES.load(Ordering::Relaxed)
}

/// Whether an allocation has failed since a point in a computation.
#[derive(Clone, Copy, Debug)]
pub struct Watch(u64);

impl Watch {
    /// Watches from now.
    pub fn new() -> Watch {
        Watch(failures())
    }

    /// Whether an allocation failed since [`Watch::new`] (anywhere in the process: memory is
    /// shared, and a starved neighbour means this computation is at the limit too).
    pub fn starved(&self) -> bool {
        failures() != self.0
    }
}

impl Default for Watch {
    fn default() -> Self {
        Watch::new()
    }
}
