// SPDX-License-Identifier: GPL-2.0

//! CPU hotplug: being told when a CPU comes online (a dynamic
//! `CPUHP_AP_ONLINE_DYN` state with one instance).

use crate::bindings;
use core::ffi::c_int;
use kernel::{prelude::*, types::Opaque};

/// What a [`CpuOnline`] calls when a CPU comes online. Runs in the CPU
/// hotplug thread with the hotplug lock held: it may sleep, but must not
/// wait for anything that takes the hotplug lock (tracepoint and perf
/// registrations do): hand such work to a work item.
pub(crate) trait OnCpuOnline: Sync {
    /// `cpu` is online.
    fn online(&self, cpu: u32);
}

/// A registration calling `owner` each time a CPU comes online.
///
/// # Invariants
///
/// `node` is the first field; between `register` and `drop` it is an
/// instance of hotplug state `state`, and `owner` outlives it.
#[repr(C)]
#[pin_data(PinnedDrop)]
pub(crate) struct CpuOnline<T: OnCpuOnline> {
    #[pin]
    node: Opaque<bindings::hlist_node>,
    state: c_int,
    owner: *const T,
}

// SAFETY: the node is changed only by the hotplug core, under its lock;
// `owner` is `Sync`.
unsafe impl<T: OnCpuOnline> Send for CpuOnline<T> {}
// SAFETY: as above.
unsafe impl<T: OnCpuOnline> Sync for CpuOnline<T> {}

impl<T: OnCpuOnline> CpuOnline<T> {
    /// Registers a hotplug state named `name` calling `owner` when a CPU
    /// comes online (not for the CPUs online now).
    ///
    /// # Safety
    ///
    /// `owner` must outlive the returned value.
    pub(crate) unsafe fn register(name: &'static CStr, owner: *const T) -> Result<Pin<KBox<Self>>> {
        // SAFETY: `name` lives forever; the callback matches the multi-
        // instance startup type.
        let state = unsafe {
            bindings::rft_cpuhp_setup_online_multi(name.as_char_ptr(), Some(online::<T>))
        };
        if state < 0 {
            return Err(Error::from_errno(state));
        }
        let this = KBox::pin_init(
            pin_init!(Self {
                node <- Opaque::uninit(),
                state,
                owner,
            }),
            GFP_KERNEL,
        );
        let this = match this {
            Ok(this) => this,
            Err(e) => {
                // SAFETY: set up just above, with no instance.
                unsafe { bindings::rft_cpuhp_remove_multi_state(state) };
                return Err(e);
            }
        };
        // SAFETY: the node is pinned and stays an instance until `drop`.
        let ret = unsafe { bindings::rft_cpuhp_state_add_instance_nocalls(state, this.node.get()) };
        if ret != 0 {
            // SAFETY: set up just above; the node was not added.
            unsafe { bindings::rft_cpuhp_remove_multi_state(state) };
            // The node is not an instance: dropping `this` must not remove
            // it, so forget it (a few bytes, on this error path only).
            core::mem::forget(this);
            return Err(Error::from_errno(ret));
        }
        // INVARIANT: the node is an instance of `state` from here on.
        Ok(this)
    }
}

#[pinned_drop]
impl<T: OnCpuOnline> PinnedDrop for CpuOnline<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: the node is an instance of `state` (type invariant);
        // removing it and then the state waits for running callbacks.
        unsafe {
            bindings::rft_cpuhp_state_remove_instance_nocalls(self.state, self.node.get());
            bindings::rft_cpuhp_remove_multi_state(self.state);
        }
    }
}

/// The startup callback of every [`CpuOnline<T>`].
///
/// # Safety
///
/// Called by the hotplug core with the node of a registered
/// `CpuOnline<T>`.
unsafe extern "C" fn online<T: OnCpuOnline>(cpu: u32, node: *mut bindings::hlist_node) -> c_int {
    // SAFETY: `node` is the first field of a `CpuOnline<T>` (type
    // invariant, `repr(C)`), whose owner outlives the registration.
    let owner = unsafe { &*(*node.cast::<CpuOnline<T>>()).owner };
    owner.online(cpu);
    0
}
