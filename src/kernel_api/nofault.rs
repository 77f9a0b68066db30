// SPDX-License-Identifier: GPL-2.0

//! Reading memory that may not be mapped, without faulting
//! (`copy_from_kernel_nofault`, `copy_from_user_nofault`, and the string
//! reads built on them). Any context.

use crate::bindings;
use core::ffi::c_void;

/// Whose memory an address is in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Space {
    /// The kernel's.
    Kernel,
    /// The current task's.
    User,
}

/// Copies `dst.len()` bytes at `address` of `space` into `dst`; false if
/// some could not be read (`dst` is then partly written).
pub(crate) fn copy(address: usize, space: Space, dst: &mut [u8]) -> bool {
    let src = address as *const c_void;
    // SAFETY: both copies check the source themselves and write at most
    // `dst.len()` bytes into `dst`.
    let failed = unsafe {
        match space {
            Space::Kernel => {
                bindings::copy_from_kernel_nofault(dst.as_mut_ptr().cast(), src, dst.len())
            }
            Space::User => {
                bindings::copy_from_user_nofault(dst.as_mut_ptr().cast(), src.cast(), dst.len())
            }
        }
    };
    failed == 0
}

/// Copies the NUL-terminated string at `address` of `space` into `dst`, as
/// `strncpy_from_kernel_nofault` and `strncpy_from_user_nofault` do (the
/// kernel's kprobe `string` and `ustring` fetches): the length stored
/// including the NUL, a string as long as `dst` or longer cut to
/// `dst.len() - 1` bytes and a NUL. `None` if some byte before the NUL
/// could not be read. For an empty `dst`, and for an empty user string
/// (the kernel's `strncpy_from_user_nofault` counts its NUL only after a
/// byte), `Some(0)`.
pub(crate) fn read_string(address: usize, space: Space, dst: &mut [u8]) -> Option<usize> {
    if dst.is_empty() {
        return Some(0);
    }
    match space {
        Space::Kernel => read_kernel_string(address, dst),
        Space::User => read_user_string(address, dst),
    }
}

/// `strncpy_from_kernel_nofault`: byte by byte up to the NUL.
fn read_kernel_string(address: usize, dst: &mut [u8]) -> Option<usize> {
    let count = dst.len();
    for i in 0..count {
        if !copy(address.wrapping_add(i), Space::Kernel, &mut dst[i..=i]) {
            dst[0] = 0;
            return None;
        }
        if dst[i] == 0 {
            return Some(i + 1);
        }
    }
    dst[count - 1] = 0;
    Some(count)
}

/// `strncpy_from_user_nofault`: `strncpy_from_user` with page faults off.
fn read_user_string(address: usize, dst: &mut [u8]) -> Option<usize> {
    let count = isize::try_from(dst.len()).ok()?;
    // SAFETY: with page faults disabled `strncpy_from_user` fails instead
    // of paging in; it checks the source itself and writes at most `count`
    // bytes into `dst`. Faults are enabled again right after.
    let copied = unsafe {
        bindings::rft_pagefault_disable();
        let copied =
            bindings::strncpy_from_user(dst.as_mut_ptr().cast(), address as *const _, count);
        bindings::rft_pagefault_enable();
        copied
    };
    let copied = usize::try_from(copied).ok()?;
    if copied >= dst.len() {
        let last = dst.len() - 1;
        dst[last] = 0;
        Some(dst.len())
    } else if copied > 0 {
        Some(copied + 1)
    } else {
        Some(0)
    }
}

/// The size, NUL included, of the string at `address` of `space`, as the
/// kernel's kprobe `fetch_store_strlen` measures it, at most `max`:
/// kernel strings byte by byte (`max` if no NUL comes before), user ones
/// with `strnlen_user_nofault(address, max)` (more than `max` if longer).
/// `None` if it could not be read.
pub(crate) fn string_size(address: usize, space: Space, max: usize) -> Option<usize> {
    match space {
        Space::Kernel => kernel_string_size(address, max),
        Space::User => user_string_size(address, max),
    }
}

fn kernel_string_size(address: usize, max: usize) -> Option<usize> {
    let mut byte = [0u8; 1];
    let mut len = 0;
    loop {
        if !copy(address.wrapping_add(len), Space::Kernel, &mut byte) {
            return None;
        }
        len += 1;
        if byte[0] == 0 || len >= max {
            return Some(len);
        }
    }
}

fn user_string_size(address: usize, max: usize) -> Option<usize> {
    let count = isize::try_from(max).ok()?;
    // SAFETY: with page faults disabled `strnlen_user` fails instead of
    // paging in; it checks the address itself. Faults are enabled again
    // right after.
    let size = unsafe {
        bindings::rft_pagefault_disable();
        let size = bindings::strnlen_user(address as *const _, count);
        bindings::rft_pagefault_enable();
        size
    };
    usize::try_from(size).ok().filter(|&size| size > 0)
}
