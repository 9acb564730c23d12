//! The memory budget: how many bytes one puzzle (its model, its compiled tables and its search)
//! may hold, and the check every size is put through before anything is allocated.
//!
//! A user's `--max-memory` is the budget (lowered to what the process can have); without one, the
//! budget is half of the memory this process can really have: the smallest of physical memory,
//! the cgroup's `memory.max` and the address-space limit (`ulimit -v`). A size over the budget is
//! an error that names what would not fit, decided before the allocation, so a 25-byte file
//! cannot take the machine down.
//!
//! A table of gigabytes that fits is set up within the deadline ([`try_zeroed`], and [`SetUp`] for
//! hash tables): its pages, which the system zeroes when each is first written, are written a
//! chunk at a time between looks at the clock, before the search that fills it begins.

use crate::search::LimitHit;
use allocator_api2::alloc::{AllocError, Allocator, Global};
use rayon::iter::{IndexedParallelIterator, ParallelExtend, ParallelIterator};
use rayon::slice::ParallelSliceMut;
use std::alloc::Layout;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64};
use std::time::Instant;
use thiserror::Error;

/// A size that does not fit in the memory budget (or overflows while being computed).
#[derive(Clone, Debug, Error, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[error("{what} would need {} (more than the memory limit of {})", over(*.bytes, *.limit).0, over(*.bytes, *.limit).1)]
pub struct TooLarge {
    /// What would have been allocated.
    pub what: String,
    /// The bytes it needs (`u64::MAX` when the computation overflowed).
    pub bytes: u64,
    /// The budget it was checked against.
    pub limit: u64,
}

/// The bytes a process may use here: the smallest of physical memory and the cgroup limit, both
/// shared equally by the MPI ranks launched on this node ([`crate::distributed::ranks_on_this_node`]),
/// and this process's address-space limit (`u64::MAX` when none can be read).
pub fn available() -> u64 {
    static AVAILABLE: OnceLock<u64> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let mem_total = read("/proc/meminfo").and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            kib.checked_mul(1024)
        });
        let cgroup = read("/sys/fs/cgroup/memory.max").and_then(|s| s.trim().parse::<u64>().ok());
        process_share([mem_total, cgroup], address_space(), crate::distributed::ranks_on_this_node())
    })
}

/// This process's address-space limit (`ulimit -v`) in bytes; `None` when it has none or it cannot
/// be read.
pub fn address_space() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..].split_whitespace().next()?.parse::<u64>().ok()
}

/// What one of `ranks` processes on a node may have: the least of the node's limits (`node`, which
/// they share) divided among them, and the process's own limit (`own`).
fn process_share(node: [Option<u64>; 2], own: Option<u64>, ranks: usize) -> u64 {
    let share = node.into_iter().flatten().min().map(|bytes| bytes / ranks.max(1) as u64);
    [share, own].into_iter().flatten().min().unwrap_or(u64::MAX)
}

/// The default budget of one puzzle: half of [`available`].
pub fn default_limit() -> u64 {
    available() / 2
}

/// The budget: `max_memory` when given, lowered to [`available`] (a budget the process cannot
/// have would let a search grow until the system kills it), else [`default_limit`].
pub fn limit(max_memory: Option<u64>) -> u64 {
    max_memory.map_or_else(default_limit, |bytes| bytes.min(available()))
}

/// Checks that `bytes` (None: the computation overflowed) of `what` fit in `limit`.
pub fn check(what: impl FnOnce() -> String, bytes: Option<u64>, limit: u64) -> Result<u64, TooLarge> {
    match bytes {
        Some(b) if b <= limit => Ok(b),
        _ => Err(TooLarge { what: what(), bytes: bytes.unwrap_or(u64::MAX), limit }),
    }
}

/// The product of `counts` times `bytes_each`, or None on overflow.
pub fn product(counts: &[usize], bytes_each: u64) -> Option<u64> {
    counts.iter().try_fold(bytes_each, |acc, &n| acc.checked_mul(u64::try_from(n).ok()?))
}

/// Bytes of a hash table of `entry`-byte entries that can hold `capacity` of them (a slot and a
/// control byte per bucket, 8 buckets per 7 entries), plus, when `room` more than its `len`
/// entries would not fit, the doubled table it would move into (both are held while it moves).
pub fn table_bytes(len: usize, capacity: usize, entry: u64, room: usize) -> u64 {
    let bytes = |capacity: usize| capacity as u64 * 8 / 7 * (entry + 1);
    bytes(capacity) + if len + room > capacity { bytes(capacity.max(4) * 2) } else { 0 }
}

/// Bytes of a vector of `entry`-byte items with this `capacity`, plus, when `room` more than its
/// `len` items would not fit, the doubled buffer it would move into.
pub fn vec_bytes(len: usize, capacity: usize, entry: u64, room: usize) -> u64 {
    capacity as u64 * entry + if len + room > capacity { capacity.max(4) as u64 * 2 * entry } else { 0 }
}

/// The items of an indexed parallel iterator, computed in parallel straight into a vector
/// reserved first at their exact count; None when that room cannot be had (a memory limit).
pub fn try_par_collect<I: IndexedParallelIterator>(items: I) -> Option<Vec<I::Item>> {
    let mut collected = Vec::new();
    collected.try_reserve_exact(items.len()).ok()?;
    collected.par_extend(items);
    Some(collected)
}

/// Element types whose all-zero bytes are a valid value (so a table of them can start as fresh
/// zeroed memory).
///
/// # Safety
/// An implementing type must be valid when every byte of it is zero.
pub unsafe trait Zeroable {}

// SAFETY: zero is a valid integer, and the atomics have the layout of their integers.
unsafe impl Zeroable for u8 {}
// SAFETY: as above.
unsafe impl Zeroable for AtomicU8 {}
// SAFETY: as above.
unsafe impl Zeroable for AtomicU32 {}
// SAFETY: as above.
unsafe impl Zeroable for AtomicU64 {}

/// Bytes of a table set up between two looks at the clock ([`set_up`]): one huge page.
const SETUP_CHUNK: usize = 2 << 20;

/// Bytes between two writes of [`set_up`]: the smallest page.
const PAGE: usize = 4096;

/// Has the system set up every page of `block` now (one write a page), in chunks of
/// [`SETUP_CHUNK`] bytes on every thread, looking at `deadline` before each chunk; whether it
/// finished before the deadline. A table's first writes would otherwise ask for its pages all at
/// once where they land anywhere (a hash table's first thousand entries touch nearly every huge
/// page of it), seconds of the system's zeroing in which no clock is looked at.
fn set_up(block: &mut [MaybeUninit<u8>], deadline: Option<Instant>) -> bool {
    block
        .par_chunks_mut(SETUP_CHUNK)
        .try_for_each(|chunk| {
            if crate::search::past(deadline) {
                return Err(());
            }
            for byte in chunk.iter_mut().step_by(PAGE) {
                // SAFETY: a valid, exclusive byte; volatile so that a zero stored into memory
                // known to be zero is still stored.
                unsafe { std::ptr::write_volatile(byte.as_mut_ptr(), 0) };
            }
            Ok(())
        })
        .is_ok()
}

/// A table of `len` zeros, asked of the allocator as zeroed memory (fresh pages, not written by
/// the program) and set up a chunk of 2 MiB at a time between looks at `deadline`, so that a
/// table of gigabytes neither takes seconds before the first look at the clock nor leaves its
/// pages' cost to the search that fills it; [`LimitHit::Memory`] when the memory cannot be had,
/// [`LimitHit::Time`] when the deadline passes first.
pub fn try_zeroed<T: Zeroable>(len: usize, deadline: Option<Instant>) -> Result<Vec<T>, LimitHit> {
    let layout = Layout::array::<T>(len).map_err(|_| LimitHit::Memory)?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the layout's size is not zero.
    let block = unsafe { std::alloc::alloc_zeroed(layout) };
    if block.is_null() {
        return Err(LimitHit::Memory);
    }
    // SAFETY: the block was just allocated with `layout.size()` bytes and nothing else holds it.
    let bytes = unsafe { std::slice::from_raw_parts_mut(block.cast::<MaybeUninit<u8>>(), layout.size()) };
    if !set_up(bytes, deadline) {
        // SAFETY: allocated above with this layout, and freed once.
        unsafe { std::alloc::dealloc(block, layout) };
        return Err(LimitHit::Time);
    }
    // SAFETY: the block comes from the global allocator with `T`'s alignment and room for exactly
    // `len` values of `T`, and all `len` are initialised: their bytes are zero, a valid `T`
    // ([`Zeroable`]).
    Ok(unsafe { Vec::from_raw_parts(block.cast::<T>(), len, len) })
}

/// An allocator for hash tables: blocks of the global allocator, each set up as [`try_zeroed`]
/// sets up its table before it is handed out, between looks at `deadline`; a block the deadline stops, like one the global
/// allocator refuses, is refused (the table's reservation fails, and [`LimitHit::Time`] is the
/// caller's to tell from [`LimitHit::Memory`] by the clock).
#[derive(Clone, Copy, Debug)]
pub struct SetUp {
    /// The deadline the setting up of a block stops at.
    pub deadline: Option<Instant>,
}

// SAFETY: every block is the global allocator's, handed out whole and given back to it unchanged.
unsafe impl Allocator for SetUp {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let block = Global.allocate(layout)?;
        // SAFETY: the block was just allocated with at least `layout.size()` bytes, and nothing
        // else holds it.
        let bytes = unsafe { std::slice::from_raw_parts_mut(block.cast::<MaybeUninit<u8>>().as_ptr(), layout.size()) };
        if !set_up(bytes, self.deadline) {
            // SAFETY: allocated above with this layout, and freed once.
            unsafe { Global.deallocate(block.cast(), layout) };
            return Err(AllocError);
        }
        Ok(block)
    }

    unsafe fn deallocate(&self, block: NonNull<u8>, layout: Layout) {
        // SAFETY: the caller's contract: `block` came from `allocate` with this layout.
        unsafe { Global.deallocate(block, layout) }
    }
}

/// A byte count for people: `512 B`, `3.0 KiB`, `1.5 GiB`, or `an overflowing size`.
pub fn human(bytes: u64) -> String {
    if bytes == u64::MAX {
        return "more bytes than a 64-bit count holds".into();
    }
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}

/// A size and the smaller limit it passes, for people: as [`human`] unless both would print
/// alike (`1.0 MiB` over `1.0 MiB`), then both in exact bytes.
pub fn over(bytes: u64, limit: u64) -> (String, String) {
    let (need, have) = (human(bytes), human(limit));
    match need == have && bytes != limit {
        true => (format!("{bytes} B"), format!("{limit} B")),
        false => (need, have),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_sizes_and_overflow() {
        assert_eq!(check(|| "x".into(), Some(10), 10), Ok(10));
        let e = check(|| "a board of 4 x 4 cells".into(), product(&[4, 4], 100), 1000).unwrap_err();
        assert_eq!(e.to_string(), "a board of 4 x 4 cells would need 1.6 KiB (more than the memory limit of 1000 B)");
        assert_eq!(product(&[usize::MAX, 2], 1), None);
        assert!(check(|| "x".into(), None, u64::MAX - 1).unwrap_err().to_string().contains("64-bit"));
        // Rounded alike, the two sizes are shown exactly.
        let e = check(|| "a table".into(), Some(1_048_600), 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "a table would need 1048600 B (more than the memory limit of 1048576 B)");
    }

    #[test]
    fn growth_counts_both_buffers_while_moving() {
        assert_eq!(vec_bytes(3, 8, 4, 5), 32);
        assert_eq!(vec_bytes(3, 8, 4, 6), 32 + 64);
        assert_eq!(table_bytes(10, 14, 7, 4), 16 * 8);
        assert_eq!(table_bytes(10, 14, 7, 5), 16 * 8 + 32 * 8);
    }

    #[test]
    fn ranks_on_a_node_share_its_memory_but_not_their_own_limits() {
        let gib = 1u64 << 30;
        assert_eq!(process_share([Some(24 * gib), None], None, 1), 24 * gib);
        assert_eq!(process_share([Some(24 * gib), Some(16 * gib)], None, 4), 4 * gib);
        assert_eq!(process_share([Some(24 * gib), None], Some(3 * gib), 4), 3 * gib);
        assert_eq!(process_share([Some(24 * gib), None], Some(8 * gib), 4), 6 * gib);
        assert_eq!(process_share([None, None], None, 2), u64::MAX);
        assert_eq!(process_share([Some(10), None], None, 0), 10);
    }

    #[test]
    fn a_zeroed_table_holds_zeros_unless_the_deadline_or_its_size_stops_it() {
        let table: Vec<AtomicU32> = try_zeroed(3 * SETUP_CHUNK / 4 + 5, None).unwrap();
        assert_eq!(table.len(), 3 * SETUP_CHUNK / 4 + 5);
        assert!(table.iter().all(|w| w.load(std::sync::atomic::Ordering::Relaxed) == 0));
        assert_eq!(try_zeroed::<u8>(0, None), Ok(Vec::new()));
        assert_eq!(try_zeroed::<u8>(1, Some(Instant::now())), Err(LimitHit::Time));
        assert_eq!(try_zeroed::<AtomicU64>(usize::MAX / 4, None).err(), Some(LimitHit::Memory));
        let mut map = hashbrown::HashMap::new_in(SetUp { deadline: None });
        map.try_reserve(1000).unwrap();
        map.insert(1u64, 2u64);
        assert_eq!(map[&1], 2);
        let mut late = hashbrown::HashMap::<u64, u64, _, _>::new_in(SetUp { deadline: Some(Instant::now()) });
        assert!(late.try_reserve(1000).is_err());
    }

    #[test]
    fn the_default_is_half_of_what_is_available() {
        assert!(available() > 0);
        assert_eq!(default_limit(), available() / 2);
        assert_eq!(limit(Some(7)), 7);
        assert_eq!(limit(Some(u64::MAX)), available());
    }
}
