// SPDX-License-Identifier: GPL-2.0

//! Capturing one kernel event into one instance's buffer: a perf counter
//! per CPU on the event (perf runs the event's own assignment code), and a
//! handler that copies each record perf built into the instance's buffer
//! as the kernel's tracefs would have written it.
//!
//! perf refuses to sample a few events (`TRACE_EVENT_PERF_PERM`): x86's
//! `irq_vectors:irq_work_exit`, which perf's own wake-ups would raise
//! forever. Such an event whose record is its tracepoint's one `int`
//! argument is captured by a probe on its tracepoint instead.

use super::catalog::{Event, HEAD_MAX};
use super::defined::{DefinedEvent, RecordSink};
use super::filter::EventFilter;
use super::retired::Retired;
use super::soft::SoftSwitch;
use crate::instance::Instance;
use crate::kernel_api::perf_event::{OnSample, TracepointCounter};
use crate::kernel_api::tracepoint::{synchronize_unregister, IntProbe, OnInt};
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
pub(crate) struct Sink {
    instance: *const Instance,
    event: Arc<Event>,
    /// The event's filter in this instance, from `Arc::into_raw`; null for
    /// none. Replaced filters are released after a tracepoint grace period.
    filter: AtomicPtr<EventFilter>,
    /// Off while the event is soft-disabled ([`super::soft`]).
    switch: Arc<SoftSwitch>,
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
        // The head is copied to fix the preemption depth and to clear the
        // padding perf's scratch buffer leaves stale, as the kernel's
        // records have it zero.
        let head_len = self.event.head_len();
        let Some(common) = sample.get(..head_len) else {
            return;
        };
        let mut head_buf = [0u8; HEAD_MAX];
        let head = &mut head_buf[..head_len];
        head.copy_from_slice(common);
        fix_preempt_count(head);
        self.event.clear_gaps(head);
        let len = self.event.record_len(sample);
        let record = sample.get(..len).unwrap_or(sample);
        if self.keeps(instance, head, record, cpu) {
            let tail = sample.get(head_len..len).unwrap_or(&[]);
            instance.record_parts(cpu, len, (head, tail));
        }
    }
}

impl Sink {
    /// Whether a record made now on `cpu` could be kept.
    #[inline]
    pub(super) fn may_record(&self, cpu: usize) -> bool {
        // SAFETY: the instance outlives the sink's connections (type
        // invariant).
        let instance = unsafe { &*self.instance };
        !self.switch.is_disabled() && instance.records_on(cpu)
    }

    /// Whether `record` (its first bytes fixed up in `head`) passes the
    /// event's pid filters and filter in `instance`.
    fn keeps(&self, instance: &Instance, head: &[u8], record: &[u8], cpu: usize) -> bool {
        if self.switch.is_disabled() {
            return false;
        }
        let pid = i32::from_le_bytes([head[4], head[5], head[6], head[7]]);
        // The pid filters first, as the kernel's
        // `trace_event_buffer_reserve`.
        if instance
            .event_pids()
            .ignores_record(self.event.task_role, record, pid as u32)
        {
            return false;
        }
        let filter = self.filter.load(Acquire);
        // SAFETY: a filter stays alive for a grace period after it is
        // replaced, and handlers run within one.
        filter.is_null() || unsafe { &*filter }.matches(record, cpu as u32)
    }

    /// Records `record`, a whole record an event rftrace defines made on
    /// `cpu` (this CPU, preemption off), unless filtered out.
    pub(super) fn offer(&self, record: &[u8], cpu: usize) {
        // SAFETY: the instance outlives the sink's connections (type
        // invariant).
        let instance = unsafe { &*self.instance };
        if record.len() < ENTRY_HEADER_SIZE || !self.keeps(instance, record, record, cpu) {
            return;
        }
        let head = record.len() & !3;
        instance.record_parts(cpu, record.len(), record.split_at(head));
    }
}

impl OnInt for Sink {
    /// Builds the record perf would have built: the common fields of the
    /// hit (inside the tracepoint's preemption-off section, as perf's),
    /// then the argument.
    fn on_int(&self, value: i32) {
        let (flags, preempt_count) = crate::instance::current_context();
        let mut sample = [0u8; ENTRY_HEADER_SIZE + 4];
        sample[..2].copy_from_slice(&self.event.id.to_le_bytes());
        sample[2] = flags;
        sample[3] = preempt_count;
        sample[4..8].copy_from_slice(&crate::cpu_local::current_pid().to_le_bytes());
        sample[8..].copy_from_slice(&value.to_le_bytes());
        self.on_sample(&sample);
    }
}

/// perf fills the common fields inside the tracepoint's own preemption-off
/// section, so its preemption depth is one more than the one the kernel's
/// tracefs records (`tracing_gen_ctx_dec`) on a preemptible kernel.
fn fix_preempt_count(head: &mut [u8]) {
    if cfg!(CONFIG_PREEMPTION) && head[3] & 0x0f != 0 {
        head[3] -= 1;
    }
}

/// One event recorded into one instance, on every CPU.
pub(crate) struct Capture {
    source: Source,
    sink: KBox<Sink>,
}

/// What calls a capture's sink; held for what dropping it does (the
/// counters are released, the probe unregistered).
enum Source {
    /// A perf counter per CPU that was online (indexed by CPU).
    Counters {
        counters: KVec<Option<TracepointCounter>>,
    },
    /// A probe on the event's tracepoint, for an event perf will not
    /// sample.
    Probe { _probe: IntProbe<Sink> },
    /// The definer of an event rftrace defines, offering its records.
    Defined { _link: DefinedLink },
    /// Nothing any more: stopped by the owner, who waits for the handlers.
    Stopped,
}

impl Capture {
    /// Starts recording `event` into `instance`, through `switch`. May
    /// sleep; the caller must not hold `event_mutex`.
    ///
    /// # Safety
    ///
    /// `instance` must outlive the returned value.
    pub(crate) unsafe fn start(
        instance: &Instance,
        event: Arc<Event>,
        filter: Option<Arc<EventFilter>>,
        switch: Arc<SoftSwitch>,
    ) -> Result<Self> {
        // INVARIANT: the caller keeps the instance alive longer.
        let sink = KBox::new(
            Sink {
                instance,
                event,
                filter: AtomicPtr::new(into_raw(filter)),
                switch,
            },
            GFP_KERNEL,
        )?;
        let handler: *const Sink = &*sink;
        let event = &sink.event;
        if let Some(definer) = &event.definer {
            // SAFETY: the sink is boxed and freed only after the link is
            // dropped and a grace period passed (`drop`, `stop_all`).
            let sink_ref = unsafe { RecordSink::new(handler) };
            definer.connect(sink_ref)?;
            let link = DefinedLink {
                definer: definer.clone(),
                sink: sink_ref,
            };
            return Ok(Capture {
                source: Source::Defined { _link: link },
                sink,
            });
        }
        // SAFETY: the sink is boxed, so its address is stable, and it is
        // freed only after the counters or the probe (`drop`, `stop_all`).
        // A module's event is disabled at the module's GOING
        // (`super::modules`), which drops the counters.
        let source = match unsafe { counters(event, handler) } {
            Err(e) if e == EPERM && event.record_is_one_int() => {
                // SAFETY: as above; such an event's tracepoint takes one
                // `int`, the record's field.
                let probe = unsafe { IntProbe::start(event.name_c(), handler)? };
                Source::Probe { _probe: probe }
            }
            result => Source::Counters { counters: result? },
        };
        Ok(Capture { source, sink })
    }
}

/// A counter on each online CPU sampling `event` into `handler`, indexed
/// by CPU.
///
/// # Safety
///
/// `handler` must outlive the counters; a module's event's counters are
/// dropped before its module's GOING notification ends.
unsafe fn counters(event: &Event, handler: *const Sink) -> Result<KVec<Option<TracepointCounter>>> {
    let mut counters = KVec::new();
    let mut first_error = None;
    for cpu in 0..crate::instance::nr_cpu_ids() {
        // SAFETY: the caller's promises.
        match unsafe { counter(event, cpu, handler) } {
            Ok(counter) => counters.push(Some(counter), GFP_KERNEL)?,
            // A CPU that is not online has no counter.
            Err(e) => {
                first_error.get_or_insert(e);
                counters.push(None, GFP_KERNEL)?;
            }
        }
    }
    match (counters.iter().all(Option::is_none), first_error) {
        (true, Some(e)) => Err(e),
        _ => Ok(counters),
    }
}

/// A counter on `cpu` sampling `event` into `handler`.
///
/// # Safety
///
/// As for [`counters`].
unsafe fn counter(event: &Event, cpu: usize, handler: *const Sink) -> Result<TracepointCounter> {
    // SAFETY: the caller keeps `handler` alive longer and drops the counter
    // within the module's life.
    unsafe { TracepointCounter::new(event.id, cpu as u32, handler, event.module) }
}

impl Capture {
    /// The switch the capture records through.
    pub(crate) fn switch(&self) -> &Arc<SoftSwitch> {
        &self.sink.switch
    }

    /// The event captured.
    pub(crate) fn event(&self) -> &Arc<Event> {
        &self.sink.event
    }

    /// Makes a new counter on `cpu`, which came online: perf dropped the
    /// one it had when it went offline. May sleep; not from the hotplug
    /// callback itself (perf takes the hotplug lock).
    pub(crate) fn renew_on(&mut self, cpu: usize) -> Result {
        let Source::Counters { counters } = &mut self.source else {
            return Ok(());
        };
        let Some(slot) = counters.get_mut(cpu) else {
            return Ok(());
        };
        *slot = None;
        let handler: *const Sink = &*self.sink;
        // SAFETY: the sink outlives the counters (it is dropped after
        // them); a module's event's capture is dropped at the module's
        // GOING.
        *slot = Some(unsafe { counter(&self.sink.event, cpu, handler)? });
        Ok(())
    }

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

    /// Releases the counters or the probe: no new record starts after
    /// this, though a handler may still be running until
    /// [`synchronize_unregister`].
    pub(crate) fn stop_counting(&mut self) {
        self.source = Source::Stopped;
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        if matches!(self.source, Source::Stopped) {
            // Stopped by the owner, who waited for the handlers.
            return;
        }
        self.source = Source::Stopped;
        // A handler may still run on another CPU until the tracepoint's
        // readers are done; only then may the sink go.
        synchronize_unregister();
    }
}

/// Stops every capture of `captures` and waits once for their handlers.
/// Releasing a perf counter waits for a tracepoint grace period, under
/// the kernel's `event_mutex`, when it is its event's last perf user:
/// for many events, seconds. So the captures of built-in events are only
/// paused here and handed to `retired` to be released in the background;
/// those of module events are released now, within their module's life.
pub(crate) fn stop_all(mut captures: KVec<Capture>, retired: &Arc<Retired>) {
    let mut later = KVec::new();
    for mut capture in captures.drain_all() {
        if capture.sink.event.module.is_some() {
            capture.stop_counting();
        } else {
            capture.pause();
            // Without room to defer it, it is released (and waited for)
            // at once.
            let _ = later.push(capture, GFP_KERNEL);
        }
    }
    synchronize_unregister();
    retired.retire(later);
}

impl Capture {
    /// Stops the handler without releasing the counters: the counters
    /// are paused, a probe unregistered.
    fn pause(&mut self) {
        match &self.source {
            Source::Counters { counters } => counters.iter().flatten().for_each(|c| c.pause()),
            Source::Probe { .. } | Source::Defined { .. } => self.source = Source::Stopped,
            Source::Stopped => {}
        }
    }
}

/// A filter as the sink keeps it.
fn into_raw(filter: Option<Arc<EventFilter>>) -> *mut EventFilter {
    filter.map_or(core::ptr::null_mut(), |f| Arc::into_raw(f).cast_mut())
}

/// A sink connected to the definer of its event; disconnected on drop.
struct DefinedLink {
    definer: Arc<dyn DefinedEvent>,
    sink: RecordSink,
}

impl Drop for DefinedLink {
    fn drop(&mut self) {
        self.definer.disconnect(self.sink);
    }
}
