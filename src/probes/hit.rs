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
    /// For a return probe, what it saved at the function's entry
    /// ([`ProbeHandler::save_entry_data`]); empty otherwise.
    pub(crate) entry_data: &'a [u8],
}

/// Told of every hit of the probes it is attached to.
pub(crate) trait ProbeHandler: Send + Sync {
    /// Called with preemption off (kernel probes) or in the task's own
    /// context (uprobes, through `on_user_hit`); never sleeps.
    fn on_hit(&self, hit: &Hit<'_>);

    /// The bytes a return probe saves at its function's entry, for the
    /// `$argN` its return reads (`traceprobe_get_entry_data_size`); 0
    /// for none.
    fn entry_data_size(&self) -> usize {
        0
    }

    /// At the entry of a call whose return it will see (`hit`, the
    /// entry's registers), saves [`Self::entry_data_size`] bytes into
    /// `out` (`store_trace_entry_data`). Preemption off; never sleeps.
    fn save_entry_data(&self, _hit: &Hit<'_>, _out: &mut [u8]) {}

    /// A uprobe's hit: called in the probed task's own context with
    /// preemption enabled, where its memory is read with page faults
    /// allowed (`kernel_api::user_memory`, which may sleep), as the
    /// kernel's `uprobe_dispatcher` does. As the kernel, fetch the
    /// arguments first (into a buffer of this CPU held by a mutex:
    /// `uprobe_buffer_get`), then reserve and commit the record. Calls
    /// `on_hit` unless overridden.
    fn on_user_hit(&self, hit: &Hit<'_>) {
        self.on_hit(hit)
    }
}
