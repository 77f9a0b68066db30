// SPDX-License-Identifier: GPL-2.0

//! Saved tgids: the thread group of each pid seen (`saved_tgids`), kept as
//! the kernel's `tgid_map` (kernel/trace/trace_sched_switch.c): one slot
//! per possible pid, 0 while unknown. Slots are atomics, written from
//! the scheduler's probes on any CPU and read by `trace` readers without a
//! lock; the caller provides them (memory it allocated, all zero).

use core::fmt;
use core::ops::Deref;
use core::sync::atomic::{AtomicI32, Ordering::Relaxed};

/// pid → tgid for pids `0..slots.len()`.
pub(crate) struct Tgids<S> {
    slots: S,
}

impl<S: Deref<Target = [AtomicI32]>> Tgids<S> {
    /// A table over `slots`, which must all be 0: one per pid up to the
    /// largest (`pid_max`), plus one for pid 0.
    pub(crate) const fn new(slots: S) -> Self {
        Tgids { slots }
    }

    /// Remembers that `pid` is in thread group `tgid`. As the kernel's
    /// `trace_save_tgid`: the idle task (pid 0) counts as saved without
    /// being kept, and a pid beyond the table is not saved (false).
    pub(crate) fn save(&self, pid: i32, tgid: i32) -> bool {
        if pid == 0 {
            return true;
        }
        match self.slot(pid) {
            Some(slot) => {
                slot.store(tgid, Relaxed);
                true
            }
            None => false,
        }
    }

    /// The thread group of `pid`, 0 when unknown.
    pub(crate) fn find(&self, pid: i32) -> i32 {
        self.slot(pid).map_or(0, |slot| slot.load(Relaxed))
    }

    /// Writes `saved_tgids`: `pid tgid` for each pid with a known thread
    /// group, by rising pid.
    pub(crate) fn write_saved(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        self.slots
            .iter()
            .enumerate()
            .map(|(pid, slot)| (pid, slot.load(Relaxed)))
            .filter(|&(_, tgid)| tgid != 0)
            .try_for_each(|(pid, tgid)| writeln!(out, "{pid} {tgid}"))
    }

    fn slot(&self, pid: i32) -> Option<&AtomicI32> {
        self.slots.get(usize::try_from(pid).ok()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(len: usize) -> Tgids<Vec<AtomicI32>> {
        Tgids::new((0..len).map(|_| AtomicI32::new(0)).collect())
    }

    #[test]
    fn saves_and_finds() {
        let t = table(100);
        assert!(t.save(42, 40));
        assert!(t.save(7, 7));
        assert_eq!(t.find(42), 40);
        assert_eq!(t.find(7), 7);
        assert_eq!(t.find(8), 0);
        assert!(t.save(42, 41));
        assert_eq!(t.find(42), 41);
    }

    #[test]
    fn idle_and_pids_out_of_range() {
        let t = table(10);
        assert!(t.save(0, 0));
        assert!(!t.save(10, 3));
        assert!(!t.save(-1, 3));
        assert_eq!(t.find(10), 0);
        assert_eq!(t.find(-5), 0);
        assert!(t.save(9, 3));
        assert_eq!(t.find(9), 3);
    }

    #[test]
    fn lists_known_pids_in_order() {
        let t = table(50);
        for (pid, tgid) in [(30, 29), (2, 2), (17, 2)] {
            assert!(t.save(pid, tgid));
        }
        let mut s = String::new();
        assert!(t.write_saved(&mut s).is_ok());
        assert_eq!(s, "2 2\n17 2\n30 29\n");
        let mut empty = String::new();
        assert!(table(5).write_saved(&mut empty).is_ok());
        assert_eq!(empty, "");
    }
}
