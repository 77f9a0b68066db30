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
