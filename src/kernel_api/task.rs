// SPDX-License-Identifier: GPL-2.0

//! The current task.

use crate::bindings;

/// The length of a task name with its NUL (`TASK_COMM_LEN`).
pub(crate) const COMM_LEN: usize = 16;

/// The current task's name, NUL-padded. Any context.
#[inline]
pub(crate) fn current_comm() -> [u8; COMM_LEN] {
    let mut comm = [0u8; COMM_LEN];
    // SAFETY: `comm` has room for a task name and its NUL.
    unsafe { bindings::rft_current_comm(comm.as_mut_ptr()) };
    comm
}
