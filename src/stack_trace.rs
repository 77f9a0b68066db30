// SPDX-License-Identifier: GPL-2.0

//! Kernel stack traces for `func_stack_trace`: the stack at a traced
//! function's call site, as the kernel's unwinder walks it, so that none of
//! rftrace's own frames are in it.

use crate::bindings;
use crate::ksyms;
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
    words: [usize; HEAD_WORDS + MAX_CALLERS],
    len: usize,
}

impl KernelStack {
    /// The stack at `regs`, the registers of a traced function at its
    /// call site: the function itself, then its callers, as a record with
    /// `header`.
    pub(crate) fn capture(header: EntryHeader, regs: &bindings::pt_regs) -> Self {
        let mut words = [0usize; HEAD_WORDS + MAX_CALLERS];
        let len = ksyms::stack_trace_from(regs, &mut words[HEAD_WORDS..]);
        for (word, head) in words.iter_mut().zip(head_words(header, len)) {
            // x86_64: `usize` is `u64`.
            *word = head as usize;
        }
        // INVARIANT: `stack_trace_from` saves at most what `words` holds
        // after the head.
        KernelStack { words, len }
    }

    /// The record's bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        let words = &self.words[..HEAD_WORDS + self.len];
        // SAFETY: `usize` has no padding and any byte may be read; the
        // bytes live as long as `self`. x86_64 is little-endian, so these
        // are the record's bytes in its layout.
        unsafe {
            core::slice::from_raw_parts(words.as_ptr().cast::<u8>(), core::mem::size_of_val(words))
        }
    }
}
