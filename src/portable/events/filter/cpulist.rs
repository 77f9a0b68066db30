// SPDX-License-Identifier: GPL-2.0

//! The CPU lists of `CPUS{...}`, read as the kernel's `cpulist_parse()`
//! (`bitmap_parselist()`) reads them: regions `A`, `A-B`, `A-B:USED/GROUP`
//! or `all`, separated by commas or white space, where `N` stands for the
//! last CPU; a NUL or newline ends the list.

use super::text::{byte_at, is_space};
use crate::portable::cpumask::CpuMask;

/// One region of a list (the kernel's `struct region`).
#[derive(Clone, Copy, Debug, Default)]
struct Region {
    /// The first CPU.
    start: u32,
    /// How many CPUs of each group are taken.
    off: u32,
    /// How far apart the groups start.
    group_len: u32,
    /// The last CPU.
    end: u32,
}

/// Parses `list` into a mask of `nbits` CPUs; `None` for any error the
/// kernel reports (`-EINVAL`, `-ERANGE` or `-EOVERFLOW`).
pub(super) fn parse_cpulist(list: &[u8], nbits: u32) -> Option<CpuMask> {
    let mut mask = CpuMask::empty();
    let mut at = 0;
    loop {
        let Some(start) = find_region(list, at) else {
            return Some(mask);
        };
        let (region, next) = parse_region(list, start, nbits)?;
        check_region(&region, nbits)?;
        set_region(&mut mask, &region);
        let Some(next) = next else {
            return Some(mask);
        };
        at = next;
    }
}

/// Skips separators before a region (`bitmap_find_region()`); `None` at
/// the end of the list.
fn find_region(list: &[u8], mut at: usize) -> Option<usize> {
    while is_region_end(byte_at(list, at)) {
        at += 1;
    }
    (!is_list_end(byte_at(list, at))).then_some(at)
}

/// Whether `c` ends the list: NUL or newline.
fn is_list_end(c: u8) -> bool {
    c == 0 || c == b'\n'
}

/// Whether `c` separates regions: white space or a comma.
fn is_region_end(c: u8) -> bool {
    is_space(c) || c == b','
}

/// Whether `c` ends a region or the list.
fn is_region_or_list_end(c: u8) -> bool {
    is_region_end(c) || is_list_end(c)
}

/// Reads the region at `at` (`bitmap_parse_region()`): the region, and
/// where the next one may start (`None` once the list has ended). The
/// outer `None` is a malformed region.
fn parse_region(list: &[u8], at: usize, nbits: u32) -> Option<(Region, Option<usize>)> {
    let last = nbits.wrapping_sub(1);
    let mut region = Region::default();
    let mut at = at;
    let is_all = list
        .get(at..at + 3)
        .is_some_and(|word| word.eq_ignore_ascii_case(b"all"));
    if is_all {
        region.end = last;
        at += 3;
    } else {
        (region.start, at) = get_number(list, at, last)?;
        if is_region_or_list_end(byte_at(list, at)) {
            region.end = region.start;
            return Some(whole_range(region, list, at));
        }
        if byte_at(list, at) != b'-' {
            return None;
        }
        (region.end, at) = get_number(list, at + 1, last)?;
    }
    if is_region_or_list_end(byte_at(list, at)) {
        return Some(whole_range(region, list, at));
    }
    if byte_at(list, at) != b':' {
        return None;
    }
    (region.off, at) = get_number(list, at + 1, last)?;
    if byte_at(list, at) != b'/' {
        return None;
    }
    (region.group_len, at) = get_number(list, at + 1, last)?;
    Some((region, Some(at)))
}

/// A region without `:USED/GROUP` takes all of its CPUs; the list goes on
/// after it unless it ended there.
fn whole_range(mut region: Region, list: &[u8], at: usize) -> (Region, Option<usize>) {
    region.off = region.end.wrapping_add(1);
    region.group_len = region.off;
    let next = (!is_list_end(byte_at(list, at))).then_some(at);
    (region, next)
}

/// Reads a number at `at` (`bitmap_getnum()`): `N` for `last`, or decimal
/// digits that fit 32 bits. Returns it and where it ends.
fn get_number(list: &[u8], at: usize, last: u32) -> Option<(u32, usize)> {
    if byte_at(list, at) == b'N' {
        return Some((last, at + 1));
    }
    let mut value: u32 = 0;
    let mut end = at;
    let mut overflow = false;
    while let Some(digit) = char::from(byte_at(list, end)).to_digit(10) {
        match value.checked_mul(10).and_then(|v| v.checked_add(digit)) {
            Some(next) => value = next,
            None => overflow = true,
        }
        end += 1;
    }
    (end != at && !overflow).then_some((value, end))
}

/// Refuses a region the kernel refuses (`bitmap_check_region()`).
fn check_region(region: &Region, nbits: u32) -> Option<()> {
    let malformed =
        region.start > region.end || region.group_len == 0 || region.off > region.group_len;
    (!malformed && region.end < nbits).then_some(())
}

/// Sets the CPUs of a checked region (`bitmap_set_region()`): from each
/// group starting at `start`, `start + group_len`, ... up to `end`, the
/// first `off`. The start wraps at 32 bits as the kernel's does; that
/// still ends within `end + 2` steps, as every start stays at most `end`.
fn set_region(mask: &mut CpuMask, region: &Region) {
    let mut start = region.start;
    while start <= region.end {
        let count = (region.end - start).saturating_add(1).min(region.off);
        for cpu in start..start.saturating_add(count) {
            mask.set(cpu as usize);
        }
        start = start.wrapping_add(region.group_len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CPUs of `list`, in order.
    fn cpus(list: &[u8], nbits: u32) -> Option<Vec<usize>> {
        let mask = parse_cpulist(list, nbits)?;
        Some(
            (0..512)
                .filter(|&cpu| mask.words()[cpu / 64] & (1 << (cpu % 64)) != 0)
                .collect(),
        )
    }

    #[test]
    fn lists_and_ranges() {
        assert_eq!(cpus(b"0", 8), Some(vec![0]));
        assert_eq!(cpus(b"1,3-5", 8), Some(vec![1, 3, 4, 5]));
        assert_eq!(cpus(b" 1 , 2,,", 8), Some(vec![1, 2]));
        assert_eq!(cpus(b"0-7:2/4", 8), Some(vec![0, 1, 4, 5]));
        assert_eq!(cpus(b"0-N:1/3", 8), Some(vec![0, 3, 6]));
        assert_eq!(cpus(b"N", 8), Some(vec![7]));
        assert_eq!(cpus(b"all", 4), Some(vec![0, 1, 2, 3]));
        assert_eq!(cpus(b"ALL:1/2", 4), Some(vec![0, 2]));
        // A newline ends the list; what follows is not read.
        assert_eq!(cpus(b"1\nbogus", 8), Some(vec![1]));
        // After `/GROUP` the next region may follow without a separator.
        assert_eq!(cpus(b"0-1:1/2N", 8), Some(vec![0, 7]));
        assert_eq!(cpus(b"", 8), Some(vec![]));
        assert_eq!(cpus(b",", 8), Some(vec![]));
    }

    #[test]
    fn refusals() {
        for bad in [
            &b"8"[..],
            b"3-1",
            b"a",
            b"1-",
            b"-1",
            b"1-2:3",
            b"1-2:3/2",
            b"1-2:1/0",
            b"1x",
            b"4294967296",
            b"0-7:1/2x",
            b"al",
        ] {
            assert_eq!(cpus(bad, 8), None, "{bad:?}");
        }
    }

    #[test]
    fn group_starts_wrap_like_the_kernel() {
        // 1 + 0xffffffff wraps to 0, which is still within the range.
        assert_eq!(cpus(b"1-3:1/4294967295", 8), Some(vec![0, 1]));
    }
}
