// SPDX-License-Identifier: GPL-2.0

//! Numbers in a filter, read as the kernel's `kstrtoull()`, `kstrtoll()`
//! and `kstrtoul()` read them with base 0: `0x` before a hex digit means
//! hex, a leading `0` octal, else decimal; no sign for unsigned fields, an
//! optional `-` for signed ones, and no overflow.

use crate::portable::input::parse_c_number;

/// `kstrtoull(text, 0, ..)` (and, on 64-bit, `kstrtoul()`) for the text a
/// filter hands it, which holds only a sign and letters or digits.
pub(super) fn kstrtoull(text: &[u8]) -> Option<u64> {
    parse_c_number(text).ok()
}

/// `kstrtoll(text, 0, ..)`: a `-` and a magnitude up to 2^63, or a value
/// below 2^63. The value comes back as its 64 bits, as the kernel keeps it
/// in `pred->val`.
pub(super) fn kstrtoll(text: &[u8]) -> Option<u64> {
    match text.split_first() {
        Some((b'-', magnitude)) => {
            let magnitude = kstrtoull(magnitude)?;
            let negated = magnitude.wrapping_neg();
            // `(long long)-tmp > 0` is an overflow.
            (to_signed(negated) <= 0).then_some(negated)
        }
        _ => kstrtoull(text).filter(|&value| to_signed(value) >= 0),
    }
}

/// The 64 bits of `value` read as a signed number, as C's `(long long)`
/// cast reads them.
fn to_signed(value: u64) -> i64 {
    i64::from_ne_bytes(value.to_ne_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_bases() {
        assert_eq!(kstrtoull(b"0"), Some(0));
        assert_eq!(kstrtoull(b"42"), Some(42));
        assert_eq!(kstrtoull(b"0x2A"), Some(42));
        assert_eq!(kstrtoull(b"0X2a"), Some(42));
        assert_eq!(kstrtoull(b"052"), Some(42));
        assert_eq!(kstrtoull(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(kstrtoull(b"0xffffffffffffffff"), Some(u64::MAX));
        for bad in [
            &b"18446744073709551616"[..],
            b"08",
            b"0x",
            b"0xg",
            b"",
            b"-1",
            b"1a",
            b"12\xe9",
        ] {
            assert_eq!(kstrtoull(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn signed_range() {
        assert_eq!(kstrtoll(b"-1"), Some(u64::MAX));
        assert_eq!(kstrtoll(b"-0"), Some(0));
        assert_eq!(kstrtoll(b"-0x10"), Some(16u64.wrapping_neg()));
        assert_eq!(kstrtoll(b"9223372036854775807"), Some(i64::MAX as u64));
        assert_eq!(kstrtoll(b"-9223372036854775808"), Some(1 << 63));
        assert_eq!(kstrtoll(b"9223372036854775808"), None);
        assert_eq!(kstrtoll(b"-9223372036854775809"), None);
        assert_eq!(kstrtoll(b"-"), None);
        assert_eq!(kstrtoll(b"--1"), None);
    }
}
