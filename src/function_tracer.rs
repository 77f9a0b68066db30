// SPDX-License-Identifier: GPL-2.0

//! The `function` tracer: records a `function` event for every call of the
//! functions an instance's filters select. The function filters, which the
//! function_graph tracer ([`crate::graph`]) shares, are kept here too.
//!
//! While it runs, the instance is a client of the patch engine: the engine
//! calls [`FunctionClient::call`] from the patched sites, and every change
//! of `set_ftrace_filter` or `set_ftrace_notrace` hands the engine a new
//! [`FunctionSelector`], a snapshot of both.

use crate::bindings;
use crate::fentry::{
    self, CallContext, FentryClient, SiteInfo, SiteRef, SiteSelector, UpdateError, UpdateReport,
};
use crate::function_filter::{FilterKind, FilterSet};
use crate::function_probes::FunctionProbes;
use crate::graph::{GraphFilters, GraphSession};
use crate::instance::Instance;
use crate::portable::input::InputError;
use crate::portable::records::function::{function_record, FunctionRecord, TYPE_FUNCTION};
use crate::portable::trace_options;
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};
use kernel::{prelude::*, sync::Arc};

/// The function filters of an instance and whether its function tracer
/// runs; under the instance's function lock.
pub(crate) struct FunctionState {
    /// `set_ftrace_filter`: empty selects every function.
    pub(crate) filter: Arc<FilterSet>,
    /// `set_ftrace_notrace`: wins over the filter.
    pub(crate) notrace: Arc<FilterSet>,
    /// `set_graph_function`: empty traces every call graph.
    pub(crate) graph_functions: Arc<FilterSet>,
    /// `set_graph_notrace`: subtrees the graph tracer leaves out.
    pub(crate) graph_notrace: Arc<FilterSet>,
    /// The engine slot and the client in it, while the function tracer
    /// runs.
    running: Option<(usize, Arc<FunctionClient>)>,
    /// The function_graph tracer, while it runs.
    graph: Option<GraphSession>,
    /// The function probes of `set_ftrace_filter` (`func:traceoff`...).
    pub(crate) probes: FunctionProbes,
}

impl FunctionState {
    /// No filters, not running.
    pub(crate) fn new() -> Result<Self> {
        Ok(FunctionState {
            filter: Arc::new(FilterSet::new(), GFP_KERNEL)?,
            notrace: Arc::new(FilterSet::new(), GFP_KERNEL)?,
            graph_functions: Arc::new(FilterSet::new(), GFP_KERNEL)?,
            graph_notrace: Arc::new(FilterSet::new(), GFP_KERNEL)?,
            running: None,
            graph: None,
            probes: FunctionProbes::new(),
        })
    }

    /// The filter set of `kind`.
    pub(crate) fn set_mut(&mut self, kind: FilterKind) -> &mut Arc<FilterSet> {
        match kind {
            FilterKind::Filter => &mut self.filter,
            FilterKind::Notrace => &mut self.notrace,
            FilterKind::GraphFunction => &mut self.graph_functions,
            FilterKind::GraphNotrace => &mut self.graph_notrace,
        }
    }

    /// The graph tracer's view of `set_graph_function` and
    /// `set_graph_notrace`.
    pub(crate) fn graph_filters(&self) -> GraphFilters {
        GraphFilters {
            functions: self.graph_functions.clone(),
            notrace: self.graph_notrace.clone(),
        }
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
    if state.running.is_some() {
        return Ok(false);
    }
    let engine = fentry::engine().ok_or(InputError::NoDevice)?;
    instance.note_header_cpu();
    let client = FunctionClient {
        instance,
        armed: AtomicBool::new(false),
    };
    let client = Arc::new(client, GFP_KERNEL).map_err(|_| InputError::NoMemory)?;
    let (slot, report) = engine
        .register_disarmed(client.clone(), state.selector()?)
        .map_err(update_error)?;
    // Armed once every site is patched: the patching itself calls traced
    // functions on every CPU, which would otherwise fill the buffer with
    // the text poking of the start (the kernel's `function_enabled`).
    // Sites that call the slot's direct trampoline do not even reach the
    // client until the engine arms it too.
    client.armed.store(true, Relaxed);
    engine.arm(slot);
    state.running = Some((slot, client));
    Ok(skipped(&report))
}

/// Stops the function tracer (or the function_graph tracer) of
/// `instance`: when this returns no CPU records for it any more.
pub(crate) fn stop(state: &mut FunctionState) {
    if let Some((slot, client)) = state.running.take() {
        // Disarmed first: the unpatching records nothing either.
        client.armed.store(false, Relaxed);
        if let Some(engine) = fentry::engine() {
            engine.disarm(slot);
            engine.unregister(slot);
        }
    }
    if let Some(graph) = state.graph.take() {
        graph.stop();
    }
}

/// Starts the function_graph tracer of `instance` on the sites the
/// function filters select, with graph filters `filters`. Returns whether
/// functions had to be left out, as [`start`] does.
pub(crate) fn start_graph(
    instance: &Instance,
    state: &mut FunctionState,
    filters: GraphFilters,
) -> Result<bool, InputError> {
    if state.graph.is_some() {
        return Ok(false);
    }
    let (session, skipped) = GraphSession::start(instance, state.selector()?, filters)?;
    state.graph = Some(session);
    Ok(skipped)
}

/// Hands a running function_graph tracer new `set_graph_function` and
/// `set_graph_notrace` sets (they apply per call: no re-patching).
pub(crate) fn regraph(state: &FunctionState, filters: GraphFilters) -> Result<(), InputError> {
    match &state.graph {
        Some(graph) => graph.set_filters(filters),
        None => Ok(()),
    }
}

/// Re-patches after a change of the function filters, if a tracer runs.
/// On error the sites stay as they were. Returns whether functions were
/// left out, as [`start`] does.
pub(crate) fn refilter(state: &FunctionState) -> Result<bool, InputError> {
    if let Some(graph) = &state.graph {
        return graph.reselect(state.selector()?);
    }
    let (Some((slot, _)), Some(engine)) = (&state.running, fentry::engine()) else {
        return Ok(false);
    };
    let report = engine
        .reselect(*slot, state.selector()?)
        .map_err(update_error)?;
    Ok(skipped(&report))
}

/// Whether tracing every function had to leave out functions the kernel's
/// ftrace already uses.
fn skipped(report: &UpdateReport) -> bool {
    report.skipped_busy > 0
}

/// The user-facing error of an engine refusal.
pub(crate) fn update_error(e: UpdateError) -> InputError {
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
    /// Whether calls are recorded: off while the engine patches the sites
    /// in and out.
    armed: AtomicBool,
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
        _site: &SiteRef<'_>,
        cx: &CallContext<'_>,
    ) {
        if !self.armed.load(Relaxed) {
            return;
        }
        // SAFETY: the instance outlives the registration (the invariant).
        let instance = unsafe { &*self.instance };
        record_call(instance, ip, parent_ip, regs, cx);
    }
}

/// Records a `function` event in `instance`: `ip` (a call site) was
/// called from `parent_ip`, with the registers `regs` at the call; and,
/// with `func_stack_trace`, the kernel stack there. In the dispatcher's
/// context `cx`.
#[inline]
fn record_call(
    instance: &Instance,
    ip: usize,
    parent_ip: usize,
    regs: &bindings::pt_regs,
    cx: &CallContext<'_>,
) {
    if !instance.records_on(cx.cpu) {
        return;
    }
    let header = cx.record_header(TYPE_FUNCTION);
    if !instance.traces_pid(header.pid) {
        return;
    }
    let record = function_record(header, ip as u64, parent_ip as u64);
    if let Some(mut event) = instance.reserve(FunctionRecord::LEN, cx) {
        event.put_words(record.words());
        event.commit();
    }
    if instance.options().has(trace_options::FUNC_STACK_TRACE) {
        instance.record_stack(regs, cx);
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
