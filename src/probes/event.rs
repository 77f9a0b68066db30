// SPDX-License-Identifier: GPL-2.0

//! A probe event: its names, its record type, its probe points and the
//! instances it records into. It is an event of the event layer like any
//! other ([`DefinedEvent`]): enabling it in an instance connects that
//! instance, and the first connection arms its points.

use super::args::EventArgs;
use super::point::Point;
use super::recorder::Recorder;
use super::text::TextOut;
use crate::events::defined::{DefinedEvent, RecordSink};
use crate::kernel_api::trace_events::RegisteredType;
use crate::portable::probes::fetch::ProbeKind as FetchKind;
use crate::portable::probes::print::{self, LineFormat};
use crate::portable::records::{SymbolStyle, Symbols};
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

    fn write_trace(
        &self,
        record: &[u8],
        sym_addr: bool,
        symbols: &dyn Symbols,
        out: &mut KVec<u8>,
    ) -> Result {
        let line = LineFormat {
            event: self.name(),
            kind: self.fetch_kind(),
            is_return: self.recorder.is_return,
            args: self.primary_args.specs(),
        };
        let style = SymbolStyle {
            offset: true,
            address: sym_addr,
        };
        print::write_line(&mut TextOut(out), &line, record, symbols, style).map_err(|_| ENOMEM)
    }
}

impl ProbeEvent {
    /// The argument parser's kind of probe.
    pub(crate) fn fetch_kind(&self) -> FetchKind {
        match self.kind {
            ProbeKind::Kprobe => FetchKind::Kprobe,
            ProbeKind::Fprobe => FetchKind::Fprobe,
            ProbeKind::Uprobe => FetchKind::Uprobe,
        }
    }
}
