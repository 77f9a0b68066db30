// SPDX-License-Identifier: GPL-2.0

//! Typed records: what an event's payload holds, and how it prints.
//!
//! Every record starts with the common header ([`EntryHeader`]); the type
//! id in it says what follows. Ids and layouts are the kernel's, so
//! `events/*/format` files and trace-cmd agree with what is written.

use super::output::{EntryHeader, ENTRY_HEADER_SIZE};
use core::fmt;

pub(crate) mod function;
pub(crate) mod graph;
pub(crate) mod stack;
pub(crate) mod words;

use function::TYPE_FUNCTION;
use graph::{TYPE_GRAPH_ENT, TYPE_GRAPH_RET};
use stack::TYPE_KERNEL_STACK;

/// Type id of `print` records (`trace_marker` writes; the kernel's
/// `TRACE_PRINT`).
pub(crate) const TYPE_PRINT: u16 = 5;

/// Type id of `raw_data` records (`trace_marker_raw` writes; the kernel's
/// `TRACE_RAW_DATA`).
pub(crate) const TYPE_RAW_DATA: u16 = 19;

/// Size of a raw-data record for a `trace_marker_raw` write of `data`
/// (a 4-byte id, then the bytes).
pub(crate) fn raw_data_record_size(data: &[u8]) -> usize {
    ENTRY_HEADER_SIZE + data.len()
}

/// Encodes a raw-data record: the write's first four bytes are its id.
/// (The module writes the header and the data straight into the ring.)
#[cfg(test)]
pub(crate) fn encode_raw_data(out: &mut [u8], header: EntryHeader, data: &[u8]) {
    out[..ENTRY_HEADER_SIZE].copy_from_slice(&header.to_bytes());
    out[ENTRY_HEADER_SIZE..ENTRY_HEADER_SIZE + data.len()].copy_from_slice(data);
}

/// What the `format` file of one record type shows besides the common
/// fields.
struct EventFormat {
    /// The event's name.
    name: &'static str,
    /// The event's own field lines.
    fields: &'static str,
    /// The `print fmt:` line's text.
    print_fmt: &'static str,
}

/// `print`'s format (`struct print_entry`).
const PRINT_FORMAT: EventFormat = EventFormat {
    name: "print",
    fields: "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\
             \tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n",
    print_fmt: "\"%ps: %s\", (void *)REC->ip, REC->buf",
};

/// `raw_data`'s format (`struct raw_data_entry`).
const RAW_DATA_FORMAT: EventFormat = EventFormat {
    name: "raw_data",
    fields: "\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n\
             \tfield:char buf[];\toffset:12;\tsize:0;\tsigned:0;\n",
    print_fmt: "\"id:%04x %08x\", REC->id, (int)REC->buf[0]",
};

/// A record type rftrace writes: its `format` file and output functions.
struct RecordType {
    kind: u16,
    format: &'static EventFormat,
    functions: &'static EventFunctions,
}

/// Every record type, by type id.
const RECORD_TYPES: [RecordType; 6] = [
    RecordType {
        kind: TYPE_FUNCTION,
        format: &function::FORMAT,
        functions: &function::FUNCTIONS,
    },
    RecordType {
        kind: TYPE_GRAPH_RET,
        format: &graph::EXIT_FORMAT,
        functions: &graph::FUNCTIONS,
    },
    RecordType {
        kind: TYPE_GRAPH_ENT,
        format: &graph::ENTRY_FORMAT,
        functions: &graph::FUNCTIONS,
    },
    RecordType {
        kind: TYPE_KERNEL_STACK,
        format: &stack::FORMAT,
        functions: &stack::FUNCTIONS,
    },
    RecordType {
        kind: TYPE_PRINT,
        format: &PRINT_FORMAT,
        functions: &PRINT_FUNCTIONS,
    },
    RecordType {
        kind: TYPE_RAW_DATA,
        format: &RAW_DATA_FORMAT,
        functions: &RAW_DATA_FUNCTIONS,
    },
];

/// Every record type rftrace writes, as (event name, type id): the
/// `events/ftrace/` directories.
pub(crate) fn event_types() -> impl Iterator<Item = (&'static str, u16)> {
    RECORD_TYPES.iter().map(|t| (t.format.name, t.kind))
}

/// Record type `kind`; `None` for a type rftrace does not write.
fn record_type(kind: u16) -> Option<&'static RecordType> {
    RECORD_TYPES.iter().find(|t| t.kind == kind)
}

/// The format of record type `kind`.
fn format_of(kind: u16) -> Option<&'static EventFormat> {
    record_type(kind).map(|t| t.format)
}

/// The `format` file of record type `kind` (`function`,
/// `funcgraph_entry`, `funcgraph_exit`, `kernel_stack`, `print` or
/// `raw_data`), in the kernel's layout: the common fields, the
/// event's own, the print format. `None` for other types.
pub(crate) fn write_format(out: &mut dyn fmt::Write, kind: u16) -> Option<fmt::Result> {
    let format = format_of(kind)?;
    Some((|| {
        writeln!(out, "name: {}\nID: {kind}\nformat:", format.name)?;
        out.write_str(
            "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
             \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
             \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
             \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n",
        )?;
        out.write_str(format.fields)?;
        writeln!(out, "\nprint fmt: {}", format.print_fmt)
    })())
}

/// The longest text one print record holds, as the kernel's
/// `write_marker_to_buffer` cuts it: the largest record less the print
/// entry and room for a newline and a NUL.
pub(crate) const fn max_print_text() -> usize {
    super::ring_buffer::format::MAX_PAYLOAD - (PRINT_HEAD_SIZE + 2)
}

/// Size of a print record for `text` (a newline is added when missing, and
/// a NUL ends the string).
pub(crate) fn print_record_size(text: &[u8]) -> usize {
    let newline = usize::from(!text.ends_with(b"\n"));
    PRINT_HEAD_SIZE + text.len() + newline + 1
}

/// Size of a print record's fixed part: the common header, then `ip`.
pub(crate) const PRINT_HEAD_SIZE: usize = ENTRY_HEADER_SIZE + 8;

/// A print record's fixed part, which its text follows.
#[inline]
pub(crate) fn print_head(header: EntryHeader, ip: u64) -> [u8; PRINT_HEAD_SIZE] {
    let mut head = [0u8; PRINT_HEAD_SIZE];
    head[..ENTRY_HEADER_SIZE].copy_from_slice(&header.to_bytes());
    head[ENTRY_HEADER_SIZE..].copy_from_slice(&ip.to_le_bytes());
    head
}

/// Where in a print record of `text` the newline that `text` lacks goes,
/// or `None` when it ends with one. The NUL after it is the record's last
/// byte.
#[inline]
pub(crate) fn print_newline_at(text: &[u8]) -> Option<usize> {
    (!text.ends_with(b"\n")).then_some(PRINT_HEAD_SIZE + text.len())
}

/// Encodes a print record into `out` (of [`print_record_size`] bytes,
/// zeroed). (The module writes the head and the text straight into the
/// ring.)
#[cfg(test)]
pub(crate) fn encode_print(out: &mut [u8], header: EntryHeader, ip: u64, text: &[u8]) {
    out[..PRINT_HEAD_SIZE].copy_from_slice(&print_head(header, ip));
    out[PRINT_HEAD_SIZE..PRINT_HEAD_SIZE + text.len()].copy_from_slice(text);
    if let Some(at) = print_newline_at(text) {
        out[at] = b'\n';
    }
    out[out.len() - 1] = 0;
}

/// Names code addresses: kallsyms in the module, a table in tests.
pub(crate) trait Symbols {
    /// Writes the name of the function that holds `address`, with
    /// `+offset/size` when `offset` (the kernel's `%pS`; else `%ps`).
    /// `None` when no symbol holds it.
    fn write_symbol(
        &self,
        out: &mut dyn fmt::Write,
        address: u64,
        offset: bool,
    ) -> Option<fmt::Result>;
}

/// How code addresses print: the `sym-offset` and `sym-addr` options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SymbolStyle {
    /// `sym-offset`: `func+0x1c/0x80`.
    pub(crate) offset: bool,
    /// `sym-addr`: the address follows, ` <ffffffff81234567>`.
    pub(crate) address: bool,
}

/// Writes a code address as ftrace does (`seq_print_ip_sym`): `0` for
/// none, else the symbol (or, when there is none, the address in hex: at
/// least eight digits, or as is with `sym-offset`, as `sprint_symbol`
/// prints it), and the address too with `sym-addr`.
pub(crate) fn write_ip_sym(
    out: &mut dyn fmt::Write,
    symbols: &dyn Symbols,
    ip: u64,
    style: SymbolStyle,
) -> fmt::Result {
    if ip == 0 {
        return out.write_char('0');
    }
    match symbols.write_symbol(out, ip, style.offset) {
        Some(written) => written?,
        None if style.offset => write!(out, "{ip:#x}")?,
        None => write!(out, "0x{ip:08x}")?,
    }
    if style.address {
        write!(out, " <{ip:016x}>")?;
    }
    Ok(())
}

/// Writes the context columns as the `hex` option shows them: pid, CPU
/// and time stamp as fixed-width hex numbers.
pub(crate) fn write_hex_context(
    out: &mut dyn fmt::Write,
    pid: i32,
    cpu: u32,
    ts: u64,
) -> fmt::Result {
    write!(out, "{:08x} {cpu:08x} {ts:016x} ", pid as u32)
}

/// The context columns as the `bin` option writes them: pid, CPU and time
/// stamp in their in-memory form.
pub(crate) fn bin_context(pid: i32, cpu: u32, ts: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..4].copy_from_slice(&pid.to_le_bytes());
    b[4..8].copy_from_slice(&cpu.to_le_bytes());
    b[8..].copy_from_slice(&ts.to_le_bytes());
    b
}

/// What a record's text forms are given besides the record: how to name
/// code addresses (`sym-offset`, `sym-addr`) and whether to show callers
/// (`print-parent`).
#[derive(Clone, Copy)]
pub(crate) struct PrintContext<'a> {
    /// Names addresses.
    pub(crate) symbols: &'a dyn Symbols,
    /// The symbol options.
    pub(crate) style: SymbolStyle,
    /// `print-parent`: a function record shows its caller (` <-caller`).
    pub(crate) print_parent: bool,
}

impl PrintContext<'static> {
    /// For the forms that name no code addresses (raw, hex).
    const PLAIN: Self = PrintContext {
        symbols: &NoSymbols,
        style: SymbolStyle {
            offset: false,
            address: false,
        },
        print_parent: false,
    };
}

/// Writes one text form of a record (the whole record, header included).
pub(crate) type TextFn = fn(&mut dyn fmt::Write, &[u8], &PrintContext<'_>) -> fmt::Result;

/// Writes the binary form of a record through a byte sink.
pub(crate) type BinFn = fn(&mut dyn FnMut(&[u8]) -> fmt::Result, &[u8]) -> fmt::Result;

/// How one record type prints in each output form: the kernel's
/// `trace_event_functions`. A form a type leaves out prints, as
/// `register_trace_event` arranges, the placeholder `type: <id>`
/// (`trace_nop_print`). The tracers' records add their entries to
/// [`functions`].
pub(crate) struct EventFunctions {
    /// The default text.
    pub(crate) trace: Option<TextFn>,
    /// The `raw` option's form.
    pub(crate) raw: Option<TextFn>,
    /// The `hex` option's form.
    pub(crate) hex: Option<TextFn>,
    /// The `bin` option's form.
    pub(crate) binary: Option<BinFn>,
}

/// `print` (`trace_marker`): text and raw forms only, as in the kernel.
const PRINT_FUNCTIONS: EventFunctions = EventFunctions {
    trace: Some(print_trace),
    raw: Some(print_raw),
    hex: None,
    binary: None,
};

/// `raw_data` (`trace_marker_raw`): one form for text and raw.
const RAW_DATA_FUNCTIONS: EventFunctions = EventFunctions {
    trace: Some(raw_data_text),
    raw: Some(raw_data_text),
    hex: None,
    binary: None,
};

/// The output functions of record type `kind`; `None` for a type nothing
/// registered.
pub(crate) fn functions(kind: u16) -> Option<&'static EventFunctions> {
    record_type(kind).map(|t| t.functions)
}

/// The placeholder of a form a type does not have (`trace_nop_print`).
fn write_placeholder(out: &mut dyn fmt::Write, kind: u16) -> fmt::Result {
    writeln!(out, "type: {kind}")
}

/// Writes what follows the context columns for a record: the event's own
/// text (for `print`: `tracing_mark_write: <text>`, the function named by
/// the record's `ip`); `Unknown type <id>` for an unregistered type.
pub(crate) fn write_text_body(
    out: &mut dyn fmt::Write,
    header: &EntryHeader,
    record: &[u8],
    cx: &PrintContext<'_>,
) -> fmt::Result {
    write_form(out, header, record, cx, |f| f.trace)
        .unwrap_or_else(|| writeln!(out, "Unknown type {}", header.kind))
}

/// [`write_text_body`] with `print-parent` at its default (on).
#[cfg(test)]
pub(crate) fn write_body(
    out: &mut dyn fmt::Write,
    header: &EntryHeader,
    record: &[u8],
    symbols: &dyn Symbols,
    style: SymbolStyle,
) -> fmt::Result {
    let cx = PrintContext {
        symbols,
        style,
        print_parent: true,
    };
    write_text_body(out, header, record, &cx)
}

/// Writes the text form `pick` chooses of a record, or the placeholder
/// when its type lacks that form; `None` for an unregistered type.
fn write_form(
    out: &mut dyn fmt::Write,
    header: &EntryHeader,
    record: &[u8],
    cx: &PrintContext<'_>,
    pick: fn(&EventFunctions) -> Option<TextFn>,
) -> Option<fmt::Result> {
    let form = pick(functions(header.kind)?);
    Some(match form {
        Some(form) => form(out, record, cx),
        None => write_placeholder(out, header.kind),
    })
}

/// Writes a record's body as the `raw` option shows it; `<id> ?` for an
/// unregistered type, as ftrace.
pub(crate) fn write_raw_body(
    out: &mut dyn fmt::Write,
    header: &EntryHeader,
    record: &[u8],
) -> fmt::Result {
    write_form(out, header, record, &PrintContext::PLAIN, |f| f.raw)
        .unwrap_or_else(|| writeln!(out, "{} ?", header.kind))
}

/// Writes a record's body as the `hex` option shows it, and the newline
/// ftrace ends every hex line with (after the placeholder of a type with
/// no hex form, an empty line). An unregistered type has no body.
pub(crate) fn write_hex_body(
    out: &mut dyn fmt::Write,
    header: &EntryHeader,
    record: &[u8],
) -> fmt::Result {
    write_form(out, header, record, &PrintContext::PLAIN, |f| f.hex).unwrap_or(Ok(()))?;
    out.write_char('\n')
}

/// Writes a record's body as the `bin` option shows it, through `sink`.
/// An unregistered type has no body.
pub(crate) fn write_bin_body(
    sink: &mut dyn FnMut(&[u8]) -> fmt::Result,
    header: &EntryHeader,
    record: &[u8],
) -> fmt::Result {
    match functions(header.kind).map(|f| f.binary) {
        Some(Some(binary)) => binary(sink, record),
        Some(None) => {
            let mut line = Line::default();
            write_placeholder(&mut line, header.kind)?;
            sink(line.as_bytes())
        }
        None => Ok(()),
    }
}

/// A short line built without allocating (the placeholder of `bin`).
#[derive(Default)]
struct Line {
    buf: [u8; 24],
    len: usize,
}

impl Line {
    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Names nothing: the forms that print addresses as numbers.
struct NoSymbols;

impl Symbols for NoSymbols {
    fn write_symbol(&self, _: &mut dyn fmt::Write, _: u64, _: bool) -> Option<fmt::Result> {
        None
    }
}

/// `print`'s text: `<function>: <text>` (`trace_print_print`).
fn print_trace(out: &mut dyn fmt::Write, record: &[u8], cx: &PrintContext<'_>) -> fmt::Result {
    let text = print_text(record);
    write_ip_sym(out, cx.symbols, print_ip(record), cx.style)?;
    out.write_str(": ")?;
    write_lossy(out, text)?;
    if !text.ends_with(b"\n") {
        out.write_char('\n')?;
    }
    Ok(())
}

/// Writes a `print` record's text alone, as it stands (the kernel's
/// `trace_print_printk_msg_only`).
pub(crate) fn write_print_message(out: &mut dyn fmt::Write, record: &[u8]) -> fmt::Result {
    write_lossy(out, print_text(record))
}

/// `print`'s raw form: `# <ip> <text>` (`trace_print_raw`).
fn print_raw(out: &mut dyn fmt::Write, record: &[u8], _: &PrintContext<'_>) -> fmt::Result {
    write!(out, "# {:x} ", print_ip(record))?;
    write_lossy(out, print_text(record))
}

/// `raw_data`'s text and raw form.
fn raw_data_text(out: &mut dyn fmt::Write, record: &[u8], _: &PrintContext<'_>) -> fmt::Result {
    write_raw_data(out, record)
}

/// The `ip` field of a print record.
fn print_ip(record: &[u8]) -> u64 {
    word_at(record, ENTRY_HEADER_SIZE)
}

/// The 8-byte little-endian word at `offset` of a record; 0 past its end.
fn word_at(record: &[u8], offset: usize) -> u64 {
    offset
        .checked_add(8)
        .and_then(|end| record.get(offset..end))
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// Copies `bytes` into `out` at `offset`, or as much of them as fits.
#[cfg(test)]
fn put_bytes(out: &mut [u8], offset: usize, bytes: &[u8]) {
    if let Some(room) = out.get_mut(offset..) {
        for (to, from) in room.iter_mut().zip(bytes) {
            *to = *from;
        }
    }
}

/// `# <id> buf: <bytes in hex>`, as ftrace prints raw data. Records are
/// padded to four bytes in the buffer, so trailing padding shows too, as in
/// the kernel.
fn write_raw_data(out: &mut dyn fmt::Write, record: &[u8]) -> fmt::Result {
    let body = record.get(ENTRY_HEADER_SIZE..).unwrap_or(&[]);
    let id = body
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes);
    write!(out, "# {id:x} buf:")?;
    for byte in body.get(4..).unwrap_or(&[]) {
        write!(out, " {byte:02x}")?;
    }
    writeln!(out)
}

/// The text of a print record, up to its NUL.
fn print_text(record: &[u8]) -> &[u8] {
    let text = record.get(ENTRY_HEADER_SIZE + 8..).unwrap_or(&[]);
    &text[..text.iter().position(|&b| b == 0).unwrap_or(text.len())]
}

/// Writes bytes as text, with anything that is not printable ASCII (or a
/// newline or tab) as `?`.
fn write_lossy(out: &mut dyn fmt::Write, bytes: &[u8]) -> fmt::Result {
    for &b in bytes {
        let c = if b.is_ascii_graphic() || b == b' ' || b == b'\n' || b == b'\t' {
            char::from(b)
        } else {
            '?'
        };
        out.write_char(c)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A few kernel functions, with the addresses a test kernel had.
    pub(super) struct KernelSymbols;

    impl KernelSymbols {
        /// Name, start and size of each function.
        const TABLE: [(&'static str, u64, u64); 3] = [
            ("schedule", 0xffff_ffff_817a_9b30, 0x80),
            ("do_wait", 0xffff_ffff_8126_9380, 0xf0),
            ("kernel_wait4", 0xffff_ffff_8126_9250, 0x130),
        ];
    }

    impl Symbols for KernelSymbols {
        fn write_symbol(
            &self,
            out: &mut dyn fmt::Write,
            address: u64,
            offset: bool,
        ) -> Option<fmt::Result> {
            let (name, start, size) = Self::TABLE
                .into_iter()
                .find(|&(_, start, size)| address.wrapping_sub(start) < size)?;
            Some(if offset {
                write!(out, "{name}+{:#x}/{size:#x}", address - start)
            } else {
                out.write_str(name)
            })
        }
    }

    /// The text form of `record` with these options.
    pub(super) fn text(record: &[u8], style: SymbolStyle, print_parent: bool) -> String {
        let cx = PrintContext {
            symbols: &KernelSymbols,
            style,
            print_parent,
        };
        let mut s = String::new();
        let header = EntryHeader::from_bytes(record);
        assert!(header.is_some());
        if let Some(header) = header {
            assert!(write_text_body(&mut s, &header, record, &cx).is_ok());
        }
        s
    }

    /// The `raw`, `hex` and `bin` forms of `record`.
    pub(super) fn other_forms(record: &[u8]) -> (String, String, Vec<u8>) {
        let (mut raw, mut hex, mut bin) = (String::new(), String::new(), Vec::new());
        if let Some(header) = EntryHeader::from_bytes(record) {
            assert!(write_raw_body(&mut raw, &header, record).is_ok());
            assert!(write_hex_body(&mut hex, &header, record).is_ok());
            let mut sink = |b: &[u8]| {
                bin.extend_from_slice(b);
                Ok(())
            };
            assert!(write_bin_body(&mut sink, &header, record).is_ok());
        }
        (raw, hex, bin)
    }

    /// The `format` file of `kind`.
    pub(super) fn format(kind: u16) -> String {
        let mut s = String::new();
        assert_eq!(write_format(&mut s, kind), Some(Ok(())));
        s
    }

    /// The common fields that start every `format` file.
    pub(super) const COMMON_FIELDS: &str = "format:\n\
        \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
        \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
        \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
        \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

    /// One function, `tracing_mark_write`, at 0x1000..0x1080.
    struct OneSymbol;

    impl Symbols for OneSymbol {
        fn write_symbol(
            &self,
            out: &mut dyn fmt::Write,
            address: u64,
            offset: bool,
        ) -> Option<fmt::Result> {
            let off = address.checked_sub(0x1000).filter(|&o| o < 0x80)?;
            Some(if offset {
                write!(out, "tracing_mark_write+{off:#x}/0x80")
            } else {
                out.write_str("tracing_mark_write")
            })
        }
    }

    fn body(header: &EntryHeader, rec: &[u8], style: SymbolStyle) -> String {
        let mut s = String::new();
        assert!(write_body(&mut s, header, rec, &OneSymbol, style).is_ok());
        s
    }

    #[test]
    fn symbol_options() {
        let header = EntryHeader {
            kind: TYPE_PRINT,
            flags: 0,
            preempt_count: 0,
            pid: 9,
        };
        let mut rec = vec![0u8; print_record_size(b"hi")];
        encode_print(&mut rec, header, 0x1004, b"hi");
        assert_eq!(
            body(&header, &rec, SymbolStyle::default()),
            "tracing_mark_write: hi\n"
        );
        let offset = SymbolStyle {
            offset: true,
            address: false,
        };
        assert_eq!(
            body(&header, &rec, offset),
            "tracing_mark_write+0x4/0x80: hi\n"
        );
        let both = SymbolStyle {
            offset: true,
            address: true,
        };
        assert_eq!(
            body(&header, &rec, both),
            "tracing_mark_write+0x4/0x80 <0000000000001004>: hi\n"
        );
        encode_print(&mut rec, header, 0x9000, b"hi");
        assert_eq!(
            body(&header, &rec, SymbolStyle::default()),
            "0x00009000: hi\n"
        );
        // With sym-offset the kernel's sprint_symbol names no symbol as
        // the bare address.
        assert_eq!(body(&header, &rec, offset), "0x9000: hi\n");
        encode_print(&mut rec, header, 0, b"hi");
        assert_eq!(body(&header, &rec, both), "0: hi\n");
    }

    #[test]
    fn hex_and_bin_forms() {
        let header = EntryHeader {
            kind: TYPE_PRINT,
            flags: 0,
            preempt_count: 0,
            pid: 1234,
        };
        let mut s = String::new();
        assert!(write_hex_context(&mut s, 1234, 1, 0x2_dfdc_1c35).is_ok());
        let rec = header.to_bytes();
        assert!(write_hex_body(&mut s, &header, &rec).is_ok());
        assert_eq!(s, "000004d2 00000001 00000002dfdc1c35 type: 5\n\n");
        let mut bytes = Vec::new();
        let mut sink = |b: &[u8]| {
            bytes.extend_from_slice(b);
            Ok(())
        };
        assert!(write_bin_body(&mut sink, &header, &rec).is_ok());
        assert_eq!(bytes, b"type: 5\n");
        // A type nobody registered: no hex body but the newline, no binary
        // body, `<id> ?` raw, as ftrace.
        let unknown = EntryHeader { kind: 99, ..header };
        s.clear();
        assert!(write_hex_body(&mut s, &unknown, &rec).is_ok());
        assert!(write_raw_body(&mut s, &unknown, &rec).is_ok());
        assert!(write_body(&mut s, &unknown, &rec, &OneSymbol, SymbolStyle::default()).is_ok());
        assert_eq!(s, "\n99 ?\nUnknown type 99\n");
        bytes.clear();
        let mut sink = |b: &[u8]| {
            bytes.extend_from_slice(b);
            Ok(())
        };
        assert!(write_bin_body(&mut sink, &unknown, &rec).is_ok());
        assert!(bytes.is_empty());
        let b = bin_context(1234, 1, 7);
        assert_eq!(&b[..8], &[0xd2, 4, 0, 0, 1, 0, 0, 0]);
        assert_eq!(&b[8..], &7u64.to_le_bytes());
    }

    #[test]
    fn print_records_round_trip() {
        let header = EntryHeader {
            kind: TYPE_PRINT,
            flags: 0,
            preempt_count: 0,
            pid: 9,
        };
        for text in [&b"hello"[..], b"hello\n", b""] {
            let mut rec = vec![0u8; print_record_size(text)];
            encode_print(&mut rec, header, 0x1010, text);
            let mut s = String::new();
            assert!(write_body(&mut s, &header, &rec, &OneSymbol, SymbolStyle::default()).is_ok());
            let expect = format!(
                "tracing_mark_write: {}\n",
                core::str::from_utf8(text).unwrap_or("").trim_end()
            );
            assert_eq!(s, expect);
        }
    }

    #[test]
    fn print_message_alone() {
        let header = EntryHeader {
            kind: TYPE_PRINT,
            flags: 0,
            preempt_count: 0,
            pid: 9,
        };
        let mut rec = vec![0u8; print_record_size(b"a\x1bb")];
        encode_print(&mut rec, header, 0x1004, b"a\x1bb");
        let mut s = String::new();
        assert!(write_print_message(&mut s, &rec).is_ok());
        assert_eq!(s, "a?b\n");
        s.clear();
        assert!(write_print_message(&mut s, &rec[..12]).is_ok());
        assert_eq!(s, "");
    }

    #[test]
    fn raw_data_and_raw_print() {
        let header = EntryHeader {
            kind: TYPE_RAW_DATA,
            flags: 0,
            preempt_count: 0,
            pid: 9,
        };
        let data = [0x2a, 0, 0, 0, 0xde, 0xad];
        let mut rec = vec![0u8; raw_data_record_size(&data)];
        encode_raw_data(&mut rec, header, &data);
        let mut s = String::new();
        assert!(write_body(&mut s, &header, &rec, &OneSymbol, SymbolStyle::default()).is_ok());
        assert_eq!(s, "# 2a buf: de ad\n");
        let header = EntryHeader {
            kind: TYPE_PRINT,
            ..header
        };
        let mut rec = vec![0u8; print_record_size(b"hi")];
        encode_print(&mut rec, header, 0xabc, b"hi");
        s.clear();
        assert!(write_raw_body(&mut s, &header, &rec).is_ok());
        assert_eq!(s, "# abc hi\n");
    }

    #[test]
    fn format_files() {
        let mut s = String::new();
        assert_eq!(write_format(&mut s, TYPE_PRINT), Some(Ok(())));
        assert!(s.starts_with("name: print\nID: 5\nformat:\n\tfield:unsigned short common_type;"));
        assert!(s.ends_with("\nprint fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n"));
        assert!(write_format(&mut s, 2).is_none());
    }

    #[test]
    fn binary_text_is_shown_safely() {
        let header = EntryHeader {
            kind: TYPE_PRINT,
            flags: 0,
            preempt_count: 0,
            pid: 9,
        };
        let mut rec = vec![0u8; print_record_size(b"a\x1bb")];
        encode_print(&mut rec, header, 0x1000, b"a\x1bb");
        let mut s = String::new();
        assert!(write_body(&mut s, &header, &rec, &OneSymbol, SymbolStyle::default()).is_ok());
        assert_eq!(s, "tracing_mark_write: a?b\n");
    }
}
