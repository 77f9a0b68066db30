// SPDX-License-Identifier: GPL-2.0

//! `funcgraph_entry` and `funcgraph_exit` records: a function's entry and
//! its return as the function_graph tracer sees them (the kernel's
//! `TRACE_GRAPH_ENT`, `struct ftrace_graph_ent_entry`, and
//! `TRACE_GRAPH_RET`, `struct ftrace_graph_ret_entry`, of a kernel with
//! `CONFIG_FUNCTION_GRAPH_RETVAL` and without
//! `CONFIG_FUNCTION_GRAPH_RETADDR`).
//!
//! Entry layout after the common header: `func` at 8, `depth` at 16, both
//! 8 bytes; the kernel's `args[]` (the `funcgraph-args` option) follows and
//! is never written here. Exit layout (packed): `func` at 8, `retval` at
//! 16, `depth` (4 bytes) at 24, `overrun` (4 bytes) at 28, `calltime` at
//! 32, `rettime` at 40.
//!
//! The function_graph tracer prints these through its own printer
//! (`graph_output`); [`FUNCTIONS`] is what other output paths show, as the
//! kernel's `graph_functions`.

use super::super::output::{EntryHeader, ENTRY_HEADER_SIZE};
use super::words::RecordWords;
use super::{word_at, EventFormat, EventFunctions, PrintContext, Symbols};
use core::fmt;

/// Type id of `funcgraph_exit` records (the kernel's `TRACE_GRAPH_RET`).
pub(crate) const TYPE_GRAPH_RET: u16 = 9;

/// Type id of `funcgraph_entry` records (the kernel's `TRACE_GRAPH_ENT`).
pub(crate) const TYPE_GRAPH_ENT: u16 = 10;

/// Offset of an entry's `func` field: the function entered.
const ENTRY_FUNC: usize = ENTRY_HEADER_SIZE;

/// Offset of an entry's `depth` field: the call depth, 0 for the
/// outermost traced function.
const ENTRY_DEPTH: usize = ENTRY_FUNC + 8;

/// Size of a `funcgraph_entry` record (without arguments).
pub(crate) const GRAPH_ENTRY_RECORD_SIZE: usize = ENTRY_DEPTH + 8;

/// Offset of an exit's `func` field: the function returning.
const EXIT_FUNC: usize = ENTRY_HEADER_SIZE;

/// Offset of an exit's `retval` field.
const EXIT_RETVAL: usize = EXIT_FUNC + 8;

/// Offset of an exit's `depth` field (4 bytes).
const EXIT_DEPTH: usize = EXIT_RETVAL + 8;

/// Offset of an exit's `overrun` field (4 bytes).
const EXIT_OVERRUN: usize = EXIT_DEPTH + 4;

/// Offset of an exit's `calltime` field: when the function was entered.
const EXIT_CALLTIME: usize = EXIT_OVERRUN + 4;

/// Offset of an exit's `rettime` field: when it returned.
const EXIT_RETTIME: usize = EXIT_CALLTIME + 8;

/// Size of a `funcgraph_exit` record.
pub(crate) const GRAPH_EXIT_RECORD_SIZE: usize = EXIT_RETTIME + 8;

/// What a `funcgraph_entry` record holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GraphEntry {
    /// The function entered.
    pub(crate) func: u64,
    /// The call depth (the kernel's `long`, stored as its bits).
    pub(crate) depth: u64,
}

/// What a `funcgraph_exit` record holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GraphExit {
    /// The function returning.
    pub(crate) func: u64,
    /// Its return value (the return register).
    pub(crate) retval: u64,
    /// The call depth (the kernel's `int`, stored as its bits).
    pub(crate) depth: u32,
    /// Functions the task could not trace for want of return-stack room.
    pub(crate) overrun: u32,
    /// When the function was entered, in nanoseconds.
    pub(crate) calltime: u64,
    /// When it returned, in nanoseconds.
    pub(crate) rettime: u64,
}

impl GraphExit {
    /// How long the call took, in nanoseconds (wrapping as the kernel's
    /// unsigned subtraction).
    pub(crate) fn duration(&self) -> u64 {
        self.rettime.wrapping_sub(self.calltime)
    }
}

/// A `funcgraph_entry` record, as words.
pub(crate) type GraphEntryRecord = RecordWords<{ GRAPH_ENTRY_RECORD_SIZE / 4 }>;

/// A `funcgraph_exit` record, as words.
pub(crate) type GraphExitRecord = RecordWords<{ GRAPH_EXIT_RECORD_SIZE / 4 }>;

/// The `funcgraph_entry` record of a call of `func` at `depth`.
#[inline]
pub(crate) fn graph_entry_record(header: EntryHeader, func: u64, depth: u64) -> GraphEntryRecord {
    let mut record = GraphEntryRecord::new(header);
    record.put_u64(ENTRY_FUNC, func);
    record.put_u64(ENTRY_DEPTH, depth);
    record
}

/// The `funcgraph_exit` record of `exit`.
#[inline]
pub(crate) fn graph_exit_record(header: EntryHeader, exit: &GraphExit) -> GraphExitRecord {
    let mut record = GraphExitRecord::new(header);
    record.put_u64(EXIT_FUNC, exit.func);
    record.put_u64(EXIT_RETVAL, exit.retval);
    record.put_u32(EXIT_DEPTH, exit.depth);
    record.put_u32(EXIT_OVERRUN, exit.overrun);
    record.put_u64(EXIT_CALLTIME, exit.calltime);
    record.put_u64(EXIT_RETTIME, exit.rettime);
    record
}

/// Encodes a `funcgraph_entry` record into `out` (of
/// [`GRAPH_ENTRY_RECORD_SIZE`] bytes; a shorter `out` gets what fits).
#[cfg(test)]
pub(crate) fn encode_graph_entry(out: &mut [u8], header: EntryHeader, func: u64, depth: u64) {
    graph_entry_record(header, func, depth).copy_to(out);
}

/// Encodes a `funcgraph_exit` record into `out` (of
/// [`GRAPH_EXIT_RECORD_SIZE`] bytes; a shorter `out` gets what fits).
#[cfg(test)]
pub(crate) fn encode_graph_exit(out: &mut [u8], header: EntryHeader, exit: &GraphExit) {
    graph_exit_record(header, exit).copy_to(out);
}

/// The type id of a record; `None` when it has no header.
fn kind_of(record: &[u8]) -> Option<u16> {
    EntryHeader::from_bytes(record).map(|h| h.kind)
}

/// Decodes a `funcgraph_entry` record; `None` for another type or a
/// record too short to hold the fields.
pub(crate) fn decode_entry(record: &[u8]) -> Option<GraphEntry> {
    if kind_of(record)? != TYPE_GRAPH_ENT || record.len() < GRAPH_ENTRY_RECORD_SIZE {
        return None;
    }
    Some(GraphEntry {
        func: word_at(record, ENTRY_FUNC),
        depth: word_at(record, ENTRY_DEPTH),
    })
}

/// Decodes a `funcgraph_exit` record; `None` for another type or a record
/// too short to hold the fields.
pub(crate) fn decode_exit(record: &[u8]) -> Option<GraphExit> {
    if kind_of(record)? != TYPE_GRAPH_RET || record.len() < GRAPH_EXIT_RECORD_SIZE {
        return None;
    }
    let depth_and_overrun = word_at(record, EXIT_DEPTH);
    Some(GraphExit {
        func: word_at(record, EXIT_FUNC),
        retval: word_at(record, EXIT_RETVAL),
        depth: depth_and_overrun as u32,
        overrun: (depth_and_overrun >> 32) as u32,
        calltime: word_at(record, EXIT_CALLTIME),
        rettime: word_at(record, EXIT_RETTIME),
    })
}

/// `events/ftrace/funcgraph_entry/format`, as on x86_64.
pub(super) const ENTRY_FORMAT: EventFormat = EventFormat {
    name: "funcgraph_entry",
    fields: "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long depth;\toffset:16;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n",
    print_fmt: "\"--> %ps (%lu)\", (void *)REC->func, REC->depth",
};

/// `events/ftrace/funcgraph_exit/format`, as on x86_64 (the kernel's print
/// format shows `depth` where it says `over:`).
pub(super) const EXIT_FORMAT: EventFormat = EventFormat {
    name: "funcgraph_exit",
    fields: "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned int depth;\toffset:24;\tsize:4;\tsigned:0;\n\
             \tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n\
             \tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n",
    print_fmt: "\"<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx\", \
                (void *)REC->func, REC->depth, REC->calltime, REC->rettime, \
                REC->depth, REC->retval",
};

/// Both graph records have only the default text, as the kernel's
/// `graph_functions`; `raw`, `hex` and `bin` print the placeholder
/// `type: <id>`.
pub(super) const FUNCTIONS: EventFunctions = EventFunctions {
    trace: Some(graph_trace),
    raw: None,
    hex: None,
    binary: None,
};

/// Depths past this indent as this one: the kernel's line would overflow
/// its one-page `trace_seq` long before.
const MAX_INDENT_DEPTH: i64 = 1024;

/// Spaces per call level (the kernel's `TRACE_GRAPH_INDENT`).
const INDENT: usize = 2;

/// Writes the indentation of call depth `depth`: two spaces a level,
/// none for a depth below 1.
pub(crate) fn write_indent(out: &mut dyn fmt::Write, depth: i64) -> fmt::Result {
    const SPACES: &str = "                                                                ";
    let levels = usize::try_from(depth.clamp(0, MAX_INDENT_DEPTH)).unwrap_or(0);
    let mut left = levels * INDENT;
    while left > 0 {
        let n = left.min(SPACES.len());
        out.write_str(SPACES.get(..n).unwrap_or(""))?;
        left -= n;
    }
    Ok(())
}

/// Writes a function as the kernel's `%ps`: its name, or `0x<hex>` when
/// no symbol holds it.
pub(crate) fn write_function(
    out: &mut dyn fmt::Write,
    symbols: &dyn Symbols,
    func: u64,
) -> fmt::Result {
    match symbols.write_symbol(out, func, false) {
        Some(written) => written,
        None => write!(out, "{func:#x}"),
    }
}

/// The default text outside the function_graph tracer's printer: the
/// graph printer's lines without its per-CPU state or options (the
/// kernel's `print_graph_function` with no private data and a tracer's
/// flags that set none of the graph options): an entry as `func() {`, an
/// exit as `}`, indented by depth. Without a look-ahead a leaf does not
/// fold into `func();`, and irq-entry markers are not shown.
fn graph_trace(out: &mut dyn fmt::Write, record: &[u8], cx: &PrintContext<'_>) -> fmt::Result {
    match kind_of(record) {
        Some(TYPE_GRAPH_RET) => {
            write_indent(out, i64::from(word_at(record, EXIT_DEPTH) as i32))?;
            out.write_str("}\n")
        }
        _ => {
            write_indent(out, word_at(record, ENTRY_DEPTH) as i64)?;
            write_function(out, cx.symbols, word_at(record, ENTRY_FUNC))?;
            out.write_str("() {\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{format, other_forms, text, COMMON_FIELDS};
    use super::super::SymbolStyle;
    use super::*;

    const SCHEDULE: u64 = 0xffff_ffff_817a_9b30;

    fn header(kind: u16) -> EntryHeader {
        EntryHeader {
            kind,
            flags: 0,
            preempt_count: 0,
            pid: 72,
        }
    }

    const EXIT: GraphExit = GraphExit {
        func: SCHEDULE,
        retval: 0xffff_fff2,
        depth: 3,
        overrun: 7,
        calltime: 1_000,
        rettime: 3_500,
    };

    fn entry_record(func: u64, depth: u64) -> [u8; GRAPH_ENTRY_RECORD_SIZE] {
        let mut rec = [0u8; GRAPH_ENTRY_RECORD_SIZE];
        encode_graph_entry(&mut rec, header(TYPE_GRAPH_ENT), func, depth);
        rec
    }

    fn exit_record(exit: &GraphExit) -> [u8; GRAPH_EXIT_RECORD_SIZE] {
        let mut rec = [0u8; GRAPH_EXIT_RECORD_SIZE];
        encode_graph_exit(&mut rec, header(TYPE_GRAPH_RET), exit);
        rec
    }

    #[test]
    fn layouts() {
        assert_eq!(GRAPH_ENTRY_RECORD_SIZE, 24);
        assert_eq!(GRAPH_EXIT_RECORD_SIZE, 48);
        let rec = entry_record(SCHEDULE, 2);
        assert_eq!(rec[..8], header(TYPE_GRAPH_ENT).to_bytes());
        assert_eq!(rec[8..16], SCHEDULE.to_le_bytes());
        assert_eq!(rec[16..], 2u64.to_le_bytes());
        let rec = exit_record(&EXIT);
        assert_eq!(rec[8..16], SCHEDULE.to_le_bytes());
        assert_eq!(rec[16..24], 0xffff_fff2u64.to_le_bytes());
        assert_eq!(rec[24..28], 3u32.to_le_bytes());
        assert_eq!(rec[28..32], 7u32.to_le_bytes());
        assert_eq!(rec[32..40], 1_000u64.to_le_bytes());
        assert_eq!(rec[40..], 3_500u64.to_le_bytes());
        // Too short a buffer gets what fits, and nothing panics.
        let mut short = [0u8; 30];
        encode_graph_exit(&mut short, header(TYPE_GRAPH_RET), &EXIT);
        assert_eq!(short[24..28], 3u32.to_le_bytes());
        assert_eq!(short[28..], [7, 0]);
        let mut short = [0u8; 4];
        encode_graph_entry(&mut short, header(TYPE_GRAPH_ENT), 1, 2);
        assert_eq!(short, [10, 0, 0, 0]);
    }

    #[test]
    fn decodes() {
        let rec = entry_record(SCHEDULE, 2);
        assert_eq!(
            decode_entry(&rec),
            Some(GraphEntry {
                func: SCHEDULE,
                depth: 2
            })
        );
        assert_eq!(decode_exit(&rec), None);
        assert_eq!(decode_entry(&rec[..23]), None);
        let rec = exit_record(&EXIT);
        assert_eq!(decode_exit(&rec), Some(EXIT));
        assert_eq!(decode_entry(&rec), None);
        assert_eq!(decode_exit(&rec[..47]), None);
        assert_eq!(decode_exit(&rec[..3]), None);
        assert_eq!(EXIT.duration(), 2_500);
        let backwards = GraphExit {
            calltime: 2,
            rettime: 1,
            ..EXIT
        };
        assert_eq!(backwards.duration(), u64::MAX);
    }

    #[test]
    fn text_outside_the_graph_printer() {
        let style = SymbolStyle::default();
        assert_eq!(
            text(&entry_record(SCHEDULE, 0), style, true),
            "schedule() {\n"
        );
        assert_eq!(
            text(&entry_record(SCHEDULE + 4, 2), style, true),
            "    schedule() {\n"
        );
        assert_eq!(
            text(&entry_record(0x9000, 1), style, true),
            "  0x9000() {\n"
        );
        assert_eq!(text(&exit_record(&EXIT), style, true), "      }\n");
        // A negative depth does not indent; a short record reads zeros.
        assert_eq!(
            text(&entry_record(SCHEDULE, u64::MAX), style, true),
            "schedule() {\n"
        );
        assert_eq!(
            text(&entry_record(SCHEDULE, 2)[..12], style, true),
            "0x0() {\n"
        );
    }

    #[test]
    fn raw_hex_and_bin_are_placeholders() {
        let (raw, hex, bin) = other_forms(&entry_record(SCHEDULE, 1));
        assert_eq!(raw, "type: 10\n");
        assert_eq!(hex, "type: 10\n\n");
        assert_eq!(bin, b"type: 10\n");
        let (raw, _, _) = other_forms(&exit_record(&EXIT));
        assert_eq!(raw, "type: 9\n");
    }

    #[test]
    fn indentation_is_bounded() {
        let mut s = String::new();
        assert!(write_indent(&mut s, 3).is_ok());
        assert_eq!(s, "      ");
        s.clear();
        assert!(write_indent(&mut s, i64::MAX).is_ok());
        assert_eq!(s.len(), 2048);
        s.clear();
        assert!(write_indent(&mut s, -5).is_ok());
        assert!(s.is_empty());
    }

    #[test]
    fn format_files() {
        let expect = format!(
            "name: funcgraph_entry\nID: 10\n{COMMON_FIELDS}\
             \tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long depth;\toffset:16;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n\
             \n\
             print fmt: \"--> %ps (%lu)\", (void *)REC->func, REC->depth\n"
        );
        assert_eq!(format(TYPE_GRAPH_ENT), expect);
        let expect = format!(
            "name: funcgraph_exit\nID: 9\n{COMMON_FIELDS}\
             \tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned int depth;\toffset:24;\tsize:4;\tsigned:0;\n\
             \tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n\
             \tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n\
             \n\
             print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx\", \
             (void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth, \
             REC->retval\n"
        );
        assert_eq!(format(TYPE_GRAPH_RET), expect);
    }
}
