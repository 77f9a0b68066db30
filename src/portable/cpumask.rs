// SPDX-License-Identifier: GPL-2.0

//! The text form of CPU masks, as `tracing_cpumask` reads and writes them.
//!
//! The format is the kernel's `%*pb`: hex digits in 32-bit groups separated
//! by commas, most significant group first; the first group is as wide as the
//! bits it holds need, the others are eight digits wide.

use super::input::{self, InputError};
use core::fmt;

/// The largest CPU count a mask can describe.
pub(crate) const MAX_CPUS: usize = 512;
/// The number of 64-bit words of a mask.
pub(crate) const WORDS: usize = MAX_CPUS / 64;
const GROUP_BITS: usize = 32;

/// A set of CPU numbers below `MAX_CPUS`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct CpuMask {
    words: [u64; WORDS],
}

impl CpuMask {
    /// The empty mask.
    pub(crate) const fn empty() -> Self {
        CpuMask { words: [0; WORDS] }
    }

    /// The mask of CPUs `0..count`.
    pub(crate) fn first(count: usize) -> Self {
        let mut mask = Self::empty();
        for cpu in 0..count.min(MAX_CPUS) {
            mask.set(cpu);
        }
        mask
    }

    /// Adds `cpu`; numbers past `MAX_CPUS` are ignored.
    pub(crate) fn set(&mut self, cpu: usize) {
        if cpu < MAX_CPUS {
            self.words[cpu / 64] |= 1 << (cpu % 64);
        }
    }

    /// The mask as 64-bit words, CPU 0 in bit 0 of the first.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// Whether every CPU in `self` is also in `other`.
    pub(crate) fn is_subset_of(&self, other: &CpuMask) -> bool {
        self.words
            .iter()
            .zip(other.words.iter())
            .all(|(a, b)| a & !b == 0)
    }

    fn group(&self, index: usize) -> u32 {
        let bit = index * GROUP_BITS;
        // Truncation keeps exactly the 32 bits of this group.
        (self.words[bit / 64] >> (bit % 64)) as u32
    }

    fn set_group(&mut self, index: usize, value: u32) {
        let bit = index * GROUP_BITS;
        self.words[bit / 64] |= u64::from(value) << (bit % 64);
    }

    /// Parses the text form, accepting only CPUs below `nr_cpus` (the
    /// possible CPUs, as the kernel's `nr_cpu_ids`).
    pub(crate) fn parse(text: &[u8], nr_cpus: usize) -> Result<Self, InputError> {
        let text = input::word(text)?;
        if text.is_empty() {
            return Err(InputError::BadMask);
        }
        let groups = text.split(|&b| b == b',');
        let count = groups.clone().count();
        if count > MAX_CPUS / GROUP_BITS {
            return Err(InputError::NoSuchCpu);
        }
        let mut mask = Self::empty();
        for (i, group) in groups.enumerate() {
            let value = parse_group(group)?;
            mask.set_group(count - 1 - i, value);
        }
        if mask.is_subset_of(&Self::first(nr_cpus)) {
            Ok(mask)
        } else {
            Err(InputError::NoSuchCpu)
        }
    }

    /// Formats the mask over `nr_bits` CPUs, as `%*pb` does.
    pub(crate) fn display(&self, nr_bits: usize) -> impl fmt::Display + '_ {
        MaskText {
            mask: self,
            nr_bits: nr_bits.clamp(1, MAX_CPUS),
        }
    }
}

fn parse_group(group: &[u8]) -> Result<u32, InputError> {
    if group.is_empty() || group.len() > GROUP_BITS / 4 {
        return Err(InputError::BadMask);
    }
    let mut value: u32 = 0;
    for &b in group {
        let digit = char::from(b).to_digit(16).ok_or(InputError::BadMask)?;
        value = (value << 4) | digit;
    }
    Ok(value)
}

struct MaskText<'a> {
    mask: &'a CpuMask,
    nr_bits: usize,
}

impl fmt::Display for MaskText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let groups = self.nr_bits.div_ceil(GROUP_BITS);
        let top_bits = match self.nr_bits % GROUP_BITS {
            0 => GROUP_BITS,
            bits => bits,
        };
        for index in (0..groups).rev() {
            let (bits, separator) = if index == groups - 1 {
                (top_bits, "")
            } else {
                (GROUP_BITS, ",")
            };
            let value = u64::from(self.mask.group(index)) & ((1u64 << bits) - 1);
            write!(f, "{separator}{value:0width$x}", width = bits.div_ceil(4))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(mask: &CpuMask, bits: usize) -> String {
        format!("{}", mask.display(bits))
    }

    #[test]
    fn formats_like_percent_pb() {
        assert_eq!(text(&CpuMask::first(2), 2), "3");
        assert_eq!(text(&CpuMask::first(1), 2), "1");
        assert_eq!(text(&CpuMask::empty(), 2), "0");
        assert_eq!(text(&CpuMask::first(8), 8), "ff");
        assert_eq!(text(&CpuMask::first(2), 8), "03");
        assert_eq!(text(&CpuMask::first(40), 40), "ff,ffffffff");
        assert_eq!(text(&CpuMask::first(1), 64), "00000000,00000001");
    }

    #[test]
    fn parses_groups() {
        assert_eq!(CpuMask::parse(b"3\n", 2), Ok(CpuMask::first(2)));
        assert_eq!(CpuMask::parse(b"1", 2), Ok(CpuMask::first(1)));
        assert_eq!(CpuMask::parse(b"0", 2), Ok(CpuMask::empty()));
        assert_eq!(CpuMask::parse(b"ff,ffffffff", 40), Ok(CpuMask::first(40)));
        let mut cpu32 = CpuMask::empty();
        cpu32.set(32);
        assert_eq!(CpuMask::parse(b"1,00000000", 64), Ok(cpu32));
    }

    #[test]
    fn refuses_bad_masks() {
        assert_eq!(CpuMask::parse(b"4", 2), Err(InputError::NoSuchCpu));
        assert_eq!(CpuMask::parse(b"1,0", 2), Err(InputError::NoSuchCpu));
        assert_eq!(CpuMask::parse(b"", 2), Err(InputError::BadMask));
        assert_eq!(CpuMask::parse(b"xyz", 2), Err(InputError::BadMask));
        assert_eq!(CpuMask::parse(b"123456789", 64), Err(InputError::BadMask));
        assert_eq!(CpuMask::parse(b"1,,1", 64), Err(InputError::BadMask));
        assert_eq!(CpuMask::parse(b"1\x01", 2), Err(InputError::NotText));
        let many = "1,".repeat(100) + "1";
        assert_eq!(
            CpuMask::parse(many.as_bytes(), 2),
            Err(InputError::NoSuchCpu)
        );
    }

    #[test]
    fn round_trips() {
        let mut mask = CpuMask::empty();
        for cpu in [0, 5, 31, 32, 63, 100] {
            mask.set(cpu);
        }
        let shown = text(&mask, 128);
        assert_eq!(CpuMask::parse(shown.as_bytes(), 128), Ok(mask));
    }
}
