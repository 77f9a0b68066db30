// SPDX-License-Identifier: GPL-2.0

//! rftrace's `__fentry__` patch engine.
//!
//! Every function the kernel can trace starts with a 5-byte NOP where the
//! compiler put `call __fentry__`. The engine lists those call sites
//! ([`sites`]), patches the ones its clients want into calls of its own
//! trampoline (`arch/x86/fentry_64.S`) with the kernel's breakpoint-based
//! batch patching, and the trampoline's dispatcher ([`dispatch`]) calls the
//! clients attached to the site ([`handlers`]). A site rftrace patches is
//! taken from the kernel's ftrace for as long as it is patched, so that the
//! two never rewrite each other's sites ([`crate::ksyms`]).
//!
//! There is one engine; every instance's tracers are clients of it.

mod debug;
mod dispatch;
mod engine;
mod handlers;
mod modules;
mod scan;
mod sites;

pub(crate) use dispatch::guarded;
pub(crate) use engine::{wait_for_dispatchers, Engine, UpdateError, UpdateReport};
pub(crate) use handlers::{CallContext, FentryClient, SiteRef, SiteSelector};
pub(crate) use sites::{Segment, Site, SiteInfo, SiteTable};

use crate::bindings;
use crate::ksyms;
use core::sync::atomic::{
    AtomicPtr,
    Ordering::{Acquire, Release},
};
use kernel::prelude::*;

/// The engine, between [`start`] and [`stop`]; null otherwise.
static ENGINE: AtomicPtr<Engine> = AtomicPtr::new(core::ptr::null_mut());

/// The engine, if started.
pub(crate) fn engine() -> Option<&'static Engine> {
    let engine = ENGINE.load(Acquire);
    // SAFETY: the engine lives from `start` to `stop`, and `stop` runs at
    // module unload, after every user of the engine is gone.
    (!engine.is_null()).then(|| unsafe { &*engine })
}

/// Starts the engine: resolves the kernel symbols it needs, lists the
/// sites and starts following modules. `debug_patching` turns on the
/// checks of [`debug`].
pub(crate) fn start(this_module: &'static ThisModule, debug_patching: bool) -> Result {
    ksyms::resolve()?;
    let table = scan::scan_all(this_module)?;
    let nr_cpus = crate::instance::nr_cpu_ids();
    let watch = debug::Int3Watch::start(debug_patching)?;
    let engine = KBox::pin_init(Engine::new(table, nr_cpus, watch)?, GFP_KERNEL)?;
    // SAFETY: the engine is never moved out of its box: `stop` turns the
    // pointer back into the pinned box.
    let raw = KBox::into_raw(unsafe { Pin::into_inner_unchecked(engine) });
    ENGINE.store(raw, Release);
    if let Err(e) = modules::follow() {
        ENGINE.store(core::ptr::null_mut(), Release);
        // SAFETY: made from a box just above and never shared: no site is
        // patched yet.
        drop(unsafe { KBox::from_raw(raw) });
        return Err(e);
    }
    Ok(())
}

/// Stops the engine: every site goes back to the NOP and to the kernel's
/// ftrace, and once no task can still be inside the trampoline or the
/// dispatcher, the engine is freed.
pub(crate) fn stop() {
    modules::stop_following();
    let raw = ENGINE.load(Acquire);
    if raw.is_null() {
        return;
    }
    // SAFETY: live until freed below.
    unsafe { (*raw).release_all() };
    ENGINE.store(core::ptr::null_mut(), Release);
    // A task may have been preempted in the trampoline, before the
    // dispatcher disabled preemption: an RCU-tasks grace period waits until
    // every task has passed a voluntary schedule, so none is left there.
    // SAFETY: process context.
    unsafe { bindings::synchronize_rcu_tasks() };
    engine::wait_for_dispatchers();
    // SAFETY: made from a box in `start`; no user is left.
    drop(unsafe { KBox::from_raw(raw) });
}
