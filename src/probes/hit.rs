// SPDX-License-Identifier: GPL-2.0

//! What a probe sees when it fires, and who it tells: the interface between
//! where probes attach (the patch engine, kernel kprobes, uprobes) and the
//! probe events that record.

use crate::kernel_api::regs::Regs;

/// One firing of a probe.
pub(crate) struct Hit<'a> {
    /// The registers: at the probed instruction for an entry probe (`ip`
    /// one past the probed address, as the kernel's kprobes show it), at
    /// the return for a return probe.
    pub(crate) regs: &'a Regs,
    /// The probed address: the function's entry for a return probe.
    pub(crate) addr: usize,
    /// For a return probe, where the function returns to.
    pub(crate) ret_ip: Option<usize>,
}

/// Told of every hit of the probes it is attached to.
pub(crate) trait ProbeHandler: Send + Sync {
    /// Called with preemption off (kernel probes) or in the task's own
    /// context (uprobes); never sleeps.
    fn on_hit(&self, hit: &Hit<'_>);
}
