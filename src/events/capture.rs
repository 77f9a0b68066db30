// SPDX-License-Identifier: GPL-2.0

//! Capturing one kernel event into one instance's buffer: a perf counter
//! per CPU on the event (perf runs the event's own assignment code), and a
//! handler that copies each record perf built into the instance's buffer
//! as the kernel's tracefs would have written it.

use super::catalog::Event;
use super::filter::EventFilter;
use crate::instance::Instance;
use crate::kernel_api::perf_event::{OnSample, TracepointCounter};
use crate::kernel_api::tracepoint::synchronize_unregister;
use crate::portable::output::ENTRY_HEADER_SIZE;
use core::sync::atomic::{AtomicPtr, Ordering::AcqRel, Ordering::Acquire};
use kernel::prelude::*;
use kernel::sync::Arc;

/// Where a counter's records go.
///
/// # Invariants
///
/// `instance` points at an instance that outlives every counter of the
/// [`Capture`] that owns this sink.
struct Sink {
    instance: *const Instance,
    event: &'static Event,
    /// The event's filter in this instance, from `Arc::into_raw`; null for
    /// none. Replaced filters are released after a tracepoint grace period.
    filter: AtomicPtr<EventFilter>,
}

impl Drop for Sink {
    fn drop(&mut self) {
        let filter = *self.filter.get_mut();
        if !filter.is_null() {
            // SAFETY: from `Arc::into_raw`; no handler runs any more (the
            // owner waited for them before dropping the sink).
            drop(unsafe { Arc::from_raw(filter) });
        }
    }
}

// SAFETY: the instance is `Sync` and outlives the sink (type invariant).
unsafe impl Sync for Sink {}
// SAFETY: as above; the sink names the instance from any task.
unsafe impl Send for Sink {}

impl OnSample for Sink {
    fn on_sample(&self, sample: &[u8]) {
        // SAFETY: the instance outlives the counters (type invariant), and
        // perf calls this only while a counter exists.
        let instance = unsafe { &*self.instance };
        let cpu = crate::cpu_local::processor_id();
        let Some(common) = sample.get(..ENTRY_HEADER_SIZE) else {
            return;
        };
        let mut head = [0u8; ENTRY_HEADER_SIZE];
        head.copy_from_slice(common);
        fix_preempt_count(&mut head);
        let len = self.event.record_len(sample);
        let filter = self.filter.load(Acquire);
        // SAFETY: a filter stays alive for a grace period after it is
        // replaced, and handlers run within one.
        if !filter.is_null() && !unsafe { &*filter }.matches(&sample[..len], cpu as u32) {
            return;
        }
        let tail = sample.get(ENTRY_HEADER_SIZE..len).unwrap_or(&[]);
        instance.record_parts(cpu, len, (&head, tail));
    }
}

/// perf fills the common fields inside the tracepoint's own preemption-off
/// section, so its preemption depth is one more than the one the kernel's
/// tracefs records (`tracing_gen_ctx_dec`) on a preemptible kernel.
fn fix_preempt_count(head: &mut [u8; ENTRY_HEADER_SIZE]) {
    if cfg!(CONFIG_PREEMPTION) && head[3] & 0x0f != 0 {
        head[3] -= 1;
    }
}

/// One event recorded into one instance, on every CPU.
pub(crate) struct Capture {
    counters: KVec<TracepointCounter>,
    sink: KBox<Sink>,
}

impl Capture {
    /// Starts recording `event` into `instance`. May sleep; the caller
    /// must not hold `event_mutex`.
    ///
    /// # Safety
    ///
    /// `instance` must outlive the returned value.
    pub(crate) unsafe fn start(
        instance: &Instance,
        event: &'static Event,
        filter: Option<Arc<EventFilter>>,
    ) -> Result<Self> {
        // INVARIANT: the caller keeps the instance alive longer.
        let sink = KBox::new(
            Sink {
                instance,
                event,
                filter: AtomicPtr::new(into_raw(filter)),
            },
            GFP_KERNEL,
        )?;
        let mut this = Capture {
            counters: KVec::new(),
            sink,
        };
        let mut first_error = None;
        for cpu in 0..crate::instance::nr_cpu_ids() {
            let handler: *const Sink = &*this.sink;
            // SAFETY: the sink is boxed, so its address is stable, and it
            // is freed only after the counters (`drop`).
            match unsafe { TracepointCounter::new(event.id, cpu as u32, handler) } {
                Ok(counter) => this.counters.push(counter, GFP_KERNEL)?,
                // A CPU that is not online has no counter.
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match (this.counters.is_empty(), first_error) {
            (true, Some(e)) => Err(e),
            _ => Ok(this),
        }
    }
}

impl Capture {
    /// Makes `filter` the event's filter; the one it replaces is released
    /// once no handler can be using it. May sleep.
    pub(crate) fn set_filter(&self, filter: Option<Arc<EventFilter>>) {
        let old = self.sink.filter.swap(into_raw(filter), AcqRel);
        if !old.is_null() {
            synchronize_unregister();
            // SAFETY: from `Arc::into_raw`; no handler uses it any more.
            drop(unsafe { Arc::from_raw(old) });
        }
    }

    /// Releases the counters: no new record starts after this, though a
    /// handler may still be running until [`synchronize_unregister`].
    pub(crate) fn stop_counting(&mut self) {
        self.counters.clear();
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        if self.counters.is_empty() {
            // Stopped by the owner, who waited for the handlers.
            return;
        }
        self.counters.clear();
        // A handler may still run on another CPU until the tracepoint's
        // readers are done; only then may the sink go.
        synchronize_unregister();
    }
}

/// Stops every capture of `captures` and waits once for their handlers,
/// then frees them: disabling many events costs one grace period.
pub(crate) fn stop_all(mut captures: KVec<Capture>) {
    for capture in captures.iter_mut() {
        capture.stop_counting();
    }
    if !captures.is_empty() {
        synchronize_unregister();
    }
}

/// A filter as the sink keeps it.
fn into_raw(filter: Option<Arc<EventFilter>>) -> *mut EventFilter {
    filter.map_or(core::ptr::null_mut(), |f| Arc::into_raw(f).cast_mut())
}
