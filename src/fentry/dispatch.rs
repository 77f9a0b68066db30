// SPDX-License-Identifier: GPL-2.0

//! The dispatchers: what the trampolines call on every hit of a patched
//! site. Lock-free: under RCU (preemption off) they find the handler set
//! of the site (generic trampoline) or of the engine slot whose direct
//! trampoline the site calls, and call each client of the set.
//!
//! Recursion protection works as ftrace's: a bit per context (normal,
//! softirq, hardirq, NMI) per CPU; a call that finds its context's bit set
//! is dropped, except once through a "transition" bit, because a traced
//! function can run at interrupt entry before the preemption count says
//! the CPU is in the interrupt.

use super::engine::{current_table, Engine};
use super::handlers::{CallContext, HandlerSet, SiteRef};
use super::ENGINE;
use crate::bindings;
use crate::cpu_local;
use crate::ring_buffer::NoPreempt;
use core::cell::Cell;
use core::sync::atomic::Ordering::{Acquire, Relaxed};

/// The bit of the transition between two contexts.
const TRANSITION_BIT: u32 = 1 << 4;

/// Called by the generic trampoline with the call site, the traced
/// function's return address and the registers at the site: calls every
/// client attached to the site.
///
/// # Safety
///
/// Called only by `rftrace_fentry_trampoline`, with `regs` pointing at the
/// `pt_regs` it built on its stack.
#[no_mangle]
pub(crate) unsafe extern "C" fn rftrace_fentry_dispatch(
    ip: usize,
    parent_ip: usize,
    regs: *mut bindings::pt_regs,
) {
    let Some(engine) = live_engine() else {
        return;
    };
    let Some(guard) = RecursionGuard::enter(engine) else {
        return;
    };
    // SAFETY: tables are freed an RCU grace period after being replaced,
    // and preemption is off here.
    let table = unsafe { &*current_table(engine) };
    let Some((segment, site)) = table.find_with_segment(ip) else {
        return;
    };
    let set = site.handlers.load(Acquire);
    // SAFETY: a handler set lives an RCU grace period after the last site
    // stopped pointing at it; preemption is off.
    let Some(set) = (unsafe { set.as_ref() }) else {
        return;
    };
    // SAFETY: `regs` is the trampoline's frame, alive for this call.
    let regs = unsafe { &mut *regs };
    let at = SiteRef::found(table, segment, site);
    call_clients(set, (ip, parent_ip), regs, &at, &guard);
}

/// Called by the direct trampoline of engine slot `slot`, which only sites
/// that the client of that slot alone wants call: calls that client. The
/// arguments are otherwise those of [`rftrace_fentry_dispatch`].
///
/// # Safety
///
/// Called only by a `rftrace_fentry_direct_N` trampoline, with `regs`
/// pointing at the `pt_regs` it built on its stack and `slot` its N.
#[no_mangle]
pub(crate) unsafe extern "C" fn rftrace_fentry_dispatch_direct(
    ip: usize,
    parent_ip: usize,
    regs: *mut bindings::pt_regs,
    slot: usize,
) {
    let Some(engine) = live_engine() else {
        return;
    };
    // (A slot whose client is not armed never gets here: its trampoline
    // returned at once.)
    let Some(guard) = RecursionGuard::enter(engine) else {
        return;
    };
    // A site may still call the trampoline for a moment after its client
    // left (the set is then gone) or was joined by another (the set still
    // names only this one): such calls go to the client alone, or nowhere.
    let set = engine.solo_set(slot);
    // SAFETY: as in `rftrace_fentry_dispatch`: sets live a grace period
    // after they are unpublished; preemption is off.
    let Some(set) = (unsafe { set.as_ref() }) else {
        return;
    };
    // SAFETY: as in `rftrace_fentry_dispatch`.
    let table = unsafe { &*current_table(engine) };
    // SAFETY: `regs` is the trampoline's frame, alive for this call.
    let regs = unsafe { &mut *regs };
    let at = SiteRef::lazy(table, ip);
    call_clients(set, (ip, parent_ip), regs, &at, &guard);
}

/// The engine, while it is loaded.
#[inline]
fn live_engine() -> Option<&'static Engine> {
    let engine = ENGINE.load(Acquire);
    // SAFETY: the engine is published before any site is patched and freed
    // only after every site is unpatched and no task can be running here
    // (an RCU-tasks grace period at unload).
    unsafe { engine.as_ref() }
}

/// Calls the clients of `set` for the call of `ip` from `parent_ip`
/// through `site`, in the context `guard` holds.
#[inline]
fn call_clients(
    set: &HandlerSet,
    (ip, parent_ip): (usize, usize),
    regs: &mut bindings::pt_regs,
    site: &SiteRef<'_>,
    guard: &RecursionGuard<'_>,
) {
    let cx = CallContext {
        cpu: guard.cpu,
        preempt_count: guard.preempt_count,
        irqs_off: cpu_local::irqs_off_in(regs.flags),
        preempt_off: &guard.preempt_off,
        hooked_level: Cell::new(None),
    };
    for client in set.clients.iter() {
        client.call(ip, parent_ip, regs, site, &cx);
    }
}

/// Runs `f` in the dispatcher's context (recursion guard taken,
/// preemption off) for code that trampolines reach other than through a
/// site: the function_graph tracer's return path. `None`, without running
/// `f`, when the engine is gone or this context already dispatches.
#[inline]
pub(crate) fn guarded<R>(f: impl FnOnce(&CallContext<'_>) -> R) -> Option<R> {
    let guard = RecursionGuard::enter(live_engine()?)?;
    let cx = CallContext {
        cpu: guard.cpu,
        preempt_count: guard.preempt_count,
        irqs_off: cpu_local::irqs_disabled(),
        preempt_off: &guard.preempt_off,
        hooked_level: Cell::new(None),
    };
    Some(f(&cx))
}

/// One context's claim on a CPU's recursion bits, with preemption off.
struct RecursionGuard<'a> {
    engine: &'a Engine,
    cpu: usize,
    preempt_count: u32,
    bit: u32,
    /// Dropped after the bit is given back.
    preempt_off: NoPreempt,
}

impl<'a> RecursionGuard<'a> {
    /// Disables preemption and takes the current context's bit, or returns
    /// `None` (counting a miss) if this context is already dispatching.
    fn enter(engine: &'a Engine) -> Option<Self> {
        let preempt_off = NoPreempt::new();
        // Preemption is off: the CPU and the count are stable.
        let (cpu, count) = (cpu_local::processor_id(), cpu_local::preempt_count());
        let bits = engine.recursion.get(cpu)?;
        let mut bit = context_bit(count);
        let held = bits.load(Relaxed);
        if held & bit != 0 {
            // Possibly a new context the count does not show yet.
            bit = TRANSITION_BIT;
            if held & bit != 0 {
                engine.recursion_misses.fetch_add(1, Relaxed);
                return None;
            }
        }
        // Only this CPU changes its bits, and an interrupt that does so
        // restores them before returning: a plain store is enough.
        bits.store(held | bit, Relaxed);
        Some(RecursionGuard {
            engine,
            cpu,
            preempt_count: count,
            bit,
            preempt_off,
        })
    }
}

impl Drop for RecursionGuard<'_> {
    fn drop(&mut self) {
        if let Some(bits) = self.engine.recursion.get(self.cpu) {
            bits.store(bits.load(Relaxed) & !self.bit, Relaxed);
        }
        // `preempt_off` is dropped next: preemption comes back on.
    }
}

/// The recursion bit of the context `preempt_count` describes.
#[inline]
fn context_bit(count: u32) -> u32 {
    let level = if count & bindings::RFT_NMI_MASK != 0 {
        3
    } else if count & bindings::RFT_HARDIRQ_MASK != 0 {
        2
    } else if count & bindings::RFT_SOFTIRQ_OFFSET != 0 {
        1
    } else {
        0
    };
    1 << level
}
