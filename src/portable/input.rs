// SPDX-License-Identifier: GPL-2.0

//! Parsing what user space writes to rftracefs files.
//!
//! Writes arrive as raw bytes from `echo`, `printf` or a program. These
//! helpers apply ftrace's rules: surrounding white space (the newline `echo`
//! adds) is ignored, numbers are plain decimal, and anything else is refused
//! with a reason that ends up in `error_log`.

use core::fmt;

/// Why a write was refused. Each maps to an errno and to the text shown in
/// `error_log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputError {
    /// Longer than the file accepts.
    TooLong,
    /// Bytes that are not printable text (NUL, control characters, non-ASCII).
    NotText,
    /// Not a number, or not a number in range.
    BadNumber,
    /// A well-formed value this file does not know.
    UnknownValue,
    /// A CPU mask naming CPUs that do not exist.
    NoSuchCpu,
    /// A CPU mask that is not hex digits in comma-separated 32-bit groups.
    BadMask,
    /// The memory a setting needs is not available.
    NoMemory,
    /// A function filter word longer than ftrace's parser takes.
    PatternTooLong,
    /// A function filter `func:command` naming no command ftrace has.
    UnknownFunctionCommand,
    /// A function command ftrace has (`traceon`, `snapshot`, ...) that this
    /// file does not carry out.
    UnsupportedFunctionCommand,
    /// A function filter that selects no function.
    NoMatchingFunction,
    /// A function probe that every function it selects has already.
    ProbeExists,
    /// A bounded list is full.
    NoSpace,
    /// What the file controls is not available (the patch engine did not
    /// start).
    NoDevice,
    /// A selected function is in use by the kernel's ftrace (its function
    /// tracer, a kprobe, BPF, livepatch).
    FunctionBusy,
    /// Tracing every function left out some the kernel's ftrace uses; the
    /// tracer runs on the rest (a warning, not a failure).
    SomeFunctionsBusy,
    /// Every function_graph tracer slot is in use by other instances.
    TooManyGraphTracers,
    /// A `set_event` word that selects no event (not logged, as in ftrace).
    NoMatchingEvent,
    /// A word of a pid file that is not a number (not logged, as in
    /// ftrace).
    BadPid,
    /// A pid at or above the kernel's pid list limit (`EPERM`, not logged,
    /// as in ftrace).
    PidOutOfRange,
    /// The kernel refused what the write asked (not logged, as in ftrace):
    /// its errno, positive.
    Kernel(i32),
}

impl InputError {
    /// The message `error_log` shows after `error: `.
    pub(crate) fn message(self) -> &'static str {
        match self {
            InputError::TooLong => "Input is too long",
            InputError::NotText => "Input is not printable text",
            InputError::BadNumber => "Invalid number",
            InputError::UnknownValue => "Unknown value",
            InputError::NoSuchCpu => "CPU mask names a CPU that does not exist",
            InputError::BadMask => "Invalid CPU mask",
            InputError::NoMemory => "Not enough memory",
            InputError::PatternTooLong => "Function pattern is too long",
            InputError::UnknownFunctionCommand => "Unknown function command",
            InputError::UnsupportedFunctionCommand => "Function command not supported",
            InputError::NoMatchingFunction => "No function matches",
            InputError::ProbeExists => "Function probe already set",
            InputError::NoSpace => "No space left for more entries",
            InputError::NoDevice => "Function tracing is not available",
            InputError::FunctionBusy => {
                "Function already in use by the kernel's ftrace, a kprobe or BPF"
            }
            InputError::SomeFunctionsBusy => {
                "Functions in use by the kernel's ftrace, a kprobe or BPF were left out"
            }
            InputError::TooManyGraphTracers => "Too many function_graph tracers running",
            InputError::NoMatchingEvent => "No event matches",
            InputError::BadPid => "Invalid pid",
            InputError::PidOutOfRange => "Pid out of range",
            InputError::Kernel(_) => "The kernel refused the request",
        }
    }

    /// Whether `error_log` gets an entry for it (ftrace logs some refusals
    /// only).
    pub(crate) fn is_logged(self) -> bool {
        !matches!(
            self,
            InputError::NoMatchingEvent
                | InputError::BadPid
                | InputError::PidOutOfRange
                | InputError::Kernel(_)
        )
    }

    /// The errno (positive) a write fails with.
    pub(crate) fn errno(self) -> i32 {
        const EPERM: i32 = 1;
        const ENOMEM: i32 = 12;
        const EBUSY: i32 = 16;
        const ENODEV: i32 = 19;
        const EINVAL: i32 = 22;
        const ENOSPC: i32 = 28;
        match self {
            InputError::NoMemory => ENOMEM,
            InputError::NoSpace => ENOSPC,
            InputError::NoDevice => ENODEV,
            InputError::FunctionBusy
            | InputError::SomeFunctionsBusy
            | InputError::TooManyGraphTracers => EBUSY,
            InputError::PidOutOfRange => EPERM,
            InputError::Kernel(errno) => errno,
            _ => EINVAL,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// Parses a number the way the kernel's `kstrtoul(.., 0, ..)` reads one:
/// `0x` (or `0X`) before hex digits means hex, a leading `0` octal, else
/// decimal; nothing but digits, and no overflow.
pub(crate) fn parse_c_number(text: &[u8]) -> Result<u64, InputError> {
    let (radix, digits) = split_radix(text);
    if digits.is_empty() {
        return Err(InputError::BadNumber);
    }
    let mut value: u64 = 0;
    for &b in digits {
        let digit = char::from(b).to_digit(radix).ok_or(InputError::BadNumber)?;
        value = value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(digit)))
            .ok_or(InputError::BadNumber)?;
    }
    Ok(value)
}

/// The radix of a number and its digits: `0x` (or `0X`) before a hex digit
/// means hex, a leading `0` octal (the `0` is a digit of it).
fn split_radix(text: &[u8]) -> (u32, &[u8]) {
    match text {
        [b'0', b'x' | b'X', digits @ ..] if digits.first().is_some_and(u8::is_ascii_hexdigit) => {
            (16, digits)
        }
        [b'0', ..] => (8, text),
        _ => (10, text),
    }
}

/// The white-space separated words of `text`.
pub(crate) fn words(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|b| b.is_ascii_whitespace() || *b == 0)
        .filter(|w| !w.is_empty())
}

/// Strips ASCII white space from both ends.
pub(crate) fn trim(input: &[u8]) -> &[u8] {
    let start = input.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else {
        return &[];
    };
    let end = input
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .unwrap_or(start);
    &input[start..=end]
}

/// Checks that `input` is printable ASCII text (white space allowed).
pub(crate) fn require_text(input: &[u8]) -> Result<&[u8], InputError> {
    if input
        .iter()
        .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace())
    {
        Ok(input)
    } else {
        Err(InputError::NotText)
    }
}

/// Returns the trimmed text of a one-word write, refusing binary input.
pub(crate) fn word(input: &[u8]) -> Result<&[u8], InputError> {
    Ok(trim(require_text(input)?))
}

/// Parses an unsigned decimal number, as `kstrtoul(.., 10, ..)` does: digits
/// only, with surrounding white space allowed.
pub(crate) fn parse_u64(input: &[u8]) -> Result<u64, InputError> {
    let digits = word(input)?;
    if digits.is_empty() {
        return Err(InputError::BadNumber);
    }
    let mut value: u64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return Err(InputError::BadNumber);
        }
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
            .ok_or(InputError::BadNumber)?;
    }
    Ok(value)
}

/// Parses an unsigned decimal number exactly as `kstrtoul(.., 10, ..)`
/// does: an optional `+`, digits, and at most one newline after them;
/// nothing else, not even a space.
pub(crate) fn parse_kstrtoul(input: &[u8]) -> Result<u64, InputError> {
    let body = input.strip_suffix(b"\n").unwrap_or(input);
    let digits = body.strip_prefix(b"+").unwrap_or(body);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(InputError::BadNumber);
    }
    parse_u64(digits)
}

/// Parses an on/off switch (`tracing_on`): any number, non-zero is on.
pub(crate) fn parse_switch(input: &[u8]) -> Result<bool, InputError> {
    parse_u64(input).map(|v| v != 0)
}

/// Parses a 0/1 flag (files in `options/`): only 0 and 1 are accepted.
pub(crate) fn parse_flag(input: &[u8]) -> Result<bool, InputError> {
    match parse_u64(input)? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(InputError::BadNumber),
    }
}

/// Parses an octal number such as a file mode (`0750`, `750`).
pub(crate) fn parse_octal(input: &[u8]) -> Result<u32, InputError> {
    let digits = word(input)?;
    if digits.is_empty() {
        return Err(InputError::BadNumber);
    }
    let mut value: u32 = 0;
    for &b in digits {
        if !(b'0'..=b'7').contains(&b) {
            return Err(InputError::BadNumber);
        }
        value = value
            .checked_mul(8)
            .and_then(|v| v.checked_add(u32::from(b - b'0')))
            .ok_or(InputError::BadNumber)?;
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_echo_newline_and_spaces() {
        assert_eq!(trim(b"  nop\n"), b"nop");
        assert_eq!(trim(b"\n"), b"");
        assert_eq!(trim(b""), b"");
        assert_eq!(trim(b"a b"), b"a b");
    }

    #[test]
    fn numbers_are_decimal_only() {
        assert_eq!(parse_u64(b"0\n"), Ok(0));
        assert_eq!(parse_kstrtoul(b"4\n"), Ok(4));
        assert_eq!(parse_kstrtoul(b"+4"), Ok(4));
        for bad in [
            &b" 4\n"[..],
            b"4 \n",
            b"4\n\n",
            b"-1\n",
            b"4x",
            b"",
            b"\n",
            b"+",
        ] {
            assert_eq!(parse_kstrtoul(bad), Err(InputError::BadNumber), "{bad:?}");
        }
        assert_eq!(
            parse_kstrtoul(b"18446744073709551616"),
            Err(InputError::BadNumber)
        );
        assert_eq!(parse_u64(b" 42 "), Ok(42));
        assert_eq!(parse_u64(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            parse_u64(b"18446744073709551616"),
            Err(InputError::BadNumber)
        );
        assert_eq!(parse_u64(b"0x10"), Err(InputError::BadNumber));
        assert_eq!(parse_u64(b"-1"), Err(InputError::BadNumber));
        assert_eq!(parse_u64(b""), Err(InputError::BadNumber));
        assert_eq!(parse_u64(b"1 2"), Err(InputError::BadNumber));
        assert_eq!(parse_u64(b"1\0"), Err(InputError::NotText));
        assert_eq!(parse_u64(b"\xff"), Err(InputError::NotText));
    }

    #[test]
    fn switch_and_flag() {
        assert_eq!(parse_switch(b"1\n"), Ok(true));
        assert_eq!(parse_switch(b"7"), Ok(true));
        assert_eq!(parse_switch(b"0"), Ok(false));
        assert_eq!(parse_switch(b"on"), Err(InputError::BadNumber));
        assert_eq!(parse_flag(b"1"), Ok(true));
        assert_eq!(parse_flag(b"0\n"), Ok(false));
        assert_eq!(parse_flag(b"2"), Err(InputError::BadNumber));
    }

    #[test]
    fn octal_modes() {
        assert_eq!(parse_octal(b"0750"), Ok(0o750));
        assert_eq!(parse_octal(b"700"), Ok(0o700));
        assert_eq!(parse_octal(b"8"), Err(InputError::BadNumber));
        assert_eq!(parse_octal(b"77777777777777"), Err(InputError::BadNumber));
    }
}
