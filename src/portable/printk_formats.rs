// SPDX-License-Identifier: GPL-2.0

//! The lines of `printk_formats`: each string a trace event may record a
//! pointer to, after its address, as the kernel's `t_show`
//! (kernel/trace/trace_printk.c) prints it.

use core::fmt;

/// Writes the line of the format string `format` (without its NUL) kept at
/// `address`: `0x<address> : "<format>"`, newlines, tabs and double quotes
/// escaped (`\n`, `\t`, `\"`) and every other byte as it is, backslashes
/// included, as in the kernel.
///
/// Text only goes through `fmt::Write`: bytes that are not UTF-8 (no
/// kernel format has any) are written as U+FFFD.
pub(crate) fn write_format_line(
    out: &mut dyn fmt::Write,
    address: usize,
    format: &[u8],
) -> fmt::Result {
    write!(out, "{address:#x} : \"")?;
    for chunk in format.utf8_chunks() {
        write_escaped(out, chunk.valid())?;
        if !chunk.invalid().is_empty() {
            out.write_char(char::REPLACEMENT_CHARACTER)?;
        }
    }
    out.write_str("\"\n")
}

/// Writes `text` with the kernel's escapes of a format string.
fn write_escaped(out: &mut dyn fmt::Write, text: &str) -> fmt::Result {
    let mut rest = text;
    while let Some(at) = rest.find(['\n', '\t', '"']) {
        out.write_str(&rest[..at])?;
        out.write_str(match rest.as_bytes()[at] {
            b'\n' => "\\n",
            b'\t' => "\\t",
            _ => "\\\"",
        })?;
        rest = &rest[at + 1..];
    }
    out.write_str(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(address: usize, format: &[u8]) -> String {
        let mut s = String::new();
        assert!(write_format_line(&mut s, address, format).is_ok());
        s
    }

    #[test]
    fn plain_formats_print_as_they_are() {
        assert_eq!(
            line(0xffffffff82a1c0e8, b"rcu_preempt"),
            "0xffffffff82a1c0e8 : \"rcu_preempt\"\n"
        );
        assert_eq!(line(0x10, b""), "0x10 : \"\"\n");
    }

    #[test]
    fn escapes_are_the_kernels() {
        // Newline, tab and quote escaped; a backslash left as it is.
        assert_eq!(
            line(0xabc, b"a \"b\"\tc\\d %d\n"),
            "0xabc : \"a \\\"b\\\"\\tc\\d %d\\n\"\n"
        );
        assert_eq!(line(1, b"\n\n"), "0x1 : \"\\n\\n\"\n");
    }

    #[test]
    fn bytes_that_are_not_text() {
        assert_eq!(line(2, b"a\xffb\t"), "0x2 : \"a\u{fffd}b\\t\"\n");
    }
}
