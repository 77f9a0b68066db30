// SPDX-License-Identifier: GPL-2.0

//! A wait queue for readers that block until there is data
//! (`trace_pipe`), with poll support.

use crate::bindings;
use kernel::{ffi::c_void, prelude::*, types::Opaque};

/// How often a waiting reader looks at its condition although nobody
/// woke it, in milliseconds: the longest a missed wake-up delays it.
pub(crate) const RECHECK_MS: u32 = 100;

/// A kernel `wait_queue_head` for readers, and the `irq_work` through
/// which writers in any context (NMI included) wake them.
///
/// # Invariants
///
/// `head` and `work` are initialised by [`WaitQueue::new`]; `work` is
/// never pending or running once [`PinnedDrop::drop`] has run.
#[pin_data(PinnedDrop)]
pub(crate) struct WaitQueue {
    #[pin]
    head: Opaque<bindings::wait_queue_head>,
    #[pin]
    work: Opaque<bindings::irq_work>,
}

// SAFETY: a wait queue head is designed to be used from any thread; its
// own spinlock protects it. An irq_work may be queued from any context.
unsafe impl Send for WaitQueue {}
// SAFETY: as above.
unsafe impl Sync for WaitQueue {}

impl WaitQueue {
    /// An empty wait queue.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            // SAFETY: `slot` is valid for writes and pinned.
            head <- Opaque::ffi_init(|slot| unsafe { bindings::rft_init_waitqueue_head(slot) }),
            // SAFETY: as above; the callback only uses the queue it is in.
            work <- Opaque::ffi_init(|slot| unsafe {
                bindings::rft_init_irq_work(slot, Some(Self::wake_from_irq_work))
            }),
        })
    }

    /// Wakes every waiter, if there is one, from any context, NMI included:
    /// the wake-up itself runs soon after in hard interrupt context (as the
    /// kernel's ring buffer defers it). Call after making the data waited
    /// for visible; the check's full barrier pairs with the one a waiter
    /// has between queueing itself and testing its condition.
    pub(crate) fn wake_all(&self) {
        // SAFETY: the head was initialised in `new`; the check only reads
        // it, which is safe in any context.
        if unsafe { bindings::rft_wq_has_sleeper(self.head.get()) } {
            // SAFETY: `work` was initialised in `new` and lives until
            // `drop` has synced it; queueing an already queued work is a
            // no-op.
            unsafe { bindings::irq_work_queue(self.work.get()) };
        }
    }

    /// Wakes every waiter, if there is one, after a write to the ring,
    /// from any context: as [`Self::wake_all`], but without its full
    /// barrier, which would cost every recorded event one. A reader that is
    /// just queueing itself while the event's data is not yet visible to it
    /// may be missed, as the kernel's ring buffer may miss one
    /// (`ring_buffer_poll_wait`): [`Self::wait_until`] looks again every
    /// [`RECHECK_MS`], a poller at the next event.
    #[inline]
    pub(crate) fn wake_after_write(&self) {
        if self.may_have_sleeper() {
            // SAFETY: as in `wake_all`.
            unsafe { bindings::irq_work_queue(self.work.get()) };
        }
    }

    /// Whether a task may be waiting, read without a barrier: a waiter that
    /// is just queueing itself may be missed. Only for a writer about to
    /// check a condition that stays true until a reader acts (a ring
    /// filled to its watermark), so that the next write makes up for a
    /// wake-up missed this way.
    #[inline]
    pub(crate) fn may_have_sleeper(&self) -> bool {
        let head = self.head.get();
        // SAFETY: the head was initialised in `new` and lives as long as
        // `self`; `waitqueue_active` reads the first link of its list
        // without the lock (`READ_ONCE(head->next)`), as this does, inline
        // here because every recorded event asks.
        let (first, list) = unsafe {
            (
                core::ptr::read_volatile(&raw const (*head).head.next),
                &raw const (*head).head,
            )
        };
        // An empty list links to itself.
        !core::ptr::eq(first.cast_const(), list)
    }

    /// The deferred half of [`Self::wake_all`].
    ///
    /// # Safety
    ///
    /// `work` must be the `work` field of a live [`WaitQueue`].
    unsafe extern "C" fn wake_from_irq_work(work: *mut bindings::irq_work) {
        // SAFETY: per the contract, `work` is inside a `WaitQueue`, which
        // `drop` keeps alive until this has returned.
        let this =
            unsafe { &*kernel::container_of!(Opaque::cast_from(work).cast_mut(), Self, work) };
        // SAFETY: the head was initialised in `new`.
        unsafe { bindings::rft_wake_up_all(this.head.get()) };
    }

    /// Sleeps until `ready()` holds; fails with `ERESTARTSYS` when a signal
    /// arrives first. Looks at `ready()` every [`RECHECK_MS`] too, for a
    /// wake-up [`Self::wake_after_write`] missed.
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
        loop {
            // SAFETY: the head is initialised; `ready` outlives the call.
            let left = unsafe {
                bindings::rft_wait_event_interruptible_timeout_ms(
                    self.head.get(),
                    Some(call::<F>),
                    core::ptr::from_ref(ready).cast(),
                    RECHECK_MS,
                )
            };
            // Positive: `ready()` held; negative: a signal came.
            if left > 0 {
                return Ok(());
            }
            if left < 0 {
                return Err(ERESTARTSYS);
            }
        }
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

#[pinned_drop]
impl PinnedDrop for WaitQueue {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: `work` was initialised in `new`; after this it is neither
        // pending nor running, so the queue may go.
        unsafe { bindings::irq_work_sync(self.work.get()) };
    }
}
