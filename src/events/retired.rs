// SPDX-License-Identifier: GPL-2.0

//! Captures of disabled events, released in the background.
//!
//! Releasing the last perf counter of an event waits for a tracepoint
//! grace period under the kernel's `event_mutex`: disabling every event at
//! once would take seconds per thousand events. Disabling pauses the
//! counters (perf stops calling their handler at once) and hands them here;
//! a work item releases them. The owner waits for it ([`Retired::wait`])
//! before it goes.

use super::capture::Capture;
use crate::kernel_api::tracepoint::synchronize_unregister;
use crate::kernel_api::workqueue::{default_queue, flush};
use kernel::{
    new_mutex, new_work,
    prelude::*,
    sync::{Arc, Mutex},
    workqueue::{impl_has_work, Work, WorkItem},
};

/// Paused captures waiting to be released.
#[pin_data]
pub(crate) struct Retired {
    #[pin]
    captures: Mutex<KVec<Capture>>,
    #[pin]
    work: Work<Retired>,
}

impl_has_work! {
    impl HasWork<Self> for Retired { self.work }
}

impl Retired {
    /// Nothing to release yet.
    pub(crate) fn new() -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Retired {
                captures <- new_mutex!(KVec::new()),
                work <- new_work!("rftrace::events::retired"),
            }),
            GFP_KERNEL,
        )
    }

    /// Releases `captures` (paused, no handler running) in the background.
    pub(crate) fn retire(self: &Arc<Self>, mut captures: KVec<Capture>) {
        if captures.is_empty() {
            return;
        }
        {
            let mut list = self.captures.lock();
            for capture in captures.drain_all() {
                // Without room in the list, it is released at once.
                let _ = list.push(capture, GFP_KERNEL);
            }
        }
        // Already queued is fine: the queued run takes these too.
        let _ = default_queue().enqueue(self.clone());
    }

    /// Waits until every capture handed over is released. May sleep.
    pub(crate) fn wait(&self) {
        flush(&self.work);
        // A capture handed over while the work ran is released here.
        self.release_all();
    }

    /// Releases what is waiting, until nothing is.
    fn release_all(&self) {
        loop {
            let mut batch = core::mem::take(&mut *self.captures.lock());
            if batch.is_empty() {
                return;
            }
            for capture in batch.iter_mut() {
                capture.stop_counting();
            }
            synchronize_unregister();
        }
    }
}

impl WorkItem for Retired {
    type Pointer = Arc<Retired>;

    fn run(this: Arc<Retired>) {
        this.release_all();
    }
}
