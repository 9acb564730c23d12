//! The most bytes a family run holds at once while classes are analysed side by side: each class's
//! tables from its start to its end, each class's results from its end until they are written.
//!
//! Each holding is recorded with two moments of one shared clock once it is over (a class's
//! tables are known only when the class ends); [`Held::peak`] then sweeps the moments in order.
//! Bytes taken and given back at the same moment count as held together, so the figure is an
//! upper bound of what was live at any instant.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes held over intervals of one clock, and the clock.
#[derive(Default)]
pub struct Held {
    clock: AtomicU64,
    /// (moment, 0 to take or 1 to give back, bytes): takes sort before gives at one moment.
    changes: Mutex<Vec<(u64, u8, u64)>>,
}

impl Held {
    /// Bytes one recorded holding costs in this ledger.
    pub const BYTES_PER_HOLDING: u64 = 2 * std::mem::size_of::<(u64, u8, u64)>() as u64;

    /// The present moment: every call returns a later one.
    pub fn now(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    /// Records `bytes` held from moment `from` to moment `to` (both from [`Held::now`]).
    pub fn record(&self, from: u64, to: u64, bytes: u64) {
        let mut changes = self.changes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        changes.push((from, 0, bytes));
        changes.push((to, 1, bytes));
    }

    /// The most bytes held at once over everything recorded.
    pub fn peak(&self) -> u64 {
        let mut changes = self.changes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        changes.sort_unstable();
        let (mut now, mut most) = (0u64, 0u64);
        for &(_, give, bytes) in changes.iter() {
            now = if give == 0 { now.saturating_add(bytes) } else { now.saturating_sub(bytes) };
            most = most.max(now);
        }
        most
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_holdings_add_up_and_separate_ones_do_not() {
        let held = Held::default();
        let (a0, b0) = (held.now(), held.now());
        let a1 = held.now();
        let (c0, b1) = (held.now(), held.now());
        let c1 = held.now();
        held.record(a0, a1, 100); // a and b overlap: 100 + 20
        held.record(b0, b1, 20); // b and c overlap: 20 + 7
        held.record(c0, c1, 7);
        assert_eq!(held.peak(), 120);
        // A holding that ends at the moment another starts counts with it.
        let held = Held::default();
        let (x0, x1) = (held.now(), held.now());
        let y1 = held.now();
        held.record(x0, x1, 5);
        held.record(x1, y1, 6);
        assert_eq!(held.peak(), 11);
        assert_eq!(Held::default().peak(), 0);
    }
}
