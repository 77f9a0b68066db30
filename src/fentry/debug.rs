// SPDX-License-Identifier: GPL-2.0

//! Checks of the engine's patching, on only when the module is loaded with
//! `debug_patching=1` (the test runner's `RFTRACE_DEBUG_PATCHING=1`).
//!
//! - After every batch, each site the batch changed must hold exactly the
//!   bytes queued for it ([`verify`]).
//! - A `DIE_INT3` notifier ([`Int3Watch`]) reports every `int3` trap that
//!   neither the kernel's text patching nor kprobes claimed, just before
//!   the kernel oopses on it: which CPU, the byte now at the trapping
//!   address (is RAM already past the breakpoint?), whether the address is
//!   a site of rftrace's, and whether a text-patching batch is under way
//!   (rftrace's own count, the kernel's `text_mutex` and its batch
//!   vector). This tells a breakpoint left in memory from a CPU that ran a
//!   stale copy of text that memory no longer holds.

use super::engine::{call_insn, current_table, NOP5};
use super::sites::{Hold, Site};
use crate::bindings;
use crate::ksyms;
use core::ffi::{c_int, c_void};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use kernel::{c_str, prelude::*};

/// Whether the checks are on.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// The kernel's `text_poke_array` (arch/x86/kernel/alternative.c), if found.
static TEXT_POKE_ARRAY: AtomicUsize = AtomicUsize::new(0);

/// Where `text_poke_array.nr_entries` lies in 7.x: after a page of
/// 16-byte `struct smp_text_poke_loc` entries. Read only for the report.
const NR_ENTRIES_OFFSET: usize = 4096;

/// Whether the checks are on.
pub(crate) fn enabled() -> bool {
    ENABLED.load(Relaxed)
}

/// Checks that every site of a finished batch holds what was queued for
/// it: the call of the trampoline that serves its new mask where that is
/// not empty and rftrace holds the site, the NOP where it is about to be
/// given back. Logs each difference.
pub(crate) fn verify<'a>(changes: impl Iterator<Item = (&'a Site, u64)>) {
    let mut wrong = 0usize;
    for (site, mask) in changes {
        if site.hold() != Hold::Patched {
            continue;
        }
        let expected = if mask != 0 {
            match call_insn(site.ip, mask) {
                Some(call) => call,
                None => continue,
            }
        } else {
            NOP5
        };
        let mut now = [0u8; 5];
        if ksyms::read_text(site.ip, &mut now).is_ok() && now != expected {
            wrong += 1;
            pr_err!(
                "patching check failed: site {:#x} holds {:02x?} after the batch, queued {:02x?}\n",
                site.ip,
                now,
                expected
            );
        }
    }
    if wrong != 0 {
        pr_err!(
            "patching check failed: {} sites differ from what was queued\n",
            wrong
        );
    }
}

/// The registered `DIE_INT3` notifier; unregistered when dropped.
///
/// # Invariants
///
/// `block` is registered on the die chain for as long as the value exists,
/// and is not moved meanwhile (it is boxed).
pub(crate) struct Int3Watch {
    block: KBox<bindings::notifier_block>,
}

// SAFETY: the kernel only reads the block, under its chain's protection.
unsafe impl Send for Int3Watch {}
// SAFETY: as above.
unsafe impl Sync for Int3Watch {}

impl Int3Watch {
    /// Turns the checks on, when `on`, and registers the notifier.
    pub(crate) fn start(on: bool) -> Result<Option<Self>> {
        if !on {
            return Ok(None);
        }
        if let Some(address) = ksyms::address_of(c_str!("text_poke_array")) {
            TEXT_POKE_ARRAY.store(address, Relaxed);
        }
        let mut block = KBox::new(
            bindings::notifier_block {
                notifier_call: Some(int3_event),
                next: core::ptr::null_mut(),
                priority: 0,
            },
            GFP_KERNEL,
        )?;
        // SAFETY: the block is boxed and unregistered before it is freed.
        let ret = unsafe { bindings::register_die_notifier(&mut *block) };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        ENABLED.store(true, Relaxed);
        pr_info!("debug_patching on: batches verified, stray int3 traps reported\n");
        // INVARIANT: registered just above; boxed.
        Ok(Some(Int3Watch { block }))
    }
}

impl Drop for Int3Watch {
    fn drop(&mut self) {
        ENABLED.store(false, Relaxed);
        // SAFETY: registered (the type invariant); unregistering waits until
        // no CPU runs the callback.
        unsafe { bindings::unregister_die_notifier(&mut *self.block) };
    }
}

/// The `DIE_INT3` callback: reports the trap, never claims it.
///
/// # Safety
///
/// Called by the kernel's die chain with `data` a `struct die_args`, in
/// the context of the trap (NMI-like: it may not sleep or take locks).
unsafe extern "C" fn int3_event(
    _nb: *mut bindings::notifier_block,
    action: usize,
    data: *mut c_void,
) -> c_int {
    if action != bindings::RFT_DIE_INT3 || data.is_null() {
        return bindings::RFT_NOTIFY_DONE;
    }
    // SAFETY: for DIE_INT3, `data` is the trap's `struct die_args`, whose
    // `regs` are the trapped context's.
    let regs = unsafe { (*data.cast::<bindings::die_args>()).regs };
    if regs.is_null() {
        return bindings::RFT_NOTIFY_DONE;
    }
    // SAFETY: as above.
    let (ip, cs) = unsafe { ((*regs).ip, (*regs).__bindgen_anon_1.cs) };
    if cs & 3 != 0 {
        // A user-space breakpoint: not text rftrace patches.
        return bindings::RFT_NOTIFY_DONE;
    }
    report(ip.wrapping_sub(1));
    bindings::RFT_NOTIFY_DONE
}

/// Logs what is known of an unclaimed breakpoint at `at`.
fn report(at: usize) {
    let mut now = [0u8; 5];
    let readable = ksyms::read_text(at, &mut now).is_ok();
    let hold = super::engine().and_then(|engine| {
        let table = current_table(engine);
        // SAFETY: the table is freed only after a grace period that this
        // trap context (preemption off) holds up.
        let table = unsafe { table.as_ref()? };
        table.find_with_segment(at).map(|(_, site)| site.hold())
    });
    let kernel_entries = match TEXT_POKE_ARRAY.load(Relaxed) {
        0 => None,
        array => {
            let mut bytes = [0u8; 4];
            ksyms::read_text(array + NR_ENTRIES_OFFSET, &mut bytes)
                .ok()
                .map(|()| i32::from_ne_bytes(bytes))
        }
    };
    // SAFETY: reading the CPU number; preemption is off in a trap.
    let cpu = unsafe { bindings::rft_smp_processor_id() };
    pr_err!(
        "debug_patching: unclaimed int3 at {:#x} on CPU {}: memory holds {:02x?} (readable: {}), rftrace site: {:?}, rftrace batches in flight: {}, text_mutex held: {}, kernel batch entries: {:?}\n",
        at,
        cpu,
        now,
        readable,
        hold,
        ksyms::batches_in_flight(),
        ksyms::text_mutex_held(),
        kernel_entries
    );
}
