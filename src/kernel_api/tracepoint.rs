// SPDX-License-Identifier: GPL-2.0

//! Tracepoints: waiting for their probes to finish.

use crate::bindings;

/// Waits until no probe of any tracepoint (and no perf handler called from
/// one) that was removed before this call is still running. May sleep.
pub(crate) fn synchronize_unregister() {
    // SAFETY: may be called from any sleepable context.
    unsafe { bindings::rft_tracepoint_synchronize_unregister() };
}
