// SPDX-License-Identifier: GPL-2.0

//! Following modules with trace events: their events join the catalog and
//! `events/` when the module comes, and leave when it goes, as in the
//! kernel's tracefs.
//!
//! The kernel adds a module's events at COMING and removes them at GOING
//! from a notifier of priority 1. rftrace listens at priority 0 for
//! COMING, when the events exist, and at priority 2 for GOING, while they
//! still exist: the going module's events are disabled (their perf
//! counters released, within the module's life), their directories
//! removed, and the buffer cleared if one of them was ever enabled, since
//! the kernel will give their ids to other events.

use super::{catalog, tree};
use crate::instances;
use crate::kernel_api::module::{Module, ModuleNotifier, ModuleState, OnModule};
use kernel::prelude::*;

/// Priority of the COMING listener: after the kernel's event notifier.
const AFTER_KERNEL_EVENTS: i32 = 0;
/// Priority of the GOING listener: before the kernel's event notifier.
const BEFORE_KERNEL_EVENTS: i32 = 2;

/// What the notifiers act on: the catalog, the event tree and every
/// instance.
struct Follower;

/// Module events are followed while this lives. Fields drop in order: the
/// notifiers before the follower they call.
pub(crate) struct ModuleEvents {
    _coming: Pin<KBox<ModuleNotifier<Follower>>>,
    _going: Pin<KBox<ModuleNotifier<Follower>>>,
    _follower: KBox<Follower>,
}

impl ModuleEvents {
    /// Starts following modules, and adds the events of modules that came
    /// since the catalog was read.
    pub(crate) fn follow() -> Result<Self> {
        let follower = KBox::new(Follower, GFP_KERNEL)?;
        let owner: *const Follower = &*follower;
        // SAFETY: the follower is boxed (stable address) and dropped after
        // the notifiers (field order).
        let coming = KBox::pin_init(
            unsafe { ModuleNotifier::register(AFTER_KERNEL_EVENTS, ModuleState::Coming, owner) },
            GFP_KERNEL,
        )?;
        // SAFETY: as above.
        let going = KBox::pin_init(
            unsafe { ModuleNotifier::register(BEFORE_KERNEL_EVENTS, ModuleState::Going, owner) },
            GFP_KERNEL,
        )?;
        let added = catalog::add_new()?;
        tree::add(&added)?;
        Ok(ModuleEvents {
            _coming: coming,
            _going: going,
            _follower: follower,
        })
    }
}

impl OnModule for Follower {
    fn changed(&self, state: ModuleState, module: Module) {
        match state {
            ModuleState::Coming => self.coming(module),
            ModuleState::Going => self.going(module),
        }
    }
}

impl Follower {
    /// Adds the events of `module`, and enables those `:mod:` words
    /// written before it came select.
    fn coming(&self, module: Module) {
        let added = match catalog::add_module(module) {
            Ok(added) => added,
            Err(e) => return pr_warn!("cannot list a new module's events: {e:?}\n"),
        };
        if let Err(e) = tree::add(&added) {
            pr_warn!("cannot show a new module's events: {e:?}\n");
        }
        // SAFETY: the module is coming, so live during its notification.
        if let Ok(name) = unsafe { module.name() }.to_str() {
            for instance in instances::list::all().unwrap_or_default().iter() {
                instance.events().apply_pending(instance, name);
            }
        }
    }

    /// Disables and removes the events of `module`.
    fn going(&self, module: Module) {
        let ids = match catalog::module_ids(module) {
            Ok(ids) if ids.is_empty() => return,
            Ok(ids) => ids,
            Err(e) => return pr_warn!("cannot list a going module's events: {e:?}\n"),
        };
        let all = instances::list::all().unwrap_or_default();
        let mut used = KVec::new();
        for instance in all.iter() {
            let was_used = instance.events().forget(instance, &ids);
            // On failure the buffer is cleared (a needless loss, never a
            // record read under another event's id).
            if used.push(was_used, GFP_KERNEL).is_err() {
                used.clear();
            }
        }
        tree::remove(&ids);
        if let Err(e) = catalog::remove_module(module) {
            pr_warn!("cannot forget a going module's events: {e:?}\n");
        }
        for (index, instance) in all.iter().enumerate() {
            if used.get(index).copied().unwrap_or(true) {
                instance.clear(None);
            }
        }
    }
}
