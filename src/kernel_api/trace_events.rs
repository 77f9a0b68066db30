// SPDX-License-Identifier: GPL-2.0

//! The kernel's trace events: `struct trace_event_call` and the list of
//! all of them (`ftrace_events`, kernel/trace/trace_events.c).
//!
//! Neither the list nor its lock (`event_mutex`) is exported; both are
//! resolved through kallsyms. The list holds built-in, module and dynamic
//! events and changes only under `event_mutex`.

use crate::bindings;
use crate::ksyms;
use crate::portable::events::field::{Field, FilterType};
use core::ffi::c_void;
use core::ptr::NonNull;
use kernel::{c_str, prelude::*, str::CStr};

/// The start of the kernel's private `struct ftrace_event_field`
/// (kernel/trace/trace.h, unchanged in its first fields since 6.x).
#[repr(C)]
struct FtraceEventField {
    link: bindings::list_head,
    name: *const c_char,
    type_name: *const c_char,
    filter_type: i32,
    offset: i32,
    size: i32,
    /// `is_signed:1` then `needs_test:1`.
    bits: u32,
    len: i32,
}

use kernel::ffi::c_char;

/// `event_mutex`, held: the event list cannot change while this lives.
///
/// # Invariants
///
/// `mutex` is the kernel's `event_mutex`, locked by this value, and `head`
/// is `ftrace_events`.
pub(crate) struct EventsLocked {
    mutex: *mut bindings::mutex,
    head: *mut bindings::list_head,
}

impl EventsLocked {
    /// Takes `event_mutex`. May sleep. Fails with `ENOENT` on a kernel
    /// whose symbols cannot be found.
    pub(crate) fn lock() -> Result<Self> {
        let mutex = ksyms::address_of(c_str!("event_mutex")).ok_or(ENOENT)?;
        let head = ksyms::address_of(c_str!("ftrace_events")).ok_or(ENOENT)?;
        let mutex = mutex as *mut bindings::mutex;
        // SAFETY: `mutex` is the kernel's `event_mutex`, a live mutex.
        unsafe { bindings::rft_mutex_lock(mutex) };
        // INVARIANT: locked above; `head` is `ftrace_events`.
        Ok(EventsLocked {
            mutex,
            head: head as *mut bindings::list_head,
        })
    }

    /// Calls `f` with every event of the list, in list order.
    pub(crate) fn for_each(&self, mut f: impl FnMut(EventCall<'_>)) {
        let head = self.head;
        // SAFETY: `ftrace_events` is a valid list head, and the list does
        // not change while `event_mutex` is held (type invariant).
        let mut node = unsafe { (*head).next };
        while !node.is_null() && node != head {
            let offset = core::mem::offset_of!(bindings::trace_event_call, list);
            // SAFETY: every entry of `ftrace_events` is the `list` member
            // of a `trace_event_call`.
            let call =
                unsafe { node.cast::<u8>().sub(offset) }.cast::<bindings::trace_event_call>();
            if let Some(call) = NonNull::new(call) {
                f(EventCall {
                    call,
                    _lock: core::marker::PhantomData,
                });
            }
            // SAFETY: as above, `node` is a live entry.
            node = unsafe { (*node).next };
        }
    }
}

impl Drop for EventsLocked {
    fn drop(&mut self) {
        // SAFETY: the mutex was locked in `lock` (type invariant).
        unsafe { bindings::rft_mutex_unlock(self.mutex) };
    }
}

/// One of the kernel's trace events, seen while `event_mutex` is held.
///
/// # Invariants
///
/// `call` is an entry of `ftrace_events`, which stays registered for `'a`.
#[derive(Clone, Copy)]
pub(crate) struct EventCall<'a> {
    call: NonNull<bindings::trace_event_call>,
    _lock: core::marker::PhantomData<&'a EventsLocked>,
}

impl<'a> EventCall<'a> {
    fn raw(&self) -> &'a bindings::trace_event_call {
        // SAFETY: a registered event (type invariant).
        unsafe { self.call.as_ref() }
    }

    /// The event's address, to find it again later.
    pub(crate) fn as_ptr(&self) -> *mut bindings::trace_event_call {
        self.call.as_ptr()
    }

    /// The event's name.
    pub(crate) fn name(&self) -> &'a CStr {
        // SAFETY: `trace_event_name` of a registered event is a valid
        // string that lives as long as the event.
        unsafe { c_string(bindings::rft_trace_event_name(self.call.as_ptr())) }
    }

    /// Its system (the directory under `events/`).
    pub(crate) fn system(&self) -> &'a CStr {
        let class = self.raw().class;
        if class.is_null() {
            return c_str!("");
        }
        // SAFETY: the class of a registered event is valid, and its system
        // name lives as long as the event.
        unsafe { c_string((*class).system) }
    }

    /// Its record type (the `ID` of its `format` file).
    pub(crate) fn id(&self) -> u16 {
        self.raw().event.type_ as u16
    }

    /// `print fmt` of its `format` file.
    pub(crate) fn print_fmt(&self) -> &'a CStr {
        // SAFETY: as for the name.
        unsafe { c_string(self.raw().print_fmt) }
    }

    /// Whether the kernel's tracefs shows it: not `IGNORE_ENABLE`, and a
    /// class that can register it.
    pub(crate) fn is_shown(&self) -> bool {
        let raw = self.raw();
        let flags = raw.flags;
        // SAFETY: the class of a registered event is valid.
        let has_reg = !raw.class.is_null() && unsafe { (*raw.class).reg.is_some() };
        flags & bindings::RFT_TRACE_EVENT_FL_IGNORE_ENABLE == 0 && has_reg
    }

    /// Whether it is a dynamic event (a kprobe, uprobe, ... event of the
    /// kernel's own tracefs).
    pub(crate) fn is_dynamic(&self) -> bool {
        self.raw().flags & bindings::RFT_TRACE_EVENT_FL_DYNAMIC != 0
    }

    /// The module that defines it, null for built-in and dynamic events.
    pub(crate) fn module(&self) -> *mut c_void {
        if self.is_dynamic() {
            return core::ptr::null_mut();
        }
        // SAFETY: for non-dynamic events the union holds the module.
        unsafe { self.raw().__bindgen_anon_2.module }
    }

    /// Calls `f` with each of its own fields, in the order of its `format`
    /// file (after the common fields).
    pub(crate) fn for_each_field(&self, mut f: impl FnMut(Field<'a>)) {
        // SAFETY: a registered event's class gives its field list.
        let head = unsafe { bindings::rft_trace_get_fields(self.call.as_ptr()) };
        if head.is_null() {
            return;
        }
        // As `f_next`: from the head backwards (fields are added at the
        // front, so this is their order of definition).
        // SAFETY: the field list of a registered event is valid and fixed.
        let mut node = unsafe { (*head).prev };
        while !node.is_null() && node != head {
            // SAFETY: every entry is the `link` (first member) of a
            // `ftrace_event_field`.
            let field = unsafe { &*node.cast::<FtraceEventField>() };
            // SAFETY: a field's name and type live as long as its event.
            let (name, type_name) = unsafe { (c_string(field.name), c_string(field.type_name)) };
            f(Field {
                type_name: type_name.to_str().unwrap_or("?"),
                name: name.to_str().unwrap_or("?"),
                offset: field.offset as u32,
                size: field.size as u32,
                is_signed: field.bits & 1 != 0,
                filter_type: FilterType::from_kernel(field.filter_type),
                len: field.len as u32,
            });
            node = field.link.prev;
        }
    }
}

/// The string at `ptr`, or an empty one for null.
///
/// # Safety
///
/// `ptr` is null or a NUL-terminated string valid for `'a`.
unsafe fn c_string<'a>(ptr: *const c_char) -> &'a CStr {
    if ptr.is_null() {
        return c_str!("");
    }
    // SAFETY: guaranteed by the caller.
    unsafe { CStr::from_char_ptr(ptr) }
}

/// A record type of the kernel's own numbering, registered for an event
/// rftrace defines (`register_trace_event`): the kernel gives it an id no
/// other event has, and its printers are the kernel's `trace_nop_print`
/// (what the kernel's probe events print in the `raw`, `hex` and `bin`
/// forms).
///
/// # Invariants
///
/// `event` is registered with the kernel, its `funcs` pointing at
/// `funcs`; both stay at their boxed addresses until unregistered in
/// `drop`.
pub(crate) struct RegisteredType {
    event: KBox<bindings::trace_event>,
    _funcs: KBox<bindings::trace_event_functions>,
    id: u16,
}

// SAFETY: the kernel's event hash is locked by `trace_event_sem` for every
// change; this value only names its entry.
unsafe impl Send for RegisteredType {}
// SAFETY: as above; shared use only reads `id` and the address.
unsafe impl Sync for RegisteredType {}

impl RegisteredType {
    /// Registers a new record type. May sleep. `ENOSPC` when the kernel
    /// has no id left.
    pub(crate) fn new() -> Result<Self> {
        // SAFETY: all-zero is a valid `trace_event_functions` (no
        // printers) and `trace_event` (unlinked, type 0: "allocate one").
        let mut funcs: KBox<bindings::trace_event_functions> =
            KBox::new(unsafe { core::mem::zeroed() }, GFP_KERNEL)?;
        // SAFETY: as above.
        let mut event: KBox<bindings::trace_event> =
            KBox::new(unsafe { core::mem::zeroed() }, GFP_KERNEL)?;
        event.funcs = &mut *funcs;
        // SAFETY: `event` and `funcs` are boxed, so their addresses stay
        // valid until `drop` unregisters the event.
        let id = unsafe { bindings::register_trace_event(&mut *event) };
        let id = u16::try_from(id).ok().filter(|&id| id != 0).ok_or(ENOSPC)?;
        // INVARIANT: registered above, `funcs` boxed with it.
        Ok(RegisteredType {
            event,
            _funcs: funcs,
            id,
        })
    }

    /// The id records of this type carry.
    pub(crate) fn id(&self) -> u16 {
        self.id
    }

    /// The printers of the type, for the forms the kernel prints with
    /// them.
    pub(crate) fn output(&self) -> crate::kernel_api::trace_output::EventOutput {
        let event: *const bindings::trace_event = &*self.event;
        // SAFETY: registered for as long as `self` (type invariant); the
        // caller keeps `self` while it prints.
        unsafe { crate::kernel_api::trace_output::EventOutput::from_event(event.cast_mut()) }
    }
}

impl Drop for RegisteredType {
    fn drop(&mut self) {
        // SAFETY: registered in `new` (type invariant); unregistering
        // frees the id for reuse.
        unsafe { bindings::unregister_trace_event(&mut *self.event) };
    }
}
