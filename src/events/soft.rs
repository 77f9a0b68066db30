// SPDX-License-Identifier: GPL-2.0

//! Soft mode: the on/off switch an event's capture checks before it
//! records, for the function probes that turn events on and off from
//! traced functions (`schedule:enable_event:sched:sched_switch`).
//!
//! A probe cannot start or stop a capture where it runs (inside a traced
//! call, preemption off), so, as the kernel's, an event a probe switches
//! is captured for as long as the probe exists ("soft mode") and records
//! only while its switch is on. Its `enable` file then reads `1*` or
//! `0*`; writing it flips the switch instead of stopping the capture.

use core::sync::atomic::{AtomicBool, Ordering::Relaxed};
use kernel::prelude::*;
use kernel::sync::Arc;

/// The switch of one event's capture in one instance.
pub(crate) struct SoftSwitch {
    disabled: AtomicBool,
}

impl SoftSwitch {
    /// A switch, off if `disabled`.
    pub(crate) fn new(disabled: bool) -> Result<Arc<Self>> {
        Ok(Arc::new(
            SoftSwitch {
                disabled: AtomicBool::new(disabled),
            },
            GFP_KERNEL,
        )?)
    }

    /// Whether the capture keeps its records to itself.
    #[inline]
    pub(crate) fn is_disabled(&self) -> bool {
        self.disabled.load(Relaxed)
    }

    /// Turns recording off (`true`) or on. Any context.
    #[inline]
    pub(crate) fn set_disabled(&self, disabled: bool) {
        self.disabled.store(disabled, Relaxed);
    }
}
