// SPDX-License-Identifier: GPL-2.0

//! Kernel stack traces for `func_stack_trace`: the current stack, as the
//! kernel's unwinder walks it, without rftrace's own frames.

use crate::bindings;
use crate::portable::output::EntryHeader;
use crate::portable::records::stack::{head_words, HEAD_WORDS};

/// The most callers a stack record holds.
const MAX_CALLERS: usize = 32;

/// A `kernel_stack` record built in place: its head, then the callers the
/// unwinder found.
///
/// # Invariants
///
/// `len <= MAX_CALLERS` callers follow the head in `words`.
pub(crate) struct KernelStack {
    words: [u64; HEAD_WORDS + MAX_CALLERS],
    len: usize,
}

impl KernelStack {
    /// The current task's kernel stack from the first frame outside
    /// rftrace (the traced function), as a record with `header`.
    pub(crate) fn capture(header: EntryHeader) -> Self {
        let mut words = [0u64; HEAD_WORDS + MAX_CALLERS];
        let callers = &mut words[HEAD_WORDS..];
        // SAFETY: `callers` has room for `MAX_CALLERS` entries, as the size
        // passed says; `stack_trace_save` may be called in any context.
        let found = unsafe {
            bindings::stack_trace_save(callers.as_mut_ptr().cast(), MAX_CALLERS as u32, 0)
        } as usize;
        let found = found.min(MAX_CALLERS);
        let own = callers[..found]
            .iter()
            .take_while(|&&caller| in_rftrace(caller))
            .count();
        callers.copy_within(own..found, 0);
        let len = found - own;
        words[..HEAD_WORDS].copy_from_slice(&head_words(header, len));
        // INVARIANT: `len <= found <= MAX_CALLERS`.
        KernelStack { words, len }
    }

    /// The record's bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        let words = &self.words[..HEAD_WORDS + self.len];
        // SAFETY: `u64` has no padding and any byte may be read; the bytes
        // live as long as `self`. x86_64 is little-endian, so these are the
        // record's bytes in its layout.
        unsafe { core::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 8) }
    }
}

/// Whether `address` is in rftrace's own code (the trampoline, the
/// dispatcher, the tracer).
fn in_rftrace(address: u64) -> bool {
    let module = crate::THIS_MODULE.as_ptr().cast::<bindings::module>();
    // SAFETY: the module is loaded while its code runs.
    unsafe { bindings::rft_within_module_core_text(address as usize as _, module) }
}
