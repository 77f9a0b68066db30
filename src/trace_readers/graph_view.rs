// SPDX-License-Identifier: GPL-2.0

//! How `trace` and `trace_pipe` show the buffer while `function_graph` is
//! the current tracer (decided at open, as in ftrace).
//!
//! The graph printer ([`crate::portable::graph_output`]) needs, besides the
//! event, the next event of the same CPU: an entry followed by its own
//! return is a leaf, printed on one line with the return's duration. So a
//! graph view reads one more event ahead per CPU; when it is not used as
//! a leaf's return, it becomes that CPU's next event.

use super::{fmt_result, Peeked, Text};
use crate::instance::Instance;
use crate::portable::graph_output::{
    self, GraphContext, GraphCpuState, GraphEvent, GraphFlags, Printed,
};
use crate::portable::output::{self, LatencyHeader};
use crate::portable::records::{PrintContext, SymbolStyle};
use crate::portable::trace_options;
use crate::symbols::SymbolNames;
use core::fmt::Write;
use core::ops::Range;
use kernel::prelude::*;

/// The graph printer's state for one open file.
pub(super) struct GraphView {
    /// Per CPU read: the event after the one being printed.
    ahead: KVec<Peeked>,
    /// Per CPU read: what the printer remembers between events.
    states: KVec<GraphCpuState>,
    flags: GraphFlags,
    irq_entry: Range<u64>,
    /// `nr_cpu_ids`, which sets the CPU column's width.
    nr_cpu_ids: u32,
    /// The buffer's start time when the file was opened.
    time_start: u64,
}

impl GraphView {
    /// A view for a file reading `cpus` CPUs of a buffer whose time starts
    /// at `time_start`, if the instance's tracer is `function_graph`.
    pub(super) fn open(instance: &Instance, cpus: usize, time_start: u64) -> Result<Option<Self>> {
        if instance.tracer().kind != crate::tracer::Kind::FunctionGraph {
            return Ok(None);
        }
        let mut ahead = KVec::with_capacity(cpus, GFP_KERNEL)?;
        let mut states = KVec::with_capacity(cpus, GFP_KERNEL)?;
        for _ in 0..cpus {
            ahead.push(Peeked::new()?, GFP_KERNEL)?;
            states.push(GraphCpuState::new(), GFP_KERNEL)?;
        }
        Ok(Some(GraphView {
            ahead,
            states,
            flags: GraphFlags::from_options(instance.options()),
            irq_entry: irq_entry_text(),
            nr_cpu_ids: crate::instance::nr_cpu_ids() as u32,
            time_start,
        }))
    }

    /// Moves the event read ahead for source `i` into `peeked`, if there
    /// is one.
    pub(super) fn take_ahead(&mut self, i: usize, peeked: &mut Peeked) -> bool {
        match self.ahead.get_mut(i) {
            Some(ahead) if ahead.full => {
                core::mem::swap(ahead, peeked);
                ahead.full = false;
                true
            }
            _ => false,
        }
    }

    /// The read-ahead slot of source `i`, when empty: the reader fills it.
    pub(super) fn empty_ahead(&mut self, i: usize) -> Option<&mut Peeked> {
        self.ahead.get_mut(i).filter(|a| !a.full)
    }

    /// Prints source `i`'s event `p` (of `cpu`) as the graph tracer does.
    /// `Unhandled` events are left for the reader's ordinary form.
    pub(super) fn print(
        &mut self,
        instance: &Instance,
        (i, cpu): (usize, usize),
        p: &Peeked,
        symbols: &SymbolNames,
        text: &mut KVec<u8>,
    ) -> Result<Printed> {
        if p.lost > 0 {
            fmt_result(writeln!(Text(text), "CPU:{cpu} [LOST {} EVENTS]", p.lost))?;
        }
        let (Some(state), Some(ahead)) = (self.states.get_mut(i), self.ahead.get_mut(i)) else {
            return Ok(Printed::Unhandled);
        };
        let options = instance.options();
        let comm =
            |pid: i32, out: &mut dyn Write| out.write_str(instance.tasks().comm(pid).as_str());
        let cx = GraphContext {
            print: PrintContext {
                symbols,
                style: SymbolStyle {
                    offset: options.has(trace_options::SYM_OFFSET),
                    address: options.has(trace_options::SYM_ADDR),
                },
                print_parent: options.has(trace_options::PRINT_PARENT),
            },
            comm: &comm,
            irq_entry: self.irq_entry.clone(),
            nr_cpu_ids: self.nr_cpu_ids,
            time_start: self.time_start,
        };
        let ev = GraphEvent {
            cpu: cpu as u32,
            ts: p.ts,
            record: &p.payload[..p.len],
        };
        let next = ahead.full.then(|| GraphEvent {
            cpu: cpu as u32,
            ts: ahead.ts,
            record: &ahead.payload[..ahead.len],
        });
        let printed = graph_output::write_graph_event(
            &mut Text(text),
            state,
            &ev,
            next.as_ref(),
            &self.flags,
            &cx,
        )
        .map_err(|_| ENOMEM)?;
        if printed == Printed::ThisAndNext {
            ahead.full = false;
        }
        Ok(printed)
    }
}

/// Writes the function_graph header of a `trace` file: the tracer's name,
/// with `latency-format` the summary (`latency`, `None` for an empty
/// buffer, which then shows no columns either), and the column names.
pub(super) fn write_header(
    instance: &Instance,
    latency: Option<Option<LatencyHeader<'_>>>,
    text: &mut KVec<u8>,
) -> Result {
    let mut out = Text(text);
    fmt_result(write!(out, "# tracer: {}\n#\n", instance.tracer_name()))?;
    let flags = GraphFlags::from_options(instance.options());
    match latency {
        Some(None) => return Ok(()),
        Some(Some(summary)) => fmt_result(output::write_latency_summary(&mut out, &summary))?,
        None => {}
    }
    fmt_result(graph_output::write_graph_header(&mut out, &flags))
}

/// The kernel's interrupt entry text, whose functions the graph marks.
fn irq_entry_text() -> Range<u64> {
    let text = crate::ksyms::irqentry_text();
    text.start as u64..text.end as u64
}
