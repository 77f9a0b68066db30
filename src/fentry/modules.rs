// SPDX-License-Identifier: GPL-2.0

//! Following modules: a coming module's sites join the table (and are
//! patched for every client that wants them); a going module's sites are
//! unpatched and leave it.

use super::engine::Engine;
use super::scan;
use super::sites::{Segment, SiteTable};
use crate::bindings;
use core::ffi::{c_int, c_void};
use kernel::{
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc,
    },
};

/// The notifier block, registered between `follow` and `stop_following`.
struct Notifier(core::cell::UnsafeCell<bindings::notifier_block>);

// SAFETY: the block is handed to the kernel once and changed only by it,
// under its notifier lock.
unsafe impl Sync for Notifier {}

static NOTIFIER: Notifier = Notifier(core::cell::UnsafeCell::new(bindings::notifier_block {
    notifier_call: Some(module_event),
    next: core::ptr::null_mut(),
    priority: 0,
}));

/// Whether `NOTIFIER` is registered.
static FOLLOWING: Atomic<bool> = Atomic::new(false);

/// Starts following module loads and unloads.
pub(super) fn follow() -> Result {
    // SAFETY: the block is static and registered at most once.
    let ret = unsafe { bindings::register_module_notifier(NOTIFIER.0.get()) };
    if ret != 0 {
        return Err(Error::from_errno(ret));
    }
    FOLLOWING.store(true, Relaxed);
    Ok(())
}

/// Stops following modules; returns once no notification runs.
pub(super) fn stop_following() {
    if FOLLOWING.xchg(false, Relaxed) {
        // SAFETY: registered by `follow`; unregistering waits for running
        // callbacks (the notifier chain's lock).
        unsafe { bindings::unregister_module_notifier(NOTIFIER.0.get()) };
    }
}

/// The module notifier.
///
/// # Safety
///
/// Called by the kernel's module loader with a module being loaded or
/// removed.
unsafe extern "C" fn module_event(
    _nb: *mut bindings::notifier_block,
    action: usize,
    data: *mut c_void,
) -> c_int {
    let module = data.cast::<bindings::module>();
    if matches!(
        action as u32,
        bindings::module_state_MODULE_STATE_COMING | bindings::module_state_MODULE_STATE_GOING
    ) {
        crate::symbols::modules_changed();
    }
    let Some(engine) = super::engine() else {
        return bindings::RFT_NOTIFY_DONE;
    };
    match action as u32 {
        bindings::module_state_MODULE_STATE_COMING => module_coming(engine, module),
        bindings::module_state_MODULE_STATE_GOING => module_going(engine, module),
        _ => {}
    }
    bindings::RFT_NOTIFY_DONE
}

/// Adds the sites of `module` and patches those clients want.
fn module_coming(engine: &Engine, module: *mut bindings::module) {
    let segment = match scan::scan_module(module) {
        Ok(segment) if !segment.sites.is_empty() => segment,
        Ok(_) => return,
        Err(e) => {
            pr_warn!("cannot list a new module's functions: {:?}\n", e);
            return;
        }
    };
    let mut state = engine.state.lock();
    let Ok(segment) = Arc::new(segment, GFP_KERNEL) else {
        return;
    };
    let table = match with_segment(&state.table, Some(&segment), None) {
        Ok(table) => table,
        Err(_) => return,
    };
    if engine.set_table(&mut state, table).is_err() {
        return;
    }
    let slots: KVec<usize> = collect(Engine::used_slots(&state));
    for slot in slots {
        if let Err(e) = engine.apply(&mut state, slot, Some(&segment)) {
            let errno = match e {
                super::UpdateError::Busy => EBUSY,
                super::UpdateError::Other(e) => e,
            };
            pr_warn!("cannot trace a new module's functions: {:?}\n", errno);
        }
    }
}

/// Unpatches the sites of `module` and drops them from the table.
fn module_going(engine: &Engine, module: *mut bindings::module) {
    let mut state = engine.state.lock();
    let table = state.table.clone();
    let Some(segment) = table.segments.iter().find(|s| s.module == Some(module)) else {
        return;
    };
    engine.release_segment(&mut state, segment);
    if let Ok(rest) = with_segment(&table, None, Some(segment)) {
        // Failing that, the segment stays listed, unpatched, until a later
        // change of the table: harmless, its module text is never run.
        let _ = engine.set_table(&mut state, rest);
    }
}

/// A copy of `table` with `add` appended and `remove` left out.
fn with_segment(
    table: &SiteTable,
    add: Option<&Arc<Segment>>,
    remove: Option<&Arc<Segment>>,
) -> Result<SiteTable> {
    let mut segments = KVec::new();
    for segment in table.segments.iter() {
        if remove.is_some_and(|r| Arc::ptr_eq(r, segment)) {
            continue;
        }
        segments.push(segment.clone(), GFP_KERNEL)?;
    }
    if let Some(add) = add {
        segments.push(add.clone(), GFP_KERNEL)?;
    }
    Ok(SiteTable { segments })
}

/// Collects slot numbers (a handful) into a vector, dropping them if memory
/// runs out.
fn collect(slots: impl Iterator<Item = usize>) -> KVec<usize> {
    let mut out = KVec::new();
    for slot in slots {
        if out.push(slot, GFP_KERNEL).is_err() {
            break;
        }
    }
    out
}
