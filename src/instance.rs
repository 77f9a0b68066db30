// SPDX-License-Identifier: GPL-2.0

//! Trace instances: the state behind one tracing directory.
//!
//! The top level of rftracefs is an instance, and so is every directory
//! made under `instances/` (see [`crate::instances`] for the list of them
//! and their life). Each has its own switch, options, tracer, filters,
//! events, buffers, CPU mask and error log.

use crate::bindings;
use crate::events::state::EventStates;
use crate::fentry::{CallContext, SiteTable};
use crate::full_waiters::FullWaiters;
use crate::function_filter::{FilterKind, FilterSet};
use crate::function_probes::ProbeEntry;
use crate::function_tracer::{self, FunctionState};
use crate::graph::GraphFilters;
use crate::pid_filter::{ForkFollower, PidFilters};
use crate::portable::records::stack::TYPE_KERNEL_STACK;
use crate::portable::{
    cpumask::{self, CpuMask},
    error_log::ErrorLog,
    func_filter::FilterCommand,
    function_probes::ProbeSpec,
    input::InputError,
    output::{self, EntryHeader},
    records,
    trace_clock::TraceClock,
    trace_options::{self, OptionSet, TraceOption},
};
use crate::ring_buffer::{self, NoPreempt, Reserved, TraceBuffer};
use crate::stack_trace::KernelStack;
use crate::task_info::{TaskInfo, TaskUse};
use crate::tracer::{self, Tracer};
use crate::wait::WaitQueue;
use core::fmt;
use core::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed, SeqCst},
};
use kernel::{
    new_mutex,
    prelude::*,
    str::{CStr, CString},
    sync::{Arc, LockClassKey, Mutex},
};

/// The bit of [`Instance::users`] set once `rmdir` removed the instance.
const REMOVED: u32 = 1 << 31;

/// The settings of an instance that are changed only by writes to its files.
struct Control {
    tracer: &'static Tracer,
    cpumask: CpuMask,
    errors: KBox<ErrorLog>,
    /// The fork and exit probes of `function-fork`, while it is on.
    function_fork: Option<ForkFollower>,
    /// The fork and exit probes of `event-fork`, while it is on.
    event_fork: Option<ForkFollower>,
}

/// One trace instance.
///
/// # Invariants
///
/// `options` and `tracing_on` are read without locks (the recording path
/// will test them); `options` is only written with `control` held, so that
/// a read-modify-write of its bits is never lost. `tracing_on` is written
/// with `control` held too, except by the `traceon` and `traceoff` function
/// probes ([`Instance::switch_tracing`]), whose plain store loses nothing.
///
/// # Lock order
///
/// `control` is taken only by writes to and reads of control files, then
/// possibly `functions` (then the patch engine's locks), or `spare`, then
/// `buffer` (never both of these at once); `functions` is never held while
/// taking `control`; `tasks` (see [`TaskInfo`]) after `control` or `events`.
///
/// An instance of `instances/` takes its `functions` lock before the top
/// level's (which holds its graph filters).
///
/// `users` counts the open files of the instance; once `rmdir` has set
/// its [`REMOVED`] bit (possible only while it is zero), no file opens
/// any more.
///
/// The buffer is swapped when resized: `buffer` owns the current one and
/// hands references to readers; `live` points at the same buffer for
/// writers, who use it with preemption off and no lock. A replaced buffer
/// is released only after an RCU grace period, when no writer can still be
/// using it.
#[pin_data(PinnedDrop)]
pub(crate) struct Instance {
    /// The directory's name under `instances/`; `None` for the top level.
    name: Option<CString>,
    /// For an instance of `instances/`, the top level: its
    /// `set_graph_function`, `set_graph_notrace` and `max_graph_depth`
    /// apply here too (they are global in the kernel).
    top: Option<Arc<Instance>>,
    /// Open files, and [`REMOVED`].
    users: AtomicU32,
    tracing_on: AtomicBool,
    /// The CPU the `latency-format` header names: where the function
    /// tracer last started (the kernel's `array_buffer.cpu`).
    header_cpu: AtomicU32,
    /// Readers of `trace` holding recording off (`pause-on-trace`); it
    /// does not change what `tracing_on` shows, as in ftrace.
    paused: AtomicU32,
    options: AtomicU64,
    /// Index of the trace clock in `trace_clock::ALL`.
    clock: AtomicU32,
    /// The `counter` clock's value.
    counter: AtomicU64,
    /// What `print` records name as their origin: the kernel's own
    /// `tracing_mark_write`, so that they print (and trace-cmd shows them)
    /// as ftrace's markers do; 0 when it cannot be found.
    marker_ip: u64,
    live: AtomicPtr<TraceBuffer>,
    #[pin]
    buffer: Mutex<Arc<TraceBuffer>>,
    /// The snapshot buffer, when allocated.
    #[pin]
    spare: Mutex<Option<Arc<TraceBuffer>>>,
    /// The names and thread groups of the tasks in the records: the top
    /// level's, which every instance shares, as the kernel's.
    tasks: Arc<TaskInfo>,
    /// What this instance asks of `tasks`.
    task_use: TaskUse,
    #[pin]
    readers: WaitQueue,
    /// Readers of `trace_pipe_raw` waiting for a ring to fill, and
    /// `buffer_percent`.
    #[pin]
    full_readers: FullWaiters,
    #[pin]
    control: Mutex<Control>,
    /// The function filters and the function tracer's engine slot.
    #[pin]
    functions: Mutex<FunctionState>,
    /// `set_ftrace_pid` and `set_ftrace_notrace_pid`.
    function_pids: PidFilters,
    /// `set_event_pid` and `set_event_notrace_pid`.
    event_pids: PidFilters,
    /// `tracing_cpumask` for the recording path: a copy of the control
    /// state's mask, one bit per CPU.
    traced_cpus: [AtomicU64; cpumask::WORDS],
    /// `max_graph_depth`: 0 for no limit.
    max_graph_depth: AtomicU32,
    /// The kernel events this instance records.
    #[pin]
    events: Mutex<EventStates>,
}

impl Instance {
    /// Creates the top-level instance, in its initial state: tracing on,
    /// the `nop` tracer, default options, every possible CPU traced.
    pub(crate) fn new_top() -> Result<Arc<Self>> {
        Self::new(None, None, OptionSet::defaults())
    }

    /// Creates instance `name` of `instances/`, as the kernel makes one:
    /// the top level's general options (see
    /// [`OptionSet::for_new_instance`]), otherwise as a new top level.
    pub(crate) fn new_named(name: CString, top: Arc<Instance>) -> Result<Arc<Self>> {
        let options = OptionSet::for_new_instance(top.options());
        Self::new(Some(name), Some(top), options)
    }

    fn new(
        name: Option<CString>,
        top: Option<Arc<Instance>>,
        options: OptionSet,
    ) -> Result<Arc<Self>> {
        let is_top = top.is_none();
        // Allocated first and filled from the constant: built on the stack
        // and moved, the log (5 KB) took two thirds of a module load's stack.
        let errors = KBox::write(KBox::new_uninit(GFP_KERNEL)?, ErrorLog::EMPTY);
        let tasks = match &top {
            Some(top) => top.tasks.clone(),
            None => Arc::pin_init(TaskInfo::new(nr_cpu_ids(), options)?, GFP_KERNEL)?,
        };
        let task_use = TaskUse::new(options);
        let mut pages = KVec::new();
        for _ in 0..nr_cpu_ids() {
            pages.push(
                ring_buffer::pages_for(ring_buffer::DEFAULT_SIZE),
                GFP_KERNEL,
            )?;
        }
        let overwrite = options.has(trace_options::OVERWRITE);
        let buffer = Arc::new(TraceBuffer::new(&pages, overwrite)?, GFP_KERNEL)?;
        buffer.set_time_start(local_clock_ns());
        let functions = FunctionState::new()?;
        let events = EventStates::new()?;
        let function_pids = PidFilters::new()?;
        let event_pids = PidFilters::new()?;
        let cpus = CpuMask::first(nr_cpu_ids());
        // A strong reference for `live`, given back in `drop`.
        let live = Arc::into_raw(buffer.clone()).cast_mut();
        Arc::pin_init(
            pin_init!(Self {
                name,
                top,
                users: AtomicU32::new(0),
                tracing_on: AtomicBool::new(true),
                header_cpu: AtomicU32::new(0),
                paused: AtomicU32::new(0),
                options: AtomicU64::new(options.0),
                clock: AtomicU32::new(u32::from(TraceClock::Local.index())),
                counter: AtomicU64::new(0),
                marker_ip: crate::symbols::address_of(kernel::c_str!("tracing_mark_write"))
                    .map_or(0, |a| a as u64),
                live: AtomicPtr::new(live),
                buffer <- new_mutex!(buffer),
                spare <- new_mutex!(None),
                tasks,
                task_use,
                readers <- WaitQueue::new(),
                full_readers <- FullWaiters::new(),
                control <- new_mutex!(Control {
                    tracer: &tracer::NOP,
                    cpumask: cpus,
                    errors,
                    function_fork: None,
                    event_fork: None,
                }),
                function_pids,
                event_pids,
                // Two lock classes: an instance of `instances/` takes its
                // own `functions`, then the top level's.
                functions <- Mutex::new(
                    functions,
                    kernel::c_str!("Instance::functions"),
                    if is_top {
                        top_functions_class()
                    } else {
                        instance_functions_class()
                    },
                ),
                traced_cpus: core::array::from_fn(|i| AtomicU64::new(cpus.words().get(i).copied().unwrap_or(0))),
                max_graph_depth: AtomicU32::new(0),
                events <- new_mutex!(events),
            }),
            GFP_KERNEL,
        )
    }

    /// The name under `instances/`; `None` for the top level.
    pub(crate) fn name(&self) -> Option<&CStr> {
        self.name.as_deref()
    }

    /// Whether this is the top level.
    pub(crate) fn is_top(&self) -> bool {
        self.name.is_none()
    }

    /// Counts a file of the instance being opened; `ENODEV` once the
    /// instance was removed. Each success is paired with
    /// [`Self::close_file`].
    pub(crate) fn open_file(&self) -> Result {
        self.users
            .fetch_update(AcqRel, Acquire, |users| {
                (users & REMOVED == 0).then_some(users + 1)
            })
            .map(|_| ())
            .map_err(|_| ENODEV)
    }

    /// Counts a file of the instance closed.
    pub(crate) fn close_file(&self) {
        self.users.fetch_sub(1, AcqRel);
    }

    /// Marks the instance removed, so that none of its files opens any
    /// more; `EBUSY` while one is open, as the kernel refuses to remove
    /// an instance in use.
    pub(crate) fn mark_removed(&self) -> Result {
        self.users
            .compare_exchange(0, REMOVED, AcqRel, Acquire)
            .map(|_| ())
            .map_err(|_| EBUSY)
    }

    /// Stops everything that calls into the instance: its events, its
    /// tracer, the fork followers and the task name probes. What the
    /// kernel's removal of an instance does before freeing it; the
    /// instance stays usable (for `Drop`, which does it again).
    pub(crate) fn shut_down(&self) {
        self.functions.lock().probes.clear(self);
        self.events.lock().release_all(self);
        let mut control = self.control.lock();
        self.stop_tracer(control.tracer.kind);
        control.tracer = &tracer::NOP;
        control.function_fork = None;
        control.event_fork = None;
        drop(control);
        self.tasks.release(&self.task_use);
        if self.top.is_none() {
            self.tasks.stop();
        }
    }

    /// Whether events are being recorded (`tracing_on`).
    #[inline]
    pub(crate) fn tracing_on(&self) -> bool {
        self.tracing_on.load(Relaxed)
    }

    /// The CPU the `latency-format` header names.
    pub(crate) fn header_cpu(&self) -> u32 {
        self.header_cpu.load(Relaxed)
    }

    /// Notes the CPU this runs on as the one the `latency-format` header
    /// names, as the kernel's function tracer does when it starts.
    pub(crate) fn note_header_cpu(&self) {
        self.header_cpu
            .store(crate::cpu_local::processor_id() as u32, Relaxed);
    }

    /// Starts or stops recording.
    pub(crate) fn set_tracing_on(&self, on: bool) {
        let _control = self.control.lock();
        self.tracing_on.store(on, Relaxed);
    }

    /// Starts or stops recording from a traced call (the `traceon` and
    /// `traceoff` function probes): a plain store, as the kernel's
    /// `tracer_tracing_on` and `_off`.
    #[inline]
    pub(crate) fn switch_tracing(&self, on: bool) {
        self.tracing_on.store(on, Relaxed);
    }

    /// The current general options.
    #[inline]
    pub(crate) fn options(&self) -> OptionSet {
        OptionSet(self.options.load(Relaxed))
    }

    /// Turns one general option on or off.
    pub(crate) fn set_option(&self, option: TraceOption, on: bool) -> Result<(), InputError> {
        let mut control = self.control.lock();
        if option == trace_options::FUNCTION_FORK {
            // SAFETY: the follower is dropped with the control state, in
            // the instance's drop, before the pid filters go.
            unsafe { follow_forks(&mut control.function_fork, &self.function_pids, on)? };
        } else if option == trace_options::EVENT_FORK {
            // SAFETY: as above.
            unsafe { follow_forks(&mut control.event_fork, &self.event_pids, on)? };
        }
        if option == trace_options::RECORD_TGID && on {
            self.tasks.keep_tgids().map_err(|_| InputError::NoMemory)?;
        }
        self.options
            .store(self.options().with(option, on).0, Relaxed);
        if option == trace_options::RECORD_CMD && self.top.is_none() {
            self.tasks.set_record_cmd(&self.task_use, on);
        }
        if option == trace_options::RECORD_TGID {
            self.tasks.set_record_tgid(&self.task_use, on);
        }
        if option == trace_options::OVERWRITE {
            if let Some(spare) = self.spare.lock().as_ref() {
                spare.set_overwrite(on);
            }
            self.buffer.lock().set_overwrite(on);
        }
        Ok(())
    }

    /// The clock that times events.
    #[inline]
    pub(crate) fn clock(&self) -> TraceClock {
        TraceClock::from_index(self.clock.load(Relaxed) as u8)
    }

    /// Switches the trace clock. As in ftrace, the buffer is emptied: times
    /// of different clocks do not compare.
    pub(crate) fn set_clock(&self, clock: TraceClock) {
        let _control = self.control.lock();
        self.clock.store(u32::from(clock.index()), Relaxed);
        reset(&self.buffer(), None, self.start_time());
    }

    /// The time now on the trace clock.
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        // The default clock without the dispatch over all of them.
        if self.clock.load(Relaxed) == u32::from(TraceClock::Local.index()) {
            // SAFETY: the clock may be read from any context.
            return unsafe { bindings::trace_clock_local() };
        }
        self.now_other()
    }

    /// [`Self::now`] for any clock.
    #[inline(never)]
    fn now_other(&self) -> u64 {
        // SAFETY: the clock functions may be called from any context.
        unsafe {
            match self.clock() {
                TraceClock::Local => bindings::trace_clock_local(),
                TraceClock::Global => bindings::trace_clock_global(),
                TraceClock::Counter => self.counter.fetch_add(1, Relaxed),
                TraceClock::Uptime => bindings::trace_clock_jiffies(),
                TraceClock::Perf => bindings::trace_clock(),
                TraceClock::Mono => bindings::ktime_get_mono_fast_ns(),
                TraceClock::MonoRaw => bindings::ktime_get_raw_fast_ns(),
                TraceClock::Boot => bindings::ktime_get_boot_fast_ns(),
                TraceClock::Tai => bindings::ktime_get_tai_fast_ns(),
                TraceClock::X86Tsc => bindings::rft_rdtsc_ordered(),
            }
        }
    }

    /// The time now on the trace clock, for a buffer's start: as
    /// [`Self::now`], but without counting a `counter` tick.
    fn start_time(&self) -> u64 {
        match self.clock() {
            TraceClock::Counter => self.counter.load(Relaxed),
            _ => self.now(),
        }
    }

    /// The current trace buffer, for readers.
    pub(crate) fn buffer(&self) -> Arc<TraceBuffer> {
        self.buffer.lock().clone()
    }

    /// Runs `f` on the current buffer with preemption off, without locks:
    /// the writers' way to it, usable in any context.
    pub(crate) fn with_live_buffer<R>(&self, f: impl FnOnce(&TraceBuffer, &NoPreempt) -> R) -> R {
        let preempt_off = NoPreempt::new();
        // SAFETY: `live` always points at a buffer the instance holds a
        // reference on, released only a grace period after it is replaced;
        // with preemption off this is within one such period.
        let buffer = unsafe { &*self.live.load(Acquire) };
        f(buffer, &preempt_off)
    }

    /// Replaces the buffer by one with `pages[cpu]` pages per CPU. The old
    /// contents are dropped; on failure the old buffer stays as it was.
    pub(crate) fn resize(&self, pages: &[usize]) -> Result {
        let _control = self.control.lock();
        let overwrite = self.options().has(trace_options::OVERWRITE);
        let new = Arc::new(TraceBuffer::new(pages, overwrite)?, GFP_KERNEL)?;
        new.set_time_start(self.start_time());
        // An allocated snapshot buffer follows the main buffer's sizes.
        let mut spare = self.spare.lock();
        if spare.is_some() {
            let new_spare = Arc::new(TraceBuffer::new(pages, overwrite)?, GFP_KERNEL)?;
            new_spare.set_time_start(self.start_time());
            *spare = Some(new_spare);
        }
        drop(spare);
        drop(self.replace_buffer(new));
        Ok(())
    }

    /// Makes `new` the buffer writers and new readers use, and returns the
    /// one it replaces once no writer can be using that one any more.
    fn replace_buffer(&self, new: Arc<TraceBuffer>) -> Arc<TraceBuffer> {
        let new_live = Arc::into_raw(new.clone()).cast_mut();
        let old = core::mem::replace(&mut *self.buffer.lock(), new);
        let old_live = self.live.swap(new_live, SeqCst);
        // SAFETY: writers use `live` with preemption off; after a grace
        // period none can still hold the old pointer.
        unsafe { bindings::synchronize_rcu() };
        // SAFETY: `old_live` came from `Arc::into_raw` and nobody uses it.
        drop(unsafe { Arc::from_raw(old_live) });
        old
    }

    /// The snapshot buffer, if allocated.
    pub(crate) fn snapshot(&self) -> Option<Arc<TraceBuffer>> {
        self.spare.lock().clone()
    }

    /// `echo 1 > snapshot`: allocates the snapshot buffer if needed and
    /// swaps it with the main buffer, which goes on with what the snapshot
    /// held (nothing, when just allocated), as in ftrace. With `cpu`
    /// (`echo 1 > per_cpu/cpuN/snapshot`) only that CPU's ring is swapped.
    pub(crate) fn take_snapshot(&self, cpu: Option<usize>) -> Result {
        let _control = self.control.lock();
        let overwrite = self.options().has(trace_options::OVERWRITE);
        let spare = match self.spare.lock().take() {
            Some(spare) => spare,
            None => {
                let pages = self.buffer.lock().pages_vec()?;
                let spare = Arc::new(TraceBuffer::new(&pages, overwrite)?, GFP_KERNEL)?;
                spare.set_time_start(self.start_time());
                spare
            }
        };
        let (live, spare) = match cpu {
            None => (spare, None),
            Some(cpu) => match Self::swap_ring(&self.buffer(), &spare, cpu) {
                Ok((live, spare_after)) => (live, Some(spare_after)),
                Err(e) => {
                    // The snapshot buffer stays as it was.
                    *self.spare.lock() = Some(spare);
                    return Err(e);
                }
            },
        };
        // A swap, as the kernel's: what the snapshot held comes back live.
        live.set_overwrite(overwrite);
        let old = self.replace_buffer(live);
        *self.spare.lock() = Some(spare.unwrap_or(old));
        Ok(())
    }

    /// New main and snapshot buffers, with the rings of `cpu` traded.
    fn swap_ring(
        main: &TraceBuffer,
        spare: &TraceBuffer,
        cpu: usize,
    ) -> Result<(Arc<TraceBuffer>, Arc<TraceBuffer>)> {
        let live = Arc::new(main.with_ring_of(spare, cpu)?, GFP_KERNEL)?;
        let spare = Arc::new(spare.with_ring_of(main, cpu)?, GFP_KERNEL)?;
        Ok((live, spare))
    }

    /// `echo 0 > snapshot`: frees the snapshot buffer.
    pub(crate) fn free_snapshot(&self) {
        let _control = self.control.lock();
        drop(self.spare.lock().take());
    }

    /// `echo 2 > snapshot`: empties the snapshot buffer (of one CPU, or of
    /// all), if allocated.
    pub(crate) fn clear_snapshot(&self, cpu: Option<usize>) {
        let _control = self.control.lock();
        if let Some(spare) = self.spare.lock().clone() {
            reset(&spare, cpu, self.start_time());
        }
    }

    /// Empties the main buffer (of one CPU, or of all): `echo > trace`.
    pub(crate) fn clear(&self, cpu: Option<usize>) {
        let _control = self.control.lock();
        reset(&self.buffer(), cpu, self.start_time());
    }

    /// Readers waiting for data.
    pub(crate) fn readers(&self) -> &WaitQueue {
        &self.readers
    }

    /// The names and thread groups of the tasks in the records.
    pub(crate) fn tasks(&self) -> &TaskInfo {
        &self.tasks
    }

    /// Whether any event is enabled in the instance now: the task names
    /// and thread groups are saved while one is. May sleep.
    pub(crate) fn set_events_enabled(&self, any: bool) {
        self.tasks.set_events_enabled(&self.task_use, any);
    }

    /// Readers of `trace_pipe_raw` waiting for a ring to fill to
    /// `buffer_percent`.
    pub(crate) fn full_readers(&self) -> &FullWaiters {
        &self.full_readers
    }

    /// Wakes the readers a write to the ring of `cpu` in `buffer` may
    /// satisfy: those waiting for any data, and those waiting for that ring
    /// to fill to `buffer_percent`.
    #[inline]
    fn wake_readers(&self, buffer: &TraceBuffer, cpu: usize) {
        self.readers.wake_after_write();
        self.full_readers.wake_if_full(buffer, cpu);
    }

    /// Records a `print` event with `text`, as a write to `trace_marker`
    /// does: at most [`records::max_print_text`] bytes of it; returns how
    /// many. The text goes from the write's buffer straight into the ring.
    pub(crate) fn record_print(&self, text: &[u8]) -> Result<usize> {
        let text = text.get(..records::max_print_text()).unwrap_or(text);
        let size = records::print_record_size(text);
        self.record_user_event(records::TYPE_PRINT, size, |space, header| {
            space.fill_parts(&records::print_head(header, self.marker_ip), text);
            if let Some(at) = records::print_newline_at(text) {
                space.put_byte(at, b'\n');
            }
        })?;
        Ok(text.len())
    }

    /// Records a `raw_data` event, as a write to `trace_marker_raw` does:
    /// a 4-byte id, then the data.
    pub(crate) fn record_raw_data(&self, data: &[u8]) -> Result {
        if data.len() < 4 {
            return Err(EINVAL);
        }
        let size = records::raw_data_record_size(data);
        self.record_user_event(records::TYPE_RAW_DATA, size, |space, header| {
            space.fill_parts(&header.to_bytes(), data);
        })
    }

    /// Records an event of type `kind` that user space wrote: `fill`
    /// writes its `size` bytes, given the common header, straight into
    /// the ring (bytes it leaves out are zero), as ftrace copies a marker
    /// once.
    fn record_user_event(
        &self,
        kind: u16,
        size: usize,
        fill: impl FnOnce(&mut Reserved<'_>, EntryHeader),
    ) -> Result {
        // As ftrace: markers off is EINVAL, recording off is EBADF.
        if !self.options().has(trace_options::MARKERS) {
            return Err(EINVAL);
        }
        if !self.tracing_on() || self.is_paused() {
            return Err(EBADF);
        }
        // Not the kernel's way (it saves names only at context switches),
        // kept so that markers name their writer whatever records.
        if self.options().has(trace_options::RECORD_CMD) {
            self.tasks.save_current_comm();
        }
        let pid = crate::cpu_local::current_pid();
        self.with_live_buffer(|buffer, preempt_off| {
            // The context as the event is recorded, with preemption off, as
            // ftrace records it.
            let (flags, preempt_count) = current_context();
            let header = EntryHeader {
                kind,
                flags,
                preempt_count,
                pid,
            };
            // Preemption is off: the CPU id is stable.
            let cpu = crate::cpu_local::processor_id();
            if let Some(mut space) = buffer.reserve_on(cpu, preempt_off, size, &|| self.now()) {
                fill(&mut space, header);
                space.commit();
                self.committed(buffer, cpu);
            }
        });
        Ok(())
    }

    /// The name of the tracer in use.
    pub(crate) fn tracer_name(&self) -> &'static str {
        self.tracer().name
    }

    /// The tracer in use.
    pub(crate) fn tracer(&self) -> &'static Tracer {
        self.control.lock().tracer
    }

    /// Switches to `tracer`: the old one stops, the buffer is emptied, then
    /// the new one starts; if it cannot, the instance is left with `nop`,
    /// as in ftrace.
    pub(crate) fn set_tracer(&self, tracer: &'static Tracer) -> Result<(), InputError> {
        let mut control = self.control.lock();
        if core::ptr::eq(control.tracer, tracer) {
            return Ok(());
        }
        self.stop_tracer(control.tracer.kind);
        self.tasks.set_tracer_running(&self.task_use, false);
        control.tracer = &tracer::NOP;
        // Every tracer starts on an empty buffer, as ftrace's tracer_init()
        // resets it (the control lock is held, as resets need).
        reset(&self.buffer(), None, self.start_time());
        let skipped = match tracer.kind {
            tracer::Kind::Nop => false,
            tracer::Kind::Function => {
                let mut functions = self.functions.lock();
                function_tracer::start(self, &mut functions)?
            }
            tracer::Kind::FunctionGraph => {
                let mut functions = self.functions.lock();
                let filters = self.graph_filters(&functions);
                function_tracer::start_graph(self, &mut functions, filters)?
            }
        };
        control.tracer = tracer;
        // The function tracers name their tasks (the kernel's
        // `tracing_start_cmdline_record` in their `init`).
        self.tasks
            .set_tracer_running(&self.task_use, tracer.kind != tracer::Kind::Nop);
        drop(control);
        if skipped {
            self.log_error(
                "current_tracer",
                InputError::SomeFunctionsBusy,
                tracer.name.as_bytes(),
            );
        }
        Ok(())
    }

    /// Stops what a tracer of `kind` runs.
    fn stop_tracer(&self, kind: tracer::Kind) {
        if kind != tracer::Kind::Nop {
            function_tracer::stop(&mut self.functions.lock());
        }
    }

    /// The function tracer's pid filters (`set_ftrace_pid`,
    /// `set_ftrace_notrace_pid`).
    pub(crate) fn function_pids(&self) -> &PidFilters {
        &self.function_pids
    }

    /// The event pid filters (`set_event_pid`, `set_event_notrace_pid`).
    pub(crate) fn event_pids(&self) -> &PidFilters {
        &self.event_pids
    }

    /// The function filter of `kind`, as it is now.
    pub(crate) fn function_filter(&self, kind: FilterKind) -> Arc<FilterSet> {
        self.functions.lock().set_mut(kind).clone()
    }

    /// Applies a function command word of `set_ftrace_filter`
    /// (`func:traceoff`, `!func:stacktrace`), read as `spec`, over the
    /// functions of `table`.
    pub(crate) fn apply_function_probe(
        &self,
        table: &SiteTable,
        command: &FilterCommand<'_>,
        spec: &ProbeSpec<'_>,
    ) -> Result<(), InputError> {
        self.functions
            .lock()
            .probes
            .apply(self, table, command, spec)
    }

    /// The function probes, as `set_ftrace_filter` lists them.
    pub(crate) fn function_probes(&self) -> Result<KVec<Arc<ProbeEntry>>> {
        self.functions.lock().probes.listing()
    }

    /// Makes `set` the function filter of `kind`; a running function
    /// tracer re-patches what changed. On error nothing changed.
    pub(crate) fn set_function_filter(
        &self,
        kind: FilterKind,
        set: &FilterSet,
    ) -> Result<(), InputError> {
        let new = Arc::new(set.try_clone()?, GFP_KERNEL).map_err(|_| InputError::NoMemory)?;
        let mut functions = self.functions.lock();
        let slot = functions.set_mut(kind);
        let old = core::mem::replace(slot, new);
        let graph = matches!(kind, FilterKind::GraphFunction | FilterKind::GraphNotrace);
        let applied = if graph {
            let filters = self.graph_filters(&functions);
            function_tracer::regraph(&functions, filters).map(|()| false)
        } else {
            function_tracer::refilter(&functions)
        };
        match applied {
            Ok(skipped) => {
                drop(functions);
                if skipped {
                    self.log_error(kind.file_name(), InputError::SomeFunctionsBusy, b"");
                }
                if graph && self.is_top() {
                    regraph_instances();
                }
                Ok(())
            }
            Err(e) => {
                *functions.set_mut(kind) = old;
                Err(e)
            }
        }
    }

    /// The function_graph filters in force here, given this instance's
    /// locked `functions`: its own at the top level, the top level's in
    /// an instance of `instances/`.
    fn graph_filters(&self, own: &FunctionState) -> GraphFilters {
        match &self.top {
            Some(top) => top.functions.lock().graph_filters(),
            None => own.graph_filters(),
        }
    }

    /// Hands a running function_graph tracer of an instance of
    /// `instances/` the top level's graph filters, which changed.
    fn regraph_from_top(&self) {
        let functions = self.functions.lock();
        let filters = self.graph_filters(&functions);
        if let Err(e) = function_tracer::regraph(&functions, filters) {
            self.log_error("set_graph_function", e, b"");
        }
    }

    /// `max_graph_depth`: how deep the function_graph tracer follows calls
    /// (0: no limit); the top level's.
    #[inline]
    pub(crate) fn max_graph_depth(&self) -> u32 {
        self.top
            .as_deref()
            .unwrap_or(self)
            .max_graph_depth
            .load(Relaxed)
    }

    /// Sets `max_graph_depth`; it applies from the next call on.
    pub(crate) fn set_max_graph_depth(&self, depth: u32) {
        self.max_graph_depth.store(depth, Relaxed);
    }

    /// Whether the function tracer's pid filters let task `pid` be
    /// traced. Any context.
    #[inline]
    pub(crate) fn traces_pid(&self, pid: i32) -> bool {
        self.function_pids.allows(pid as u32)
    }

    /// Whether events are recorded now on `cpu`: `tracing_on` and
    /// `tracing_cpumask`. Any context.
    #[inline]
    pub(crate) fn records_on(&self, cpu: usize) -> bool {
        self.tracing_on() && !self.is_paused() && self.traces_cpu(cpu)
    }

    /// The kernel events this instance records. The lock is taken by
    /// writes to and reads of the event files only, and is a leaf but for
    /// the perf and tracepoint locks taken while enabling.
    pub(crate) fn events(&self) -> kernel::sync::MutexGuard<'_, EventStates> {
        self.events.lock()
    }

    /// Whether a reader of `trace` holds recording off.
    #[inline]
    fn is_paused(&self) -> bool {
        self.paused.load(Relaxed) != 0
    }

    /// Stops recording until the returned guard is dropped: a `trace`
    /// reader's `pause-on-trace`.
    pub(crate) fn pause(self: &Arc<Self>) -> PauseGuard {
        self.paused.fetch_add(1, Relaxed);
        PauseGuard(self.clone())
    }

    /// Records an event source's record of `len` bytes, given as `head` (a
    /// multiple of 4 bytes, the common fields first) and `tail`, on `cpu`
    /// (the CPU this runs on, with preemption off), unless recording is
    /// off there. Any context.
    pub(crate) fn record_parts(&self, cpu: usize, len: usize, parts: (&[u8], &[u8])) {
        if !self.records_on(cpu) {
            return;
        }
        self.with_live_buffer(|buffer, preempt_off| {
            if buffer.write_parts_on(cpu, preempt_off, len, parts, &|| self.now()) {
                self.committed(buffer, cpu);
            }
        });
    }

    /// After a record was committed on `cpu` (the CPU this runs on): marks
    /// the CPU for saving its tasks and wakes readers. Any context.
    #[inline]
    fn committed(&self, buffer: &TraceBuffer, cpu: usize) {
        self.tasks.committed(cpu);
        self.wake_readers(buffer, cpu);
    }

    /// Reserves `len` bytes in the live buffer for a record written from
    /// the dispatcher's context `cx` (a tracer's own record, which it
    /// puts there and commits); `None` when there is no room. Callers
    /// check [`Self::records_on`] first.
    ///
    /// Always inlined into the three tracers' record paths, so that the
    /// record's constant length folds into the ring's arithmetic and the
    /// reservation stays in registers.
    #[inline(always)]
    pub(crate) fn reserve<'a>(
        &'a self,
        len: usize,
        cx: &'a CallContext<'_>,
    ) -> Option<Recording<'a>> {
        // SAFETY: `live` always points at a buffer the instance holds a
        // reference on, released only a grace period after it is replaced;
        // preemption is off (`cx`) while the borrow lives, so this is
        // within one such period.
        let buffer = unsafe { &*self.live.load(Acquire) };
        let space = buffer.reserve_on(cx.cpu, cx.preempt_off, len, &|| self.now())?;
        Some(Recording {
            instance: self,
            buffer,
            cpu: cx.cpu,
            space,
        })
    }

    /// Writes one record to the live buffer from the dispatcher's context
    /// `cx`.
    #[inline]
    fn write_traced(&self, record: &[u8], cx: &CallContext<'_>) {
        // SAFETY: `live` always points at a buffer the instance holds a
        // reference on, released only a grace period after it is replaced;
        // preemption is off (`cx`), so this is within one such period.
        let buffer = unsafe { &*self.live.load(Acquire) };
        if buffer.write_on(cx.cpu, cx.preempt_off, record, &|| self.now()) {
            self.committed(buffer, cx.cpu);
        }
    }

    /// Records a kernel stack trace (`<stack trace>`) of the traced call
    /// at `regs`, as the `stacktrace` function probe does. Called by the
    /// patch engine's dispatcher, in its context `cx`.
    pub(crate) fn record_stack(&self, regs: &bindings::pt_regs, cx: &CallContext<'_>) {
        if !self.records_on(cx.cpu) {
            return;
        }
        let header = cx.record_header(TYPE_KERNEL_STACK);
        let stack = KernelStack::capture(header, regs);
        self.write_traced(stack.as_bytes(), cx);
    }

    /// Whether `tracing_cpumask` has `cpu`.
    #[inline]
    fn traces_cpu(&self, cpu: usize) -> bool {
        self.traced_cpus
            .get(cpu / 64)
            .is_some_and(|w| w.load(Relaxed) & (1 << (cpu % 64)) != 0)
    }

    /// The CPUs that are traced.
    pub(crate) fn cpumask(&self) -> CpuMask {
        self.control.lock().cpumask
    }

    /// Sets the CPUs that are traced.
    pub(crate) fn set_cpumask(&self, mask: CpuMask) {
        let mut control = self.control.lock();
        control.cpumask = mask;
        for (word, bits) in self.traced_cpus.iter().zip(mask.words()) {
            word.store(*bits, Relaxed);
        }
    }

    /// Explains in `error_log` why a write of `command` to `file` failed.
    pub(crate) fn log_error(&self, file: &'static str, error: InputError, command: &[u8]) {
        self.log_error_at(file, error, command, 0);
    }

    /// As [`Instance::log_error`], the caret at byte `at` of `command`.
    pub(crate) fn log_error_at(
        &self,
        file: &'static str,
        error: InputError,
        command: &[u8],
        at: usize,
    ) {
        self.log_message_at(file, error.message(), command, at);
    }

    /// Logs in `error_log` a refusal with its own location and message
    /// (the kernel's texts for it), the caret at byte `at` of `command`.
    pub(crate) fn log_message_at(
        &self,
        location: &'static str,
        message: &'static str,
        command: &[u8],
        at: usize,
    ) {
        let now = local_clock_ns();
        self.control
            .lock()
            .errors
            .record(now, location, message, command, at);
    }

    /// Empties `error_log`.
    pub(crate) fn clear_errors(&self) {
        self.control.lock().errors.clear();
    }

    /// Writes `error_log` in ftrace's format.
    pub(crate) fn write_errors(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        let control = self.control.lock();
        (0..control.errors.len()).try_for_each(|i| control.errors.write_entry(i, out))
    }
}

#[pinned_drop]
impl PinnedDrop for Instance {
    fn drop(self: Pin<&mut Self>) {
        // The engine, the event counters and the fork probes must not call
        // into the instance any more.
        self.shut_down();
        // SAFETY: `live` holds a reference made by `Arc::into_raw`; no
        // writer runs any more when the instance itself goes away.
        drop(unsafe { Arc::from_raw(self.live.load(Relaxed).cast_const()) });
    }
}

/// A record reserved in an instance's live buffer ([`Instance::reserve`]):
/// its writer puts the payload, then commits it, which wakes the readers.
pub(crate) struct Recording<'a> {
    instance: &'a Instance,
    buffer: &'a TraceBuffer,
    cpu: usize,
    space: Reserved<'a>,
}

impl Recording<'_> {
    /// Stores the record, given as the words the ring holds.
    #[inline(always)]
    pub(crate) fn put_words<const N: usize>(&mut self, words: &[u32; N]) {
        self.space.put_words(words);
    }

    /// Commits the record and lets its readers know.
    #[inline]
    pub(crate) fn commit(self) {
        self.space.commit();
        self.instance.committed(self.buffer, self.cpu);
    }
}

/// The lock class of the top level's `functions`.
fn top_functions_class() -> Pin<&'static LockClassKey> {
    kernel::sync::static_lock_class!()
}

/// The lock class of the `functions` of the instances of `instances/`,
/// which are taken before the top level's.
fn instance_functions_class() -> Pin<&'static LockClassKey> {
    kernel::sync::static_lock_class!()
}

/// Hands every instance of `instances/` running function_graph the top
/// level's graph filters, which changed.
fn regraph_instances() {
    for instance in crate::instances::list::all().unwrap_or_default().iter() {
        if !instance.is_top() {
            instance.regraph_from_top();
        }
    }
}

/// Starts or stops adding forked children to `pids` (and removing freed
/// tasks), with `follower` holding the probes.
///
/// # Safety
///
/// `pids` must outlive what `follower` holds.
unsafe fn follow_forks(
    follower: &mut Option<ForkFollower>,
    pids: &PidFilters,
    on: bool,
) -> Result<(), InputError> {
    if !on {
        *follower = None;
    } else if follower.is_none() {
        // SAFETY: the caller keeps `pids` alive longer.
        let started = unsafe { ForkFollower::start(pids) };
        *follower = Some(started.map_err(|_| InputError::NoDevice)?);
    }
    Ok(())
}

/// Empties `buffer`, or its ring of `cpu`; emptied as a whole, its time
/// starts again at `now`. The caller holds the instance's control lock, so
/// no snapshot swap moves a ring meanwhile.
fn reset(buffer: &TraceBuffer, cpu: Option<usize>, now: u64) {
    match cpu {
        Some(cpu) => buffer.reset_cpu(cpu),
        None => {
            buffer.reset();
            buffer.set_time_start(now);
        }
    }
}

/// The number of possible CPU ids (`nr_cpu_ids`).
pub(crate) fn nr_cpu_ids() -> usize {
    // SAFETY: reads a variable the kernel sets once during boot.
    unsafe { bindings::rft_nr_cpu_ids() as usize }
}

/// The `trace_entry` flags and preemption depth of the current context.
pub(crate) fn current_context() -> (u8, u8) {
    context_of(
        crate::cpu_local::preempt_count(),
        crate::cpu_local::irqs_disabled(),
    )
}

/// The `trace_entry` flags and preemption depth of the current context,
/// whose `preempt_count()` is `count`, with interrupts off if `irqs_off`.
#[inline]
pub(crate) fn context_of(count: u32, irqs_off: bool) -> (u8, u8) {
    let resched = crate::cpu_local::need_resched();
    let mut flags = 0;
    if irqs_off {
        flags |= output::FLAG_IRQS_OFF;
    }
    if resched {
        flags |= output::FLAG_NEED_RESCHED;
    }
    if count & bindings::RFT_NMI_MASK != 0 {
        flags |= output::FLAG_NMI;
    }
    if count & bindings::RFT_HARDIRQ_MASK != 0 {
        flags |= output::FLAG_HARDIRQ;
    }
    if count & bindings::RFT_SOFTIRQ_OFFSET != 0 {
        flags |= output::FLAG_SOFTIRQ;
    }
    let depth = (count & bindings::RFT_PREEMPT_MASK).min(0xf) as u8;
    (flags, depth)
}

/// The number of online CPUs.
pub(crate) fn online_cpus() -> u32 {
    // SAFETY: reads the online mask's weight.
    unsafe { bindings::rft_num_online_cpus() }
}

/// The local CPU clock in nanoseconds, as ftrace's `local` trace clock.
fn local_clock_ns() -> u64 {
    // SAFETY: `local_clock` may be called from any context.
    unsafe { bindings::rft_local_clock() }
}

/// Recording held off by a `trace` reader; it resumes when the last guard
/// is dropped.
pub(crate) struct PauseGuard(Arc<Instance>);

impl Drop for PauseGuard {
    fn drop(&mut self) {
        self.0.paused.fetch_sub(1, Relaxed);
    }
}
