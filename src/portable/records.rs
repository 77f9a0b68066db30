// SPDX-License-Identifier: GPL-2.0

//! Typed records: what an event's payload holds, and how it prints.
//!
//! Every record starts with the common header ([`EntryHeader`]); the type
//! id in it says what follows. Ids and layouts are the kernel's, so
//! `events/*/format` files and trace-cmd agree with what is written.

use super::output::{EntryHeader, ENTRY_HEADER_SIZE};
use core::fmt;

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
pub(crate) fn encode_raw_data(out: &mut [u8], header: EntryHeader, data: &[u8]) {
    out[..ENTRY_HEADER_SIZE].copy_from_slice(&header.to_bytes());
    out[ENTRY_HEADER_SIZE..ENTRY_HEADER_SIZE + data.len()].copy_from_slice(data);
}

/// The `format` file of record type `kind` (`print` or `raw_data`), in
/// the kernel's layout: the common fields, the event's own, the print
/// format. `None` for other types.
pub(crate) fn write_format(out: &mut dyn fmt::Write, kind: u16) -> Option<fmt::Result> {
    let (name, fields, print_fmt) = match kind {
        TYPE_PRINT => (
            "print",
            "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\
             \tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n",
            "\"%ps: %s\", (void *)REC->ip, REC->buf",
        ),
        TYPE_RAW_DATA => (
            "raw_data",
            "\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n\
             \tfield:char buf[];\toffset:12;\tsize:0;\tsigned:0;\n",
            "\"id:%04x %08x\", REC->id, (int)REC->buf[0]",
        ),
        _ => return None,
    };
    Some((|| {
        writeln!(out, "name: {name}\nID: {kind}\nformat:")?;
        out.write_str(
            "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
             \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
             \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
             \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n",
        )?;
        out.write_str(fields)?;
        writeln!(out, "\nprint fmt: {print_fmt}")
    })())
}

/// Size of a print record for `text` (a newline is added when missing, and
/// a NUL ends the string).
pub(crate) fn print_record_size(text: &[u8]) -> usize {
    let newline = usize::from(!text.ends_with(b"\n"));
    ENTRY_HEADER_SIZE + 8 + text.len() + newline + 1
}

/// Encodes a print record into `out` (of [`print_record_size`] bytes).
pub(crate) fn encode_print(out: &mut [u8], header: EntryHeader, ip: u64, text: &[u8]) {
    out[..ENTRY_HEADER_SIZE].copy_from_slice(&header.to_bytes());
    out[ENTRY_HEADER_SIZE..ENTRY_HEADER_SIZE + 8].copy_from_slice(&ip.to_le_bytes());
    let body = &mut out[ENTRY_HEADER_SIZE + 8..];
    body[..text.len()].copy_from_slice(text);
    let mut end = text.len();
    if !text.ends_with(b"\n") {
        body[end] = b'\n';
        end += 1;
    }
    body[end] = 0;
}

/// Writes what follows the context columns for a record: the event's own
/// text (for `print`: `tracing_mark_write: <text>`).
pub(crate) fn write_body(
    out: &mut dyn fmt::Write,
    header: &EntryHeader,
    record: &[u8],
) -> fmt::Result {
    match header.kind {
        TYPE_PRINT => {
            let text = print_text(record);
            out.write_str("tracing_mark_write: ")?;
            write_lossy(out, text)?;
            if !text.ends_with(b"\n") {
                out.write_char('\n')?;
            }
            Ok(())
        }
        TYPE_RAW_DATA => write_raw_data(out, record),
        kind => writeln!(out, "Unknown type {kind}"),
    }
}

/// Writes a record's body as the `raw` option shows it.
pub(crate) fn write_raw_body(
    out: &mut dyn fmt::Write,
    header: &EntryHeader,
    record: &[u8],
) -> fmt::Result {
    match header.kind {
        TYPE_PRINT => {
            let ip = record
                .get(ENTRY_HEADER_SIZE..ENTRY_HEADER_SIZE + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes);
            write!(out, "# {ip:x} ")?;
            let text = print_text(record);
            write_lossy(out, text)
        }
        _ => write_body(out, header, record),
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
            encode_print(&mut rec, header, 0xffff_ffff_8100_0000, text);
            let mut s = String::new();
            assert!(write_body(&mut s, &header, &rec).is_ok());
            let expect = format!(
                "tracing_mark_write: {}\n",
                core::str::from_utf8(text).unwrap_or("").trim_end()
            );
            assert_eq!(s, expect);
        }
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
        assert!(write_body(&mut s, &header, &rec).is_ok());
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
        assert!(write_format(&mut s, 1).is_none());
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
        encode_print(&mut rec, header, 0, b"a\x1bb");
        let mut s = String::new();
        assert!(write_body(&mut s, &header, &rec).is_ok());
        assert_eq!(s, "tracing_mark_write: a?b\n");
    }
}
