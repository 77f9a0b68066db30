// SPDX-License-Identifier: GPL-2.0

//! Text output of trace records, in the kernel's formats: the header of the
//! `trace` file and the context columns that start every line.

use core::fmt;

mod columns;

/// `trace_entry.flags`: interrupts were off.
pub(crate) const FLAG_IRQS_OFF: u8 = 0x01;
/// `trace_entry.flags`: a lazy reschedule was pending.
pub(crate) const FLAG_NEED_RESCHED_LAZY: u8 = 0x02;
/// `trace_entry.flags`: a reschedule was pending.
pub(crate) const FLAG_NEED_RESCHED: u8 = 0x04;
/// `trace_entry.flags`: in hard interrupt context.
pub(crate) const FLAG_HARDIRQ: u8 = 0x08;
/// `trace_entry.flags`: in soft interrupt context.
pub(crate) const FLAG_SOFTIRQ: u8 = 0x10;
/// `trace_entry.flags`: preemption was requested.
pub(crate) const FLAG_PREEMPT_RESCHED: u8 = 0x20;
/// `trace_entry.flags`: in NMI context.
pub(crate) const FLAG_NMI: u8 = 0x40;
/// `trace_entry.flags`: bottom halves were off.
pub(crate) const FLAG_BH_OFF: u8 = 0x80;

/// Size of the common header of every record (`struct trace_entry`).
pub(crate) const ENTRY_HEADER_SIZE: usize = 8;

/// The common header of every record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EntryHeader {
    /// Event type id.
    pub(crate) kind: u16,
    /// `FLAG_*` bits.
    pub(crate) flags: u8,
    /// Preemption depth (low nibble) and migrate-disable depth (high).
    pub(crate) preempt_count: u8,
    /// Task that wrote the record.
    pub(crate) pid: i32,
}

impl EntryHeader {
    /// Encodes the header as stored in a record.
    #[inline]
    pub(crate) fn to_bytes(self) -> [u8; ENTRY_HEADER_SIZE] {
        let mut b = [0u8; ENTRY_HEADER_SIZE];
        b[..2].copy_from_slice(&self.kind.to_le_bytes());
        b[2] = self.flags;
        b[3] = self.preempt_count;
        b[4..].copy_from_slice(&self.pid.to_le_bytes());
        b
    }

    /// Sets the flags and preemption depth of an encoded record.
    #[cfg(test)]
    pub(crate) fn set_context(record: &mut [u8], flags: u8, preempt_count: u8) {
        if let Some(bytes) = record.get_mut(2..4) {
            bytes.copy_from_slice(&[flags, preempt_count]);
        }
    }

    /// Decodes the header at the start of a record.
    pub(crate) fn from_bytes(record: &[u8]) -> Option<Self> {
        let b = record.get(..ENTRY_HEADER_SIZE)?;
        Some(EntryHeader {
            kind: u16::from_le_bytes([b[0], b[1]]),
            flags: b[2],
            preempt_count: b[3],
            pid: i32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        })
    }
}

/// The five latency columns (irqs-off, need-resched, hardirq/softirq,
/// preempt-depth, migrate-disable), as ftrace prints them.
pub(crate) fn latency_flags(flags: u8, preempt_count: u8) -> [u8; 5] {
    let irqs_off = match (flags & FLAG_IRQS_OFF != 0, flags & FLAG_BH_OFF != 0) {
        (true, true) => b'D',
        (true, false) => b'd',
        (false, true) => b'b',
        (false, false) => b'.',
    };
    let resched = match flags & (FLAG_NEED_RESCHED | FLAG_NEED_RESCHED_LAZY | FLAG_PREEMPT_RESCHED)
    {
        x if x == FLAG_NEED_RESCHED | FLAG_NEED_RESCHED_LAZY | FLAG_PREEMPT_RESCHED => b'B',
        x if x == FLAG_NEED_RESCHED | FLAG_PREEMPT_RESCHED => b'N',
        x if x == FLAG_NEED_RESCHED_LAZY | FLAG_PREEMPT_RESCHED => b'L',
        x if x == FLAG_NEED_RESCHED | FLAG_NEED_RESCHED_LAZY => b'b',
        FLAG_NEED_RESCHED => b'n',
        FLAG_PREEMPT_RESCHED => b'p',
        FLAG_NEED_RESCHED_LAZY => b'l',
        _ => b'.',
    };
    let (nmi, hard, soft) = (
        flags & FLAG_NMI != 0,
        flags & FLAG_HARDIRQ != 0,
        flags & FLAG_SOFTIRQ != 0,
    );
    let context = match (nmi, hard, soft) {
        (true, true, _) => b'Z',
        (true, false, _) => b'z',
        (false, true, true) => b'H',
        (false, true, false) => b'h',
        (false, false, true) => b's',
        _ => b'.',
    };
    let digit = |n: u8| {
        if n == 0 {
            b'.'
        } else {
            b"0123456789abcdef"[usize::from(n & 0xf)]
        }
    };
    [
        irqs_off,
        resched,
        context,
        digit(preempt_count & 0xf),
        digit(preempt_count >> 4),
    ]
}

/// How the context columns of `trace` lines print: what the options
/// `irq-info` and `record-tgid` add and the clock's unit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContextStyle {
    /// `irq-info`: the five latency columns.
    pub(crate) irq_info: bool,
    /// `record-tgid`: the thread group column.
    pub(crate) tgid: bool,
    /// The clock counts nanoseconds (else the raw time stamp prints).
    pub(crate) ts_in_ns: bool,
}

/// Writes the context columns that start a line of `trace`
/// (`trace_print_context`): `comm-pid [cpu] flags seconds.micros: `, with
/// `record-tgid` the task's thread group after the pid (`(-------)` when
/// unknown: `tgid` 0).
pub(crate) fn write_context(
    out: &mut dyn fmt::Write,
    comm: &str,
    tgid: i32,
    entry: &EntryHeader,
    cpu: u32,
    ts: u64,
    style: ContextStyle,
) -> fmt::Result {
    // `{comm:>16}-{pid:<7} `, and so on, padded without `core::fmt`'s
    // call per fill character (see `columns`).
    columns::right(out, comm, 16)?;
    out.write_str("-")?;
    columns::signed_left(out, i64::from(entry.pid), 7)?;
    out.write_str(" ")?;
    if style.tgid {
        if tgid == 0 {
            out.write_str("(-------) ")?;
        } else {
            write!(out, "({tgid:7}) ")?;
        }
    }
    out.write_str("[")?;
    columns::zero_padded(out, u64::from(cpu), 3)?;
    out.write_str("] ")?;
    if style.irq_info {
        let flags = latency_flags(entry.flags, entry.preempt_count);
        // The flags are ASCII.
        out.write_str(core::str::from_utf8(&flags).unwrap_or("....."))?;
    }
    out.write_str(" ")?;
    if style.ts_in_ns {
        let micros = ts / 1000;
        columns::number(out, micros / 1_000_000, 5)?;
        out.write_str(".")?;
        columns::zero_padded(out, micros % 1_000_000, 6)?;
    } else {
        columns::number(out, ts, 12)?;
    }
    out.write_str(": ")
}

/// Writes the header of the `trace` file (`print_event_info`, then
/// `print_func_help_header_irq` or `print_func_help_header`): with
/// `irq_info` the legend of the latency columns, with `tgid` the `TGID`
/// column.
pub(crate) fn write_trace_header(
    out: &mut dyn fmt::Write,
    tracer: &str,
    entries: u64,
    written: u64,
    online_cpus: u32,
    irq_info: bool,
    tgid: bool,
) -> fmt::Result {
    writeln!(out, "# tracer: {tracer}\n#")?;
    writeln!(
        out,
        "# entries-in-buffer/entries-written: {entries}/{written}   #P:{online_cpus}\n#"
    )?;
    if !irq_info {
        let (title, bar) = if tgid {
            ("   TGID   ", "     |    ")
        } else {
            ("", "")
        };
        writeln!(
            out,
            "#           TASK-PID    {title} CPU#     TIMESTAMP  FUNCTION"
        )?;
        return writeln!(out, "#              | |      {bar}   |         |         |");
    }
    // The kernel's own construction: the legend moves right by the width
    // of the TGID column, cut from these strings.
    const SPACE: &str = "            ";
    let prec = if tgid { 12 } else { 2 };
    writeln!(
        out,
        "#                            {SPACE:.prec$}  _-----=> irqs-off/BH-disabled"
    )?;
    writeln!(
        out,
        "#                            {SPACE:.prec$} / _----=> need-resched"
    )?;
    writeln!(
        out,
        "#                            {SPACE:.prec$}| / _---=> hardirq/softirq"
    )?;
    writeln!(
        out,
        "#                            {SPACE:.prec$}|| / _--=> preempt-depth"
    )?;
    writeln!(
        out,
        "#                            {SPACE:.prec$}||| / _-=> migrate-disable"
    )?;
    writeln!(
        out,
        "#                            {SPACE:.prec$}|||| /     delay"
    )?;
    writeln!(
        out,
        "#           TASK-PID  {:.prec$} CPU#  |||||  TIMESTAMP  FUNCTION",
        "     TGID   "
    )?;
    writeln!(
        out,
        "#              | |    {:.prec$}   |   |||||     |         |",
        "       |    "
    )
}

/// What the `latency-format` header of `trace` shows (ftrace's
/// `print_trace_header`). Without a latency tracer there is no recorded
/// maximum, so the latency is 0 and the task is empty, as in ftrace.
pub(crate) struct LatencyHeader<'a> {
    /// The current tracer.
    pub(crate) tracer: &'a str,
    /// The kernel release (`uname -r`).
    pub(crate) release: &'a str,
    /// Events in the buffer.
    pub(crate) entries: u64,
    /// Events written.
    pub(crate) written: u64,
    /// The preemption model, as the kernel names it (`PREEMPT`, ...).
    pub(crate) preempt_model: &'a str,
    /// Online CPUs.
    pub(crate) online_cpus: u32,
    /// The buffer's CPU: where the function tracer last started.
    pub(crate) cpu: u32,
}

/// Writes the `latency-format` header: the latency summary, then the
/// legend of the latency columns (`print_lat_help_header`).
pub(crate) fn write_latency_header(out: &mut dyn fmt::Write, h: &LatencyHeader<'_>) -> fmt::Result {
    write_latency_summary(out, h)?;
    out.write_str(
        "#                    _------=> CPU#            \n\
         #                   / _-----=> irqs-off/BH-disabled\n\
         #                  | / _----=> need-resched    \n\
         #                  || / _---=> hardirq/softirq \n\
         #                  ||| / _--=> preempt-depth   \n\
         #                  |||| / _-=> migrate-disable \n\
         #                  ||||| /     delay           \n\
         #  cmd     pid     |||||| time  |   caller     \n\
         #     \\   /        ||||||  \\    |    /       \n",
    )
}

/// Writes the latency summary that starts a `latency-format` header
/// (ftrace's `print_trace_header`), without the legend of the columns: the
/// function_graph tracer follows it with its own.
pub(crate) fn write_latency_summary(
    out: &mut dyn fmt::Write,
    h: &LatencyHeader<'_>,
) -> fmt::Result {
    writeln!(out, "# {} latency trace v1.1.5 on {}", h.tracer, h.release)?;
    out.write_str("# --------------------------------------------------------------------\n")?;
    writeln!(
        out,
        "# latency: 0 us, #{}/{}, CPU#{} | (M:{} VP:0, KP:0, SP:0 HP:0 #P:{})",
        h.entries, h.written, h.cpu, h.preempt_model, h.online_cpus
    )?;
    out.write_str(
        "#    -----------------\n\
         #    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n\
         #    -----------------\n\
         #\n",
    )
}

/// The mark ftrace puts after a latency time stamp for the time to the
/// next event, and before a function_graph duration (`trace_find_mark`):
/// `$` over a second, `@` 100 ms, `*` 10 ms, `#` 1 ms, `!` 100 us, `+`
/// 10 us, else a space.
pub(crate) fn delay_mark(delta_ns: u64) -> char {
    const MARKS: [(u64, char); 6] = [
        (1_000_000_000, '$'),
        (100_000_000, '@'),
        (10_000_000, '*'),
        (1_000_000, '#'),
        (100_000, '!'),
        (10_000, '+'),
    ];
    MARKS
        .iter()
        .find(|(limit, _)| delta_ns > *limit)
        .map_or(' ', |&(_, mark)| mark)
}

/// Time stamps of a line in the latency format: its own, the next event's
/// (its own when it is the last) and the start of the buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LatencyTimes {
    /// The event's time stamp.
    pub(crate) ts: u64,
    /// The next event's time stamp.
    pub(crate) next_ts: u64,
    /// Where the buffer's time starts.
    pub(crate) start: u64,
    /// Whether the clock counts nanoseconds.
    pub(crate) in_ns: bool,
}

/// Writes the context columns of the `latency-format` output
/// (`trace_print_lat_context`): `comm-pid cpu flags time+mark: `, the
/// command cut to 8 characters and the time in microseconds from the
/// buffer's start.
pub(crate) fn write_latency_context(
    out: &mut dyn fmt::Write,
    comm: &str,
    entry: &EntryHeader,
    cpu: u32,
    t: LatencyTimes,
) -> fmt::Result {
    let short = comm.char_indices().nth(8).map_or(comm, |(i, _)| &comm[..i]);
    write!(out, "{short:>8}-{:<7} {cpu:3}", entry.pid)?;
    for c in latency_flags(entry.flags, entry.preempt_count) {
        out.write_char(char::from(c))?;
    }
    let abs = t.ts.wrapping_sub(t.start);
    let rel = t.next_ts.wrapping_sub(t.ts);
    if t.in_ns {
        let rel_us = rel / 1000;
        write!(out, " {:4}us{}: ", abs / 1000, delay_mark(rel_us * 1000))
    } else {
        write!(out, " {abs:4}: ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl Fn(&mut String) -> fmt::Result) -> String {
        let mut s = String::new();
        assert!(f(&mut s).is_ok());
        s
    }

    const STYLE: ContextStyle = ContextStyle {
        irq_info: true,
        tgid: false,
        ts_in_ns: true,
    };

    #[test]
    fn context_matches_ftrace() {
        let e = EntryHeader {
            kind: 5,
            flags: 0,
            preempt_count: 0,
            pid: 1234,
        };
        let line = text(|s| write_context(s, "bash", 0, &e, 1, 12_345_678_901, STYLE));
        assert_eq!(line, "            bash-1234    [001] .....    12.345678: ");
        let style = ContextStyle {
            irq_info: false,
            ..STYLE
        };
        let line = text(|s| write_context(s, "bash", 0, &e, 1, 12_345_678_901, style));
        assert_eq!(line, "            bash-1234    [001]     12.345678: ");
        let style = ContextStyle {
            ts_in_ns: false,
            ..STYLE
        };
        let line = text(|s| write_context(s, "bash", 0, &e, 1, 42, style));
        assert_eq!(line, "            bash-1234    [001] .....           42: ");
    }

    #[test]
    fn context_columns_pad_as_the_format_they_replace() {
        let reference = |comm: &str, pid: i32, cpu: u32, ts: u64| {
            let micros = ts / 1000;
            format!(
                "{comm:>16}-{pid:<7} [{cpu:03}] ..... {:5}.{:06}: ",
                micros / 1_000_000,
                micros % 1_000_000
            )
        };
        let cases = [
            ("", 0, 0, 0),
            ("rftracetest", 191, 1, 5_671_877_000),
            ("a-name-of-16-chr", 1_234_567, 12, 99_999_999_999_999),
            ("kworker/u8:2-events_unbound", -1, 1023, u64::MAX),
        ];
        for (comm, pid, cpu, ts) in cases {
            let e = EntryHeader {
                kind: 1,
                flags: 0,
                preempt_count: 0,
                pid,
            };
            let line = text(|s| write_context(s, comm, 0, &e, cpu, ts, STYLE));
            assert_eq!(line, reference(comm, pid, cpu, ts));
        }
    }

    #[test]
    fn context_with_tgid_matches_ftrace() {
        let e = EntryHeader {
            kind: 5,
            flags: 0,
            preempt_count: 0,
            pid: 1235,
        };
        let style = ContextStyle {
            tgid: true,
            ..STYLE
        };
        // "%16s-%-7d ", then "(%7d) " or "(-------) ", then "[%03d] ".
        let line = text(|s| write_context(s, "bash", 1234, &e, 1, 12_345_678_901, style));
        assert_eq!(
            line,
            "            bash-1235    (   1234) [001] .....    12.345678: "
        );
        let line = text(|s| write_context(s, "bash", 0, &e, 0, 12_345_678_901, style));
        assert_eq!(
            line,
            "            bash-1235    (-------) [000] .....    12.345678: "
        );
    }

    #[test]
    fn latency_columns() {
        assert_eq!(&latency_flags(0, 0), b".....");
        assert_eq!(&latency_flags(FLAG_IRQS_OFF | FLAG_HARDIRQ, 1), b"d.h1.");
        assert_eq!(
            &latency_flags(FLAG_IRQS_OFF | FLAG_BH_OFF | FLAG_NMI | FLAG_HARDIRQ, 0x12),
            b"D.Z21"
        );
        assert_eq!(
            &latency_flags(FLAG_NEED_RESCHED | FLAG_PREEMPT_RESCHED | FLAG_SOFTIRQ, 0),
            b".Ns.."
        );
    }

    #[test]
    fn entry_header_round_trips() {
        let e = EntryHeader {
            kind: 5,
            flags: 0x81,
            preempt_count: 0x21,
            pid: -3,
        };
        assert_eq!(EntryHeader::from_bytes(&e.to_bytes()), Some(e));
        assert_eq!(EntryHeader::from_bytes(&[0; 7]), None);
        let mut bytes = e.to_bytes();
        EntryHeader::set_context(&mut bytes, 1, 2);
        assert_eq!(
            EntryHeader::from_bytes(&bytes),
            Some(EntryHeader {
                flags: 1,
                preempt_count: 2,
                ..e
            })
        );
    }

    /// The column lines of the `trace` header: after the buffer's counts.
    fn columns(irq_info: bool, tgid: bool) -> String {
        let h = text(|s| write_trace_header(s, "nop", 3, 5, 2, irq_info, tgid));
        let start = "# tracer: nop\n#\n# entries-in-buffer/entries-written: 3/5   #P:2\n#\n";
        assert!(h.starts_with(start));
        h[start.len()..].to_string()
    }

    // The expected texts are what the kernel's printf formats
    // (`print_func_help_header*`) print.
    #[test]
    fn header_has_the_kernel_columns() {
        assert_eq!(
            columns(true, false),
            "#                                _-----=> irqs-off/BH-disabled\n\
             #                               / _----=> need-resched\n\
             #                              | / _---=> hardirq/softirq\n\
             #                              || / _--=> preempt-depth\n\
             #                              ||| / _-=> migrate-disable\n\
             #                              |||| /     delay\n\
             #           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n\
             #              | |         |   |||||     |         |\n"
        );
        assert_eq!(
            columns(false, false),
            "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n\
             #              | |         |         |         |\n"
        );
    }

    #[test]
    fn header_with_tgid_has_the_kernel_columns() {
        assert_eq!(
            columns(true, true),
            "#                                          _-----=> irqs-off/BH-disabled\n\
             #                                         / _----=> need-resched\n\
             #                                        | / _---=> hardirq/softirq\n\
             #                                        || / _--=> preempt-depth\n\
             #                                        ||| / _-=> migrate-disable\n\
             #                                        |||| /     delay\n\
             #           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n\
             #              | |           |       |   |||||     |         |\n"
        );
        assert_eq!(
            columns(false, true),
            "#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n\
             #              | |           |       |         |         |\n"
        );
    }

    #[test]
    fn latency_context_matches_ftrace() {
        let e = EntryHeader {
            kind: 5,
            flags: FLAG_IRQS_OFF,
            preempt_count: 1,
            pid: 87,
        };
        let t = LatencyTimes {
            ts: 5_123_456,
            next_ts: 5_123_456,
            start: 1_000_000,
            in_ns: true,
        };
        let line = text(|s| write_latency_context(s, "sh", &e, 1, t));
        assert_eq!(line, "      sh-87        1d..1. 4123us : ");
        let t = LatencyTimes {
            next_ts: 5_123_456 + 150_000,
            ..t
        };
        let line = text(|s| write_latency_context(s, "longcommand", &e, 0, t));
        assert_eq!(line, "longcomm-87        0d..1. 4123us!: ");
        let t = LatencyTimes {
            ts: 42,
            next_ts: 50,
            start: 0,
            in_ns: false,
        };
        let line = text(|s| write_latency_context(s, "sh", &e, 0, t));
        assert_eq!(line, "      sh-87        0d..1.   42: ");
    }

    #[test]
    fn delay_marks() {
        assert_eq!(delay_mark(0), ' ');
        assert_eq!(delay_mark(10_000), ' ');
        assert_eq!(delay_mark(10_001), '+');
        assert_eq!(delay_mark(2_000_000), '#');
        assert_eq!(delay_mark(5_000_000_000), '$');
    }

    #[test]
    fn latency_header_has_the_kernel_lines() {
        let h = LatencyHeader {
            tracer: "nop",
            release: "7.2.12",
            entries: 1,
            written: 2,
            preempt_model: "PREEMPT",
            online_cpus: 2,
            cpu: 1,
        };
        let s = text(|s| write_latency_header(s, &h));
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "# nop latency trace v1.1.5 on 7.2.12");
        assert_eq!(lines[1].len(), 70);
        assert_eq!(
            lines[2],
            "# latency: 0 us, #1/2, CPU#1 | (M:PREEMPT VP:0, KP:0, SP:0 HP:0 #P:2)"
        );
        assert_eq!(
            lines[4],
            "#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)"
        );
        assert_eq!(lines[14], "#  cmd     pid     |||||| time  |   caller     ");
        assert_eq!(lines.len(), 16);
    }
}
