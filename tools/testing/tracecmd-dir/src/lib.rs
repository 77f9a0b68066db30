// SPDX-License-Identifier: GPL-2.0

//! Preloaded into trace-cmd by `rftrace-cmd`: points libtracefs at the
//! tracing directory `RFTRACE_TRACING_DIR` names (rftracefs).
//!
//! libtracefs (1.6 to 1.8) finds its tracing directory only as a mount of
//! type `tracefs` in /proc/mounts; `tracefs_set_tracing_dir()` is its one
//! override and trace-cmd has no option for it. A function in `.init_array`
//! calls it before trace-cmd's `main`, looked up in the program's global
//! scope (so building this needs no libtracefs headers or `-dev` package).
//!
//! The same function takes the preload back out of the environment (the
//! `LD_PRELOAD` the wrapper saved in `RFTRACE_SAVED_LD_PRELOAD`, or none),
//! so the command trace-cmd runs and traces does not load it.

#![no_std]

use core::ffi::{c_char, c_int, c_void, CStr};

#[link(name = "c")]
extern "C" {
    fn getenv(name: *const c_char) -> *mut c_char;
    fn setenv(name: *const c_char, value: *const c_char, overwrite: c_int) -> c_int;
    fn unsetenv(name: *const c_char) -> c_int;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn write(fd: c_int, buf: *const c_void, count: usize) -> isize;
    fn _exit(status: c_int) -> !;
}

/// glibc's `RTLD_DEFAULT`: look a symbol up in the global scope.
const RTLD_DEFAULT: *mut c_void = core::ptr::null_mut();

/// `int tracefs_set_tracing_dir(char *tracing_dir)`: copies the path.
type SetTracingDir = unsafe extern "C" fn(*mut c_char) -> c_int;

const TRACING_DIR_VAR: &CStr = c"RFTRACE_TRACING_DIR";
const SAVED_PRELOAD_VAR: &CStr = c"RFTRACE_SAVED_LD_PRELOAD";
const LD_PRELOAD: &CStr = c"LD_PRELOAD";

/// Run by the dynamic loader before `main`, once the program's libraries are
/// loaded and relocated.
#[used]
#[link_section = ".init_array"]
static AT_LOAD: extern "C" fn() = point_libtracefs_at_rftracefs;

extern "C" fn point_libtracefs_at_rftracefs() {
    // SAFETY: `getenv` takes a NUL-terminated name; the environment is not
    // changed by another thread before `main`.
    let dir = unsafe { getenv(TRACING_DIR_VAR.as_ptr()) };
    if !dir.is_null() {
        set_tracing_dir(dir);
    }
    take_preload_out_of_environment();
}

/// Hands `dir` (a NUL-terminated string) to libtracefs; exits if the program
/// has no libtracefs, rather than let it trace another directory.
fn set_tracing_dir(dir: *mut c_char) {
    // SAFETY: `dlsym` takes a NUL-terminated name; RTLD_DEFAULT is a valid
    // handle.
    let symbol = unsafe { dlsym(RTLD_DEFAULT, c"tracefs_set_tracing_dir".as_ptr()) };
    if symbol.is_null() {
        fatal(b"rftrace-cmd: this program has no tracefs_set_tracing_dir (libtracefs)\n");
    }
    // SAFETY: the symbol is libtracefs' function of that name, whose type is
    // `SetTracingDir`.
    let set: SetTracingDir = unsafe { core::mem::transmute::<*mut c_void, SetTracingDir>(symbol) };
    // SAFETY: `dir` is the NUL-terminated value `getenv` returned; the
    // function copies it.
    if unsafe { set(dir) } != 0 {
        fatal(b"rftrace-cmd: tracefs_set_tracing_dir failed\n");
    }
}

/// Puts back the `LD_PRELOAD` the wrapper saved (unsets it if there was
/// none), so that processes this one executes do not load the preload.
fn take_preload_out_of_environment() {
    // SAFETY: NUL-terminated names; `setenv` copies the saved value before
    // `unsetenv` drops its variable; single-threaded before `main`.
    unsafe {
        let saved = getenv(SAVED_PRELOAD_VAR.as_ptr());
        if !saved.is_null() && *saved != 0 {
            setenv(LD_PRELOAD.as_ptr(), saved, 1);
        } else {
            unsetenv(LD_PRELOAD.as_ptr());
        }
        unsetenv(SAVED_PRELOAD_VAR.as_ptr());
    }
}

fn fatal(message: &[u8]) -> ! {
    // SAFETY: `message` is valid for its length; `_exit` does not return.
    unsafe {
        write(2, message.as_ptr().cast(), message.len());
        _exit(127)
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    fatal(b"rftrace-cmd: preload panicked\n")
}
