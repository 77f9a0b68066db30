// SPDX-License-Identifier: GPL-2.0

//! What surrounds the call tree in the function_graph tracer's lines: the
//! columns that start them (time, CPU, task, latency flags), the duration
//! column, the context-switch block, the irq-entry markers, and the header
//! that names the columns.

use super::super::output::{delay_mark, latency_flags, EntryHeader};
use super::{CommFn, GraphFlags, Printer, NO_PID};
use core::fmt::{self, Write as _};

/// Width the task column centers `comm-pid` in (the kernel's
/// `TRACE_GRAPH_PROCINFO_LENGTH`).
const PROCINFO_LENGTH: usize = 14;

/// How much of a command the task column shows.
const PROC_COMM_LENGTH: usize = 7;

/// Width the duration's number and unit are padded to, before ` us `.
const DURATION_WIDTH: usize = 8;

/// Digits of microseconds past which a duration shows no fraction.
const DURATION_DIGITS: usize = 7;

/// The line above and below the context-switch block.
const SWITCH_RULE: &str = " ------------------------------------------\n";

/// What the duration column holds on a line.
#[derive(Clone, Copy, Debug)]
pub(super) enum Duration {
    /// A call's duration, in nanoseconds.
    Time(u64),
    /// Nothing: a line with no duration (an opening brace, a comment).
    Blank,
    /// What precedes an irq-entry marker.
    Start,
    /// What follows an irq-entry marker.
    End,
}

/// Which way an irq-entry marker points.
#[derive(Clone, Copy, Debug)]
pub(super) enum Arrow {
    /// Entering an irq-entry function, `==========>`.
    Enter,
    /// Returning from one, `<==========`.
    Leave,
}

impl Printer<'_> {
    /// What starts each event's lines (`print_graph_prologue`): the
    /// context-switch block when the CPU's task changed, the irq-entry
    /// marker when `entered` is an irq-entry function, then the columns.
    pub(super) fn prologue(&mut self, entered: Option<u64>) -> fmt::Result {
        self.task_switch()?;
        if let Some(func) = entered {
            self.irq_marker(func, Arrow::Enter)?;
        }
        self.columns()
    }

    /// The context-switch block, when this event's task is not the last
    /// one seen on its CPU (`verif_pid`; the CPU's first event prints
    /// none).
    fn task_switch(&mut self) -> fmt::Result {
        let pid = self.header.pid;
        let previous = core::mem::replace(&mut self.state.last_pid, pid);
        if previous == pid || previous == NO_PID {
            return Ok(());
        }
        self.out.write_str(SWITCH_RULE)?;
        write_cpu(self.out, self.ev.cpu, self.cx.nr_cpu_ids)?;
        write_proc(self.out, self.cx.comm, previous)?;
        self.out.write_str(" => ")?;
        write_proc(self.out, self.cx.comm, pid)?;
        self.out.write_char('\n')?;
        self.out.write_str(SWITCH_RULE)?;
        self.out.write_char('\n')
    }

    /// The marker line of entering or leaving an irq-entry function
    /// (`print_graph_irq`); nothing for another function.
    pub(super) fn irq_marker(&mut self, func: u64, arrow: Arrow) -> fmt::Result {
        if !self.cx.irq_entry.contains(&func) {
            return Ok(());
        }
        self.columns()?;
        self.duration(Duration::Start)?;
        self.out.write_str(match arrow {
            Arrow::Enter => "==========>",
            Arrow::Leave => "<==========",
        })?;
        self.duration(Duration::End)?;
        self.out.write_char('\n')
    }

    /// The columns before the duration, each if its option is on, none
    /// without `context-info`: time stamp, time since the buffer's start,
    /// CPU, task, latency flags.
    fn columns(&mut self) -> fmt::Result {
        if !self.flags.context_info {
            return Ok(());
        }
        if self.flags.abstime {
            write_abs_time(self.out, self.ev.ts)?;
        }
        if self.flags.rel_time {
            let since = self.ev.ts.wrapping_sub(self.cx.time_start);
            write!(self.out, "{:9} us |  ", since / 1000)?;
        }
        if self.flags.cpu {
            write_cpu(self.out, self.ev.cpu, self.cx.nr_cpu_ids)?;
        }
        if self.flags.proc {
            write_proc(self.out, self.cx.comm, self.header.pid)?;
            self.out.write_str(" | ")?;
        }
        if self.flags.latency_format {
            write_lat_fmt(self.out, &self.header)?;
        }
        Ok(())
    }

    /// The duration column (`print_graph_duration`), with
    /// `funcgraph-duration` and `context-info`: `+ 12.304 us   |  `, or
    /// the blank or marker filling of a line without a duration.
    pub(super) fn duration(&mut self, column: Duration) -> fmt::Result {
        if !self.flags.duration || !self.flags.context_info {
            return Ok(());
        }
        let time = match column {
            Duration::Blank => return self.out.write_str("              |  "),
            Duration::Start => return self.out.write_str("  "),
            Duration::End => return self.out.write_str(" |"),
            Duration::Time(time) => time,
        };
        if self.flags.overhead {
            write!(self.out, "{} ", delay_mark(time))?;
        } else {
            self.out.write_str("  ")?;
        }
        write_duration_value(self.out, time)?;
        self.out.write_str("|  ")
    }
}

/// Decimal digits of `n`.
fn decimal_digits(mut n: u64) -> usize {
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}

/// Writes a duration in microseconds with up to three decimals, as many
/// as keep the number within seven characters, then ` us ` and the spaces
/// that pad the number to eight (`trace_print_graph_duration`); a
/// duration of 10^8 us or more is wider.
fn write_duration_value(out: &mut dyn fmt::Write, duration: u64) -> fmt::Result {
    let (micros, nanos) = (duration / 1000, duration % 1000);
    let digits = decimal_digits(micros);
    write!(out, "{micros}")?;
    let mut width = digits;
    if digits < DURATION_DIGITS {
        let decimals = (DURATION_DIGITS - digits).min(3);
        let fraction = nanos / 10u64.pow(3 - decimals as u32);
        write!(out, ".{fraction:0decimals$}")?;
        width += decimals + 1;
    }
    out.write_str(" us ")?;
    write!(out, "{:1$}", "", DURATION_WIDTH.saturating_sub(width))
}

/// The CPU column, ` 1) `, the number as wide as the largest CPU id
/// (`print_graph_cpu`).
fn write_cpu(out: &mut dyn fmt::Write, cpu: u32, nr_cpu_ids: u32) -> fmt::Result {
    let width = decimal_digits(u64::from(nr_cpu_ids.saturating_sub(1)));
    write!(out, " {cpu:>width$}) ")
}

/// The time stamp column, `   12.345678 |  ` (`print_graph_abs_time`): the
/// time stamp read as nanoseconds, whatever the clock.
fn write_abs_time(out: &mut dyn fmt::Write, ts: u64) -> fmt::Result {
    let (secs, nanos) = (ts / 1_000_000_000, ts % 1_000_000_000);
    write!(out, "{secs:5}.{:06} |  ", nanos / 1000)
}

/// The latency flags column, ` d..1. | ` (`print_graph_lat_fmt`).
fn write_lat_fmt(out: &mut dyn fmt::Write, header: &EntryHeader) -> fmt::Result {
    out.write_char(' ')?;
    for c in latency_flags(header.flags, header.preempt_count) {
        out.write_char(char::from(c))?;
    }
    out.write_str(" | ")
}

/// The task of `pid` as `comm-pid`, the command cut to seven bytes,
/// centered in fourteen columns (`print_graph_proc`).
fn write_proc(out: &mut dyn fmt::Write, comm_of: CommFn<'_>, pid: i32) -> fmt::Result {
    let mut comm = Short::<16>::default();
    comm_of(pid, &mut comm)?;
    comm.truncate(PROC_COMM_LENGTH);
    let comm = comm.as_str();
    let mut number = Short::<12>::default();
    write!(number, "{pid}")?;
    let number = number.as_str();
    let spaces = PROCINFO_LENGTH.saturating_sub(comm.len() + number.len() + 1);
    write!(out, "{:1$}", "", spaces / 2)?;
    write!(out, "{comm}-{number}")?;
    write!(out, "{:1$}", "", spaces - spaces / 2)
}

/// A short text built without allocating; what does not fit is dropped.
#[derive(Default)]
struct Short<const N: usize> {
    /// Room for the text.
    buf: Bytes<N>,
    /// Bytes of it used.
    len: usize,
}

/// The bytes of a [`Short`] (arrays of any length have no `Default`).
struct Bytes<const N: usize>([u8; N]);

impl<const N: usize> Default for Bytes<N> {
    fn default() -> Self {
        Bytes([0; N])
    }
}

impl<const N: usize> Short<N> {
    /// Keeps the first `len` bytes.
    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// The text kept, up to where a cut split a character.
    fn as_str(&self) -> &str {
        let bytes = self.buf.0.get(..self.len).unwrap_or(&[]);
        match core::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                core::str::from_utf8(bytes.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or("")
            }
        }
    }
}

impl<const N: usize> fmt::Write for Short<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.buf.0.get_mut(self.len..).unwrap_or(&mut []);
        let n = room.len().min(s.len());
        if let (Some(to), Some(from)) = (room.get_mut(..n), s.as_bytes().get(..n)) {
            to.copy_from_slice(from);
        }
        self.len += n;
        Ok(())
    }
}

/// The header that names the columns (see [`super::write_graph_header`]).
pub(super) fn write_header(out: &mut dyn fmt::Write, flags: &GraphFlags) -> fmt::Result {
    if !flags.context_info {
        return Ok(());
    }
    if flags.latency_format {
        write_latency_legend(out, flags)?;
    }
    let columns = [
        (flags.abstime, "     TIME       ", "      |         "),
        (flags.rel_time, "   REL TIME     ", "      |         "),
        (flags.cpu, " CPU", " |  "),
        (flags.proc, "  TASK/PID       ", "   |    |        "),
        (flags.latency_format, "||||   ", "||||   "),
        (flags.duration, "  DURATION   ", "   |   |      "),
    ];
    out.write_char('#')?;
    for (_, name, _) in columns.iter().filter(|c| c.0) {
        out.write_str(name)?;
    }
    out.write_str("               FUNCTION CALLS\n#")?;
    for (_, _, ticks) in columns.iter().filter(|c| c.0) {
        out.write_str(ticks)?;
    }
    out.write_str("               |   |   |   |\n")
}

/// The legend of the latency flags column (`print_lat_header`), moved
/// right past the columns before it, by at most 37 spaces as in the
/// kernel.
fn write_latency_legend(out: &mut dyn fmt::Write, flags: &GraphFlags) -> fmt::Result {
    const SPACES: &str = "                                     ";
    let widths = [
        (flags.abstime, 16),
        (flags.rel_time, 16),
        (flags.cpu, 4),
        (flags.proc, 17),
    ];
    let size: usize = widths.iter().filter(|w| w.0).map(|w| w.1).sum();
    let pad = SPACES.get(..size).unwrap_or(SPACES);
    for line in [
        "  _-----=> irqs-off        ",
        " / _----=> need-resched    ",
        "| / _---=> hardirq/softirq ",
        "|| / _--=> preempt-depth   ",
        "||| /                      ",
    ] {
        writeln!(out, "#{pad}{line}")?;
    }
    Ok(())
}
