// SPDX-License-Identifier: GPL-2.0

//! Reading the current task's memory from its own context, where a page
//! fault may page memory in and so the read may sleep (`copy_from_user`),
//! as the kernel's uprobe events
//! fetch their arguments (trace_uprobe.c `probe_mem_read`,
//! `fetch_store_string`, `fetch_store_strlen`). Only in task context with
//! preemption enabled (uprobe handlers); elsewhere use `nofault`.

use crate::bindings;
use kernel::uaccess::{UserPtr, UserSlice};

/// Copies `dst.len()` bytes at `address` of the current task into `dst`;
/// false if some could not be read (`copy_from_user`).
pub(crate) fn read(address: usize, dst: &mut [u8]) -> bool {
    UserSlice::new(UserPtr::from_addr(address), dst.len())
        .reader()
        .read_slice(dst)
        .is_ok()
}

/// The top of user address space (`TASK_SIZE_MAX`): a kernel probe's read
/// below it reads the current task's memory, as the kernel's does on x86.
pub(crate) fn task_size_max() -> u64 {
    // SAFETY: reads a value fixed at boot.
    unsafe { bindings::rft_task_size_max() as u64 }
}
