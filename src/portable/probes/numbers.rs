// SPDX-License-Identifier: GPL-2.0

//! The kernel's number parsers as probe arguments use them
//! (`lib/kstrtox.c`, `simple_strtoul` of `lib/vsprintf.c`): the same radix
//! prefixes, the same overflow and the same tolerance of one trailing
//! newline, so that a word the kernel takes is taken here and no other.

/// Why `kstrto*` refused a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NumError {
    /// Not a number (`-EINVAL`).
    Invalid,
    /// Out of range (`-ERANGE`).
    Range,
}

/// `_parse_integer_fixup_radix`: the base (0 picks it from a `0x` or `0`
/// prefix) and how many prefix bytes to skip.
fn fixup_radix(s: &[u8], base: u32) -> (u32, usize) {
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let mut base = base;
    if base == 0 {
        base = if at(0) == b'0' {
            if at(1).eq_ignore_ascii_case(&b'x') && at(2).is_ascii_hexdigit() {
                16
            } else {
                8
            }
        } else {
            10
        };
    }
    let skip = if base == 16 && at(0) == b'0' && at(1).eq_ignore_ascii_case(&b'x') {
        2
    } else {
        0
    };
    (base, skip)
}

/// `_parse_integer`: the value of the leading digits of `s` (saturated at
/// `u64::MAX` when it overflows), how many digits, and whether it
/// overflowed.
fn parse_integer(s: &[u8], base: u32) -> (u64, usize, bool) {
    let mut res: u64 = 0;
    let mut overflow = false;
    let mut count = 0;
    for &c in s {
        let lc = c.to_ascii_lowercase();
        let val = match c {
            b'0'..=b'9' => u32::from(c - b'0'),
            _ if (b'a'..=b'f').contains(&lc) => u32::from(lc - b'a') + 10,
            _ => break,
        };
        if val >= base {
            break;
        }
        match res
            .checked_mul(u64::from(base))
            .and_then(|r| r.checked_add(u64::from(val)))
        {
            Some(r) => res = r,
            None => {
                res = u64::MAX;
                overflow = true;
            }
        }
        count += 1;
    }
    (res, count, overflow)
}

/// `_kstrtoull`: the whole of `s` (but for one trailing newline) is a
/// number.
fn kstrtoull_unsigned(s: &[u8], base: u32) -> Result<u64, NumError> {
    let (base, skip) = fixup_radix(s, base);
    let s = s.get(skip..).unwrap_or(&[]);
    let (value, count, overflow) = parse_integer(s, base);
    if overflow {
        return Err(NumError::Range);
    }
    if count == 0 {
        return Err(NumError::Invalid);
    }
    let mut rest = &s[count..];
    if rest.first() == Some(&b'\n') {
        rest = &rest[1..];
    }
    if rest.is_empty() {
        Ok(value)
    } else {
        Err(NumError::Invalid)
    }
}

/// `kstrtoull` (and `kstrtoul` on 64-bit): an optional `+`, then a number.
pub(crate) fn kstrtoul(s: &[u8], base: u32) -> Result<u64, NumError> {
    let s = s.strip_prefix(b"+").unwrap_or(s);
    kstrtoull_unsigned(s, base)
}

/// `kstrtol` (`kstrtoll` on 64-bit): a number with an optional sign.
pub(crate) fn kstrtol(s: &[u8], base: u32) -> Result<i64, NumError> {
    if let Some(digits) = s.strip_prefix(b"-") {
        let tmp = kstrtoull_unsigned(digits, base)?;
        let value = tmp.wrapping_neg() as i64;
        if value > 0 {
            return Err(NumError::Range);
        }
        Ok(value)
    } else {
        let tmp = kstrtoul(s, base)?;
        i64::try_from(tmp).map_err(|_| NumError::Range)
    }
}

/// `kstrtouint`.
pub(crate) fn kstrtouint(s: &[u8], base: u32) -> Result<u32, NumError> {
    let tmp = kstrtoul(s, base)?;
    u32::try_from(tmp).map_err(|_| NumError::Range)
}

/// `simple_strtoul`: the value of the number `s` starts with (0 when it
/// starts with none) and where it ends.
pub(crate) fn simple_strtoul(s: &[u8], base: u32) -> (u64, usize) {
    let (base, skip) = fixup_radix(s, base);
    let digits = s.get(skip..).unwrap_or(&[]);
    let (value, count, _) = parse_integer(digits, base);
    (value, skip + count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kstrtoul_takes_the_kernels_forms() {
        assert_eq!(kstrtoul(b"10", 0), Ok(10));
        assert_eq!(kstrtoul(b"0x10", 0), Ok(16));
        assert_eq!(kstrtoul(b"010", 0), Ok(8));
        assert_eq!(kstrtoul(b"+7", 0), Ok(7));
        assert_eq!(kstrtoul(b"7\n", 0), Ok(7));
        assert_eq!(kstrtoul(b"0x", 0), Err(NumError::Invalid));
        assert_eq!(kstrtoul(b"", 0), Err(NumError::Invalid));
        assert_eq!(kstrtoul(b"1a", 10), Err(NumError::Invalid));
        assert_eq!(kstrtoul(b"08", 0), Err(NumError::Invalid));
        assert_eq!(kstrtoul(b"0x10000000000000000", 0), Err(NumError::Range));
        assert_eq!(kstrtoul(b"0xffffffffffffffff", 0), Ok(u64::MAX));
    }

    #[test]
    fn kstrtol_takes_a_sign() {
        assert_eq!(kstrtol(b"-8", 0), Ok(-8));
        assert_eq!(kstrtol(b"+8", 0), Ok(8));
        assert_eq!(kstrtol(b"-0x8000000000000000", 0), Ok(i64::MIN));
        assert_eq!(kstrtol(b"-0x8000000000000001", 0), Err(NumError::Range));
        assert_eq!(kstrtol(b"0x8000000000000000", 0), Err(NumError::Range));
        assert_eq!(kstrtol(b"-+8", 0), Err(NumError::Invalid));
    }

    #[test]
    fn kstrtouint_is_32_bits() {
        assert_eq!(kstrtouint(b"4294967295", 0), Ok(u32::MAX));
        assert_eq!(kstrtouint(b"4294967296", 0), Err(NumError::Range));
    }

    #[test]
    fn simple_strtoul_stops_at_the_first_non_digit() {
        assert_eq!(simple_strtoul(b"12@3", 0), (12, 2));
        assert_eq!(simple_strtoul(b"0x1f/8", 0), (31, 4));
        assert_eq!(simple_strtoul(b"@", 0), (0, 0));
        assert_eq!(simple_strtoul(b"0x", 0), (0, 1));
        assert_eq!(simple_strtoul(b"99999999999999999999999", 0).0, u64::MAX);
    }
}
