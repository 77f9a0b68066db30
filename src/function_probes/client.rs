// SPDX-License-Identifier: GPL-2.0

//! The patch engine's client for one instance's function probes: it
//! selects the probes' sites and, on every call of one, runs the probes
//! of that site.
//!
//! The probes a call sees are an immutable table, sorted by call address,
//! that the client reads under the dispatcher's RCU protection; a change
//! publishes a new table, hands the engine the new sites, and frees the
//! old table once no CPU can be reading it.

use super::{ProbeAction, ProbeEntry};
use crate::bindings;
use crate::fentry::{
    self, CallContext, Engine, FentryClient, SiteInfo, SiteRef, SiteSelector, UpdateError,
};
use crate::function_tracer::update_error;
use crate::instance::Instance;
use crate::portable::input::InputError;
use crate::portable::sort::heap_sort;
use core::sync::atomic::{AtomicPtr, Ordering::AcqRel, Ordering::Acquire};
use kernel::{prelude::*, sync::Arc};

/// The probes of every probed site: (call address, segment serial, entry),
/// sorted by address.
struct ProbeTable {
    entries: KVec<(usize, u64, Arc<ProbeEntry>)>,
}

impl ProbeTable {
    /// The table of `entries`.
    fn new(entries: &[Arc<ProbeEntry>]) -> Result<KBox<Self>, InputError> {
        let no_memory = |_| InputError::NoMemory;
        // By address, a site's probes in the listing's order.
        let mut order = KVec::with_capacity(entries.len(), GFP_KERNEL).map_err(no_memory)?;
        for (i, entry) in entries.iter().enumerate() {
            order
                .push((entry.site.1, i), GFP_KERNEL)
                .map_err(no_memory)?;
        }
        heap_sort(&mut order);
        let mut table = KVec::with_capacity(entries.len(), GFP_KERNEL).map_err(no_memory)?;
        for entry in order.iter().filter_map(|&(_, i)| entries.get(i)) {
            let (serial, ip) = entry.site;
            table
                .push((ip, serial, entry.clone()), GFP_KERNEL)
                .map_err(no_memory)?;
        }
        KBox::new(ProbeTable { entries: table }, GFP_KERNEL).map_err(no_memory)
    }

    /// The probes of the site at `ip` in segment `serial`.
    #[inline]
    fn at(&self, ip: usize, serial: u64) -> impl Iterator<Item = &ProbeEntry> {
        let first = self.entries.partition_point(|e| e.0 < ip);
        self.entries
            .get(first..)
            .unwrap_or(&[])
            .iter()
            .take_while(move |e| e.0 == ip)
            .filter(move |e| e.1 == serial)
            .map(|e| &*e.2)
    }
}

/// The sites of a probe table, for the engine.
struct ProbeSites {
    /// (segment serial, call address), sorted, no duplicates.
    sites: KVec<(u64, usize)>,
}

impl ProbeSites {
    /// The sites of `entries`, as the engine asks for them.
    fn of(entries: &[Arc<ProbeEntry>]) -> Result<Arc<dyn SiteSelector>, InputError> {
        let no_memory = |_| InputError::NoMemory;
        let mut sites = KVec::with_capacity(entries.len(), GFP_KERNEL).map_err(no_memory)?;
        for entry in entries {
            sites.push(entry.site, GFP_KERNEL).map_err(no_memory)?;
        }
        heap_sort(&mut sites);
        let mut previous = None;
        sites.retain(|site| previous.replace(*site) != Some(*site));
        Ok(Arc::new(ProbeSites { sites }, GFP_KERNEL).map_err(no_memory)?)
    }
}

impl SiteSelector for ProbeSites {
    fn selects(&self, site: &SiteInfo<'_>) -> bool {
        self.sites.binary_search(&(site.serial, site.ip)).is_ok()
    }

    fn explicit(&self) -> bool {
        true
    }
}

/// The engine's client for one instance's probes.
///
/// # Invariants
///
/// `instance` is alive while the client is registered: the instance
/// clears its probes (which unregisters the client and waits until no
/// CPU runs it) before it goes. `table` is from `KBox::into_raw` and is
/// freed only once no CPU can be reading it.
pub(super) struct ProbeClient {
    instance: *const Instance,
    table: AtomicPtr<ProbeTable>,
}

// SAFETY: `Instance` is `Sync`; the pointer is only used to call its
// recording and switching paths, which any CPU may run. The table is
// immutable once published.
unsafe impl Send for ProbeClient {}
// SAFETY: as above.
unsafe impl Sync for ProbeClient {}

impl Drop for ProbeClient {
    fn drop(&mut self) {
        // SAFETY: the last reference goes after the engine let go of the
        // client and waited for its dispatchers (the invariant).
        drop(unsafe { KBox::from_raw(*self.table.get_mut()) });
    }
}

impl FentryClient for ProbeClient {
    fn call(
        &self,
        ip: usize,
        _parent_ip: usize,
        regs: &mut bindings::pt_regs,
        site: &SiteRef<'_>,
        cx: &CallContext<'_>,
    ) {
        // SAFETY: the instance outlives the registration and the table
        // stays until no dispatcher reads it (the invariant); preemption
        // is off.
        let (instance, table) = unsafe { (&*self.instance, &*self.table.load(Acquire)) };
        let Some(segment) = site.segment() else {
            return;
        };
        for entry in table.at(ip, segment.serial) {
            entry.fire(instance, regs, cx);
        }
    }
}

impl ProbeEntry {
    /// Does what the probe does, from a call of its function in the
    /// dispatcher's context `cx`.
    #[inline]
    fn fire(&self, instance: &Instance, regs: &bindings::pt_regs, cx: &CallContext<'_>) {
        let counted = self.kind.counted;
        match &self.action {
            ProbeAction::Tracing { on, count } => {
                let in_state = || instance.tracing_on() == *on;
                if counted {
                    count.spend_on_change(in_state, || instance.switch_tracing(*on));
                } else if !in_state() {
                    instance.switch_tracing(*on);
                }
            }
            ProbeAction::Stack { count } => {
                // The counted form spends nothing while recording is off.
                if !counted || (instance.tracing_on() && count.take_one()) {
                    instance.record_stack(regs, cx);
                }
            }
            ProbeAction::Event(probe) => {
                let in_state = || probe.switch.is_disabled() != probe.enable;
                let change = || probe.switch.set_disabled(!probe.enable);
                if counted {
                    probe.count.spend_event_change(in_state, change);
                } else {
                    change();
                }
            }
        }
    }
}

/// An instance's probe client, registered with the engine.
pub(super) struct ProbeSession {
    engine: &'static Engine,
    slot: usize,
    client: Arc<ProbeClient>,
}

impl ProbeSession {
    /// Registers a client for `entries` of `instance`.
    pub(super) fn start(
        engine: &'static Engine,
        instance: &Instance,
        entries: &[Arc<ProbeEntry>],
    ) -> Result<Self, UpdateError> {
        let table = ProbeTable::new(entries).map_err(|_| UpdateError::Other(ENOMEM))?;
        let sites = ProbeSites::of(entries).map_err(|_| UpdateError::Other(ENOMEM))?;
        // INVARIANT: the instance clears its probes, stopping this session,
        // before it goes; the table is a fresh box.
        let client = ProbeClient {
            instance,
            table: AtomicPtr::new(KBox::into_raw(table)),
        };
        let client = Arc::new(client, GFP_KERNEL).map_err(|_| UpdateError::Other(ENOMEM))?;
        let (slot, _) = engine.register(client.clone(), sites)?;
        Ok(ProbeSession {
            engine,
            slot,
            client,
        })
    }

    /// Makes `entries` the probes the client runs. On error the client
    /// runs the old ones.
    pub(super) fn update(&self, entries: &[Arc<ProbeEntry>]) -> Result<(), InputError> {
        let table = ProbeTable::new(entries)?;
        let sites = ProbeSites::of(entries)?;
        // The new table first: a site the engine calls it from until the
        // update, and the table no longer has, runs no probe.
        let old = self.client.table.swap(KBox::into_raw(table), AcqRel);
        let result = self.engine.reselect(self.slot, sites).map_err(update_error);
        if result.is_err() {
            let new = self.client.table.swap(old, AcqRel);
            fentry::wait_for_dispatchers();
            // SAFETY: from `KBox::into_raw` above; no dispatcher reads it
            // any more.
            drop(unsafe { KBox::from_raw(new) });
            return result.map(|_| ());
        }
        fentry::wait_for_dispatchers();
        // SAFETY: from `KBox::into_raw` when published; replaced, and no
        // dispatcher reads it any more.
        drop(unsafe { KBox::from_raw(old) });
        Ok(())
    }

    /// Unregisters the client: once this returns no CPU runs a probe.
    pub(super) fn stop(self) {
        self.engine.unregister(self.slot);
    }
}
