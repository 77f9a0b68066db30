// SPDX-License-Identifier: GPL-2.0

//! The index that takes the dispatcher from a call address to its site in
//! a few loads instead of a binary search over every site of a segment.
//!
//! A segment's text `[start, end)` is cut into buckets of `1 << shift`
//! bytes; the index holds, for each bucket, the position of the first site
//! at or after the bucket's start, plus one last entry (the number of
//! sites). A lookup reads two neighbouring entries and searches the few
//! sites between them. The shift is chosen so that there are about as many
//! buckets as sites: the index costs at most two `u32` a site.

use core::ops::Range;

/// The smallest bucket, in address bits: one `__fentry__` site per
/// function, and no function is shorter than 16 bytes.
const MIN_SHIFT: u32 = 4;

/// The bucket shift for `sites` sites over `span` bytes of text: the
/// smallest with no more buckets than sites.
pub(crate) fn bucket_shift(span: usize, sites: usize) -> u32 {
    let mut shift = MIN_SHIFT;
    while shift < usize::BITS - 1 && (span >> shift) > sites {
        shift += 1;
    }
    shift
}

/// The number of index entries for `span` bytes cut at `shift`: one per
/// bucket and the end marker.
pub(crate) fn index_len(span: usize, shift: u32) -> usize {
    (span >> shift) + 2
}

/// Fills `index` (of [`index_len`] entries) for the sites at `ips`, sorted
/// by address, all within `[start, start + span)`.
pub(crate) fn build(index: &mut [u32], start: usize, shift: u32, ips: impl Iterator<Item = usize>) {
    let mut filled = 0usize;
    let mut count = 0u32;
    for ip in ips {
        let bucket = (ip.wrapping_sub(start) >> shift) + 1;
        // Every bucket up to this site's own starts at this site.
        while filled < bucket.min(index.len()) {
            index[filled] = count;
            filled += 1;
        }
        count = count.saturating_add(1);
    }
    for entry in index.iter_mut().skip(filled) {
        *entry = count;
    }
}

/// The positions of the sites that may be at address `ip`: those of its
/// bucket. Empty when `ip` lies outside the indexed text.
#[inline]
pub(crate) fn candidates(index: &[u32], start: usize, shift: u32, ip: usize) -> Range<usize> {
    let bucket = ip.wrapping_sub(start) >> shift;
    match (index.get(bucket), index.get(bucket + 1)) {
        (Some(&first), Some(&end)) => first as usize..end as usize,
        _ => 0..0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Indexes `ips` from `start` and returns the index and shift.
    fn index_of(start: usize, ips: &[usize]) -> (std::vec::Vec<u32>, u32) {
        let span = ips.last().map_or(0, |l| l + 1 - start);
        let shift = bucket_shift(span, ips.len());
        let mut index = std::vec![0u32; index_len(span, shift)];
        build(&mut index, start, shift, ips.iter().copied());
        (index, shift)
    }

    /// Finds `ip` the way the dispatcher does.
    fn find(index: &[u32], start: usize, shift: u32, ips: &[usize], ip: usize) -> Option<usize> {
        let range = candidates(index, start, shift, ip);
        let slice = ips.get(range.clone())?;
        slice.binary_search(&ip).ok().map(|i| range.start + i)
    }

    #[test]
    fn every_site_is_found_and_nothing_else() {
        let start = 0xffff_ffff_8100_0000usize;
        // Clusters of short functions, gaps, and long functions.
        let mut ips = std::vec::Vec::new();
        let mut at = start + 4;
        for i in 0..3000usize {
            ips.push(at);
            at += match i % 7 {
                0 => 16,
                1 => 32,
                2 => 5000,
                3 => 48,
                _ => 300,
            };
        }
        let (index, shift) = index_of(start, &ips);
        assert!(
            index.len() <= 2 * ips.len() + 2,
            "index too big: {}",
            index.len()
        );
        for (i, &ip) in ips.iter().enumerate() {
            assert_eq!(find(&index, start, shift, &ips, ip), Some(i));
            assert_eq!(find(&index, start, shift, &ips, ip + 1), None);
            assert_eq!(find(&index, start, shift, &ips, ip - 1), None);
        }
        assert_eq!(find(&index, start, shift, &ips, start - 16), None);
        assert_eq!(find(&index, start, shift, &ips, at + 1_000_000), None);
        assert_eq!(find(&index, start, shift, &ips, 0), None);
        assert_eq!(find(&index, start, shift, &ips, usize::MAX), None);
    }

    #[test]
    fn buckets_hold_few_sites() {
        let start = 0x1000usize;
        let ips: std::vec::Vec<usize> = (0..10_000).map(|i| start + i * 400).collect();
        let (index, shift) = index_of(start, &ips);
        let widest = index.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        assert!(widest <= 2, "a bucket holds {widest} sites (shift {shift})");
    }

    #[test]
    fn one_site_and_no_site() {
        let (index, shift) = index_of(0x5000, &[0x5000]);
        assert_eq!(find(&index, 0x5000, shift, &[0x5000], 0x5000), Some(0));
        assert_eq!(find(&index, 0x5000, shift, &[0x5000], 0x5010), None);
        let (index, shift) = index_of(0x5000, &[]);
        assert_eq!(find(&index, 0x5000, shift, &[], 0x5000), None);
    }
}
