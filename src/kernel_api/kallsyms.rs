// SPDX-License-Identifier: GPL-2.0

//! Naming kernel addresses with kallsyms (`sprint_symbol`,
//! `sprint_symbol_no_offset`), and finding symbols for probes (by name,
//! counting those of one name, the function around an address).

use crate::bindings;
use core::ffi::{c_int, c_void};
use kernel::{c_str, ffi::c_char, prelude::*, str::CStr};

/// The room kallsyms' printers need (`KSYM_SYMBOL_LEN`).
const SYMBOL_LEN: usize = bindings::RFT_KSYM_SYMBOL_LEN as usize;

/// How an address is named.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// `name+0xoff/0xsize [module]`, as `%pS`.
    WithOffset,
    /// `name [module]`.
    NoOffset,
}

/// Calls `f` with the text kallsyms gives for `address` in `form` (the
/// address itself, in hex, when no symbol covers it). May be called in
/// any context.
pub(crate) fn with_symbol<R>(address: usize, form: Form, f: impl FnOnce(&[u8]) -> R) -> R {
    let mut text = [0u8; SYMBOL_LEN];
    let buf = text.as_mut_ptr().cast();
    // SAFETY: `text` has the KSYM_SYMBOL_LEN bytes the printers write at
    // most, NUL included.
    let len = unsafe {
        match form {
            Form::WithOffset => bindings::sprint_symbol(buf, address),
            Form::NoOffset => bindings::sprint_symbol_no_offset(buf, address),
        }
    };
    let len = usize::try_from(len).unwrap_or(0).min(SYMBOL_LEN);
    f(&text[..len])
}

/// The address of symbol `name` (`MOD:SYM` names one of a module), as
/// `kallsyms_lookup_name` finds it: vmlinux first, then modules. May sleep.
pub(crate) fn lookup_name(name: &CStr) -> Option<usize> {
    crate::ksyms::address_of(name)
}

/// The size of the symbol covering `address` and the offset of `address`
/// in it (`kallsyms_lookup_size_offset`). May sleep.
pub(crate) fn size_offset(address: usize) -> Option<(usize, usize)> {
    type SizeOffsetFn = unsafe extern "C" fn(usize, *mut usize, *mut usize) -> c_int;
    let function = crate::ksyms::address_of(c_str!("kallsyms_lookup_size_offset"))?;
    let (mut size, mut offset) = (0usize, 0usize);
    // SAFETY: the kernel's `kallsyms_lookup_size_offset`, of this type;
    // both outputs are valid for writes.
    let found = unsafe {
        let function: SizeOffsetFn = core::mem::transmute(function);
        function(address, &mut size, &mut offset)
    };
    (found != 0).then_some((size, offset))
}

/// How many symbols are called `name`: in vmlinux, or if none there (or
/// `module` is given) in the modules (only `module`'s if given): the
/// kernel's `number_of_same_symbols` of trace_kprobe. May sleep.
pub(crate) fn count_same_symbols(module: Option<&CStr>, name: &CStr) -> u32 {
    type EachMatchFn = unsafe extern "C" fn(
        unsafe extern "C" fn(*mut c_void, usize) -> c_int,
        *const c_char,
        *mut c_void,
    ) -> c_int;
    type EachModuleFn = unsafe extern "C" fn(
        *const c_char,
        unsafe extern "C" fn(*mut c_void, *const c_char, usize) -> c_int,
        *mut c_void,
    ) -> c_int;
    let mut count = Count { n: 0, name };
    let data = (&raw mut count).cast::<c_void>();
    if module.is_none() {
        if let Some(each) = crate::ksyms::address_of(c_str!("kallsyms_on_each_match_symbol")) {
            // SAFETY: the kernel's `kallsyms_on_each_match_symbol`, of this
            // type; `count_any` gets `data`, a live `Count`.
            unsafe {
                let each: EachMatchFn = core::mem::transmute(each);
                each(count_any, name.as_char_ptr(), data);
            }
        }
        if count.n > 0 {
            return count.n;
        }
    }
    if let Some(each) = crate::ksyms::address_of(c_str!("module_kallsyms_on_each_symbol")) {
        let module = module.map_or(core::ptr::null(), |m| m.as_char_ptr());
        // SAFETY: the kernel's `module_kallsyms_on_each_symbol`, of this
        // type; `count_named` gets `data`, a live `Count`.
        unsafe {
            let each: EachModuleFn = core::mem::transmute(each);
            each(module, count_named, data);
        }
    }
    count.n
}

/// The count of [`count_same_symbols`].
struct Count<'a> {
    n: u32,
    name: &'a CStr,
}

/// Counts one match of `kallsyms_on_each_match_symbol`.
///
/// # Safety
///
/// `data` is a live `Count`.
unsafe extern "C" fn count_any(data: *mut c_void, _address: usize) -> c_int {
    // SAFETY: the contract.
    let count = unsafe { &mut *data.cast::<Count<'_>>() };
    count.n = count.n.saturating_add(1);
    0
}

/// Counts a module symbol if it is the one looked for.
///
/// # Safety
///
/// `data` is a live `Count`; `name` a NUL-terminated symbol name.
unsafe extern "C" fn count_named(data: *mut c_void, name: *const c_char, _address: usize) -> c_int {
    // SAFETY: the contract.
    let (count, name) = unsafe { (&mut *data.cast::<Count<'_>>(), CStr::from_char_ptr(name)) };
    if name.to_bytes() == count.name.to_bytes() {
        count.n = count.n.saturating_add(1);
    }
    0
}

/// The first `__fentry__` site the kernel's ftrace lists in `[start,
/// end]` (`ftrace_location_range`), if any. May sleep.
pub(crate) fn ftrace_location_in(start: usize, end: usize) -> Option<usize> {
    type RangeFn = unsafe extern "C" fn(usize, usize) -> usize;
    let function = crate::ksyms::address_of(c_str!("ftrace_location_range"))?;
    // SAFETY: the kernel's `ftrace_location_range`, of this type.
    let site = unsafe {
        let function: RangeFn = core::mem::transmute(function);
        function(start, end)
    };
    (site != 0).then_some(site)
}

/// Whether the text at `address` is an `endbr64` (or `endbr32`), or the
/// 4-byte NOP the kernel seals unused ones with: the x86 `is_endbr`.
pub(crate) fn is_endbr(address: usize) -> bool {
    /// `endbr64` as a little-endian word.
    const ENDBR64: u32 = 0xfa1e_0ff3;
    /// The bit that makes it `endbr32`.
    const ENDBR32_BIT: u32 = 0x0100_0000;
    /// `nopl -42(%rax)`, a sealed `endbr` (`gen_endbr_poison`).
    const ENDBR_POISON: u32 = 0xd640_1f0f;
    let mut text = [0u8; 4];
    if crate::ksyms::read_text(address, &mut text).is_err() {
        return false;
    }
    let word = u32::from_le_bytes(text);
    word == ENDBR_POISON || word & !ENDBR32_BIT == ENDBR64
}
