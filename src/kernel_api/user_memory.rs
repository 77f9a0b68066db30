// SPDX-License-Identifier: GPL-2.0

//! Reading the current task's memory from its own context, where a page
//! fault may page memory in and so the read may sleep (`copy_from_user`,
//! `strncpy_from_user`, `strnlen_user`), as the kernel's uprobe events
//! fetch their arguments (trace_uprobe.c `probe_mem_read`,
//! `fetch_store_string`, `fetch_store_strlen`). Only in task context with
//! preemption enabled (uprobe handlers); elsewhere use `nofault`.

use crate::bindings;
use kernel::uaccess::{UserPtr, UserSlice};

/// Copies `dst.len()` bytes at `address` of the current task into `dst`;
/// false if some could not be read (`copy_from_user`).
pub(crate) fn read(address: usize, dst: &mut [u8]) -> bool {
    UserSlice::new(UserPtr::from_addr(address), dst.len())
        .reader()
        .read_slice(dst)
        .is_ok()
}

/// Copies the NUL-terminated string at `address` into `dst`
/// (`strncpy_from_user`), as the kernel's uprobe `fetch_store_string`
/// stores it: the length stored including the NUL, a string as long as `dst`
/// or longer cut to `dst.len() - 1` bytes and a NUL. `None` if it could not
/// be read; `Some(0)` only for an empty `dst`.
pub(crate) fn read_string(address: usize, dst: &mut [u8]) -> Option<usize> {
    if dst.is_empty() {
        return Some(0);
    }
    let count = isize::try_from(dst.len()).ok()?;
    // SAFETY: `strncpy_from_user` checks the source itself and writes at
    // most `count` bytes into `dst`.
    let copied =
        unsafe { bindings::strncpy_from_user(dst.as_mut_ptr().cast(), address as *const _, count) };
    let copied = usize::try_from(copied).ok()?;
    if copied >= dst.len() {
        let last = dst.len() - 1;
        dst[last] = 0;
        Some(dst.len())
    } else {
        Some(copied + 1)
    }
}

/// The size, NUL included, of the string at `address`, as the kernel's
/// uprobe `fetch_store_strlen` measures it (`strnlen_user(address, max)`):
/// 0 if it could not be read or is longer than `max` bytes.
pub(crate) fn string_size(address: usize, max: usize) -> usize {
    let Ok(max_count) = isize::try_from(max) else {
        return 0;
    };
    // SAFETY: `strnlen_user` checks the address itself.
    let size = unsafe { bindings::strnlen_user(address as *const _, max_count) };
    match usize::try_from(size) {
        Ok(size) if size <= max => size,
        _ => 0,
    }
}
