// SPDX-License-Identifier: GPL-2.0

//! Saved command lines: which task name goes with a pid in the output
//! (`saved_cmdlines`), kept as the kernel keeps them
//! (kernel/trace/trace_sched_switch.c, `struct saved_cmdlines_buffer`): a
//! ring of name slots filled in turn, and a map from a pid (modulo
//! `PID_MAX_DEFAULT`) to its slot, so that saving and finding a name take
//! no search. Recording never allocates; a pid whose slot was taken by
//! another shows as `<...>`. The caller provides the memory.

use core::ops::DerefMut;

/// Length of a task name (`TASK_COMM_LEN`).
pub(crate) const COMM_LEN: usize = 16;
/// Entries asked for by default (the kernel's `SAVED_CMDLINES_DEFAULT`);
/// a table keeps more ([`capacity_for`]).
pub(crate) const DEFAULT_ENTRIES: usize = 128;
/// The most entries `saved_cmdlines_size` accepts (`PID_MAX_DEFAULT`).
pub(crate) const MAX_ENTRIES: usize = 32768;
/// Entries of the pid map: pids are mapped modulo `PID_MAX_DEFAULT`.
pub(crate) const PID_MAP_ENTRIES: usize = 32768;
/// An unused entry of the pid map or slot (`NO_CMDLINE_MAP`).
pub(crate) const NO_CMDLINE_MAP: u32 = u32::MAX;

/// `sizeof(struct saved_cmdlines_buffer)` on 64-bit kernels: the pid map
/// (`PID_MAX_DEFAULT + 1` unsigned ints), a pointer and two ints.
const KERNEL_HEADER_SIZE: usize = 4 * (PID_MAP_ENTRIES + 1) + 4 + 8 + 4 + 4;
/// What one entry takes in the kernel's allocation: a name and a pid.
const KERNEL_ENTRY_SIZE: usize = COMM_LEN + 4;

/// How many names a table asked for `requested` keeps: as the kernel's
/// `allocate_cmdlines_buffer`, every entry that fits in the whole pages
/// (a power of two of them, of `page_size` bytes) allocated for the pid
/// map and `requested` entries. So `saved_cmdlines_size` reads more than
/// was written.
pub(crate) fn capacity_for(requested: usize, page_size: usize) -> usize {
    let bytes = KERNEL_HEADER_SIZE + requested * KERNEL_ENTRY_SIZE;
    let pages = bytes.div_ceil(page_size.max(1)).next_power_of_two();
    (pages * page_size - KERNEL_HEADER_SIZE) / KERNEL_ENTRY_SIZE
}

/// One saved pid and its name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    /// The pid, or [`NO_CMDLINE_MAP`].
    pid: u32,
    comm: [u8; COMM_LEN],
}

impl Slot {
    /// An unused slot.
    pub(crate) const EMPTY: Slot = Slot {
        pid: NO_CMDLINE_MAP,
        comm: [0; COMM_LEN],
    };
}

/// pid → task name for the last `capacity()` pids saved.
///
/// `map` (of [`PID_MAP_ENTRIES`] entries, all [`NO_CMDLINE_MAP`]) gives a
/// pid's slot; `slots` (all [`Slot::EMPTY`], at least one) hold the pids
/// and names.
pub(crate) struct Cmdlines<M, S> {
    map: M,
    slots: S,
    /// The slot filled last (`cmdline_idx`).
    last: usize,
}

impl<M: DerefMut<Target = [u32]>, S: DerefMut<Target = [Slot]>> Cmdlines<M, S> {
    /// A table over `map` and `slots`, as described on the type.
    pub(crate) const fn new(map: M, slots: S) -> Self {
        Cmdlines {
            map,
            slots,
            last: 0,
        }
    }

    /// How many pids it keeps.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// The map entry of `pid`.
    fn map_index(pid: u32) -> usize {
        pid as usize & (PID_MAP_ENTRIES - 1)
    }

    /// Remembers that `pid` is called `comm` (NUL-padded), as the kernel's
    /// `trace_save_cmdline`: a pid keeps the slot its map entry names (even
    /// one another pid took since), a new one takes the next slot in turn.
    /// The idle task (pid 0) is not kept. Returns whether the table
    /// changed: whether a name read before may read otherwise now.
    pub(crate) fn save(&mut self, pid: i32, comm: &[u8]) -> bool {
        let Ok(pid) = u32::try_from(pid) else {
            return false;
        };
        let capacity = self.capacity();
        if pid == 0 || capacity == 0 {
            return false;
        }
        let Some(entry) = self.map.get_mut(Self::map_index(pid)) else {
            return false;
        };
        let index = match *entry {
            NO_CMDLINE_MAP => {
                let next = (self.last + 1) % capacity;
                *entry = next as u32;
                self.last = next;
                next
            }
            index => index as usize,
        };
        let mut name = [0u8; COMM_LEN];
        let len = comm
            .iter()
            .take(COMM_LEN - 1)
            .position(|&b| b == 0)
            .unwrap_or(comm.len().min(COMM_LEN - 1));
        name[..len].copy_from_slice(&comm[..len]);
        let saved = Slot { pid, comm: name };
        match self.slots.get_mut(index) {
            Some(slot) if *slot != saved => {
                *slot = saved;
                true
            }
            _ => false,
        }
    }

    /// The name of `pid`: `<idle>` for pid 0, `<...>` when unknown.
    pub(crate) fn find(&self, pid: i32) -> &str {
        if pid == 0 {
            return "<idle>";
        }
        let Ok(pid) = u32::try_from(pid) else {
            return "<XXX>";
        };
        self.map
            .get(Self::map_index(pid))
            .and_then(|&index| self.slots.get(index as usize))
            .filter(|slot| slot.pid == pid)
            .map_or("<...>", |slot| {
                let len = slot.comm.iter().position(|&b| b == 0).unwrap_or(COMM_LEN);
                core::str::from_utf8(&slot.comm[..len]).unwrap_or("<...>")
            })
    }

    /// Every saved pid, by slot, and the name it finds, for
    /// `saved_cmdlines` (the kernel's `saved_cmdlines_show`).
    pub(crate) fn entries(&self) -> impl Iterator<Item = (i32, &str)> + '_ {
        self.slots
            .iter()
            .filter_map(|s| i32::try_from(s.pid).ok())
            .map(move |pid| (pid, self.find(pid)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(slots: usize) -> Cmdlines<Vec<u32>, Vec<Slot>> {
        Cmdlines::new(
            vec![NO_CMDLINE_MAP; PID_MAP_ENTRIES],
            vec![Slot::EMPTY; slots],
        )
    }

    #[test]
    fn saves_and_finds() {
        let mut c = table(DEFAULT_ENTRIES);
        c.save(42, b"bash\0\0\0");
        c.save(7, b"a-very-long-task-name-indeed");
        assert_eq!(c.find(42), "bash");
        assert_eq!(c.find(7), "a-very-long-tas");
        assert_eq!(c.find(0), "<idle>");
        assert_eq!(c.find(99), "<...>");
        assert_eq!(c.find(-1), "<XXX>");
        assert!(c.save(42, b"sh"), "a new name changes the table");
        assert!(!c.save(42, b"sh\0"), "the same name again does not");
        assert_eq!(c.find(42), "sh");
        assert_eq!(c.entries().count(), 2);
        c.save(0, b"swapper");
        assert_eq!(c.entries().count(), 2);
    }

    #[test]
    fn slots_fill_in_turn_from_the_second() {
        // As the kernel: the first pid saved takes slot 1, the ring wraps.
        let mut c = table(3);
        for pid in 1..=3 {
            c.save(pid, b"t");
        }
        let listed: Vec<i32> = c.entries().map(|(pid, _)| pid).collect();
        assert_eq!(listed, [3, 1, 2]);
    }

    #[test]
    fn forgets_the_oldest() {
        let mut c = table(3);
        for pid in 1..=4 {
            c.save(pid, b"t");
        }
        // Pid 4 took pid 1's slot.
        assert_eq!(c.find(1), "<...>");
        assert_eq!(c.find(2), "t");
        assert_eq!(c.find(4), "t");
        assert_eq!(c.capacity(), 3);
        // Pid 1 still maps to that slot and takes it back, as in the kernel.
        c.save(1, b"back");
        assert_eq!(c.find(1), "back");
        assert_eq!(c.find(4), "<...>");
        assert_eq!(c.find(2), "t");
    }

    #[test]
    fn pids_share_map_entries_modulo_pid_max_default() {
        let mut c = table(8);
        c.save(5, b"low");
        c.save(5 + PID_MAP_ENTRIES as i32, b"high");
        assert_eq!(c.find(5 + PID_MAP_ENTRIES as i32), "high");
        assert_eq!(c.find(5), "<...>");
        let mut none = Cmdlines::new(vec![NO_CMDLINE_MAP; PID_MAP_ENTRIES], Vec::new());
        none.save(5, b"x");
        assert_eq!(none.find(5), "<...>");
    }

    #[test]
    fn capacity_is_the_kernels() {
        // 4 KiB pages: the pid map alone takes 32 pages, so any size up to
        // 6552 gets 64 pages (the kernel's saved_cmdlines_size reads 6552).
        assert_eq!(capacity_for(DEFAULT_ENTRIES, 4096), 6552);
        assert_eq!(capacity_for(1, 4096), 6552);
        assert_eq!(capacity_for(6552, 4096), 6552);
        assert_eq!(capacity_for(6553, 4096), 19659);
        assert_eq!(capacity_for(MAX_ENTRIES, 4096), 45874);
    }
}
