// SPDX-License-Identifier: GPL-2.0

//! Why a filter was refused, and what the `filter` files and `error_log`
//! then show.
//!
//! The kernel records a refusal as `pe->lasterr` (an index into its
//! `err_text` table, 0 when nothing was recorded) and `pe->lasterr_pos`,
//! and returns an errno of its own choosing to `write()`. A failed write to
//! an event's `filter` file replaces the filter with one that holds no
//! program (the event is then not filtered at all) and whose text is the
//! written text followed by a caret under the error and the message
//! (`append_filter_err()`); reading the file shows that text.

use super::text::c_string;
use core::fmt::{self, Write};

/// `EPERM`: what the kernel returns (as `-1`) for most refusals found
/// while building the program.
pub(crate) const EPERM: i32 = 1;
/// `ENOENT`: the kernel's `-2` for a missing `)`.
pub(crate) const ENOENT: i32 = 2;
/// `ESRCH`: the kernel's `-3` for a missing quote.
pub(crate) const ESRCH: i32 = 3;
/// `ENOMEM`: the storage handed to the parser is too small.
pub(crate) const ENOMEM: i32 = 12;
/// `EINVAL`: a refused predicate, or no predicate at all.
pub(crate) const EINVAL: i32 = 22;

/// Where `error_log` says a refused filter went (`tracing_log_err(tr,
/// "event filter parse error", ...)`), for event and subsystem files alike.
pub(crate) const ERROR_LOG_LOCATION: &str = "event filter parse error";

/// What a subsystem's `filter` file shows while it holds no text (the
/// kernel's `DEFAULT_SYS_FILTER_MESSAGE`): always, except after a write
/// that no event of the subsystem took.
pub(crate) const DEFAULT_SYS_FILTER_MESSAGE: &str = "### global filter ###\n\
# Use this to set filters for multiple events.\n\
# Only events with the given fields will be affected.\n\
# If no events are modified, an error message will be displayed here";

/// What an event's `filter` file shows without a filter.
pub(crate) const NO_FILTER_TEXT: &str = "none";

/// The room of a `trace_seq` on 64-bit (`TRACE_SEQ_BUFFER_SIZE`: 8192
/// bytes less its 36 bytes of bookkeeping). The kernel builds the error
/// text and the file's contents in one; a piece that does not fit is left
/// out, with everything after it.
pub(crate) const TRACE_SEQ_BUFFER_SIZE: usize = 8192 - 36;

/// The kernel's messages (`err_text`, the `ERRORS` macro), in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// `FILT_ERR_NONE`: nothing recorded; the text shows `Error: (0)`.
    None,
    /// `FILT_ERR_INVALID_OP`.
    InvalidOp,
    /// `FILT_ERR_TOO_MANY_OPEN`.
    TooManyOpen,
    /// `FILT_ERR_TOO_MANY_CLOSE`.
    TooManyClose,
    /// `FILT_ERR_MISSING_QUOTE`.
    MissingQuote,
    /// `FILT_ERR_MISSING_BRACE_OPEN`.
    MissingBraceOpen,
    /// `FILT_ERR_MISSING_BRACE_CLOSE`.
    MissingBraceClose,
    /// `FILT_ERR_OPERAND_TOO_LONG`.
    OperandTooLong,
    /// `FILT_ERR_EXPECT_STRING`.
    ExpectString,
    /// `FILT_ERR_EXPECT_DIGIT`.
    ExpectDigit,
    /// `FILT_ERR_ILLEGAL_FIELD_OP`.
    IllegalFieldOp,
    /// `FILT_ERR_FIELD_NOT_FOUND`.
    FieldNotFound,
    /// `FILT_ERR_ILLEGAL_INTVAL`.
    IllegalIntval,
    /// `FILT_ERR_BAD_SUBSYS_FILTER`.
    BadSubsysFilter,
    /// `FILT_ERR_TOO_MANY_PREDS`.
    TooManyPreds,
    /// `FILT_ERR_INVALID_FILTER` (the kernel never records it).
    // In the kernel's table; 7.2 never records it.
    #[allow(dead_code)]
    InvalidFilter,
    /// `FILT_ERR_INVALID_CPULIST`.
    InvalidCpulist,
    /// `FILT_ERR_IP_FIELD_ONLY`.
    IpFieldOnly,
    /// `FILT_ERR_INVALID_VALUE`.
    InvalidValue,
    /// `FILT_ERR_NO_FUNCTION`.
    NoFunction,
    /// `FILT_ERR_ERRNO`: what `error_log` says when nothing was recorded.
    Errno,
    /// `FILT_ERR_NO_FILTER`.
    NoFilter,
}

impl ErrorKind {
    /// The kernel's text for this error (`err_text[kind]`).
    pub(crate) fn message(self) -> &'static str {
        match self {
            ErrorKind::None => "No error",
            ErrorKind::InvalidOp => "Invalid operator",
            ErrorKind::TooManyOpen => "Too many '('",
            ErrorKind::TooManyClose => "Too few '('",
            ErrorKind::MissingQuote => "Missing matching quote",
            ErrorKind::MissingBraceOpen => "Missing '{'",
            ErrorKind::MissingBraceClose => "Missing '}'",
            ErrorKind::OperandTooLong => "Operand too long",
            ErrorKind::ExpectString => "Expecting string field",
            ErrorKind::ExpectDigit => "Expecting numeric field",
            ErrorKind::IllegalFieldOp => "Illegal operation for field type",
            ErrorKind::FieldNotFound => "Field not found",
            ErrorKind::IllegalIntval => "Illegal integer value",
            ErrorKind::BadSubsysFilter => {
                "Couldn't find or set field in one of a subsystem's events"
            }
            ErrorKind::TooManyPreds => "Too many terms in predicate expression",
            ErrorKind::InvalidFilter => "Meaningless filter expression",
            ErrorKind::InvalidCpulist => "Invalid cpulist",
            ErrorKind::IpFieldOnly => "Only 'ip' field is supported for function trace",
            ErrorKind::InvalidValue => "Invalid value (did you forget quotes)?",
            ErrorKind::NoFunction => "Function not found",
            ErrorKind::Errno => "Error",
            ErrorKind::NoFilter => "No filter found",
        }
    }
}

/// A refused filter: the message and position the kernel records, and the
/// errno its `write()` returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FilterError {
    /// The recorded message; [`ErrorKind::None`] when the kernel records
    /// none.
    pub(crate) kind: ErrorKind,
    /// The byte of the filter text the error is at (`pe->lasterr_pos`); it
    /// may lie past the end of the text.
    pub(crate) pos: usize,
    /// What the write returns, negative (`-EINVAL`, but also `-1`, `-2`,
    /// `-3`: the kernel returns its internal codes as they are). Zero for
    /// an event refused by a subsystem write, which itself succeeds.
    pub(crate) errno: i32,
}

impl FilterError {
    /// A refusal recording `kind` at `pos`, the write returning `errno`.
    pub(crate) const fn new(kind: ErrorKind, pos: usize, errno: i32) -> Self {
        FilterError { kind, pos, errno }
    }

    /// A refusal that records no message (`Error: (0)`), the write
    /// returning `errno`.
    pub(crate) const fn unrecorded(errno: i32) -> Self {
        FilterError::new(ErrorKind::None, 0, errno)
    }

    /// What an event of a subsystem shows when the subsystem's filter did
    /// not parse for it (`process_system_preds()`): whatever went wrong,
    /// the kernel records `BAD_SUBSYS_FILTER` at 0. The write to the
    /// subsystem's file still succeeds, and the event is left unfiltered.
    pub(crate) const fn subsystem_event() -> Self {
        FilterError::new(ErrorKind::BadSubsysFilter, 0, 0)
    }

    /// The kernel's message for this error.
    // The module shows messages through `log_message`; tests use this.
    #[allow(dead_code)]
    pub(crate) fn message(&self) -> &'static str {
        self.kind.message()
    }

    /// The message `error_log` shows: the recorded one, or `Error` when
    /// none was recorded.
    pub(crate) fn log_message(&self) -> &'static str {
        self.log_kind().message()
    }

    /// The kind `error_log` shows ([`ErrorKind::Errno`] when none was
    /// recorded).
    pub(crate) fn log_kind(&self) -> ErrorKind {
        match self.kind {
            ErrorKind::None => ErrorKind::Errno,
            kind => kind,
        }
    }

    /// The byte of the command `error_log`'s caret points at (0 when no
    /// message was recorded).
    pub(crate) fn log_pos(&self) -> usize {
        match self.kind {
            ErrorKind::None => 0,
            _ => self.pos,
        }
    }
}

/// Writes what an event's `filter` file shows (`print_event_filter()`):
/// `none` without a filter, the text of a filter that was set, and after a
/// refused write its text with the error (`append_filter_err()`).
pub(crate) fn write_event_filter_file(
    out: &mut dyn Write,
    text: Option<&[u8]>,
    error: Option<&FilterError>,
) -> fmt::Result {
    match text {
        None => writeln!(out, "{NO_FILTER_TEXT}"),
        Some(text) => write_stored_text(out, text, error),
    }
}

/// Writes what a subsystem's `filter` file shows
/// (`print_subsystem_event_filter()`): the default message, except after
/// a write no event of the subsystem took, when it shows that text with
/// its error. (A subsystem write succeeds as soon as the subsystem has an
/// event, whether or not the filter parsed for it, and then the subsystem
/// keeps no text.)
pub(crate) fn write_subsystem_filter_file(
    out: &mut dyn Write,
    refused: Option<(&[u8], &FilterError)>,
) -> fmt::Result {
    match refused {
        None => writeln!(out, "{DEFAULT_SYS_FILTER_MESSAGE}"),
        Some((text, error)) => write_stored_text(out, text, Some(error)),
    }
}

/// Writes the text a failed write leaves as the filter's string: the
/// filter, a caret line and `parse_error: <message>`, or `Error: (0)`
/// when no message was recorded, each line left out with all after it
/// when the kernel's `trace_seq` has no room for it.
pub(crate) fn write_error_text(
    out: &mut dyn Write,
    text: &[u8],
    error: &FilterError,
) -> fmt::Result {
    let text = c_string(text);
    let pieces = ErrorText::new(text, error);
    if !pieces.has_text {
        return Ok(());
    }
    write_bytes(out, text)?;
    if pieces.has_caret {
        writeln!(out)?;
        write!(out, "{:>width$}", "^", width = pieces.caret_width)?;
    }
    if pieces.has_message {
        match error.kind {
            ErrorKind::None => write!(out, "\nError: (0)\n")?,
            kind => write!(out, "\nparse_error: {}\n", kind.message())?,
        }
    }
    Ok(())
}

/// Writes a filter's string and the newline after it, as the file shows
/// them; nothing when the two do not fit in the file's `trace_seq`.
fn write_stored_text(out: &mut dyn Write, text: &[u8], error: Option<&FilterError>) -> fmt::Result {
    let text = c_string(text);
    let len = match error {
        Some(error) => ErrorText::new(text, error).len,
        None => text.len(),
    };
    let mut seq = SeqRoom::default();
    if !seq.printf(len + 1) {
        return Ok(());
    }
    match error {
        Some(error) => write_error_text(out, text, error)?,
        None => write_bytes(out, text)?,
    }
    writeln!(out)
}

/// Which pieces of `append_filter_err()`'s text fit in its `trace_seq`.
struct ErrorText {
    /// The filter itself.
    has_text: bool,
    /// `\n` and the caret line.
    has_caret: bool,
    /// The message line.
    has_message: bool,
    /// The width the caret is right-aligned in (`%*s`).
    caret_width: usize,
    /// The length of everything that fits.
    len: usize,
}

impl ErrorText {
    /// Lays out the error text of `text` and `error` as the kernel does.
    fn new(text: &[u8], error: &FilterError) -> Self {
        let recorded = error.kind != ErrorKind::None;
        // The caret under byte `pos` (at most the end): `%*s` with the
        // width one past it, or 0 for the first byte.
        let pos = error.pos.min(text.len());
        let caret_width = if pos == 0 { 0 } else { pos + 1 };
        let caret_len = 1 + caret_width.max(1);
        let message_len = if recorded {
            "\nparse_error: \n".len() + error.kind.message().len()
        } else {
            "\nError: (0)\n".len()
        };
        let mut seq = SeqRoom::default();
        let has_text = seq.puts(text.len());
        let has_caret = recorded && has_text && seq.printf(caret_len);
        let has_message = has_text && (!recorded || has_caret) && seq.printf(message_len);
        ErrorText {
            has_text,
            has_caret,
            has_message,
            caret_width,
            len: seq.used,
        }
    }
}

/// The room left in a `trace_seq`, as its writers check it.
#[derive(Default)]
struct SeqRoom {
    /// Bytes written.
    used: usize,
    /// A write did not fit: later ones are dropped.
    full: bool,
}

impl SeqRoom {
    /// `trace_seq_puts()` of `len` bytes: fits if there is room for them.
    fn puts(&mut self, len: usize) -> bool {
        self.take(len, len <= TRACE_SEQ_BUFFER_SIZE - self.used)
    }

    /// `trace_seq_printf()` of `len` bytes: fits if there is room for them
    /// and `vsnprintf()`'s NUL.
    fn printf(&mut self, len: usize) -> bool {
        self.take(len, self.used + len < TRACE_SEQ_BUFFER_SIZE)
    }

    /// Takes `len` bytes if `fits` and nothing failed before.
    fn take(&mut self, len: usize, fits: bool) -> bool {
        if self.full || !fits {
            self.full = true;
            return false;
        }
        self.used += len;
        true
    }
}

/// Writes bytes of a filter text. `fmt::Write` takes only UTF-8: a byte
/// that is not is written as U+FFFD (the kernel writes it as it is).
fn write_bytes(out: &mut dyn Write, bytes: &[u8]) -> fmt::Result {
    for chunk in bytes.utf8_chunks() {
        out.write_str(chunk.valid())?;
        if !chunk.invalid().is_empty() {
            out.write_char(char::REPLACEMENT_CHARACTER)?;
        }
    }
    Ok(())
}
