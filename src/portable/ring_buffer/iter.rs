// SPDX-License-Identifier: GPL-2.0

//! A non-consuming walk over one ring, as the `trace` file reads it.
//!
//! It copies one page at a time and decodes events from the copy; a page
//! overwritten before it is copied is skipped (the walk resumes at the
//! oldest page still in the ring). Nothing is consumed.

use super::format::{PageDecoder, PAGE_HEADER_SIZE, PAGE_SIZE};
use super::ring::{CpuRing, PageStore};

/// An event found by [`RingIter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IterEvent {
    /// Its time stamp.
    pub(crate) ts: u64,
    /// Payload bytes copied out.
    pub(crate) len: usize,
}

/// Where a walk over a ring is.
#[derive(Clone)]
pub(crate) struct RingIter {
    page: u64,
    offset: usize,
    ts: u64,
    len: usize,
    loaded: bool,
    started: bool,
    /// Events at the start of the first page that readers consumed.
    skip: u64,
}

impl RingIter {
    /// A walk from the oldest unread event.
    pub(crate) const fn new() -> Self {
        RingIter {
            page: 0,
            offset: 0,
            ts: 0,
            len: 0,
            loaded: false,
            started: false,
            skip: 0,
        }
    }

    /// Copies the next event's payload into `payload` (cut to fit); `scratch`
    /// holds the current page between calls and must not change meanwhile.
    pub(crate) fn next<S: PageStore>(
        &mut self,
        ring: &CpuRing<S>,
        scratch: &mut [u8; PAGE_SIZE],
        payload: &mut [u8],
    ) -> Option<IterEvent> {
        if !self.started {
            let (head, consumed, _) = ring.readable();
            self.page = head;
            self.skip = consumed;
            self.started = true;
        }
        loop {
            if !self.loaded && !self.load(ring, scratch) {
                return None;
            }
            let data = &scratch[PAGE_HEADER_SIZE + self.offset..PAGE_HEADER_SIZE + self.len];
            match PageDecoder::new(data, self.ts).next() {
                Some(Ok(record)) => {
                    self.offset += record.end;
                    self.ts = record.ts;
                    if self.skip > 0 {
                        self.skip -= 1;
                        continue;
                    }
                    let n = record.payload.len().min(payload.len());
                    payload[..n].copy_from_slice(&record.payload[..n]);
                    return Some(IterEvent {
                        ts: record.ts,
                        len: n,
                    });
                }
                _ => {
                    let (_, _, commit_page) = ring.readable();
                    if self.page >= commit_page {
                        return None;
                    }
                    self.page += 1;
                    self.loaded = false;
                }
            }
        }
    }

    /// The time stamp of the event [`RingIter::next`] would return, without
    /// moving: `scratch` is the walk's page (only read), `spare` a page to
    /// copy the next one into when the walk's page has no more events.
    pub(crate) fn peek_ts<S: PageStore>(
        &self,
        ring: &CpuRing<S>,
        scratch: &[u8; PAGE_SIZE],
        spare: &mut [u8; PAGE_SIZE],
    ) -> Option<u64> {
        let mut ahead = self.clone();
        if self.loaded {
            let data = &scratch[PAGE_HEADER_SIZE + self.offset..PAGE_HEADER_SIZE + self.len];
            let mut skip = self.skip;
            for record in PageDecoder::new(data, self.ts) {
                let Ok(record) = record else {
                    break;
                };
                if skip == 0 {
                    return Some(record.ts);
                }
                skip -= 1;
            }
            let (_, _, commit_page) = ring.readable();
            if self.page >= commit_page {
                return None;
            }
            ahead.page += 1;
            ahead.skip = 0;
            ahead.loaded = false;
        }
        ahead.next(ring, spare, &mut []).map(|event| event.ts)
    }

    /// Copies the current page; false at the end of the ring.
    fn load<S: PageStore>(&mut self, ring: &CpuRing<S>, scratch: &mut [u8; PAGE_SIZE]) -> bool {
        loop {
            if let Some(len) = ring.copy_page(self.page, scratch) {
                self.len = len;
                self.offset = 0;
                self.ts = u64::from_le_bytes(scratch[..8].try_into().unwrap_or([0; 8]));
                self.loaded = true;
                return true;
            }
            let (head, _, commit_page) = ring.readable();
            if self.page < head {
                // Overwritten before we got to it: go on from the oldest.
                self.page = head;
                self.skip = 0;
                continue;
            }
            if self.page > commit_page {
                return false;
            }
            // Reused while copied: try again.
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ring::tests::{check_payload, drain, ring, write};
    use super::*;
    use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

    #[test]
    fn peeks_the_next_time_stamp() {
        let r = ring(8);
        let now = AtomicU64::new(10);
        let clock = || now.fetch_add(3, Relaxed);
        for seq in 0..400 {
            assert!(write(&r, &clock, 0, seq, 30));
        }
        let mut it = RingIter::new();
        let mut scratch = [0u8; PAGE_SIZE];
        let mut spare = [0u8; PAGE_SIZE];
        let mut buf = [0u8; 64];
        let mut peeked = it.peek_ts(&r, &scratch, &mut spare);
        // Across page boundaries too: each peek is the next event's stamp.
        while let Some(ev) = it.next(&r, &mut scratch, &mut buf) {
            assert_eq!(peeked, Some(ev.ts));
            peeked = it.peek_ts(&r, &scratch, &mut spare);
        }
        assert_eq!(peeked, None);
    }

    #[test]
    fn walks_without_consuming() {
        let r = ring(8);
        let now = AtomicU64::new(10);
        let clock = || now.fetch_add(3, Relaxed);
        for seq in 0..400 {
            assert!(write(&r, &clock, 0, seq, 30));
        }
        for _ in 0..2 {
            let mut it = RingIter::new();
            let mut scratch = [0u8; PAGE_SIZE];
            let mut buf = [0u8; 64];
            let mut seqs = Vec::new();
            while let Some(ev) = it.next(&r, &mut scratch, &mut buf) {
                seqs.push(check_payload(&buf[..ev.len]).1);
            }
            assert_eq!(seqs, (0..400).collect::<Vec<_>>());
        }
        assert_eq!(drain(&r).len(), 400);
    }

    #[test]
    fn starts_after_consumed_events_and_survives_overwrite() {
        let r = ring(4);
        let now = AtomicU64::new(10);
        let clock = || now.fetch_add(3, Relaxed);
        for seq in 0..50 {
            assert!(write(&r, &clock, 0, seq, 30));
        }
        let mut cursor = super::super::ring::Cursor::new();
        let mut scratch = [0u8; PAGE_SIZE];
        let mut buf = [0u8; 64];
        for _ in 0..5 {
            assert!(r.consume(&mut cursor, &mut scratch, &mut buf).is_some());
        }
        let mut it = RingIter::new();
        let first = it
            .next(&r, &mut scratch, &mut buf)
            .map(|e| check_payload(&buf[..e.len]).1);
        assert_eq!(first, Some(5));
        // Overwrite everything while the walk is in progress.
        for seq in 1000..2000 {
            assert!(write(&r, &clock, 0, seq, 30));
        }
        let mut last = 0;
        while let Some(ev) = it.next(&r, &mut scratch, &mut buf) {
            last = check_payload(&buf[..ev.len]).1;
        }
        assert_eq!(last, 1999);
    }
}
