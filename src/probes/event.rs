// SPDX-License-Identifier: GPL-2.0

//! A probe event: its names, its record type, its probe points and the
//! instances it records into. It is an event of the event layer like any
//! other ([`DefinedEvent`]): enabling it in an instance connects that
//! instance, and the first connection arms its points.

use super::args::EventArgs;
use super::point::Point;
use super::recorder::{Recorder, Space};
use crate::events::defined::{DefinedEvent, RecordSink};
use crate::kernel_api::kallsyms::{self, Form};
use crate::kernel_api::trace_events::RegisteredType;
use crate::portable::output::ENTRY_HEADER_SIZE;
use core::fmt::Write;
use kernel::{
    new_mutex,
    prelude::*,
    str::CString,
    sync::{Arc, Mutex},
};

pub(crate) use crate::portable::probes::command::Family as ProbeKind;

/// What changes under the event's lock.
struct EventState {
    points: KVec<Point>,
    /// The instances connected, as published to the hit path.
    sinks: KVec<RecordSink>,
}

/// One probe event.
#[pin_data]
pub(crate) struct ProbeEvent {
    pub(crate) kind: ProbeKind,
    group: CString,
    name: CString,
    pub(crate) recorder: Arc<Recorder>,
    /// The arguments of its first point: its fields, and how its records
    /// print (every point's arguments have the same names and types).
    pub(crate) primary_args: Arc<EventArgs>,
    #[pin]
    state: Mutex<EventState>,
    /// Its record type; unregistered after the event left the catalog.
    pub(crate) record_type: RegisteredType,
}

impl ProbeEvent {
    /// A new event `group/name` recording through `recorder` (whose id is
    /// `record_type`'s), with its first point.
    pub(crate) fn new(
        kind: ProbeKind,
        (group, name): (&str, &str),
        recorder: Arc<Recorder>,
        record_type: RegisteredType,
        first: Point,
    ) -> Result<Arc<Self>> {
        let primary_args = first.handler.args.clone();
        let mut points = KVec::new();
        points.push(first, GFP_KERNEL)?;
        Arc::pin_init(
            try_pin_init!(ProbeEvent {
                kind,
                group: CString::try_from_fmt(fmt!("{group}"))?,
                name: CString::try_from_fmt(fmt!("{name}"))?,
                recorder,
                primary_args,
                state <- new_mutex!(EventState {
                    points,
                    sinks: KVec::new(),
                }),
                record_type,
            }? Error),
            GFP_KERNEL,
        )
        .map(|pinned| {
            // SAFETY: nothing moves a `ProbeEvent` out of its `Arc`.
            unsafe { Pin::into_inner_unchecked(pinned) }
        })
    }

    /// Its group (system).
    pub(crate) fn group(&self) -> &str {
        self.group.to_str().unwrap_or("")
    }

    /// Its name.
    pub(crate) fn name(&self) -> &str {
        self.name.to_str().unwrap_or("")
    }

    /// Whether an instance records it.
    pub(crate) fn is_enabled(&self) -> bool {
        !self.state.lock().sinks.is_empty()
    }

    /// Adds a point (a multi-probe event), armed at once if the event is
    /// enabled.
    pub(crate) fn add_point(&self, point: Point) -> Result {
        let mut state = self.state.lock();
        if !state.sinks.is_empty() {
            point.enable()?;
        }
        state.points.push(point, GFP_KERNEL)?;
        Ok(())
    }

    /// Calls `f` on each point.
    pub(crate) fn for_each_point(&self, mut f: impl FnMut(&Point)) {
        self.state.lock().points.iter().for_each(|p| f(p));
    }

    /// Calls `f` on each point, with the event's lock held.
    pub(crate) fn with_points<R>(&self, f: impl FnOnce(&[Point]) -> R) -> R {
        f(&self.state.lock().points)
    }

    /// Removes the points `remove` selects, unless that would remove
    /// them all while the event is enabled (`EBUSY`); returns whether the
    /// event has no point left. A removed point of an enabled event is
    /// disarmed first.
    pub(crate) fn remove_points(&self, remove: impl Fn(&Point) -> bool) -> Result<bool> {
        let mut state = self.state.lock();
        let all = state.points.iter().all(&remove);
        if all && !state.sinks.is_empty() {
            return Err(EBUSY);
        }
        let mut kept = KVec::with_capacity(state.points.len(), GFP_KERNEL)?;
        for point in state.points.drain_all() {
            if remove(&point) {
                point.disable();
            } else {
                kept.push(point, GFP_KERNEL)?;
            }
        }
        state.points = kept;
        Ok(state.points.is_empty())
    }
}

impl DefinedEvent for ProbeEvent {
    fn connect(&self, sink: RecordSink) -> Result {
        let mut state = self.state.lock();
        if state.sinks.is_empty() {
            for (n, point) in state.points.iter().enumerate() {
                if let Err(e) = point.enable() {
                    state.points[..n].iter().for_each(Point::disable);
                    return Err(e);
                }
            }
        }
        state.sinks.push(sink, GFP_KERNEL)?;
        if let Err(e) = self.recorder.sinks.publish(&state.sinks) {
            state.sinks.pop();
            if state.sinks.is_empty() {
                state.points.iter().for_each(Point::disable);
            }
            return Err(e);
        }
        Ok(())
    }

    fn disconnect(&self, sink: RecordSink) {
        let mut state = self.state.lock();
        state.sinks.retain(|s| *s != sink);
        if self.recorder.sinks.publish(&state.sinks).is_err() {
            // Without memory for the smaller list, the event stops
            // recording everywhere (publishing none needs no memory).
            pr_warn!("probe event {}: out of memory, disabled\n", self.name());
            let _ = self.recorder.sinks.publish(&[]);
            state.sinks.clear();
        }
        if state.sinks.is_empty() {
            state.points.iter().for_each(Point::disable);
        }
    }

    fn write_trace(&self, record: &[u8], sym_addr: bool, out: &mut KVec<u8>) -> Result {
        let mut text = crate::probes::text::TextOut(out);
        let r = self.write_line(&mut text, record, sym_addr);
        r.map_err(|_| ENOMEM)
    }
}

impl ProbeEvent {
    /// The line of `record`: `name: (where) args`.
    fn write_line(&self, out: &mut dyn Write, record: &[u8], sym_addr: bool) -> core::fmt::Result {
        let word = |at: usize| -> u64 {
            record
                .get(at..at + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes)
        };
        write!(out, "{}: (", self.name())?;
        let first = word(ENTRY_HEADER_SIZE);
        match (self.recorder.space, self.recorder.is_return) {
            (Space::User, false) => write!(out, "0x{first:x}")?,
            (Space::User, true) => write!(out, "0x{:x} <- 0x{first:x}", word(ENTRY_HEADER_SIZE + 8))?,
            (Space::Kernel, false) => write_ip(out, first, Form::WithOffset, sym_addr)?,
            (Space::Kernel, true) => {
                write_ip(out, word(ENTRY_HEADER_SIZE + 8), Form::WithOffset, sym_addr)?;
                out.write_str(" <- ")?;
                write_ip(out, first, Form::NoOffset, sym_addr)?;
            }
        }
        out.write_str(")")?;
        self.primary_args
            .write_text(out, record, self.recorder.is_return)?;
        out.write_str("\n")
    }
}

/// An address as the kernel's `seq_print_ip_sym` prints it.
fn write_ip(out: &mut dyn Write, ip: u64, form: Form, sym_addr: bool) -> core::fmt::Result {
    if ip == 0 {
        return out.write_str("0");
    }
    kallsyms::with_symbol(ip as usize, form, |name| {
        out.write_str(core::str::from_utf8(name).unwrap_or("?"))
    })?;
    if sym_addr {
        write!(out, " <{ip:016x}>")?;
    }
    Ok(())
}
