// SPDX-License-Identifier: GPL-2.0

//! Dynamic probe events: kprobe, kretprobe, uprobe, fprobe and tracepoint
//! probe events, whose records rftrace defines itself.
//!
//! A command written to `kprobe_events`, `uprobe_events` or
//! `dynamic_events` ([`files`]) is parsed by the portable half
//! (`src/portable/probes/`) and carried out by [`command`]: a new
//! [`event::ProbeEvent`] joins the [`registry`] and the event layer's
//! catalog as a [`crate::events::defined::DefinedEvent`], so that it has
//! its `events/` directory, `set_event` name, filters and pid filters like
//! any event. Its probe points ([`point`]) attach where the probed code
//! is ([`attach`] for the kernel, [`tracepoint_attach`] for tracepoints,
//! [`uprobe_attach`] for user programs);
//! each hit ([`hit`]) is recorded by the event's [`recorder`], which fetches
//! the arguments ([`args`], [`fetch_env`]) into a record buffer
//! ([`scratch`]) and offers the record to every instance that enabled
//! the event ([`sinks`]).
//!
//! # Lock order
//!
//! The registry, then an instance's event states, then a probe event's
//! own lock, then the attach layers' locks (the patch engine's), then the
//! event tree and the catalog.

pub(crate) mod args;
pub(crate) mod attach;
pub(crate) mod command;
pub(crate) mod event;
pub(crate) mod fetch_env;
pub(crate) mod files;
pub(crate) mod hit;
pub(crate) mod point;
pub(crate) mod recorder;
pub(crate) mod registry;
pub(crate) mod resolver;
pub(crate) mod scratch;
pub(crate) mod sinks;
pub(crate) mod text;
pub(crate) mod tracepoint_attach;
pub(crate) mod uprobe_attach;

use crate::instances;
use kernel::prelude::*;

/// Probe events can be made while this lives; dropping it removes them
/// all (at module unload, before the file system goes).
pub(crate) struct ProbeEvents(());

impl ProbeEvents {
    /// Probe events may be defined from now on; they record into each
    /// instance that enables them.
    pub(crate) fn start() -> Self {
        ProbeEvents(())
    }
}

impl Drop for ProbeEvents {
    fn drop(&mut self) {
        let Ok(mut registry) = registry::lock() else {
            return;
        };
        // Enabled events are disabled first: the module is going.
        for instance in instances::list::all().unwrap_or_default().iter() {
            instance.events().release_all(instance);
        }
        if let Err(e) = registry.remove_all(None) {
            pr_warn!("probe events left behind at unload: {e:?}\n");
        }
        registry.release();
    }
}
