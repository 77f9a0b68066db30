// SPDX-License-Identifier: GPL-2.0

//! What a site calls: the engine's clients and the sets of them attached to
//! sites.

use super::sites::{Segment, Site, SiteInfo, SiteTable};
use crate::bindings;
use crate::portable::output::EntryHeader;
use crate::ring_buffer::NoPreempt;
use core::cell::Cell;
use kernel::{prelude::*, sync::Arc};

/// A user of the engine: a tracer running in an instance.
pub(crate) trait FentryClient: Send + Sync {
    /// Called on every hit of a site the client selected: with preemption
    /// off, RCU-protected, never recursively in one context of one CPU.
    /// `ip` is the call site, `parent_ip` the traced function's return
    /// address, `regs` the registers at the site, `site` the site in the
    /// engine's table, `cx` what the dispatcher already knows of the
    /// context.
    fn call(
        &self,
        ip: usize,
        parent_ip: usize,
        regs: &mut bindings::pt_regs,
        site: &SiteRef<'_>,
        cx: &CallContext<'_>,
    );
}

/// The site a call came through, in the table the dispatcher read: found
/// already (the dispatcher looked it up to find its clients), or looked up
/// when a client first asks (a direct trampoline's call, which names only
/// its client).
pub(crate) struct SiteRef<'a> {
    table: &'a SiteTable,
    ip: usize,
    found: Cell<Option<Option<(&'a Segment, &'a Site)>>>,
}

impl<'a> SiteRef<'a> {
    /// The site `site` of `segment`, in `table`.
    #[inline]
    pub(crate) fn found(table: &'a SiteTable, segment: &'a Segment, site: &'a Site) -> Self {
        SiteRef {
            table,
            ip: site.ip,
            found: Cell::new(Some(Some((segment, site)))),
        }
    }

    /// The site at call address `ip` of `table`, looked up on first use.
    #[inline]
    pub(crate) fn lazy(table: &'a SiteTable, ip: usize) -> Self {
        SiteRef {
            table,
            ip,
            found: Cell::new(None),
        }
    }

    /// The site and its segment; `None` if the table has no site at the
    /// call address (the table changed since the site was patched).
    #[inline]
    pub(crate) fn get(&self) -> Option<(&'a Segment, &'a Site)> {
        if let Some(found) = self.found.get() {
            return found;
        }
        let found = self.table.find_with_segment(self.ip);
        self.found.set(Some(found));
        found
    }

    /// The segment that holds the site.
    #[inline]
    pub(crate) fn segment(&self) -> Option<&'a Segment> {
        self.get().map(|(segment, _)| segment)
    }

    /// What filters see of the site.
    #[inline]
    pub(crate) fn info(&self) -> Option<SiteInfo<'a>> {
        self.get().map(|(segment, site)| segment.info(site))
    }
}

/// The context of one dispatch, read once by the dispatcher for all its
/// clients.
pub(crate) struct CallContext<'a> {
    /// The CPU the call runs on.
    pub(crate) cpu: usize,
    /// `preempt_count()`, counting the dispatcher's own disabling.
    pub(crate) preempt_count: u32,
    /// Whether interrupts are off (the dispatcher leaves them as they
    /// were at the call).
    pub(crate) irqs_off: bool,
    /// Preemption is off while the clients run.
    pub(crate) preempt_off: &'a NoPreempt,
    /// The call's nesting level once a client hooked its return (pushed a
    /// shadow frame for it): the clients after it that hook the same call
    /// give their frames that level, as the kernel's function_graph users
    /// share one frame per call. `None` until then, and on return paths.
    pub(crate) hooked_level: Cell<Option<u16>>,
}

impl CallContext<'_> {
    /// The common header of a record of `kind` written in this context
    /// for the current task.
    #[inline]
    pub(crate) fn record_header(&self, kind: u16) -> EntryHeader {
        let (flags, depth) = crate::instance::context_of(self.preempt_count, self.irqs_off);
        EntryHeader {
            kind,
            flags,
            // Not counting the dispatcher's own preemption disabling.
            preempt_count: depth.saturating_sub(1),
            pid: crate::cpu_local::current_pid(),
        }
    }
}

/// Which sites a client wants: an immutable snapshot of its filters.
pub(crate) trait SiteSelector: Send + Sync {
    /// Whether `site` is wanted.
    fn selects(&self, site: &SiteInfo<'_>) -> bool;

    /// Whether the sites were named by the user: a site that is busy
    /// elsewhere is then an error; otherwise (tracing every function) busy
    /// sites are skipped.
    fn explicit(&self) -> bool;
}

/// The clients attached to one or more sites, identified by the mask of
/// their engine slots.
pub(crate) struct HandlerSet {
    pub(crate) mask: u64,
    pub(crate) clients: KVec<Arc<dyn FentryClient>>,
}
