// SPDX-License-Identifier: GPL-2.0

//! The kernel's own printers of trace events (`event.funcs`), run on
//! records of rftrace's buffer through an iterator of rftrace's, as the
//! kernel itself does for `tp_printk` (`output_printk` in trace.c).
//!
//! The printers read `iter->ent`, `ent_size`, `seq`, `tmp_seq`, `fmt` and
//! the option flags of `iter->tr`, which here is the kernel's top-level
//! trace array: `hash-ptr` and `bitmask-list` follow the kernel's own
//! top-level `trace_options`.

use crate::bindings;
use crate::ksyms;
use core::mem::MaybeUninit;
use kernel::{c_str, ffi::c_void, prelude::*};

/// The output forms of an event (the `trace_event_functions` members).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// The default text.
    Trace,
    /// The `raw` option's.
    Raw,
    /// The `hex` option's.
    Hex,
    /// The `bin` option's.
    Binary,
}

/// The size of the format scratch buffer (the kernel's
/// `STATIC_FMT_BUF_SIZE`); the kernel grows it with `krealloc` as needed.
const FMT_SIZE: usize = 128;

/// A kernel trace event's output functions.
///
/// # Invariants
///
/// `event` is the `event` member of a `trace_event_call` that stays
/// registered while this value is used (a module's event: until the
/// module's GOING notification).
#[derive(Clone, Copy)]
pub(crate) struct EventOutput {
    event: *mut bindings::trace_event,
}

// SAFETY: a registered event's output functions may be called from any
// task; the value is only an address.
unsafe impl Send for EventOutput {}
// SAFETY: as above.
unsafe impl Sync for EventOutput {}

impl EventOutput {
    /// The output functions of the registered `event`.
    ///
    /// # Safety
    ///
    /// `event` must stay registered while the returned value is used.
    pub(crate) unsafe fn from_event(event: *mut bindings::trace_event) -> Self {
        // INVARIANT: the caller keeps it registered.
        EventOutput { event }
    }

    /// The output functions of `call`.
    ///
    /// # Safety
    ///
    /// `call` must stay registered while the returned value is used.
    pub(crate) unsafe fn new(call: *mut bindings::trace_event_call) -> Self {
        // SAFETY: `call` is valid (the caller's promise); this only takes
        // the address of a member.
        let event = unsafe { core::ptr::addr_of_mut!((*call).event) };
        // INVARIANT: the caller keeps the event registered.
        EventOutput { event }
    }
}

/// An iterator of rftrace's for the kernel's printers.
///
/// # Invariants
///
/// `iter` is zeroed but for `tr` (the kernel's `global_trace`, which lives
/// as long as the kernel) and `fmt`/`fmt_size` (a `kmalloc`ed buffer of
/// that size, owned here; the kernel may `krealloc` it).
pub(crate) struct EventPrinter {
    iter: KBox<bindings::trace_iterator>,
    /// The record, copied to memory aligned as the printers expect.
    record: KVec<u64>,
}

// SAFETY: the iterator's pointers are to memory this value owns or to the
// kernel's global trace array; nothing is tied to one task.
unsafe impl Send for EventPrinter {}

impl EventPrinter {
    /// A printer. May sleep.
    pub(crate) fn new() -> Result<Self> {
        let tr = ksyms::address_of(c_str!("global_trace")).ok_or(ENOENT)?;
        let mut iter = KBox::<bindings::trace_iterator>::new_uninit(GFP_KERNEL)?;
        let raw: *mut MaybeUninit<bindings::trace_iterator> = &mut *iter;
        // SAFETY: all-zero is a valid `trace_iterator` (it is plain data
        // and pointers); `raw` is valid for one.
        unsafe { core::ptr::write_bytes(raw, 0, 1) };
        // SAFETY: zeroed above.
        let mut iter = unsafe { iter.assume_init() };
        // SAFETY: a plain allocation, freed in `drop`.
        let fmt = unsafe { bindings::__kmalloc_noprof(FMT_SIZE, kernel::bindings::GFP_KERNEL) };
        if fmt.is_null() {
            return Err(ENOMEM);
        }
        iter.tr = tr as *mut bindings::trace_array;
        iter.fmt = fmt.cast();
        iter.fmt_size = FMT_SIZE as u32;
        Ok(EventPrinter {
            iter,
            record: KVec::new(),
        })
    }

    /// Appends to `out` the text `event` prints for `record` in `form`
    /// (without the context columns). May sleep.
    pub(crate) fn print(
        &mut self,
        event: EventOutput,
        record: &[u8],
        cpu: u32,
        ts: u64,
        form: Form,
        out: &mut KVec<u8>,
    ) -> Result {
        self.record.clear();
        self.record
            .resize(record.len().div_ceil(8) + 1, 0, GFP_KERNEL)?;
        // SAFETY: `self.record` has room for `record.len()` bytes; the two
        // do not overlap.
        unsafe {
            core::ptr::copy_nonoverlapping(
                record.as_ptr(),
                self.record.as_mut_ptr().cast::<u8>(),
                record.len(),
            )
        };
        // SAFETY: `event` is registered (its invariant); its functions are
        // set for every form (`register_trace_event` fills the missing ones
        // with `trace_nop_print`).
        let print = unsafe {
            let funcs = (*event.event).funcs;
            if funcs.is_null() {
                return Err(EINVAL);
            }
            match form {
                Form::Trace => (*funcs).trace,
                Form::Raw => (*funcs).raw,
                Form::Hex => (*funcs).hex,
                Form::Binary => (*funcs).binary,
            }
        };
        let Some(print) = print else {
            return Err(EINVAL);
        };
        let iter = &mut *self.iter;
        // SAFETY: `iter.seq` and `iter.tmp_seq` are this iterator's own.
        unsafe { bindings::rft_trace_seq_init(&mut iter.seq) };
        iter.ent = self.record.as_mut_ptr().cast();
        iter.ent_size = record.len() as i32;
        iter.cpu = cpu as i32;
        iter.ts = ts;
        // SAFETY: the iterator is set up as the printers need (type
        // invariant, and `ent` points at a copy of the record that lives
        // until after the call); `event` is registered.
        unsafe { print(iter, 0, event.event) };
        let len = iter.seq.seq.len.min(iter.seq.buffer.len());
        // SAFETY: `buffer` is `c_char`, the same size as `u8`.
        let text =
            unsafe { core::slice::from_raw_parts(iter.seq.buffer.as_ptr().cast::<u8>(), len) };
        out.extend_from_slice(text, GFP_KERNEL)?;
        Ok(())
    }
}

impl Drop for EventPrinter {
    fn drop(&mut self) {
        // SAFETY: `fmt` is the buffer allocated in `new`, or the one the
        // kernel `krealloc`ed it into (type invariant).
        unsafe { bindings::kfree(self.iter.fmt.cast::<c_void>()) };
    }
}
