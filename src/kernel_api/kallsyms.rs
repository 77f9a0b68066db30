// SPDX-License-Identifier: GPL-2.0

//! Naming kernel addresses with kallsyms (`sprint_symbol`,
//! `sprint_symbol_no_offset`).

use crate::bindings;

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
