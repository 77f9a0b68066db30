// SPDX-License-Identifier: GPL-2.0

//! The instances one probe event records into, as the hit path reads them:
//! an immutable list, replaced whole when an instance enables or disables
//! the event and freed a grace period later.

use crate::events::defined::RecordSink;
use crate::kernel_api::rcu;
use core::sync::atomic::{AtomicPtr, Ordering::AcqRel, Ordering::Acquire};
use kernel::prelude::*;

/// The published list.
///
/// # Invariants
///
/// `current` is null or from `KBox::into_raw` of a list no longer
/// changed; a replaced list is freed only after an RCU grace period.
pub(crate) struct PublishedSinks {
    current: AtomicPtr<KVec<RecordSink>>,
}

impl PublishedSinks {
    /// None.
    pub(crate) const fn new() -> Self {
        PublishedSinks {
            current: AtomicPtr::new(core::ptr::null_mut()),
        }
    }

    /// Calls `f` on each sink. With preemption off (the list read stays
    /// alive until it is turned back on).
    #[inline]
    pub(crate) fn for_each(
        &self,
        _preempt_off: &crate::ring_buffer::NoPreempt,
        f: impl Fn(&RecordSink),
    ) {
        let list = self.current.load(Acquire);
        if list.is_null() {
            return;
        }
        // SAFETY: a published list is freed only a grace period after it
        // was replaced (type invariant), and preemption is off.
        unsafe { &*list }.iter().for_each(f);
    }

    /// Whether `f` holds for any sink. With preemption off, as
    /// [`Self::for_each`].
    #[inline]
    pub(crate) fn any(
        &self,
        _preempt_off: &crate::ring_buffer::NoPreempt,
        f: impl Fn(&RecordSink) -> bool,
    ) -> bool {
        let list = self.current.load(Acquire);
        // SAFETY: as in `for_each`.
        !list.is_null() && unsafe { &*list }.iter().any(f)
    }

    /// Whether no sink is published.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.current.load(Acquire).is_null()
    }

    /// Publishes a copy of `sinks` (none if empty) and frees the list it
    /// replaces once no reader can hold it. Callers serialize. May sleep.
    pub(crate) fn publish(&self, sinks: &[RecordSink]) -> Result {
        let new = if sinks.is_empty() {
            core::ptr::null_mut()
        } else {
            let mut list = KVec::with_capacity(sinks.len(), GFP_KERNEL)?;
            list.extend_from_slice(sinks, GFP_KERNEL)?;
            KBox::into_raw(KBox::new(list, GFP_KERNEL)?)
        };
        let old = self.current.swap(new, AcqRel);
        if !old.is_null() {
            rcu::synchronize();
            // SAFETY: from `KBox::into_raw` (type invariant); no reader holds
            // it after the grace period.
            drop(unsafe { KBox::from_raw(old) });
        }
        Ok(())
    }
}

impl Drop for PublishedSinks {
    fn drop(&mut self) {
        let list = *self.current.get_mut();
        if !list.is_null() {
            // SAFETY: from `KBox::into_raw`; dropping `self` means no hit
            // path reads it any more (its probes are detached).
            drop(unsafe { KBox::from_raw(list) });
        }
    }
}
