// SPDX-License-Identifier: GPL-2.0

//! The function_graph tracer of one instance: which calls it hooks, and
//! what it records at their entry and return.
//!
//! Which functions' sites are patched follows `set_ftrace_filter` and
//! `set_ftrace_notrace`, as for the function tracer. `set_graph_function`,
//! `set_graph_notrace` and `max_graph_depth` are applied at each call, as
//! in ftrace: with `set_graph_function` set, a call is traced only inside
//! one of its functions (which the task remembers in its shadow stack's
//! flags until that function returns); a `set_graph_notrace` function is
//! hooked but not recorded, and nothing it calls is traced.

use super::shadow::{Frame, TaskStack, GRAPH_IN_IRQ, IN_GRAPH, MAX_TRACERS, NOTRACE};
use super::stacks::TaskStacks;
use super::{live_stacks, runtime};
use crate::bindings;
use crate::fentry::{self, CallContext, FentryClient, SiteRef, SiteSelector};
use crate::function_filter::FilterSet;
use crate::instance::Instance;
use crate::portable::input::InputError;
use crate::portable::records::graph::{
    graph_entry_record, graph_exit_record, GraphEntryRecord, GraphExit, GraphExitRecord,
    TYPE_GRAPH_ENT, TYPE_GRAPH_RET,
};
use crate::portable::trace_options;
use core::sync::atomic::{
    AtomicPtr,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};
use kernel::{prelude::*, sync::Arc};

extern "C" {
    /// The return trampoline (`arch/x86/fgraph_64.S`); only its address is
    /// used.
    fn rftrace_graph_return_trampoline();
}

/// The running graph tracers' clients, by tracer slot, for the return
/// path; null when the slot's tracer stopped.
static CLIENTS: [AtomicPtr<GraphClient>; MAX_TRACERS] =
    [const { AtomicPtr::new(core::ptr::null_mut()) }; MAX_TRACERS];

/// Where hooked calls return to: the return trampoline.
#[inline]
pub(super) fn trampoline() -> usize {
    rftrace_graph_return_trampoline as *const () as usize
}

/// Whether the tracer run that hooked `frame` still runs. Preemption or
/// interrupts off: a stopped tracer's client is freed only after a grace
/// period.
#[inline]
pub(super) fn hooked_by_running_tracer(frame: &Frame) -> bool {
    if frame.tracer == super::returns::RETURN_HOOK_TRACER {
        return super::returns::hooked_by_running_hook(frame);
    }
    let client = CLIENTS
        .get(usize::from(frame.tracer))
        .map_or(core::ptr::null_mut(), |c| c.load(Acquire));
    // SAFETY: listed clients are alive until a grace period after they
    // are unlisted; the caller holds one off.
    !client.is_null() && unsafe { (*client).generation } == frame.generation
}

/// `set_graph_function` and `set_graph_notrace`, as one snapshot.
pub(crate) struct GraphFilters {
    pub(crate) functions: Arc<FilterSet>,
    pub(crate) notrace: Arc<FilterSet>,
}

/// A running function_graph tracer: its engine slot, its tracer slot
/// and its client.
pub(crate) struct GraphSession {
    client: Arc<GraphClient>,
    engine_slot: usize,
    /// The shadow stacks' counters of calls left unhooked, at the start.
    unhooked_at_start: Unhooked,
}

/// Calls not hooked, by reason.
#[derive(Clone, Copy, Default)]
struct Unhooked {
    no_stack: u64,
    full: u64,
}

impl Unhooked {
    /// The counters of `stacks` now.
    fn of(stacks: &TaskStacks) -> Self {
        Unhooked {
            no_stack: stacks.no_stack.load(Relaxed),
            full: stacks.full.load(Relaxed),
        }
    }
}

impl GraphSession {
    /// Starts the function_graph tracer of `instance`, hooking the sites
    /// `selector` selects, with `filters` applied at each call. Returns
    /// the session and whether functions the kernel's ftrace uses had to
    /// be left out.
    pub(crate) fn start(
        instance: &Instance,
        selector: Arc<dyn SiteSelector>,
        filters: GraphFilters,
    ) -> Result<(Self, bool), InputError> {
        let engine = fentry::engine().ok_or(InputError::NoDevice)?;
        let runtime = runtime().ok_or(InputError::NoDevice)?;
        let filters = KBox::new(filters, GFP_KERNEL).map_err(|_| InputError::NoMemory)?;
        let grant = runtime.take_slot().map_err(|e| {
            if e == EBUSY {
                InputError::TooManyGraphTracers
            } else {
                InputError::NoMemory
            }
        })?;
        let slot = grant.slot;
        let client = GraphClient {
            instance,
            slot,
            generation: grant.generation,
            stacks: grant.stacks,
            filters: AtomicPtr::new(KBox::into_raw(filters)),
        };
        let client = match Arc::new(client, GFP_KERNEL) {
            Ok(client) => client,
            Err(_) => {
                runtime.release_slot(slot);
                return Err(InputError::NoMemory);
            }
        };
        CLIENTS[usize::from(slot)].store(Arc::as_ptr(&client).cast_mut(), Release);
        match engine.register(client.clone(), selector) {
            Ok((engine_slot, report)) => {
                let unhooked_at_start = Unhooked::of(&client.stacks);
                let session = GraphSession {
                    client,
                    engine_slot,
                    unhooked_at_start,
                };
                Ok((session, report.skipped_busy > 0))
            }
            Err(e) => {
                CLIENTS[usize::from(slot)].store(core::ptr::null_mut(), Release);
                runtime.release_slot(slot);
                Err(crate::function_tracer::update_error(e))
            }
        }
    }

    /// Stops the tracer: when this returns, no CPU records for it any
    /// more. Calls it hooked in sleeping tasks are given back; those of
    /// running tasks return through the trampoline, unrecorded.
    pub(crate) fn stop(self) {
        let slot = self.client.slot;
        CLIENTS[usize::from(slot)].store(core::ptr::null_mut(), Release);
        if let Some(engine) = fentry::engine() {
            // Waits until no CPU runs the client, on entry or return.
            engine.unregister(self.engine_slot);
        }
        if let Some(runtime) = runtime() {
            runtime.release_slot(slot);
        }
        self.report_unhooked();
    }

    /// Says in the kernel log how many calls went untraced while the tracer
    /// ran because their task had no shadow stack, or a full one. (The
    /// counters are shared by all instances' graph tracers.)
    fn report_unhooked(&self) {
        let (start, now) = (self.unhooked_at_start, Unhooked::of(&self.client.stacks));
        let no_stack = now.no_stack.wrapping_sub(start.no_stack);
        let full = now.full.wrapping_sub(start.full);
        if no_stack > 0 || full > 0 {
            pr_info!(
                "function_graph left {} calls untraced: {} of tasks without a shadow stack, {} with a full one\n",
                no_stack + full,
                no_stack,
                full
            );
        }
    }

    /// Re-patches for new function filters.
    pub(crate) fn reselect(&self, selector: Arc<dyn SiteSelector>) -> Result<bool, InputError> {
        let engine = fentry::engine().ok_or(InputError::NoDevice)?;
        let report = engine
            .reselect(self.engine_slot, selector)
            .map_err(crate::function_tracer::update_error)?;
        Ok(report.skipped_busy > 0)
    }

    /// Applies new `set_graph_function` / `set_graph_notrace` sets from the
    /// next call on. Process context.
    pub(crate) fn set_filters(&self, filters: GraphFilters) -> Result<(), InputError> {
        let new = KBox::into_raw(KBox::new(filters, GFP_KERNEL).map_err(|_| InputError::NoMemory)?);
        let old = self.client.filters.swap(new, AcqRel);
        // SAFETY: the entry path reads the filters with preemption off;
        // after a grace period none holds the old ones.
        unsafe { bindings::synchronize_rcu() };
        // SAFETY: made by `KBox::into_raw` and no longer reachable.
        drop(unsafe { KBox::from_raw(old) });
        Ok(())
    }
}

/// The engine's client for one instance's function_graph tracer.
///
/// # Invariants
///
/// `instance` is alive while the client is registered or listed in
/// `CLIENTS` (the instance stops its tracer before it goes, and stopping
/// unlists and unregisters the client and waits until no CPU runs it).
/// `filters` always points at a live `GraphFilters` from `KBox::into_raw`.
struct GraphClient {
    instance: *const Instance,
    slot: u8,
    generation: u32,
    stacks: Arc<TaskStacks>,
    filters: AtomicPtr<GraphFilters>,
}

// SAFETY: `Instance` is `Sync`; the pointers are only used from the
// recording paths, which any CPU may run.
unsafe impl Send for GraphClient {}
// SAFETY: as above.
unsafe impl Sync for GraphClient {}

impl Drop for GraphClient {
    fn drop(&mut self) {
        // SAFETY: the invariant; nothing reads the filters once the client
        // is unregistered.
        drop(unsafe { KBox::from_raw(self.filters.load(Relaxed)) });
    }
}

/// Why a call is hooked.
enum Hook {
    /// A traced call: record entry and return.
    Traced { starts_graph: bool, in_irq: bool },
    /// A `set_graph_notrace` function: hooked only to end the untraced
    /// subtree at its return.
    Notrace,
}

impl GraphClient {
    /// The instance.
    fn instance(&self) -> &Instance {
        // SAFETY: the type invariant.
        unsafe { &*self.instance }
    }

    /// Whether and why to hook a call of `site`, the task's flags being
    /// `flags` (the order of ftrace's checks).
    #[inline]
    fn decide(&self, flags: u32, site: &SiteRef<'_>, cx: &CallContext<'_>) -> Option<Hook> {
        if flags & NOTRACE != 0 {
            return None;
        }
        let instance = self.instance();
        if !instance.traces_pid(crate::cpu_local::current_pid()) {
            return None;
        }
        // SAFETY: the invariant; preemption is off (`cx`), so the filters
        // read here are not freed before this call returns.
        let filters = unsafe { &*self.filters.load(Acquire) };
        if !filters.notrace.is_empty()
            && site
                .info()
                .is_some_and(|info| filters.notrace.contains(&info))
        {
            return Some(Hook::Notrace);
        }
        let in_graph = flags & IN_GRAPH != 0;
        let starts_graph = !in_graph
            && !filters.functions.is_empty()
            && site
                .info()
                .is_some_and(|info| filters.functions.contains(&info));
        if !(in_graph || starts_graph || filters.functions.is_empty()) {
            return None;
        }
        let in_irq = cx.preempt_count & bindings::RFT_HARDIRQ_MASK != 0;
        // A graph function entered in an interrupt is traced whole even
        // without `funcgraph-irqs`.
        let irq_graph = if starts_graph {
            in_irq
        } else {
            flags & GRAPH_IN_IRQ != 0
        };
        if in_irq && !irq_graph && !instance.options().has(trace_options::FUNCGRAPH_IRQS) {
            return None;
        }
        Some(Hook::Traced {
            starts_graph,
            in_irq,
        })
    }

    /// Pushes a frame for the call whose return address is at `regs.sp`
    /// and points that return at the trampoline. Returns the call's
    /// level, or `None` when the task's stack is full.
    #[inline]
    fn hook(
        &self,
        (stack, cx): (&TaskStack, &CallContext<'_>),
        regs: &bindings::pt_regs,
        func: usize,
        role: u8,
        calltime: u64,
    ) -> Option<usize> {
        let slot = regs.sp;
        // SAFETY: the entry trampoline set `sp` to the stack slot that
        // holds the traced function's return address.
        let ret = unsafe { core::ptr::read(slot as *const usize) };
        let frame = Frame {
            ret,
            slot,
            func,
            calltime,
            slept: stack.slept(),
            tracer: self.slot,
            generation: self.generation,
            role,
            ..Frame::default()
        };
        let Some(level) = stack.push(frame, &cx.hooked_level) else {
            self.stacks.full.fetch_add(1, Relaxed);
            return None;
        };
        self.stacks.hooked();
        // SAFETY: as above; the frame now holds the real return address,
        // which the trampoline gets back from `rftrace_graph_return`.
        unsafe { core::ptr::write(slot as *mut usize, trampoline()) };
        Some(level)
    }

    /// The return of a call this client hooked, `frame`: ends the
    /// subtree the call began, if any. Always runs, so that the task's
    /// flags stay right even when the return cannot be recorded.
    #[inline]
    fn end_frame(&self, stack: &TaskStack, frame: &Frame) {
        if frame.role & Frame::ENDS_NOTRACE != 0 {
            stack.set_flags(self.slot, self.generation, NOTRACE, false);
        }
        if frame.role & Frame::ENDS_GRAPH != 0 {
            stack.set_flags(self.slot, self.generation, IN_GRAPH | GRAPH_IN_IRQ, false);
        }
    }

    /// Records the return of the call of `frame`, popped from `stack`,
    /// with `retval`. Without `sleep-time`, the time the task spent
    /// scheduled out during the call is left out of its duration (the call
    /// time moves forward by it).
    fn record_return(&self, stack: &TaskStack, frame: &Frame, retval: usize, cx: &CallContext<'_>) {
        if frame.role & Frame::RECORD == 0 {
            return;
        }
        let instance = self.instance();
        let rettime = instance.now();
        let calltime = if instance.options().has(trace_options::SLEEP_TIME) {
            frame.calltime
        } else {
            let slept = stack.slept().wrapping_sub(frame.slept);
            frame.calltime.saturating_add(slept).min(rettime)
        };
        let exit = GraphExit {
            func: frame.func as u64,
            retval: retval as u64,
            depth: u32::from(frame.level),
            overrun: 0,
            calltime,
            rettime,
        };
        record_exit(instance, &exit, cx);
    }
}

/// Records a `funcgraph_entry` event in `instance`: the call of `func` at
/// `depth`. In the dispatcher's context `cx`, with recording on.
#[inline]
fn record_entry(instance: &Instance, func: u64, depth: u64, cx: &CallContext<'_>) {
    let record = graph_entry_record(cx.record_header(TYPE_GRAPH_ENT), func, depth);
    if let Some(mut event) = instance.reserve(GraphEntryRecord::LEN, cx) {
        event.put_words(record.words());
        event.commit();
    }
}

/// Records a `funcgraph_exit` event in `instance`, from the return path
/// in its context `cx`, unless recording is off.
#[inline]
fn record_exit(instance: &Instance, exit: &GraphExit, cx: &CallContext<'_>) {
    if !instance.records_on(cx.cpu) {
        return;
    }
    let record = graph_exit_record(cx.record_header(TYPE_GRAPH_RET), exit);
    if let Some(mut event) = instance.reserve(GraphExitRecord::LEN, cx) {
        event.put_words(record.words());
        event.commit();
    }
}

impl FentryClient for GraphClient {
    fn call(
        &self,
        ip: usize,
        _parent_ip: usize,
        regs: &mut bindings::pt_regs,
        site: &SiteRef<'_>,
        cx: &CallContext<'_>,
    ) {
        let Some(stack) = self.stacks.current(cx.cpu) else {
            self.stacks.no_stack.fetch_add(1, Relaxed);
            return;
        };
        let flags = stack.flags(self.slot, self.generation);
        match self.decide(flags, site, cx) {
            None => {}
            Some(Hook::Notrace) => {
                if self
                    .hook((stack, cx), regs, ip, Frame::ENDS_NOTRACE, 0)
                    .is_some()
                {
                    stack.set_flags(self.slot, self.generation, NOTRACE, true);
                }
            }
            Some(Hook::Traced {
                starts_graph,
                in_irq,
            }) => {
                let instance = self.instance();
                let level = stack.level_of(cx.hooked_level.get());
                let max = instance.max_graph_depth();
                if max != 0 && level >= max as usize {
                    return;
                }
                if !instance.records_on(cx.cpu) {
                    return;
                }
                let role = if starts_graph {
                    Frame::RECORD | Frame::ENDS_GRAPH
                } else {
                    Frame::RECORD
                };
                let Some(level) = self.hook((stack, cx), regs, ip, role, instance.now()) else {
                    return;
                };
                if starts_graph {
                    let bits = if in_irq {
                        IN_GRAPH | GRAPH_IN_IRQ
                    } else {
                        IN_GRAPH
                    };
                    stack.set_flags(self.slot, self.generation, bits, true);
                }
                record_entry(instance, ip as u64, level as u64, cx);
            }
        }
    }
}

/// Called by the return trampoline with the stack pointer after the
/// traced function's `ret` and its return value (`%rax`, then `%rdx`,
/// which the trampoline leaves as the function did); returns where the
/// call really returns to.
///
/// # Safety
///
/// Called only by `rftrace_graph_return_trampoline`, which is reached only
/// through a return address that a graph client put in place.
#[no_mangle]
pub(crate) unsafe extern "C" fn rftrace_graph_return(
    slot_end: usize,
    retval: usize,
    retval_high: usize,
) -> usize {
    let _preempt_off = crate::ring_buffer::NoPreempt::new();
    let cpu = crate::cpu_local::processor_id();
    let popped = live_stacks().and_then(|stacks| {
        let stack = stacks.current(cpu)?;
        let (frame, depth, skipped) = stack.pop(slot_end)?;
        Some((stacks, stack, frame, depth, skipped))
    });
    let Some((stacks, stack, frame, depth, skipped)) = popped else {
        lost_return(
            slot_end,
            live_stacks().and_then(|stacks| stacks.current(cpu)),
        )
    };
    if skipped > 0 {
        stacks.abandoned.fetch_add(skipped as u64, Relaxed);
        stacks.returned(skipped as isize);
    }
    if frame.tracer == super::returns::RETURN_HOOK_TRACER {
        let ret = super::returns::returned(stack, &frame, depth, slot_end, [retval, retval_high]);
        stack.release(depth, &frame);
        stacks.returned(1);
        return ret;
    }
    let client = CLIENTS
        .get(usize::from(frame.tracer))
        .map_or(core::ptr::null_mut(), |c| c.load(Acquire));
    if !client.is_null() {
        // SAFETY: listed clients are alive until a grace period after
        // they are unlisted; preemption is off.
        let client = unsafe { &*client };
        if client.generation == frame.generation {
            client.end_frame(stack, &frame);
            // Unrecorded when this context is already inside the engine.
            let _ = fentry::guarded(|cx| client.record_return(stack, &frame, retval, cx));
        }
    }
    stack.release(depth, &frame);
    stacks.returned(1);
    frame.ret
}

/// A return through the trampoline with no frame to go back to: the
/// shadow stacks no longer match the real one. There is nowhere correct
/// to return to, so this stops the kernel, as ftrace does in this case.
/// The kernel log gets the frames the task has, for the report.
#[cold]
fn lost_return(slot_end: usize, stack: Option<&TaskStack>) -> ! {
    if let Some(stack) = stack {
        stack.report();
    }
    panic!("rftrace: function_graph return without a shadow frame (sp {slot_end:#x})");
}
