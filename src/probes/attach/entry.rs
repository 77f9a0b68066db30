// SPDX-License-Identifier: GPL-2.0

//! Probes at `__fentry__` sites: one client of rftrace's patch engine for
//! every such probe (the engine has few slots), as the kernel's
//! ftrace-based kprobes are clients of its ftrace.
//!
//! The client finds a site's probes in an immutable table sorted by site
//! ([`SiteProbes`]), published under RCU and replaced whole when a probe
//! is enabled or disabled; the engine patches the sites of the table
//! ([`Sites`]). Entry probes run with the registers as the kernel's
//! `ftrace_regs_caller` builds them for `kprobe_ftrace_handler`: `ip` one
//! past the site (as after a breakpoint), `sp` at the return address,
//! `orig_ax` 0; both are put back afterwards. Return probes hook the
//! call's return on the function_graph shadow stacks ([`super::ret`]).

use super::{CpuBusy, Probe};
use crate::bindings;
use crate::fentry::{CallContext, FentryClient, SiteInfo, SiteRef, SiteSelector};
use crate::graph::ReturnHook;
use crate::kernel_api::regs::Regs;
use crate::portable::sort::heap_sort;
use crate::probes::hit::Hit;
use core::sync::atomic::{
    AtomicPtr, AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};
use kernel::{prelude::*, sync::Arc};

/// One enabled probe at one engine site.
pub(super) struct SiteProbe {
    pub(super) site: usize,
    /// Its place among the probes of the site: the order they were
    /// listed in, which is the order they fire in.
    order: usize,
    pub(super) probe: Arc<Probe>,
}

impl PartialEq for SiteProbe {
    fn eq(&self, other: &Self) -> bool {
        (self.site, self.order) == (other.site, other.order)
    }
}

impl Eq for SiteProbe {}

impl PartialOrd for SiteProbe {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SiteProbe {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        (self.site, self.order).cmp(&(other.site, other.order))
    }
}

/// The enabled probes at engine sites, sorted by site.
pub(super) struct SiteProbes {
    entries: KVVec<SiteProbe>,
    /// Which table this is: a return finds the entry data its call saved
    /// laid out by the table of the entry, and reads none if the table
    /// changed meanwhile.
    pub(super) serial: u64,
}

/// The serial of the next table.
static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

impl SiteProbes {
    /// An empty table, for [`Self::add`].
    pub(super) fn new() -> Self {
        SiteProbes {
            entries: KVVec::new(),
            serial: NEXT_SERIAL.fetch_add(1, Relaxed),
        }
    }

    /// Lists `probe` at `site`, after the probes listed before.
    pub(super) fn add(&mut self, site: usize, probe: Arc<Probe>) -> Result {
        let order = self.entries.len();
        self.entries
            .push(SiteProbe { site, order, probe }, GFP_KERNEL)?;
        Ok(())
    }

    /// Sorts the table by site (a pattern probe lists thousands).
    pub(super) fn sort(&mut self) {
        heap_sort(&mut self.entries);
    }

    /// The probes at `site`.
    #[inline]
    pub(super) fn at(&self, site: usize) -> &[SiteProbe] {
        let start = self.entries.partition_point(|e| e.site < site);
        let rest = self.entries.get(start..).unwrap_or(&[]);
        let len = rest.partition_point(|e| e.site == site);
        rest.get(..len).unwrap_or(&[])
    }

    /// Whether some probe is a return probe.
    pub(super) fn has_returns(&self) -> bool {
        self.entries.iter().any(|e| e.probe.is_return)
    }

    /// The sites, for the engine.
    pub(super) fn sites(&self) -> Result<Sites> {
        let mut sites = KVVec::with_capacity(self.entries.len(), GFP_KERNEL)?;
        for entry in self.entries.iter() {
            if sites.last() != Some(&entry.site) {
                sites.push(entry.site, GFP_KERNEL)?;
            }
        }
        Ok(Sites(sites))
    }

    /// Whether no probe is listed.
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The sites the engine patches for the client: those of the table,
/// sorted.
pub(super) struct Sites(KVVec<usize>);

impl SiteSelector for Sites {
    fn selects(&self, site: &SiteInfo<'_>) -> bool {
        self.0.binary_search(&site.ip).is_ok()
    }

    /// Named sites: one the kernel's ftrace uses is an error (`EBUSY`).
    fn explicit(&self) -> bool {
        true
    }
}

/// The engine client of every probe at an engine site.
///
/// # Invariants
///
/// `table` is null or from `KBox::into_raw`, freed only a grace period
/// after it was replaced; `returns` is null or points at a hook kept alive
/// until a grace period after it is unset.
pub(super) struct EntryClient {
    table: AtomicPtr<SiteProbes>,
    returns: AtomicPtr<ReturnHook>,
    pub(super) busy: Arc<CpuBusy>,
}

// SAFETY: the raw pointers are published under RCU (the invariant); the
// rest is `Sync`.
unsafe impl Send for EntryClient {}
// SAFETY: as above.
unsafe impl Sync for EntryClient {}

impl EntryClient {
    /// A client with an empty table.
    pub(super) fn new(busy: Arc<CpuBusy>) -> Self {
        EntryClient {
            table: AtomicPtr::new(core::ptr::null_mut()),
            returns: AtomicPtr::new(core::ptr::null_mut()),
            busy,
        }
    }

    /// The current table (preemption off).
    #[inline]
    pub(super) fn table(&self) -> Option<&SiteProbes> {
        let table = self.table.load(Acquire);
        // SAFETY: the invariant; callers run with preemption off.
        (!table.is_null()).then(|| unsafe { &*table })
    }

    /// Publishes `table`; returns the one it replaces, to be freed after a
    /// grace period.
    pub(super) fn publish(&self, table: Option<KBox<SiteProbes>>) -> Option<KBox<SiteProbes>> {
        let new = table.map_or(core::ptr::null_mut(), KBox::into_raw);
        let old = self.table.swap(new, AcqRel);
        // SAFETY: made by `KBox::into_raw` (the invariant), no longer
        // published.
        (!old.is_null()).then(|| unsafe { KBox::from_raw(old) })
    }

    /// Points the client at `hook` (or at none) for hooking returns.
    pub(super) fn set_return_hook(&self, hook: Option<&ReturnHook>) {
        let raw = hook.map_or(core::ptr::null_mut(), |h| core::ptr::from_ref(h).cast_mut());
        self.returns.store(raw, Release);
    }

    /// Hooks the return of the call at `regs` for the return probes of
    /// `probes` (a site's in `table`), saving their entry data in table
    /// order; counts a miss for each if it cannot.
    fn hook_return(
        &self,
        (table, probes): (&SiteProbes, &[SiteProbe]),
        regs: &bindings::pt_regs,
        ip: usize,
        cx: &CallContext<'_>,
    ) {
        let returns = || probes.iter().map(|e| &e.probe).filter(|p| p.is_return);
        let size = returns().map(|p| p.handler.entry_data_size()).sum();
        let save = |out: &mut [u8]| {
            let entry = Hit {
                regs: Regs::from_raw(regs),
                addr: ip,
                ret_ip: None,
                entry_data: &[],
            };
            let mut rest = out;
            for probe in returns() {
                let (mine, others) =
                    rest.split_at_mut(probe.handler.entry_data_size().min(rest.len()));
                probe.handler.save_entry_data(&entry, mine);
                rest = others;
            }
        };
        let hook = self.returns.load(Acquire);
        // SAFETY: the invariant; preemption is off.
        let hooked =
            !hook.is_null() && unsafe { &*hook }.hook((regs, ip, cx), (table.serial, size), save);
        if !hooked {
            for probe in returns() {
                probe.missed.fetch_add(1, Relaxed);
            }
        }
    }
}

impl Drop for EntryClient {
    /// Frees the last table: the client's last reference is gone, so the
    /// engine, which held one while it called the client, no longer does.
    fn drop(&mut self) {
        drop(self.publish(None));
    }
}

impl FentryClient for EntryClient {
    fn call(
        &self,
        ip: usize,
        _parent_ip: usize,
        regs: &mut bindings::pt_regs,
        _site: &SiteRef<'_>,
        cx: &CallContext<'_>,
    ) {
        let Some(table) = self.table() else {
            return;
        };
        let probes = table.at(ip);
        if probes.is_empty() {
            return;
        }
        let Some(_running) = self.busy.enter(cx.cpu) else {
            // A probe handler runs on this CPU already (`kprobe_running`).
            for entry in probes.iter() {
                entry.probe.missed.fetch_add(1, Relaxed);
            }
            return;
        };
        let (ip_before, orig_ax_before) = (regs.ip, regs.orig_ax);
        // As after the breakpoint of a kprobe at the site.
        regs.ip = ip + 1;
        regs.orig_ax = 0;
        let mut returns = false;
        for SiteProbe { probe, .. } in probes.iter() {
            if probe.is_return {
                returns = true;
                continue;
            }
            let hit = Hit {
                regs: Regs::from_raw(regs),
                addr: ip,
                ret_ip: None,
                entry_data: &[],
            };
            probe.handler.on_hit(&hit);
        }
        regs.ip = ip_before;
        regs.orig_ax = orig_ax_before;
        if returns {
            self.hook_return((table, probes), regs, ip, cx);
        }
    }
}
