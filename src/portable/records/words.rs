// SPDX-License-Identifier: GPL-2.0

//! A record built as the ring stores it: 32-bit words. Every field of the
//! records the tracers write sits at a multiple of 4 bytes, so a record is
//! put together in registers and stored word by word into its reserved
//! space, with no byte buffer in between.

use super::super::output::{EntryHeader, ENTRY_HEADER_SIZE};

/// A record of `N` words, its common header first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecordWords<const N: usize>([u32; N]);

impl<const N: usize> RecordWords<N> {
    /// The record's length in bytes.
    pub(crate) const LEN: usize = N * 4;

    /// A record that starts with `header`, its fields zero.
    #[inline]
    pub(crate) fn new(header: EntryHeader) -> Self {
        let mut words = RecordWords([0; N]);
        let bytes = header.to_bytes();
        words.put_u32(
            0,
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        );
        words.put_u32(
            4,
            u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]),
        );
        words
    }

    /// Sets the 4 bytes at `offset` (a multiple of 4; nothing past the end).
    #[inline]
    pub(crate) fn put_u32(&mut self, offset: usize, value: u32) {
        if let Some(word) = self.0.get_mut(offset / 4) {
            *word = value;
        }
    }

    /// Sets the 8 bytes at `offset` (a multiple of 4), little-endian.
    #[inline]
    pub(crate) fn put_u64(&mut self, offset: usize, value: u64) {
        self.put_u32(offset, value as u32);
        self.put_u32(offset + 4, (value >> 32) as u32);
    }

    /// The words, in the order they are stored.
    #[inline]
    pub(crate) fn words(&self) -> &[u32; N] {
        &self.0
    }

    /// Copies the record into `out` as bytes (as much as fits).
    #[cfg(test)]
    pub(crate) fn copy_to(&self, out: &mut [u8]) {
        for (to, word) in out.chunks_mut(4).zip(self.0.iter()) {
            let bytes = word.to_le_bytes();
            let n = to.len();
            to.copy_from_slice(&bytes[..n]);
        }
    }
}

/// The header is two words.
const _: () = assert!(ENTRY_HEADER_SIZE == 8);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_the_little_endian_bytes() {
        let header = EntryHeader {
            kind: 0x0102,
            flags: 0x03,
            preempt_count: 0x04,
            pid: 0x0506_0708,
        };
        let mut record = RecordWords::<5>::new(header);
        record.put_u64(8, 0x1122_3344_5566_7788);
        record.put_u32(16, 0x99aa_bbcc);
        record.put_u32(20, 1); // past the end: ignored
        let mut bytes = [0u8; 20];
        record.copy_to(&mut bytes);
        assert_eq!(&bytes[..8], &header.to_bytes());
        assert_eq!(&bytes[8..16], &0x1122_3344_5566_7788u64.to_le_bytes());
        assert_eq!(&bytes[16..], &0x99aa_bbccu32.to_le_bytes());
        assert_eq!(RecordWords::<5>::LEN, 20);
    }

    #[test]
    fn a_short_output_gets_what_fits() {
        let mut record = RecordWords::<2>::new(EntryHeader {
            kind: 1,
            flags: 0,
            preempt_count: 0,
            pid: -1,
        });
        record.put_u32(0, 0xdead_beef);
        let mut bytes = [0u8; 6];
        record.copy_to(&mut bytes);
        assert_eq!(bytes, [0xef, 0xbe, 0xad, 0xde, 0xff, 0xff]);
    }
}
