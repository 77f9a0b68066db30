// SPDX-License-Identifier: GPL-2.0

//! The kernel's kprobes and kretprobes (`register_kprobe`,
//! `register_kretprobe`, `enable_kprobe`, `disable_kprobe`), and the
//! kprobes lockdown check, for probes rftrace's own patch engine cannot
//! carry: probes inside a function, and probes on functions without an
//! `__fentry__` site.

use crate::bindings;
use crate::kernel_api::regs::Regs;
use kernel::{prelude::*, sync::Arc, types::Opaque};

/// What a [`KernelKprobe`] calls when it fires. Called with preemption
/// off (in the breakpoint's exception, or in the kernel's ftrace or
/// rethook handlers); never sleeps.
pub(crate) trait KprobeHandler: Send + Sync {
    /// A kprobe at `addr` fired; `regs` as the kernel gives them (`ip` one
    /// past `addr`).
    fn on_entry(&self, addr: usize, regs: &Regs);

    /// A kretprobe at `addr` (registered with `data_size` bytes of data
    /// per call) sees its function entered, with `regs` at the entry:
    /// whatever it keeps for the return goes into `data`.
    fn on_return_entry(&self, addr: usize, regs: &Regs, data: &mut [u8]);

    /// The function a kretprobe at `addr` probes returns to `ret_ip`;
    /// `regs` at the return, `data` what [`Self::on_return_entry`] kept.
    fn on_return(&self, addr: usize, ret_ip: usize, regs: &Regs, data: &[u8]);
}

/// `EILSEQ`: the kprobes core's "not an instruction boundary".
pub(crate) fn eilseq() -> Error {
    Error::from_errno(-(kernel::bindings::EILSEQ as i32))
}

/// Whether the kernel's lockdown forbids kprobes (`LOCKDOWN_KPROBES`), as
/// `trace_kprobe` asks before registering one: its errno if so.
pub(crate) fn locked_down() -> Result {
    // SAFETY: a plain query of the security modules.
    kernel::error::to_result(unsafe { bindings::rft_kprobes_locked_down() })
}

/// Whether the kprobes core refuses probes at `addr` (its blacklist:
/// `NOKPROBE_SYMBOL` functions, the kprobe and entry code sections), as
/// `register_kprobe` checks with `within_kprobe_blacklist`. May sleep.
pub(crate) fn blacklisted(addr: usize) -> bool {
    type WithinFn = unsafe extern "C" fn(usize) -> bool;
    let Some(function) = crate::ksyms::address_of(kernel::c_str!("within_kprobe_blacklist")) else {
        // Cannot tell: refuse, as a kprobe there could not be trusted.
        return true;
    };
    // SAFETY: the kernel's `within_kprobe_blacklist`, of this type.
    unsafe {
        let function: WithinFn = core::mem::transmute(function);
        function(addr)
    }
}

/// A registered kprobe (or kretprobe), disabled until [`Self::enable`].
///
/// # Invariants
///
/// `raw` is registered with the kernel (as a kretprobe if `is_return`,
/// else its `kp` as a kprobe) from its initialisation until drop, and is
/// the first field: the callbacks find `handler` from the `kprobe` the
/// kernel passes (the first field of `kretprobe`).
#[repr(C)]
#[pin_data(PinnedDrop)]
pub(crate) struct KernelKprobe {
    #[pin]
    raw: Opaque<bindings::kretprobe>,
    is_return: bool,
    /// A kretprobe's bytes of data per call.
    data_size: usize,
    handler: Arc<dyn KprobeHandler>,
}

// SAFETY: the kprobe is changed by the kernel under its own locks; the
// handler is `Send + Sync`.
unsafe impl Send for KernelKprobe {}
// SAFETY: as above.
unsafe impl Sync for KernelKprobe {}

impl KernelKprobe {
    /// Registers a kprobe at `addr` (a kretprobe of the function starting
    /// there if `is_return`, with room for `maxactive` pending returns, 0
    /// for the kernel's default, each keeping `data_size` bytes from its
    /// entry), disabled. The kernel's errors: `EILSEQ`
    /// off an instruction boundary, `EINVAL` on the blacklist or
    /// `ENOENT` for no text there, ...
    pub(crate) fn register(
        addr: usize,
        (is_return, maxactive): (bool, u32),
        data_size: usize,
        handler: Arc<dyn KprobeHandler>,
    ) -> impl PinInit<Self, Error> {
        let returns = is_return;
        let entry_bytes = data_size;
        try_pin_init!(Self {
            is_return,
            data_size,
            handler,
            raw <- Opaque::try_ffi_init(move |slot: *mut bindings::kretprobe| {
                // SAFETY: `slot` is valid for writes and pinned; an all-zero
                // `kretprobe` is an unregistered one.
                unsafe {
                    slot.write(core::mem::zeroed());
                    let rp = &mut *slot;
                    rp.kp.addr = addr as *mut _;
                    rp.kp.flags = bindings::KPROBE_FLAG_DISABLED;
                    if returns {
                        rp.handler = Some(on_return);
                        if entry_bytes > 0 {
                            rp.entry_handler = Some(on_return_entry);
                            rp.data_size = entry_bytes;
                        }
                        rp.maxactive = i32::try_from(maxactive).unwrap_or(i32::MAX);
                    } else {
                        rp.kp.pre_handler = Some(on_entry);
                    }
                }
                // SAFETY: the probe is pinned and stays registered until
                // drop; the other fields are set before it (field order of
                // the initialiser), so the callbacks find them.
                let ret = unsafe {
                    if returns {
                        bindings::register_kretprobe(slot)
                    } else {
                        bindings::register_kprobe(&raw mut (*slot).kp)
                    }
                };
                kernel::error::to_result(ret)
            }),
        })
    }

    /// The kprobe.
    fn kp(&self) -> *mut bindings::kprobe {
        // SAFETY: `raw` is a `kretprobe`, whose first field is the kprobe.
        unsafe { &raw mut (*self.raw.get()).kp }
    }

    /// Arms the probe.
    pub(crate) fn enable(&self) -> Result {
        // SAFETY: the kprobe is registered (type invariant).
        kernel::error::to_result(unsafe { bindings::enable_kprobe(self.kp()) })
    }

    /// Disarms the probe; it may still run on other CPUs until an RCU
    /// grace period passes.
    pub(crate) fn disable(&self) {
        // SAFETY: the kprobe is registered (type invariant).
        unsafe { bindings::disable_kprobe(self.kp()) };
    }

    /// Where the kernel placed the probe.
    pub(crate) fn address(&self) -> usize {
        // SAFETY: `addr` is set by registration and not changed after.
        unsafe { core::ptr::read_volatile(&raw const (*self.kp()).addr) as usize }
    }

    /// Hits missed: the kprobe's `nmissed`, and for a kretprobe the returns
    /// it had no room for.
    pub(crate) fn misses(&self) -> u64 {
        // SAFETY: counters the kernel updates; a torn read is harmless.
        unsafe {
            let kp = core::ptr::read_volatile(&raw const (*self.kp()).nmissed) as u64;
            let rp = if self.is_return {
                core::ptr::read_volatile(&raw const (*self.raw.get()).nmissed) as u64
            } else {
                0
            };
            kp + rp
        }
    }
}

#[pinned_drop]
impl PinnedDrop for KernelKprobe {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: registered (type invariant); unregistering waits until
        // no CPU runs the handlers (and, for a kretprobe, until no pending
        // return can call them).
        unsafe {
            if self.is_return {
                bindings::unregister_kretprobe(self.raw.get());
            } else {
                bindings::unregister_kprobe(self.kp());
            }
        }
    }
}

/// The `KernelKprobe` whose kprobe is `kp`.
///
/// # Safety
///
/// `kp` is the kprobe of a registered `KernelKprobe`.
unsafe fn owner<'a>(kp: *mut bindings::kprobe) -> &'a KernelKprobe {
    // SAFETY: the kprobe is the first field of the kretprobe, itself the
    // first field of the `repr(C)` `KernelKprobe` (type invariant).
    unsafe { &*kp.cast::<KernelKprobe>() }
}

/// The kprobe's pre-handler.
///
/// # Safety
///
/// Called by the kernel with a kprobe registered by
/// [`KernelKprobe::register`] and the registers of the hit.
unsafe extern "C" fn on_entry(kp: *mut bindings::kprobe, regs: *mut bindings::pt_regs) -> i32 {
    // SAFETY: the contract.
    let (probe, regs) = unsafe { (owner(kp), &*regs) };
    probe
        .handler
        .on_entry(probe.address(), Regs::from_raw(regs));
    0
}

/// The `KernelKprobe` of `ri` and the instance's data (`data_size`
/// bytes), or `None` if the kretprobe is going away.
///
/// # Safety
///
/// `ri` is a live instance of a kretprobe registered by
/// [`KernelKprobe::register`], owned by the calling handler.
unsafe fn instance<'a>(
    ri: *mut bindings::kretprobe_instance,
) -> Option<(&'a KernelKprobe, &'a mut [u8])> {
    // SAFETY: the contract: `ri` is a live instance of our kretprobe.
    let rp = unsafe { bindings::rft_kretprobe_of(ri) };
    if rp.is_null() {
        return None;
    }
    // SAFETY: `rp` is our registered kretprobe.
    let probe = unsafe { owner(&raw mut (*rp).kp) };
    let data: &mut [u8] = if probe.data_size == 0 {
        &mut []
    } else {
        // SAFETY: the kernel allocated `data_size` bytes of data after
        // the instance (`rp->data_size`), the handler's own until it
        // returns.
        unsafe {
            core::slice::from_raw_parts_mut((*ri).data.as_mut_ptr().cast::<u8>(), probe.data_size)
        }
    };
    Some((probe, data))
}

/// The kretprobe's entry handler.
///
/// # Safety
///
/// Called by the kernel with an instance of a kretprobe registered by
/// [`KernelKprobe::register`] and the registers at the entry.
unsafe extern "C" fn on_return_entry(
    ri: *mut bindings::kretprobe_instance,
    regs: *mut bindings::pt_regs,
) -> i32 {
    // SAFETY: the contract.
    if let Some((probe, data)) = unsafe { instance(ri) } {
        // SAFETY: the entry's registers.
        let regs = Regs::from_raw(unsafe { &*regs });
        probe.handler.on_return_entry(probe.address(), regs, data);
    }
    0
}

/// The kretprobe's return handler.
///
/// # Safety
///
/// Called by the kernel's rethook with an instance of a kretprobe
/// registered by [`KernelKprobe::register`] and the registers at the
/// return.
unsafe extern "C" fn on_return(
    ri: *mut bindings::kretprobe_instance,
    regs: *mut bindings::pt_regs,
) -> i32 {
    // SAFETY: the contract.
    if let Some((probe, data)) = unsafe { instance(ri) } {
        // SAFETY: `ri` is live: its return address is set.
        let ret_ip = unsafe { bindings::rft_kretprobe_ret_addr(ri) };
        // SAFETY: the return's registers.
        let regs = Regs::from_raw(unsafe { &*regs });
        probe.handler.on_return(probe.address(), ret_ip, regs, data);
    }
    0
}
