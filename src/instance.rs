// SPDX-License-Identifier: GPL-2.0

//! Trace instances: the state behind one tracing directory.
//!
//! The top level of rftracefs is an instance, and so (later) is every
//! directory made under `instances/`. Each has its own switch, options,
//! tracer, CPU mask and error log.

use crate::portable::{
    cpumask::CpuMask,
    error_log::ErrorLog,
    input::InputError,
    trace_options::{OptionSet, TraceOption},
};
use crate::tracer::{self, Tracer};
use core::fmt;
use kernel::{
    new_mutex,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc, Mutex,
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
/// `control` is taken only by writes to and reads of control files and is a
/// leaf: nothing else is locked while it is held.
#[pin_data]
pub(crate) struct Instance {
    tracing_on: Atomic<bool>,
    options: Atomic<u32>,
    #[pin]
    control: Mutex<Control>,
}

impl Instance {
    /// Creates the top-level instance, in its initial state: tracing on,
    /// the `nop` tracer, default options, every possible CPU traced.
    pub(crate) fn new_top() -> Result<Arc<Self>> {
        let errors = KBox::new(ErrorLog::new(), GFP_KERNEL)?;
        Arc::pin_init(
            pin_init!(Self {
                tracing_on: Atomic::new(true),
                options: Atomic::new(OptionSet::defaults().0),
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
    unsafe { crate::bindings::rft_nr_cpu_ids() as usize }
}

/// The local CPU clock in nanoseconds, as ftrace's `local` trace clock.
fn local_clock_ns() -> u64 {
    // SAFETY: `local_clock` may be called from any context.
    unsafe { crate::bindings::rft_local_clock() }
}
