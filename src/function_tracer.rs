// SPDX-License-Identifier: GPL-2.0

//! The `function` tracer: records a `function` event for every call of the
//! functions an instance's filters select.
//!
//! While it runs, the instance is a client of the patch engine: the engine
//! calls [`FunctionClient::call`] from the patched sites, and every change
//! of `set_ftrace_filter` or `set_ftrace_notrace` hands the engine a new
//! [`FunctionSelector`], a snapshot of both.

use crate::bindings;
use crate::fentry::{
    self, CallContext, FentryClient, SiteInfo, SiteSelector, UpdateError, UpdateReport,
};
use crate::function_filter::FilterSet;
use crate::instance::Instance;
use crate::portable::input::InputError;
use kernel::{prelude::*, sync::Arc};

/// The function filters of an instance and whether its function tracer
/// runs; under the instance's function lock.
pub(crate) struct FunctionState {
    /// `set_ftrace_filter`: empty selects every function.
    pub(crate) filter: Arc<FilterSet>,
    /// `set_ftrace_notrace`: wins over the filter.
    pub(crate) notrace: Arc<FilterSet>,
    /// The engine slot, while the tracer runs.
    slot: Option<usize>,
}

impl FunctionState {
    /// No filters, not running.
    pub(crate) fn new() -> Result<Self> {
        Ok(FunctionState {
            filter: Arc::new(FilterSet::new(), GFP_KERNEL)?,
            notrace: Arc::new(FilterSet::new(), GFP_KERNEL)?,
            slot: None,
        })
    }

    /// The engine's view of the filters.
    fn selector(&self) -> Result<Arc<dyn SiteSelector>, InputError> {
        let selector = FunctionSelector {
            filter: self.filter.clone(),
            notrace: self.notrace.clone(),
        };
        Ok(Arc::new(selector, GFP_KERNEL).map_err(|_| InputError::NoMemory)?)
    }
}

/// Starts the function tracer of `instance`. Returns whether functions
/// had to be left out because the kernel's ftrace uses them (the caller
/// logs it once it holds no instance lock).
pub(crate) fn start(instance: &Instance, state: &mut FunctionState) -> Result<bool, InputError> {
    if state.slot.is_some() {
        return Ok(false);
    }
    let engine = fentry::engine().ok_or(InputError::NoDevice)?;
    let client = FunctionClient { instance };
    let client = Arc::new(client, GFP_KERNEL).map_err(|_| InputError::NoMemory)?;
    let (slot, report) = engine
        .register(client, state.selector()?)
        .map_err(update_error)?;
    state.slot = Some(slot);
    Ok(skipped(&report))
}

/// Stops the function tracer of `instance`: when this returns no CPU
/// records for it any more.
pub(crate) fn stop(state: &mut FunctionState) {
    if let (Some(slot), Some(engine)) = (state.slot.take(), fentry::engine()) {
        engine.unregister(slot);
    }
}

/// Re-patches after a change of the filters, if the tracer runs. On error
/// the sites stay as they were. Returns whether functions were left out, as
/// [`start`] does.
pub(crate) fn refilter(state: &FunctionState) -> Result<bool, InputError> {
    let (Some(slot), Some(engine)) = (state.slot, fentry::engine()) else {
        return Ok(false);
    };
    let report = engine
        .reselect(slot, state.selector()?)
        .map_err(update_error)?;
    Ok(skipped(&report))
}

/// Whether tracing every function had to leave out functions the kernel's
/// ftrace already uses.
fn skipped(report: &UpdateReport) -> bool {
    report.skipped_busy > 0
}

/// The user-facing error of an engine refusal.
fn update_error(e: UpdateError) -> InputError {
    match e {
        UpdateError::Busy => InputError::FunctionBusy,
        UpdateError::Other(e) if e == ENOMEM => InputError::NoMemory,
        UpdateError::Other(e) if e == ENOSPC => InputError::NoSpace,
        UpdateError::Other(_) => InputError::NoDevice,
    }
}

/// The engine's client for one instance's function tracer.
///
/// # Invariants
///
/// `instance` is alive while the client is registered: the instance stops
/// its tracer (which unregisters the client and waits until no CPU runs it)
/// before it goes.
struct FunctionClient {
    instance: *const Instance,
}

// SAFETY: `Instance` is `Sync`; the pointer is only used to call its
// recording path, which any CPU may run.
unsafe impl Send for FunctionClient {}
// SAFETY: as above.
unsafe impl Sync for FunctionClient {}

impl FentryClient for FunctionClient {
    fn call(
        &self,
        ip: usize,
        parent_ip: usize,
        regs: &mut bindings::pt_regs,
        cx: &CallContext<'_>,
    ) {
        // SAFETY: the instance outlives the registration (the invariant).
        let instance = unsafe { &*self.instance };
        instance.record_function(ip, parent_ip, regs, cx);
    }
}

/// Which sites the function tracer wants: in the filter (or every site if
/// the filter is empty), and not in notrace.
struct FunctionSelector {
    filter: Arc<FilterSet>,
    notrace: Arc<FilterSet>,
}

impl SiteSelector for FunctionSelector {
    fn selects(&self, site: &SiteInfo<'_>) -> bool {
        (self.filter.is_empty() || self.filter.contains(site)) && !self.notrace.contains(site)
    }

    fn explicit(&self) -> bool {
        !self.filter.is_empty()
    }
}
