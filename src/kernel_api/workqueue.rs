// SPDX-License-Identifier: GPL-2.0

//! Work items: what the kernel crate's `workqueue` lacks.

use crate::bindings;
use kernel::workqueue::Work;

/// Waits until `work` is neither queued nor running (`flush_work`). May
/// sleep.
pub(crate) fn flush<T: ?Sized, const ID: u64>(work: &Work<T, ID>) {
    // SAFETY: `work` is an initialised work item, alive for the call.
    unsafe { bindings::flush_work(Work::raw_get(work).cast()) };
}

/// The kernel's default unbound work queue (`system_dfl_wq`; `system_wq`
/// and `system_unbound_wq` are deprecated in its favour).
pub(crate) fn default_queue() -> &'static kernel::workqueue::Queue {
    // SAFETY: `system_dfl_wq` is a kernel global that lives forever.
    unsafe { kernel::workqueue::Queue::from_raw(kernel::bindings::system_dfl_wq) }
}
