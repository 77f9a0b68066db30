// SPDX-License-Identifier: GPL-2.0

//! Events rftrace defines itself (its probe events), as the event layer
//! sees them: the definer makes each record and prints it in the `trace`
//! form; the event layer lists the event, enables it per instance, filters
//! its records and writes them to the instance's buffer, as for the
//! kernel's events.

use super::capture::Sink;
use crate::portable::records::Symbols;
use kernel::prelude::*;

/// What defines an event: the source of its records and their text.
pub(crate) trait DefinedEvent: Send + Sync {
    /// Starts offering every record of the event to `sink`, until
    /// [`DefinedEvent::disconnect`]. May sleep.
    fn connect(&self, sink: RecordSink) -> Result;

    /// Stops offering records to `sink`: no offer starts after this
    /// returns, though one may still be running until the next RCU grace
    /// period. May sleep.
    fn disconnect(&self, sink: RecordSink);

    /// Appends the `trace`-form text of `record` (the line after the
    /// context columns), naming addresses with `symbols`. `sym_addr`: the
    /// `sym-addr` option is on.
    fn write_trace(
        &self,
        record: &[u8],
        sym_addr: bool,
        symbols: &dyn Symbols,
        out: &mut KVec<u8>,
    ) -> Result;
}

/// Where a defined event's records go in one instance: the instance's
/// buffer, through the event's pid filters and filter there.
///
/// # Invariants
///
/// Points at a [`Sink`] that lives from `connect` until an RCU grace
/// period after `disconnect`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct RecordSink(*const Sink);

// SAFETY: a sink is used from any CPU (it is `Sync`); this is its address.
unsafe impl Send for RecordSink {}
// SAFETY: as above.
unsafe impl Sync for RecordSink {}

impl RecordSink {
    /// The sink at `sink`.
    ///
    /// # Safety
    ///
    /// `sink` must live until an RCU grace period after the definer was
    /// told to disconnect it.
    pub(super) unsafe fn new(sink: *const Sink) -> Self {
        // INVARIANT: the caller's promise.
        RecordSink(sink)
    }

    /// Offers `record` (common fields first), made on `cpu`, the CPU this
    /// runs on with preemption off, to the instance: recorded unless its
    /// pid filters or filter drop it.
    pub(crate) fn offer(&self, record: &[u8], cpu: usize) {
        // SAFETY: offers come between `connect` and a grace period after
        // `disconnect`, with preemption off (type invariant).
        unsafe { &*self.0 }.offer(record, cpu);
    }

    /// Whether a record made now on `cpu` (this CPU, preemption off) could
    /// be kept: the instance records there and the event is not
    /// soft-disabled. A probe builds no record when no sink could.
    #[inline]
    pub(crate) fn may_record(&self, cpu: usize) -> bool {
        // SAFETY: as in `offer`.
        unsafe { &*self.0 }.may_record(cpu)
    }
}

/// Adds `event`, defined by rftrace, to the catalog and to the mounted
/// `events/`. May sleep.
pub(crate) fn add(event: super::catalog::Event) -> Result {
    let id = event.id;
    let event = kernel::sync::Arc::new(event, GFP_KERNEL)?;
    super::catalog::lock().ok_or(ENODEV)?.add_defined(event)?;
    if let Err(e) = super::tree::add(&[id]) {
        withdraw(id);
        return Err(e);
    }
    Ok(())
}

/// Takes back the defined event `id`, never enabled, from `events/` and
/// the catalog. May sleep.
pub(crate) fn withdraw(id: u16) {
    super::tree::remove(&[id]);
    forget(id);
}

/// Removes the defined event `id` from every instance (where it must be
/// disabled already), `events/` and the catalog; an instance's buffer is
/// cleared if the event was ever enabled there, as the kernel does, since
/// its id will be reused. May sleep.
pub(crate) fn remove(id: u16) {
    let all = crate::instances::list::all().unwrap_or_default();
    super::tree::remove(&[id]);
    for instance in all.iter() {
        if instance.events().forget(instance, &[id]) {
            instance.clear(None);
        }
    }
    forget(id);
}

/// Takes event `id` out of the catalog.
fn forget(id: u16) {
    if let Some(mut catalog) = super::catalog::lock() {
        if let Err(e) = catalog.remove_defined(id) {
            pr_warn!("cannot forget event {id}: {e:?}\n");
        }
    }
}
