// SPDX-License-Identifier: GPL-2.0

//! The strings trace events record pointers to, which `printk_formats`
//! lists (kernel/trace/trace_printk.c): the built-in `trace_printk()`
//! formats (section `__trace_printk_fmt`), the built-in
//! `tracepoint_string()`s (section `__tracepoint_str`), then the formats of
//! modules, which the kernel copies onto `trace_bprintk_fmt_list` when
//! they load (under `btrace_mutex`) and never frees.
//!
//! None of these is exported; they are resolved through kallsyms.

use crate::bindings;
use crate::ksyms;
use kernel::{c_str, ffi::c_char, prelude::*, str::CStr};

/// `struct trace_bprintk_fmt` (trace_printk.c, private; unchanged since
/// 2.6.30): an entry of `trace_bprintk_fmt_list`.
#[repr(C)]
struct TraceBprintkFmt {
    list: bindings::list_head,
    fmt: *const c_char,
}

/// Calls `f` with the address and the text of each string, in the
/// kernel's order, until `f` fails. Sections or a list whose symbols this
/// kernel lacks are left out. May sleep (it takes `btrace_mutex`).
pub(crate) fn try_for_each<E>(mut f: impl FnMut(usize, &[u8]) -> Result<(), E>) -> Result<(), E> {
    let sections = [
        (
            c_str!("__start___trace_bprintk_fmt"),
            c_str!("__stop___trace_bprintk_fmt"),
        ),
        (
            c_str!("__start___tracepoint_str"),
            c_str!("__stop___tracepoint_str"),
        ),
    ];
    for (start, stop) in sections {
        if let Some(pointers) = section(start, stop) {
            // SAFETY: `pointers` is a built-in section of string pointers,
            // which stays as it is while the kernel runs.
            unsafe { for_each_pointer(pointers, &mut f)? };
        }
    }
    for_each_module_format(&mut f)
}

/// The addresses of the string pointers between the section bounds
/// `start` and `stop`, if both are found and make a range of pointers.
fn section(start: &CStr, stop: &CStr) -> Option<core::ops::Range<usize>> {
    let (start, stop) = (ksyms::address_of(start)?, ksyms::address_of(stop)?);
    let size = core::mem::size_of::<*const c_char>();
    (start <= stop && start % size == 0 && (stop - start) % size == 0).then_some(start..stop)
}

/// Calls `f` with each string that the pointers in `pointers` point to;
/// null pointers are skipped, as the kernel's `t_show` does.
///
/// # Safety
///
/// `pointers` holds pointers to NUL-terminated strings (or null) that
/// stay in place while this runs.
unsafe fn for_each_pointer<E>(
    pointers: core::ops::Range<usize>,
    f: &mut impl FnMut(usize, &[u8]) -> Result<(), E>,
) -> Result<(), E> {
    for slot in pointers.step_by(core::mem::size_of::<*const c_char>()) {
        // SAFETY: `slot` is within the array of pointers (the caller's
        // guarantee).
        let text = unsafe { *(slot as *const *const c_char) };
        // SAFETY: a string pointer of the section (the caller's guarantee).
        unsafe { call_with_string(text, f)? };
    }
    Ok(())
}

/// Calls `f` with the address and bytes of the string at `text`, unless
/// it is null.
///
/// # Safety
///
/// `text` is null or a NUL-terminated string that stays while this runs.
unsafe fn call_with_string<E>(
    text: *const c_char,
    f: &mut impl FnMut(usize, &[u8]) -> Result<(), E>,
) -> Result<(), E> {
    if text.is_null() {
        return Ok(());
    }
    // SAFETY: a NUL-terminated string (the caller's guarantee).
    let bytes = unsafe { CStr::from_char_ptr(text) }.to_bytes();
    f(text as usize, bytes)
}

/// `btrace_mutex`, held: `trace_bprintk_fmt_list` does not change.
///
/// # Invariants
///
/// `mutex` is the kernel's `btrace_mutex`, locked by this value.
struct FormatListLocked {
    mutex: *mut bindings::mutex,
}

impl Drop for FormatListLocked {
    fn drop(&mut self) {
        // SAFETY: locked by this value (type invariant).
        unsafe { bindings::rft_mutex_unlock(self.mutex) };
    }
}

/// Calls `f` with each module format of `trace_bprintk_fmt_list`, in list
/// order, under `btrace_mutex`.
fn for_each_module_format<E>(f: &mut impl FnMut(usize, &[u8]) -> Result<(), E>) -> Result<(), E> {
    let (Some(head), Some(mutex)) = (
        ksyms::address_of(c_str!("trace_bprintk_fmt_list")),
        ksyms::address_of(c_str!("btrace_mutex")),
    ) else {
        return Ok(());
    };
    let head = head as *mut bindings::list_head;
    let mutex = mutex as *mut bindings::mutex;
    // SAFETY: `btrace_mutex` is a live kernel mutex; this may sleep (the
    // readers of `printk_formats` run in process context).
    unsafe { bindings::rft_mutex_lock(mutex) };
    // INVARIANT: locked just above.
    let _locked = FormatListLocked { mutex };
    // SAFETY: `trace_bprintk_fmt_list` is a valid list head, and its
    // entries are only added to, under the mutex held here.
    let mut node = unsafe { (*head).next };
    while !node.is_null() && node != head {
        let entry = node.cast::<TraceBprintkFmt>();
        // SAFETY: every entry is the `list` member, at offset 0, of a
        // `trace_bprintk_fmt`; its format is a NUL-terminated copy that is
        // never freed.
        unsafe { call_with_string((*entry).fmt, f)? };
        // SAFETY: as above, `node` is a live entry.
        node = unsafe { (*node).next };
    }
    Ok(())
}
