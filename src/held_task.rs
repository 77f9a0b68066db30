// SPDX-License-Identifier: GPL-2.0

//! Another task, held asleep by the scheduler, so that its kernel stack
//! can be edited: the function_graph tracer gives back the hooked returns
//! of tasks that sleep inside traced functions this way.
//!
//! [`with_sleeping`] holds the task with the kernel's `task_call_func`
//! (wakeups and scheduling of it wait meanwhile) and passes it on only if
//! it is asleep by its own choice: it called `schedule()` to wait and was
//! taken off its runqueue (or only left on it by the scheduler's delayed
//! dequeue), it is on no CPU, and it is not exiting. Such a task stopped
//! at a call of `schedule()`, so no code of its own is half-way through
//! anything that cannot block, and nothing reads or writes its stack but
//! the holder until it is woken.

use crate::bindings;
use crate::ksyms;
use core::ffi::c_void;
use core::ops::Range;

/// A task held asleep (see the module's description).
///
/// # Invariants
///
/// `task` is a live task that sleeps by its own choice and is held so by
/// the scheduler while the value exists; its stack is allocated.
pub(crate) struct SleepingTask {
    task: usize,
}

impl SleepingTask {
    /// `task`, if it sleeps by its own choice. Only while it is held.
    fn check(task: *mut bindings::task_struct) -> Option<Self> {
        let task = task as usize;
        // SAFETY: `task` is a live task (held); each offset and width is
        // that of the field named. A field of a width not known here is
        // taken for the answer that leaves the task alone.
        let (state, exiting, on_rq, on_cpu, delayed) = unsafe {
            use bindings::*;
            (
                field::<u32>(task, RFT_TASK_STATE_OFFSET),
                nonzero(task, RFT_TASK_EXIT_STATE_OFFSET, RFT_TASK_EXIT_STATE_SIZE).unwrap_or(true),
                nonzero(task, RFT_TASK_ON_RQ_OFFSET, RFT_TASK_ON_RQ_SIZE).unwrap_or(true),
                nonzero(task, RFT_TASK_ON_CPU_OFFSET, RFT_TASK_ON_CPU_SIZE).unwrap_or(true),
                nonzero(
                    task,
                    RFT_TASK_SCHED_DELAYED_OFFSET,
                    RFT_TASK_SCHED_DELAYED_SIZE,
                )
                .unwrap_or(false),
            )
        };
        let not_asleep =
            bindings::RFT_TASK_DEAD | bindings::RFT_TASK_WAKING | bindings::RFT_TASK_NEW;
        let asleep = state != bindings::RFT_TASK_RUNNING && state & not_asleep == 0;
        // A task preempted stays on its runqueue; one that blocked left
        // it, unless its dequeue was delayed.
        let blocked = !on_rq || delayed;
        // INVARIANT: checked just above; a task that is not exiting keeps
        // its stack.
        (asleep && blocked && !on_cpu && !exiting).then_some(SleepingTask { task })
    }

    /// The part of the task's kernel stack in use: from where it was
    /// switched out to the stack's end.
    pub(crate) fn live_stack(&self) -> Range<usize> {
        // SAFETY: the type invariant: the task is live and held; `stack`
        // (a pointer) and the saved stack pointer are at these offsets.
        let (stack, sp) = unsafe {
            (
                field::<usize>(self.task, bindings::RFT_TASK_STACK_OFFSET),
                field::<usize>(self.task, bindings::RFT_TASK_SAVED_SP_OFFSET),
            )
        };
        let end = stack.wrapping_add(bindings::RFT_THREAD_SIZE);
        if (stack..end).contains(&sp) {
            sp..end
        } else {
            0..0
        }
    }
}

/// Reads the field of type `T` at `offset` in the `task_struct` at `task`.
///
/// # Safety
///
/// `task` is a live `task_struct` with a `T` at `offset`.
unsafe fn field<T: Copy>(task: usize, offset: usize) -> T {
    // SAFETY: per the contract; the read is volatile, as other CPUs may
    // write the field.
    unsafe { core::ptr::read_volatile((task + offset) as *const T) }
}

/// Whether the integer field of `size` bytes at `offset` in the
/// `task_struct` at `task` is not zero; `None` for a width not known here.
///
/// # Safety
///
/// `task` is a live `task_struct` with an integer field of `size` bytes at
/// `offset`.
unsafe fn nonzero(task: usize, offset: usize, size: usize) -> Option<bool> {
    // SAFETY: per the contract, for each width.
    unsafe {
        match size {
            1 => Some(field::<u8>(task, offset) != 0),
            2 => Some(field::<u16>(task, offset) != 0),
            4 => Some(field::<u32>(task, offset) != 0),
            8 => Some(field::<u64>(task, offset) != 0),
            _ => None,
        }
    }
}

/// Calls `f` with `task` held, if it sleeps by its own choice. Returns
/// whether `f` ran. `f` runs with interrupts off and scheduler locks held:
/// it must be short and take no lock. Process context.
///
/// # Safety
///
/// `task` is a live task, and stays so for the call (the caller holds a
/// reference or the RCU read lock over the task list).
pub(crate) unsafe fn with_sleeping(
    task: *mut bindings::task_struct,
    f: &mut dyn FnMut(&SleepingTask),
) -> bool {
    struct Call<'a> {
        f: &'a mut dyn FnMut(&SleepingTask),
        ran: bool,
    }
    /// # Safety
    ///
    /// `arg` is the `Call` of this call; `task` is held.
    unsafe extern "C" fn held(task: *mut bindings::task_struct, arg: *mut c_void) -> i32 {
        // SAFETY: per the contract.
        let call = unsafe { &mut *arg.cast::<Call<'_>>() };
        if let Some(sleeping) = SleepingTask::check(task) {
            (call.f)(&sleeping);
            call.ran = true;
        }
        0
    }
    let mut call = Call { f, ran: false };
    // SAFETY: `task` is live (the contract); `held` only runs `f`, which
    // takes no lock.
    let done =
        unsafe { ksyms::call_with_task_held(task, held, core::ptr::from_mut(&mut call).cast()) };
    done.is_ok() && call.ran
}
