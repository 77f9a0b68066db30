// SPDX-License-Identifier: GPL-2.0

//! `kernel_stack` records: the kernel stack at an event, as the
//! `func_stack_trace` option records it after each function (the kernel's
//! `TRACE_STACK`, `struct stack_entry`).
//!
//! Layout after the common header: `size` (an `int`, the number of
//! callers) at 8, then from 16 the callers, 8 bytes each, as many as the
//! record holds. The `format` file describes eight of them, as the
//! kernel's does, whatever a record holds.

use super::super::output::{EntryHeader, ENTRY_HEADER_SIZE};
#[cfg(test)]
use super::put_bytes;
use super::{word_at, write_ip_sym, EventFormat, EventFunctions, PrintContext};
use core::fmt;

/// Type id of `kernel_stack` records (the kernel's `TRACE_STACK`).
pub(crate) const TYPE_KERNEL_STACK: u16 = 4;

/// The caller recorded in place of an address inside an ftrace
/// trampoline, shown as `[FTRACE TRAMPOLINE]` (the kernel's
/// `FTRACE_TRAMPOLINE_MARKER`, `INT_MAX`).
pub(crate) const STACK_TRAMPOLINE_MARKER: u64 = 0x7fff_ffff;

/// A caller that ends the trace where it stands (`ULONG_MAX`).
const END_MARKER: u64 = u64::MAX;

/// Offset of the `size` field.
const SIZE: usize = ENTRY_HEADER_SIZE;

/// Offset of the first caller (`size` is padded to the callers'
/// alignment).
const CALLERS: usize = SIZE + 8;

/// Size of a `kernel_stack` record of `callers` callers.
#[cfg(test)]
pub(crate) fn kernel_stack_record_size(callers: usize) -> usize {
    callers.saturating_mul(8).saturating_add(CALLERS)
}

/// Encodes a `kernel_stack` record of `callers` into `out` (of
/// [`kernel_stack_record_size`] bytes; a shorter `out` gets what fits).
#[cfg(test)]
pub(crate) fn encode_kernel_stack(out: &mut [u8], header: EntryHeader, callers: &[u64]) {
    put_bytes(out, 0, &header.to_bytes());
    let count = i32::try_from(callers.len()).unwrap_or(i32::MAX);
    put_bytes(out, SIZE, &count.to_le_bytes());
    put_bytes(out, SIZE + 4, &[0; 4]);
    if let Some(room) = out.get_mut(CALLERS..) {
        for (slot, caller) in room.chunks_exact_mut(8).zip(callers) {
            slot.copy_from_slice(&caller.to_le_bytes());
        }
    }
}

/// Words of a `kernel_stack` record before its callers.
pub(crate) const HEAD_WORDS: usize = CALLERS / 8;

/// The first [`HEAD_WORDS`] words of a `kernel_stack` record of `callers`
/// callers, as native words: a record can so be built in place, in a word
/// array whose tail a stack walker filled (on a little-endian machine the
/// array's bytes are then the record's).
pub(crate) fn head_words(header: EntryHeader, callers: usize) -> [u64; HEAD_WORDS] {
    let count = i32::try_from(callers).unwrap_or(i32::MAX) as u32;
    [u64::from_le_bytes(header.to_bytes()), u64::from(count)]
}

/// `events/ftrace/kernel_stack/format`, as on x86_64.
pub(super) const FORMAT: EventFormat = EventFormat {
    name: "kernel_stack",
    fields: "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n\
             \tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n",
    print_fmt: "\"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \
                \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \
                \"\\t=> %ps\\n\\t=> %ps\\n\", \
                (void *)REC->caller[0], (void *)REC->caller[1], \
                (void *)REC->caller[2], (void *)REC->caller[3], \
                (void *)REC->caller[4], (void *)REC->caller[5], \
                (void *)REC->caller[6], (void *)REC->caller[7]",
};

/// `kernel_stack` has only the default text, as the kernel's
/// `trace_stack_funcs`; the other forms print the placeholder.
pub(super) const FUNCTIONS: EventFunctions = EventFunctions {
    trace: Some(stack_trace),
    raw: None,
    hex: None,
    binary: None,
};

/// The default text (`trace_stack_print`): `<stack trace>`, then one
/// ` => caller` line per caller up to the end of the record or the first
/// `ULONG_MAX` (the `size` field is not consulted, as in the kernel).
fn stack_trace(out: &mut dyn fmt::Write, record: &[u8], cx: &PrintContext<'_>) -> fmt::Result {
    out.write_str("<stack trace>\n")?;
    let callers = record.get(CALLERS..).unwrap_or(&[]).chunks_exact(8);
    for caller in callers.map(|word| word_at(word, 0)) {
        if caller == END_MARKER {
            break;
        }
        write_caller(out, caller, cx)?;
    }
    Ok(())
}

/// Writes one caller's line: ` => function` (or the trampoline marker).
fn write_caller(out: &mut dyn fmt::Write, caller: u64, cx: &PrintContext<'_>) -> fmt::Result {
    out.write_str(" => ")?;
    if caller == STACK_TRAMPOLINE_MARKER {
        out.write_str("[FTRACE TRAMPOLINE]")?;
    } else {
        write_ip_sym(out, cx.symbols, caller, cx.style)?;
    }
    out.write_char('\n')
}

#[cfg(test)]
mod tests {
    use super::super::tests::{format, other_forms, text, COMMON_FIELDS};
    use super::super::SymbolStyle;
    use super::*;

    const SCHEDULE: u64 = 0xffff_ffff_817a_9b39;
    const DO_WAIT: u64 = 0xffff_ffff_8126_9415;
    const KERNEL_WAIT4: u64 = 0xffff_ffff_8126_9342;

    const HEADER: EntryHeader = EntryHeader {
        kind: TYPE_KERNEL_STACK,
        flags: 0,
        preempt_count: 0,
        pid: 72,
    };

    fn record(callers: &[u64]) -> Vec<u8> {
        let mut rec = vec![0xaa; kernel_stack_record_size(callers.len())];
        encode_kernel_stack(&mut rec, HEADER, callers);
        rec
    }

    #[test]
    fn layout() {
        assert_eq!(kernel_stack_record_size(0), 16);
        assert_eq!(kernel_stack_record_size(3), 40);
        assert_eq!(kernel_stack_record_size(usize::MAX), usize::MAX);
        let rec = record(&[SCHEDULE, DO_WAIT, KERNEL_WAIT4]);
        assert_eq!(rec[..8], HEADER.to_bytes());
        assert_eq!(rec[8..16], [3, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(rec[16..24], SCHEDULE.to_le_bytes());
        assert_eq!(rec[32..], KERNEL_WAIT4.to_le_bytes());
        // Too short a buffer gets the callers that fit, and nothing panics.
        let mut short = [0u8; 30];
        encode_kernel_stack(&mut short, HEADER, &[1, 2, 3]);
        assert_eq!(short[16..24], 1u64.to_le_bytes());
        assert_eq!(short[24..], [0; 6]);
    }

    #[test]
    fn head_words_match_the_encoding() {
        let rec = record(&[SCHEDULE, DO_WAIT]);
        let mut words = Vec::new();
        words.extend(head_words(HEADER, 2));
        words.extend([SCHEDULE, DO_WAIT]);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(bytes, rec);
    }

    #[test]
    fn text_with_symbol_options() {
        let rec = record(&[SCHEDULE, DO_WAIT, KERNEL_WAIT4]);
        let plain = SymbolStyle::default();
        let expect = "<stack trace>\n => schedule\n => do_wait\n => kernel_wait4\n";
        assert_eq!(text(&rec, plain, true), expect);
        // print-parent does not apply to stacks.
        assert_eq!(text(&rec, plain, false), expect);
        let both = SymbolStyle {
            offset: true,
            address: true,
        };
        assert_eq!(
            text(&rec, both, true),
            "<stack trace>\n\
             \x20=> schedule+0x9/0x80 <ffffffff817a9b39>\n\
             \x20=> do_wait+0x95/0xf0 <ffffffff81269415>\n\
             \x20=> kernel_wait4+0xf2/0x130 <ffffffff81269342>\n"
        );
        assert_eq!(text(&record(&[]), plain, true), "<stack trace>\n");
    }

    #[test]
    fn addresses_that_are_no_symbol() {
        let rec = record(&[0, 0x9000, STACK_TRAMPOLINE_MARKER, DO_WAIT]);
        assert_eq!(
            text(&rec, SymbolStyle::default(), true),
            "<stack trace>\n => 0\n => 0x00009000\n => [FTRACE TRAMPOLINE]\n => do_wait\n"
        );
        let address = SymbolStyle {
            offset: false,
            address: true,
        };
        assert_eq!(
            text(&rec, address, true),
            "<stack trace>\n => 0\n => 0x00009000 <0000000000009000>\n\
             \x20=> [FTRACE TRAMPOLINE]\n => do_wait <ffffffff81269415>\n"
        );
    }

    #[test]
    fn where_the_trace_stops() {
        // At the first ULONG_MAX.
        let rec = record(&[SCHEDULE, u64::MAX, DO_WAIT]);
        let plain = SymbolStyle::default();
        assert_eq!(text(&rec, plain, true), "<stack trace>\n => schedule\n");
        // At the end of the record, whatever `size` says; a partial word
        // at the end is not a caller.
        let mut rec = record(&[SCHEDULE, DO_WAIT]);
        rec[8] = 1;
        rec.extend_from_slice(&[0xff; 4]);
        assert_eq!(
            text(&rec, plain, true),
            "<stack trace>\n => schedule\n => do_wait\n"
        );
        assert_eq!(text(&rec[..20], plain, true), "<stack trace>\n");
    }

    #[test]
    fn other_forms_are_placeholders() {
        let (raw, hex, bin) = other_forms(&record(&[SCHEDULE]));
        assert_eq!(raw, "type: 4\n");
        assert_eq!(hex, "type: 4\n\n");
        assert_eq!(bin, b"type: 4\n");
    }

    #[test]
    fn format_file() {
        let expect = format!(
            "name: kernel_stack\nID: 4\n{COMMON_FIELDS}\
             \tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n\
             \tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\
             \n\
             print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \
             \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\", \
             (void *)REC->caller[0], (void *)REC->caller[1], (void *)REC->caller[2], \
             (void *)REC->caller[3], (void *)REC->caller[4], (void *)REC->caller[5], \
             (void *)REC->caller[6], (void *)REC->caller[7]\n"
        );
        assert_eq!(format(TYPE_KERNEL_STACK), expect);
    }
}
