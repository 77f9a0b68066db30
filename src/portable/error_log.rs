// SPDX-License-Identifier: GPL-2.0

//! The `error_log` file: the last few rejected writes, explained.
//!
//! Each entry is shown as ftrace shows it:
//!
//! ```text
//! [   12.345678] current_tracer: error: No such tracer
//!   Command: bogus
//!           ^
//! ```
//!
//! The log keeps a fixed number of entries of bounded size, so what user
//! space writes can never make it grow.

use core::fmt;

/// How many entries are kept; the oldest goes first (ftrace keeps 16).
pub(crate) const MAX_ENTRIES: usize = 16;
/// How much of a rejected command is kept.
pub(crate) const MAX_COMMAND: usize = 256;
const COMMAND_PREFIX: &str = "  Command: ";

#[derive(Clone, Copy)]
struct Entry {
    time_ns: u64,
    location: &'static str,
    message: &'static str,
    command: [u8; MAX_COMMAND],
    command_len: usize,
    caret: usize,
}

impl Entry {
    const EMPTY: Entry = Entry {
        time_ns: 0,
        location: "",
        message: "",
        command: [0; MAX_COMMAND],
        command_len: 0,
        caret: 0,
    };
}

/// A bounded log of rejected writes, oldest first.
pub(crate) struct ErrorLog {
    entries: [Entry; MAX_ENTRIES],
    /// Index of the oldest entry.
    first: usize,
    len: usize,
}

impl ErrorLog {
    /// An empty log (some 5 KB: the module copies it into its allocation
    /// from this constant, never through the stack).
    pub(crate) const EMPTY: ErrorLog = ErrorLog {
        entries: [Entry::EMPTY; MAX_ENTRIES],
        first: 0,
        len: 0,
    };

    /// An empty log.
    #[cfg(test)]
    pub(crate) const fn new() -> Self {
        Self::EMPTY
    }

    /// Records that `command`, written to `location`, was refused with
    /// `message`; `caret` is the byte offset in `command` the error is at.
    /// Non-printable bytes of the command are shown as `.`, and a command
    /// past `MAX_COMMAND` bytes is cut there.
    pub(crate) fn record(
        &mut self,
        time_ns: u64,
        location: &'static str,
        message: &'static str,
        command: &[u8],
        caret: usize,
    ) {
        let slot = if self.len == MAX_ENTRIES {
            let oldest = self.first;
            self.first = (self.first + 1) % MAX_ENTRIES;
            oldest
        } else {
            self.len += 1;
            (self.first + self.len - 1) % MAX_ENTRIES
        };
        let entry = &mut self.entries[slot];
        let command = trim_newline(command);
        let kept = command.len().min(MAX_COMMAND);
        for (dst, &src) in entry.command.iter_mut().zip(&command[..kept]) {
            *dst = if src.is_ascii_graphic() || src == b' ' {
                src
            } else {
                b'.'
            };
        }
        entry.command_len = kept;
        // As the kernel, the caret may point past the command's end (at
        // most as far as its `u16` position goes).
        entry.caret = caret.min(usize::from(u16::MAX));
        entry.time_ns = time_ns;
        entry.location = location;
        entry.message = message;
    }

    /// Forgets every entry.
    pub(crate) fn clear(&mut self) {
        self.first = 0;
        self.len = 0;
    }

    /// Number of entries held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Writes entry `index` (0 is the oldest) in ftrace's format.
    pub(crate) fn write_entry(&self, index: usize, out: &mut dyn fmt::Write) -> fmt::Result {
        if index >= self.len {
            return Ok(());
        }
        let entry = &self.entries[(self.first + index) % MAX_ENTRIES];
        let secs = entry.time_ns / 1_000_000_000;
        let micros = (entry.time_ns % 1_000_000_000) / 1000;
        // Only printable ASCII was stored, so this cannot fail.
        let command = core::str::from_utf8(&entry.command[..entry.command_len]).unwrap_or("");
        writeln!(
            out,
            "[{secs:5}.{micros:06}] {}: error: {}",
            entry.location, entry.message
        )?;
        writeln!(out, "{COMMAND_PREFIX}{command}")?;
        writeln!(
            out,
            "{:width$}^",
            "",
            width = COMMAND_PREFIX.len() + entry.caret
        )
    }
}

fn trim_newline(command: &[u8]) -> &[u8] {
    command.strip_suffix(b"\n").unwrap_or(command)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(log: &ErrorLog) -> String {
        let mut out = String::new();
        for i in 0..log.len() {
            assert!(log.write_entry(i, &mut out).is_ok());
        }
        out
    }

    #[test]
    fn formats_like_ftrace() {
        let mut log = ErrorLog::new();
        log.record(
            12_345_678_901,
            "current_tracer",
            "No such tracer",
            b"bogus\n",
            0,
        );
        assert_eq!(
            show(&log),
            "[   12.345678] current_tracer: error: No such tracer\n  Command: bogus\n           ^\n"
        );
    }

    #[test]
    fn keeps_the_newest_sixteen() {
        let mut log = ErrorLog::new();
        for i in 0..20u64 {
            log.record(i * 1_000_000_000, "tracing_on", "Invalid number", b"x", 0);
        }
        assert_eq!(log.len(), MAX_ENTRIES);
        let text = show(&log);
        assert!(text.starts_with("[    4.000000]"));
        assert!(text.contains("[   19.000000]"));
        log.clear();
        assert_eq!(show(&log), "");
    }

    #[test]
    fn bounds_and_sanitises_commands() {
        let mut log = ErrorLog::new();
        let long = [b'a'; 1000];
        log.record(0, "x", "Input is too long", &long, 999);
        log.record(0, "x", "Input is not printable text", b"a\0\x1b\xffb", 1);
        let text = show(&log);
        let first_command = text.lines().nth(1).unwrap_or_default();
        assert_eq!(first_command.len(), COMMAND_PREFIX.len() + MAX_COMMAND);
        assert!(text.contains("  Command: a...b\n            ^\n"));
    }
}
