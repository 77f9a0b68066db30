// SPDX-License-Identifier: GPL-2.0

//! RCU: waiting for readers (`synchronize_rcu`). rftrace's readers are
//! code running with preemption off.

use crate::bindings;

/// Waits until every CPU has left the preemption-off sections it was in.
/// May sleep.
pub(crate) fn synchronize() {
    // SAFETY: callable from any sleepable context.
    unsafe { bindings::synchronize_rcu() };
}
