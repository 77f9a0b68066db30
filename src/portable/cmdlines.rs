// SPDX-License-Identifier: GPL-2.0

//! Saved command lines: which task name goes with a pid in the output
//! (`saved_cmdlines`). A table of fixed size, as ftrace keeps, so recording
//! never allocates; a pid whose slot was taken by another shows as `<...>`.

use core::ops::DerefMut;

/// Length of a task name (`TASK_COMM_LEN`).
pub(crate) const COMM_LEN: usize = 16;
/// Entries kept by default (ftrace's default `saved_cmdlines_size`).
pub(crate) const DEFAULT_ENTRIES: usize = 128;
/// The most entries `saved_cmdlines_size` accepts (`PID_MAX_DEFAULT`).
pub(crate) const MAX_ENTRIES: usize = 32768;

/// One saved pid and its name.
#[derive(Clone, Copy)]
pub(crate) struct Slot {
    pid: i32,
    comm: [u8; COMM_LEN],
}

impl Slot {
    /// An unused slot.
    pub(crate) const EMPTY: Slot = Slot {
        pid: -1,
        comm: [0; COMM_LEN],
    };
}

/// pid → task name, for the last `capacity()` distinct pids seen; the
/// caller provides the slots (memory it allocated).
pub(crate) struct Cmdlines<S> {
    slots: S,
    next: usize,
}

impl<S: DerefMut<Target = [Slot]>> Cmdlines<S> {
    /// A table over `slots`, which must all be [`Slot::EMPTY`].
    pub(crate) const fn new(slots: S) -> Self {
        Cmdlines { slots, next: 0 }
    }

    /// How many pids it keeps.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Remembers that `pid` is called `comm` (NUL-padded).
    pub(crate) fn save(&mut self, pid: i32, comm: &[u8]) {
        let capacity = self.capacity();
        if pid <= 0 || capacity == 0 {
            return;
        }
        let index = match self.slots.iter().position(|s| s.pid == pid) {
            Some(i) => i,
            None => {
                let i = self.next % capacity;
                self.next = (i + 1) % capacity;
                i
            }
        };
        let mut name = [0u8; COMM_LEN];
        let len = comm
            .iter()
            .take(COMM_LEN - 1)
            .position(|&b| b == 0)
            .unwrap_or(comm.len().min(COMM_LEN - 1));
        name[..len].copy_from_slice(&comm[..len]);
        if let Some(slot) = self.slots.get_mut(index) {
            *slot = Slot { pid, comm: name };
        }
    }

    /// The name of `pid`: `<idle>` for pid 0, `<...>` when unknown.
    pub(crate) fn find(&self, pid: i32) -> &str {
        if pid == 0 {
            return "<idle>";
        }
        self.slots
            .iter()
            .find(|s| s.pid == pid)
            .map_or("<...>", |s| {
                let len = s.comm.iter().position(|&b| b == 0).unwrap_or(COMM_LEN);
                core::str::from_utf8(&s.comm[..len]).unwrap_or("<...>")
            })
    }

    /// Every saved pid and name, for `saved_cmdlines`.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (i32, &str)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.pid > 0)
            .map(move |s| (s.pid, self.find(s.pid)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_and_finds() {
        let mut c = Cmdlines::new(vec![Slot::EMPTY; DEFAULT_ENTRIES]);
        c.save(42, b"bash\0\0\0");
        c.save(7, b"a-very-long-task-name-indeed");
        assert_eq!(c.find(42), "bash");
        assert_eq!(c.find(7), "a-very-long-tas");
        assert_eq!(c.find(0), "<idle>");
        assert_eq!(c.find(99), "<...>");
        c.save(42, b"sh");
        assert_eq!(c.find(42), "sh");
        assert_eq!(c.entries().count(), 2);
    }

    #[test]
    fn forgets_the_oldest() {
        let mut c = Cmdlines::new(vec![Slot::EMPTY; 3]);
        for pid in 1..=4 {
            c.save(pid, b"t");
        }
        assert_eq!(c.find(1), "<...>");
        assert_eq!(c.find(2), "t");
        assert_eq!(c.capacity(), 3);
        let mut none = Cmdlines::new(Vec::new());
        none.save(5, b"x");
        assert_eq!(none.find(5), "<...>");
    }
}
