// SPDX-License-Identifier: GPL-2.0

//! Text output of trace records, in the kernel's formats: the header of the
//! `trace` file and the context columns that start every line.

use core::fmt;

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
    pub(crate) fn to_bytes(self) -> [u8; ENTRY_HEADER_SIZE] {
        let mut b = [0u8; ENTRY_HEADER_SIZE];
        b[..2].copy_from_slice(&self.kind.to_le_bytes());
        b[2] = self.flags;
        b[3] = self.preempt_count;
        b[4..].copy_from_slice(&self.pid.to_le_bytes());
        b
    }

    /// Sets the flags and preemption depth of an encoded record.
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

/// Writes the context columns that start a line of `trace`:
/// `comm-pid [cpu] flags seconds.micros: ` (or the raw time stamp when the
/// clock does not count nanoseconds).
pub(crate) fn write_context(
    out: &mut dyn fmt::Write,
    comm: &str,
    entry: &EntryHeader,
    cpu: u32,
    ts: u64,
    irq_info: bool,
    ts_in_ns: bool,
) -> fmt::Result {
    write!(out, "{comm:>16}-{:<7} [{cpu:03}] ", entry.pid)?;
    if irq_info {
        for c in latency_flags(entry.flags, entry.preempt_count) {
            out.write_char(char::from(c))?;
        }
    }
    if ts_in_ns {
        let micros = ts / 1000;
        write!(out, " {:5}.{:06}: ", micros / 1_000_000, micros % 1_000_000)
    } else {
        write!(out, " {ts:12}: ")
    }
}

/// Writes the header of the `trace` file.
pub(crate) fn write_trace_header(
    out: &mut dyn fmt::Write,
    tracer: &str,
    entries: u64,
    written: u64,
    online_cpus: u32,
    irq_info: bool,
) -> fmt::Result {
    writeln!(out, "# tracer: {tracer}\n#")?;
    writeln!(
        out,
        "# entries-in-buffer/entries-written: {entries}/{written}   #P:{online_cpus}\n#"
    )?;
    if irq_info {
        out.write_str(
            "#                              _-----=> irqs-off/BH-disabled\n\
             #                             / _----=> need-resched\n\
             #                            | / _---=> hardirq/softirq\n\
             #                            || / _--=> preempt-depth\n\
             #                            ||| / _-=> migrate-disable\n\
             #                            |||| /     delay\n\
             #           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n\
             #              | |         |   |||||     |         |\n",
        )
    } else {
        out.write_str(
            "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n\
             #              | |         |         |         |\n",
        )
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

    #[test]
    fn context_matches_ftrace() {
        let e = EntryHeader {
            kind: 5,
            flags: 0,
            preempt_count: 0,
            pid: 1234,
        };
        let line = text(|s| write_context(s, "bash", &e, 1, 12_345_678_901, true, true));
        assert_eq!(line, "            bash-1234    [001] .....    12.345678: ");
        let line = text(|s| write_context(s, "bash", &e, 1, 12_345_678_901, false, true));
        assert_eq!(line, "            bash-1234    [001]     12.345678: ");
        let line = text(|s| write_context(s, "bash", &e, 1, 42, true, false));
        assert_eq!(line, "            bash-1234    [001] .....           42: ");
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

    #[test]
    fn header_has_the_kernel_columns() {
        let h = text(|s| write_trace_header(s, "nop", 3, 5, 2, true));
        assert!(
            h.starts_with("# tracer: nop\n#\n# entries-in-buffer/entries-written: 3/5   #P:2\n#\n")
        );
        assert!(h.contains("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"));
    }
}
