// SPDX-License-Identifier: GPL-2.0

//! Tracepoints: finding one by name, a probe on a tracepoint whose only
//! argument is an `int`, a tracepoint's stub as its probe, and waiting
//! for probes to finish.

use crate::bindings;
use core::ffi::c_void;
use core::ptr::NonNull;
use kernel::{prelude::*, str::CStr};

/// Waits until no probe of any tracepoint (and no perf handler called from
/// one) that was removed before this call is still running. May sleep.
pub(crate) fn synchronize_unregister() {
    // SAFETY: may be called from any sleepable context.
    unsafe { bindings::rft_tracepoint_synchronize_unregister() };
}

/// The built-in kernel tracepoint called `name`.
pub(crate) fn find(name: &CStr) -> Option<*mut bindings::tracepoint> {
    struct Search<'a> {
        name: &'a CStr,
        found: *mut bindings::tracepoint,
    }
    /// # Safety
    ///
    /// `tp` is a live tracepoint, `private` the `Search` of this call.
    unsafe extern "C" fn visit(tp: *mut bindings::tracepoint, private: *mut c_void) {
        // SAFETY: `private` is the `Search` below; `tp` is a live
        // tracepoint with a NUL-terminated name.
        let (search, tp_name) = unsafe {
            (
                &mut *private.cast::<Search<'_>>(),
                CStr::from_char_ptr((*tp).name),
            )
        };
        if tp_name == search.name {
            search.found = tp;
        }
    }
    let mut search = Search {
        name,
        found: core::ptr::null_mut(),
    };
    // SAFETY: `visit` only touches `search`, alive for the call.
    unsafe {
        bindings::for_each_kernel_tracepoint(Some(visit), core::ptr::from_mut(&mut search).cast())
    };
    (!search.found.is_null()).then_some(search.found)
}

/// What a probe on a tracepoint with one `int` argument does with it.
/// Called in the context of the hit, with preemption off; may not sleep.
pub(crate) trait OnInt: Sync {
    /// The tracepoint was hit with `value`.
    fn on_int(&self, value: i32);
}

/// A probe on a tracepoint whose prototype is `(int)`, registered with a
/// `T` as its data.
///
/// # Invariants
///
/// The probe is registered on `tracepoint` with `data` until `drop`, and
/// `data` points at a `T` that outlives the registration.
pub(crate) struct IntProbe<T: OnInt> {
    tracepoint: *mut bindings::tracepoint,
    data: *const T,
}

// SAFETY: the tracepoint is a kernel object; `data` is `Sync`.
unsafe impl<T: OnInt> Send for IntProbe<T> {}
// SAFETY: as above.
unsafe impl<T: OnInt> Sync for IntProbe<T> {}

impl<T: OnInt> IntProbe<T> {
    /// Starts calling `data` at each hit of built-in tracepoint `name`.
    ///
    /// # Safety
    ///
    /// The tracepoint's prototype must be `(int)`, and `data` must outlive
    /// the returned value.
    pub(crate) unsafe fn start(name: &CStr, data: *const T) -> Result<Self> {
        let tracepoint = find(name).ok_or(ENOENT)?;
        // SAFETY: the probe's signature is the tracepoint's (the caller's
        // promise), with the data pointer first; `data` outlives the
        // registration.
        let ret = unsafe {
            bindings::tracepoint_probe_register(
                tracepoint,
                int_probe::<T> as *mut c_void,
                data.cast_mut().cast(),
            )
        };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        // INVARIANT: registered just now, with `data`.
        Ok(IntProbe { tracepoint, data })
    }
}

impl<T: OnInt> Drop for IntProbe<T> {
    /// Unregisters the probe. It may still be running on another CPU until
    /// [`synchronize_unregister`], which the owner calls before `data` goes.
    fn drop(&mut self) {
        // SAFETY: registered in `start` with these arguments (invariant).
        unsafe {
            bindings::tracepoint_probe_unregister(
                self.tracepoint,
                int_probe::<T> as *mut c_void,
                self.data.cast_mut().cast(),
            )
        };
    }
}

/// The probe of an [`IntProbe`].
///
/// # Safety
///
/// Called by the tracepoint with the `T` given at registration.
unsafe extern "C" fn int_probe<T: OnInt>(data: *mut c_void, value: i32) {
    // SAFETY: registered with a live `T` (the `IntProbe` invariant).
    let user = unsafe { &*data.cast::<T>() };
    user.on_int(value);
}

/// A tracepoint of the kernel or of a loaded module.
///
/// # Invariants
///
/// Points at a `struct tracepoint`; one of a module stays valid until the
/// module's GOING notification, which its users follow.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tracepoint(NonNull<bindings::tracepoint>);

// SAFETY: a tracepoint is a kernel object used from any CPU.
unsafe impl Send for Tracepoint {}
// SAFETY: as above.
unsafe impl Sync for Tracepoint {}

/// The longest tracepoint name looked up.
const NAME_MAX: usize = 256;

impl Tracepoint {
    /// The tracepoint called `name`, built-in or of a loaded module (a
    /// module's is found as its `__tracepoint_NAME` symbol, and checked by
    /// name). May sleep.
    pub(crate) fn find_any(name: &CStr) -> Option<Self> {
        if let Some(tp) = find(name).and_then(NonNull::new) {
            // INVARIANT: a built-in tracepoint.
            return Some(Tracepoint(tp));
        }
        const PREFIX: &[u8] = b"__tracepoint_";
        let name_bytes = name.to_bytes();
        let mut symbol = [0u8; PREFIX.len() + NAME_MAX + 1];
        let end = PREFIX.len() + name_bytes.len();
        symbol.get_mut(..PREFIX.len())?.copy_from_slice(PREFIX);
        symbol
            .get_mut(PREFIX.len()..end)?
            .copy_from_slice(name_bytes);
        let symbol = CStr::from_bytes_with_nul(symbol.get(..=end)?).ok()?;
        let tp = NonNull::new(super::kallsyms::lookup_name(symbol)? as *mut bindings::tracepoint)?;
        // SAFETY: a `__tracepoint_*` symbol is a `struct tracepoint`, whose
        // name is a C string.
        let found = unsafe { CStr::from_char_ptr((*tp.as_ptr()).name) };
        // INVARIANT: a module's tracepoint, checked by its name.
        (found == name).then_some(Tracepoint(tp))
    }

    /// Its address (which module holds it tells from it).
    pub(crate) fn address(self) -> usize {
        self.0.as_ptr() as usize
    }

    /// Its stub, `__probestub_NAME`: a function of the tracepoint's
    /// prototype that does nothing, for probes at its entry.
    pub(crate) fn stub(self) -> usize {
        // SAFETY: the type invariant.
        unsafe { (*self.0.as_ptr()).probestub as usize }
    }
}

/// A tracepoint's stub registered as one of its probes (with no data), so
/// that each hit of the tracepoint calls the stub with its arguments, as
/// the kernel's tracepoint probe events do.
///
/// # Invariants
///
/// The stub is registered on `tracepoint` until `drop`.
pub(crate) struct StubProbe {
    tracepoint: Tracepoint,
}

impl StubProbe {
    /// Registers the stub of `tracepoint` on it. `EEXIST` if it is
    /// registered already (by another user of the stub).
    pub(crate) fn register(tracepoint: Tracepoint) -> Result<Self> {
        // SAFETY: the stub has the tracepoint's prototype, and takes the
        // (null) data first; the tracepoint is live (its invariant).
        let ret = unsafe {
            bindings::tracepoint_probe_register_prio_may_exist(
                tracepoint.0.as_ptr(),
                (*tracepoint.0.as_ptr()).probestub,
                core::ptr::null_mut(),
                0,
            )
        };
        kernel::error::to_result(ret)?;
        // INVARIANT: registered just now.
        Ok(StubProbe { tracepoint })
    }
}

impl Drop for StubProbe {
    /// Unregisters the stub; a hit under way may still be calling it until
    /// [`synchronize_unregister`] (the stub itself is kernel text).
    fn drop(&mut self) {
        let tp = self.tracepoint.0.as_ptr();
        // SAFETY: registered in `register` with these arguments (the
        // invariant); the tracepoint is still live.
        unsafe {
            bindings::tracepoint_probe_unregister(tp, (*tp).probestub, core::ptr::null_mut())
        };
    }
}
