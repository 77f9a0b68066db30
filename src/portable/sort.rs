// SPDX-License-Identifier: GPL-2.0

//! An in-place heap sort, for the module's sorting.
//!
//! `core`'s slice sorts end in a call to a panic helper (for orderings that
//! are not total) that objtool does not know never returns, so it reports
//! them as falling through into the next function. This sort cannot
//! panic: it needs no memory and no comparison contract, and runs in
//! O(n log n) whatever the input.

/// Sorts `items` in increasing order (not stable).
pub(crate) fn heap_sort<T: Ord>(items: &mut [T]) {
    let len = items.len();
    for start in (0..len / 2).rev() {
        sift_down(items, start, len);
    }
    for end in (1..len).rev() {
        items.swap(0, end);
        sift_down(items, 0, end);
    }
}

/// Moves `items[root]` down the max-heap `items[..end]` to its place.
fn sift_down<T: Ord>(items: &mut [T], mut root: usize, end: usize) {
    loop {
        let left = 2 * root + 1;
        if left >= end {
            return;
        }
        let right = left + 1;
        let child = if right < end && items[right] > items[left] {
            right
        } else {
            left
        };
        if items[child] <= items[root] {
            return;
        }
        items.swap(root, child);
        root = child;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_core() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in [0usize, 1, 2, 3, 7, 8, 100, 1000, 4097] {
            let mut items: Vec<(u64, usize)> = (0..len)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % 64, i % 5)
                })
                .collect();
            let mut expect = items.clone();
            expect.sort();
            heap_sort(&mut items);
            assert_eq!(items, expect, "length {len}");
        }
    }

    #[test]
    fn sorted_and_reversed_input() {
        let mut up: Vec<u32> = (0..500).collect();
        heap_sort(&mut up);
        assert!(up.windows(2).all(|w| w[0] <= w[1]));
        let mut down: Vec<u32> = (0..500).rev().collect();
        heap_sort(&mut down);
        assert_eq!(down, (0..500).collect::<Vec<_>>());
    }
}
