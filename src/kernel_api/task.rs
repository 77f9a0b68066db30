// SPDX-License-Identifier: GPL-2.0

//! Tasks: what rftrace reads of a `task_struct` it is handed (a scheduler
//! tracepoint's arguments, or the running task), and the pid range.

use crate::bindings;
use crate::portable::cmdlines::COMM_LEN;
use core::marker::PhantomData;
use core::ptr::NonNull;

const _: () = assert!(bindings::RFT_TASK_COMM_LEN == COMM_LEN);

/// A task that stays alive for `'a`.
///
/// # Invariants
///
/// `task` points at a live `task_struct` for all of `'a`.
#[derive(Clone, Copy)]
pub(crate) struct TaskRef<'a> {
    task: NonNull<bindings::task_struct>,
    _alive: PhantomData<&'a bindings::task_struct>,
}

impl<'a> TaskRef<'a> {
    /// The task at `task`, `None` if null.
    ///
    /// # Safety
    ///
    /// A non-null `task` is a `task_struct` that stays alive for `'a` (as
    /// the tasks a scheduler tracepoint passes do for the probe's call).
    pub(crate) unsafe fn from_raw(task: *mut bindings::task_struct) -> Option<Self> {
        // INVARIANT: the caller's guarantee.
        NonNull::new(task).map(|task| TaskRef {
            task,
            _alive: PhantomData,
        })
    }

    /// The running task, for as long as the borrow of `_scope` lasts
    /// (something of the caller's current call): a task stays alive while
    /// it runs.
    pub(crate) fn current<T>(_scope: &'a T) -> Self {
        let task = crate::cpu_local::current_task() as *mut bindings::task_struct;
        // INVARIANT: `current` lives while it runs this.
        TaskRef {
            // SAFETY: `current` is never null.
            task: unsafe { NonNull::new_unchecked(task) },
            _alive: PhantomData,
        }
    }

    /// Reads the field of type `T` at `offset`.
    ///
    /// # Safety
    ///
    /// `task_struct` has a `T` at `offset`.
    unsafe fn field<T: Copy>(self, offset: usize) -> T {
        // SAFETY: the task is live (type invariant) and has a `T` there
        // (the caller's guarantee); volatile, as its task may change it.
        unsafe { core::ptr::read_volatile(self.task.as_ptr().cast::<u8>().add(offset).cast::<T>()) }
    }

    /// Its pid (the kernel's `task->pid`, the thread's id).
    pub(crate) fn pid(self) -> i32 {
        // SAFETY: `pid` is an `int` at this offset.
        unsafe { self.field::<i32>(bindings::RFT_TASK_PID_OFFSET) }
    }

    /// Its thread group's id (`task->tgid`).
    pub(crate) fn tgid(self) -> i32 {
        // SAFETY: `tgid` is an `int` at this offset.
        unsafe { self.field::<i32>(bindings::RFT_TASK_TGID_OFFSET) }
    }

    /// Its name (`task->comm`), NUL-padded. Read without the task's lock,
    /// as the kernel's `trace_save_cmdline` does: a concurrent rename may
    /// show half done.
    pub(crate) fn comm(self) -> [u8; COMM_LEN] {
        let [low, high] = self.comm_words();
        let mut comm = [0u8; COMM_LEN];
        let (first, second) = comm.split_at_mut(COMM_LEN / 2);
        first.copy_from_slice(&low.to_le_bytes());
        second.copy_from_slice(&high.to_le_bytes());
        comm
    }

    /// Its name as [`Self::comm`] reads it, as two little-endian words
    /// (two loads, where a byte array is read a byte at a time).
    pub(crate) fn comm_words(self) -> [u64; 2] {
        const OFFSET: usize = bindings::RFT_TASK_COMM_OFFSET;
        // The last byte is always NUL, as the kernel keeps it.
        const LAST_BYTE: u64 = 0xff << 56;
        // SAFETY: `comm` is a `char[TASK_COMM_LEN]` (16 bytes, checked
        // above) at an 8-aligned offset (checked here) of the aligned
        // `task_struct`: two `u64` cover it exactly.
        let [low, high] = unsafe {
            const { assert!(OFFSET % 8 == 0) };
            [self.field::<u64>(OFFSET), self.field::<u64>(OFFSET + 8)]
        };
        [low, high & !LAST_BYTE]
    }
}

/// The limit of pids: every pid is below it (`pid_max` of the initial pid
/// namespace).
pub(crate) fn pid_max() -> usize {
    // SAFETY: reads a sysctl the kernel keeps valid at all times.
    let max = unsafe { bindings::rft_pid_max() };
    usize::try_from(max).unwrap_or(0)
}

/// The current task's name, NUL-padded. Any context.
#[inline]
pub(crate) fn current_comm() -> [u8; COMM_LEN] {
    let mut comm = [0u8; COMM_LEN];
    // SAFETY: `comm` has room for a task name and its NUL.
    unsafe { bindings::rft_current_comm(comm.as_mut_ptr()) };
    comm
}
