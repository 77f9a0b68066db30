// SPDX-License-Identifier: GPL-2.0

//! Reading the filter text byte by byte as the kernel does: its `ctype`
//! classes, C-string ends, what a write to a `filter` file means, and the
//! first pass over the text (`calc_stack`) that sizes the parser's storage.

use super::error::{ErrorKind, FilterError, ENOENT, EPERM, ESRCH};

/// The byte at `i`, or NUL past the end: the kernel reads the filter as a C
/// string, and reads past its end stop at the terminating NUL.
pub(super) fn byte_at(text: &[u8], i: usize) -> u8 {
    text.get(i).copied().unwrap_or(0)
}

/// `text` up to its first NUL, as the kernel sees a C string.
pub(super) fn c_string(text: &[u8]) -> &[u8] {
    let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
    text.get(..end).unwrap_or(text)
}

/// The kernel's `isspace()`: `\t` to `\r`, the space and Latin-1's no-break
/// space 0xa0.
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ' | 0xa0)
}

/// The kernel's `isdigit()`: ASCII digits only.
pub(super) fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// The kernel's `isalnum()`: ASCII letters and digits, and the Latin-1
/// letters 0xc0 to 0xff (all but × and ÷), which its `ctype` table marks as
/// letters.
pub(super) fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric() || (b >= 0xc0 && b != 0xd7 && b != 0xf7)
}

/// Whether a field name may hold `b`: `isalnum()` or `_`.
pub(super) fn is_name_byte(b: u8) -> bool {
    is_alnum(b) || b == b'_'
}

/// The index of the first byte at or after `i` that is not white space.
pub(super) fn skip_spaces(text: &[u8], mut i: usize) -> usize {
    while is_space(byte_at(text, i)) {
        i += 1;
    }
    i
}

/// What a write to an event's or a subsystem's `filter` file asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FilterWrite<'a> {
    /// `0` (with any white space around it): remove the filter.
    Clear,
    /// Set this filter: the text as the kernel keeps it, up to the first NUL
    /// and without trailing white space (the kernel's `strstrip()` cuts the
    /// end in place; leading white space stays, and error positions count
    /// it).
    Set(&'a [u8]),
}

/// Sorts a write to a `filter` file as `apply_event_filter()` and
/// `apply_subsystem_event_filter()` do: `!strcmp(strstrip(text), "0")`
/// clears, anything else is a filter.
pub(crate) fn classify_write(written: &[u8]) -> FilterWrite<'_> {
    let text = trim_end(c_string(written));
    let start = skip_spaces(text, 0);
    if text.get(start..) == Some(&b"0"[..]) {
        FilterWrite::Clear
    } else {
        FilterWrite::Set(text)
    }
}

/// `text` without its trailing white space.
fn trim_end(text: &[u8]) -> &[u8] {
    let end = text
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(0, |last| last + 1);
    text.get(..end).unwrap_or(text)
}

/// What the first pass over the text found: the storage the parser needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StackSizes {
    /// The deepest nesting of parentheses, counting the whole expression as
    /// one level (`nr_parens`).
    pub(super) parens: usize,
    /// The number of predicates counted (`nr_preds`); an estimate, as the
    /// kernel's: the parser refuses more than this plus two.
    pub(super) preds: usize,
}

/// The kernel's `calc_stack()`: counts predicates and nesting, and finds
/// unbalanced parentheses and quotes. The error is the one
/// `process_preds()` records, with the value it returns (`-1`, `-2` and
/// `-3`: the kernel hands these codes back as errnos).
pub(super) fn calc_stack(text: &[u8]) -> Result<StackSizes, FilterError> {
    let mut is_pred = false;
    let mut preds = 0;
    let mut open = 1usize;
    let mut max_open = 1;
    let mut quote = 0u8;
    let mut last_quote = 0;
    for (i, &c) in text.iter().enumerate() {
        if is_space(c) {
            continue;
        }
        if quote != 0 {
            if c == quote {
                quote = 0;
            }
            continue;
        }
        match c {
            b'\'' | b'"' => {
                quote = c;
                last_quote = i;
            }
            b'|' | b'&' if byte_at(text, i + 1) == c => {
                is_pred = false;
                continue;
            }
            b'(' => {
                is_pred = false;
                open += 1;
                max_open = max_open.max(open);
                continue;
            }
            b')' => {
                is_pred = false;
                if open == 1 {
                    return Err(FilterError::new(ErrorKind::TooManyClose, i, -EPERM));
                }
                open -= 1;
                continue;
            }
            _ => {}
        }
        if !is_pred {
            preds += 1;
            is_pred = true;
        }
    }
    if quote != 0 {
        return Err(FilterError::new(
            ErrorKind::MissingQuote,
            last_quote,
            -ESRCH,
        ));
    }
    if open != 1 {
        let pos = unmatched_open(text, open);
        return Err(FilterError::new(ErrorKind::TooManyOpen, pos, -ENOENT));
    }
    Ok(StackSizes {
        parens: max_open,
        preds,
    })
}

/// Where `calc_stack()` reports a missing `)`: walking back from the last
/// byte (but never looking at the first), the `(` that no later `)`
/// closes; the first byte when none is found.
fn unmatched_open(text: &[u8], open: usize) -> usize {
    let mut level = open;
    let mut quote = 0u8;
    for i in (1..text.len()).rev() {
        let c = byte_at(text, i);
        if quote != 0 {
            if c == quote {
                quote = 0;
            }
            continue;
        }
        match c {
            b'(' if level == open => return i,
            b'(' => level -= 1,
            b')' => level += 1,
            b'\'' | b'"' => quote = c,
            _ => {}
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_ctype() {
        for b in [b' ', b'\t', b'\n', 0x0b, 0x0c, b'\r', 0xa0] {
            assert!(is_space(b), "{b:#x}");
        }
        assert!(!is_space(0) && !is_space(0x85) && !is_space(b'a'));
        assert!(is_alnum(b'a') && is_alnum(b'Z') && is_alnum(b'7'));
        assert!(is_alnum(0xc0) && is_alnum(0xe9) && is_alnum(0xff));
        assert!(!is_alnum(0xd7) && !is_alnum(0xf7) && !is_alnum(0xa0));
        assert!(!is_alnum(b'_') && is_name_byte(b'_'));
        assert!(!is_digit(0xb2) && is_digit(b'0'));
    }

    #[test]
    fn writes_are_stripped_at_the_end_only() {
        assert_eq!(classify_write(b"0\n"), FilterWrite::Clear);
        assert_eq!(classify_write(b"  0  \n"), FilterWrite::Clear);
        assert_eq!(classify_write(b"0\0junk"), FilterWrite::Clear);
        assert_eq!(
            classify_write(b"  a == 1 \n"),
            FilterWrite::Set(&b"  a == 1"[..])
        );
        assert_eq!(classify_write(b"00"), FilterWrite::Set(&b"00"[..]));
        assert_eq!(classify_write(b"\n"), FilterWrite::Set(&b""[..]));
        assert_eq!(classify_write(b""), FilterWrite::Set(&b""[..]));
        assert_eq!(classify_write(b"a\0b"), FilterWrite::Set(&b"a"[..]));
    }

    #[test]
    fn counts_predicates_and_nesting() {
        let sizes = |t: &[u8]| calc_stack(t).map(|s| (s.parens, s.preds));
        assert_eq!(sizes(b"a == 1"), Ok((1, 1)));
        // The second `&` of `&&` counts as the start of the next predicate
        // and the predicate itself then does not.
        assert_eq!(sizes(b"a == 1 && b == 2"), Ok((1, 2)));
        assert_eq!(sizes(b"((a == 1) || b == 2)"), Ok((3, 2)));
        assert_eq!(sizes(b"()"), Ok((2, 0)));
        assert_eq!(sizes(b""), Ok((1, 0)));
        // Quoted text is skipped, parentheses and all.
        assert_eq!(sizes(b"s == \"(((\""), Ok((1, 1)));
    }

    #[test]
    fn finds_unbalanced_text() {
        let err = |t: &[u8]| calc_stack(t).map_err(|e| (e.kind, e.pos, e.errno));
        assert_eq!(err(b"a == 1)"), Err((ErrorKind::TooManyClose, 6, -1)));
        assert_eq!(err(b"s == 'x"), Err((ErrorKind::MissingQuote, 5, -3)));
        assert_eq!(
            err(b"s == 'x' && t == \"y"),
            Err((ErrorKind::MissingQuote, 17, -3))
        );
        assert_eq!(
            err(b"a == 1 && (b == 2"),
            Err((ErrorKind::TooManyOpen, 10, -2))
        );
        // The search skips the first byte and falls back to 0.
        assert_eq!(err(b"((a == 1)"), Err((ErrorKind::TooManyOpen, 0, -2)));
        assert_eq!(err(b"(a == 1"), Err((ErrorKind::TooManyOpen, 0, -2)));
        assert_eq!(err(b"x(((a)"), Err((ErrorKind::TooManyOpen, 2, -2)));
    }
}
