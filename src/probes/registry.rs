// SPDX-License-Identifier: GPL-2.0

//! Every probe event, in the order made (the order of the kernel's
//! `dyn_event_list`, which the listings follow), and what they share.

use super::event::{ProbeEvent, ProbeKind};
use super::scratch::Scratch;
use kernel::{
    prelude::*,
    sync::{Arc, GlobalGuard},
};

/// The probe events.
pub(crate) struct Registry {
    events: KVec<Arc<ProbeEvent>>,
    /// The hit path's record buffers, made with the first event.
    scratch: Option<Arc<Scratch>>,
}

kernel::sync::global_lock! {
    // SAFETY: initialised by `init` at module load, before any use.
    pub(crate) unsafe(uninit) static REGISTRY: Mutex<Registry> = Registry {
        events: KVec::new(),
        scratch: None,
    };
}

/// Makes the registry's lock. Called once, at module load, first.
pub(crate) fn init() {
    // SAFETY: called once, at module load, before any other use.
    unsafe { REGISTRY.init() };
}

/// The registry, locked. Lock order: the registry, then an instance's
/// event states, then a probe event's own lock, then the event tree and
/// catalog.
pub(crate) fn lock() -> Result<GlobalGuard<REGISTRY>> {
    Ok(REGISTRY.lock())
}

impl Registry {
    /// The events, oldest first.
    pub(crate) fn events(&self) -> &[Arc<ProbeEvent>] {
        &self.events
    }

    /// The event `group/name` (any group when `group` is `None`).
    pub(crate) fn find(&self, group: Option<&str>, name: &str) -> Option<&Arc<ProbeEvent>> {
        self.events
            .iter()
            .find(|e| e.name() == name && group.is_none_or(|g| e.group() == g))
    }

    /// Frees what the registry holds (the list's memory, the hit path's
    /// record buffers): at module unload, once every event is gone
    /// (statics are not dropped when a module goes).
    pub(crate) fn release(&mut self) {
        self.events = KVec::new();
        self.scratch = None;
    }

    /// The record buffers of the hit path.
    pub(crate) fn scratch(&mut self) -> Result<Arc<Scratch>> {
        if let Some(scratch) = &self.scratch {
            return Ok(scratch.clone());
        }
        let scratch = Arc::new(Scratch::new(crate::instance::nr_cpu_ids())?, GFP_KERNEL)?;
        self.scratch = Some(scratch.clone());
        Ok(scratch)
    }

    /// Adds `event`, already in the catalog.
    pub(crate) fn add(&mut self, event: Arc<ProbeEvent>) -> Result {
        self.events.push(event, GFP_KERNEL)?;
        Ok(())
    }

    /// Removes the event at `index` from every instance and the catalog;
    /// `EBUSY` while it is enabled in one.
    pub(crate) fn remove(&mut self, index: usize) -> Result {
        let event = self.events.get(index).ok_or(ENOENT)?;
        if event.is_enabled() {
            return Err(EBUSY);
        }
        let event = self.events.remove(index)?;
        crate::events::defined::remove(event.recorder.id);
        // The event's points detach when the last reference goes (a reader
        // printing one of its records may hold one a moment longer).
        drop(event);
        Ok(())
    }

    /// Removes every event `kind` selects (all, for `None`); `EBUSY`, and
    /// none removed, if one of them is enabled.
    pub(crate) fn remove_all(&mut self, kind: Option<ProbeKind>) -> Result {
        let selected = |e: &Arc<ProbeEvent>| kind.is_none_or(|k| e.kind == k);
        if self.events.iter().any(|e| selected(e) && e.is_enabled()) {
            return Err(EBUSY);
        }
        let mut index = 0;
        while index < self.events.len() {
            if selected(&self.events[index]) {
                self.remove(index)?;
            } else {
                index += 1;
            }
        }
        Ok(())
    }
}
