// SPDX-License-Identifier: GPL-2.0

//! The kernel's own printf (`scnprintf`), for the texts only it can make:
//! `%p`, a pointer hashed with the boot's secret key.

use crate::bindings;
use kernel::prelude::*;

/// Appends to `out` what the kernel's `%p` prints for `addr`.
pub(crate) fn write_hashed_pointer(addr: usize, out: &mut KVec<u8>) -> Result {
    let mut text = [0u8; 32];
    // SAFETY: `text` has room for `text.len()` bytes; the format takes one
    // pointer argument, given.
    let len = unsafe {
        bindings::scnprintf(
            text.as_mut_ptr().cast(),
            text.len(),
            kernel::c_str!("%p").as_char_ptr(),
            addr as *const core::ffi::c_void,
        )
    };
    let len = usize::try_from(len).unwrap_or(0).min(text.len());
    out.extend_from_slice(&text[..len], GFP_KERNEL)?;
    Ok(())
}
