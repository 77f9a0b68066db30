// SPDX-License-Identifier: GPL-2.0

//! What a site calls: the engine's clients and the sets of them attached to
//! sites.

use super::sites::{Segment, Site, SiteInfo};
use crate::bindings;
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

/// The site a call came through, in the table the dispatcher read.
pub(crate) struct SiteRef<'a> {
    pub(crate) segment: &'a Segment,
    pub(crate) site: &'a Site,
}

impl SiteRef<'_> {
    /// What filters see of the site.
    #[inline]
    pub(crate) fn info(&self) -> SiteInfo<'_> {
        self.segment.info(self.site)
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
