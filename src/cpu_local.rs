// SPDX-License-Identifier: GPL-2.0

//! The current CPU's preemption count, id and interrupt flag, and the
//! current task's address, pid and resched flag, read and changed with the
//! instructions the kernel's own inline functions compile to on x86-64
//! (`this_cpu_read(cpu_number)`, `preempt_disable_notrace()`, `current`,
//! ...).
//!
//! The patch engine's dispatcher and the recording path use these on every
//! traced call: through the C shims of `rust/helpers.c` each would be a
//! function call. Cold paths keep using the shims.

use core::arch::asm;

extern "C" {
    /// The kernel's per-CPU preemption count (`__preempt_count`), with
    /// `PREEMPT_NEED_RESCHED` folded in, inverted, as its top bit.
    static __preempt_count: i32;
    /// The kernel's per-CPU copy of the CPU's own id (`cpu_number`).
    static cpu_number: i32;
    /// The task running on this CPU (`current_task`, what `current` reads).
    #[link_name = "current_task"]
    static CURRENT_TASK: usize;
    fn preempt_schedule_notrace();
}

/// The bit of `__preempt_count` that is clear when a reschedule is due.
const PREEMPT_NEED_RESCHED: u32 = 0x8000_0000;

/// `preempt_count()`: the current context's preemption count.
#[inline(always)]
pub(crate) fn preempt_count() -> u32 {
    let count: u32;
    // SAFETY: a read of this CPU's `__preempt_count` through the per-CPU
    // segment, as `raw_cpu_read_4` does; it touches nothing else.
    unsafe {
        asm!(
            "mov {count:e}, dword ptr gs:[rip + {var}]",
            count = out(reg) count,
            var = sym __preempt_count,
            options(nostack, preserves_flags, readonly),
        )
    };
    count & !PREEMPT_NEED_RESCHED
}

/// `raw_smp_processor_id()`: the CPU this runs on (stable only while
/// preemption is off).
#[inline(always)]
pub(crate) fn processor_id() -> usize {
    let cpu: u32;
    // SAFETY: a read of this CPU's `cpu_number`, as `this_cpu_read` does.
    unsafe {
        asm!(
            "mov {cpu:e}, dword ptr gs:[rip + {var}]",
            cpu = out(reg) cpu,
            var = sym cpu_number,
            options(nostack, preserves_flags, readonly),
        )
    };
    cpu as usize
}

/// `current`: the address of the running task's `task_struct`.
#[inline(always)]
pub(crate) fn current_task() -> usize {
    let task: usize;
    // SAFETY: a read of this CPU's `current_task`, as `get_current` does;
    // a task always reads itself, whichever CPU it moved to.
    unsafe {
        asm!(
            "mov {task}, qword ptr gs:[rip + {var}]",
            task = out(reg) task,
            var = sym CURRENT_TASK,
            options(nostack, preserves_flags, readonly),
        )
    };
    task
}

/// `current->pid`: the running task's id.
#[inline(always)]
pub(crate) fn current_pid() -> i32 {
    let field = current_task() + crate::bindings::RFT_TASK_PID_OFFSET;
    // SAFETY: `current` is a live `task_struct`, whose `pid` (an `int`)
    // is at that offset; a task reads its own, which only it changes.
    unsafe { core::ptr::read_volatile(field as *const i32) }
}

/// The end (the highest address, exclusive) of the running task's kernel
/// stack.
#[inline]
pub(crate) fn current_stack_end() -> usize {
    let field = current_task() + crate::bindings::RFT_TASK_STACK_OFFSET;
    // SAFETY: `current` is a live `task_struct`; its `stack` pointer, at
    // that offset, does not change while the task runs.
    let stack = unsafe { core::ptr::read_volatile(field as *const usize) };
    stack.wrapping_add(crate::bindings::RFT_THREAD_SIZE)
}

/// `tif_need_resched()`: whether the running task is to be rescheduled.
#[inline(always)]
pub(crate) fn need_resched() -> bool {
    let field = current_task() + crate::bindings::RFT_TASK_TI_FLAGS_OFFSET;
    // SAFETY: `current` is a live `task_struct` whose thread flags (an
    // `unsigned long`) are at that offset; other CPUs set bits there
    // atomically, so a plain read sees a valid word.
    let flags = unsafe { core::ptr::read_volatile(field as *const usize) };
    flags & (1 << crate::bindings::RFT_TIF_NEED_RESCHED) != 0
}

/// `preempt_disable_notrace()`.
///
/// # Safety
///
/// Every call is paired with one of [`preempt_enable_notrace`] in the
/// same context.
#[inline(always)]
pub(crate) unsafe fn preempt_disable_notrace() {
    // SAFETY: one increment of this CPU's count, atomic against
    // interrupts (a single instruction); the clobbered memory is the
    // compiler barrier `preempt_disable` implies.
    unsafe {
        asm!(
            "inc dword ptr gs:[rip + {var}]",
            var = sym __preempt_count,
            options(nostack),
        )
    };
}

/// `preempt_enable_notrace()`: drops one level and reschedules if that
/// was the last one and a reschedule is due.
///
/// # Safety
///
/// Pairs with an earlier [`preempt_disable_notrace`] of this context.
#[inline(always)]
pub(crate) unsafe fn preempt_enable_notrace() {
    let last: u8;
    // SAFETY: one decrement of this CPU's count; it reaches zero only when
    // no level is left and `PREEMPT_NEED_RESCHED` is clear (a reschedule
    // is due), as `__preempt_count_dec_and_test` reports.
    unsafe {
        asm!(
            "dec dword ptr gs:[rip + {var}]",
            "sete {last}",
            var = sym __preempt_count,
            last = out(reg_byte) last,
            options(nostack),
        )
    };
    if last != 0 {
        // SAFETY: preemption is enabled again and a reschedule is due:
        // what `preempt_enable_notrace` calls then.
        unsafe { preempt_schedule_notrace() };
    }
}

/// `irqs_disabled()`: whether interrupts are off on this CPU.
#[inline(always)]
pub(crate) fn irqs_disabled() -> bool {
    let flags: usize;
    // SAFETY: reads the flags register through the stack, as
    // `native_save_fl` does.
    unsafe { asm!("pushf", "pop {flags}", flags = out(reg) flags, options(preserves_flags)) };
    flags & INTERRUPTS_ON == 0
}

/// Whether the saved flags register `flags` has interrupts off: for code
/// that has the flags already (the patch engine's trampoline saves them),
/// cheaper than reading them again.
#[inline(always)]
pub(crate) fn irqs_off_in(flags: usize) -> bool {
    flags & INTERRUPTS_ON == 0
}

/// `X86_EFLAGS_IF`.
const INTERRUPTS_ON: usize = 1 << 9;
