// SPDX-License-Identifier: GPL-2.0

//! `function` records: one call seen by the function tracer, the called
//! function and its caller (the kernel's `TRACE_FN`, `struct
//! ftrace_entry`).
//!
//! Layout after the common header: `ip` at 8, `parent_ip` at 16, both
//! 8 bytes; the kernel's `args[]` (the `func-args` option) follows and is
//! never written here.

use super::super::output::{EntryHeader, ENTRY_HEADER_SIZE};
use super::words::RecordWords;
use super::{word_at, write_ip_sym, EventFormat, EventFunctions, PrintContext};
use core::fmt;

/// Type id of `function` records (the kernel's `TRACE_FN`).
pub(crate) const TYPE_FUNCTION: u16 = 1;

/// Offset of the `ip` field: the traced function's call site.
const IP: usize = ENTRY_HEADER_SIZE;

/// Offset of the `parent_ip` field: where the function was called from.
const PARENT_IP: usize = IP + 8;

/// Size of a `function` record (without arguments).
pub(crate) const FUNCTION_RECORD_SIZE: usize = PARENT_IP + 8;

/// A `function` record, as words.
pub(crate) type FunctionRecord = RecordWords<{ FUNCTION_RECORD_SIZE / 4 }>;

/// The `function` record of a call of `ip` from `parent_ip`.
#[inline]
pub(crate) fn function_record(header: EntryHeader, ip: u64, parent_ip: u64) -> FunctionRecord {
    let mut record = FunctionRecord::new(header);
    record.put_u64(IP, ip);
    record.put_u64(PARENT_IP, parent_ip);
    record
}

/// Encodes a `function` record into `out` (of [`FUNCTION_RECORD_SIZE`]
/// bytes; a shorter `out` gets what fits).
#[cfg(test)]
pub(crate) fn encode_function(out: &mut [u8], header: EntryHeader, ip: u64, parent_ip: u64) {
    function_record(header, ip, parent_ip).copy_to(out);
}

/// `events/ftrace/function/format`, as on x86_64.
pub(super) const FORMAT: EventFormat = EventFormat {
    name: "function",
    fields: "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n",
    print_fmt: "\" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip",
};

/// `function` prints in every form, as the kernel's `trace_fn_funcs`.
pub(super) const FUNCTIONS: EventFunctions = EventFunctions {
    trace: Some(function_trace),
    raw: Some(function_raw),
    hex: Some(function_hex),
    binary: Some(function_bin),
};

/// The default text (`trace_fn_trace`): `func <-caller`, the caller left
/// out without `print-parent` or when it is 0.
fn function_trace(out: &mut dyn fmt::Write, record: &[u8], cx: &PrintContext<'_>) -> fmt::Result {
    write_ip_sym(out, cx.symbols, word_at(record, IP), cx.style)?;
    let parent_ip = word_at(record, PARENT_IP);
    if cx.print_parent && parent_ip != 0 {
        out.write_str(" <-")?;
        write_ip_sym(out, cx.symbols, parent_ip, cx.style)?;
    }
    out.write_char('\n')
}

/// The `raw` form: both addresses in hex (`trace_fn_raw`).
fn function_raw(out: &mut dyn fmt::Write, record: &[u8], _: &PrintContext<'_>) -> fmt::Result {
    let (ip, parent_ip) = (word_at(record, IP), word_at(record, PARENT_IP));
    writeln!(out, "{ip:x} {parent_ip:x}")
}

/// The `hex` form: each field as 16 hex digits and a space, the way
/// `trace_seq_putmem_hex` shows a little-endian word (`trace_fn_hex`).
fn function_hex(out: &mut dyn fmt::Write, record: &[u8], _: &PrintContext<'_>) -> fmt::Result {
    let (ip, parent_ip) = (word_at(record, IP), word_at(record, PARENT_IP));
    write!(out, "{ip:016x} {parent_ip:016x} ")
}

/// The `bin` form: both fields as stored (`trace_fn_bin`).
fn function_bin(sink: &mut dyn FnMut(&[u8]) -> fmt::Result, record: &[u8]) -> fmt::Result {
    sink(&word_at(record, IP).to_le_bytes())?;
    sink(&word_at(record, PARENT_IP).to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{format, other_forms, text, COMMON_FIELDS};
    use super::super::SymbolStyle;
    use super::*;

    const SCHEDULE: u64 = 0xffff_ffff_817a_9b34;
    const DO_WAIT: u64 = 0xffff_ffff_8126_9415;

    const HEADER: EntryHeader = EntryHeader {
        kind: TYPE_FUNCTION,
        flags: 0,
        preempt_count: 0,
        pid: 72,
    };

    fn record(ip: u64, parent_ip: u64) -> [u8; FUNCTION_RECORD_SIZE] {
        let mut rec = [0u8; FUNCTION_RECORD_SIZE];
        encode_function(&mut rec, HEADER, ip, parent_ip);
        rec
    }

    const PLAIN: SymbolStyle = SymbolStyle {
        offset: false,
        address: false,
    };
    const OFFSET: SymbolStyle = SymbolStyle {
        offset: true,
        address: false,
    };
    const ADDRESS: SymbolStyle = SymbolStyle {
        offset: false,
        address: true,
    };
    const BOTH: SymbolStyle = SymbolStyle {
        offset: true,
        address: true,
    };

    #[test]
    fn layout() {
        let rec = record(SCHEDULE, DO_WAIT);
        assert_eq!(FUNCTION_RECORD_SIZE, 24);
        assert_eq!(rec[..8], HEADER.to_bytes());
        assert_eq!(rec[8..16], SCHEDULE.to_le_bytes());
        assert_eq!(rec[16..], DO_WAIT.to_le_bytes());
        // Too short a buffer gets what fits, and nothing panics.
        let mut short = [0u8; 12];
        encode_function(&mut short, HEADER, 1, 2);
        assert_eq!(short[8..], [1, 0, 0, 0]);
    }

    #[test]
    fn text_with_each_option() {
        let rec = record(SCHEDULE, DO_WAIT);
        assert_eq!(text(&rec, PLAIN, true), "schedule <-do_wait\n");
        assert_eq!(text(&rec, PLAIN, false), "schedule\n");
        assert_eq!(
            text(&rec, OFFSET, true),
            "schedule+0x4/0x80 <-do_wait+0x95/0xf0\n"
        );
        assert_eq!(
            text(&rec, ADDRESS, true),
            "schedule <ffffffff817a9b34> <-do_wait <ffffffff81269415>\n"
        );
        assert_eq!(
            text(&rec, BOTH, true),
            "schedule+0x4/0x80 <ffffffff817a9b34> <-do_wait+0x95/0xf0 <ffffffff81269415>\n"
        );
        assert_eq!(
            text(&rec, BOTH, false),
            "schedule+0x4/0x80 <ffffffff817a9b34>\n"
        );
    }

    #[test]
    fn callers_that_are_no_symbol() {
        // A caller of 0 is left out, as in the kernel.
        assert_eq!(
            text(&record(SCHEDULE, 0), BOTH, true),
            "schedule+0x4/0x80 <ffffffff817a9b34>\n"
        );
        let rec = record(SCHEDULE, 0x9000);
        assert_eq!(text(&rec, PLAIN, true), "schedule <-0x00009000\n");
        assert_eq!(text(&rec, OFFSET, true), "schedule+0x4/0x80 <-0x9000\n");
        assert_eq!(
            text(&rec, ADDRESS, true),
            "schedule <ffffffff817a9b34> <-0x00009000 <0000000000009000>\n"
        );
        assert_eq!(text(&record(0, DO_WAIT), PLAIN, true), "0 <-do_wait\n");
        // A truncated record reads as zeros past its end.
        assert_eq!(
            text(&record(SCHEDULE, DO_WAIT)[..16], PLAIN, true),
            "schedule\n"
        );
    }

    #[test]
    fn raw_hex_and_bin() {
        let rec = record(SCHEDULE, DO_WAIT);
        let (raw, hex, bin) = other_forms(&rec);
        assert_eq!(raw, "ffffffff817a9b34 ffffffff81269415\n");
        assert_eq!(hex, "ffffffff817a9b34 ffffffff81269415 \n");
        assert_eq!(bin, rec[8..]);
        let (raw, hex, _) = other_forms(&record(0x1a, 0));
        assert_eq!(raw, "1a 0\n");
        assert_eq!(hex, "000000000000001a 0000000000000000 \n");
    }

    #[test]
    fn format_file() {
        let expect = format!(
            "name: function\nID: 1\n{COMMON_FIELDS}\
             \tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n\
             \n\
             print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n"
        );
        assert_eq!(format(TYPE_FUNCTION), expect);
    }
}
