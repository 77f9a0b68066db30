// SPDX-License-Identifier: GPL-2.0

//! In-kernel perf counters (`perf_event_create_kernel_counter`) on trace
//! events: perf runs an event's own assignment code and hands the record
//! it built to the counter's overflow handler.

use super::module::Module;
use crate::bindings;
use core::ptr::NonNull;
use kernel::{ffi::c_void, prelude::*};

/// What a counter does with each record it samples.
pub(crate) trait OnSample: Sync {
    /// Called for each hit of the event on the counter's CPU, in the
    /// context of the hit (task, softirq, hardirq or NMI), with the record
    /// perf built: the common fields, then the event's (the size is perf's,
    /// padded so that size + 4 is a multiple of 8).
    fn on_sample(&self, record: &[u8]);
}

/// A counter on one CPU that samples every hit of one trace event.
///
/// # Invariants
///
/// `event` was made by `perf_event_create_kernel_counter` and is released
/// only by `drop`. If `module` is set, it defines the event, perf's
/// reference on it was given back when the counter was made, and the
/// counter is dropped before the module's GOING notification ends.
pub(crate) struct TracepointCounter {
    event: NonNull<bindings::perf_event>,
    module: Option<Module>,
}

// SAFETY: the counter is a handle to a kernel object; perf serialises the
// operations on it.
unsafe impl Send for TracepointCounter {}
// SAFETY: as above; `&TracepointCounter` allows nothing.
unsafe impl Sync for TracepointCounter {}

impl TracepointCounter {
    /// Makes a counter on `cpu` for trace event `id` that calls
    /// `handler.on_sample` for each hit. May sleep; takes `event_mutex`
    /// (the caller must not hold it).
    ///
    /// perf holds a reference on the module of a module's event while a
    /// counter exists, which would keep the module loaded; the kernel's
    /// tracefs does not. With `module` given, that reference is given back
    /// now and taken again just before the counter is released.
    ///
    /// # Safety
    ///
    /// `handler` must stay valid until the counter is dropped. `module`,
    /// if given, is the live module that defines event `id`, and the
    /// counter is dropped before its GOING notification ends.
    pub(crate) unsafe fn new<T: OnSample>(
        id: u16,
        cpu: u32,
        handler: *const T,
        module: Option<Module>,
    ) -> Result<Self> {
        let mut attr = bindings::perf_event_attr {
            type_: bindings::RFT_PERF_TYPE_TRACEPOINT,
            size: core::mem::size_of::<bindings::perf_event_attr>() as u32,
            config: u64::from(id),
            // PERIOD makes perf count one overflow per hit, also for the
            // events that add a count of their own (`__perf_count`).
            sample_type: bindings::RFT_PERF_SAMPLE_RAW | bindings::RFT_PERF_SAMPLE_PERIOD,
            ..Default::default()
        };
        attr.__bindgen_anon_1.sample_period = 1;
        let cpu = i32::try_from(cpu).map_err(|_| EINVAL)?;
        // SAFETY: `attr` is a valid attribute set; a null task makes a
        // per-CPU counter; the trampoline matches `perf_overflow_handler_t`
        // and `handler` outlives the counter (the caller's promise).
        let event = unsafe {
            bindings::perf_event_create_kernel_counter(
                &mut attr,
                cpu,
                core::ptr::null_mut(),
                Some(overflow::<T>),
                handler.cast_mut().cast::<c_void>(),
            )
        };
        let event = NonNull::new(kernel::error::from_err_ptr(event)?).ok_or(ENOMEM)?;
        if let Some(module) = module {
            // SAFETY: perf took a reference on the event's module for this
            // counter; `drop` takes it back before perf drops it, within
            // the module's life (the caller's promise).
            unsafe { module.give_back_reference() };
        }
        // INVARIANT: made just now; released only in `drop`; the module's
        // reference is given back.
        Ok(TracepointCounter { event, module })
    }
}

impl TracepointCounter {
    /// Stops sampling: perf takes the counter off its event's list, so
    /// the handler is not called for hits that start after this (one
    /// running on another CPU may still finish). Cheap, unlike the
    /// release, which waits for a tracepoint grace period when it is the
    /// event's last perf user. May sleep.
    pub(crate) fn pause(&self) {
        // SAFETY: the counter is ours and live (type invariant).
        unsafe { bindings::perf_event_disable(self.event.as_ptr()) };
    }
}

impl Drop for TracepointCounter {
    fn drop(&mut self) {
        if let Some(module) = self.module {
            // SAFETY: the module's GOING notification has not ended (type
            // invariant); perf drops this reference with the counter.
            unsafe { module.take_back_reference() };
        }
        // SAFETY: the counter is ours (type invariant) and released once.
        // `perf_event_release_kernel` removes it from the tracepoint and
        // waits for running handlers to finish.
        unsafe { bindings::perf_event_release_kernel(self.event.as_ptr()) };
    }
}

/// The overflow handler of every counter: hands the sample's raw record to
/// the counter's `OnSample`.
///
/// # Safety
///
/// Called by perf for a counter made by [`TracepointCounter::new::<T>`].
unsafe extern "C" fn overflow<T: OnSample>(
    event: *mut bindings::perf_event,
    data: *mut bindings::perf_sample_data,
    _regs: *mut bindings::pt_regs,
) {
    let mut raw: *const c_void = core::ptr::null();
    // SAFETY: perf passes a valid event and sample.
    let (handler, size) = unsafe {
        (
            bindings::rft_perf_event_context(event).cast::<T>(),
            bindings::rft_perf_sample_raw(data, &mut raw),
        )
    };
    if handler.is_null() || raw.is_null() {
        return;
    }
    // SAFETY: perf's raw record is `size` readable bytes for the duration
    // of the handler; `handler` is the live `T` given to `new`.
    let (handler, record) = unsafe {
        (
            &*handler,
            core::slice::from_raw_parts(raw.cast::<u8>(), size as usize),
        )
    };
    handler.on_sample(record);
}
