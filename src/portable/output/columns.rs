// SPDX-License-Identifier: GPL-2.0

//! Padded columns, as `core::fmt` pads them (`{:>16}`, `{:<7}`, `{:03}`),
//! with one `write_str` per part.
//!
//! The context columns start every line of `trace`, and `core::fmt` pads
//! by writing each fill character on its own through the writer: a
//! 16-column task name of two letters was fourteen calls. These write the
//! fill as one slice.

use core::fmt::{self, Write};

const SPACES: &str = "                                ";
const ZEROS: &str = "00000000000000000000";

/// Writes `n` characters of `fill` (all alike), a slice at a time.
fn write_fill(out: &mut dyn Write, fill: &str, mut n: usize) -> fmt::Result {
    while n > 0 {
        let k = n.min(fill.len());
        out.write_str(&fill[..k])?;
        n -= k;
    }
    Ok(())
}

/// `{s:>width}`: `s` right-aligned in `width` characters.
pub(crate) fn right(out: &mut dyn Write, s: &str, width: usize) -> fmt::Result {
    write_fill(out, SPACES, width.saturating_sub(s.chars().count()))?;
    out.write_str(s)
}

/// `{s:<width}`: `s` left-aligned in `width` characters.
pub(crate) fn left(out: &mut dyn Write, s: &str, width: usize) -> fmt::Result {
    out.write_str(s)?;
    write_fill(out, SPACES, width.saturating_sub(s.chars().count()))
}

/// The decimal text of a number, made without `core::fmt`.
pub(crate) struct Decimal {
    buf: [u8; 20],
    start: usize,
}

impl Decimal {
    /// The digits of `n`.
    pub(crate) fn new(mut n: u64) -> Self {
        let mut buf = [0u8; 20];
        let mut start = buf.len();
        loop {
            start -= 1;
            buf[start] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                return Decimal { buf, start };
            }
        }
    }

    /// The digits.
    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII digits are ever stored.
        core::str::from_utf8(&self.buf[self.start..]).unwrap_or("")
    }
}

/// `{n:width}`: `n` right-aligned in `width` columns.
pub(crate) fn number(out: &mut dyn Write, n: u64, width: usize) -> fmt::Result {
    right(out, Decimal::new(n).as_str(), width)
}

/// `{n:0width}`: `n` with leading zeros to `width` digits.
pub(crate) fn zero_padded(out: &mut dyn Write, n: u64, width: usize) -> fmt::Result {
    let digits = Decimal::new(n);
    write_fill(out, ZEROS, width.saturating_sub(digits.as_str().len()))?;
    out.write_str(digits.as_str())
}

/// `{n:<width}` of a signed number: its sign and digits left-aligned.
pub(crate) fn signed_left(out: &mut dyn Write, n: i64, width: usize) -> fmt::Result {
    let digits = Decimal::new(n.unsigned_abs());
    let sign = if n < 0 { "-" } else { "" };
    out.write_str(sign)?;
    left(out, digits.as_str(), width.saturating_sub(sign.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl Fn(&mut String) -> fmt::Result) -> String {
        let mut s = String::new();
        assert!(f(&mut s).is_ok());
        s
    }

    #[test]
    fn strings_pad_as_core_fmt() {
        for s in [
            "",
            "dd",
            "rftracetest",
            "a-name-of-16-chr",
            "longer-than-sixteen",
            "nö",
        ] {
            assert_eq!(text(|o| right(o, s, 16)), format!("{s:>16}"));
            assert_eq!(text(|o| left(o, s, 7)), format!("{s:<7}"));
            assert_eq!(text(|o| right(o, s, 40)), format!("{s:>40}"));
        }
    }

    #[test]
    fn numbers_pad_as_core_fmt() {
        for n in [0u64, 7, 42, 999, 1000, 123_456, 4_294_967_295, u64::MAX] {
            assert_eq!(Decimal::new(n).as_str(), format!("{n}"));
            assert_eq!(text(|o| number(o, n, 5)), format!("{n:5}"));
            assert_eq!(text(|o| number(o, n, 12)), format!("{n:12}"));
            assert_eq!(text(|o| zero_padded(o, n, 3)), format!("{n:03}"));
            assert_eq!(text(|o| zero_padded(o, n, 6)), format!("{n:06}"));
            assert_eq!(text(|o| zero_padded(o, n, 25)), format!("{n:025}"));
        }
        for n in [
            0i64,
            1,
            -1,
            1234,
            -1234,
            1_234_567,
            -1_234_567,
            i64::MIN,
            i64::MAX,
        ] {
            assert_eq!(text(|o| signed_left(o, n, 7)), format!("{n:<7}"));
        }
    }
}
