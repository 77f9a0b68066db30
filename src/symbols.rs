// SPDX-License-Identifier: GPL-2.0

//! Kernel symbols: finding the address of a symbol the kernel does not
//! export, and naming addresses in the output as ftrace does (the name
//! alone, or with `sym-offset` `%pS`'s `name+off/size [module]`).

use crate::bindings;
use crate::kernel_api::kallsyms::{with_symbol, Form};
use crate::portable::records::Symbols;
use core::fmt;
use kernel::{prelude::*, str::CStr};

/// The address of kernel symbol `name`, found by registering a kprobe on it
/// and reading where the kprobe was placed (then removing it at once).
/// With indirect branch tracking the probe may sit just after the `endbr`
/// at the start, which still names the same function. `None` if there is
/// no such symbol or it cannot be probed.
pub(crate) fn address_of(name: &CStr) -> Option<usize> {
    // SAFETY: an all-zero `struct kprobe` is a valid unregistered probe.
    let mut probe: bindings::kprobe = unsafe { core::mem::zeroed() };
    probe.symbol_name = name.as_char_ptr();
    // SAFETY: `probe` is a valid, unregistered kprobe that outlives its
    // registration, which ends before it goes.
    if unsafe { bindings::register_kprobe(&mut probe) } != 0 {
        return None;
    }
    let address = probe.addr as usize;
    // SAFETY: `probe` was registered just above.
    unsafe { bindings::unregister_kprobe(&mut probe) };
    (address != 0).then_some(address)
}

/// Names addresses with kallsyms.
pub(crate) struct Kallsyms;

impl Symbols for Kallsyms {
    fn write_symbol(
        &self,
        out: &mut dyn fmt::Write,
        address: u64,
        offset: bool,
    ) -> Option<fmt::Result> {
        let form = if offset {
            Form::WithOffset
        } else {
            Form::NoOffset
        };
        with_symbol(address as usize, form, |text| write_name(out, text, offset))
    }
}

/// Writes kallsyms' `text` for an address as ftrace names it; `None` if it
/// names no symbol.
fn write_name(out: &mut dyn fmt::Write, mut text: &[u8], offset: bool) -> Option<fmt::Result> {
    if !offset {
        // ftrace names a function without its module (`kallsyms_lookup`,
        // not exported, gives only the name): drop ` [module]`.
        if let Some(space) = text.iter().position(|&b| b == b' ') {
            text = &text[..space];
        }
    }
    // An address with no symbol prints as itself: not a name.
    if text.first().is_none_or(|&b| b == b'0') {
        return None;
    }
    Some(out.write_str(core::str::from_utf8(text).ok()?))
}
