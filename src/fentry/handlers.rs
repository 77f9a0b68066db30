// SPDX-License-Identifier: GPL-2.0

//! What a site calls: the engine's clients and the sets of them attached to
//! sites.

use super::sites::SiteInfo;
use crate::bindings;
use kernel::{prelude::*, sync::Arc};

/// A user of the engine: a tracer running in an instance.
pub(crate) trait FentryClient: Send + Sync {
    /// Called on every hit of a site the client selected: with preemption
    /// off, RCU-protected, never recursively in one context of one CPU.
    /// `ip` is the call site, `parent_ip` the traced function's return
    /// address, `regs` the registers at the site.
    fn call(&self, ip: usize, parent_ip: usize, regs: &mut bindings::pt_regs);
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
