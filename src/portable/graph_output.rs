// SPDX-License-Identifier: GPL-2.0

//! The function_graph tracer's text: how `trace` and `trace_pipe` show the
//! buffer while it is the current tracer (the kernel's
//! `print_graph_function_flags` and `print_graph_headers_flags`).
//!
//! ```text
//! # CPU  DURATION                  FUNCTION CALLS
//! # |     |   |                     |   |   |   |
//!  1)               |  vfs_read() {
//!  1)   0.412 us    |    rw_verify_area();
//!  1) + 12.304 us   |  }
//! ```
//!
//! A reader keeps one [`GraphCpuState`] per CPU for as long as the file is
//! open (from a fresh [`GraphCpuState::new`] at open, as the kernel's
//! `graph_trace_open`) and hands each event to [`write_graph_event`] with
//! the next event of the same CPU, if it has one: an entry followed by its
//! own return is a leaf, printed on one line, and the reader then drops
//! that return ([`Printed::ThisAndNext`]). Function and stack records are
//! not the graph printer's ([`Printed::Unhandled`]); every other event
//! prints as a comment, `/* text */`, at the depth reached.
//!
//! The printer comes first, before the `bin`, `hex` and `raw` options (the
//! kernel's `print_trace_line` asks the tracer's `print_line` before
//! looking at them): graph records and comments print as graph lines
//! whatever those options say, and only what the printer leaves unhandled
//! takes the form they choose. The reader writes what precedes the
//! printer's lines: the `CPU:N [LOST M EVENTS]` line, and the `# tracer:`
//! line before [`write_graph_header`].

use super::output::EntryHeader;
use super::records::function::TYPE_FUNCTION;
use super::records::graph::{
    decode_entry, decode_exit, write_function, write_indent, GraphEntry, GraphExit, TYPE_GRAPH_ENT,
    TYPE_GRAPH_RET,
};
use super::records::stack::TYPE_KERNEL_STACK;
use super::records::{self, PrintContext, TYPE_PRINT};
use super::trace_options::{self as options, OptionSet};
use core::fmt;
use core::ops::Range;

mod columns;
#[cfg(test)]
mod tests;

use columns::{Arrow, Duration};

/// Depths whose entry function is remembered (the kernel's
/// `FTRACE_RETFUNC_DEPTH`); a return from deeper is taken to match.
const RETFUNC_DEPTH: usize = 50;

/// `depth_irq` while no irq-entry function is being skipped.
const NOT_IN_IRQ: i64 = -1;

/// `last_pid` before the CPU's first event.
const NO_PID: i32 = -1;

/// What the graph printer shows: the function_graph tracer's options and
/// the general options it looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GraphFlags {
    /// `funcgraph-overrun`: a return is followed by ` (Overruns: N)`.
    pub(crate) overrun: bool,
    /// `funcgraph-cpu`: the CPU column, ` 1) `.
    pub(crate) cpu: bool,
    /// `funcgraph-overhead`: the duration's overhead mark.
    pub(crate) overhead: bool,
    /// `funcgraph-proc`: the task column, `bash-1234 | `.
    pub(crate) proc: bool,
    /// `funcgraph-duration`: the duration column.
    pub(crate) duration: bool,
    /// `funcgraph-abstime`: the event's time stamp, `   12.345678 |  `.
    pub(crate) abstime: bool,
    /// The time since the buffer's start, `     1234 us |  ` (the
    /// kernel's `TRACE_GRAPH_PRINT_REL_TIME`, which only the latency
    /// tracers' graph display sets: never from options).
    pub(crate) rel_time: bool,
    /// `funcgraph-irqs`: off, whatever an irq-entry function runs is left
    /// out, the function included.
    pub(crate) irqs: bool,
    /// `funcgraph-tail`: every closing brace names its function.
    pub(crate) tail: bool,
    /// `funcgraph-retval`: return values are shown.
    pub(crate) retval: bool,
    /// `funcgraph-retval-hex`: return values are always in hex.
    pub(crate) retval_hex: bool,
    /// `context-info`: off, no columns are shown (nor the header).
    pub(crate) context_info: bool,
    /// `latency-format`: the latency flags column, `d..1. | `.
    pub(crate) latency_format: bool,
}

impl GraphFlags {
    /// The flags an instance's options set. The kernel reads them anew
    /// for each line, `latency-format` included.
    pub(crate) fn from_options(set: OptionSet) -> Self {
        GraphFlags {
            overrun: set.has(options::FUNCGRAPH_OVERRUN),
            cpu: set.has(options::FUNCGRAPH_CPU),
            overhead: set.has(options::FUNCGRAPH_OVERHEAD),
            proc: set.has(options::FUNCGRAPH_PROC),
            duration: set.has(options::FUNCGRAPH_DURATION),
            abstime: set.has(options::FUNCGRAPH_ABSTIME),
            rel_time: false,
            irqs: set.has(options::FUNCGRAPH_IRQS),
            tail: set.has(options::FUNCGRAPH_TAIL),
            retval: set.has(options::FUNCGRAPH_RETVAL),
            retval_hex: set.has(options::FUNCGRAPH_RETVAL_HEX),
            context_info: set.has(options::CONTEXT_INFO),
            latency_format: set.has(options::LATENCY_FORMAT),
        }
    }
}

/// What the printer remembers of one CPU's events between them (the
/// kernel's `fgraph_cpu_data`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GraphCpuState {
    /// The task of the last event; a change prints the switch block.
    last_pid: i32,
    /// The depth a comment indents from.
    depth: i64,
    /// The depth of the irq-entry function being skipped (with
    /// `funcgraph-irqs` off), or [`NOT_IN_IRQ`].
    depth_irq: i64,
    /// The function entered at each depth and not yet returned from (0
    /// for none).
    enter_funcs: [u64; RETFUNC_DEPTH],
}

impl GraphCpuState {
    /// The state before a CPU's first event.
    pub(crate) const fn new() -> Self {
        GraphCpuState {
            last_pid: NO_PID,
            depth: 0,
            depth_irq: NOT_IN_IRQ,
            enter_funcs: [0; RETFUNC_DEPTH],
        }
    }

    /// The entry function remembered for `depth`; `None` for a depth that
    /// is not remembered (negative, or too deep).
    fn entered_at(&mut self, depth: i64) -> Option<&mut u64> {
        usize::try_from(depth)
            .ok()
            .and_then(|d| self.enter_funcs.get_mut(d))
    }
}

impl Default for GraphCpuState {
    fn default() -> Self {
        Self::new()
    }
}

/// One event to print.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GraphEvent<'a> {
    /// The CPU whose buffer held it.
    pub(crate) cpu: u32,
    /// Its time stamp.
    pub(crate) ts: u64,
    /// The whole record, common header included.
    pub(crate) record: &'a [u8],
}

/// Task name lookup: writes the saved command of a pid, as the `trace`
/// file's context columns name it (`<idle>` for 0, `<...>` when unknown).
pub(crate) type CommFn<'a> = &'a dyn Fn(i32, &mut dyn fmt::Write) -> fmt::Result;

/// What the printer needs from the module besides the events.
pub(crate) struct GraphContext<'a> {
    /// Names functions and prints the events shown as comments (their
    /// text with the `sym-offset`/`sym-addr` options; graph lines name
    /// functions plainly, as `%ps`).
    pub(crate) print: PrintContext<'a>,
    /// Task names, for `funcgraph-proc` and the switch block.
    pub(crate) comm: CommFn<'a>,
    /// The irq-entry text, `__irqentry_text_start..__irqentry_text_end`:
    /// entering a function there is marked `==========>`, returning
    /// `<==========`.
    pub(crate) irq_entry: Range<u64>,
    /// Possible CPU ids (`nr_cpu_ids`): the CPU column is as wide as the
    /// largest.
    pub(crate) nr_cpu_ids: u32,
    /// Where the buffer's time starts (for [`GraphFlags::rel_time`]).
    pub(crate) time_start: u64,
}

/// What [`write_graph_event`] did with the event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Printed {
    /// It printed the event (possibly as nothing: an event inside a skipped
    /// interrupt).
    This,
    /// It printed the event and the look-ahead with it (a leaf's return):
    /// the reader drops the look-ahead.
    ThisAndNext,
    /// The event is not the graph printer's: the reader shows it its
    /// ordinary way, after whatever was written (nothing, except for a type
    /// with no output functions, which follows the comment's opening as in
    /// the kernel).
    Unhandled,
}

/// Prints one event as the function_graph tracer does, updating its CPU's
/// state; `next` is the next event of the same CPU, when the reader has
/// one (the kernel's `get_return_for_leaf`). The state changes only when
/// the writing succeeds, so an event can be printed again after an error.
pub(crate) fn write_graph_event(
    out: &mut dyn fmt::Write,
    state: &mut GraphCpuState,
    ev: &GraphEvent<'_>,
    next: Option<&GraphEvent<'_>>,
    flags: &GraphFlags,
    cx: &GraphContext<'_>,
) -> Result<Printed, fmt::Error> {
    let Some(header) = EntryHeader::from_bytes(ev.record) else {
        return Ok(Printed::Unhandled);
    };
    let mut work = *state;
    let printed = Printer {
        out,
        state: &mut work,
        ev,
        header,
        flags,
        cx,
    }
    .print(next)?;
    *state = work;
    Ok(printed)
}

/// Writes the header that names the columns the flags show
/// (`__print_graph_headers_flags`); nothing without `context-info`.
///
/// The reader writes the `# tracer: function_graph` lines before it, and,
/// with `latency-format`, the latency summary
/// ([`write_latency_summary`](super::output::write_latency_summary))
/// between them, or, when the buffer is empty, neither the summary nor
/// this header (the kernel's `print_graph_headers_flags`).
pub(crate) fn write_graph_header(out: &mut dyn fmt::Write, flags: &GraphFlags) -> fmt::Result {
    columns::write_header(out, flags)
}

/// One event being printed, with what it is printed with.
struct Printer<'p> {
    /// Where the lines go.
    out: &'p mut dyn fmt::Write,
    /// The CPU's state, a working copy kept only if the writing succeeds.
    state: &'p mut GraphCpuState,
    /// The event.
    ev: &'p GraphEvent<'p>,
    /// Its common header.
    header: EntryHeader,
    /// The options.
    flags: &'p GraphFlags,
    /// The module's part.
    cx: &'p GraphContext<'p>,
}

impl Printer<'_> {
    /// Prints the event by its type.
    fn print(&mut self, next: Option<&GraphEvent<'_>>) -> Result<Printed, fmt::Error> {
        match self.header.kind {
            TYPE_GRAPH_ENT => match decode_entry(self.ev.record) {
                Some(entry) => self.entry(&entry, next),
                None => Ok(Printed::Unhandled),
            },
            TYPE_GRAPH_RET => match decode_exit(self.ev.record) {
                Some(exit) => self.exit(&exit).map(|()| Printed::This),
                None => Ok(Printed::Unhandled),
            },
            TYPE_FUNCTION | TYPE_KERNEL_STACK => Ok(Printed::Unhandled),
            _ => self.comment(),
        }
    }

    /// A function entry (`print_graph_entry`): a leaf on one line when
    /// `next` is its return, else the opening of a block.
    fn entry(
        &mut self,
        entry: &GraphEntry,
        next: Option<&GraphEvent<'_>>,
    ) -> Result<Printed, fmt::Error> {
        let depth = entry.depth as i64;
        if self.skips_irq_entry(entry.func, depth) {
            return Ok(Printed::This);
        }
        self.prologue(Some(entry.func))?;
        match next.and_then(|next| self.leaf_return(entry, next)) {
            Some(exit) => self.leaf(depth, &exit).map(|()| Printed::ThisAndNext),
            None => self.nested(entry, depth).map(|()| Printed::This),
        }
    }

    /// `next` as the return of `entry`, when it is one: the same task
    /// returning from the same function.
    fn leaf_return(&self, entry: &GraphEntry, next: &GraphEvent<'_>) -> Option<GraphExit> {
        let exit = decode_exit(next.record)?;
        let same_task = EntryHeader::from_bytes(next.record)?.pid == self.header.pid;
        (same_task && exit.func == entry.func).then_some(exit)
    }

    /// A leaf call, `func();` with its duration (`print_graph_entry_leaf`).
    fn leaf(&mut self, depth: i64, exit: &GraphExit) -> fmt::Result {
        // Comments after a leaf indent as the leaf.
        self.state.depth = depth.saturating_sub(1);
        if let Some(entered) = self.state.entered_at(depth) {
            *entered = 0;
        }
        self.duration(Duration::Time(exit.duration()))?;
        write_indent(self.out, depth)?;
        self.function(exit.func)?;
        self.out.write_str("();")?;
        if self.flags.retval {
            self.out.write_str(" /*")?;
            self.retval(exit.retval)?;
            self.out.write_str(" */")?;
        }
        self.out.write_char('\n')?;
        self.irq_marker(exit.func, Arrow::Leave)
    }

    /// The opening of a call, `func() {` (`print_graph_entry_nested`).
    fn nested(&mut self, entry: &GraphEntry, depth: i64) -> fmt::Result {
        self.state.depth = depth;
        if let Some(entered) = self.state.entered_at(depth) {
            *entered = entry.func;
        }
        self.duration(Duration::Blank)?;
        write_indent(self.out, depth)?;
        self.function(entry.func)?;
        self.out.write_str("() {\n")
    }

    /// A return, `}` with the call's duration (`print_graph_return`); the
    /// brace names the function with `funcgraph-tail` or when its entry is
    /// not in view, and carries the return value with `funcgraph-retval`.
    fn exit(&mut self, exit: &GraphExit) -> fmt::Result {
        let depth = i64::from(exit.depth as i32);
        if self.skips_irq_return(depth) {
            return Ok(());
        }
        // Comments after a return indent as its brace.
        self.state.depth = depth.saturating_sub(1);
        let mut entry_seen = true;
        if let Some(entered) = self.state.entered_at(depth) {
            entry_seen = *entered == exit.func;
            *entered = 0;
        }
        self.prologue(None)?;
        self.duration(Duration::Time(exit.duration()))?;
        write_indent(self.out, depth)?;
        if self.flags.retval {
            self.out.write_str("} /* ")?;
            self.function(exit.func)?;
            self.retval(exit.retval)?;
            self.out.write_str(" */")?;
        } else if entry_seen && !self.flags.tail {
            self.out.write_char('}')?;
        } else {
            self.out.write_str("} /* ")?;
            self.function(exit.func)?;
            self.out.write_str(" */")?;
        }
        self.out.write_char('\n')?;
        if self.flags.overrun {
            writeln!(self.out, " (Overruns: {})", exit.overrun)?;
        }
        self.irq_marker(exit.func, Arrow::Leave)
    }

    /// Any other event, as a comment at the depth reached
    /// (`print_graph_comment`): a `print` record's text alone, else the
    /// event's default text, without its final newline.
    fn comment(&mut self) -> Result<Printed, fmt::Error> {
        let depth = self.state.depth;
        self.prologue(None)?;
        self.duration(Duration::Blank)?;
        if depth > 0 {
            write_indent(self.out, depth.saturating_add(1))?;
        }
        self.out.write_str("/* ")?;
        let kind = self.header.kind;
        let mut body = WithoutFinalNewline::new(&mut *self.out);
        if kind == TYPE_PRINT {
            records::write_print_message(&mut body, self.ev.record)?;
        } else if records::functions(kind).is_some() {
            records::write_text_body(&mut body, &self.header, self.ev.record, &self.cx.print)?;
        } else {
            return Ok(Printed::Unhandled);
        }
        self.out.write_str(" */\n")?;
        Ok(Printed::This)
    }

    /// Whether an entry is left out as part of an interrupt
    /// (`check_irq_entry`): with `funcgraph-irqs` off, an irq-entry
    /// function and all it calls are.
    fn skips_irq_entry(&mut self, func: u64, depth: i64) -> bool {
        if self.flags.irqs {
            return false;
        }
        if self.state.depth_irq >= 0 {
            return true;
        }
        if !self.cx.irq_entry.contains(&func) {
            return false;
        }
        self.state.depth_irq = depth;
        true
    }

    /// Whether a return is left out as part of an interrupt
    /// (`check_irq_return`); the irq-entry function's own return, or any
    /// from no deeper, ends the skipping.
    fn skips_irq_return(&mut self, depth: i64) -> bool {
        if self.flags.irqs || self.state.depth_irq == NOT_IN_IRQ {
            return false;
        }
        if self.state.depth_irq >= depth {
            self.state.depth_irq = NOT_IN_IRQ;
        }
        true
    }

    /// Writes a function's name (`%ps`).
    fn function(&mut self, func: u64) -> fmt::Result {
        write_function(self.out, self.cx.print.symbols, func)
    }

    /// Writes ` ret=<value>` (`print_graph_retval`): an error number in
    /// decimal, anything else in hex, or everything in hex with
    /// `funcgraph-retval-hex`.
    fn retval(&mut self, retval: u64) -> fmt::Result {
        match error_code(retval) {
            Some(err) if !self.flags.retval_hex => write!(self.out, " ret={err}"),
            _ => write!(self.out, " ret={retval:#x}"),
        }
    }
}

/// The highest error number (the kernel's `MAX_ERRNO`).
const MAX_ERRNO: u64 = 4095;

/// A return value as a negative error number, when it is one (the kernel's
/// `IS_ERR_VALUE`): `-4095..=-1` as a 64-bit value, or as a 32-bit `int`
/// the register holds zero-extended.
fn error_code(retval: u64) -> Option<i64> {
    let widened = if retval & (1 << 31) != 0 && retval >> 32 == 0 {
        i64::from(retval as u32 as i32) as u64
    } else {
        retval
    };
    (widened >= MAX_ERRNO.wrapping_neg()).then_some(widened as i64)
}

/// Passes text on but holds back a final newline, dropped at the end (a
/// comment strips its event's).
struct WithoutFinalNewline<'a> {
    /// Where the text goes.
    out: &'a mut dyn fmt::Write,
    /// A newline ended the text so far, and is not written yet.
    held: bool,
}

impl<'a> WithoutFinalNewline<'a> {
    /// Passes text on to `out`.
    fn new(out: &'a mut dyn fmt::Write) -> Self {
        WithoutFinalNewline { out, held: false }
    }
}

impl fmt::Write for WithoutFinalNewline<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.is_empty() {
            return Ok(());
        }
        if self.held {
            self.out.write_char('\n')?;
        }
        let (text, held) = match s.strip_suffix('\n') {
            Some(text) => (text, true),
            None => (s, false),
        };
        self.held = held;
        self.out.write_str(text)
    }
}
