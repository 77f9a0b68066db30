// SPDX-License-Identifier: GPL-2.0

//! Raw bindings to the kernel C APIs the `kernel` crate does not wrap.
//!
//! Generated at build time by bindgen from `rust/bindings_helper.h` with the
//! kernel's own C flags (see `Kbuild`), into `generated/` (not in git). Only
//! the small safe wrappers of the module use them.

#![allow(
    dead_code,
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    unsafe_op_in_unsafe_fn,
    improper_ctypes,
    unreachable_pub,
    clippy::all,
    clippy::as_underscore,
    clippy::cast_lossless,
    clippy::ptr_as_ptr,
    clippy::ref_as_ptr,
    clippy::undocumented_unsafe_blocks,
    missing_docs
)]

use kernel::ffi;

include!("../generated/bindings_generated.rs");
