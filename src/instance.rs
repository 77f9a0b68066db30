// SPDX-License-Identifier: GPL-2.0

//! Trace instances: the state behind one tracing directory.
//!
//! The top level of rftracefs is an instance, and so (later) is every
//! directory made under `instances/`. Each has its own switch, options,
//! tracer, CPU mask and error log.

use crate::bindings;
use crate::portable::{
    cmdlines::{Cmdlines, COMM_LEN},
    cpumask::CpuMask,
    error_log::ErrorLog,
    input::InputError,
    output::{self, EntryHeader},
    records,
    trace_options::{self, OptionSet, TraceOption},
};
use crate::ring_buffer::{self, TraceBuffer};
use crate::tracer::{self, Tracer};
use crate::wait::WaitQueue;
use core::fmt;
use kernel::{
    new_mutex, new_spinlock,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc, Mutex, SpinLock,
    },
};

/// The settings of an instance that are changed only by writes to its files.
struct Control {
    tracer: &'static Tracer,
    cpumask: CpuMask,
    errors: KBox<ErrorLog>,
}

/// One trace instance.
///
/// # Invariants
///
/// `options` and `tracing_on` are read without locks (the recording path
/// will test them); they are only written with `control` held, so that a
/// read-modify-write of the option bits is never lost.
///
/// # Lock order
///
/// `control` is taken only by writes to and reads of control files;
/// `cmdlines` by writers of records and by readers formatting them. Both
/// are leaves: nothing else is locked while either is held.
#[pin_data]
pub(crate) struct Instance {
    tracing_on: Atomic<bool>,
    options: Atomic<u32>,
    buffer: TraceBuffer,
    #[pin]
    cmdlines: SpinLock<Cmdlines>,
    #[pin]
    readers: WaitQueue,
    #[pin]
    control: Mutex<Control>,
}

impl Instance {
    /// Creates the top-level instance, in its initial state: tracing on,
    /// the `nop` tracer, default options, every possible CPU traced.
    pub(crate) fn new_top() -> Result<Arc<Self>> {
        let errors = KBox::new(ErrorLog::new(), GFP_KERNEL)?;
        let buffer = TraceBuffer::new(ring_buffer::DEFAULT_SIZE, nr_cpu_ids())?;
        Arc::pin_init(
            pin_init!(Self {
                tracing_on: Atomic::new(true),
                options: Atomic::new(OptionSet::defaults().0),
                buffer,
                cmdlines <- new_spinlock!(Cmdlines::new()),
                readers <- WaitQueue::new(),
                control <- new_mutex!(Control {
                    tracer: &tracer::NOP,
                    cpumask: CpuMask::first(nr_cpu_ids()),
                    errors,
                }),
            }),
            GFP_KERNEL,
        )
    }

    /// Whether events are being recorded (`tracing_on`).
    pub(crate) fn tracing_on(&self) -> bool {
        self.tracing_on.load(Relaxed)
    }

    /// Starts or stops recording.
    pub(crate) fn set_tracing_on(&self, on: bool) {
        let _control = self.control.lock();
        self.tracing_on.store(on, Relaxed);
    }

    /// The current general options.
    pub(crate) fn options(&self) -> OptionSet {
        OptionSet(self.options.load(Relaxed))
    }

    /// Turns one general option on or off.
    pub(crate) fn set_option(&self, option: TraceOption, on: bool) {
        let _control = self.control.lock();
        self.options
            .store(self.options().with(option, on).0, Relaxed);
        if option == trace_options::OVERWRITE {
            self.buffer.set_overwrite(on);
        }
    }

    /// The trace buffer.
    pub(crate) fn buffer(&self) -> &TraceBuffer {
        &self.buffer
    }

    /// Readers waiting for data.
    pub(crate) fn readers(&self) -> &WaitQueue {
        &self.readers
    }

    /// Calls `f` with the task name saved for `pid`.
    pub(crate) fn with_comm<R>(&self, pid: i32, f: impl FnOnce(&str) -> R) -> R {
        f(self.cmdlines.lock().find(pid))
    }

    /// Writes `saved_cmdlines`: `pid comm` per line.
    pub(crate) fn write_cmdlines(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        let cmdlines = self.cmdlines.lock();
        let result = cmdlines
            .entries()
            .try_for_each(|(pid, comm)| writeln!(out, "{pid} {comm}"));
        result
    }

    /// Records a `print` event with `text`, as a write to `trace_marker`
    /// does. Process context only (it allocates).
    pub(crate) fn record_print(&self, text: &[u8]) -> Result {
        // As ftrace: markers off is EINVAL, recording off is EBADF.
        if !self.options().has(trace_options::MARKERS) {
            return Err(EINVAL);
        }
        if !self.tracing_on() {
            return Err(EBADF);
        }
        let mut record = KVec::from_elem(0u8, records::print_record_size(text), GFP_KERNEL)?;
        // SAFETY: plain reads of the current context.
        let pid = unsafe { bindings::rft_current_pid() };
        let (flags, preempt_count) = current_context();
        let header = EntryHeader {
            kind: records::TYPE_PRINT,
            flags,
            preempt_count,
            pid,
        };
        records::encode_print(&mut record, header, 0, text);
        if self.options().has(trace_options::RECORD_CMD) {
            let mut comm = [0u8; COMM_LEN];
            // SAFETY: `comm` has room for a task name and its NUL.
            unsafe { bindings::rft_current_comm(comm.as_mut_ptr()) };
            self.cmdlines.lock().save(pid, &comm);
        }
        if self.buffer.write(&record, &local_clock_ns) {
            self.readers.wake_all();
        }
        Ok(())
    }

    /// The name of the tracer in use.
    pub(crate) fn tracer_name(&self) -> &'static str {
        self.control.lock().tracer.name
    }

    /// Switches to `tracer`.
    pub(crate) fn set_tracer(&self, tracer: &'static Tracer) {
        self.control.lock().tracer = tracer;
    }

    /// The CPUs that are traced.
    pub(crate) fn cpumask(&self) -> CpuMask {
        self.control.lock().cpumask
    }

    /// Sets the CPUs that are traced.
    pub(crate) fn set_cpumask(&self, mask: CpuMask) {
        self.control.lock().cpumask = mask;
    }

    /// Explains in `error_log` why a write of `command` to `file` failed.
    pub(crate) fn log_error(&self, file: &'static str, error: InputError, command: &[u8]) {
        let now = local_clock_ns();
        self.control
            .lock()
            .errors
            .record(now, file, error.message(), command, 0);
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

/// The number of possible CPU ids (`nr_cpu_ids`).
pub(crate) fn nr_cpu_ids() -> usize {
    // SAFETY: reads a variable the kernel sets once during boot.
    unsafe { bindings::rft_nr_cpu_ids() as usize }
}

/// The `trace_entry` flags and preemption depth of the current context.
pub(crate) fn current_context() -> (u8, u8) {
    // SAFETY: plain reads of the current CPU's and task's state.
    let (count, irqs_off, resched) = unsafe {
        (
            bindings::rft_preempt_count(),
            bindings::rft_irqs_disabled(),
            bindings::rft_need_resched(),
        )
    };
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
    // The caller's own depth, without the level the writer itself adds.
    let depth = (count & bindings::RFT_PREEMPT_MASK).min(0xf) as u8;
    (flags, depth)
}

/// The number of online CPUs.
pub(crate) fn online_cpus() -> u32 {
    // SAFETY: reads the online mask's weight.
    unsafe { bindings::rft_num_online_cpus() }
}

/// The local CPU clock in nanoseconds, as ftrace's `local` trace clock.
pub(crate) fn local_clock_ns() -> u64 {
    // SAFETY: `local_clock` may be called from any context.
    unsafe { bindings::rft_local_clock() }
}
