// SPDX-License-Identifier: GPL-2.0

//! Computing one predicate on a record, as the kernel's `filter_pred_*()`
//! functions and its `regex_match_*()` string matchers do.
//!
//! Record fields are read little-endian. A field, a `__data_loc` string or
//! a cpumask that lies (partly) past the end of the record reads as zero
//! bytes there: the kernel would read whatever memory follows the event.

use super::predicate::{CompareOp, MatchKind, PredFn, Predicate, Width};
use super::text::{byte_at, c_string};
use super::{AddressSpace, FilterEnv, RecordContext, LONG_SIZE, TASK_COMM_LEN, USTRING_BUF_SIZE};
use crate::portable::cpumask::CpuMask;
use crate::portable::glob::glob_match;

/// Everything a predicate may look at.
pub(super) struct EvalContext<'a> {
    /// The filter text the patterns are runs of.
    pub(super) text: &'a [u8],
    /// The record, from its common fields on.
    pub(super) record: &'a [u8],
    /// The CPU and task recording it.
    pub(super) ctx: &'a RecordContext<'a>,
    /// Reads strings behind `char *` fields.
    pub(super) env: &'a dyn FilterEnv,
    /// The kernel's `nr_cpu_ids`.
    pub(super) nr_cpu_ids: u32,
}

impl Predicate {
    /// Whether the predicate holds for the record (`filter_pred_fn_call()`).
    pub(super) fn evaluate(&self, cx: &EvalContext<'_>) -> bool {
        match self.func {
            PredFn::Nop => false,
            PredFn::Equal(width) => self.equal(cx, width),
            PredFn::ScalarCpumask(width) => self.scalar_in_mask(cx, width),
            PredFn::Signed(width) => self.compare_signed(cx, width),
            PredFn::Unsigned(width) => self.compare_unsigned(cx, width),
            PredFn::Comm => self.match_string(cx, cx.ctx.comm, TASK_COMM_LEN),
            PredFn::String => {
                let string = cx.record.get(self.offset as usize..).unwrap_or_default();
                self.match_string(cx, string, self.field_len as usize)
            }
            PredFn::StrLoc => self.match_data_loc(cx, false),
            PredFn::StrRelLoc => self.match_data_loc(cx, true),
            PredFn::PcharUser => self.match_pointer(cx, AddressSpace::User),
            PredFn::Pchar => self.match_pointer(cx, AddressSpace::Kernel),
            PredFn::Cpu => self.compare_cpu(cx),
            PredFn::CpuCpumask => scalar_against_mask(self.op, cx.ctx.cpu, &self.mask),
            PredFn::Cpumask => self.mask_field_against_mask(cx),
            PredFn::CpumaskCpu => self.mask_field_against_cpu(cx),
            PredFn::Function => self.in_function(cx),
        }
    }

    /// `filter_pred_8()` ...: `==`, inverted for `!=`; the value is cut to
    /// the field's size.
    fn equal(&self, cx: &EvalContext<'_>, width: Width) -> bool {
        let field = read_number(cx.record, self.offset, width.bytes());
        (field == truncate(self.val, width)) != self.not
    }

    /// `filter_pred_s8()` ...: ordering and `&` on signed numbers.
    fn compare_signed(&self, cx: &EvalContext<'_>, width: Width) -> bool {
        let raw = read_number(cx.record, self.offset, width.bytes());
        if self.op == CompareOp::Band {
            return raw & truncate(self.val, width) != 0;
        }
        order(
            self.op,
            sign_extend(raw, width),
            sign_extend(self.val, width),
        )
    }

    /// `filter_pred_u8()` ...: ordering and `&` on unsigned numbers.
    fn compare_unsigned(&self, cx: &EvalContext<'_>, width: Width) -> bool {
        let raw = read_number(cx.record, self.offset, width.bytes());
        let value = truncate(self.val, width);
        if self.op == CompareOp::Band {
            return raw & value != 0;
        }
        order(self.op, raw, value)
    }

    /// `filter_pred_8_cpumask()` ...: a CPU number field (its low 32 bits)
    /// against a mask of several CPUs; CPUs past `nr_cpu_ids` never match.
    fn scalar_in_mask(&self, cx: &EvalContext<'_>, width: Width) -> bool {
        let raw = read_number(cx.record, self.offset, width.bytes());
        let cpu = raw as u32;
        cpu < cx.nr_cpu_ids && scalar_against_mask(self.op, cpu, &self.mask)
    }

    /// `filter_pred_cpu()`: the recording CPU against a number, both as C
    /// `int`s; `&` never matches.
    fn compare_cpu(&self, cx: &EvalContext<'_>) -> bool {
        let cpu = cx.ctx.cpu as i32;
        let value = self.val as i32;
        match self.op {
            CompareOp::Eq => cpu == value,
            CompareOp::Ne => cpu != value,
            op => order(op, cpu, value),
        }
    }

    /// `filter_pred_cpumask()`: a `__data_loc cpumask_t` field against a
    /// mask of several CPUs.
    fn mask_field_against_mask(&self, cx: &EvalContext<'_>) -> bool {
        let field = RecordMask::at(cx, self.offset);
        match self.op {
            CompareOp::Eq => field.equals(&self.mask),
            CompareOp::Ne => !field.equals(&self.mask),
            CompareOp::Band => field.intersects(&self.mask),
            _ => false,
        }
    }

    /// `filter_pred_cpumask_cpu()`: a `__data_loc cpumask_t` field against
    /// one CPU: `==` when it holds that CPU alone, `&` when it holds it.
    fn mask_field_against_cpu(&self, cx: &EvalContext<'_>) -> bool {
        let field = RecordMask::at(cx, self.offset);
        let cpu = self.val as u32;
        let only_cpu = field.holds(cpu) && field.count_up_to(2) < 2;
        match self.op {
            CompareOp::Eq => only_cpu,
            CompareOp::Ne => !only_cpu,
            CompareOp::Band => field.holds(cpu),
            _ => false,
        }
    }

    /// `filter_pred_function()`: the field's address inside the function
    /// (`==`) or outside it (`!=`).
    fn in_function(&self, cx: &EvalContext<'_>) -> bool {
        let address = read_number(cx.record, self.offset, LONG_SIZE);
        let inside = address >= self.val && address < self.val2;
        if self.op == CompareOp::Eq {
            inside
        } else {
            !inside
        }
    }

    /// `filter_pred_strloc()` and `filter_pred_strrelloc()`: the string's
    /// offset is the low 16 bits of the field (from the record's start, or
    /// from the end of the field for `__rel_loc`), its length the high 16.
    fn match_data_loc(&self, cx: &EvalContext<'_>, relative: bool) -> bool {
        let item = read_number(cx.record, self.offset, 4);
        let location = (item & 0xffff) as usize;
        let len = (item >> 16) as usize;
        let base = if relative {
            self.offset as usize + 4
        } else {
            0
        };
        let string = cx.record.get(base + location..).unwrap_or_default();
        self.match_string(cx, string, len)
    }

    /// `filter_pred_pchar()` and `filter_pred_pchar_user()`: the string a
    /// `char *` field points to, as copied (at most 1023 bytes); no match
    /// when it cannot be read, whatever the operator.
    fn match_pointer(&self, cx: &EvalContext<'_>, space: AddressSpace) -> bool {
        let address = read_number(cx.record, self.offset, LONG_SIZE);
        let mut compare = |copied: &[u8]| {
            let string = c_string(copied);
            let string = string.get(..USTRING_BUF_SIZE - 1).unwrap_or(string);
            self.match_string(cx, string, string.len() + 1)
        };
        cx.env
            .with_string(address, space, &mut compare)
            .unwrap_or(false)
    }

    /// Matches the pattern against `string` with the kernel's `len` (0:
    /// up to its NUL), inverted by `not`.
    fn match_string(&self, cx: &EvalContext<'_>, string: &[u8], len: usize) -> bool {
        let pattern = cx
            .text
            .get(self.pattern.start..self.pattern.start + self.pattern.len)
            .unwrap_or_default();
        regex_match(self.pattern.kind, pattern, string, len) != self.not
    }
}

/// `<`, `<=`, `>`, `>=` of `a` and `b`; other operators never match.
fn order<T: PartialOrd>(op: CompareOp, a: T, b: T) -> bool {
    match op {
        CompareOp::Lt => a < b,
        CompareOp::Le => a <= b,
        CompareOp::Gt => a > b,
        CompareOp::Ge => a >= b,
        _ => false,
    }
}

/// `do_filter_scalar_cpumask()`: one CPU against a mask of several, which
/// it can never equal.
fn scalar_against_mask(op: CompareOp, cpu: u32, mask: &CpuMask) -> bool {
    match op {
        CompareOp::Eq => false,
        CompareOp::Ne => true,
        CompareOp::Band => mask_holds(mask, cpu),
        _ => false,
    }
}

/// Whether `mask` holds `cpu`.
fn mask_holds(mask: &CpuMask, cpu: u32) -> bool {
    let cpu = cpu as usize;
    let word = mask.words().get(cpu / 64).copied().unwrap_or(0);
    word & (1 << (cpu % 64)) != 0
}

/// A `__data_loc cpumask_t` of a record: a bitmap of `nr_cpu_ids` bits
/// where the low 16 bits of the field point (its length is not looked
/// at, as the kernel does not).
struct RecordMask<'a> {
    /// The record from the bitmap on.
    bits: &'a [u8],
    /// The bits compared.
    nr_cpu_ids: u32,
}

impl<'a> RecordMask<'a> {
    /// The mask the field at `offset` points to.
    fn at(cx: &EvalContext<'a>, offset: u32) -> Self {
        let location = (read_number(cx.record, offset, 4) & 0xffff) as usize;
        RecordMask {
            bits: cx.record.get(location..).unwrap_or_default(),
            nr_cpu_ids: cx.nr_cpu_ids,
        }
    }

    /// Whether it holds `cpu`.
    fn holds(&self, cpu: u32) -> bool {
        let byte = byte_at(self.bits, cpu as usize / 8);
        cpu < self.nr_cpu_ids && byte & (1 << (cpu % 8)) != 0
    }

    /// How many CPUs it holds, counting no further than `limit`.
    fn count_up_to(&self, limit: u32) -> u32 {
        let mut count = 0;
        for cpu in 0..self.nr_cpu_ids {
            if count >= limit {
                break;
            }
            count += u32::from(self.holds(cpu));
        }
        count
    }

    /// `cpumask_equal()` with `mask` over `nr_cpu_ids` bits.
    fn equals(&self, mask: &CpuMask) -> bool {
        (0..self.nr_cpu_ids).all(|cpu| self.holds(cpu) == mask_holds(mask, cpu))
    }

    /// `cpumask_intersects()` with `mask` over `nr_cpu_ids` bits.
    fn intersects(&self, mask: &CpuMask) -> bool {
        (0..self.nr_cpu_ids).any(|cpu| self.holds(cpu) && mask_holds(mask, cpu))
    }
}

/// Reads `size` bytes (at most 8) at `offset` as a little-endian number;
/// bytes past the record read as zero.
fn read_number(record: &[u8], offset: u32, size: usize) -> u64 {
    let mut bytes = [0u8; 8];
    for (k, byte) in bytes.iter_mut().enumerate().take(size) {
        *byte = byte_at(record, offset as usize + k);
    }
    u64::from_le_bytes(bytes)
}

/// `value` cut to `width`, as C's cast to the field's type cuts it.
fn truncate(value: u64, width: Width) -> u64 {
    match width {
        Width::Eight => value,
        _ => value & ((1u64 << (8 * width.bytes())) - 1),
    }
}

/// `value` cut to `width` and read as signed.
fn sign_extend(value: u64, width: Width) -> i64 {
    let unused = 64 - 8 * width.bytes() as u32;
    let shifted = i64::from_ne_bytes((value << unused).to_ne_bytes());
    shifted >> unused
}

/// A string as the kernel's matchers see it: bytes from the string's
/// start (reads past them see NUL) and the kernel's `len`: the bytes that
/// may be read including the NUL, or 0 for a string read up to its NUL.
#[derive(Clone, Copy)]
struct Subject<'a> {
    /// The memory from the string's start.
    memory: &'a [u8],
    /// The kernel's `len`.
    len: usize,
}

impl<'a> Subject<'a> {
    /// The byte at `i`.
    fn byte(&self, i: usize) -> u8 {
        byte_at(self.memory, i)
    }

    /// The first `len` bytes (fewer where the memory ends).
    fn bounded(&self) -> &'a [u8] {
        self.memory.get(..self.len).unwrap_or(self.memory)
    }

    /// The string up to its NUL (`len` 0).
    fn c_str(&self) -> &'a [u8] {
        c_string(self.memory)
    }

    /// `strncmp(str, pattern, n) == 0`.
    fn strncmp_equal(&self, pattern: &[u8], n: usize) -> bool {
        for k in 0..n {
            let c = self.byte(k);
            if c != byte_at(pattern, k) {
                return false;
            }
            if c == 0 {
                return true;
            }
        }
        true
    }
}

/// Whether `string` matches `pattern` as the kernel's matcher of `kind`
/// decides, given its `len`.
fn regex_match(kind: MatchKind, pattern: &[u8], string: &[u8], len: usize) -> bool {
    let subject = Subject {
        memory: string,
        len,
    };
    match kind {
        MatchKind::Full => match_full(subject, pattern),
        MatchKind::Front => match_front(subject, pattern),
        MatchKind::Middle => match_middle(subject, pattern),
        MatchKind::End => match_end(subject, pattern),
        MatchKind::Glob => glob_match(pattern, subject.bounded()),
    }
}

/// `regex_match_full()`: the string, up to its NUL or `len`, is the
/// pattern. A `len` of exactly the pattern's length matches without a
/// NUL after it (a full `char[N]`).
fn match_full(subject: Subject<'_>, pattern: &[u8]) -> bool {
    if subject.len == 0 {
        return subject.c_str() == pattern;
    }
    subject.len >= pattern.len() && subject.strncmp_equal(pattern, subject.len)
}

/// `regex_match_front()`: the string starts with the pattern.
fn match_front(subject: Subject<'_>, pattern: &[u8]) -> bool {
    if subject.len != 0 && subject.len < pattern.len() {
        return false;
    }
    subject.strncmp_equal(pattern, pattern.len())
}

/// `regex_match_middle()`: the pattern occurs in the string; with a `len`
/// (`strnstr()`), anywhere in its `len` bytes, NULs and what follows them
/// included.
fn match_middle(subject: Subject<'_>, pattern: &[u8]) -> bool {
    let haystack = if subject.len == 0 {
        subject.c_str()
    } else {
        subject.bounded()
    };
    pattern.is_empty() || haystack.windows(pattern.len()).any(|w| w == pattern)
}

/// `regex_match_end()`: the pattern ends right before the last of the
/// `len` bytes, where the kernel expects the NUL. For a `char[N]` field or
/// `comm` that is the end of the array, not of the string; a `len` of 0
/// never matches.
fn match_end(subject: Subject<'_>, pattern: &[u8]) -> bool {
    let Some(string_len) = subject.len.checked_sub(1) else {
        return false;
    };
    let Some(start) = string_len.checked_sub(pattern.len()) else {
        return false;
    };
    (0..pattern.len()).all(|k| subject.byte(start + k) == byte_at(pattern, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_match_lengths() {
        assert!(regex_match(MatchKind::Full, b"abc", b"abc\0xyz", 8));
        assert!(!regex_match(MatchKind::Full, b"abc", b"abcd\0yz", 8));
        // A full array needs no NUL.
        assert!(regex_match(MatchKind::Full, b"abcd", b"abcd", 4));
        assert!(!regex_match(MatchKind::Full, b"abcd", b"abc", 3));
        // len 0: up to the NUL.
        assert!(regex_match(MatchKind::Full, b"ab", b"ab\0c", 0));
        assert!(regex_match(MatchKind::Full, b"", b"\0c", 4));
        assert!(!regex_match(MatchKind::Full, b"", b"x", 4));
    }

    #[test]
    fn front_middle_end() {
        assert!(regex_match(MatchKind::Front, b"ab", b"abc\0", 4));
        assert!(!regex_match(MatchKind::Front, b"abc", b"ab\0", 2));
        assert!(regex_match(MatchKind::Front, b"ab", b"ab", 0));
        // strnstr() looks past the NUL within len.
        assert!(regex_match(MatchKind::Middle, b"yz", b"ab\0xyz\0\0", 8));
        assert!(!regex_match(MatchKind::Middle, b"yz", b"ab\0xyz\0\0", 0));
        assert!(regex_match(MatchKind::Middle, b"", b"", 0));
        assert!(!regex_match(MatchKind::Middle, b"abc", b"abc", 2));
        // The end is just before the last byte of len.
        assert!(regex_match(MatchKind::End, b"sh", b"bash\0", 5));
        assert!(!regex_match(MatchKind::End, b"sh", b"bash\0\0\0\0", 8));
        assert!(regex_match(MatchKind::End, b"", b"", 1));
        assert!(!regex_match(MatchKind::End, b"", b"", 0));
    }

    #[test]
    fn glob_is_bounded_by_len() {
        assert!(regex_match(MatchKind::Glob, b"b*h", b"bash\0", 5));
        assert!(regex_match(MatchKind::Glob, b"b*h", b"bashful", 4));
        assert!(!regex_match(MatchKind::Glob, b"b*h", b"bashful", 7));
        // len 0 is the empty string for glob_match_len().
        assert!(regex_match(MatchKind::Glob, b"*", b"bash", 0));
        assert!(!regex_match(MatchKind::Glob, b"?*", b"bash", 0));
    }

    #[test]
    fn numbers_are_cut_and_extended() {
        assert_eq!(truncate(0x1234_5678_9abc_def0, Width::Two), 0xdef0);
        assert_eq!(sign_extend(0xff, Width::One), -1);
        assert_eq!(sign_extend(0x7f, Width::One), 127);
        assert_eq!(sign_extend(0xffff_8000, Width::Two), -32768);
        assert_eq!(sign_extend(u64::MAX, Width::Eight), -1);
        assert_eq!(read_number(&[1, 2, 3], 1, 4), 0x0302);
        assert_eq!(read_number(&[1, 2, 3], 9, 4), 0);
    }
}
