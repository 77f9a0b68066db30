// SPDX-License-Identifier: GPL-2.0

//! A wait queue for readers that block until there is data
//! (`trace_pipe`), with poll support.

use crate::bindings;
use kernel::{error::to_result, ffi::c_void, prelude::*, types::Opaque};

/// A kernel `wait_queue_head`.
#[pin_data]
pub(crate) struct WaitQueue {
    #[pin]
    head: Opaque<bindings::wait_queue_head>,
}

// SAFETY: a wait queue head is designed to be used from any thread; its
// own spinlock protects it.
unsafe impl Send for WaitQueue {}
// SAFETY: as above.
unsafe impl Sync for WaitQueue {}

impl WaitQueue {
    /// An empty wait queue.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            // SAFETY: `slot` is valid for writes and pinned.
            head <- Opaque::ffi_init(|slot| unsafe { bindings::rft_init_waitqueue_head(slot) }),
        })
    }

    /// Wakes every waiter, if there is one (then taking the queue's lock).
    /// Call after making the data waited for visible; the check's full
    /// barrier pairs with the one a waiter has between queueing itself and
    /// testing its condition, so no waiter is missed. Not from NMI context.
    pub(crate) fn wake_all(&self) {
        // SAFETY: the head was initialised in `new`.
        if unsafe { bindings::rft_wq_has_sleeper(self.head.get()) } {
            // SAFETY: as above.
            unsafe { bindings::rft_wake_up_all(self.head.get()) };
        }
    }

    /// Sleeps until `ready()` holds; fails with `ERESTARTSYS` when a signal
    /// arrives first.
    pub(crate) fn wait_until<F: Fn() -> bool>(&self, ready: &F) -> Result {
        /// Evaluates the condition for the C wait loop.
        ///
        /// # Safety
        ///
        /// `arg` must point to a live `F`.
        unsafe extern "C" fn call<F: Fn() -> bool>(arg: *const c_void) -> bool {
            // SAFETY: `arg` is the `&F` passed below, alive during the wait.
            unsafe { (*arg.cast::<F>())() }
        }
        // SAFETY: the head is initialised; `ready` outlives the call.
        to_result(unsafe {
            bindings::rft_wait_event_interruptible(
                self.head.get(),
                Some(call::<F>),
                core::ptr::from_ref(ready).cast(),
            )
        })
    }

    /// Registers `file`'s poll table on this queue.
    ///
    /// # Safety
    ///
    /// `file` and `table` must be the arguments of a running `poll`.
    pub(crate) unsafe fn poll_wait(
        &self,
        file: *mut bindings::file,
        table: *mut bindings::poll_table_struct,
    ) {
        // SAFETY: per the contract; the head outlives the open file (it
        // belongs to the instance the file keeps alive).
        unsafe { bindings::rft_poll_wait(file, self.head.get(), table) };
    }
}
